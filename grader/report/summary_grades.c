#include "report/summary_grades.h"

#include "base/alloc.h"
#include "base/escape.h"
#include "grade/score.h"
#include "report/cases.h"
#include "report/format.h"
#include "report/html.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A summary row's student: id and name as the tables show them, sanitized and clipped. */
void summary_student_cells(struct tpl_value *row, const struct results *r)
{
    char *id = esc_clip(r->student_id, NAME_CHARS), *name = esc_clip(r->student_name, NAME_CHARS);
    tpl_set_str(row, "id", id);
    tpl_set_str(row, "name", name);
    free(id);
    free(name);
}

/* A round bin width giving about ten bins or fewer: 1, 2, 2.5 or 5 times a power of ten. */
static double nice_bin_width(double max)
{
    double raw = max / 10, p = pow(10, floor(log10(raw)));
    static const double steps[] = {1, 2, 2.5, 5, 10};
    for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
        if (steps[i] * p >= raw - 1e-12)
            return steps[i] * p;
    return 10 * p;
}

/* Ten bins over [0, max]; the last one includes the maximum. The table and the figure. */
static void score_histogram(struct report_ctx *rc, const double *scores, size_t n, double max_score,
                            struct tpl_value *hist, struct tpl_value *pv)
{
    double w = nice_bin_width(max_score);
    int bins = (int)ceil(max_score / w - 1e-9);
    if (bins < 1)
        bins = 1;
    int *counts = xcalloc((size_t)bins, sizeof(int));
    for (size_t i = 0; i < n; i++) {
        int b = (int)floor(scores[i] / w);
        counts[b < 0 ? 0 : b >= bins ? bins - 1 : b]++;
    }
    struct plot_fig fig;
    plot_fig_init(&fig);
    fig.xlabel = phrase(&rc->strings, false, "plot.score_xlabel", NULL);
    fig.ylabel = phrase(&rc->strings, false, "plot.score_ylabel", NULL);
    fig.box_width = w * 0.9;
    fig.xmin = 0;
    fig.xmax = max_score;
    fig.ymin_zero = true;
    fig.y_integer = n <= 12;
    fig.height_px = 400;
    struct plot_series *s = plot_fig_add_series(&fig, "", PLOT_BOXES);
    for (int b = 0; b < bins; b++) {
        struct tpl_value *hv = tpl_push_map(hist);
        set_own(hv, "from", fmt_points(w * b));
        set_own(hv, "to", fmt_points(fmin(w * (b + 1), max_score)));
        tpl_set_num(hv, "count", counts[b]);
        tpl_set_bool(hv, "last", b == bins - 1);
        plot_series_add(s, w * (b + 0.5), counts[b]);
    }
    free(counts);
    char *name = unique_plot_name(rc, "summary-scores");
    struct plot_result pr;
    plot_render(&fig, rc->plots_dir, name, &pr);
    set_plot_result(rc, pv, &pr, name);
    free(name);
    plot_fig_release(&fig);
}

/* The scores of the students whose grade is complete: an incomplete one is no grade (its
 * exports are empty), so it takes no part in the class's figures. */
void class_scores_collect(const struct results *const *rs, size_t n, struct class_scores *out)
{
    memset(out, 0, sizeof(*out));
    out->scores = xcalloc(n ? n : 1, sizeof(double));
    out->lo = INFINITY;
    out->hi = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        out->max_score = fmax(out->max_score, rs[i]->max_score);
        if (grade_gap_of(rs[i], NULL) != GAP_NONE)
            continue;
        double s = out->scores[out->n++] = rs[i]->score;
        out->sum += s;
        out->lo = fmin(out->lo, s);
        out->hi = fmax(out->hi, s);
    }
}

void class_scores_set(const struct class_scores *cs, size_t n_students, struct tpl_value *m)
{
    size_t k = cs->n;
    tpl_set_num(m, "n_graded", (double)k);
    tpl_set_bool(m, "all_graded", k == n_students);
    set_own(m, "max_score", fmt_points(cs->max_score));
    set_own(m, "mean", k ? fmt_points(cs->sum / (double)k) : xstrdup(NO_VALUE));
    set_own(m, "median", k ? fmt_points(median_of(cs->scores, k)) : xstrdup(NO_VALUE));
    set_own(m, "min", k ? fmt_points(cs->lo) : xstrdup(NO_VALUE));
    set_own(m, "max", k ? fmt_points(cs->hi) : xstrdup(NO_VALUE));
}

