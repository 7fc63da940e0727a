#include "report/report.h"

#include "base/alloc.h"
#include "base/escape.h"
#include "base/fs.h"
#include "report/cases.h"
#include "report/class_stats.h"
#include "report/clock.h"
#include "report/format.h"
#include "report/html.h"
#include "report/render.h"
#include "report/summary_grades.h"
#include "grade/score.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The class summary as data (summary.md, and index.html from the same context): one function
 * per section of the template, in its order. */

static int by_student_id(const void *pa, const void *pb)
{
    const struct results *a = *(const struct results *const *)pa;
    const struct results *b = *(const struct results *const *)pb;
    return strcmp(a->student_id ? a->student_id : "", b->student_id ? b->student_id : "");
}

/* ------------------------------------------------------------------------ */
/* The lab                                                                  */

static void summary_header(const struct report_ctx *rc, const struct results *const *rs, size_t n,
                           struct tpl_value *m)
{
    const struct results *r0 = rs[0];
    tpl_set_str(m, "course", r0->course);
    tpl_set_str(m, "lab_id", r0->lab_id);
    tpl_set_num(m, "lab_number", (double)r0->lab_number);
    tpl_set_str(m, "lab_title", r0->lab_title);
    tpl_set_str(m, "grader_version", r0->grader_version);
    tpl_set_str(m, "lang", rc->lang);
    tpl_set_num(m, "n_students", (double)n);
    tpl_set_bool(m, "one_student", n == 1);
    /* The newest grading date: the summary then depends on the results only. */
    const char *date = "";
    for (size_t i = 0; i < n; i++)
        if (rs[i]->date && strcmp(rs[i]->date, date) > 0)
            date = rs[i]->date;
    tpl_set_str(m, "date", date);
}

/* ------------------------------------------------------------------------ */
/* Exercises: mean points, pass rates per case, speedups per variant         */

static void set_exercise_points(const struct results *const *rs, size_t n, const char *ex_id,
                                struct tpl_value *ev)
{
    double sum = 0, maxp = 0;
    size_t cnt = 0;
    for (size_t k = 0; k < n; k++)
        for (size_t e = 0; e < rs[k]->n_exercises; e++)
            if (rs[k]->exercises[e].exercise_id &&
                !strcmp(rs[k]->exercises[e].exercise_id, ex_id)) {
                maxp = fmax(maxp, rs[k]->exercises[e].max_points);
                /* An incomplete grade is no grade: it takes no part in the mean. */
                if (grade_gap_of(rs[k], NULL) != GAP_NONE)
                    continue;
                sum += rs[k]->exercises[e].points;
                cnt++;
            }
    set_own(ev, "mean_points", cnt ? fmt_points(sum / (double)cnt) : xstrdup(NO_VALUE));
    set_own(ev, "max_points", fmt_points(maxp));
}

/* Who failed the case, each with the link to their page (`failed_by`: id, href). */
static void set_failed_by(const struct case_stat *cs, const struct results *const *rs,
                          struct tpl_value *cv)
{
    struct tpl_value *list = tpl_set_list(cv, "failed_by");
    for (size_t k = 0; k < cs->n_failed_by; k++) {
        const struct results *r = rs[cs->failed_by[k]];
        struct tpl_value *who = tpl_push_map(list);
        summary_student_cells(who, r);
        struct strbuf href = STRBUF_INIT;
        html_url_segment(&href, r->student_id);
        strbuf_addstr(&href, "/report.html");
        tpl_set_md(who, "href", strbuf_str(&href));
        strbuf_release(&href);
    }
}

/* The failure most of the case's failing students had: verdict, how many, its message. */
static void set_common_failure(const struct report_ctx *rc, const struct case_stat *cs,
                               struct tpl_value *cv)
{
    enum verdict v;
    int count;
    const char *msg;
    bool shared;
    bool any = case_stat_common_failure(cs, &v, &count, &msg, &shared);
    tpl_set_bool(cv, "has_failure", any);
    struct tpl_value *fv = tpl_set_map(cv, "failure");
    set_verdict(rc, fv, v);
    tpl_set_num(fv, "count", count);
    char *text = esc_first_line(msg ? msg : "", MESSAGE_CHARS);
    tpl_set_str(fv, "message", text);
    tpl_set_bool(fv, "has_message", *text != '\0');
    tpl_set_bool(fv, "shared", shared);
    free(text);
}

