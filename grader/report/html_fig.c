/* html_fig: the HTML pages' figures from the results' numbers (report/html_parts.h), drawn
 * by svg.h. The words (axis titles, legends, markers) are strings.txt's, as the PNG plots'. */
#include "report/html_parts.h"

#include "base/alloc.h"
#include "report/cases.h"
#include "report/format.h"
#include "report/plot.h"
#include "report/sections.h"
#include "report/svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static char *finish(struct svg_fig *f)
{
    struct strbuf out = STRBUF_INIT;
    svg_render(f, &out);
    svg_fig_release(f);
    return strbuf_detach(&out);
}

static void fig_words(const struct report_ctx *rc, struct svg_fig *f, const char *title_key,
                      const char *title, const char *xkey, const char *param, const char *ykey)
{
    char *t = phrase(&rc->strings, false, title_key, "title", title ? title : "", NULL);
    char *x = xkey ? phrase(&rc->strings, false, xkey, "param", param ? param : "", NULL) : NULL;
    char *y = phrase(&rc->strings, false, ykey, NULL);
    svg_fig_set_text(f, t, x, y);
    free(t);
    free(x);
    free(y);
}

/* ---- time against size ---- */

struct size_pts {
    struct case_key *keys;
    double *xs;
    size_t n;
    const char *param;
};

static bool size_pts_find(const struct report_ctx *rc, const struct exercise_result *ex,
                          struct size_pts *p)
{
    struct case_key *all;
    size_t n_all = exercise_cases(rc, ex, &all);
    p->keys = xcalloc(n_all ? n_all : 1, sizeof(*p->keys));
    p->n = 0;
    for (size_t k = 0; k < n_all; k++) {
        bool timed = case_baseline(rc, ex, all[k].id) > 0;
        for (size_t v = 0; v < ex->n_variants && !timed; v++) {
            const struct case_result *cr = find_case(rc, &ex->variants[v], all[k].id);
            timed = cr && cr->time.valid;
        }
        if (timed)
            p->keys[p->n++] = all[k];
    }
    free(all);
    p->param = varying_param(p->keys, p->n);
    p->xs = xcalloc(p->n ? p->n : 1, sizeof(double));
    for (size_t k = 0; p->param && k < p->n; k++)
        case_param(p->keys[k].first, p->param, &p->xs[k]);
    return p->param != NULL;
}

static const struct timing *kind_timing(const struct case_result *cr, int kind)
{
    return !cr ? NULL : kind == 0 ? &cr->time : kind == 1 ? &cr->time_transfer : &cr->ref_time;
}

static void variant_lines(const struct report_ctx *rc, const struct variant_result *vr, int color,
                          const struct size_pts *p, struct svg_fig *f)
{
    const char *const keys[] = {has_transfer_times(vr) ? "plot.no_transfer" : "plot.variant",
                                "plot.transfer", "plot.reference"};
    for (int kind = 0; kind < 3; kind++) {
        struct svg_series *s = NULL;
        for (size_t k = 0; k < p->n; k++) {
            const struct timing *t = kind_timing(find_case(rc, vr, p->keys[k].id), kind);
            if (!t || !t->valid)
                continue;
            if (!s) {
                char *name =
                    phrase(&rc->strings, false, keys[kind], "variant", variant_title(vr), NULL);
                s = svg_add_series(f, name, SVG_LINES, color);
                s->dashed = kind == 2;
                free(name);
            }
            char *label =
                xstrfmt("%s: %s=%g, %.4g ms", p->keys[k].id, p->param, p->xs[k], t->median_ms);
            svg_add_point(s, p->xs[k], t->median_ms, NAN, NAN, label);
            free(label);
        }
    }
}

static size_t baseline_line(const struct report_ctx *rc, const struct exercise_result *ex,
                            const struct size_pts *p, struct svg_fig *f)
{
    struct svg_series *s = NULL;
    size_t n = 0;
    for (size_t k = 0; k < p->n; k++) {
        double b = case_baseline(rc, ex, p->keys[k].id);
        if (b <= 0)
            continue;
        if (!s) {
            char *name = phrase(&rc->strings, false, "plot.baseline", NULL);
            s = svg_add_series(f, name, SVG_LINES, -1);
            free(name);
        }
        char *label = xstrfmt("%s: %s=%g, %.4g ms", p->keys[k].id, p->param, p->xs[k], b);
        svg_add_point(s, p->xs[k], b, NAN, NAN, label);
        free(label);
        n++;
    }
    return n;
}

