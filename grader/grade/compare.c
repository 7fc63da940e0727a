#include "grade/compare.h"

#include "run/work.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/*
 * numpy.isclose is (|a - e| <= atol + rtol*|e| and e finite) or a == e. The one
 * place this is stricter: numpy lets an infinite actual pass against a finite
 * expected when the tolerance itself is infinite; here an infinity matches only
 * the same infinity, whatever the tolerance.
 */
bool compare_close(double actual, double expected, const struct compare_opts *o)
{
    if (actual == expected) /* also -0.0 vs 0.0 and equal infinities */
        return true;
    if (isnan(actual) || isnan(expected))
        return o->equal_nan && isnan(actual) && isnan(expected);
    if (isinf(actual) || isinf(expected))
        return false;
    /* Finite operands can still differ by more than DBL_MAX: the difference is then
     * inf, which only an infinite tolerance accepts. */
    double diff = fabs(actual - expected);
    return diff <= o->atol + o->rtol * fabs(expected);
}

/* int64 values beyond 2^53 do not survive the trip through double, so the
 * difference is taken exactly in integers. */
static bool close_i64(int64_t actual, int64_t expected, const struct compare_opts *o, double *diff)
{
    uint64_t d = actual >= expected ? (uint64_t)actual - (uint64_t)expected
                                    : (uint64_t)expected - (uint64_t)actual;
    *diff = (double)d;
    if (d == 0)
        return true;
    double tol = o->atol + o->rtol * fabs((double)expected);
    if (!(tol >= 1)) /* also NaN */
        return false;
    if (tol >= 18446744073709551616.0) /* 2^64: beyond any difference */
        return true;
    /* For an integer d, d <= tol exactly when d <= floor(tol), which converts exactly. */
    return d <= (uint64_t)floor(tol);
}

/* "[i, j]" in row-major order for a usable shape, else "[k]". The first dimension
 * takes whatever the others leave, so a shape smaller than the buffer still gives
 * distinct indices. */
static void format_index(size_t flat, const long *shape, size_t n_dims, char *buf, size_t size)
{
    size_t idx[16];
    bool usable = shape && n_dims > 0 && n_dims <= sizeof(idx) / sizeof(idx[0]);
    for (size_t d = 0; usable && d < n_dims; d++)
        if (shape[d] <= 0)
            usable = false;
    if (usable) {
        size_t rest = flat;
        for (size_t d = n_dims; d-- > 1;) {
            idx[d] = rest % (size_t)shape[d];
            rest /= (size_t)shape[d];
        }
        idx[0] = rest;
        size_t used = 0;
        for (size_t d = 0; d < n_dims; d++) {
            int w = snprintf(buf + used, size - used, "%s%zu", d ? ", " : "[", idx[d]);
            if (w < 0 || (size_t)w >= size - used) {
                usable = false;
                break;
            }
            used += (size_t)w;
        }
        if (usable && used + 1 < size) {
            buf[used] = ']';
            buf[used + 1] = '\0';
            return;
        }
    }
    /* No shape, or the index does not fit: the flat one always does. */
    snprintf(buf, size, "[%zu]", flat);
}

/* Elements compared between two checkpoints of the grader's own work (run/work.h): a few
 * milliseconds, so that a series waiting for the cores waits no longer. */
#define CHECKPOINT_ELEMENTS (1u << 21)

/* Whether every element of a float buffer agrees: the common case, decided in one typed pass
 * (the element-wise path below widens through lg_dtype_load and is several times slower on
 * the millions of elements of a large case). false also when it cannot tell. */
static bool all_close_fast(enum lg_dtype t, const void *actual, const void *expected, size_t n,
                           const struct compare_opts *o)
{
    if (t != LG_F32 && t != LG_F64)
        return false;
    for (size_t lo = 0; lo < n; lo += CHECKPOINT_ELEMENTS) {
        size_t hi = n - lo < CHECKPOINT_ELEMENTS ? n : lo + CHECKPOINT_ELEMENTS;
        if (t == LG_F32) {
            const float *a = actual, *e = expected;
            for (size_t i = lo; i < hi; i++)
                if (a[i] != e[i] && !compare_close(a[i], e[i], o))
                    return false;
        } else {
            const double *a = actual, *e = expected;
            for (size_t i = lo; i < hi; i++)
                if (a[i] != e[i] && !compare_close(a[i], e[i], o))
                    return false;
        }
        work_checkpoint();
    }
    return true;
}

