#include "stop.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Fewest samples an interval is taken from. */
#define MIN_FOR_INTERVAL 6
/* The budget, once spent, stops a series at this many pairs (min_pairs, where lower). */
#define BUDGET_FLOOR 3
/* However few pairs it has, a series stops at this many times its budget. */
#define BUDGET_HARD_STOP 4

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double mean_width(const double *x, int n)
{
    double mean = 0, var = 0;
    for (int i = 0; i < n; i++)
        mean += x[i] / n;
    for (int i = 0; i < n; i++)
        var += (x[i] - mean) * (x[i] - mean) / (n - 1);
    return mean > 0 ? 1.96 * sqrt(var / n) / mean : INFINITY;
}

/* The median's interval from order statistics: ranks n/2 -+ 0.98 sqrt(n), a 95% interval for
 * any distribution of the ratios. r is sorted in place. */
static double sorted_median(double *r, int n)
{
    qsort(r, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? r[n / 2] : (r[n / 2 - 1] + r[n / 2]) / 2;
}

static double median_width(double *r, int n)
{
    double med = sorted_median(r, n);
    int lo = (int)floor(n / 2.0 - 0.98 * sqrt((double)n)),
        hi = (int)ceil(n / 2.0 + 0.98 * sqrt((double)n));
    lo = lo < 0 ? 0 : lo;
    hi = hi > n - 1 ? n - 1 : hi;
    return med > 0 ? (r[hi] - r[lo]) / 2 / med : INFINITY;
}

/* The ratios of the pairs of one order (g '0' or '1'), or of all of them (g 0). A pair without
 * a ratio (a time of zero, below the clock's resolution) says nothing of the width, and a NaN
 * would leave the sort's order undefined: it is left out. */
static double ratio_width(const double *stu, const double *ref, const char *order, int n, char g)
{
    double *r = malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
    if (!r)
        return INFINITY;
    int m = 0;
    for (int i = 0; i < n; i++)
        if ((!g || order[i] == g) && ref[i] > 0 && stu[i] / ref[i] < INFINITY)
            r[m++] = stu[i] / ref[i];
    double w = m < MIN_FOR_INTERVAL ? INFINITY : median_width(r, m);
    free(r);
    return w;
}

/* In logarithms the grader's estimate is the mean of the two orders' (independent) estimates:
 * its half-width is half the root of the sum of their squares. The interval the report shows,
 * and the speed points are read from, is wider on purpose (the geometric mean of the two
 * intervals, grade/speed.c): this one asks whether the estimate is known well enough, that one
 * gives noise no benefit. Before LG_STOP_ORDERED_FROM pairs, the interval of all of them: a
 * tight one says the order costs nothing. */
double lg_stop_width(const double *stu, const double *ref, const char *order, int n, bool paired)
{
    if (!paired)
        return n < MIN_FOR_INTERVAL ? INFINITY : mean_width(stu, n);
    if (n < LG_STOP_ORDERED_FROM || !order)
        return ratio_width(stu, ref, order, n, 0);
    double w0 = ratio_width(stu, ref, order, n, '0'), w1 = ratio_width(stu, ref, order, n, '1');
    return sqrt(w0 * w0 + w1 * w1) / 2;
}

bool lg_stop_enough(const struct lg_timing *t, int n, double width, double elapsed_s)
{
    int floor_n = t->min_pairs < BUDGET_FLOOR ? t->min_pairs : BUDGET_FLOOR;
    if (n >= t->max_pairs)
        return true;
    if (n >= t->min_pairs && width <= t->target_ci)
        return true;
    return (elapsed_s > t->budget_s && n >= floor_n) || elapsed_s > BUDGET_HARD_STOP * t->budget_s;
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
