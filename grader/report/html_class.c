/* html_class: index.html, the class's page (report/html.h): every student in a table that
 * sorts and filters (templates/html/table.js), the distributions, each case's pass counts
 * and common failure (hidden cases in full: the instructor's page), and the similarity and
 * mutation analyses when they were run. Numbers only from the results; words in the
 * template. */
#include "report/html.h"

#include "base/alloc.h"
#include "base/escape.h"
#include "base/fs.h"
#include "report/cases.h"
#include "report/format.h"
#include "report/html_parts.h"
#include "report/summary_grades.h"
#include "grade/score.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- each case over the class ---- */

struct failure_count {
    enum verdict v;
    const char *message; /* the results' own; NULL: none */
    int count;
};

struct case_agg {
    const struct exercise_result *ex; /* the first student's: ids and titles */
    const struct variant_result *vr;
    const struct case_result *first;
    int pass, fail, skipped, grader;
    struct failure_count *fails;
    size_t n_fails, alloc_fails;
};

struct class_agg {
    struct case_agg *cases;
    size_t n_cases, alloc_cases;
    struct speed_column *cols;
    size_t n_cols, alloc_cols;
};

static bool same_id(const char *a, const char *b)
{
    return a && b && !strcmp(a, b);
}

static struct case_agg *find_case_agg(struct class_agg *a, const struct exercise_result *ex,
                                      const struct variant_result *vr, const struct case_result *cr)
{
    for (size_t i = 0; i < a->n_cases; i++)
        if (same_id(a->cases[i].ex->exercise_id, ex->exercise_id) &&
            same_id(a->cases[i].vr->variant_id, vr->variant_id) &&
            same_id(a->cases[i].first->case_id, cr->case_id))
            return &a->cases[i];
    ALLOC_GROW(a->cases, a->n_cases + 1, a->alloc_cases);
    struct case_agg *c = &a->cases[a->n_cases++];
    memset(c, 0, sizeof(*c));
    c->ex = ex;
    c->vr = vr;
    c->first = cr;
    return c;
}

static void count_failure(struct case_agg *c, const struct case_result *cr)
{
    const char *msg = has_text(cr->message) ? cr->message : NULL;
    for (size_t i = 0; i < c->n_fails; i++)
        if (c->fails[i].v == cr->verdict &&
            (c->fails[i].message == msg ||
             (msg && c->fails[i].message && !strcmp(c->fails[i].message, msg)))) {
            c->fails[i].count++;
            return;
        }
    ALLOC_GROW(c->fails, c->n_fails + 1, c->alloc_fails);
    c->fails[c->n_fails++] = (struct failure_count){cr->verdict, msg, 1};
}

static struct speed_column *find_column(struct class_agg *a, const struct exercise_result *ex,
                                        const struct variant_result *vr)
{
    char *label = xstrfmt("%s/%s", ex->exercise_id, vr->variant_id);
    for (size_t i = 0; i < a->n_cols; i++)
        if (!strcmp(a->cols[i].label, label)) {
            free(label);
            return &a->cols[i];
        }
    ALLOC_GROW(a->cols, a->n_cols + 1, a->alloc_cols);
    struct speed_column *c = &a->cols[a->n_cols++];
    memset(c, 0, sizeof(*c));
    c->label = label;
    return c;
}

static void add_variant(struct class_agg *a, const struct exercise_result *ex,
                        const struct variant_result *vr)
{
    double logs = 0;
    int n = 0;
    for (size_t k = 0; k < vr->n_cases; k++) {
        const struct case_result *cr = &vr->cases[k];
        if (!cr->case_id)
            continue;
        struct case_agg *c = find_case_agg(a, ex, vr, cr);
        c->pass += cr->verdict == V_PASS;
        c->skipped += cr->verdict == V_SKIPPED;
        c->grader += cr->verdict == V_GRADER;
        if (verdict_is_failure(cr->verdict)) {
            c->fail++;
            count_failure(c, cr);
        }
        if (cr->verdict == V_PASS && cr->speedup_ref > 0) {
            logs += log(cr->speedup_ref);
            n++;
        }
    }
    struct speed_column *col = find_column(a, ex, vr);
    if (n) {
        ALLOC_GROW(col->x, col->n + 1, col->alloc);
        col->x[col->n++] = exp(logs / n);
    }
}

static void class_agg_collect(struct class_agg *a, const struct results *const *rs, size_t n)
{
    memset(a, 0, sizeof(*a));
    for (size_t i = 0; i < n; i++)
        for (size_t e = 0; e < rs[i]->n_exercises; e++) {
            const struct exercise_result *ex = &rs[i]->exercises[e];
            for (size_t v = 0; ex->exercise_id && v < ex->n_variants; v++)
                if (ex->variants[v].variant_id)
                    add_variant(a, ex, &ex->variants[v]);
        }
}

