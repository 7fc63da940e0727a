/* When a timed series stops (grader/harness/stop.h): its precision is the robust standard error
 * of the estimate the grader makes, its band the grader's own interval, and the pairs, target
 * and budget end it as the rule says. */
#include "harness/stop.c"

#include "base/stats.h"
#include "spec/spec.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>

/* The samples of a series whose pairs' log-ratios spread normally around log(center), sd
 * `spread`, orders alternating by blocks: a deterministic stand-in for a timed series. */
static void normal_pairs(double *stu, double *ref, char *order, int n, double center, double spread)
{
    for (int i = 0; i < n; i++) {
        /* Box-Muller on a fixed low-discrepancy sequence: the same samples every run. */
        double u1 = (i * 0.618033988749895 + 0.1) - floor(i * 0.618033988749895 + 0.1);
        double u2 = (i * 0.414213562373095 + 0.3) - floor(i * 0.414213562373095 + 0.3);
        double z = sqrt(-2 * log(u1 > 0 ? u1 : 1e-9)) * cos(2 * M_PI * u2);
        ref[i] = 2.0;
        stu[i] = 2.0 * center * exp(spread * z);
        order[i] = (i / 2 + i) % 2 ? '1' : '0';
    }
    order[n] = '\0';
}

START_TEST(test_identical_ratios_have_no_width)
{
    double stu[12], ref[12];
    for (int i = 0; i < 12; i++)
        stu[i] = 2 * (ref[i] = 1 + i);
    ck_assert_double_eq(lg_stop_precision(stu, ref, "011001100110", 12, true), 0);
}
END_TEST

/* The robust standard error follows the spread of the pairs and falls as their root: four
 * times the pairs, half the width; an outlier moves it no more than any other pair. */
START_TEST(test_precision_is_the_robust_standard_error)
{
    enum { N = 400 };
    double stu[N], ref[N];
    char order[N + 1];
    normal_pairs(stu, ref, order, N, 1.0, 0.05);
    double w100 = lg_stop_precision(stu, ref, order, 100, true);
    double w400 = lg_stop_precision(stu, ref, order, N, true);
    /* sd 0.05, a median's standard error 1.2533 sd / sqrt(n / 2) per order, halved by the
     * mean of two: at 400 pairs 1.96 * 1.2533 * 0.05 / sqrt(200) / sqrt(2) = 0.61%. */
    ck_assert_double_eq_tol(w400, 0.0061, 0.0012);
    ck_assert_double_eq_tol(w100 / w400, 2, 0.35);
    double before = lg_stop_precision(stu, ref, order, 100, true);
    stu[7] = 1000 * ref[7];
    ck_assert_double_eq_tol(lg_stop_precision(stu, ref, order, 100, true), before, before * 0.1);
}
END_TEST

START_TEST(test_too_few_for_a_precision)
{
    double stu[12], ref[12];
    char order[13];
    normal_pairs(stu, ref, order, 12, 1.0, 0.05);
    ck_assert(isinf(lg_stop_precision(stu, ref, order, 5, true)));
    ck_assert(isinf(lg_stop_precision(stu, NULL, NULL, 2, false)));
    ck_assert(isinf(lg_stop_precision(stu, ref, NULL, 12, true))); /* no order: none */
    for (int i = 0; i < 12; i++)
        order[i] = i < 10 ? '0' : '1';
    ck_assert(isinf(lg_stop_precision(stu, ref, order, 12, true))); /* two of one order */
}
END_TEST

/* A pair without a ratio (a time of zero, below the clock's resolution) says nothing. */
START_TEST(test_pairs_without_a_ratio_left_out)
{
    double stu[14], ref[14];
    char order[15];
    normal_pairs(stu, ref, order, 12, 1.0, 0.05);
    double w = lg_stop_precision(stu, ref, order, 12, true);
    stu[12] = ref[12] = 0;
    stu[13] = 5, ref[13] = 0;
    order[12] = '0', order[13] = '1', order[14] = '\0';
    ck_assert_double_eq_tol(lg_stop_precision(stu, ref, order, 14, true), w, 1e-12);
}
END_TEST