void summary_scores(struct report_ctx *rc, const struct results *const *rs, size_t n,
                    struct tpl_value *m)
{
    struct class_scores cs;
    class_scores_collect(rs, n, &cs);
    class_scores_set(&cs, n, m);
    struct tpl_value *hist = tpl_set_list(m, "histogram");
    struct tpl_value *pv = set_plot_map(m, "scores_plot");
    if (cs.max_score > 0 && cs.n > 0)
        score_histogram(rc, cs.scores, cs.n, cs.max_score, hist, pv);
    tpl_set_bool(m, "has_histogram", tpl_list_len(hist) > 0);
    free(cs.scores);
}

/* The first page's table of incomplete grades: one row per status and reason. */
struct gap_row {
    const char *status, *reason;    /* point into the results */
    size_t students, xx, not_timed; /* cases in XX, correct cases not timed */
    struct strbuf ids;
};

static struct gap_row *gap_row_of(struct gap_row **rows, size_t *n, size_t *alloc,
                                  const char *status, const char *reason)
{
    for (size_t i = 0; i < *n; i++)
        if (!strcmp((*rows)[i].status, status) && !strcmp((*rows)[i].reason, reason))
            return &(*rows)[i];
    ALLOC_GROW(*rows, *n + 1, *alloc);
    struct gap_row *row = &(*rows)[(*n)++];
    memset(row, 0, sizeof(*row));
    row->status = status;
    row->reason = reason;
    strbuf_init(&row->ids);
    return row;
}

static void set_gap_row(struct tpl_value *list, struct gap_row *row)
{
    struct tpl_value *v = tpl_push_map(list);
    tpl_set_str(v, "status", row->status);
    tpl_set_bool(v, "grader_error", !strcmp(row->status, "grader-error"));
    tpl_set_bool(v, "not_timed", !strcmp(row->status, "not-timed"));
    char *why = esc_first_line(row->reason, MESSAGE_CHARS);
    tpl_set_str(v, "reason", why);
    tpl_set_bool(v, "has_reason", *why != '\0');
    free(why);
    tpl_set_num(v, "n_students", (double)row->students);
    tpl_set_num(v, "n_xx", (double)row->xx);
    tpl_set_num(v, "n_not_timed", (double)row->not_timed);
    char *ids = esc_clip(strbuf_str(&row->ids), FINDING_CHARS);
    tpl_set_str(v, "students", ids);
    free(ids);
    strbuf_release(&row->ids);
}

/*
 * The first page's warning: the students with no grade yet because the grader's side failed
 * (grade/score.h's grade_gap_of), grouped by status and reason, with whom. Every gradebook
 * leaves their points empty; the summary says how many and why before anything else.
 */
void summary_incomplete(const struct results *const *rs, size_t n, struct tpl_value *m)
{
    struct gap_row *rows = NULL;
    size_t n_rows = 0, alloc = 0, students = 0;
    for (size_t i = 0; i < n; i++) {
        struct grade_gap_info g;
        if (grade_gap_of(rs[i], &g) == GAP_NONE)
            continue;
        students++;
        struct gap_row *row = gap_row_of(&rows, &n_rows, &alloc, grade_gap_status(g.gap), g.reason);
        row->students++;
        /* Counted apart, as each student's report counts them: XX is the grader's error, a
         * case not timed a correct one the machine kept from timing. */
        row->xx += grader_error_cases(rs[i]);
        row->not_timed += (size_t)results_count_not_timed(rs[i]);
        strbuf_addf(&row->ids, "%s%s", row->ids.len ? ", " : "",
                    rs[i]->student_id ? rs[i]->student_id : "");
    }
    struct tpl_value *list = tpl_set_list(m, "incomplete");
    for (size_t i = 0; i < n_rows; i++)
        set_gap_row(list, &rows[i]);
    free(rows);
    tpl_set_num(m, "n_incomplete", (double)students);
    tpl_set_bool(m, "has_incomplete", students > 0);
}

