/* stats: numpy-compatible quantiles, mean, sample stddev, relative standard error, timing
 * summaries and the paired-ratio median with its order-statistic interval. The expected
 * values are what numpy gives (np.median, np.quantile, np.std(ddof=1)), worked out by hand. */
#include "base/stats.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* 1 1 2 3 4 5 6 9 once sorted; the sum is 31. */
static const double pi_digits[] = {3, 1, 4, 1, 5, 9, 2, 6};
#define N_PI (sizeof(pi_digits) / sizeof(pi_digits[0]))

START_TEST(test_median_and_quantiles)
{
    ck_assert(stats_median(pi_digits, N_PI) == 3.5);
    ck_assert(stats_quantile(pi_digits, N_PI, 0.25) == 1.75); /* position 1.75 */
    ck_assert(stats_quantile(pi_digits, N_PI, 0.75) == 5.25); /* position 5.25 */
    ck_assert(stats_quantile(pi_digits, N_PI, 0.5) == 3.5);
    ck_assert(stats_quantile(pi_digits, N_PI, 0) == 1);
    ck_assert(stats_quantile(pi_digits, N_PI, 1) == 9);
    ck_assert(stats_quantile(pi_digits, N_PI, 0.1) == 1); /* between the two 1s */
    ck_assert_double_eq_tol(stats_quantile(pi_digits, N_PI, 0.9), 6.9, 1e-12);
    /* Odd count: the middle element; one element: itself for every q. */
    const double odd[] = {5, 1, 3};
    ck_assert(stats_median(odd, 3) == 3);
    ck_assert(stats_quantile(odd, 3, 0.25) == 2);
    const double one[] = {7.25};
    ck_assert(stats_median(one, 1) == 7.25);
    ck_assert(stats_quantile(one, 1, 0.9) == 7.25);
    /* Two elements: plain interpolation. */
    const double two[] = {10, 20};
    ck_assert(stats_median(two, 2) == 15);
    ck_assert(stats_quantile(two, 2, 0.75) == 17.5);
}
END_TEST

START_TEST(test_degenerate_inputs)
{
    ck_assert(isnan(stats_median(NULL, 0)));
    ck_assert(isnan(stats_quantile(NULL, 0, 0.5)));
    ck_assert(isnan(stats_mean(NULL, 0)));
    ck_assert(isnan(stats_stddev(NULL, 0)));
    const double one[] = {4};
    ck_assert(isnan(stats_stddev(one, 1))); /* numpy: std(ddof=1) of one sample is nan */
    ck_assert(isinf(stats_rse(one, 1)));
    const double zero_mean[] = {-1, 1};
    ck_assert(isinf(stats_rse(zero_mean, 2)));
    /* A NaN sample makes quantiles NaN, as in numpy, instead of sorting somewhere. */
    const double with_nan[] = {1, NAN, 3};
    ck_assert(isnan(stats_median(with_nan, 3)));
    ck_assert(isnan(stats_quantile(with_nan, 3, 0)));
    ck_assert(isnan(stats_quantile(pi_digits, N_PI, NAN)));
}
END_TEST

START_TEST(test_mean_stddev_rse)
{
    ck_assert(stats_mean(pi_digits, N_PI) == 3.875);
    /* Squared deviations from 3.875 sum to 52.875: sqrt(52.875 / 7). */
    ck_assert_double_eq_tol(stats_stddev(pi_digits, N_PI), 2.748376143938713, 1e-14);
    ck_assert_double_eq_tol(stats_rse(pi_digits, N_PI), 0.25076069788779337, 1e-15);
    /* 5 1 3: mean 3, squared deviations 4 + 4 + 0, sample variance 4: stddev exactly 2. */
    const double odd[] = {5, 1, 3};
    ck_assert(stats_mean(odd, 3) == 3);
    ck_assert(stats_stddev(odd, 3) == 2);
    ck_assert_double_eq_tol(stats_rse(odd, 3), 0.3849001794597506, 1e-15);
    /* Far from zero, a one-pass formula would cancel to garbage; two passes do not. */
    const double far[] = {1e9 + 5, 1e9 + 1, 1e9 + 3};
    ck_assert(stats_stddev(far, 3) == 2);
    /* The relative error is over |mean|. */
    const double neg[] = {-5, -1, -3};
    ck_assert_double_eq_tol(stats_rse(neg, 3), 0.3849001794597506, 1e-15);
}
END_TEST

