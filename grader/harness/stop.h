/*
 * stop: when a timed series has what its case must decide (timing.h; docs/timing.md, "When a
 * series stops"). Arithmetic on the samples kept so far, kept apart from the timing loop so
 * that the rule can be held to made-up samples (tests/unit/test_harness_stop.c). The caller
 * owns every array; nothing here allocates past its return.
 *
 * A series decides two things: what the report says of its speed-up (to the lab's relative
 * standard error), and, where the case carries speed points, which band of them it earns. So it
 * stops at the first of:
 *   - its precision reached: the estimate the grader makes (base/stats.h's
 *     stats_paired_ratio_ordered, the geometric mean of the two orders' medians) has a standard
 *     error, taken robustly from the spread of the pairs (the median absolute deviation of each
 *     order's log-ratios), within the target; only from min_pairs on, and never before the two
 *     orders can be told apart (LG_STOP_ORDERED_FROM pairs), so that the grader always judges
 *     whether they agree; where the case has speed points, only once the interval they are read
 *     from lies inside one band;
 *   - max_pairs;
 *   - its budget: a pair that would end past it is not begun, once the series has its floor
 *     (one pair of each order; one pair where a pair alone costs more than the budget; three
 *     where speed points are at stake, as the range of so few pairs is what they come from;
 *     three calls unpaired: a reference's own time, measured once for every grader).
 */
#ifndef LG_HARNESS_STOP_H
#define LG_HARNESS_STOP_H

#include <stdbool.h>

/* Pairs before the two orders are taken apart, and before a series may stop on its precision:
 * the grader judges the orders' agreement from six blocks of two pairs on (grade/speed.c). */
#define LG_STOP_ORDERED_FROM 12

/* Why a series stopped (its result line "stop"): the same words in results.json. */
enum lg_stop_why {
    LG_STOP_NOT_YET,
    LG_STOP_PRECISION, /* its precision reached (and its band decided, where it has points) */
    LG_STOP_MAX,       /* max_pairs */
    LG_STOP_BUDGET,    /* its budget spent */
    LG_STOP_ALONE,     /* a pair would cost more than the budget: the function timed alone,
                        * against the reference's time on this machine (timing.h) */
};

/* What one series is held to. */
struct lg_stop_rule {
    int min_pairs, max_pairs;
    double target_ci; /* the 95% half-width asked for: 1.96 standard errors, relative */
    double budget_s;
    /* Where speed points change, as time ratios (the function's over the reference's),
     * ascending; none for a case without speed points. */
    const double *bands;
    int n_bands;
};

/* The relative half-width of the 95% interval (1.96 robust standard errors) of the estimate
 * from n pairs: paired, the mean of the two orders' median log-ratios stu[i] / ref[i] (order[i]
 * '0': the function ran first, '1': the reference did), once each order has 3; unpaired (ref
 * and order unused), the median of stu. INFINITY when there are too few samples for one. */
double lg_stop_precision(const double *stu, const double *ref, const char *order, int n,
                         bool paired);

/* The 95% interval of the time ratio stu / ref that the grader reads speed points from, as
 * base/stats.h's stats_paired_ratio_ordered computes it (each order's median interval from
 * order statistics, their geometric mean; all the pairs' below 3 of each order). false when
 * no pair has a ratio. */
bool lg_stop_interval(const double *stu, const double *ref, const char *order, int n, double *lo,
                      double *hi);

/* Whether the time ratios lo and hi earn the same band. */
bool lg_stop_same_band(const double *bands, int n_bands, double lo, double hi);

/* Whether a series of n pairs (their samples as for lg_stop_precision), elapsed_s seconds in,
 * stops before its next pair, and why; LG_STOP_NOT_YET to go on. */
enum lg_stop_why lg_stop_next(const struct lg_stop_rule *r, const double *stu, const double *ref,
                              const char *order, int n, bool paired, double elapsed_s);

/* The word for why (results.json's "stopped"). */
const char *lg_stop_name(enum lg_stop_why why);

/* The median of n samples (0 for none); x is left as it is. The timing loop's "tail" lines
 * use it too, so that the harness sorts samples in one place. */
double lg_stop_median(const double *x, int n);

#endif
