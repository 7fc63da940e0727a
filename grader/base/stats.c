#include "base/stats.h"

#include "base/alloc.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A total order with NaN last: qsort needs a consistent comparison, and a NaN at
 * the end lets the quantile code see it and answer NaN, as numpy does. */
static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    if (isnan(a) || isnan(b))
        return isnan(a) - isnan(b);
    return a < b ? -1 : a > b;
}

static double *sorted_copy(const double *x, size_t n)
{
    double *c = xmalloc((n ? n : 1) * sizeof(double));
    if (n)
        memcpy(c, x, n * sizeof(double));
    qsort(c, n, sizeof(double), cmp_double);
    return c;
}

/* numpy's _lerp: from the nearer end, so that t = 1 gives b exactly. Landing on an
 * order statistic, or between equal ones, returns it as is: an infinite neighbour
 * would otherwise turn inf * 0 into NaN. */
static double lerp(double a, double b, double t)
{
    if (t == 0 || a == b)
        return a;
    if (t == 1)
        return b;
    double diff = b - a;
    return t >= 0.5 ? b - diff * (1 - t) : a + diff * t;
}

/* numpy's default method ("linear"): position q*(n-1) between order statistics. */
static double quantile_sorted(const double *s, size_t n, double q)
{
    if (n == 0 || isnan(q) || isnan(s[n - 1]))
        return NAN;
    if (q <= 0)
        return s[0];
    if (q >= 1)
        return s[n - 1];
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)floor(pos);
    if (lo >= n - 1)
        return s[n - 1];
    return lerp(s[lo], s[lo + 1], pos - (double)lo);
}

double stats_quantile(const double *x, size_t n, double q)
{
    double *s = sorted_copy(x, n);
    double r = quantile_sorted(s, n, q);
    free(s);
    return r;
}

double stats_median(const double *x, size_t n)
{
    return stats_quantile(x, n, 0.5);
}

double stats_mean(const double *x, size_t n)
{
    if (n == 0)
        return NAN;
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += x[i];
    return sum / (double)n;
}

/* Two passes (mean, then squared deviations): no cancellation for samples that
 * sit far from zero, as timings do. NaN for fewer than two samples, like numpy. */
double stats_stddev(const double *x, size_t n)
{
    if (n < 2)
        return NAN;
    double m = stats_mean(x, n), ss = 0;
    for (size_t i = 0; i < n; i++)
        ss += (x[i] - m) * (x[i] - m);
    return sqrt(ss / (double)(n - 1));
}

double stats_rse(const double *x, size_t n)
{
    if (n < 2)
        return INFINITY;
    double m = stats_mean(x, n);
    if (m == 0)
        return INFINITY;
    return stats_stddev(x, n) / sqrt((double)n) / fabs(m);
}

/* With one sample, stddev is NaN and rse INFINITY: unknown spread, never a
 * pretended zero. (Both come back from results.json as NaN, JSON having
 * neither NaN nor infinities.) */
void stats_timing(const double *ms, size_t n, struct timing *t)
{
    memset(t, 0, sizeof(*t));
    if (n == 0)
        return;
    double *s = sorted_copy(ms, n);
    t->valid = true;
    t->samples = n > (size_t)INT_MAX ? INT_MAX : (int)n;
    t->median_ms = quantile_sorted(s, n, 0.5);
    t->min_ms = s[0];
    t->q1_ms = quantile_sorted(s, n, 0.25);
    t->q3_ms = quantile_sorted(s, n, 0.75);
    t->mean_ms = stats_mean(ms, n);
    t->stddev_ms = stats_stddev(ms, n);
    t->rse = stats_rse(ms, n);
    free(s);
}

/*
 * The median of the ratios a[i]/b[i] with a distribution-free ~95% interval.
 *
 * If m is the true median, the number of ratios below it is binomial(n, 1/2);
 * by the normal approximation (mean n/2, sd sqrt(n)/2, 1.96 sd = 0.98*sqrt(n))
 * the order statistics at ranks floor(n/2 - 0.98*sqrt(n)) and
 * ceil(1 + n/2 + 0.98*sqrt(n)) (1-based) bracket m with about 95% probability,
 * without assuming anything about the ratios' distribution. Ranks are clamped
 * to [1, n], so for small n the interval is the whole sample range (and covers
 * less than 95%: for n <= 5 no order-statistic interval reaches it).
 *
 * Pairs whose ratio is undefined (a NaN, or 0/0) are left out; x/0 is an infinity.
 * With no usable pair, everything is NaN. lo and hi may be NULL.
 */
double stats_paired_ratio(const double *a, const double *b, size_t n, double *lo, double *hi)
{
    double *r = xmalloc((n ? n : 1) * sizeof(double));
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        double ratio = a[i] / b[i];
        if (!isnan(ratio))
            r[k++] = ratio;
    }
    double med = NAN, rlo = NAN, rhi = NAN;
    if (k > 0) {
        qsort(r, k, sizeof(double), cmp_double);
        med = quantile_sorted(r, k, 0.5);
        double half = (double)k / 2.0, w = 0.98 * sqrt((double)k);
        double klo = floor(half - w), khi = ceil(1 + half + w);
        if (klo < 1)
            klo = 1;
        if (khi > (double)k)
            khi = (double)k;
        rlo = r[(size_t)klo - 1];
        rhi = r[(size_t)khi - 1];
    }
    free(r);
    if (lo)
        *lo = rlo;
    if (hi)
        *hi = rhi;
    return med;
}

