/* limits (grader/grade/limits.c): a passed case's time against the machine's measured limits.
 * A time past a limit is a finding; it is CH only when the paired reference also shows the
 * function faster than itself by the slack, read off the low end of the speedup's interval:
 * the honest solution's three noisy pairs on a loaded machine must never be CH, a cheat's
 * multiple of the reference's speed must be. A series of short calls is judged like one long
 * call (test_short_calls_judged). */
#include "grade/grading.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

struct fixture {
    struct arg_spec args[2];
    struct exercise_spec ex;
    struct variant_spec v;
    struct case_spec c;
    struct grade_env env;
    struct grade_opts o;
    struct grading g;
    struct case_result cr;
};

/* A CPU copy of 60 MB against a machine measured at 10 GB/s with a 1 MB cache: at least 5.9 ms.
 * The function took ms; the pairs put it at speedup (interval lo..hi) over n pairs. */
static void setup(struct fixture *f, double ms, double speedup, double lo, int n)
{
    memset(f, 0, sizeof(*f));
    f->args[0].kind = ARG_IN;
    f->args[0].dtype = LG_F32;
    f->args[1].kind = ARG_OUT;
    f->args[1].dtype = LG_F32;
    f->ex.args = f->args;
    f->ex.n_args = 2;
    f->v.target = TARGET_CPU;
    f->v.memory = MEM_HOST;
    f->c.bytes = 60e6;
    f->env.cal.cpu_bw_gbs = 10;
    f->env.cal.cpu_cache_bytes = 1000000;
    f->env.cal.valid = true;
    f->g.env = &f->env;
    f->g.o = &f->o;
    f->cr.verdict = V_PASS;
    f->cr.points = 1;
    f->cr.time.valid = true;
    f->cr.time.median_ms = ms;
    f->cr.speedup_ref = speedup;
    f->cr.speedup_lo = lo;
    f->cr.speedup_hi = speedup > 0 ? 2 * speedup - lo : 0;
    f->cr.pairs = n;
}

static bool has_finding(const struct case_result *cr, const char *text)
{
    for (size_t i = 0; i < cr->n_findings; i++)
        if (strstr(cr->findings[i], text))
            return true;
    return false;
}

static void release(struct fixture *f)
{
    for (size_t i = 0; i < f->cr.n_findings; i++)
        free(f->cr.findings[i]);
    free(f->cr.findings);
    free(f->cr.message);
}

START_TEST(test_within_limits_passes)
{
    struct fixture f;
    setup(&f, 8.0, 1.0, 0.9, 20);
    limits_case(&f.g, &f.ex, &f.v, &f.c, &f.cr);
    ck_assert_int_eq(f.cr.verdict, V_PASS);
    ck_assert(has_finding(&f.cr, "memory traffic"));
    ck_assert(!has_finding(&f.cr, "impossible"));
    release(&f);
}
END_TEST

START_TEST(test_noisy_pairs_past_limit_is_finding)
{
    struct fixture f;
    /* CI: the solution at 1.77x its own code over three pairs, interval from 0.81x, under a
     * calibration taken while the machine was busier. */
    setup(&f, 3.0, 1.77, 0.81, 3);
    limits_case(&f.g, &f.ex, &f.v, &f.c, &f.cr);
    ck_assert_int_eq(f.cr.verdict, V_PASS);
    ck_assert(f.cr.points == 1);
    ck_assert(has_finding(&f.cr, "impossible time"));
    release(&f);
    /* No pairs (no interval): the point estimate decides. */
    setup(&f, 3.0, 1.2, 0, 0);
    limits_case(&f.g, &f.ex, &f.v, &f.c, &f.cr);
    ck_assert_int_eq(f.cr.verdict, V_PASS);
    ck_assert(has_finding(&f.cr, "impossible time"));
    release(&f);
}
END_TEST

START_TEST(test_cheat_past_limit_is_ch)
{
    struct fixture f;
    /* Faster than the reference on every pair by a multiple. */
    setup(&f, 1.0, 4.0, 3.4, 20);
    limits_case(&f.g, &f.ex, &f.v, &f.c, &f.cr);
    ck_assert_int_eq(f.cr.verdict, V_CHEAT);
    ck_assert(f.cr.points == 0);
    ck_assert_ptr_nonnull(strstr(f.cr.message, "impossible time"));
    release(&f);
    /* No pairs, point estimate past the slack. */
    setup(&f, 1.0, 4.0, 0, 0);
    limits_case(&f.g, &f.ex, &f.v, &f.c, &f.cr);
    ck_assert_int_eq(f.cr.verdict, V_CHEAT);
    release(&f);
    /* No reference timing at all: the limit alone decides. */
    setup(&f, 1.0, 0, 0, 0);
    limits_case(&f.g, &f.ex, &f.v, &f.c, &f.cr);
    ck_assert_int_eq(f.cr.verdict, V_CHEAT);
    release(&f);
}
END_TEST

/* Lab 6's matmul at n1024 on the GPU (2.1 GFLOP) against an FP32 SGEMM measured at 50 TFLOP/s,
 * TF32 not allowed: a call of ms, samples of them, and the pairs' speedup. */
static void gpu_setup(struct fixture *f, double ms, int samples, double speedup, double lo)
{
    setup(f, ms, speedup, lo, samples);
    f->v.target = TARGET_GPU;
    f->v.memory = MEM_DEVICE;
    f->c.bytes = 0;
    f->c.flops = 2.0 * 1024 * 1024 * 1024;
    f->env.cal.gpu_sgemm_gflops = 50000;
    f->env.cal.gpu_tf32_gflops = 400000;
    f->cr.time.samples = samples;
}