/* The CPU time a break-even is against: the baseline, else the first CPU variant's. */
static bool cpu_ms(const struct report_ctx *rc, const struct exercise_result *ex, bool baseline,
                   const char *id, double *ms)
{
    if (baseline) {
        *ms = case_baseline(rc, ex, id);
        return *ms > 0;
    }
    for (size_t v = 0; v < ex->n_variants; v++) {
        if (variant_is_gpu(&ex->variants[v]))
            continue;
        const struct case_result *cr = find_case(rc, &ex->variants[v], id);
        *ms = cr && cr->time.valid ? cr->time.median_ms : 0;
        return *ms > 0;
    }
    return false;
}

static enum break_even crossing(const struct report_ctx *rc, const struct exercise_result *ex,
                                const struct variant_result *vr, bool transfer, bool baseline,
                                const struct size_pts *p, double *size)
{
    double *gx = xcalloc(p->n + 1, sizeof(double)), *ga = xcalloc(p->n + 1, sizeof(double));
    double *cb = xcalloc(p->n + 1, sizeof(double));
    size_t m = 0;
    for (size_t k = 0; k < p->n; k++) {
        const struct case_result *cr = find_case(rc, vr, p->keys[k].id);
        const struct timing *t = cr ? (transfer ? &cr->time_transfer : &cr->time) : NULL;
        if (!t || !t->valid || !cpu_ms(rc, ex, baseline, p->keys[k].id, &cb[m]))
            continue;
        gx[m] = p->xs[k];
        ga[m++] = t->median_ms;
    }
    enum break_even kind = plot_break_even(gx, ga, cb, m, size);
    free(gx);
    free(ga);
    free(cb);
    return kind;
}

static void break_even(const struct report_ctx *rc, const struct exercise_result *ex,
                       const struct variant_result *vr, bool transfer, bool both, bool baseline,
                       const struct size_pts *p, struct svg_fig *f, struct tpl_value *list)
{
    double size = 0;
    enum break_even kind = crossing(rc, ex, vr, transfer, baseline, p, &size);
    struct break_even_at at = {kind, size, transfer, both, baseline};
    char *label = add_break_even_value(rc, vr, p->param, &at, list);
    if (label)
        svg_add_marker(f, size, label);
    free(label);
}

/* A figure says something with a GPU curve or three sizes at least (as report.md's). */
static bool worth_it(const struct report_ctx *rc, const struct exercise_result *ex,
                     const struct size_pts *p)
{
    if (p->n >= 3)
        return true;
    for (size_t v = 0; v < ex->n_variants; v++)
        for (size_t k = 0; variant_is_gpu(&ex->variants[v]) && k < p->n; k++) {
            const struct case_result *cr = find_case(rc, &ex->variants[v], p->keys[k].id);
            if (cr && cr->time.valid)
                return true;
        }
    return false;
}

char *html_fig_sizes(const struct report_ctx *rc, const struct exercise_result *ex,
                     struct tpl_value *list)
{
    struct size_pts p;
    struct svg_fig f;
    svg_fig_init(&f);
    if (size_pts_find(rc, ex, &p) && worth_it(rc, ex, &p)) {
        f.logx = f.logy = true;
        fig_words(rc, &f, "html.fig.sizes", exercise_title(ex), "plot.xlabel", p.param,
                  "plot.ylabel");
        size_t n_base = baseline_line(rc, ex, &p, &f);
        for (size_t v = 0; v < ex->n_variants; v++)
            variant_lines(rc, &ex->variants[v], (int)v, &p, &f);
        for (size_t v = 0; v < ex->n_variants; v++) {
            const struct variant_result *vr = &ex->variants[v];
            bool both = has_transfer_times(vr);
            for (int pass = 0; variant_is_gpu(vr) && pass < (both ? 2 : 1); pass++)
                break_even(rc, ex, vr, both && pass == 0, both, n_base >= 2, &p, &f, list);
        }
    }
    free(p.keys);
    free(p.xs);
    return finish(&f);
}

