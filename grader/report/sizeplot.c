#include "report/sections.h"

#include "base/alloc.h"
#include "report/cases.h"
#include "report/format.h"

#include <stdlib.h>

/* Time against size: one figure per exercise whose cases vary in one size parameter, and
 * where each GPU variant breaks even with the CPU. */

/* The points of the figure: the cases, their value of the varying parameter. */
struct size_points {
    struct case_key *keys;
    double *xs;
    size_t n;
    const char *param;
};

static void size_points_release(struct size_points *p)
{
    free(p->keys);
    free(p->xs);
}

/* Cases with at least one time (or a baseline time); false when no parameter varies. */
static bool size_points_find(const struct report_ctx *rc, const struct exercise_result *ex,
                             struct size_points *p)
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
    p->xs = NULL;
    if (!p->param)
        return false;
    p->xs = xcalloc(p->n, sizeof(double));
    for (size_t k = 0; k < p->n; k++)
        case_param(p->keys[k].first, p->param, &p->xs[k]);
    return true;
}

/* A figure says something with a GPU curve (where it pays off) or three sizes at least (how
 * time grows); two CPU points on a line say no more than the table. */
static bool worth_a_plot(const struct report_ctx *rc, const struct exercise_result *ex,
                         const struct size_points *p)
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

/* The CPU curve a GPU's break-even is measured against: the CPU baseline, else a CPU variant. */
static bool cpu_time(const struct report_ctx *rc, const struct exercise_result *ex,
                     bool use_baseline, const char *id, double *ms)
{
    if (use_baseline) {
        *ms = case_baseline(rc, ex, id);
        return *ms > 0;
    }
    for (size_t v = 0; v < ex->n_variants; v++) {
        if (variant_is_gpu(&ex->variants[v]))
            continue;
        const struct case_result *cr = find_case(rc, &ex->variants[v], id);
        if (cr && cr->time.valid) {
            *ms = cr->time.median_ms;
            return true;
        }
        return false; /* only the first CPU variant is the curve */
    }
    return false;
}

/* The baseline's curve; how many points it has. */
static size_t add_baseline_series(const struct report_ctx *rc, const struct exercise_result *ex,
                                  const struct size_points *p, struct plot_fig *fig)
{
    size_t n_base = 0;
    for (size_t k = 0; k < p->n; k++)
        n_base += case_baseline(rc, ex, p->keys[k].id) > 0;
    if (!n_base)
        return 0;
    char *t = phrase(&rc->strings, false, "plot.baseline", NULL);
    struct plot_series *s = plot_fig_add_series(fig, t, PLOT_LINES);
    free(t);
    s->color = -1;
    s->bold = true;
    s->point_type = 9;
    for (size_t k = 0; k < p->n; k++) {
        double b = case_baseline(rc, ex, p->keys[k].id);
        if (b > 0)
            plot_series_add(s, p->xs[k], b);
    }
    return n_base;
}

/* kind 0: the call, 1: with transfers, 2: the reference. */
static const struct timing *kind_timing(const struct case_result *cr, int kind)
{
    return !cr ? NULL : kind == 0 ? &cr->time : kind == 1 ? &cr->time_transfer : &cr->ref_time;
}

/* A variant's curves: its time, with transfers where timed so, and its reference's. */
static void add_variant_series(const struct report_ctx *rc, const struct variant_result *vr,
                               int color, const struct size_points *p, struct plot_fig *fig)
{
    const char *title = variant_title(vr);
    const char *const keys_of_kind[] = {has_transfer_times(vr) ? "plot.no_transfer"
                                                               : "plot.variant",
                                        "plot.transfer", "plot.reference"};
    for (int kind = 0; kind < 3; kind++) {
        size_t points = 0;
        for (size_t k = 0; k < p->n; k++) {
            const struct timing *t = kind_timing(find_case(rc, vr, p->keys[k].id), kind);
            points += t && t->valid;
        }
        if (!points)
            continue;
        char *t = phrase(&rc->strings, false, keys_of_kind[kind], "variant", title, NULL);
        struct plot_series *s = plot_fig_add_series(fig, t, PLOT_LINES);
        free(t);
        s->color = color;
        s->dashed = kind == 2;
        s->point_type = kind == 0 ? 7 : kind == 1 ? 5 : 6;
        for (size_t k = 0; k < p->n; k++) {
            const struct timing *tm = kind_timing(find_case(rc, vr, p->keys[k].id), kind);
            if (tm && tm->valid)
                plot_series_add(s, p->xs[k], tm->median_ms);
        }
    }
}

