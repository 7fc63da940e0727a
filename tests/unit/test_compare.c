/* compare: numpy.allclose semantics element by element and over typed buffers, mismatch
 * statistics, index formatting and the numpy-style summary text. */
#include "grade/compare.h"
#include "base/dtype.h"
#include "base/strbuf.h"

#include <check.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static bool close_with(double a, double e, double rtol, double atol, bool equal_nan)
{
    struct compare_opts o = {rtol, atol, equal_nan, -1};
    return compare_close(a, e, &o);
}

/* Buffers of any dtype, filled through lg_dtype_store like the harness does. */
static void *typed(enum lg_dtype t, const double *v, size_t n)
{
    void *buf = calloc(n ? n : 1, lg_dtype_size(t));
    for (size_t i = 0; i < n; i++)
        lg_dtype_store(t, buf, i, v[i]);
    return buf;
}

static bool compare_typed(enum lg_dtype t, const double *a, const double *e, size_t n, double rtol,
                          double atol, struct mismatch *m)
{
    struct compare_opts o = {rtol, atol, false, -1};
    void *ab = typed(t, a, n), *eb = typed(t, e, n);
    bool ok = compare_buffers(t, ab, eb, n, NULL, 0, &o, m);
    free(ab);
    free(eb);
    return ok;
}

START_TEST(test_nan)
{
    ck_assert(close_with(NAN, NAN, 0, 0, true));
    ck_assert(!close_with(NAN, NAN, 0, 0, false));
    ck_assert(close_with(-NAN, NAN, 0, 0, true)); /* any NaN payload or sign */
    /* A NaN on one side never matches a number, whatever the tolerance or equal_nan. */
    ck_assert(!close_with(NAN, 1.0, 1e300, 1e300, true));
    ck_assert(!close_with(NAN, 1.0, 0, 0, false));
    ck_assert(!close_with(1.0, NAN, 1e300, 1e300, true));
    ck_assert(!close_with(1.0, NAN, 0, 0, false));
    ck_assert(!close_with(NAN, INFINITY, 0, 0, true));
    ck_assert(!close_with(NAN, 0.0, INFINITY, INFINITY, true));
    /* A NaN tolerance accepts nothing that is not equal. */
    ck_assert(!close_with(1.0, 2.0, 0, NAN, false));
    ck_assert(close_with(1.0, 1.0, 0, NAN, false));
}
END_TEST

START_TEST(test_infinities)
{
    ck_assert(close_with(INFINITY, INFINITY, 0, 0, false));
    ck_assert(close_with(-INFINITY, -INFINITY, 0, 0, false));
    ck_assert(!close_with(INFINITY, -INFINITY, 1e300, 1e300, true));
    ck_assert(!close_with(-INFINITY, INFINITY, 1e300, 1e300, true));
    /* An infinite expected never matches a finite actual, and the other way round. */
    ck_assert(!close_with(1e300, INFINITY, 1e300, 1e308, false));
    ck_assert(!close_with(DBL_MAX, INFINITY, 1, DBL_MAX, false));
    ck_assert(!close_with(INFINITY, 1e300, 1e300, 1e308, false));
    ck_assert(!close_with(-INFINITY, -DBL_MAX, 1, DBL_MAX, false));
    /* Stricter than numpy on purpose: not even an infinite tolerance lets inf pass. */
    ck_assert(!close_with(INFINITY, 1.0, 0, INFINITY, false));
    ck_assert(!close_with(1.0, INFINITY, INFINITY, INFINITY, false));
}
END_TEST

START_TEST(test_huge_finite_difference_does_not_pass)
{
    /* DBL_MAX - (-DBL_MAX) overflows to inf: a real difference beyond any finite tolerance. */
    ck_assert(!close_with(DBL_MAX, -DBL_MAX, 0, 1e308, false));
    ck_assert(!close_with(-DBL_MAX, DBL_MAX, 1, 0, false)); /* tol = DBL_MAX < inf */
    ck_assert(close_with(DBL_MAX, -DBL_MAX, 0, INFINITY, false));
    ck_assert(close_with(DBL_MAX, DBL_MAX, 0, 0, false));

    double a[] = {DBL_MAX}, e[] = {-DBL_MAX};
    struct mismatch m;
    ck_assert(!compare_typed(LG_F64, a, e, 1, 0, 1e308, &m));
    ck_assert_int_eq(m.n_mismatch, 1);
    ck_assert(isinf(m.max_abs) && m.max_abs > 0);
    ck_assert(isinf(m.max_rel) && m.max_rel > 0);
}
END_TEST