static void class_agg_release(struct class_agg *a)
{
    for (size_t i = 0; i < a->n_cases; i++)
        free(a->cases[i].fails);
    free(a->cases);
    for (size_t i = 0; i < a->n_cols; i++) {
        free(a->cols[i].label);
        free(a->cols[i].x);
    }
    free(a->cols);
}

/* ---- the page's sections ---- */

/* The verdict most of the case's failing students had, and its most frequent message. */
static void set_common_failure(const struct report_ctx *rc, const struct case_agg *c,
                               struct tpl_value *cv)
{
    int per_verdict[V_GRADER + 1] = {0}, top = -1;
    for (size_t i = 0; i < c->n_fails; i++)
        if ((size_t)c->fails[i].v <= V_GRADER)
            per_verdict[c->fails[i].v] += c->fails[i].count;
    for (int v = 0; v <= V_GRADER; v++)
        if (per_verdict[v] > 0 && (top < 0 || per_verdict[v] > per_verdict[top]))
            top = v;
    const struct failure_count *msg = NULL;
    for (size_t i = 0; top >= 0 && i < c->n_fails; i++)
        if ((int)c->fails[i].v == top && c->fails[i].message &&
            (!msg || c->fails[i].count > msg->count))
            msg = &c->fails[i];
    tpl_set_bool(cv, "has_failure", top >= 0);
    html_set_verdict(rc, cv, top >= 0 ? (enum verdict)top : V_PASS);
    tpl_set_num(cv, "failure_count", top >= 0 ? per_verdict[top] : 0);
    char *text = esc_first_line(msg ? msg->message : "", MESSAGE_CHARS);
    tpl_set_str(cv, "failure_message", text);
    tpl_set_bool(cv, "has_failure_message", *text != '\0');
    tpl_set_bool(cv, "message_shared", msg && msg->count > 1);
    free(text);
}

static void set_cases(const struct report_ctx *rc, const struct class_agg *a, struct tpl_value *m)
{
    struct tpl_value *exs = tpl_set_list(m, "case_exercises");
    for (size_t i = 0; i < a->n_cases; i++) {
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = same_id(a->cases[j].ex->exercise_id, a->cases[i].ex->exercise_id);
        if (seen)
            continue;
        struct tpl_value *ev = tpl_push_map(exs);
        tpl_set_str(ev, "id", a->cases[i].ex->exercise_id);
        tpl_set_str(ev, "title", exercise_title(a->cases[i].ex));
        struct tpl_value *cl = tpl_set_list(ev, "cases");
        for (size_t j = i; j < a->n_cases; j++) {
            const struct case_agg *c = &a->cases[j];
            if (!same_id(c->ex->exercise_id, a->cases[i].ex->exercise_id))
                continue;
            struct tpl_value *cv = tpl_push_map(cl);
            tpl_set_str(cv, "variant", c->vr->variant_id);
            tpl_set_str(cv, "case_id", c->first->case_id);
            set_case_sizes(cv, c->first);
            tpl_set_bool(cv, "hidden", c->first->hidden);
            tpl_set_bool(cv, "slow", c->first->slow);
            tpl_set_num(cv, "n_pass", c->pass);
            tpl_set_num(cv, "n_fail", c->fail);
            tpl_set_num(cv, "n_skipped", c->skipped);
            tpl_set_num(cv, "n_grader_errors", c->grader);
            tpl_set_num(cv, "n_ran", c->pass + c->fail);
            set_own(cv, "pass_rate", fmt_pct(c->pass, c->pass + c->fail));
            set_common_failure(rc, c, cv);
        }
    }
}

static void set_speedups(const struct report_ctx *rc, const struct class_agg *a,
                         struct tpl_value *m)
{
    struct speed_column *cols = xcalloc(a->n_cols + 1, sizeof(*cols));
    size_t n = 0;
    struct tpl_value *rows = tpl_set_list(m, "speedups");
    for (size_t i = 0; i < a->n_cols; i++) {
        const struct speed_column *c = &a->cols[i];
        if (!c->n)
            continue;
        cols[n++] = *c;
        double lo = INFINITY, hi = 0;
        for (size_t k = 0; k < c->n; k++) {
            lo = fmin(lo, c->x[k]);
            hi = fmax(hi, c->x[k]);
        }
        struct tpl_value *row = tpl_push_map(rows);
        tpl_set_str(row, "label", c->label);
        tpl_set_num(row, "n", (double)c->n);
        set_own(row, "min", fmt_x(lo));
        set_own(row, "median", fmt_x(median_of(c->x, c->n)));
        set_own(row, "max", fmt_x(hi));
    }
    char *svg = html_fig_class_speedups(rc, cols, n);
    tpl_set_md(m, "speedups_svg", svg);
    tpl_set_bool(m, "has_speedups", n > 0 && *svg);
    free(svg);
    free(cols);
}

