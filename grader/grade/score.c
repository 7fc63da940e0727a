/*
 * score: speed points, for correct code only (labs/README.md, "Performance points").
 *
 * Full points at or under full_at times the reference's time, falling log-linearly to none at
 * zero_at. The ratio is the end of the timed pairs' 95% interval least favourable to the
 * student: points are awarded only where the interval clears the band that earns them, so
 * that measurement noise never buys a point, and the share is rounded down to tenths.
 */
#include "grade/grading.h"

#include "base/alloc.h"
#include "base/messages.h"

#include <math.h>
#include <string.h>

/* The time ratio to the reference that speed points are decided on; 0 when there is none. */
static double perf_ratio(const struct case_result *cr)
{
    if (cr->pairs > 0 && cr->speedup_lo > 0)
        return 1 / cr->speedup_lo;
    return 0;
}

static double perf_fraction(const struct perf_spec *p, const struct case_result *cr)
{
    double ratio = perf_ratio(cr);
    if (cr->verdict != V_PASS || ratio <= 0)
        return -1;
    double f;
    if (ratio <= p->full_at)
        f = 1;
    else if (ratio >= p->zero_at)
        f = 0;
    else
        f = 1 - log(ratio / p->full_at) / log(p->zero_at / p->full_at);
    return floor(f * 10 + 1e-9) / 10;
}

void score_performance(struct grading *g, const struct exercise_spec *ex,
                       struct exercise_result *er)
{
    double sum = 0;
    int counted = 0;
    if (!ex->has_perf || g->o->no_timing)
        return;
    for (size_t v = 0; v < er->n_variants; v++) {
        struct variant_result *vr = &er->variants[v];
        if (ex->perf.variant && strcmp(ex->perf.variant, vr->variant_id))
            continue;
        for (size_t c = 0; c < vr->n_cases; c++) {
            struct case_result *cr = &vr->cases[c];
            /* Not timed here (no turn, a shared machine): not the student's doing, and not
             * counted either way; the grade is incomplete until it is timed (results.h). */
            if (cr->verdict == V_SKIPPED || cr->max_points <= 0 || cr->not_timed != NOT_TIMED_NO)
                continue;
            double f = perf_fraction(&ex->perf, cr);
            counted++;
            if (f > 0)
                sum += f;
            if (f < 0)
                continue;
            judge_add_finding(
                cr, xstrfmt(messages_get(g->o->messages, "performance: %.2fx the reference's time "
                                                         "at worst (95%% interval of %d timed "
                                                         "pairs: %.2fx to %.2fx) earns %.0f%% of "
                                                         "the speed points"),
                            perf_ratio(cr), cr->pairs, 1 / cr->speedup_hi, 1 / cr->speedup_lo,
                            f * 100));
            cr->perf_finding = cr->n_findings;
        }
    }
    if (counted == 0)
        return;
    er->perf_max_points = ex->perf.points;
    er->perf_points = ex->perf.points * sum / counted;
}