START_TEST(test_signed_zero)
{
    ck_assert(close_with(-0.0, 0.0, 0, 0, false));
    ck_assert(close_with(0.0, -0.0, 0, 0, false));
    /* Even with a negative tolerance, equal values are close (numpy's "or a == e"). */
    ck_assert(close_with(-0.0, 0.0, 0, -1, false));
    double a[] = {-0.0, 0.0}, e[] = {0.0, -0.0};
    struct mismatch m;
    ck_assert(compare_typed(LG_F64, a, e, 2, 0, 0, &m));
    ck_assert(compare_typed(LG_F32, a, e, 2, 0, 0, &m));
    ck_assert(compare_typed(LG_F16, a, e, 2, 0, 0, &m));
    ck_assert(compare_typed(LG_BF16, a, e, 2, 0, 0, &m));
}
END_TEST

START_TEST(test_subnormals_f64)
{
    const double tm = DBL_TRUE_MIN;
    ck_assert(!close_with(tm, 0, 0, 0, false));
    ck_assert(!close_with(0, tm, 0, 0, false));
    ck_assert(!close_with(-tm, tm, 0, 0, false));
    ck_assert(close_with(tm, tm, 0, 0, false));
    ck_assert(close_with(tm, 0, 0, tm, false));
    ck_assert(!close_with(2 * tm, 0, 0, tm, false));
    /* rtol scales subnormal expected values exactly: 0.5 * 2tm = tm. */
    ck_assert(close_with(3 * tm, 2 * tm, 0.5, 0, false));
    ck_assert(close_with(tm, 2 * tm, 0.5, 0, false));
    ck_assert(!close_with(4 * tm, 2 * tm, 0.5, 0, false));
    ck_assert(!close_with(0, 2 * tm, 0.5, 0, false));
    /* Straddling the normal range. */
    ck_assert(close_with(DBL_MIN, nextafter(DBL_MIN, 0), 0, tm, false));
    ck_assert(!close_with(DBL_MIN, nextafter(DBL_MIN, 0), 0, 0, false));
}
END_TEST

START_TEST(test_subnormals_f32)
{
    const double tm = FLT_TRUE_MIN; /* exactly representable in double */
    struct mismatch m;
    double a1[] = {tm}, e1[] = {0};
    ck_assert(!compare_typed(LG_F32, a1, e1, 1, 0, 0, &m));
    ck_assert(m.max_abs == tm);
    ck_assert(isinf(m.max_rel));
    ck_assert(compare_typed(LG_F32, a1, e1, 1, 0, tm, &m));
    double a2[] = {2 * tm}, e2[] = {0};
    ck_assert(!compare_typed(LG_F32, a2, e2, 1, 0, tm, &m));
    /* rtol = 0.5 around expected 2 * FLT_TRUE_MIN: 3x passes, 4x fails, by exactly one ulp. */
    double a3[] = {3 * tm, 4 * tm, tm, 0}, e3[] = {2 * tm, 2 * tm, 2 * tm, 2 * tm};
    ck_assert(!compare_typed(LG_F32, a3, e3, 4, 0.5, 0, &m));
    ck_assert_int_eq(m.n_mismatch, 2);
    ck_assert_str_eq(m.first[0].index, "[1]");
    ck_assert_str_eq(m.first[1].index, "[3]");
    ck_assert(m.max_abs == 2 * tm);
    ck_assert(m.max_rel == 1.0);
    /* The buffers really hold subnormal floats, not zeros flushed on store. */
    float f[1];
    lg_dtype_store(LG_F32, f, 0, tm);
    ck_assert(f[0] == FLT_TRUE_MIN && f[0] > 0);
}
END_TEST