START_TEST(test_timing)
{
    struct timing t;
    memset(&t, 0x55, sizeof(t));
    stats_timing(pi_digits, N_PI, &t);
    ck_assert(t.valid);
    ck_assert_int_eq(t.samples, 8);
    ck_assert(t.median_ms == 3.5);
    ck_assert(t.min_ms == 1);
    ck_assert(t.q1_ms == 1.75);
    ck_assert(t.q3_ms == 5.25);
    ck_assert(t.mean_ms == 3.875);
    ck_assert_double_eq_tol(t.stddev_ms, 2.748376143938713, 1e-14);
    ck_assert_double_eq_tol(t.rse, 0.25076069788779337, 1e-15);

    const double one[] = {0.5};
    stats_timing(one, 1, &t);
    ck_assert(t.valid);
    ck_assert_int_eq(t.samples, 1);
    ck_assert(t.median_ms == 0.5 && t.min_ms == 0.5 && t.q1_ms == 0.5 && t.q3_ms == 0.5);
    ck_assert(t.mean_ms == 0.5);
    ck_assert(isnan(t.stddev_ms)); /* unknown spread, not zero */
    ck_assert(isinf(t.rse));

    memset(&t, 0x55, sizeof(t));
    stats_timing(NULL, 0, &t);
    ck_assert(!t.valid);
    ck_assert_int_eq(t.samples, 0);
    ck_assert(t.median_ms == 0 && t.min_ms == 0 && t.mean_ms == 0 && t.rse == 0);
}
END_TEST

START_TEST(test_inputs_untouched)
{
    double x[N_PI], copy[N_PI], b[N_PI];
    memcpy(x, pi_digits, sizeof(x));
    memcpy(copy, pi_digits, sizeof(x));
    for (size_t i = 0; i < N_PI; i++)
        b[i] = 1;
    struct timing t;
    double lo, hi;
    stats_median(x, N_PI);
    stats_quantile(x, N_PI, 0.3);
    stats_mean(x, N_PI);
    stats_stddev(x, N_PI);
    stats_rse(x, N_PI);
    stats_timing(x, N_PI, &t);
    stats_paired_ratio(x, b, N_PI, &lo, &hi);
    ck_assert(memcmp(x, copy, sizeof(x)) == 0);
    for (size_t i = 0; i < N_PI; i++)
        ck_assert(b[i] == 1);
}
END_TEST

START_TEST(test_paired_ratio_interval)
{
    /* Ratios 1..100 in scrambled order: median 50.5; ranks floor(50 - 9.8) = 40 and
     * ceil(1 + 50 + 9.8) = 61. */
    double a[100], b[100], lo, hi;
    for (int i = 0; i < 100; i++) {
        int r = (i * 37) % 100 + 1; /* 37 is coprime with 100: a permutation of 1..100 */
        b[i] = 0.25 * (i + 1);
        a[i] = r * b[i];
    }
    ck_assert(stats_paired_ratio(a, b, 100, &lo, &hi) == 50.5);
    ck_assert(lo == 40);
    ck_assert(hi == 61);

    /* n = 16: floor(8 - 3.92) = 4, ceil(1 + 8 + 3.92) = 13. */
    for (int i = 0; i < 16; i++) {
        b[i] = 2;
        a[i] = 2.0 * (16 - i);
    }
    ck_assert(stats_paired_ratio(a, b, 16, &lo, &hi) == 8.5);
    ck_assert(lo == 4);
    ck_assert(hi == 13);

    /* n = 5: the ranks clamp to the whole sample. */
    const double a5[] = {10, 2, 8, 4, 6}, b5[] = {1, 1, 1, 1, 1};
    ck_assert(stats_paired_ratio(a5, b5, 5, &lo, &hi) == 6);
    ck_assert(lo == 2);
    ck_assert(hi == 10);

    /* One pair, and NULL interval pointers. */
    const double a1[] = {3}, b1[] = {4};
    ck_assert(stats_paired_ratio(a1, b1, 1, &lo, &hi) == 0.75);
    ck_assert(lo == 0.75 && hi == 0.75);
    ck_assert(stats_paired_ratio(a1, b1, 1, NULL, NULL) == 0.75);
}
END_TEST