/* The interval is the grader's own (base/stats.h), to the bit, whatever the pairs. */
START_TEST(test_interval_is_the_graders)
{
    enum { N = 41 };
    double stu[N], ref[N];
    char order[N + 1];
    normal_pairs(stu, ref, order, N, 1.3, 0.2);
    for (int n = 1; n <= N; n += 4) {
        char o[N + 1];
        memcpy(o, order, (size_t)n);
        o[n] = '\0';
        double lo, hi, glo, ghi;
        ck_assert(lg_stop_interval(stu, ref, o, n, &lo, &hi));
        stats_paired_ratio_ordered(stu, ref, o, (size_t)n, &glo, &ghi);
        ck_assert_double_eq(lo, glo);
        ck_assert_double_eq(hi, ghi);
    }
}
END_TEST

START_TEST(test_bands)
{
    struct perf_spec p = {.points = 2, .full_at = 1.2, .zero_at = 10};
    double edges[PERF_BANDS];
    perf_band_edges(&p, edges);
    ck_assert(lg_stop_same_band(edges, PERF_BANDS, 0.5, 1.19));
    ck_assert(!lg_stop_same_band(edges, PERF_BANDS, 1.1, 1.3));
    ck_assert(lg_stop_same_band(edges, PERF_BANDS, 11, 50));
    /* The grader's share changes exactly where the harness's bands do. */
    for (int j = 0; j < PERF_BANDS; j++) {
        ck_assert(perf_share(&p, edges[j] * 0.999) != perf_share(&p, edges[j] * 1.001));
        ck_assert(perf_share(&p, edges[j] * 0.999) == perf_share(&p, edges[j]));
    }
    ck_assert_double_eq(perf_share(&p, 1.0), 1);
    ck_assert_double_eq(perf_share(&p, 0), -1);
    ck_assert_double_eq(perf_share(&p, 20), 0);
}
END_TEST

START_TEST(test_median_leaves_samples_alone)
{
    double odd[5] = {5, 1, 4, 2, 3}, even[4] = {4, 1, 3, 2};
    ck_assert_double_eq(lg_stop_median(odd, 5), 3);
    ck_assert_double_eq(lg_stop_median(even, 4), 2.5);
    ck_assert_double_eq(odd[0], 5); /* not sorted in place */
    ck_assert_double_eq(lg_stop_median(odd, 0), 0);
}
END_TEST

/* Precision, pairs and budget: the first that holds stops the series, for its reason. */
START_TEST(test_stops_for_its_reason)
{
    enum { N = 200 };
    double stu[N], ref[N];
    char order[N + 1];
    normal_pairs(stu, ref, order, N, 1.0, 0.02);
    struct lg_stop_rule r = {.min_pairs = 5, .max_pairs = 100, .target_ci = 0.0196, .budget_s = 2};
    /* Tight from the start, but never before the orders can be told apart. */
    ck_assert_int_eq(lg_stop_next(&r, stu, ref, order, 11, true, 0.1), LG_STOP_NOT_YET);
    ck_assert_int_eq(lg_stop_next(&r, stu, ref, order, 12, true, 0.1), LG_STOP_PRECISION);
    /* A lab's min_samples above that is held to. */
    r.min_pairs = 30;
    ck_assert_int_eq(lg_stop_next(&r, stu, ref, order, 20, true, 0.1), LG_STOP_NOT_YET);
    ck_assert_int_eq(lg_stop_next(&r, stu, ref, order, 30, true, 0.1), LG_STOP_PRECISION);
    /* Too loose: pairs, then budget. */
    r.target_ci = 1e-6;
    ck_assert_int_eq(lg_stop_next(&r, stu, ref, order, 100, true, 0.5), LG_STOP_MAX);
    ck_assert_int_eq(lg_stop_next(&r, stu, ref, order, 50, true, 1.9), LG_STOP_NOT_YET);
    ck_assert_int_eq(lg_stop_next(&r, stu, ref, order, 50, true, 1.97), LG_STOP_BUDGET);
}
END_TEST

/* The budget is a cap: a pair that would end past it is not begun, once the series has one pair
 * of each order, or its one pair where that alone cost more than the budget. */
