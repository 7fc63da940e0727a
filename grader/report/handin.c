#include "report/sections.h"

#include "base/alloc.h"
#include "report/cases.h"
#include "report/format.h"

#include <math.h>
#include <stdlib.h>

/* The lab's hand-in table: when the GPU pays off against the CPU baseline (the speedup
 * and size of sections.h are the seed lab's). */

struct sized_case {
    const char *id;
    double x;
};

static int by_size(const void *pa, const void *pb)
{
    const struct sized_case *a = pa, *b = pb;
    return (a->x > b->x) - (a->x < b->x);
}

/* One GPU method over the sizes, small to large. */
struct method_speedups {
    const struct sized_case *first; /* the first size above SPEEDUP_GOAL, or NULL */
    double first_speedup, at_size, largest;
    size_t measured;
};

static void measure_method(const struct report_ctx *rc, const struct exercise_result *ex,
                           const struct variant_result *vr, bool with_transfer,
                           const struct sized_case *sc, size_t n, struct method_speedups *m)
{
    for (size_t k = 0; k < n; k++) {
        const struct case_result *cr = find_case(rc, vr, sc[k].id);
        double base = case_baseline(rc, ex, sc[k].id);
        if (!cr || cr->verdict != V_PASS)
            continue;
        const struct timing *t = with_transfer ? &cr->time_transfer : &cr->time;
        if (!t->valid || !(t->median_ms > 0))
            continue;
        /* The paired speedup where grading measured one, as in the comparisons. */
        double speedup =
            !with_transfer && cr->speedup_baseline > 0 ? cr->speedup_baseline : base / t->median_ms;
        m->measured++;
        m->largest = sc[k].x;
        if (!m->first && speedup > SPEEDUP_GOAL) {
            m->first = &sc[k];
            m->first_speedup = speedup;
        }
        if (fabs(sc[k].x - SPEEDUP_AT_SIZE) < 0.5)
            m->at_size = speedup;
    }
}

static void add_method_row(const struct exercise_result *ex, const struct variant_result *vr,
                           bool with_transfer, bool both, const char *param,
                           const struct method_speedups *m, struct tpl_value *list)
{
    struct tpl_value *row = tpl_push_map(list);
    tpl_set_str(row, "exercise", ex->exercise_id);
    tpl_set_str(row, "exercise_title", exercise_title(ex));
    tpl_set_str(row, "method", variant_title(vr));
    tpl_set_str(row, "variant_id", vr->variant_id);
    tpl_set_bool(row, "with_transfer", with_transfer);
    tpl_set_bool(row, "without_transfer", both && !with_transfer);
    tpl_set_str(row, "param", param);
    tpl_set_bool(row, "found", m->first != NULL);
    set_own(row, "min_size", m->first ? xstrfmt("%.0f", m->first->x) : xstrdup(NO_VALUE));
    tpl_set_str(row, "min_case", m->first ? m->first->id : "");
    set_own(row, "min_speedup", fmt_x(m->first_speedup));
    set_own(row, "max_size", xstrfmt("%.0f", m->largest));
    tpl_set_bool(row, "has_at_size", m->at_size > 0);
    set_own(row, "at_size", fmt_x(m->at_size));
}

/* The cases with a CPU baseline time, sorted by the varying size parameter (*param); NULL
 * when there is none. */
static struct sized_case *baseline_sizes(const struct report_ctx *rc,
                                         const struct exercise_result *ex, const char **param,
                                         size_t *n_out)
{
    struct case_key *all;
    size_t n_all = exercise_cases(rc, ex, &all), n = 0;
    struct case_key *keys = xcalloc(n_all ? n_all : 1, sizeof(*keys));
    for (size_t k = 0; k < n_all; k++)
        if (case_baseline(rc, ex, all[k].id) > 0)
            keys[n++] = all[k];
    free(all);
    *param = varying_param(keys, n);
    struct sized_case *sc = NULL;
    if (*param) {
        sc = xcalloc(n, sizeof(*sc));
        for (size_t k = 0; k < n; k++) {
            sc[k].id = keys[k].id;
            case_param(keys[k].first, *param, &sc[k].x);
        }
        qsort(sc, n, sizeof(*sc), by_size);
    }
    free(keys);
    *n_out = n;
    return sc;
}

/*
 * One row per GPU method (a variant with its transfers, and without them where it
 * has both times): the smallest size whose speedup over the CPU baseline exceeds
 * SPEEDUP_GOAL, and the speedup at SPEEDUP_AT_SIZE. Passing cases only: the speed
 * of a wrong answer is no result. Applies when the exercise has a GPU variant and
 * a CPU baseline at two or more sizes.
 */
void add_speedup_rows(const struct report_ctx *rc, const struct exercise_result *ex,
                      struct tpl_value *list)
{
    bool gpu = false;
    for (size_t v = 0; v < ex->n_variants; v++)
        gpu |= variant_is_gpu(&ex->variants[v]);
    if (!gpu)
        return;
    const char *param;
    size_t n;
    struct sized_case *sc = baseline_sizes(rc, ex, &param, &n);
    if (!sc)
        return;
    for (size_t v = 0; v < ex->n_variants; v++) {
        const struct variant_result *vr = &ex->variants[v];
        if (!variant_is_gpu(vr))
            continue;
        bool both = has_transfer_times(vr);
        for (int pass = 0; pass < (both ? 2 : 1); pass++) {
            bool with_transfer = both && pass == 0;
            struct method_speedups m = {0};
            measure_method(rc, ex, vr, with_transfer, sc, n, &m);
            if (m.measured)
                add_method_row(ex, vr, with_transfer, both, param, &m, list);
        }
    }
    free(sc);
}