/* The row's points per exercise, in the class's columns (`points`: value and sort key): none
 * for a grade not complete yet, as gradebook.csv leaves them empty. */
static void set_row_points(const struct results *r, const char *const *ids, size_t n_ids,
                           bool graded, struct tpl_value *row)
{
    struct tpl_value *cells = tpl_set_list(row, "points");
    for (size_t k = 0; k < n_ids; k++) {
        const struct exercise_result *ex = NULL;
        for (size_t e = 0; e < r->n_exercises && !ex; e++)
            if (r->exercises[e].exercise_id && !strcmp(r->exercises[e].exercise_id, ids[k]))
                ex = &r->exercises[e];
        if (!graded)
            ex = NULL;
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
    set_own_points(row, "late_penalty", fmt_points(l->penalty));
    tpl_set_bool(row, "has_late_penalty", late && l->penalty > 0);
    if (late)
        strbuf_addstr(tags, " late");
}

/* The submission's failures by verdict, most first ("CE ×4, WA ×2"): `verdicts`, each with
 * `code` and `count`; how many cases tampered (CH). */
static int set_row_verdicts(const struct results *r, struct tpl_value *row)
{
    int count[V_GRADER + 1] = {0};
    bool listed[V_GRADER + 1] = {false};
    for (size_t e = 0; e < r->n_exercises; e++)
        for (size_t v = 0; v < r->exercises[e].n_variants; v++)
            for (size_t c = 0; c < r->exercises[e].variants[v].n_cases; c++) {
                enum verdict k = r->exercises[e].variants[v].cases[c].verdict;
                if (verdict_is_failure(k) && (size_t)k <= V_GRADER)
                    count[k]++;
            }
    struct tpl_value *list = tpl_set_list(row, "verdicts");
    for (;;) {
        int top = -1;
        for (int k = 0; k <= V_GRADER; k++)
            if (count[k] > 0 && !listed[k] && (top < 0 || count[k] > count[top]))
                top = k;
        if (top < 0)
            break;
        listed[top] = true;
        struct tpl_value *item = tpl_push_map(list);
        tpl_set_str(item, "code", verdict_code((enum verdict)top));
        tpl_set_num(item, "count", count[top]);
    }
    tpl_set_bool(row, "has_verdicts", tpl_list_len(list) > 0);
    return count[V_CHEAT];
}

/* Every status that applies to the row, as the page's filter reads them (`tags`), and the
 * one gradebook.csv puts first (`status`, "" for a complete grade). */
static bool set_row_status(const struct results *r, struct tpl_value *row, struct strbuf *tags)
{
    struct grade_gap_info g;
    bool graded = grade_gap_of(r, &g) == GAP_NONE;
    int not_timed = results_count_not_timed(r);
    const struct {
        const char *key, *tag;
        bool on;
    } st[] = {
        {"status_ok", "ok", graded && r->n_fail == 0 && r->n_skipped == 0},
        {"status_failed", "failed", r->n_fail > 0},
        {"status_incomplete", "incomplete", r->n_skipped > 0},
        {"status_grader", "grader", r->n_grader_errors > 0 || g.gap == GAP_UNREADABLE},
        {"status_not_timed", "not-timed", not_timed > 0},
    };
    for (size_t k = 0; k < sizeof(st) / sizeof(st[0]); k++) {
        tpl_set_bool(row, st[k].key, st[k].on);
        if (st[k].on)
            strbuf_addf(tags, "%s%s", tags->len ? " " : "", st[k].tag);
    }
    tpl_set_bool(row, "graded", graded);
    tpl_set_str(row, "status", graded ? "" : grade_gap_status(g.gap));
    tpl_set_num(row, "n_not_timed", not_timed);
    return graded;
}

/* A student's row: who, the grade or why there is none yet, the counts, the points per
 * exercise, lateness, the failures by verdict and every status that applies. */
/* Similarity: how many pairs and groups name the student, and the link to similarity.html's
 * evidence about them (the anchor similarity.html gives each submission). */
static void set_row_similar(const struct results *r, const int *similar, size_t i,
                            struct tpl_value *row, struct strbuf *tags)
{
    int sim = similar ? similar[i] : 0;
    tpl_set_num(row, "similar", sim);
    tpl_set_bool(row, "has_similarity", similar != NULL);
    struct strbuf href = STRBUF_INIT;
    strbuf_addstr(&href, "similarity.html#");
    esc_anchor(&href, "sub-", r->student_id);
    tpl_set_md(row, "sim_href", strbuf_str(&href));
    strbuf_release(&href);
    if (sim)
        strbuf_addstr(tags, " similar");
}

static void set_row(const struct results *r, const char *const *ids, size_t n_ids,
                    const int *similar, size_t i, struct tpl_value *row)
{
    struct strbuf tags = STRBUF_INIT, href = STRBUF_INIT;
    summary_student_cells(row, r);
    html_url_segment(&href, r->student_id);
    strbuf_addstr(&href, "/report.html");
    tpl_set_md(row, "href", strbuf_str(&href));
    bool graded = set_row_status(r, row, &tags);
    set_own(row, "score", fmt_points(r->score));
    set_own(row, "final_score", fmt_points(results_final_score(r)));
    /* A grade not complete yet sorts below every grade: it is none. */
    set_own(row, "score_sort", xstrfmt("%.6g", graded ? results_final_score(r) : -1.0));
    set_own(row, "max_score", fmt_points(r->max_score));
    set_own(row, "pct", fmt_pct(results_final_score(r), r->max_score));
    tpl_set_num(row, "n_pass", r->n_pass);
    tpl_set_num(row, "n_fail", r->n_fail);
    tpl_set_num(row, "n_skipped", r->n_skipped);
    tpl_set_num(row, "n_grader_errors", r->n_grader_errors);
    tpl_set_bool(row, "has_grader_errors", r->n_grader_errors > 0);
    set_row_points(r, ids, n_ids, graded, row);
    set_row_late(r, row, &tags);
    int cheat = set_row_verdicts(r, row);
    tpl_set_num(row, "cheat", cheat);
    if (cheat)
        strbuf_addstr(&tags, " cheat");
    set_row_similar(r, similar, i, row, &tags);
    /* The flags column sorts by tampering, then grader errors, then similarity. */
    set_own(row, "flags_sort",
            xstrfmt("%d", cheat * 10000 + r->n_grader_errors * 100 + (similar ? similar[i] : 0)));
    tpl_set_str(row, "tags", strbuf_str(&tags));
    strbuf_release(&tags);
    strbuf_release(&href);
}

/* The exercises as the students table's columns, in first-seen order (`columns`). */
static const char **set_columns(const struct results *const *rs, size_t n, struct tpl_value *m,
                                size_t *n_ids)
{
    struct tpl_value *cols = tpl_set_list(m, "columns");
    const char **ids = xcalloc(1, sizeof(*ids));
    *n_ids = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t e = 0; e < rs[i]->n_exercises; e++) {
            const struct exercise_result *ex = &rs[i]->exercises[e];
            bool seen = !ex->exercise_id;
            for (size_t k = 0; k < *n_ids && !seen; k++)
                seen = !strcmp(ids[k], ex->exercise_id);
            if (seen)
                continue;
            ids = xrealloc(ids, (*n_ids + 1) * sizeof(*ids));
            ids[(*n_ids)++] = ex->exercise_id;
            struct tpl_value *cv = tpl_push_map(cols);
            tpl_set_str(cv, "id", ex->exercise_id);
            tpl_set_str(cv, "title", ex->title && *ex->title ? ex->title : ex->exercise_id);
            set_own(cv, "max_points", fmt_points(ex->max_points));
        }
    return ids;
}

void summary_students(const struct results *const *rs, size_t n, const int *similar,
                      struct tpl_value *m)
{
    size_t n_ids;
    const char **ids = set_columns(rs, n, m, &n_ids);
    struct tpl_value *students = tpl_set_list(m, "students");
    for (size_t i = 0; i < n; i++)
        set_row(rs[i], ids, n_ids, similar, i, tpl_push_map(students));
    free(ids);
}
