/* When a timed series stops (grader/harness/stop.h): the interval it stops on is that of the
 * estimate the grader makes, and the pairs, target and budget end it as the spec says. */
#include "harness/stop.c"

#include <check.h>
#include <math.h>
#include <stdlib.h>

#define N_ORDERED 24

START_TEST(test_identical_ratios_have_no_width)
{
    double stu[8], ref[8];
    for (int i = 0; i < 8; i++)
        stu[i] = 2 * (ref[i] = 1 + i);
    ck_assert_double_eq(lg_stop_width(stu, ref, "01100110", 8, true), 0);
}
END_TEST

/* Nine ratios 0.96 .. 1.04: order statistics 1 and 8 bound the median's 95% interval. */
START_TEST(test_median_interval_from_order_statistics)
{
    double stu[9], ref[9];
    for (int i = 0; i < 9; i++) {
        ref[i] = 10;
        stu[i] = 10 * (0.96 + 0.01 * ((i * 4) % 9)); /* every ratio once, out of order */
    }
    ck_assert_double_eq_tol(lg_stop_width(stu, ref, "010101010", 9, true), (1.04 - 0.97) / 2,
                            1e-12);
}
END_TEST

/* Two orders, one 10% slower than the other, each with the same spread: the estimate's
 * interval is one group's divided by the root of two, and the difference between the orders
 * (which the estimate cancels) does not widen it, as it widens that of all the pairs. */
static void ordered_pairs(double *stu, double *ref, char *order, double *group)
{
    for (int k = 0; k < N_ORDERED / 2; k++)
        group[k] = 1 + 0.004 * ((k * 5) % 12) - 0.022;
    for (int i = 0; i < N_ORDERED; i++) {
        order[i] = (i % 2) ? '1' : '0';
        ref[i] = 3;
        stu[i] = 3 * group[i / 2] * (i % 2 ? 1.10 : 1);
    }
    order[N_ORDERED] = '\0';
}

START_TEST(test_ordered_interval_is_the_estimates)
{
    double stu[N_ORDERED], ref[N_ORDERED], group[N_ORDERED / 2], ones[N_ORDERED / 2];
    char order[N_ORDERED + 1];
    ordered_pairs(stu, ref, order, group);
    for (int k = 0; k < N_ORDERED / 2; k++)
        ones[k] = 1;
    double one = lg_stop_width(group, ones, NULL, N_ORDERED / 2, true);
    double both = lg_stop_width(stu, ref, order, N_ORDERED, true);
    ck_assert(isfinite(one) && one > 0);
    ck_assert_double_eq_tol(both, one / sqrt(2), 1e-12);
    ck_assert(lg_stop_width(stu, ref, NULL, N_ORDERED, true) > 2 * both);
}
END_TEST

START_TEST(test_too_few_for_an_interval)
{
    double stu[N_ORDERED], ref[N_ORDERED], group[N_ORDERED / 2];
    char order[N_ORDERED + 1];
    ordered_pairs(stu, ref, order, group);
    ck_assert(isinf(lg_stop_width(stu, ref, order, 5, true)));
    ck_assert(isinf(lg_stop_width(stu, NULL, NULL, 5, false)));
    /* Twelve pairs, but only five of one order: no interval for that order, none at all. */
    for (int i = 0; i < 12; i++)
        order[i] = i < 7 ? '0' : '1';
    ck_assert(isinf(lg_stop_width(stu, ref, order, 12, true)));
}
END_TEST

/* A time of zero gives no ratio: the pair is left out, never a NaN in the sort. */
START_TEST(test_pairs_without_a_ratio_left_out)
{
    double stu[9], ref[9];
    for (int i = 0; i < 9; i++) {
        ref[i] = 10;
        stu[i] = 10 * (0.96 + 0.01 * ((i * 4) % 9));
    }
    double w = lg_stop_width(stu, ref, NULL, 9, true);
    double stu2[11], ref2[11];
    for (int i = 0; i < 9; i++)
        stu2[i] = stu[i], ref2[i] = ref[i];
    stu2[9] = ref2[9] = 0; /* 0 / 0 */
    stu2[10] = 5, ref2[10] = 0;
    ck_assert_double_eq_tol(lg_stop_width(stu2, ref2, NULL, 11, true), w, 1e-12);
    ck_assert(isinf(lg_stop_width(stu2 + 5, ref2 + 5, NULL, 6, true))); /* four ratios left */
}
END_TEST

START_TEST(test_unpaired_interval_of_the_mean)
{
    double t[6] = {9, 11, 9, 11, 9, 11};
    /* Mean 10, variance 1.2: 1.96 sqrt(1.2 / 6) / 10. */
    ck_assert_double_eq_tol(lg_stop_width(t, NULL, NULL, 6, false), 1.96 * sqrt(0.2) / 10, 1e-12);
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

START_TEST(test_pairs_target_and_budget)
{
    struct lg_timing t = {.min_pairs = 10, .max_pairs = 100, .target_ci = 0.0196, .budget_s = 2};
    ck_assert(lg_stop_enough(&t, 100, INFINITY, 0));
    ck_assert(!lg_stop_enough(&t, 9, 0, 0.1));      /* tight, but before min_pairs */
    ck_assert(lg_stop_enough(&t, 10, 0.0196, 0.1)); /* tight at min_pairs */
    ck_assert(!lg_stop_enough(&t, 50, 0.0197, 1.9));
    ck_assert(!lg_stop_enough(&t, 2, INFINITY, 2.1)); /* budget spent, under the floor */
    ck_assert(lg_stop_enough(&t, 3, INFINITY, 2.1));
    ck_assert(lg_stop_enough(&t, 1, INFINITY, 8.1)); /* four budgets: whatever it has */
    t.min_pairs = 2;
    ck_assert(lg_stop_enough(&t, 2, INFINITY, 2.1));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("harness_stop");
    TCase *tc = tcase_create("stop");
    tcase_add_test(tc, test_identical_ratios_have_no_width);
    tcase_add_test(tc, test_median_interval_from_order_statistics);
    tcase_add_test(tc, test_ordered_interval_is_the_estimates);
    tcase_add_test(tc, test_too_few_for_an_interval);
    tcase_add_test(tc, test_pairs_without_a_ratio_left_out);
    tcase_add_test(tc, test_unpaired_interval_of_the_mean);
    tcase_add_test(tc, test_median_leaves_samples_alone);
    tcase_add_test(tc, test_pairs_target_and_budget);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