START_TEST(test_paired_ratio_degenerate)
{
    double lo = 0, hi = 0;
    ck_assert(isnan(stats_paired_ratio(NULL, NULL, 0, &lo, &hi)));
    ck_assert(isnan(lo) && isnan(hi));
    /* x/0 is infinite and sorts last; 0/0 and NaN pairs are left out. */
    const double a[] = {1, 0, 2, 3, NAN}, b[] = {0, 0, 1, 1, 1};
    ck_assert(stats_paired_ratio(a, b, 5, &lo, &hi) == 3);
    ck_assert(lo == 2);
    ck_assert(isinf(hi));
    const double z[] = {0, NAN};
    ck_assert(isnan(stats_paired_ratio(z, z, 2, &lo, &hi)));
    ck_assert(isnan(lo) && isnan(hi));
}
END_TEST

/* Whoever goes first in a pair pays 20%: the plain median follows the coin flips of the orders,
 * the stratified ratio does not. */
START_TEST(test_paired_ratio_ordered)
{
    double a[20], b[20], lo, hi;
    char order[21];
    for (int first0 = 3; first0 <= 17; first0 += 7) {
        for (int i = 0; i < 20; i++) {
            bool stu_first = i < first0;
            order[i] = stu_first ? '0' : '1';
            double jitter = 1 + 0.001 * (i % 5);
            a[i] = (stu_first ? 1.2 : 1.0) * jitter;
            b[i] = (stu_first ? 1.0 : 1.2);
        }
        order[20] = '\0';
        double plain = stats_paired_ratio(a, b, 20, NULL, NULL);
        double r = stats_paired_ratio_ordered(a, b, order, 20, &lo, &hi);
        ck_assert_msg(fabs(r - 1.0) < 0.01, "%d stu-first pairs: ratio %g", first0, r);
        ck_assert(lo <= r && r <= hi && hi / lo < 1.05);
        /* The plain median sits in the larger group (1.2 or 1/1.2), or between the two. */
        if (first0 != 10)
            ck_assert(fabs(plain - 1.0) > 0.15);
    }
    /* Too few of one order, no order, or an order string that does not match: the plain one. */
    for (int i = 0; i < 20; i++)
        order[i] = i < 2 ? '0' : '1';
    double plo, phi, plain = stats_paired_ratio(a, b, 20, &plo, &phi);
    ck_assert(stats_paired_ratio_ordered(a, b, order, 20, &lo, &hi) == plain);
    ck_assert(lo == plo && hi == phi);
    ck_assert(stats_paired_ratio_ordered(a, b, NULL, 20, &lo, &hi) == plain);
    ck_assert(stats_paired_ratio_ordered(a, b, "0101", 20, &lo, &hi) == plain);
    order[5] = 'x';
    ck_assert(stats_paired_ratio_ordered(a, b, order, 20, &lo, &hi) == plain);
}
END_TEST

/* Blocks of two pairs, the first order of each drawn (here: alternating per block). stu and
 * ref are the two sides' times in their pairs; pos_first scales a side's time when it runs
 * first, and gain_second divides the function's when it runs second. */
static void make_pairs(double *a, double *b, char *order, int n, double pos_first_stu,
                       double pos_first_ref, double gain_second)
{
    for (int i = 0; i < n; i++) {
        int block = i / 2;
        bool stu_first = (i % 2 == 0) == (block % 2 == 0);
        double jitter = 1 + 0.002 * ((i * 7) % 5);
        order[i] = stu_first ? '0' : '1';
        a[i] = (stu_first ? 2.0 * pos_first_stu : 2.0 / gain_second) * jitter;
        b[i] = stu_first ? 1.0 : 1.0 * pos_first_ref;
    }
    order[n] = '\0';
}

/* A penalty for going first paid by both sides cancels in the disagreement, however large
 * (while the two orders' ratios sit apart by its square); a gain when second, or a side
 * more sensitive to its position, does not. */
