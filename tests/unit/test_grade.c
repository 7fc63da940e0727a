/* grade/'s pure helpers: the limits a case's time is set against, how many variants a check
 * runs side by side, and the timing rules of a check. */
#include "grade/grade.h"
#include "grade/grading.h"
#include "spec/spec.h"

#include <check.h>
#include <stdlib.h>

#define LAB3 "labs/lab3/lab.yaml"

static struct lab lab3;

static void setup(void)
{
    struct error err;
    error_init(&err);
    lab_init(&lab3);
    ck_assert_msg(spec_load(&lab3, LAB3, NULL, &err) == 0, "%s", err.msg);
}

static void teardown(void)
{
    lab_release(&lab3);
}

static struct calibration measured(void)
{
    struct calibration c = {0};
    c.valid = true;
    c.gpu_copy_gbs = 3000;
    c.h2d_pinned_gbs = 55;
    c.h2d_pageable_gbs = 8;
    c.d2h_pinned_gbs = 50;
    c.d2h_pageable_gbs = 7;
    return c;
}

static double bus(const struct calibration *c, const char *ex_id, const char *var_id,
                  const char **what, double *peak)
{
    const struct exercise_spec *ex = lab_exercise(&lab3, ex_id);
    ck_assert_ptr_nonnull(ex);
    const struct variant_spec *v = exercise_variant(ex, var_id);
    ck_assert_ptr_nonnull(v);
    return calibration_bus_gbs(c, ex, v, what, peak);
}

START_TEST(test_bus_copies)
{
    struct calibration c = measured();
    const char *what;
    double peak;
    ck_assert(bus(&c, "h2d", "pageable", &what, &peak) == 8);
    ck_assert_str_eq(what, "pageable host-to-device");
    ck_assert(peak == 55);
    ck_assert(bus(&c, "h2d", "pinned", &what, &peak) == 55);
    ck_assert_str_eq(what, "pinned host-to-device");
    ck_assert(bus(&c, "d2h", "pageable", &what, &peak) == 7);
    ck_assert_str_eq(what, "pageable device-to-host");
    ck_assert(peak == 50);
    ck_assert(bus(&c, "d2h", "pinned", &what, &peak) == 50);
    ck_assert_str_eq(what, "pinned device-to-host");
}
END_TEST

START_TEST(test_bus_not_a_copy)
{
    struct calibration c = measured();
    const char *what = "x";
    double peak = 1;
    /* Host pointers in and out (the function copies both ways itself), device pointers only,
     * and the CPU: none is a one-way copy over the bus. */
    ck_assert(bus(&c, "add", "gpu", &what, &peak) == 0);
    ck_assert_ptr_null(what);
    ck_assert(peak == 0);
    ck_assert(bus(&c, "add", "gpu_dev", &what, &peak) == 0);
    ck_assert(bus(&c, "add", "cpu", &what, &peak) == 0);
    /* Unknown figures or no calibration at all: nothing to compare with. */
    c.h2d_pageable_gbs = 0;
    ck_assert(bus(&c, "h2d", "pageable", &what, &peak) == 0);
    ck_assert_ptr_null(what);
    c = measured();
    c.valid = false;
    ck_assert(bus(&c, "h2d", "pinned", &what, &peak) == 0);
}
END_TEST

/* A check's variants side by side: as asked, but one at a time on a small GPU, where the
 * contexts and buffers of several at once could make an honest run fail to allocate. */
START_TEST(test_side_jobs)
{
    struct gpu_probe none = {0}, big = {0}, small = {0}, unknown = {0};
    big.available = small.available = unknown.available = true;
    big.memory_mib = 81559;
    small.memory_mib = 8192;
    ck_assert_int_eq(side_jobs(4, &none), 4);
    ck_assert_int_eq(side_jobs(4, &big), 4);
    ck_assert_int_eq(side_jobs(4, &small), 1);
    ck_assert_int_eq(side_jobs(4, &unknown), 4); /* size not known: as asked */
    ck_assert_int_eq(side_jobs(0, &big), 1);
    ck_assert_int_eq(side_jobs(1, &small), 1);
}
END_TEST

/* A student's check times at most QUICK_BUDGET_S and QUICK_MAX_PAIRS per series, whatever the
 * lab lets the class's grading spend; an instructor's grade keeps the lab's rules. */
START_TEST(test_quick_timing)
{
    struct grade_env env = {0};
    struct grading g = {0};
    struct exercise_spec ex = {0};
    g.env = &env;
    ex.timing = (struct timing_spec){
        .warmup = 2, .min_samples = 50, .max_samples = 200, .target_rse = 0.01, .budget_s = 3};
    struct timing_spec t = grading_timing(&g, &ex);
    ck_assert(t.budget_s == QUICK_BUDGET_S && t.max_samples == QUICK_MAX_PAIRS);
    ck_assert_int_eq(t.min_samples, QUICK_MAX_PAIRS); /* never above the maximum */
    ck_assert(t.warmup == 2 && t.target_rse == 0.01);
    ex.timing.min_samples = 5;
    ex.timing.max_samples = 10;
    ex.timing.budget_s = 0.1;
    t = grading_timing(&g, &ex);
    ck_assert(t.min_samples == 5 && t.max_samples == 10 && t.budget_s == 0.1); /* within: kept */
    env.grade_mode = true;
    ex.timing.max_samples = 200;
    ex.timing.budget_s = 3;
    t = grading_timing(&g, &ex);
    ck_assert(t.max_samples == 200 && t.budget_s == 3);
}
END_TEST

static Suite *grade_suite(void)
{
    Suite *s = suite_create("grade");
    TCase *tc = tcase_create("limits");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_bus_copies);
    tcase_add_test(tc, test_side_jobs);
    tcase_add_test(tc, test_bus_not_a_copy);
    tcase_add_test(tc, test_quick_timing);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(grade_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
