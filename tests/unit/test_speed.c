/* speed (grader/grade/speed.c): the checks that turn a forged or hidden time into CH before any
 * speed-up is computed. Here, work left on another stream: the device still busy after the
 * call's stop event (the harness's "tail" line) beyond the reference's, and the host clock's
 * gap over the events beyond the reference's. Honest jitter must pass. And the orders'
 * agreement: a gain in one order only is credited at the less favourable order, or CH. */
#include "grade/grading.h"

#include "base/stats.h"

#include <check.h>
#include <math.h>
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

#define NP 40

/* A paired CPU series of NP pairs in blocks of two (the first order of each block alternating):
 * the function takes stu_ms and the reference ref_ms, each pays first_penalty when it runs
 * first, the function is second_gain times faster when it runs second, and the reference
 * ref_first_extra times slower when it runs first. */
struct orders {
    double stu[NP], ref[NP];
    char order[NP + 1];
    struct run_case_outcome co;
    struct grade_opts o;
    struct grading g;
    struct exercise_spec ex;
    struct variant_spec v;
    struct case_spec c;
    struct case_result cr;
};

static void orders_setup(struct orders *f, double stu_ms, double ref_ms, double first_penalty,
                         double second_gain, double ref_first_extra)
{
    memset(f, 0, sizeof(*f));
    for (int i = 0; i < NP; i++) {
        bool stu_first = (i % 2 == 0) == ((i / 2) % 2 == 0);
        double jitter = 1 + 0.01 * ((i * 7) % 5);
        f->order[i] = stu_first ? '0' : '1';
        f->stu[i] = (stu_first ? stu_ms * first_penalty : stu_ms / second_gain) * jitter;
        f->ref[i] = stu_first ? ref_ms : ref_ms * first_penalty * ref_first_extra;
    }
    struct run_series *s = &f->co.series[RUN_SERIES_CALL];
    s->present = s->paired = true;
    s->n = NP;
    s->stu_host = f->stu;
    s->ref_host = f->ref;
    s->order = f->order;
    f->g.o = &f->o;
    f->cr.verdict = V_PASS;
}

static void orders_release(struct orders *f)
{
    free(f->cr.message);
    for (size_t i = 0; i < f->cr.n_findings; i++)
        free(f->cr.findings[i]);
    free(f->cr.findings);
}

static bool has_finding(const struct case_result *cr, const char *text)
{
    for (size_t i = 0; i < cr->n_findings; i++)
        if (strstr(cr->findings[i], text))
            return true;
    return false;
}

/* Honest: a large penalty for going first, paid by both, sets the two orders apart by its
 * square and changes nothing; nor does one of a tenth of a microsecond on a tiny call. */
START_TEST(test_orders_honest)
{
    struct orders f;
    orders_setup(&f, 1.0, 2.0, 1.8, 1.0, 1.0);
    speed_case(&f.g, &f.ex, &f.v, &f.c, &f.co, &f.cr);
    ck_assert_int_eq(f.cr.verdict, V_PASS);
    ck_assert_msg(fabs(f.cr.speedup_ref - 2) < 0.05, "speed-up %g", f.cr.speedup_ref);
    ck_assert_uint_eq(f.cr.n_findings, 0);
    orders_release(&f);
    /* 0.5 us calls, the function 1.3x faster when second: 0.1 us, below the floor. */
    orders_setup(&f, 0.0005, 0.0005, 1.0, 1.3, 1.0);
    speed_case(&f.g, &f.ex, &f.v, &f.c, &f.co, &f.cr);
    ck_assert_int_eq(f.cr.verdict, V_PASS);
    ck_assert_uint_eq(f.cr.n_findings, 0);
    ck_assert(f.cr.speedup_ref > 1.1);
    orders_release(&f);
}
END_TEST