START_TEST(test_exact_boundary)
{
    /* Every constant below is a short binary fraction, so atol + rtol*|e| and |a - e| are
     * computed exactly and the boundary is the boundary. */
    ck_assert(close_with(1.5, 1.0, 0, 0.5, false));
    ck_assert(!close_with(nextafter(1.5, 2), 1.0, 0, 0.5, false));
    /* Below the expected value the neighbour must keep |a - e| exact too: 1 - (0.5 - 2^-54)
     * would round back to 0.5, while 2 - (1.5 - 2^-52) = 0.5 + 2^-52 is exact. */
    ck_assert(close_with(1.5, 2.0, 0, 0.5, false));
    ck_assert(!close_with(nextafter(1.5, 0), 2.0, 0, 0.5, false));

    ck_assert(close_with(5.0, 4.0, 0.25, 0, false));
    ck_assert(!close_with(nextafter(5.0, 6), 4.0, 0.25, 0, false));
    ck_assert(close_with(-5.0, -4.0, 0.25, 0, false));
    ck_assert(!close_with(nextafter(-5.0, -6), -4.0, 0.25, 0, false));

    /* Both terms: 0.125 + 0.25 * 2 = 0.625. */
    ck_assert(close_with(2.625, 2.0, 0.25, 0.125, false));
    ck_assert(!close_with(nextafter(2.625, 3), 2.0, 0.25, 0.125, false));
    ck_assert(close_with(1.375, 2.0, 0.25, 0.125, false));
    ck_assert(!close_with(nextafter(1.375, 0), 2.0, 0.25, 0.125, false));

    /* The same boundary in f32 buffers: 1 + 2^-10 vs 1 with atol 2^-10, then the next float. */
    struct mismatch m;
    double e[] = {1.0, 1.0};
    double a[] = {1.0 + 0x1p-10, (double)nextafterf(1.0f + 0x1p-10f, 2.0f)};
    ck_assert(!compare_typed(LG_F32, a, e, 2, 0, 0x1p-10, &m));
    ck_assert_int_eq(m.n_mismatch, 1);
    ck_assert_str_eq(m.first[0].index, "[1]");
    ck_assert(m.max_abs == 0x1p-10 + 0x1p-23);

    /* f16: 1 + 2^-10 is the next half after 1; with atol 2^-10 it passes, 1 + 2^-9 fails. */
    double ah[] = {1.0 + 0x1p-10, 1.0 + 0x1p-9};
    ck_assert(!compare_typed(LG_F16, ah, e, 2, 0, 0x1p-10, &m));
    ck_assert_int_eq(m.n_mismatch, 1);
    ck_assert_str_eq(m.first[0].index, "[1]");
}
END_TEST

START_TEST(test_asymmetric)
{
    /* |1 - 2| = 1 <= 0.5 * |2| but not <= 0.5 * |1|: only the expected value scales. */
    ck_assert(close_with(1.0, 2.0, 0.5, 0, false));
    ck_assert(!close_with(2.0, 1.0, 0.5, 0, false));
    double a[] = {1.0}, e[] = {2.0};
    struct mismatch m;
    ck_assert(compare_typed(LG_F64, a, e, 1, 0.5, 0, &m));
    ck_assert(!compare_typed(LG_F64, e, a, 1, 0.5, 0, &m));
    ck_assert(m.max_rel == 1.0);
}
END_TEST

START_TEST(test_every_dtype)
{
    const enum lg_dtype types[] = {LG_F64, LG_F32, LG_F16, LG_BF16, LG_I64,
                                   LG_I32, LG_I16, LG_I8,  LG_U8};
    /* Values every type holds exactly (bf16 keeps 8 significant bits: 101 fits). */
    const double e[] = {0, 1, 2, 3, 100, 7};
    const double a[] = {0, 1, 2, 3, 101, 7};
    for (size_t k = 0; k < sizeof(types) / sizeof(types[0]); k++) {
        struct mismatch m;
        memset(&m, 0, sizeof(m));
        snprintf(m.arg, sizeof(m.arg), "untouched");
        ck_assert_msg(compare_typed(types[k], e, e, 6, 0, 0, &m), "%s", lg_dtype_name(types[k]));
        ck_assert_int_eq(m.n_total, 6);
        ck_assert_int_eq(m.n_mismatch, 0);
        ck_assert_msg(!compare_typed(types[k], a, e, 6, 0, 0, &m), "%s", lg_dtype_name(types[k]));
        ck_assert_int_eq(m.n_mismatch, 1);
        ck_assert_int_eq(m.n_first, 1);
        ck_assert_str_eq(m.first[0].index, "[4]");
        ck_assert(m.first[0].actual == 101 && m.first[0].expected == 100);
        ck_assert(m.max_abs == 1 && m.max_rel == 0.01);
        ck_assert_str_eq(m.arg, "untouched");
        /* atol 1 covers it; rtol 0.01 * 100 = 1 does too, 0.005 does not. */
        ck_assert(compare_typed(types[k], a, e, 6, 0, 1, &m));
        ck_assert(compare_typed(types[k], a, e, 6, 0.01, 0, &m));
        ck_assert(!compare_typed(types[k], a, e, 6, 0.005, 0, &m));
    }
}
END_TEST