char *add_break_even_value(const struct report_ctx *rc, const struct variant_result *vr,
                           const char *param, const struct break_even_at *at,
                           struct tpl_value *list)
{
    if (at->kind == BREAK_EVEN_NO_DATA)
        return NULL;
    struct tpl_value *be = tpl_push_map(list);
    char *size_s = fmt_size(at->size);
    tpl_set_str(be, "variant", variant_title(vr));
    tpl_set_str(be, "variant_id", vr->variant_id);
    tpl_set_str(be, "param", param);
    tpl_set_bool(be, "with_transfer", at->with_transfer);
    tpl_set_bool(be, "without_transfer", at->both && !at->with_transfer);
    tpl_set_bool(be, "found", at->kind == BREAK_EVEN_FOUND);
    tpl_set_bool(be, "gpu_faster", at->kind == BREAK_EVEN_A_FASTER);
    tpl_set_bool(be, "gpu_slower", at->kind == BREAK_EVEN_A_SLOWER);
    tpl_set_bool(be, "vs_baseline", at->vs_baseline);
    tpl_set_md(be, "size", at->kind == BREAK_EVEN_FOUND ? size_s : NO_VALUE);
    char *label = NULL;
    if (at->kind == BREAK_EVEN_FOUND) {
        const char *key = at->with_transfer ? "plot.break_even_transfer"
                          : at->both        ? "plot.break_even_no_transfer"
                                            : "plot.break_even";
        label = phrase(&rc->strings, false, key, "variant", variant_title(vr), "param", param,
                       "size", size_s, NULL);
    }
    free(size_s);
    return label;
}

/* Where one GPU curve (with or without its transfers) crosses the CPU's. */
static void add_break_even(const struct report_ctx *rc, const struct exercise_result *ex,
                           const struct variant_result *vr, bool with_transfer, bool both,
                           bool use_baseline, const struct size_points *p, struct plot_fig *fig,
                           struct tpl_value *bl)
{
    double *ga = xcalloc(p->n, sizeof(double)), *cb = xcalloc(p->n, sizeof(double));
    double *gx = xcalloc(p->n, sizeof(double));
    size_t m = 0;
    for (size_t k = 0; k < p->n; k++) {
        const struct case_result *cr = find_case(rc, vr, p->keys[k].id);
        double cpu;
        if (!cr || !cpu_time(rc, ex, use_baseline, p->keys[k].id, &cpu))
            continue;
        const struct timing *t = with_transfer ? &cr->time_transfer : &cr->time;
        if (!t->valid)
            continue;
        gx[m] = p->xs[k];
        ga[m] = t->median_ms;
        cb[m] = cpu;
        m++;
    }
    double size = 0;
    enum break_even kind = plot_break_even(gx, ga, cb, m, &size);
    free(gx);
    free(ga);
    free(cb);
    struct break_even_at at = {kind, size, with_transfer, both, use_baseline};
    char *label = add_break_even_value(rc, vr, p->param, &at, bl);
    if (label)
        plot_fig_add_marker(fig, size, label);
    free(label);
}

/*
 * Break-even of each GPU variant against the CPU curve: with its transfers and,
 * where it has both times, also without them (the call alone).
 */
static void add_break_evens(const struct report_ctx *rc, const struct exercise_result *ex,
                            bool use_baseline, const struct size_points *p, struct plot_fig *fig,
                            struct tpl_value *bl)
{
    for (size_t v = 0; v < ex->n_variants; v++) {
        const struct variant_result *vr = &ex->variants[v];
        if (!variant_is_gpu(vr))
            continue;
        bool both = has_transfer_times(vr);
        for (int pass = 0; pass < (both ? 2 : 1); pass++)
            add_break_even(rc, ex, vr, both && pass == 0, both, use_baseline, p, fig, bl);
    }
}

/* The plot map as it reads when there is no figure. */
static struct tpl_value *plot_value(struct tpl_value *exv)
{
    struct tpl_value *pv = set_plot_map(exv, "plot");
    tpl_set_bool(exv, "has_plot", false);
    tpl_set_str(pv, "param", "");
    tpl_set_bool(pv, "has_break_evens", false);
    return pv;
}

void add_plot(struct report_ctx *rc, const struct exercise_result *ex, struct tpl_value *exv)
{
    struct tpl_value *pv = plot_value(exv);
    struct tpl_value *bl = tpl_set_list(pv, "break_evens");
    struct size_points p;
    if (!size_points_find(rc, ex, &p) || !worth_a_plot(rc, ex, &p)) {
        size_points_release(&p);
        return;
    }
    struct plot_fig fig;
    plot_fig_init(&fig);
    fig.logx = fig.logy = true;
    fig.xlabel = phrase(&rc->strings, false, "plot.xlabel", "param", p.param, NULL);
    fig.ylabel = phrase(&rc->strings, false, "plot.ylabel", NULL);
    size_t n_base = add_baseline_series(rc, ex, &p, &fig);
    for (size_t v = 0; v < ex->n_variants; v++)
        add_variant_series(rc, &ex->variants[v], (int)v, &p, &fig);
    add_break_evens(rc, ex, n_base >= 2, &p, &fig, bl);
    tpl_set_bool(pv, "has_break_evens", tpl_list_len(bl) > 0);

    tpl_set_bool(exv, "has_plot", true);
    tpl_set_str(pv, "param", p.param);
    tpl_set_str(pv, "title", exercise_title(ex));
    char *name = unique_plot_name(rc, ex->exercise_id);
    struct plot_result pr;
    plot_render(&fig, rc->plots_dir, name, &pr);
    set_plot_result(rc, pv, &pr, name);
    free(name);
    plot_fig_release(&fig);
    size_points_release(&p);
}