START_TEST(test_budget_floor_and_cap)
{
    double stu[4] = {1, 1, 1, 1}, ref[4] = {1, 1, 1, 1};
    struct lg_stop_rule r = {.min_pairs = 10, .max_pairs = 100, .target_ci = 0.01, .budget_s = 0.4};
    ck_assert_int_eq(lg_stop_next(&r, stu, ref, "0", 0, true, 0), LG_STOP_NOT_YET);
    ck_assert_int_eq(lg_stop_next(&r, stu, ref, "0", 1, true, 1.2), LG_STOP_BUDGET);
    ck_assert_int_eq(lg_stop_next(&r, stu, ref, "0", 1, true, 0.25), LG_STOP_NOT_YET);
    ck_assert_int_eq(lg_stop_next(&r, stu, ref, "01", 2, true, 0.5), LG_STOP_BUDGET);
    ck_assert_int_eq(lg_stop_next(&r, stu, ref, "01", 2, true, 0.3), LG_STOP_BUDGET);
    ck_assert_int_eq(lg_stop_next(&r, stu, ref, "01", 2, true, 0.1), LG_STOP_NOT_YET);
    /* Speed points at stake: three pairs, whatever they cost. */
    double edges[2] = {1.2, 1.5};
    r.bands = edges;
    r.n_bands = 2;
    ck_assert_int_eq(lg_stop_next(&r, stu, ref, "01", 2, true, 2.4), LG_STOP_NOT_YET);
    ck_assert_int_eq(lg_stop_next(&r, stu, ref, "010", 3, true, 3.6), LG_STOP_BUDGET);
    /* Unpaired (a reference's own time, kept for every grader): three calls at least. */
    r.n_bands = 0;
    ck_assert_int_eq(lg_stop_next(&r, stu, NULL, NULL, 1, false, 1.2), LG_STOP_NOT_YET);
    ck_assert_int_eq(lg_stop_next(&r, stu, NULL, NULL, 3, false, 3.6), LG_STOP_BUDGET);
}
END_TEST

/* A case with speed points goes on while its interval straddles a band's edge, and stops once
 * the pairs have put it inside one. */
START_TEST(test_points_wait_for_their_band)
{
    enum { N = 200 };
    double stu[N], ref[N];
    char order[N + 1];
    struct perf_spec p = {.points = 2, .full_at = 1.2, .zero_at = 10};
    double edges[PERF_BANDS];
    perf_band_edges(&p, edges);
    normal_pairs(stu, ref, order, N, 1.2, 0.15);
    struct lg_stop_rule r = {.min_pairs = 10, .max_pairs = N, .target_ci = 0.2, .budget_s = 100};
    ck_assert_int_eq(lg_stop_next(&r, stu, ref, order, 12, true, 0.1), LG_STOP_PRECISION);
    r.bands = edges;
    r.n_bands = PERF_BANDS;
    ck_assert_int_eq(lg_stop_next(&r, stu, ref, order, 12, true, 0.1), LG_STOP_NOT_YET);
    normal_pairs(stu, ref, order, N, 1.0, 0.15);
    ck_assert_int_eq(lg_stop_next(&r, stu, ref, order, 12, true, 0.1), LG_STOP_PRECISION);
}
END_TEST

START_TEST(test_stop_names)
{
    ck_assert_str_eq(lg_stop_name(LG_STOP_PRECISION), "precision");
    ck_assert_str_eq(lg_stop_name(LG_STOP_MAX), "pairs");
    ck_assert_str_eq(lg_stop_name(LG_STOP_BUDGET), "budget");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("harness_stop");
    TCase *tc = tcase_create("stop");
    tcase_add_test(tc, test_identical_ratios_have_no_width);
    tcase_add_test(tc, test_precision_is_the_robust_standard_error);
    tcase_add_test(tc, test_too_few_for_a_precision);
    tcase_add_test(tc, test_pairs_without_a_ratio_left_out);
    tcase_add_test(tc, test_interval_is_the_graders);
    tcase_add_test(tc, test_bands);
    tcase_add_test(tc, test_median_leaves_samples_alone);
    tcase_add_test(tc, test_stops_for_its_reason);
    tcase_add_test(tc, test_budget_floor_and_cap);
    tcase_add_test(tc, test_points_wait_for_their_band);
    tcase_add_test(tc, test_stop_names);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
