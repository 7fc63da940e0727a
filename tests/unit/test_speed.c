/* speed (grader/grade/speed.c): the checks that turn a forged or hidden time into CH before any
 * speed-up is computed. Here, work left on another stream: the device still busy after the
 * call's stop event (the harness's "tail" line) beyond the reference's, and the host clock's
 * gap over the events beyond the reference's. Honest jitter must pass. */
#include "grade/grading.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#define N 7

struct fixture {
    double stu_ev[N], stu_host[N], ref_ev[N], ref_host[N];
    struct run_case_outcome co;
    struct grade_opts o;
    struct grading g;
    struct case_result cr;
};

/* A paired GPU series: the function's events at stu_ev ms, the reference's at 2·stu_ev, both
 * with the same 0.010 ms host overhead; tails as given. */
static void setup(struct fixture *f, double stu_ev, double tail_stu, double tail_ref)
{
    memset(f, 0, sizeof(*f));
    for (int i = 0; i < N; i++) {
        f->stu_ev[i] = stu_ev;
        f->ref_ev[i] = 2 * stu_ev;
        f->stu_host[i] = stu_ev + 0.010;
        f->ref_host[i] = 2 * stu_ev + 0.010;
    }
    struct run_series *s = &f->co.series[RUN_SERIES_CALL];
    s->present = s->paired = true;
    s->n = N;
    s->stu_event = f->stu_ev;
    s->stu_host = f->stu_host;
    s->ref_event = f->ref_ev;
    s->ref_host = f->ref_host;
    s->has_tail = true;
    s->tail_stu_ms = tail_stu;
    s->tail_ref_ms = tail_ref;
    s->tail_idle_ms = 0.0015;
    f->g.o = &f->o;
    f->cr.verdict = V_PASS;
}

START_TEST(test_honest_tails_pass)
{
    struct fixture f;
    /* A short kernel, with a tail a microsecond or two above the reference's: jitter. */
    setup(&f, 0.012, 0.0035, 0.0020);
    ck_assert(speed_honest(&f.g, &f.co, &f.cr));
    ck_assert_int_eq(f.cr.verdict, V_PASS);
    /* A long call: a few microseconds more are nothing against it. */
    setup(&f, 2.0, 0.030, 0.0020);
    ck_assert(speed_honest(&f.g, &f.co, &f.cr));
    /* No tail line (the CPU, or an older harness): nothing to judge. */
    setup(&f, 0.012, 0.5, 0.002);
    f.co.series[RUN_SERIES_CALL].has_tail = false;
    ck_assert(speed_honest(&f.g, &f.co, &f.cr));
}
END_TEST

START_TEST(test_side_stream_tail_is_cheat)
{
    struct fixture f;
    /* tests/exploits/gpu_lazy_stream: the events enclose nothing (the harness charged the
     * tail beyond idle to them), the device busy 20 microseconds after the stop event. */
    setup(&f, 0.021, 0.022, 0.0020);
    ck_assert(!speed_honest(&f.g, &f.co, &f.cr));
    ck_assert_int_eq(f.cr.verdict, V_CHEAT);
    ck_assert_ptr_nonnull(strstr(f.cr.message, "stayed busy 0.022 ms"));
    ck_assert_ptr_nonnull(strstr(f.cr.message, "another stream"));
    ck_assert(f.cr.points == 0);
    free(f.cr.message);
    /* Unpaired: measured against an idle device's tail. */
    setup(&f, 0.021, 0.022, 0);
    f.co.series[RUN_SERIES_CALL].paired = false;
    ck_assert(!speed_honest(&f.g, &f.co, &f.cr));
    free(f.cr.message);
}
END_TEST

START_TEST(test_host_gap_is_cheat)
{
    struct fixture f;
    /* A padded kernel on a side stream the tail missed (it ended before the stop event was
     * waited for): the host clock still shows 2 ms the reference's does not. */
    setup(&f, 0.012, 0.002, 0.002);
    for (int i = 0; i < N; i++)
        f.stu_host[i] += 2.0;
    ck_assert(!speed_honest(&f.g, &f.co, &f.cr));
    ck_assert_int_eq(f.cr.verdict, V_CHEAT);
    ck_assert_ptr_nonnull(strstr(f.cr.message, "host clock around a device-wide synchronize"));
    free(f.cr.message);
}
END_TEST

/* A neighbour that delays the host (another process on the cores, a hypervisor) delays some
 * pairs' calls, either side, by milliseconds: never CH, since the excess is not in nearly every
 * pair. The same excess in every pair is. */
START_TEST(test_host_delays_of_a_neighbour_pass)
{
    struct fixture f;
    setup(&f, 0.012, 0.002, 0.002);
    f.stu_host[0] += 3.0;
    f.stu_host[2] += 1.5;
    f.stu_host[3] += 2.0;
    f.ref_host[5] += 4.0;
    ck_assert(speed_honest(&f.g, &f.co, &f.cr));
    ck_assert_int_eq(f.cr.verdict, V_PASS);
    /* In nearly every pair (6 of 7): work the events did not see. */
    setup(&f, 0.012, 0.002, 0.002);
    for (int i = 0; i < N - 1; i++)
        f.stu_host[i] += 1.0;
    ck_assert(!speed_honest(&f.g, &f.co, &f.cr));
    free(f.cr.message);
}
END_TEST

/* A series that shared its cores or GPU with another process (every measurement of it) is not
 * judged by the host clock or the device's tail at all: what shared it could have made either
 * (the case is reported not timed instead, speed.c). A slow clock is still CH. */
START_TEST(test_shared_series_not_judged_by_load)
{
    struct fixture f;
    setup(&f, 0.021, 0.5, 0.0020);
    for (int i = 0; i < N; i++)
        f.stu_host[i] += 2.0;
    f.co.series[RUN_SERIES_CALL].shared = true;
    ck_assert(speed_honest(&f.g, &f.co, &f.cr));
    ck_assert_int_eq(f.cr.verdict, V_PASS);
    struct run_series *s = &f.co.series[RUN_SERIES_CALL];
    s->supervisor_min_ms = 500;
    s->harness_span_ms = 100;
    ck_assert(!speed_honest(&f.g, &f.co, &f.cr));
    ck_assert_ptr_nonnull(strstr(f.cr.message, "ran slow"));
    free(f.cr.message);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("speed");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_honest_tails_pass);
    tcase_add_test(tc, test_side_stream_tail_is_cheat);
    tcase_add_test(tc, test_host_gap_is_cheat);
    tcase_add_test(tc, test_host_delays_of_a_neighbour_pass);
    tcase_add_test(tc, test_shared_series_not_judged_by_load);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