static void set_exercise_cases(const struct report_ctx *rc, const struct class_stats *st,
                               const struct results *const *rs, size_t first, struct tpl_value *ev)
{
    struct tpl_value *cl = tpl_set_list(ev, "cases");
    for (size_t j = first; j < st->n_cs; j++) {
        const struct case_stat *cs = &st->cs[j];
        if (strcmp(cs->ex, st->cs[first].ex))
            continue;
        struct tpl_value *cv = tpl_push_map(cl);
        tpl_set_str(cv, "variant", cs->variant);
        tpl_set_str(cv, "variant_title", cs->variant_title);
        tpl_set_str(cv, "case_id", cs->case_id);
        set_case_sizes(cv, cs->first);
        tpl_set_bool(cv, "hidden", cs->first->hidden);
        tpl_set_bool(cv, "slow", cs->first->slow);
        tpl_set_num(cv, "n_pass", cs->pass);
        tpl_set_num(cv, "n_fail", cs->fail);
        tpl_set_num(cv, "n_skipped", cs->skipped);
        tpl_set_num(cv, "n_grader_errors", cs->grader);
        tpl_set_num(cv, "n_ran", cs->pass + cs->fail);
        set_own(cv, "pass_rate", fmt_pct(cs->pass, cs->pass + cs->fail));
        set_common_failure(rc, cs, cv);
        set_failed_by(cs, rs, cv);
    }
}

/* Min, median and max over the students, as prefix_min, prefix_median, prefix_max. */
static void set_spread(struct tpl_value *sv, const char *prefix, const double *x, size_t n)
{
    double lo = INFINITY, hi = 0;
    for (size_t k = 0; k < n; k++) {
        lo = fmin(lo, x[k]);
        hi = fmax(hi, x[k]);
    }
    char key[64];
    snprintf(key, sizeof(key), "%s_min", prefix);
    set_own(sv, key, fmt_x(n ? lo : 0));
    snprintf(key, sizeof(key), "%s_median", prefix);
    set_own(sv, key, fmt_x(median_of(x, n)));
    snprintf(key, sizeof(key), "%s_max", prefix);
    set_own(sv, key, fmt_x(hi));
}

static void set_exercise_speedups(const struct class_stats *st, const char *ex_id,
                                  struct tpl_value *ev)
{
    struct tpl_value *sl = tpl_set_list(ev, "speedups");
    for (size_t j = 0; j < st->n_ss; j++) {
        const struct speed_stat *sp = &st->ss[j];
        if (strcmp(sp->ex, ex_id) || (!sp->n_ref && !sp->n_base))
            continue;
        struct tpl_value *sv = tpl_push_map(sl);
        tpl_set_str(sv, "variant", sp->variant);
        tpl_set_str(sv, "variant_title", sp->variant_title);
        tpl_set_num(sv, "n", (double)(sp->n_ref > sp->n_base ? sp->n_ref : sp->n_base));
        tpl_set_bool(sv, "has_ref", sp->n_ref > 0);
        set_spread(sv, "ref", sp->vs_ref, sp->n_ref);
        tpl_set_bool(sv, "has_baseline", sp->n_base > 0);
        set_spread(sv, "base", sp->vs_base, sp->n_base);
    }
    tpl_set_bool(ev, "has_speedups", tpl_list_len(sl) > 0);
}

/* Exercises in first-seen order, with their cases and speedups. */
static void summary_exercises(const struct report_ctx *rc, const struct class_stats *st,
                              const struct results *const *rs, size_t n, struct tpl_value *m)
{
    struct tpl_value *exs = tpl_set_list(m, "exercises");
    bool any_speedups = false;
    for (size_t i = 0; i < st->n_cs; i++) {
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = !strcmp(st->cs[j].ex, st->cs[i].ex);
        if (seen)
            continue;
        struct tpl_value *ev = tpl_push_map(exs);
        tpl_set_str(ev, "id", st->cs[i].ex);
        tpl_set_str(ev, "title", st->cs[i].ex_title);
        set_exercise_points(rs, n, st->cs[i].ex, ev);
        set_exercise_cases(rc, st, rs, i, ev);
        set_exercise_speedups(st, st->cs[i].ex, ev);
        any_speedups |= tpl_list_len(tpl_get(ev, "speedups")) > 0;
    }
    tpl_set_bool(m, "any_speedups", any_speedups);
}

/* ------------------------------------------------------------------------ */
/* One figure: each student's speedup vs the reference per exercise and variant */