/* A gain in one order only, under the gross margin: only the less favourable order counts. */
START_TEST(test_orders_one_order_not_credited)
{
    struct orders f;
    orders_setup(&f, 1.0, 1.0, 1.1, 1.35, 1.0);
    speed_case(&f.g, &f.ex, &f.v, &f.c, &f.co, &f.cr);
    ck_assert_int_eq(f.cr.verdict, V_PASS);
    ck_assert_msg(f.cr.speedup_ref < 1.03 && f.cr.speedup_lo < 1.0, "credited %g (%g-%g)",
                  f.cr.speedup_ref, f.cr.speedup_lo, f.cr.speedup_hi);
    ck_assert(has_finding(&f.cr, "only the less favourable is credited"));
    orders_release(&f);
    /* The other way: the reference slower only when it runs first (after the function). */
    orders_setup(&f, 1.0, 1.0, 1.0, 1.0, 1.3);
    speed_case(&f.g, &f.ex, &f.v, &f.c, &f.co, &f.cr);
    ck_assert_int_eq(f.cr.verdict, V_PASS);
    ck_assert_msg(f.cr.speedup_ref < 1.03, "credited %g", f.cr.speedup_ref);
    ck_assert(has_finding(&f.cr, "only the less favourable"));
    orders_release(&f);
}
END_TEST

/* The throttled gain again, with six of the twenty blocks spoiled by a stray delay of the
 * reference's first call: the blocks' interval holds 1 then, the shift between the orders'
 * pairs does not. */
START_TEST(test_orders_spoiled_blocks)
{
    struct orders f;
    struct stats_positions p;
    orders_setup(&f, 1.0, 1.0, 1.0, 1.43, 1.0);
    for (int b = 0; b < 6; b++) {
        int i = 2 * b + (f.order[2 * b] == '1' ? 0 : 1); /* the block's order-1 pair */
        f.ref[i] *= 12;
    }
    ck_assert_int_eq(stats_positions(f.stu, f.ref, f.order, NP, &p), 0);
    ck_assert_msg(p.disagreement_lo < 1.15 && p.shift_lo > 1.3, "blocks from %g, shift from %g",
                  p.disagreement_lo, p.shift_lo);
    speed_case(&f.g, &f.ex, &f.v, &f.c, &f.co, &f.cr);
    ck_assert_int_eq(f.cr.verdict, V_PASS);
    ck_assert_msg(f.cr.speedup_ref < 1.05, "credited %g", f.cr.speedup_ref);
    ck_assert(has_finding(&f.cr, "only the less favourable is credited"));
    orders_release(&f);
}
END_TEST

/* Far apart: CH, and no speed-up at all. Too few blocks: no judgement. */
START_TEST(test_orders_gross_is_cheat)
{
    struct orders f;
    orders_setup(&f, 1.0, 1.0, 1.0, 3.0, 1.0);
    speed_case(&f.g, &f.ex, &f.v, &f.c, &f.co, &f.cr);
    ck_assert_int_eq(f.cr.verdict, V_CHEAT);
    ck_assert_ptr_nonnull(strstr(f.cr.message, "a gain in one order only is not a speed-up"));
    ck_assert_msg(strstr(f.cr.message, "x when both run second (20 blocks of two pairs, apart by"),
                  "%s", f.cr.message);
    ck_assert(f.cr.speedup_ref == 0 && f.cr.speedup_lo == 0 && f.cr.points == 0);
    orders_release(&f);
    orders_setup(&f, 1.0, 1.0, 1.0, 3.0, 1.0);
    f.co.series[RUN_SERIES_CALL].n = 10;
    f.order[10] = '\0';
    speed_case(&f.g, &f.ex, &f.v, &f.c, &f.co, &f.cr);
    ck_assert_int_eq(f.cr.verdict, V_PASS);
    orders_release(&f);
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
    tcase_add_test(tc, test_orders_honest);
    tcase_add_test(tc, test_orders_one_order_not_credited);
    tcase_add_test(tc, test_orders_gross_is_cheat);
    tcase_add_test(tc, test_orders_spoiled_blocks);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