static void set_scores(const struct report_ctx *rc, const struct results *const *rs, size_t n,
                       struct tpl_value *m)
{
    struct class_scores cs;
    class_scores_collect(rs, n, &cs);
    class_scores_set(&cs, n, m);
    char *svg = html_fig_scores(rc, cs.scores, cs.n, cs.max_score);
    tpl_set_md(m, "scores_svg", svg);
    tpl_set_bool(m, "has_scores_svg", *svg != '\0');
    free(svg);
    free(cs.scores);
}

/* ---- the students' table ---- */

/* The exercises as columns, in first-seen order. */
static void set_columns(const struct results *const *rs, size_t n, struct tpl_value *m,
                        const char ***ids, size_t *n_ids)
{
    struct tpl_value *cols = tpl_set_list(m, "columns");
    *ids = NULL;
    *n_ids = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t e = 0; e < rs[i]->n_exercises; e++) {
            const struct exercise_result *ex = &rs[i]->exercises[e];
            bool seen = !ex->exercise_id;
            for (size_t k = 0; k < *n_ids && !seen; k++)
                seen = !strcmp((*ids)[k], ex->exercise_id);
            if (seen)
                continue;
            *ids = xrealloc(*ids, (*n_ids + 1) * sizeof(**ids));
            (*ids)[(*n_ids)++] = ex->exercise_id;
            struct tpl_value *cv = tpl_push_map(cols);
            tpl_set_str(cv, "id", ex->exercise_id);
            tpl_set_str(cv, "title", exercise_title(ex));
            set_own(cv, "max_points", fmt_points(ex->max_points));
        }
}

static int count_verdict(const struct results *r, enum verdict v)
{
    int n = 0;
    for (size_t e = 0; e < r->n_exercises; e++)
        for (size_t k = 0; k < r->exercises[e].n_variants; k++)
            for (size_t c = 0; c < r->exercises[e].variants[k].n_cases; c++)
                n += r->exercises[e].variants[k].cases[c].verdict == v;
    return n;
}

/* As gradebook.csv's status (report/export_text.h's export_status) puts it first: a grade
 * that is not complete (a grader error, a case not timed) before what the cases say. */
static const char *status_of(const struct results *r)
{
    enum grade_gap gap = grade_gap_of(r, NULL);
    return gap == GAP_NOT_TIMED                        ? "not-timed"
           : gap != GAP_NONE || r->n_grader_errors > 0 ? "grader"
           : r->n_fail > 0                             ? "failed"
           : r->n_skipped > 0                          ? "incomplete"
                                                       : "ok";
}

static void set_row_points(const struct results *r, const char *const *ids, size_t n_ids,
                           struct tpl_value *row)
{
    struct tpl_value *cells = tpl_set_list(row, "points");
    for (size_t k = 0; k < n_ids; k++) {
        const struct exercise_result *ex = NULL;
        for (size_t e = 0; e < r->n_exercises && !ex; e++)
            if (same_id(r->exercises[e].exercise_id, ids[k]))
                ex = &r->exercises[e];
        struct tpl_value *cell = tpl_push_map(cells);
        set_own(cell, "value", ex ? fmt_points(ex->points) : xstrdup(NO_VALUE));
        set_own(cell, "sort", xstrfmt("%.6g", ex ? ex->points : -1.0));
    }
}

static void set_row_late(const struct results *r, struct tpl_value *row, struct strbuf *tags)
{
    const struct late_record *l = &r->lms.late;
    bool late = l->evaluated && l->late;
    tpl_set_bool(row, "late", late);
    tpl_set_bool(row, "late_days_known", late && l->days_known);
    set_own(row, "late_days", fmt_points(l->days));
    set_own(row, "late_sort", xstrfmt("%.6g", late ? (l->days_known ? l->days : 0.5) : 0.0));
    set_own(row, "late_penalty", fmt_points(l->penalty));
    tpl_set_bool(row, "has_late_penalty", late && l->penalty > 0);
    if (late)
        strbuf_addstr(tags, " late");
}