static void speedup_series(const struct report_ctx *rc, const struct class_stats *st,
                           struct plot_fig *fig)
{
    char *t = phrase(&rc->strings, false, "plot.speedup_students", NULL);
    struct plot_series *s = plot_fig_add_series(fig, t, PLOT_POINTS);
    free(t);
    s->color = 0;
    s->point_type = 6;
    size_t x = 0;
    for (size_t j = 0; j < st->n_ss; j++) {
        if (!st->ss[j].n_ref)
            continue;
        x++;
        for (size_t k = 0; k < st->ss[j].n_ref; k++) {
            /* Spread equal values sideways a little, deterministically. */
            double jitter = ((double)(k % 7) - 3) * 0.03;
            plot_series_add(s, (double)x + jitter, st->ss[j].vs_ref[k]);
        }
        char *label = xstrfmt("%s/%s", st->ss[j].ex, st->ss[j].variant);
        plot_fig_add_xtic(fig, (double)x, label);
        free(label);
    }
    t = phrase(&rc->strings, false, "plot.speedup_median", NULL);
    s = plot_fig_add_series(fig, t, PLOT_POINTS);
    free(t);
    s->color = 1;
    s->point_type = 13;
    s->bold = true;
    x = 0;
    for (size_t j = 0; j < st->n_ss; j++)
        if (st->ss[j].n_ref)
            plot_series_add(s, (double)++x, median_of(st->ss[j].vs_ref, st->ss[j].n_ref));
}

static void summary_speedup_plot(struct report_ctx *rc, const struct class_stats *st,
                                 struct tpl_value *m)
{
    struct tpl_value *pv = set_plot_map(m, "speedup_plot");
    size_t with_data = 0;
    for (size_t j = 0; j < st->n_ss; j++)
        with_data += st->ss[j].n_ref > 0;
    tpl_set_bool(m, "has_speedup_plot", with_data > 0);
    if (!with_data)
        return;
    struct plot_fig fig;
    plot_fig_init(&fig);
    fig.logy = true;
    fig.ylabel = phrase(&rc->strings, false, "plot.speedup_ylabel", NULL);
    fig.xmin = 0.5;
    fig.xmax = (double)with_data + 0.5;
    speedup_series(rc, st, &fig);
    char *t = phrase(&rc->strings, false, "plot.speedup_parity", NULL);
    struct plot_series *s = plot_fig_add_series(&fig, t, PLOT_LINES);
    free(t);
    s->color = -1;
    s->dashed = true;
    s->point_type = -1;
    plot_series_add(s, 0.5, 1);
    plot_series_add(s, (double)with_data + 0.5, 1);
    char *name = unique_plot_name(rc, "summary-speedups");
    struct plot_result pr;
    plot_render(&fig, rc->plots_dir, name, &pr);
    set_plot_result(rc, pv, &pr, name);
    free(name);
    plot_fig_release(&fig);
}

/* ------------------------------------------------------------------------ */
/* Failures by verdict, most frequent first; where each happened most        */

static int by_place_count(const void *pa, const void *pb)
{
    const struct place_count *a = pa, *b = pb;
    if (a->count != b->count)
        return b->count - a->count;
    return strcmp(a->where, b->where);
}

static void summary_failures(const struct report_ctx *rc, struct class_stats *st,
                             struct tpl_value *m)
{
    struct tpl_value *fl = tpl_set_list(m, "failures");
    int order[V_GRADER + 1], n_order = 0;
    for (int v = 0; v <= V_GRADER; v++)
        if (st->vstats[v].cases)
            order[n_order++] = v;
    for (int i = 1; i < n_order; i++)
        for (int j = i; j > 0 && st->vstats[order[j]].cases > st->vstats[order[j - 1]].cases; j--) {
            int tmp = order[j];
            order[j] = order[j - 1];
            order[j - 1] = tmp;
        }
    for (int i = 0; i < n_order; i++) {
        struct verdict_stat *vs = &st->vstats[order[i]];
        struct tpl_value *fv = tpl_push_map(fl);
        set_verdict(rc, fv, vs->v);
        tpl_set_num(fv, "n_cases", vs->cases);
        tpl_set_num(fv, "n_students", vs->students);
        qsort(vs->places, vs->n_places, sizeof(*vs->places), by_place_count);
        struct tpl_value *pl = tpl_set_list(fv, "places");
        for (size_t k = 0; k < vs->n_places && k < 5; k++) {
            struct tpl_value *p = tpl_push_map(pl);
            tpl_set_str(p, "where", vs->places[k].where);
            tpl_set_num(p, "count", vs->places[k].count);
        }
        tpl_set_bool(fv, "more_places", vs->n_places > 5);
    }
    tpl_set_bool(m, "has_failures", n_order > 0);
}