/* Issue 47: a kernel is compared with the limit that binds it. A three-point stencil's 60 MB
 * (5 flops for every 8 bytes) on a CPU of 10 GB/s and 100 GFLOP/s of SGEMM takes 6 ms of
 * memory traffic and 0.4 ms of arithmetic: its share of the bandwidth is the finding, not "6%
 * of the SGEMM rate". A product with 100 flops a byte is held to the rate instead. */
START_TEST(test_binding_limit_only)
{
    struct fixture f;
    setup(&f, 8.0, 1.0, 0.9, 20);
    f.c.flops = 5.0 / 8.0 * f.c.bytes;
    f.env.cal.cpu_sgemm_gflops = 100;
    limits_case(&f.g, &f.ex, &f.v, &f.c, &f.cr);
    ck_assert(has_finding(&f.cr, "memory traffic: 75% of this machine's measured CPU bandwidth"));
    ck_assert_msg(!has_finding(&f.cr, "arithmetic"), "%s",
                  f.cr.n_findings > 1 ? f.cr.findings[1] : f.cr.findings[0]);
    release(&f);
    setup(&f, 80.0, 1.0, 0.9, 20);
    f.c.flops = 100 * f.c.bytes;
    f.env.cal.cpu_sgemm_gflops = 100;
    limits_case(&f.g, &f.ex, &f.v, &f.c, &f.cr);
    ck_assert(has_finding(&f.cr, "arithmetic: 75% of the measured OpenBLAS SGEMM rate"));
    ck_assert(!has_finding(&f.cr, "memory traffic"));
    release(&f);
    /* Past a limit that does not bind is still impossible, and said. */
    setup(&f, 1.0, 4.0, 3.4, 20);
    f.c.flops = 100 * f.c.bytes;
    f.env.cal.cpu_sgemm_gflops = 100;
    limits_case(&f.g, &f.ex, &f.v, &f.c, &f.cr);
    ck_assert_int_eq(f.cr.verdict, V_CHEAT);
    release(&f);
}
END_TEST

/* A rate no GPU here reaches is impossible at 17 us as at 17 ms: what a series of 17 us calls
 * sums to is long enough to say so. One call of 17 us alone is not. */
START_TEST(test_short_calls_judged)
{
    struct fixture f;
    gpu_setup(&f, 0.017, 60, 3.42, 3.1);
    limits_case(&f.g, &f.ex, &f.v, &f.c, &f.cr);
    ck_assert_int_eq(f.cr.verdict, V_CHEAT);
    ck_assert_ptr_nonnull(strstr(f.cr.message, "this lab does not allow TF32"));
    ck_assert(limits_reduced_precision(&f.g, &f.ex, &f.v, &f.c, &f.cr));
    release(&f);
    gpu_setup(&f, 0.017, 1, 3.42, 3.1);
    limits_case(&f.g, &f.ex, &f.v, &f.c, &f.cr);
    ck_assert_int_eq(f.cr.verdict, V_PASS);
    release(&f);
    /* Honest FP32 at the same size: 45 us, under the rate. */
    gpu_setup(&f, 0.045, 60, 1.0, 0.97);
    limits_case(&f.g, &f.ex, &f.v, &f.c, &f.cr);
    ck_assert_int_eq(f.cr.verdict, V_PASS);
    ck_assert(!limits_reduced_precision(&f.g, &f.ex, &f.v, &f.c, &f.cr));
    release(&f);
    /* No paired reference time: the rate alone makes the case CH, and the rule that spreads a
     * forbidden precision over the variant's cases (judge.c) says so too, by the same rule. */
    gpu_setup(&f, 0.017, 60, 0, 0);
    limits_case(&f.g, &f.ex, &f.v, &f.c, &f.cr);
    ck_assert_int_eq(f.cr.verdict, V_CHEAT);
    ck_assert(limits_reduced_precision(&f.g, &f.ex, &f.v, &f.c, &f.cr));
    release(&f);
    /* Past the rate but within the slack of the reference's own time: a finding for both. */
    gpu_setup(&f, 0.017, 60, 1.3, 1.2);
    limits_case(&f.g, &f.ex, &f.v, &f.c, &f.cr);
    ck_assert_int_eq(f.cr.verdict, V_PASS);
    ck_assert(!limits_reduced_precision(&f.g, &f.ex, &f.v, &f.c, &f.cr));
    release(&f);
    /* Where the lab allows TF32, its rate is the limit. */
    gpu_setup(&f, 0.017, 60, 3.42, 3.1);
    f.ex.allow_tf32 = true;
    limits_case(&f.g, &f.ex, &f.v, &f.c, &f.cr);
    ck_assert_int_eq(f.cr.verdict, V_PASS);
    ck_assert(!limits_reduced_precision(&f.g, &f.ex, &f.v, &f.c, &f.cr));
    release(&f);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("limits");
    TCase *tc = tcase_create("limits");
    tcase_add_test(tc, test_within_limits_passes);
    tcase_add_test(tc, test_noisy_pairs_past_limit_is_finding);
    tcase_add_test(tc, test_cheat_past_limit_is_ch);
    tcase_add_test(tc, test_short_calls_judged);
    tcase_add_test(tc, test_binding_limit_only);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