double stats_paired_ratio_ordered(const double *a, const double *b, const char *order, size_t n,
                                  double *lo, double *hi)
{
    size_t k[2] = {0, 0};
    /* An order of another length than the pairs is no order (and is never read past its end). */
    bool usable = order && strnlen(order, n + 1) == n;
    for (size_t i = 0; usable && i < n; i++)
        if (order[i] == '0' || order[i] == '1')
            k[order[i] - '0']++;
    if (!usable || k[0] + k[1] != n || k[0] < STATS_MIN_PER_ORDER || k[1] < STATS_MIN_PER_ORDER)
        return stats_paired_ratio(a, b, n, lo, hi);
    double med[2], l[2], h[2];
    double *sa = xmalloc(n * sizeof(double)), *sb = xmalloc(n * sizeof(double));
    for (int g = 0; g < 2; g++) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (order[i] == '0' + g) {
                sa[m] = a[i];
                sb[m++] = b[i];
            }
        med[g] = stats_paired_ratio(sa, sb, m, &l[g], &h[g]);
    }
    free(sa);
    free(sb);
    if (lo)
        *lo = sqrt(l[0] * l[1]);
    if (hi)
        *hi = sqrt(h[0] * h[1]);
    return sqrt(med[0] * med[1]);
}

/* At most STATS_SHIFT_MAX of x, evenly spaced, into out. */
static size_t thin(const double *x, size_t n, double *out)
{
    size_t k = n > STATS_SHIFT_MAX ? STATS_SHIFT_MAX : n;
    for (size_t i = 0; i < k; i++)
        out[i] = x[i * n / k];
    return k;
}

double stats_shift(const double *x, size_t m, const double *y, size_t n, double *lo, double *hi)
{
    double *xs = xmalloc((m ? m : 1) * sizeof(double)), *ys = xmalloc((n ? n : 1) * sizeof(double));
    m = thin(x, m, xs);
    n = thin(y, n, ys);
    double est = NAN, l = NAN, h = NAN;
    if (m >= 3 && n >= 3) {
        size_t mn = m * n, k = 0;
        double *d = xmalloc(mn * sizeof(double));
        for (size_t i = 0; i < m; i++)
            for (size_t j = 0; j < n; j++)
                d[i * n + j] = xs[i] - ys[j];
        qsort(d, mn, sizeof(double), cmp_double);
        double c = (double)mn / 2 - 1.96 * sqrt((double)mn * (double)(m + n + 1) / 12);
        if (c > 0)
            k = (size_t)floor(c);
        est = quantile_sorted(d, mn, 0.5);
        l = d[k];
        h = d[mn - 1 - k];
        free(d);
    }
    free(xs);
    free(ys);
    if (lo)
        *lo = l;
    if (hi)
        *hi = h;
    return est;
}

/* The shift of the order-0 pairs' log time products over the order-1 pairs'. */
static void positions_shift(const double *a, const double *b, const char *order, size_t n,
                            struct stats_positions *p)
{
    double *x = xmalloc((n ? n : 1) * sizeof(double)), *y = xmalloc((n ? n : 1) * sizeof(double));
    size_t m0 = 0, m1 = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(a[i] > 0) || !(b[i] > 0))
            continue;
        if (order[i] == '0')
            x[m0++] = log(a[i] * b[i]);
        else if (order[i] == '1')
            y[m1++] = log(a[i] * b[i]);
    }
    double l, h, e = stats_shift(x, m0, y, m1, &l, &h);
    p->shift = exp(e);
    p->shift_lo = exp(l);
    p->shift_hi = exp(h);
    free(x);
    free(y);
}

int stats_positions(const double *a, const double *b, const char *order, size_t n,
                    struct stats_positions *p)
{
    size_t m = 0, half = n / 2;
    double *num = xmalloc((half ? half : 1) * 3 * sizeof(double));
    double *den = xmalloc((half ? half : 1) * 3 * sizeof(double));
    bool usable = order && strnlen(order, n + 1) == n;
    for (size_t k = 0; usable && k < half; k++) {
        size_t i = 2 * k, j = 2 * k + 1;
        if (!((order[i] == '0' && order[j] == '1') || (order[i] == '1' && order[j] == '0')))
            continue;
        size_t p0 = order[i] == '0' ? i : j, p1 = order[i] == '0' ? j : i;
        /* The three quantities side by side: disagreement, first, second. */
        num[m] = a[p0] * b[p0];
        den[m] = a[p1] * b[p1];
        num[half + m] = a[p0];
        den[half + m] = b[p1];
        num[2 * half + m] = a[p1];
        den[2 * half + m] = b[p0];
        m++;
    }
    p->blocks = m;
    p->disagreement = stats_paired_ratio(num, den, m, &p->disagreement_lo, &p->disagreement_hi);
    p->first = stats_paired_ratio(num + half, den + half, m, &p->first_lo, &p->first_hi);
    p->second = stats_paired_ratio(num + 2 * half, den + 2 * half, m, &p->second_lo, &p->second_hi);
    free(num);
    free(den);
    p->shift = p->shift_lo = p->shift_hi = NAN;
    if (usable)
        positions_shift(a, b, order, n, p);
    return m > 0 ? 0 : -1;
}