/* ------------------------------------------------------------------------ */
/* compute-sanitizer                                                        */

/* One row for a run that found errors: whose, where, and the first report in the tool's own
 * words (English, like compiler output: the template frames them in the summary's language). */
static void add_sanitizer_row(struct tpl_value *rows, const struct results *r,
                              const struct exercise_result *ex, const struct variant_result *vr,
                              const struct sanitizer_run *run, long errors)
{
    struct tpl_value *row = tpl_push_map(rows);
    summary_student_cells(row, r);
    tpl_set_str(row, "exercise", ex->exercise_id ? ex->exercise_id : "");
    tpl_set_str(row, "variant", vr->variant_id ? vr->variant_id : "");
    tpl_set_str(row, "tool", run->tool ? run->tool : "");
    tpl_set_str(row, "case_id", run->case_id ? run->case_id : "");
    tpl_set_num(row, "errors", (double)errors);
    const struct sanitizer_report *first = run->out.n_reports ? &run->out.reports[0] : NULL;
    char *kind = esc_clip(first && first->kind ? first->kind : "", FINDING_CHARS);
    char *where = esc_clip(first && first->location ? first->location : "", FINDING_CHARS);
    tpl_set_str(row, "kind", kind);
    tpl_set_str(row, "location", where);
    tpl_set_bool(row, "has_location", *where != '\0');
    free(kind);
    free(where);
}

struct sanitizer_counts {
    size_t students, runs, failed;
};

/* A student's runs: counted, a row for each that found errors. */
static void student_sanitizer(const struct results *r, struct tpl_value *rows,
                              struct sanitizer_counts *k)
{
    bool ran = false;
    for (size_t e = 0; e < r->n_exercises; e++) {
        const struct exercise_result *ex = &r->exercises[e];
        for (size_t v = 0; v < ex->n_variants; v++) {
            const struct variant_result *vr = &ex->variants[v];
            for (size_t s = 0; s < vr->n_sanitizer; s++) {
                const struct sanitizer_run *run = &vr->sanitizer[s];
                k->failed += run->status == SANITIZER_FAILED;
                if (run->status != SANITIZER_RAN)
                    continue;
                ran = true;
                k->runs++;
                long errors = sanitizer_error_count(&run->out);
                if (errors > 0)
                    add_sanitizer_row(rows, r, ex, vr, run, errors);
            }
        }
    }
    k->students += ran;
}

/*
 * The class's compute-sanitizer pass: how many students' GPU code ran under it, and one
 * row per run that found something, so an instructor sees at a glance whose kernels write
 * out of bounds or race although their outputs were right. Runs that did not complete are
 * counted apart (the grader's side).
 */
static void summary_sanitizer(const struct results *const *rs, size_t n, struct tpl_value *m)
{
    struct tpl_value *rows = tpl_set_list(m, "sanitizer_findings");
    struct sanitizer_counts k = {0, 0, 0};
    for (size_t i = 0; i < n; i++)
        student_sanitizer(rs[i], rows, &k);
    tpl_set_bool(m, "has_sanitizer", k.runs + k.failed > 0);
    tpl_set_num(m, "sanitizer_students", (double)k.students);
    tpl_set_num(m, "sanitizer_runs", (double)k.runs);
    tpl_set_bool(m, "has_sanitizer_findings", tpl_list_len(rows) > 0);
    tpl_set_num(m, "sanitizer_failed", (double)k.failed);
    tpl_set_bool(m, "has_sanitizer_failed", k.failed > 0);
}

/* ------------------------------------------------------------------------ */
/* GPU clocks                                                               */

/* A student's runs added to their tally and the class's; where samples were dropped, as
 * "ex/variant case" items, hidden cases by count only (the summary may travel further than
 * the instructor's reports). */
static int student_clocks(const struct results *r, struct clock_tally *t,
                          struct clock_tally *class_tally, struct strbuf *where)
{
    int hidden_hits = 0;
    for (size_t e = 0; e < r->n_exercises; e++) {
        const struct exercise_result *ex = &r->exercises[e];
        for (size_t v = 0; v < ex->n_variants; v++) {
            const struct variant_result *vr = &ex->variants[v];
            for (size_t c = 0; c < vr->n_cases; c++) {
                const struct case_result *cr = &vr->cases[c];
                bool hit = clock_tally_add(t, cr);
                clock_tally_add(class_tally, cr);
                if (hit && cr->hidden)
                    hidden_hits++;
                else if (hit)
                    strbuf_addf(where, "%s%s/%s %s", where->len ? ", " : "",
                                ex->exercise_id ? ex->exercise_id : "",
                                vr->variant_id ? vr->variant_id : "",
                                cr->case_id ? cr->case_id : "");
            }
        }
    }
    return hidden_hits;
}