START_TEST(test_i64_exact_beyond_double)
{
    struct compare_opts exact = {0, 0, false, -1}, one = {0, 1, false, -1};
    struct mismatch m;
    /* 2^53 + 1 and 2^53 are the same double: the comparison must not go through double. */
    int64_t a[] = {(INT64_C(1) << 53) + 1}, e[] = {INT64_C(1) << 53};
    ck_assert(!compare_buffers(LG_I64, a, e, 1, NULL, 0, &exact, &m));
    ck_assert(m.max_abs == 1);
    ck_assert(compare_buffers(LG_I64, a, e, 1, NULL, 0, &one, &m));
    /* The widest difference: 2^64 - 1, no overflow. */
    int64_t lo[] = {INT64_MIN}, hi[] = {INT64_MAX};
    struct compare_opts wide = {0, 1e18, false, -1}, wider = {0, 2e19, false, -1};
    ck_assert(!compare_buffers(LG_I64, lo, hi, 1, NULL, 0, &wide, &m));
    ck_assert(m.max_abs == 0x1p64);
    ck_assert(compare_buffers(LG_I64, lo, hi, 1, NULL, 0, &wider, &m));
    /* rtol on big values: |e| * 2^-10 with e = 2^62 is 2^52, so 2^52 passes, 2^52 + 1 not. */
    int64_t big[] = {INT64_C(1) << 62};
    int64_t ok[] = {(INT64_C(1) << 62) + (INT64_C(1) << 52)};
    int64_t bad[] = {(INT64_C(1) << 62) + (INT64_C(1) << 52) + 1};
    struct compare_opts rel = {0x1p-10, 0, false, -1};
    ck_assert(compare_buffers(LG_I64, ok, big, 1, NULL, 0, &rel, &m));
    ck_assert(!compare_buffers(LG_I64, bad, big, 1, NULL, 0, &rel, &m));
}
END_TEST

START_TEST(test_index_formatting)
{
    double e[24], a[24];
    for (int i = 0; i < 24; i++)
        e[i] = a[i] = i;
    a[7] = -1;
    a[23] = -1;
    struct compare_opts o = {0, 0, false, -1};
    struct mismatch m;

    long shape2[] = {6, 4};
    ck_assert(!compare_buffers(LG_F64, a, e, 24, shape2, 2, &o, &m));
    ck_assert_int_eq(m.n_first, 2);
    ck_assert_str_eq(m.first[0].index, "[1, 3]");
    ck_assert_str_eq(m.first[1].index, "[5, 3]");

    long shape3[] = {2, 3, 4};
    ck_assert(!compare_buffers(LG_F64, a, e, 24, shape3, 3, &o, &m));
    ck_assert_str_eq(m.first[0].index, "[0, 1, 3]");
    ck_assert_str_eq(m.first[1].index, "[1, 2, 3]");

    long shape1[] = {24};
    ck_assert(!compare_buffers(LG_F64, a, e, 24, shape1, 1, &o, &m));
    ck_assert_str_eq(m.first[1].index, "[23]");

    ck_assert(!compare_buffers(LG_F64, a, e, 24, NULL, 0, &o, &m));
    ck_assert_str_eq(m.first[0].index, "[7]");
    ck_assert_str_eq(m.first[1].index, "[23]");

    /* A shape smaller than the buffer: the first index keeps counting. */
    long small[] = {2, 3};
    ck_assert(!compare_buffers(LG_F64, a, e, 24, small, 2, &o, &m));
    ck_assert_str_eq(m.first[0].index, "[2, 1]");
    ck_assert_str_eq(m.first[1].index, "[7, 2]");

    /* An unusable shape falls back to flat indices. */
    long zero[] = {0, 4};
    ck_assert(!compare_buffers(LG_F64, a, e, 24, zero, 2, &o, &m));
    ck_assert_str_eq(m.first[0].index, "[7]");

    /* Only the first five mismatches are kept, all are counted. */
    for (int i = 0; i < 24; i++)
        a[i] = e[i] + 1;
    ck_assert(!compare_buffers(LG_F64, a, e, 24, shape2, 2, &o, &m));
    ck_assert_int_eq(m.n_mismatch, 24);
    ck_assert_int_eq(m.n_first, 5);
    ck_assert_str_eq(m.first[4].index, "[1, 0]");
}
END_TEST