/* ---- speedups per case, with their intervals ---- */

static bool has_speedup(const struct case_result *cr)
{
    return cr && cr->verdict == V_PASS && cr->speedup_ref > 0;
}

static bool any_speedup(const struct report_ctx *rc, const struct exercise_result *ex,
                        const char *id)
{
    for (size_t v = 0; v < ex->n_variants; v++)
        if (has_speedup(find_case(rc, &ex->variants[v], id)))
            return true;
    return false;
}

/* Variant v's points, side by side with the other variants' at each case. */
static void speedup_points(const struct report_ctx *rc, const struct exercise_result *ex, size_t v,
                           const struct case_key *keys, size_t n, struct svg_fig *f)
{
    const struct variant_result *vr = &ex->variants[v];
    struct svg_series *s = svg_add_series(f, variant_title(vr), SVG_POINTS, (int)v);
    double step = ex->n_variants > 1 ? 0.5 / (double)(ex->n_variants - 1) : 0;
    double x0 = ex->n_variants > 1 ? -0.25 : 0;
    for (size_t k = 0, c = 0; k < n; k++) {
        if (!any_speedup(rc, ex, keys[k].id))
            continue;
        c++;
        const struct case_result *cr = find_case(rc, vr, keys[k].id);
        if (!has_speedup(cr))
            continue;
        double lo = cr->speedup_lo > 0 ? cr->speedup_lo : NAN;
        double hi = cr->speedup_hi > 0 ? cr->speedup_hi : NAN;
        char *label =
            isfinite(lo) ? xstrfmt("%s, %s: %.2fx [%.2fx, %.2fx], %d pairs", variant_title(vr),
                                   keys[k].id, cr->speedup_ref, lo, hi, cr->pairs)
                         : xstrfmt("%s, %s: %.2fx", variant_title(vr), keys[k].id, cr->speedup_ref);
        svg_add_point(s, (double)c + x0 + step * (double)v, cr->speedup_ref, lo, hi, label);
        free(label);
    }
}

char *html_fig_speedups(const struct report_ctx *rc, const struct exercise_result *ex)
{
    struct svg_fig f;
    svg_fig_init(&f);
    struct case_key *keys;
    size_t n = exercise_cases(rc, ex, &keys);
    f.logy = true;
    f.hline = 1;
    f.hline_label = phrase(&rc->strings, false, "plot.speedup_parity", NULL);
    fig_words(rc, &f, "html.fig.speedups", exercise_title(ex), "html.fig.case", NULL,
              "html.fig.speedup_ylabel");
    for (size_t k = 0; k < n; k++)
        if (any_speedup(rc, ex, keys[k].id))
            svg_add_cat(&f, keys[k].id);
    for (size_t v = 0; f.n_cats && v < ex->n_variants; v++)
        speedup_points(rc, ex, v, keys, n, &f);
    free(keys);
    return finish(&f);
}

/* ---- the roofline: each passing case's rate against its arithmetic intensity ---- */

char *html_fig_roofline(const struct report_ctx *rc, const struct exercise_result *ex)
{
    struct svg_fig f;
    svg_fig_init(&f);
    f.logx = f.logy = true;
    fig_words(rc, &f, "html.fig.roofline", exercise_title(ex), "html.fig.intensity", NULL,
              "html.fig.gflops");
    for (size_t v = 0; v < ex->n_variants; v++) {
        const struct variant_result *vr = &ex->variants[v];
        struct svg_series *s = svg_add_series(&f, variant_title(vr), SVG_POINTS, (int)v);
        for (size_t c = 0; c < vr->n_cases; c++) {
            const struct case_result *cr = &vr->cases[c];
            if (!case_visible(rc, cr) || cr->verdict != V_PASS || !(cr->gflops > 0) ||
                !(cr->gbps > 0))
                continue;
            char *label =
                xstrfmt("%s, %s: %.3g FLOP/byte, %.1f GFLOP/s, %.1f GB/s", variant_title(vr),
                        cr->case_id, cr->gflops / cr->gbps, cr->gflops, cr->gbps);
            svg_add_point(s, cr->gflops / cr->gbps, cr->gflops, NAN, NAN, label);
            free(label);
        }
    }
    return finish(&f);
}

