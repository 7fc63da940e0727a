#include "report/sections.h"

#include "base/alloc.h"
#include "report/cases.h"
#include "report/format.h"
#include "report/memspace.h"

#include <stdlib.h>

/* ------------------------------------------------------------------------ */
/* Comparison tables (Método | Tiempo | Speedup vs CPU | Speedup vs ref.)   */

static void set_speedups(struct tpl_value *row, double vs_base, double vs_ref)
{
    set_own(row, "speedup_baseline", fmt_x(vs_base));
    set_own(row, "speedup_ref", fmt_x(vs_ref));
    tpl_set_bool(row, "has_speedup_baseline", vs_base > 0);
    tpl_set_bool(row, "has_speedup_ref", vs_ref > 0);
    tpl_set_bool(row, "faster", vs_base > 1);
    tpl_set_bool(row, "slower", vs_base > 0 && vs_base < 1);
    set_own(row, "slowdown", vs_base > 0 ? fmt_x(1 / vs_base) : xstrdup(NO_VALUE));
    tpl_set_bool(row, "faster_than_ref", vs_ref > 1);
    tpl_set_bool(row, "slower_than_ref", vs_ref > 0 && vs_ref < 1);
}

static struct tpl_value *comparison_row(struct tpl_value *rows, const char *method,
                                        const char *variant_id, double ms)
{
    struct tpl_value *row = tpl_push_map(rows);
    tpl_set_str(row, "method", method);
    tpl_set_str(row, "variant_id", variant_id ? variant_id : "");
    set_own(row, "time", fmt_ms(ms));
    tpl_set_bool(row, "is_baseline", false);
    tpl_set_bool(row, "with_transfer", false);
    tpl_set_bool(row, "without_transfer", false);
    tpl_set_bool(row, "has_overhead", false);
    tpl_set_md(row, "overhead", NO_VALUE);
    tpl_set_md(row, "factor", NO_VALUE);
    return row;
}

/* A variant's rows for one case: with its transfers (when timed so), then the call alone.
 * Whether the first states a transfer overhead. */
static bool add_variant_rows(struct tpl_value *rows, const struct variant_result *vr,
                             const struct case_result *cr, double base)
{
    double t = cr->time.median_ms;
    bool overhead = false;
    if (cr->time_transfer.valid) {
        double tt = cr->time_transfer.median_ms;
        struct tpl_value *row = comparison_row(rows, variant_title(vr), vr->variant_id, tt);
        tpl_set_bool(row, "with_transfer", true);
        double ref =
            cr->ref_time_transfer.valid && tt > 0 ? cr->ref_time_transfer.median_ms / tt : 0;
        set_speedups(row, base > 0 && tt > 0 ? base / tt : 0, ref);
        /* A copy's "with transfers" is a round trip: nothing to subtract. */
        overhead = t > 0 && !variant_is_transfer(vr);
        tpl_set_bool(row, "has_overhead", overhead);
        if (overhead) {
            set_own(row, "overhead", fmt_ms(tt - t));
            set_own(row, "factor", fmt_x(tt / t));
        }
    }
    struct tpl_value *row = comparison_row(rows, variant_title(vr), vr->variant_id, t);
    tpl_set_bool(row, "without_transfer", cr->time_transfer.valid);
    double vs_base = cr->speedup_baseline > 0 ? cr->speedup_baseline
                     : base > 0 && t > 0      ? base / t
                                              : 0;
    double vs_ref = cr->speedup_ref > 0           ? cr->speedup_ref
                    : cr->ref_time.valid && t > 0 ? cr->ref_time.median_ms / t
                                                  : 0;
    set_speedups(row, vs_base, vs_ref);
    return overhead;
}

/* The table of one case; NULL when fewer than two methods (a device variant with and
 * without its transfers is two) were timed. */
static struct tpl_value *comparison(const struct report_ctx *rc, const struct exercise_result *ex,
                                    const struct case_key *key, bool *has_overhead_out)
{
    struct tpl_value *cmp = tpl_map();
    tpl_set_str(cmp, "case_id", key->id);
    set_case_sizes(cmp, key->first);
    struct tpl_value *rows = tpl_set_list(cmp, "rows");
    double base = case_baseline(rc, ex, key->id);
    if (base > 0) {
        struct tpl_value *row = comparison_row(rows, "", NULL, base);
        tpl_set_bool(row, "is_baseline", true);
        set_speedups(row, 1.0, 0);
    }
    bool has_overhead = false;
    for (size_t v = 0; v < ex->n_variants; v++) {
        const struct case_result *cr = find_case(rc, &ex->variants[v], key->id);
        if (cr && cr->time.valid)
            has_overhead |= add_variant_rows(rows, &ex->variants[v], cr, base);
    }
    tpl_set_bool(cmp, "has_baseline", base > 0);
    tpl_set_bool(cmp, "has_overhead", has_overhead);
    *has_overhead_out = has_overhead;
    /* Two methods at least besides the baseline: one alone against it is the case table's
     * "vs CPU" column again. */
    if (tpl_list_len(rows) - (base > 0) < 2) {
        tpl_value_free(cmp);
        return NULL;
    }
    return cmp;
}

