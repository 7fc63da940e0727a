#include "report/format.h"

#include "base/alloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Milliseconds with four significant digits: 580.0, 106.5, 50.37, 4.415, 0.01234. */
char *fmt_ms(double ms)
{
    if (!(ms > 0) || !isfinite(ms))
        return xstrdup(NO_VALUE);
    int dec = 3 - (int)floor(log10(ms));
    if (dec < 0)
        dec = 0;
    if (dec > 6)
        dec = 6;
    return xstrfmt("%.*f", dec, ms);
}

char *fmt_timing(const struct timing *t)
{
    return t->valid ? fmt_ms(t->median_ms) : xstrdup(NO_VALUE);
}

char *fmt_spread(const struct timing *t)
{
    if (!t->valid || t->samples < 2)
        return xstrdup(NO_VALUE);
    double iqr = t->q3_ms - t->q1_ms;
    return iqr > 0 ? fmt_ms(iqr) : xstrdup("0");
}

char *fmt_x(double x)
{
    if (!(x > 0) || !isfinite(x))
        return xstrdup(NO_VALUE);
    return xstrfmt("%.2fx", x);
}

/* Points: 10, 7.5, 3.25. */
char *fmt_points(double p)
{
    if (!isfinite(p))
        return xstrdup(NO_VALUE);
    char *s = xstrfmt("%.2f", p);
    char *dot = strchr(s, '.');
    if (dot) {
        size_t len = strlen(s);
        while (len > 0 && s[len - 1] == '0')
            s[--len] = '\0';
        if (s[len - 1] == '.')
            s[--len] = '\0';
    }
    if (!strcmp(s, "-0"))
        s[0] = '0', s[1] = '\0';
    return s;
}

/* A size from interpolation: three significant digits, no exponent. */
char *fmt_size(double x)
{
    if (!(x > 0) || !isfinite(x))
        return xstrdup(NO_VALUE);
    if (x < 100)
        return xstrfmt("%.3g", x);
    double p = pow(10, floor(log10(x)) - 2);
    return xstrfmt("%.0f", round(x / p) * p);
}

char *fmt_pct(double num, double den)
{
    if (!(den > 0))
        return xstrdup(NO_VALUE);
    return xstrfmt("%.0f%%", 100.0 * num / den);
}

/* Set key to an owned formatted string (already safe Markdown). */
void set_own(struct tpl_value *m, const char *key, char *s)
{
    tpl_set_md(m, key, s);
    free(s);
}

void set_own_points(struct tpl_value *m, const char *key, char *s)
{
    char *one = xstrfmt("%s_one", key);
    tpl_set_bool(m, one, !strcmp(s, "1"));
    free(one);
    set_own(m, key, s);
}

static int double_cmp(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

double median_of(const double *x, size_t n)
{
    if (!n)
        return NAN;
    double *c = xmalloc(n * sizeof(double));
    memcpy(c, x, n * sizeof(double));
    qsort(c, n, sizeof(double), double_cmp);
    double m = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
    free(c);
    return m;
}

bool has_text(const char *s)
{
    return s && s[strspn(s, " \t\r\n")] != '\0';
}

void set_rate(struct tpl_value *m, const struct case_result *cr)
{
    if (cr->gflops > 0 && cr->gbps > 0)
        set_own(m, "rate", xstrfmt("%.1f GFLOP/s, %.1f GB/s", cr->gflops, cr->gbps));
    else if (cr->gflops > 0)
        set_own(m, "rate", xstrfmt("%.1f GFLOP/s", cr->gflops));
    else if (cr->gbps > 0)
        set_own(m, "rate", xstrfmt("%.1f GB/s", cr->gbps));
    else
        tpl_set_md(m, "rate", NO_VALUE);
}

/* A value of an output as the mismatch list prints it: NaN as NaN on every libc. */
static char *fmt_value(double x)
{
    return isnan(x) ? xstrdup("NaN") : xstrfmt("%.7g", x);
}

void set_mismatches(struct tpl_value *m, const struct case_result *cr)
{
    struct tpl_value *ml = tpl_set_list(m, "mismatches");
    for (size_t i = 0; i < cr->n_mismatches; i++) {
        const struct mismatch *mm = &cr->mismatches[i];
        struct tpl_value *mv = tpl_push_map(ml);
        tpl_set_str(mv, "arg", mm->arg);
        tpl_set_num(mv, "n_mismatch", (double)mm->n_mismatch);
        tpl_set_num(mv, "n_total", (double)mm->n_total);
        /* The largest errors are over the finite differences, and an element that differs
         * beyond the tolerance differs by more than 0: none at all means every one of them
         * was NaN (results.json keeps no count of them), and the error is NaN, never 0. */
        bool all_nan = mm->n_mismatch > 0 && !(mm->max_abs > 0) && !(mm->max_rel > 0);
        set_own(mv, "max_abs", all_nan ? xstrdup("NaN") : xstrfmt("%.3g", mm->max_abs));
        set_own(mv, "max_rel", all_nan ? xstrdup("NaN") : xstrfmt("%.3g", mm->max_rel));
        tpl_set_bool(mv, "all_nan", all_nan);
        struct tpl_value *first = tpl_set_list(mv, "first");
        for (int k = 0; k < mm->n_first && k < 5; k++) {
            struct tpl_value *fv = tpl_push_map(first);
            tpl_set_str(fv, "index", mm->first[k].index);
            set_own(fv, "actual", fmt_value(mm->first[k].actual));
            set_own(fv, "expected", fmt_value(mm->first[k].expected));
        }
    }
    tpl_set_bool(m, "has_mismatches", cr->n_mismatches > 0);
}