/* ---- the class ---- */

static double bin_width(double max)
{
    double raw = max / 10, p = pow(10, floor(log10(raw)));
    static const double steps[] = {1, 2, 2.5, 5, 10};
    for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
        if (steps[i] * p >= raw - 1e-12)
            return steps[i] * p;
    return 10 * p;
}

char *html_fig_scores(const struct report_ctx *rc, const double *scores, size_t n, double max_score)
{
    struct svg_fig f;
    svg_fig_init(&f);
    if (!(max_score > 0) || n == 0)
        return finish(&f);
    double w = bin_width(max_score);
    int bins = (int)ceil(max_score / w - 1e-9);
    bins = bins < 1 ? 1 : bins;
    int *counts = xcalloc((size_t)bins, sizeof(int));
    for (size_t i = 0; i < n; i++) {
        int b = (int)floor(scores[i] / w);
        counts[b < 0 ? 0 : b >= bins ? bins - 1 : b]++;
    }
    fig_words(rc, &f, "html.fig.scores", NULL, "plot.score_xlabel", NULL, "plot.score_ylabel");
    f.ymin_zero = f.y_integer = true;
    f.bar_width = w;
    f.xmin = 0;
    f.xmax = max_score;
    struct svg_series *s = svg_add_series(&f, "", SVG_BARS, 0);
    for (int b = 0; b < bins; b++) {
        char *label = xstrfmt("%g–%g: %d", w * b, fmin(w * (b + 1), max_score), counts[b]);
        svg_add_point(s, w * (b + 0.5), counts[b], NAN, NAN, label);
        free(label);
    }
    free(counts);
    return finish(&f);
}

char *html_fig_class_speedups(const struct report_ctx *rc, const struct class_stats *st,
                              const struct results *const *rs)
{
    struct svg_fig f;
    svg_fig_init(&f);
    f.logy = true;
    f.hline = 1;
    f.hline_label = phrase(&rc->strings, false, "plot.speedup_parity", NULL);
    fig_words(rc, &f, "html.fig.class_speedups", NULL, NULL, NULL, "plot.speedup_ylabel");
    char *t = phrase(&rc->strings, false, "plot.speedup_students", NULL);
    struct svg_series *dots = svg_add_series(&f, t, SVG_POINTS, 0);
    free(t);
    t = phrase(&rc->strings, false, "plot.speedup_median", NULL);
    struct svg_series *med = svg_add_series(&f, t, SVG_POINTS, 1);
    free(t);
    size_t x = 0;
    for (size_t j = 0; j < st->n_ss; j++) {
        const struct speed_stat *sp = &st->ss[j];
        if (!sp->n_ref)
            continue;
        x++;
        char *cat = xstrfmt("%s/%s", sp->ex, sp->variant);
        svg_add_cat(&f, cat);
        for (size_t k = 0; k < sp->n_ref; k++) {
            /* Whose and how fast, as the tables round it; equal values spread sideways a
             * little. */
            char *speedup = fmt_x(sp->vs_ref[k]);
            const char *id = rs[sp->ref_of[k]]->student_id;
            char *label = xstrfmt("%s, %s: %s", id ? id : "", cat, speedup);
            svg_add_point(dots, (double)x + ((double)(k % 7) - 3) * 0.04, sp->vs_ref[k], NAN, NAN,
                          label);
            free(label);
            free(speedup);
        }
        char *median = fmt_x(median_of(sp->vs_ref, sp->n_ref));
        t = phrase(&rc->strings, false, "plot.speedup_median", NULL);
        char *label = xstrfmt("%s, %s: %s", t, cat, median);
        svg_add_point(med, (double)x, median_of(sp->vs_ref, sp->n_ref), NAN, NAN, label);
        free(label);
        free(t);
        free(median);
        free(cat);
    }
    return finish(&f);
}