bool add_comparisons(const struct report_ctx *rc, const struct exercise_result *ex,
                     struct tpl_value *exv)
{
    struct tpl_value *list = tpl_set_list(exv, "comparisons");
    bool any_transfer = false;
    for (size_t v = 0; v < ex->n_variants; v++)
        any_transfer |= has_transfer_times(&ex->variants[v]);
    if (ex->n_variants < 2 && !any_transfer) {
        tpl_set_bool(exv, "has_comparisons", false);
        return false;
    }
    struct case_key *keys;
    size_t n = exercise_cases(rc, ex, &keys);
    bool overhead = false;
    for (size_t k = 0; k < n; k++) {
        bool has_overhead = false;
        struct tpl_value *cmp = comparison(rc, ex, &keys[k], &has_overhead);
        if (cmp)
            tpl_push(list, cmp);
        overhead |= cmp && has_overhead;
    }
    free(keys);
    tpl_set_bool(exv, "has_comparisons", tpl_list_len(list) > 0);
    return overhead;
}

/* ------------------------------------------------------------------------ */
/* Pinned against pageable host memory                                      */

/* The pair's cases timed in both: times, rates and the factor. */
static void add_pinned_cases(const struct report_ctx *rc, const struct variant_result *pageable,
                             const struct variant_result *pinned, const struct case_key *keys,
                             size_t n, struct tpl_value *cases)
{
    for (size_t k = 0; k < n; k++) {
        const struct case_result *pc = find_case(rc, pageable, keys[k].id);
        const struct case_result *fc = find_case(rc, pinned, keys[k].id);
        if (!pc || !fc || !pc->time.valid || !fc->time.valid || !(fc->time.median_ms > 0))
            continue;
        struct tpl_value *cv = tpl_push_map(cases);
        tpl_set_str(cv, "id", keys[k].id);
        set_case_sizes(cv, keys[k].first);
        set_own(cv, "pageable_time", fmt_timing(&pc->time));
        set_own(cv, "pinned_time", fmt_timing(&fc->time));
        set_own(cv, "pageable_gbps", pc->gbps > 0 ? xstrfmt("%.1f", pc->gbps) : xstrdup(NO_VALUE));
        set_own(cv, "pinned_gbps", fc->gbps > 0 ? xstrfmt("%.1f", fc->gbps) : xstrdup(NO_VALUE));
        set_own(cv, "factor", fmt_x(pc->time.median_ms / fc->time.median_ms));
    }
}

/*
 * For each pair of GPU variants that differ only in pageable against pinned host
 * memory: per case, the pageable time over the pinned time (the calls alone).
 */
void add_pinned_factors(const struct report_ctx *rc, const struct exercise_result *ex,
                        struct tpl_value *exv)
{
    struct tpl_value *list = tpl_set_list(exv, "pinned_pairs");
    struct case_key *keys;
    size_t n = exercise_cases(rc, ex, &keys);
    for (size_t i = 0; i < ex->n_variants; i++) {
        for (size_t j = i + 1; j < ex->n_variants; j++) {
            const struct variant_result *a = &ex->variants[i], *b = &ex->variants[j];
            if (!variant_is_gpu(a) || !variant_is_gpu(b))
                continue;
            int which = pageable_pinned_pair(a, b);
            if (!which)
                continue;
            const struct variant_result *pageable = which > 0 ? a : b;
            const struct variant_result *pinned = which > 0 ? b : a;
            struct tpl_value *pair = tpl_map();
            tpl_set_str(pair, "pageable", variant_title(pageable));
            tpl_set_str(pair, "pageable_id", pageable->variant_id);
            tpl_set_str(pair, "pinned", variant_title(pinned));
            tpl_set_str(pair, "pinned_id", pinned->variant_id);
            struct tpl_value *cases = tpl_set_list(pair, "cases");
            add_pinned_cases(rc, pageable, pinned, keys, n, cases);
            if (tpl_list_len(cases) == 0) {
                tpl_value_free(pair);
                continue;
            }
            tpl_push(list, pair);
        }
    }
    free(keys);
    tpl_set_bool(exv, "has_pinned_pairs", tpl_list_len(list) > 0);
}
