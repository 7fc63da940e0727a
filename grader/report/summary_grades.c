#include "report/summary_grades.h"

#include "base/alloc.h"
#include "base/escape.h"
#include "grade/score.h"
#include "report/format.h"

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
    const char *status, *reason; /* point into the results */
    size_t students, cases;
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
    tpl_set_num(v, "n_cases", (double)row->cases);
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
        row->cases += g.cases;
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

void summary_students(const struct results *const *rs, size_t n, struct tpl_value *m)
{
    struct tpl_value *students = tpl_set_list(m, "students");
    for (size_t i = 0; i < n; i++) {
        const struct results *r = rs[i];
        struct tpl_value *sv = tpl_push_map(students);
        struct grade_gap_info g;
        bool graded = grade_gap_of(r, &g) == GAP_NONE;
        summary_student_cells(sv, r);
        tpl_set_bool(sv, "graded", graded);
        tpl_set_str(sv, "status", graded ? "" : grade_gap_status(g.gap));
        set_own(sv, "score", fmt_points(r->score));
        set_own(sv, "max_score", fmt_points(r->max_score));
        set_own(sv, "pct", fmt_pct(r->score, r->max_score));
        tpl_set_num(sv, "n_pass", r->n_pass);
        tpl_set_num(sv, "n_fail", r->n_fail);
        tpl_set_num(sv, "n_skipped", r->n_skipped);
        tpl_set_num(sv, "n_grader_errors", r->n_grader_errors);
        tpl_set_bool(sv, "has_grader_errors", r->n_grader_errors > 0);
    }
}