bool compare_buffers(enum lg_dtype t, const void *actual, const void *expected, size_t n,
                     const long *shape, size_t n_dims, const struct compare_opts *o,
                     struct mismatch *m)
{
    struct mismatch scratch;
    if (!m)
        m = &scratch;
    m->n_mismatch = 0;
    m->n_total = (long)n;
    m->max_abs = 0;
    m->max_rel = 0;
    m->n_first = 0;
    m->integer = !lg_dtype_is_float(t);
    m->n_unwritten = 0;
    if (all_close_fast(t, actual, expected, n, o))
        return true;
    size_t esz = lg_dtype_size(t);
    unsigned char sentinel[8];
    if (o->poison >= 0)
        lg_dtype_poison(t, sentinel, 1, o->poison);
    for (size_t i = 0; i < n; i++) {
        double a, e, diff;
        bool ok;
        if (t == LG_I64) {
            int64_t ai, ei;
            memcpy(&ai, (const char *)actual + i * sizeof(ai), sizeof(ai));
            memcpy(&ei, (const char *)expected + i * sizeof(ei), sizeof(ei));
            ok = close_i64(ai, ei, o, &diff);
            a = (double)ai;
            e = (double)ei;
        } else {
            a = lg_dtype_load(t, actual, i);
            e = lg_dtype_load(t, expected, i);
            ok = compare_close(a, e, o);
            diff = fabs(a - e);
        }
        if (ok)
            continue;
        m->n_mismatch++;
        if (o->poison >= 0 &&
            (m->integer ? !memcmp((const char *)actual + i * esz, sentinel, esz) : isnan(a)))
            m->n_unwritten++;
        /* numpy >= 2 reports the largest differences among the violations. Pairs with
         * a NaN or an infinity have no meaningful difference and are left out, so both
         * maxima stay 0 when every violation is of that kind (grade.c relies on it to
         * spot outputs that were never written). */
        if (isfinite(a) && isfinite(e)) {
            double rel = e != 0 ? diff / fabs(e) : INFINITY;
            if (diff > m->max_abs)
                m->max_abs = diff;
            if (rel > m->max_rel)
                m->max_rel = rel;
        }
        if (m->n_first < (int)(sizeof(m->first) / sizeof(m->first[0]))) {
            struct mismatch_at *at = &m->first[m->n_first++];
            format_index(i, shape, n_dims, at->index, sizeof(at->index));
            at->actual = a;
            at->expected = e;
        }
    }
    return m->n_mismatch == 0;
}

/* %.6g, but "nan" for any NaN (glibc would print "-nan" for a negative one), and integers
 * whole: -1515870811 is the fill pattern, not -1.51587e+09. */
static void format_value(char *buf, size_t size, double v, bool integer)
{
    if (integer && isfinite(v))
        snprintf(buf, size, "%.0f", v);
    else if (isnan(v))
        snprintf(buf, size, "nan");
    else if (isinf(v))
        snprintf(buf, size, v > 0 ? "inf" : "-inf");
    else
        snprintf(buf, size, "%.6g", v);
}

void compare_format(const struct mismatch *m, struct strbuf *out)
{
    char a[64], e[64];
    double pct = m->n_total > 0 ? 100.0 * (double)m->n_mismatch / (double)m->n_total : 0;
    strbuf_addf(out, "Mismatched elements: %ld / %ld (%.3g%%)\n", m->n_mismatch, m->n_total, pct);
    format_value(a, sizeof(a), m->max_abs, false);
    format_value(e, sizeof(e), m->max_rel, false);
    strbuf_addf(out, "Max absolute difference among violations: %s\n", a);
    strbuf_addf(out, "Max relative difference among violations: %s\n", e);
    if (m->n_first > 0)
        strbuf_addstr(out, "First mismatches (index: actual vs expected):\n");
    for (int i = 0; i < m->n_first; i++) {
        format_value(a, sizeof(a), m->first[i].actual, m->integer);
        format_value(e, sizeof(e), m->first[i].expected, m->integer);
        strbuf_addf(out, "  %s: %s vs %s\n", m->first[i].index, a, e);
    }
}