START_TEST(test_positions)
{
    double a[40], b[40];
    char order[41];
    struct stats_positions p;
    make_pairs(a, b, order, 40, 1.5, 1.5, 1.0);
    ck_assert_int_eq(stats_positions(a, b, order, 40, &p), 0);
    ck_assert_uint_eq(p.blocks, 20);
    ck_assert_msg(fabs(p.disagreement - 1) < 0.01, "disagreement %g", p.disagreement);
    ck_assert(p.disagreement_lo <= 1.0 + 0.01 && p.disagreement_hi >= 1.0 - 0.01);
    ck_assert(p.shift_lo <= 1.0 + 0.01 && p.shift_hi >= 1.0 - 0.01);
    ck_assert(fabs(p.first - 2) < 0.02 && fabs(p.second - 2) < 0.02);
    double r0 = stats_paired_ratio_ordered(a, b, order, 40, NULL, NULL);
    ck_assert(fabs(r0 - 2) < 0.02);
    /* The function twice as fast when it runs second: a gain in one order only. */
    make_pairs(a, b, order, 40, 1.0, 1.0, 2.0);
    ck_assert_int_eq(stats_positions(a, b, order, 40, &p), 0);
    ck_assert_msg(fabs(p.disagreement - 2) < 0.03, "disagreement %g", p.disagreement);
    ck_assert(p.disagreement_lo > 1.9);
    ck_assert(fabs(p.first - 2) < 0.02 && fabs(p.second - 1) < 0.01);
    ck_assert(fabs(p.shift - 2) < 0.05 && p.shift_lo > 1.9);
    /* The geometric mean of the orders credits half of it. */
    ck_assert(fabs(stats_paired_ratio_ordered(a, b, order, 40, NULL, NULL) - sqrt(2)) < 0.02);
    /* The reference slower only when it runs first: the disagreement the other way. */
    make_pairs(a, b, order, 40, 1.0, 1.6, 1.0);
    ck_assert_int_eq(stats_positions(a, b, order, 40, &p), 0);
    ck_assert(fabs(p.disagreement - 1 / 1.6) < 0.01 && p.disagreement_hi < 0.7);
}
END_TEST

/* The Hodges-Lehmann shift and its Mann-Whitney interval: a few stray values leave it where
 * it was, where they take a median over a few blocks' interval away. */
START_TEST(test_shift)
{
    double x[20], y[20], lo, hi;
    for (int i = 0; i < 20; i++) {
        x[i] = 2.0 + 0.01 * (i % 7);
        y[i] = 0.0 + 0.01 * ((i * 3) % 7);
    }
    double s = stats_shift(x, 20, y, 20, &lo, &hi);
    ck_assert(fabs(s - 2) < 0.01 && lo > 1.95 && hi < 2.05 && lo <= s && s <= hi);
    x[3] = -50;
    x[11] = 100;
    y[5] = 70;
    s = stats_shift(x, 20, y, 20, &lo, &hi);
    ck_assert_msg(fabs(s - 2) < 0.02 && lo > 1.9 && hi < 2.1, "shift %g (%g-%g)", s, lo, hi);
    ck_assert(isnan(stats_shift(x, 2, y, 20, &lo, &hi)) && isnan(lo) && isnan(hi));
    /* Thinned past STATS_SHIFT_MAX, the answer the same. */
    static double big_x[3000], big_y[2500];
    for (int i = 0; i < 3000; i++)
        big_x[i] = 1 + 0.001 * (i % 11);
    for (int i = 0; i < 2500; i++)
        big_y[i] = 0.001 * (i % 13);
    s = stats_shift(big_x, 3000, big_y, 2500, &lo, &hi);
    ck_assert(fabs(s - 1) < 0.01 && lo <= s && s <= hi);
}
END_TEST

/* Only whole blocks of opposite orders count; none, or no order, is no answer. */
START_TEST(test_positions_blocks)
{
    double a[9], b[9];
    char order[10];
    struct stats_positions p;
    make_pairs(a, b, order, 9, 1.0, 1.0, 1.0);
    ck_assert_int_eq(stats_positions(a, b, order, 9, &p), 0);
    ck_assert_uint_eq(p.blocks, 4); /* the odd pair out */
    order[2] = order[3];            /* a block of one order: left out */
    ck_assert_int_eq(stats_positions(a, b, order, 9, &p), 0);
    ck_assert_uint_eq(p.blocks, 3);
    ck_assert_int_eq(stats_positions(a, b, order, 1, &p), -1);
    ck_assert(isnan(p.disagreement) && isnan(p.first) && p.blocks == 0);
    ck_assert_int_eq(stats_positions(a, b, NULL, 9, &p), -1);
    ck_assert_int_eq(stats_positions(a, b, "01", 9, &p), -1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("stats");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_median_and_quantiles);
    tcase_add_test(tc, test_degenerate_inputs);
    tcase_add_test(tc, test_mean_stddev_rse);
    tcase_add_test(tc, test_timing);
    tcase_add_test(tc, test_inputs_untouched);
    tcase_add_test(tc, test_paired_ratio_interval);
    tcase_add_test(tc, test_paired_ratio_degenerate);
    tcase_add_test(tc, test_paired_ratio_ordered);
    tcase_add_test(tc, test_positions);
    tcase_add_test(tc, test_positions_blocks);
    tcase_add_test(tc, test_shift);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
