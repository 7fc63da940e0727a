/*
 * Hostile submissions on a GPU machine (make test-gpu): the GPU threats of tests/hostile/,
 * graded with the real grader, with the same guarantees as the CPU suite
 * (tests/hostile/hostile.h): exact verdicts (gpu column of tests/hostile/EXPECTED), a sanity
 * bound on the grading time, grading going on with the other variants and with the next
 * student (whose GPU variants must pass: the GPU is still usable), and nothing changed
 * outside the scratch folders.
 *
 *   gpu_endless_kernel   a kernel that never ends: TO, then the GPU still works
 *   gpu_side_stream      work left running on a non-blocking stream: CH, the device busy
 *                        after the call's last event (or events and host clock disagree)
 *   gpu_cached_results   results cached by pointer: WA on the second call
 *   gpu_fast_when_timed  no work once the timed calls start: CH
 */
#include "../hostile/hostile.h"

static struct hostile_suite suite;

static void setup(void)
{
    if (!suite.repo && !suite.why[0] && !hostile_suite_setup(&suite))
        fprintf(stderr, "hostile-gpu: setup failed: %s\n", suite.why);
}

static const struct case_result *gpu_dev_case(const struct hostile_run *run)
{
    const struct case_result *cr = hostile_case(run, "grade2", "gpu_dev");
    ck_assert(cr != NULL);
    return cr;
}

static void check_endless(const struct hostile_suite *s, const struct hostile_run *run)
{
    (void)s;
    const struct case_result *cr = gpu_dev_case(run);
    ck_assert_msg(cr->message && strstr(cr->message, "timed out"), "message: %s",
                  cr->message ? cr->message : "");
}

static void check_side_stream(const struct hostile_suite *s, const struct hostile_run *run)
{
    (void)s;
    const struct case_result *cr = gpu_dev_case(run);
    /* CH, never a speed-up: the events saw nothing of the 5 ms kernel on the side stream;
     * the device stayed busy that long after the stop event (the tail check, which comes
     * first: "the GPU stayed busy 4.998 ms after the call's last event" on the H100), and the
     * host clock around a device-wide synchronize saw all of it ("CUDA events measured"). */
    ck_assert_msg(
        cr->message &&
            (strstr(cr->message, "stayed busy") || strstr(cr->message, "CUDA events measured")) &&
            strstr(cr->message, "another stream"),
        "message: %s", cr->message ? cr->message : "");
    ck_assert(cr->points == 0 && cr->speedup_ref == 0);
}

static void check_cached(const struct hostile_suite *s, const struct hostile_run *run)
{
    (void)s;
    const struct case_result *cr = gpu_dev_case(run);
    ck_assert_msg(cr->message && strstr(cr->message, "second call"), "message: %s",
                  cr->message ? cr->message : "");
}

static void check_fast_when_timed(const struct hostile_suite *s, const struct hostile_run *run)
{
    (void)s;
    const struct case_result *cr = gpu_dev_case(run);
    ck_assert_msg(cr->message && strstr(cr->message, "correct when checked, wrong on timed call"),
                  "message: %s", cr->message ? cr->message : "");
}

#define THREAT(name, timing, timeout, check)                                                       \
    START_TEST(test_##name)                                                                        \
    {                                                                                              \
        static const struct hostile_threat t = {#name, false, timing, timeout, NULL, check};       \
        ck_assert_msg(suite.ready, "hostile suite not set up: %s", suite.why);                     \
        ck_assert_msg(suite.gpu, "no usable GPU seen by the grader: run this suite on a GPU "      \
                                 "machine");                                                       \
        hostile_run_threat(&suite, &t);                                                            \
    }                                                                                              \
    END_TEST

THREAT(gpu_endless_kernel, false, 10, check_endless)
THREAT(gpu_side_stream, true, 30, check_side_stream)
THREAT(gpu_cached_results, false, 10, check_cached)
THREAT(gpu_fast_when_timed, true, 30, check_fast_when_timed)

int main(void)
{
    Suite *s = suite_create("hostile-gpu");
    TCase *tc = tcase_create("lab6-hostile-gpu");
    tcase_add_unchecked_fixture(tc, setup, NULL);
    tcase_set_timeout(tc, 900);
    tcase_add_test(tc, test_gpu_endless_kernel);
    tcase_add_test(tc, test_gpu_side_stream);
    tcase_add_test(tc, test_gpu_cached_results);
    tcase_add_test(tc, test_gpu_fast_when_timed);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    hostile_suite_teardown(&suite, failed != 0);
    return failed ? 1 : 0;
}
