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

/*
 * The two positions of a pair taken apart. Pairs come in blocks of two, one of each order
 * (grader/harness/timing.c): pairs 2m and 2m+1 of a block, order[i] as above. Within a block,
 * first = a0/b1 compares the two sides when each ran first in its pair (a0: a in the pair where
 * it went first, b1: b in the pair where it did) and second = a1/b0 when each ran second; their
 * quotient, the disagreement a0*b0 / (a1*b1), is the block's order-0 pair's time over its
 * order-1 pair's. A penalty for going first that both sides pay alike cancels in it (while it
 * sets the two orders' ratios apart by its square); what is left is a side whose time depends
 * on its position more than the other's does: the function faster only when it runs second (it
 * used what the first call left), or the reference slower only after the function. Each is the
 * median over the blocks with its ~95% interval (stats_paired_ratio). blocks counts the
 * complete blocks; with none, everything is NaN and the call returns -1.
 */
struct stats_positions {
    size_t blocks;
    double disagreement, disagreement_lo, disagreement_hi;
    double first, first_lo, first_hi;
    double second, second_lo, second_hi;
    /* The same disagreement from every pair apart, blocks aside: the Hodges-Lehmann shift
     * between the order-0 pairs' time products and the order-1 pairs' (stats_shift, in
     * logarithms). Where the median over the blocks loses its interval to a few blocks that a
     * stray delay spoiled (each block holds four calls), this keeps it; it does not cancel a
     * drift that the blocks do, so the caller holds it to a wider margin. */
    double shift, shift_lo, shift_hi;
};
int stats_positions(const double *a, const double *b, const char *order, size_t n,
                    struct stats_positions *p);

/*
 * The Hodges-Lehmann estimate of the shift of x over y (the median of every difference x[i] -
 * y[j]) and its ~95% interval from the Mann-Whitney statistic (normal approximation): the
 * differences ranked k from either end, k = mn/2 - 1.96 sqrt(mn(m+n+1)/12). A stray value
 * moves n of the m*n differences, so a few of them leave the interval where it was. Samples of
 * more than STATS_SHIFT_MAX are thinned evenly first. NaN with fewer than 3 of either.
 */
#define STATS_SHIFT_MAX 1000
double stats_shift(const double *x, size_t m, const double *y, size_t n, double *lo, double *hi);

#endif