/*
 * The GPU clocks over the class's timed runs: the range read and, one row per student, the
 * samples dropped as taken while the GPU throttled and the runs that gave up dropping. Speed
 * points rest on those times, so a node that throttled during batch grading shows here, and
 * the instructor knows whom to grade again.
 */
static void summary_gpu_clock(const struct results *const *rs, size_t n, struct tpl_value *m)
{
    struct tpl_value *rows = tpl_set_list(m, "throttle_rows");
    struct clock_tally class_tally = {0};
    size_t students = 0;
    for (size_t i = 0; i < n; i++) {
        struct clock_tally t = {0};
        struct strbuf where;
        strbuf_init(&where);
        int hidden_hits = student_clocks(rs[i], &t, &class_tally, &where);
        students += t.hi > 0;
        if (t.dropped > 0 || t.throttled > 0) {
            struct tpl_value *row = tpl_push_map(rows);
            summary_student_cells(row, rs[i]);
            tpl_set_num(row, "dropped", t.dropped);
            tpl_set_num(row, "throttled", t.throttled);
            char *places = esc_clip(strbuf_str(&where), FINDING_CHARS);
            tpl_set_str(row, "where", places);
            tpl_set_bool(row, "has_where", *places != '\0');
            free(places);
            tpl_set_num(row, "hidden", hidden_hits);
            tpl_set_bool(row, "has_hidden", hidden_hits > 0);
        }
        strbuf_release(&where);
    }
    tpl_set_bool(m, "has_gpu_clock", class_tally.hi > 0);
    tpl_set_num(m, "gpu_clock_students", (double)students);
    set_clock_range(m, &class_tally);
    tpl_set_bool(m, "has_throttle_rows", tpl_list_len(rows) > 0);
}

/* ------------------------------------------------------------------------ */

static struct tpl_value *summary_context(struct report_ctx *rc, const struct results *const *rs,
                                         size_t n)
{
    struct tpl_value *m = tpl_map();
    summary_header(rc, rs, n, m);
    summary_incomplete(rs, n, m);
    summary_scores(rc, rs, n, m);
    struct class_stats st;
    class_stats_init(&st);
    class_stats_collect(&st, rs, n);
    /* What only the page has (figures, analyses) goes into the same context: the page renders
     * the summary's facts and adds to them. */
    int *similar = NULL;
    if (rc->o->html)
        html_class_add(rc, rs, n, &st, m, &similar);
    summary_students(rs, n, similar, m);
    free(similar);
    summary_exercises(rc, &st, rs, n, m);
    summary_speedup_plot(rc, &st, m);
    summary_failures(rc, &st, m);
    summary_sanitizer(rs, n, m);
    summary_gpu_clock(rs, n, m);
    class_stats_release(&st);
    return m;
}

int report_summary(const struct results *const *all, size_t n, const char *outdir,
                   const struct report_opts *o, struct report_outcome *out, struct error *err)
{
    memset(out, 0, sizeof(*out));
    if (n == 0)
        return error_set(err, "summary: no results");
    struct report_ctx rc;
    if (ctx_open(&rc, o, all[0]->lang, outdir, err) != 0) {
        ctx_release(&rc);
        return -1;
    }
    if (mkdir_p(outdir, err) != 0) {
        ctx_release(&rc);
        return -1;
    }
    const struct results **sorted = xmalloc(n * sizeof(*sorted));
    memcpy(sorted, all, n * sizeof(*sorted));
    qsort(sorted, n, sizeof(*sorted), by_student_id);
    struct tpl_value *ctx = summary_context(&rc, sorted, n);
    struct strbuf md = STRBUF_INIT;
    int res = render_file(&rc, "summary.md", ctx, &md, err);
    if (res == 0)
        res = write_outputs(&rc, "summary", &md, out, err);
    /* The page beside the Markdown, from the same context, also when a required PDF could not
     * be made. */
    struct error herr;
    error_init(&herr);
    if (out->md_written && o->html && html_class(&rc, ctx, out, &herr) != 0) {
        error_format(&herr, out->html_note, sizeof(out->html_note));
        if (res == 0) {
            *err = herr;
            res = -1;
        }
    }
    strbuf_release(&md);
    tpl_value_free(ctx);
    free(sorted);
    ctx_release(&rc);
    return res;
}
