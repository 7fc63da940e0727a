/* runner: the job text a runner program reads (job.txt), built from lab 6's spec, and the
 * harness's throttle lines read back. Which calls are timed behind the blocking kernel is
 * decided here: the device-pointer variants only, as a host-pointer function copies and waits
 * inside the call by design. Run from the repository root. */
#include "run/runner.h"
#include "spec/plan.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

static struct lab lab;

static void load_lab6(void)
{
    struct error err;
    error_init(&err);
    lab_init(&lab);
    ck_assert_msg(spec_load(&lab, "labs/lab6/lab.yaml", NULL, &err) == 0, "%s", err.msg);
}

static void unload_lab6(void)
{
    lab_release(&lab);
}

/* The job text for one variant of matmul on its first case (n256), as grade.c asks for it. */
static char *job_text(const struct variant_spec *v, bool for_key, bool blocking)
{
    const struct exercise_spec *ex = lab_exercise(&lab, "matmul");
    struct run_spec s = {0};
    struct strbuf out;
    struct error err;
    error_init(&err);
    strbuf_init(&out);
    s.lab = &lab;
    s.ex = ex;
    s.v = v;
    s.c = &ex->cases[0];
    s.checks = 2;
    s.time = true;
    s.timing = ex->timing;
    s.timing.blocking = blocking;
    ck_assert_msg(runner_job_text(&s, for_key, &out, &err) == 0, "%s", err.msg);
    return strbuf_detach(&out);
}

static const struct variant_spec *matmul_variant(const char *id)
{
    const struct variant_spec *v = exercise_variant(lab_exercise(&lab, "matmul"), id);
    ck_assert_ptr_nonnull(v);
    return v;
}

START_TEST(test_arguments_and_tolerances)
{
    char *job = job_text(matmul_variant("gpu_dev"), false, true);
    ck_assert_ptr_nonnull(strstr(job, "function matmul_gpu_dev\ntarget gpu\nchecks 2\n"));
    /* 256 x 256 floats on the device, drawn from [0, 1); n passed by value. */
    ck_assert_ptr_nonnull(strstr(job, "\narg A in f32 65536 device uniform 0 1\n"));
    ck_assert_ptr_nonnull(strstr(job, "\narg C out f32 65536 device uniform 0 1\n"));
    ck_assert_ptr_nonnull(strstr(job, "\narg n scalar i32 1 host constant 256 0\n"));
    ck_assert_ptr_nonnull(strstr(job, "\nwarmup 2\nmin_samples 5\nmax_samples 30\n"));
    ck_assert_ptr_nonnull(strstr(job, "\ntol C 0.002 0.001"));
    free(job);
    job = job_text(matmul_variant("gpu"), false, true);
    ck_assert_ptr_nonnull(strstr(job, "\narg A in f32 65536 host uniform 0 1\n"));
    free(job);
}
END_TEST

START_TEST(test_seeds_differ_per_check_and_repeat)
{
    const struct exercise_spec *ex = lab_exercise(&lab, "matmul");
    uint64_t a[2], b[2], c[2];
    plan_seeds(&lab, ex, &ex->cases[0], 2, a);
    plan_seeds(&lab, ex, &ex->cases[0], 2, b);
    plan_seeds(&lab, ex, &ex->cases[1], 2, c);
    ck_assert(a[0] == b[0] && a[1] == b[1]); /* a re-grade draws the same inputs */
    ck_assert(a[0] != a[1]);                 /* every checked call gets fresh ones */
    ck_assert(a[0] != c[0] && a[1] != c[1]);
}
END_TEST

START_TEST(test_blocking_for_device_pointers_only)
{
    char *job = job_text(matmul_variant("gpu_dev"), false, true);
    ck_assert_ptr_nonnull(strstr(job, "\nblocking 1\n"));
    free(job);
    /* Host pointers: the function copies the results back, so it waits inside the call. */
    job = job_text(matmul_variant("gpu"), false, true);
    ck_assert_ptr_nonnull(strstr(job, "\nblocking 0\n"));
    free(job);
    job = job_text(matmul_variant("cpu"), false, true);
    ck_assert_ptr_nonnull(strstr(job, "\nblocking 0\n"));
    free(job);
    /* Pinned host memory is still host memory. */
    struct variant_spec pinned = *matmul_variant("gpu_dev");
    pinned.memory = MEM_PINNED;
    pinned.n_mem = 0;
    job = job_text(&pinned, false, true);
    ck_assert_ptr_nonnull(strstr(job, "\nblocking 0\n"));
    free(job);
    /* Not asked for: never. */
    job = job_text(matmul_variant("gpu_dev"), false, false);
    ck_assert_ptr_nonnull(strstr(job, "\nblocking 0\n"));
    free(job);
}
END_TEST

/* The cache key holds what decides the results (function, seeds, arguments), not how the
 * calls were timed, so changing the timing rules keeps the cached references. */
START_TEST(test_key_leaves_out_timing)
{
    char *key = job_text(matmul_variant("gpu_dev"), true, true);
    char *job = job_text(matmul_variant("gpu_dev"), false, true);
    ck_assert_ptr_null(strstr(key, "blocking"));
    ck_assert_ptr_null(strstr(key, "\ntime "));
    ck_assert_ptr_null(strstr(key, "warmup"));
    ck_assert_int_eq(strncmp(job, key, strlen(key)), 0);
    free(key);
    free(job);
}
END_TEST

/* The harness's throttle lines (one per timed series) add up; a forged or malformed line
 * is ignored rather than trusted. */
START_TEST(test_throttle_lines)
{
    struct run_outcome o;
    run_outcome_init(&o);
    runner_parse_result(&o, "harness 1\nphase setup\nthrottle call 3 0 1980\n"
                            "throttle transfer 2 1 1980\nthrottle call -4 0 1980\n"
                            "throttle call x\n");
    ck_assert_int_eq(o.throttle_dropped, 5);
    ck_assert(o.throttle_gave_up);
    ck_assert_int_eq(o.throttle_max_mhz, 1980);
    run_outcome_release(&o);
    run_outcome_init(&o);
    runner_parse_result(&o, "harness 1\nphase setup\n");
    ck_assert_int_eq(o.throttle_dropped, 0);
    ck_assert(!o.throttle_gave_up);
    run_outcome_release(&o);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("runner");
    TCase *tc = tcase_create("job");
    tcase_add_checked_fixture(tc, load_lab6, unload_lab6);
    tcase_add_test(tc, test_arguments_and_tolerances);
    tcase_add_test(tc, test_seeds_differ_per_check_and_repeat);
    tcase_add_test(tc, test_blocking_for_device_pointers_only);
    tcase_add_test(tc, test_key_leaves_out_timing);
    tcase_add_test(tc, test_throttle_lines);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
