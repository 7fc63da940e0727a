/*
 * stats: summaries of timing samples. Inputs are left untouched (functions
 * sort a private copy). Quantiles use linear interpolation between order
 * statistics (numpy's default).
 */
#ifndef LG_STATS_H
#define LG_STATS_H

#include <stdbool.h>

#include <stddef.h>

/* A series of timing samples summed up, in milliseconds. */
struct timing {
    bool valid;
    int samples;
    double median_ms, min_ms, q1_ms, q3_ms, mean_ms, stddev_ms;
    double rse; /* relative standard error of the mean */
};

double stats_median(const double *x, size_t n);
double stats_quantile(const double *x, size_t n, double q);
double stats_mean(const double *x, size_t n);
double stats_stddev(const double *x, size_t n); /* sample (n-1) */
/* Standard error of the mean over the mean; INFINITY for n < 2 or mean 0. */
double stats_rse(const double *x, size_t n);
/* Fill a struct timing from samples in milliseconds (valid = n > 0). */
void stats_timing(const double *ms, size_t n, struct timing *t);
/*
 * Median of the pairwise ratios a[i]/b[i] and a distribution-free confidence
 * interval for it (order statistics of the ratios, about 95%).
 */
double stats_paired_ratio(const double *a, const double *b, size_t n, double *lo, double *hi);
/*
 * The same, with each pair's order: order[i] '0' when a[i] was taken first, '1' when b[i] was.
 * Whichever call of a pair runs first can pay for the pause before it (threads that went to
 * sleep, caches the checks evicted): the ratios then fall in two groups, and a median over both
 * lands wherever the coin flips of the orders put it. With at least STATS_MIN_PER_ORDER pairs
 * of each order, the ratio is the geometric mean of the two groups' medians, which cancels
 * such a penalty, and the bounds the geometric means of their bounds (no narrower than either
 * group's alone would warrant); otherwise, or with no order (NULL), stats_paired_ratio.
 */
#define STATS_MIN_PER_ORDER 3
double stats_paired_ratio_ordered(const double *a, const double *b, const char *order, size_t n,
                                  double *lo, double *hi);

#endif
