#include "stop.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Pairs of each order before the orders are taken apart (base/stats.h's STATS_MIN_PER_ORDER). */
#define MIN_PER_ORDER 3
/* Fewest samples a median's spread is read from. */
#define MIN_FOR_SPREAD 3
/* A normal sample's standard deviation is 1.4826 times its median absolute deviation, and the
 * standard error of its median 1.2533 times that of its mean (sqrt(pi / 2)). */
#define MAD_TO_SD 1.4826
#define MEDIAN_SE 1.2533
#define Z95 1.96
/* Pairs a series with speed points takes whatever its budget, and calls an unpaired one. */
#define THREE_FLOOR 3

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double sorted_median(double *r, int n)
{
    qsort(r, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? r[n / 2] : (r[n / 2 - 1] + r[n / 2]) / 2;
}

/* The robust standard error of the median of x (n >= MIN_FOR_SPREAD), from its median absolute
 * deviation: stray delays (a page fault, a thread waking late) move it no more than any other
 * sample, where they would inflate a standard deviation. x is reordered. */
static double median_se(double *x, int n)
{
    double med = sorted_median(x, n);
    for (int i = 0; i < n; i++)
        x[i] = fabs(x[i] - med);
    return MEDIAN_SE * MAD_TO_SD * sorted_median(x, n) / sqrt((double)n);
}

/* The pairs' log-ratios of one order (g '0' or '1'), or of all of them (g 0), into r. A pair
 * without a finite positive ratio says nothing of the spread: it is left out. */
static int log_ratios(const double *stu, const double *ref, const char *order, int n, char g,
                      double *r)
{
    int m = 0;
    for (int i = 0; i < n; i++) {
        double q = ref[i] > 0 ? stu[i] / ref[i] : NAN;
        if ((!g || order[i] == g) && q > 0 && q < INFINITY)
            r[m++] = log(q);
    }
    return m;
}

static int count_order(const char *order, int n, char g)
{
    int k = 0;
    for (int i = 0; order && i < n; i++)
        k += order[i] == g;
    return k;
}

double lg_stop_precision(const double *stu, const double *ref, const char *order, int n,
                         bool paired)
{
    double *r = malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
    double se = INFINITY;
    if (!r)
        return INFINITY;
    if (!paired) {
        int m = 0;
        for (int i = 0; i < n; i++)
            if (stu[i] > 0 && stu[i] < INFINITY)
                r[m++] = log(stu[i]);
        se = m < MIN_FOR_SPREAD ? INFINITY : median_se(r, m);
    } else if (order && count_order(order, n, '0') >= MIN_PER_ORDER &&
               count_order(order, n, '1') >= MIN_PER_ORDER) {
        /* In logarithms the estimate is the mean of the two orders' (independent) medians. */
        int m0 = log_ratios(stu, ref, order, n, '0', r);
        double se0 = m0 < MIN_FOR_SPREAD ? INFINITY : median_se(r, m0);
        int m1 = log_ratios(stu, ref, order, n, '1', r);
        double se1 = m1 < MIN_FOR_SPREAD ? INFINITY : median_se(r, m1);
        se = sqrt(se0 * se0 + se1 * se1) / 2;
    }
    free(r);
    /* A log half-width is a relative one to first order; the exact relative width above the
     * estimate is exp(w) - 1, slightly wider, and the one asked for is the smaller. */
    return isfinite(se) ? exp(Z95 * se) - 1 : INFINITY;
}

/* The median's 95% interval from order statistics (base/stats.c, stats_paired_ratio): ranks
 * floor(m/2 - 0.98 sqrt(m)) and ceil(1 + m/2 + 0.98 sqrt(m)), 1-based, clamped to the sample. */
static bool ratio_interval(const double *stu, const double *ref, const char *order, int n, char g,
                           double *lo, double *hi)
{
    double *r = malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
    int m = 0;
    if (!r)
        return false;
    for (int i = 0; i < n; i++) {
        double q = stu[i] / ref[i];
        if ((!g || order[i] == g) && !isnan(q))
            r[m++] = q;
    }
    if (m > 0) {
        qsort(r, (size_t)m, sizeof(double), cmp_double);
        double half = m / 2.0, w = 0.98 * sqrt((double)m);
        double klo = fmax(1, floor(half - w)), khi = fmin(m, ceil(1 + half + w));
        *lo = r[(int)klo - 1];
        *hi = r[(int)khi - 1];
    }
    free(r);
    return m > 0;
}

bool lg_stop_interval(const double *stu, const double *ref, const char *order, int n, double *lo,
                      double *hi)
{
    bool usable = order && (int)strnlen(order, (size_t)n + 1) == n;
    int k0 = usable ? count_order(order, n, '0') : 0, k1 = usable ? count_order(order, n, '1') : 0;
    if (!usable || k0 + k1 != n || k0 < MIN_PER_ORDER || k1 < MIN_PER_ORDER)
        return ratio_interval(stu, ref, order, n, 0, lo, hi);
    double l0, h0, l1, h1;
    if (!ratio_interval(stu, ref, order, n, '0', &l0, &h0) ||
        !ratio_interval(stu, ref, order, n, '1', &l1, &h1))
        return false;
    *lo = sqrt(l0 * l1);
    *hi = sqrt(h0 * h1);
    return true;
}

bool lg_stop_same_band(const double *bands, int n_bands, double lo, double hi)
{
    for (int k = 0; k < n_bands; k++)
        if ((lo <= bands[k]) != (hi <= bands[k]))
            return false;
    return true;
}

/* Whether the series may stop on its precision: enough pairs, the width asked for, and where
 * the case has speed points, the band they come from decided. */
static bool precise(const struct lg_stop_rule *r, const double *stu, const double *ref,
                    const char *order, int n, bool paired)
{
    int need = r->min_pairs > LG_STOP_ORDERED_FROM || !paired ? r->min_pairs : LG_STOP_ORDERED_FROM;
    if (n < need || lg_stop_precision(stu, ref, order, n, paired) > r->target_ci)
        return false;
    double lo, hi;
    return !paired || r->n_bands == 0 ||
           (lg_stop_interval(stu, ref, order, n, &lo, &hi) &&
            lg_stop_same_band(r->bands, r->n_bands, lo, hi));
}

enum lg_stop_why lg_stop_next(const struct lg_stop_rule *r, const double *stu, const double *ref,
                              const char *order, int n, bool paired, double elapsed_s)
{
    if (n >= r->max_pairs)
        return LG_STOP_MAX;
    if (n > 0 && precise(r, stu, ref, order, n, paired))
        return LG_STOP_PRECISION;
    /* The floor: one pair of each order, or the one pair a budget smaller than a pair allows;
     * where speed points are at stake, three, whose range the points are then read from (the
     * chance that all of them fall on the favourable side of the true ratio is an eighth); three
     * calls unpaired, a reference's own time that one grader measures for every other (one call
     * of lab 6's CPU matmul at n7000 came out 17% slower than the next ones on an H200). Then no
     * pair is begun that would end past the budget (at the pairs' mean cost so far). */
    double per_pair = n > 0 ? elapsed_s / n : 0;
    int floor_n = r->n_bands > 0 || !paired ? THREE_FLOOR : n > 0 && per_pair > r->budget_s ? 1 : 2;
    if (n >= floor_n && elapsed_s + per_pair > r->budget_s)
        return LG_STOP_BUDGET;
    return LG_STOP_NOT_YET;
}

const char *lg_stop_name(enum lg_stop_why why)
{
    switch (why) {
    case LG_STOP_PRECISION:
        return "precision";
    case LG_STOP_MAX:
        return "pairs";
    case LG_STOP_BUDGET:
        return "budget";
    case LG_STOP_ALONE:
        return "alone";
    default:
        return "-";
    }
}

double lg_stop_median(const double *x, int n)
{
    double *c = n > 0 ? malloc((size_t)n * sizeof(double)) : NULL;
    if (!c)
        return 0;
    memcpy(c, x, (size_t)n * sizeof(double));
    double m = sorted_median(c, n);
    free(c);
    return m;
}