static void set_row(const struct results *r, const char *const *ids, size_t n_ids, int sim,
                    struct tpl_value *row)
{
    struct strbuf tags = STRBUF_INIT, href = STRBUF_INIT;
    char *id = esc_clip(r->student_id, NAME_CHARS), *name = esc_clip(r->student_name, NAME_CHARS);
    tpl_set_str(row, "id", id);
    tpl_set_str(row, "name", name);
    html_url_segment(&href, r->student_id);
    strbuf_addstr(&href, "/report.html");
    tpl_set_md(row, "href", strbuf_str(&href));
    set_own(row, "score", fmt_points(results_final_score(r)));
    set_own(row, "score_sort", xstrfmt("%.6g", results_final_score(r)));
    set_own(row, "max_score", fmt_points(r->max_score));
    set_own(row, "pct", fmt_pct(results_final_score(r), r->max_score));
    set_row_points(r, ids, n_ids, row);
    const char *status = status_of(r);
    strbuf_addstr(&tags, status);
    tpl_set_str(row, "status", status);
    tpl_set_bool(row, "status_ok", !strcmp(status, "ok"));
    tpl_set_bool(row, "status_failed", !strcmp(status, "failed"));
    tpl_set_bool(row, "status_incomplete", !strcmp(status, "incomplete"));
    tpl_set_bool(row, "status_grader", !strcmp(status, "grader"));
    tpl_set_bool(row, "status_not_timed", !strcmp(status, "not-timed"));
    set_row_late(r, row, &tags);
    int cheat = count_verdict(r, V_CHEAT);
    tpl_set_num(row, "cheat", cheat);
    tpl_set_num(row, "grader_errors", r->n_grader_errors);
    tpl_set_num(row, "similar", sim);
    strbuf_addstr(&tags, cheat ? " cheat" : "");
    strbuf_addstr(&tags, sim ? " similar" : "");
    set_own(row, "flags_sort", xstrfmt("%d", cheat * 10000 + r->n_grader_errors * 100 + sim));
    tpl_set_str(row, "tags", strbuf_str(&tags));
    free(id);
    free(name);
    strbuf_release(&tags);
    strbuf_release(&href);
}

static void set_students(const struct results *const *rs, size_t n, const int *sim,
                         struct tpl_value *m)
{
    const char **ids;
    size_t n_ids;
    set_columns(rs, n, m, &ids, &n_ids);
    struct tpl_value *rows = tpl_set_list(m, "students");
    for (size_t i = 0; i < n; i++)
        set_row(rs[i], ids, n_ids, sim ? sim[i] : 0, tpl_push_map(rows));
    tpl_set_num(m, "n_students", (double)n);
    free(ids);
}

/* The newest grading date, and the files beside the page that it links to. */
static void set_header(const struct report_ctx *rc, const struct results *const *rs, size_t n,
                       struct tpl_value *m)
{
    tpl_set_str(m, "lang", rc->lang);
    tpl_set_str(m, "course", rs[0]->course);
    tpl_set_str(m, "lab_id", rs[0]->lab_id);
    tpl_set_num(m, "lab_number", (double)rs[0]->lab_number);
    tpl_set_str(m, "lab_title", rs[0]->lab_title);
    tpl_set_str(m, "grader_version", rs[0]->grader_version);
    const char *date = "";
    for (size_t i = 0; i < n; i++)
        if (rs[i]->date && strcmp(rs[i]->date, date) > 0)
            date = rs[i]->date;
    tpl_set_str(m, "date", date);
    static const char *const files[][2] = {{"summary.pdf", "has_summary_pdf"},
                                           {"gradebook.csv", "has_gradebook"},
                                           {"similarity.html", "has_similarity_html"},
                                           {"mutate/report.md", "has_mutate_report"}};
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        char *p = path_join(rc->outdir, files[i][0]);
        tpl_set_bool(m, files[i][1], file_exists(p));
        free(p);
    }
}

int html_class(struct report_ctx *rc, const struct results *const *rs, size_t n,
               struct report_outcome *out, struct error *err)
{
    struct tpl_value *m = tpl_map();
    struct class_agg a;
    int *sim = NULL;
    set_header(rc, rs, n, m);
    html_add_analyses(rc, rs, n, m, &sim);
    set_scores(rc, rs, n, m);
    set_students(rs, n, sim, m);
    class_agg_collect(&a, rs, n);
    set_cases(rc, &a, m);
    set_speedups(rc, &a, m);
    class_agg_release(&a);
    int res = html_write_page(rc, "index.html", m, true, "index.html", out->html_path,
                              sizeof(out->html_path), err);
    out->html_written = res == 0;
    free(sim);
    tpl_value_free(m);
    return res;
}