START_TEST(test_summary_text)
{
    const size_t n = 65536;
    double *e = malloc(n * sizeof(double)), *a = malloc(n * sizeof(double));
    for (size_t i = 0; i < n; i++)
        e[i] = a[i] = 1.0;
    e[3] = 2.0;
    a[3] = 1.5; /* abs 0.5, rel 0.25 */
    e[1000] = 1.75;
    a[1000] = 2.0; /* abs 0.25, rel 1/7 */
    a[65535] = NAN;
    void *ab = typed(LG_F32, a, n), *eb = typed(LG_F32, e, n);
    long shape[] = {256, 256};
    struct compare_opts o = {0, 0, false, -1};
    struct mismatch m;
    ck_assert(!compare_buffers(LG_F32, ab, eb, n, shape, 2, &o, &m));
    struct strbuf sb = STRBUF_INIT;
    compare_format(&m, &sb);
    ck_assert_str_eq(sb.buf, "Mismatched elements: 3 / 65536 (0.00458%)\n"
                             "Max absolute difference among violations: 0.5\n"
                             "Max relative difference among violations: 0.25\n"
                             "First mismatches (index: actual vs expected):\n"
                             "  [0, 3]: 1.5 vs 2\n"
                             "  [3, 232]: 2 vs 1.75\n"
                             "  [255, 255]: nan vs 1\n");
    strbuf_release(&sb);
    free(ab);
    free(eb);
    free(a);
    free(e);
}
END_TEST

START_TEST(test_summary_special_values)
{
    /* Expected 0 makes the relative difference infinite; infinities print as such. */
    double a[] = {0.1, INFINITY, -INFINITY, -NAN}, e[] = {0, 1, 2, 3};
    struct mismatch m;
    ck_assert(!compare_typed(LG_F64, a, e, 4, 0, 0, &m));
    struct strbuf sb = STRBUF_INIT;
    compare_format(&m, &sb);
    ck_assert_str_eq(sb.buf, "Mismatched elements: 4 / 4 (100%)\n"
                             "Max absolute difference among violations: 0.1\n"
                             "Max relative difference among violations: inf\n"
                             "First mismatches (index: actual vs expected):\n"
                             "  [0]: 0.1 vs 0\n"
                             "  [1]: inf vs 1\n"
                             "  [2]: -inf vs 2\n"
                             "  [3]: nan vs 3\n");
    strbuf_release(&sb);
}
END_TEST

START_TEST(test_only_nonfinite_violations_leave_maxima_zero)
{
    /* grade.c tells "never written" (NaN poison) from wrong values by both maxima being 0. */
    double a[] = {NAN, 2, NAN}, e[] = {1, 2, 3};
    struct mismatch m;
    ck_assert(!compare_typed(LG_F32, a, e, 3, 1e-3, 1e-3, &m));
    ck_assert_int_eq(m.n_mismatch, 2);
    ck_assert(m.max_abs == 0 && m.max_rel == 0);
    ck_assert(isnan(m.first[0].actual));
}
END_TEST

START_TEST(test_empty)
{
    struct compare_opts o = {0, 0, false, -1};
    struct mismatch m;
    memset(&m, 0xff, sizeof(m));
    snprintf(m.arg, sizeof(m.arg), "C");
    double dummy = 0;
    ck_assert(compare_buffers(LG_F64, &dummy, &dummy, 0, NULL, 0, &o, &m));
    ck_assert_int_eq(m.n_total, 0);
    ck_assert_int_eq(m.n_mismatch, 0);
    ck_assert_int_eq(m.n_first, 0);
    ck_assert(m.max_abs == 0 && m.max_rel == 0);
    ck_assert_str_eq(m.arg, "C");
    struct strbuf sb = STRBUF_INIT;
    compare_format(&m, &sb);
    ck_assert_str_eq(sb.buf, "Mismatched elements: 0 / 0 (0%)\n"
                             "Max absolute difference among violations: 0\n"
                             "Max relative difference among violations: 0\n");
    strbuf_release(&sb);
    /* m may be NULL when only the verdict matters. */
    double x[] = {1, 2}, y[] = {1, 3};
    ck_assert(!compare_buffers(LG_F64, x, y, 2, NULL, 0, &o, NULL));
    ck_assert(compare_buffers(LG_F64, x, x, 2, NULL, 0, &o, NULL));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("compare");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_nan);
    tcase_add_test(tc, test_infinities);
    tcase_add_test(tc, test_huge_finite_difference_does_not_pass);
    tcase_add_test(tc, test_signed_zero);
    tcase_add_test(tc, test_subnormals_f64);
    tcase_add_test(tc, test_subnormals_f32);
    tcase_add_test(tc, test_exact_boundary);
    tcase_add_test(tc, test_asymmetric);
    tcase_add_test(tc, test_every_dtype);
    tcase_add_test(tc, test_i64_exact_beyond_double);
    tcase_add_test(tc, test_index_formatting);
    tcase_add_test(tc, test_summary_text);
    tcase_add_test(tc, test_summary_special_values);
    tcase_add_test(tc, test_only_nonfinite_violations_leave_maxima_zero);
    tcase_add_test(tc, test_empty);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
