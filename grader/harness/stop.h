/*
 * stop: when a timed series has enough pairs (timing.h). Arithmetic on the samples kept so far,
 * kept apart from the timing loop so that the rule can be held to made-up samples
 * (tests/unit/test_harness_stop.c). The caller owns every array; nothing here allocates past
 * its return.
 *
 * The width is a relative half-width of a 95% interval: for pairs, that of the estimate the
 * grader makes of them (base/stats.h's stats_paired_ratio_ordered), the geometric mean of the
 * medians of the two orders' ratios; for calls without a paired reference, that of their mean.
 * The job's target_ci is such a half-width (the runner gives 1.96 times the spec's relative
 * standard error).
 */
#ifndef LG_HARNESS_STOP_H
#define LG_HARNESS_STOP_H

#include "job.h"

#include <stdbool.h>

/* Pairs before the two orders are taken apart: below this, the interval of all of them. */
#define LG_STOP_ORDERED_FROM 12

/* The relative half-width of the 95% interval of n samples: paired, of the estimate from the
 * ratios stu[i] / ref[i] (order[i] '0': the function ran first, '1': the reference did);
 * unpaired (ref and order unused), of the mean of stu. INFINITY when there are too few samples
 * for one (6, or 6 of each order once they are taken apart). */
double lg_stop_width(const double *stu, const double *ref, const char *order, int n, bool paired);

/* Whether a series of n pairs, elapsed_s seconds in, whose interval is width wide, stops: at
 * the job's max_pairs; at min_pairs once width is within target_ci; once the budget is spent,
 * with at least 3 pairs (fewer where min_pairs asks fewer); at four times the budget whatever
 * it has. */
bool lg_stop_enough(const struct lg_timing *t, int n, double width, double elapsed_s);

/* The median of n samples (0 for none); x is left as it is. The timing loop's "tail" lines
 * use it too, so that the harness sorts samples in one place. */
double lg_stop_median(const double *x, int n);

#endif
