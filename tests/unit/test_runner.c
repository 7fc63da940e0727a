/* runner: the job a runner program reads (job.txt, harness version 2), built from lab 6's spec,
 * and the harness's result.txt read back, with every rule that marks a run as tampered with.
 * Which calls are timed behind the blocking kernel is decided here: the device-pointer variants
 * only, as a host-pointer function copies and waits inside the call by design. Run from the
 * repository root. */
#include "run/runner.h"
#include "base/alloc.h"
#include "spec/plan.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

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

/* The job text for one variant of matmul on its first two cases (n256, n1024). */
static char *job_text(const struct variant_spec *v, bool blocking)
{
    const struct exercise_spec *ex = lab_exercise(&lab, "matmul");
    const struct case_spec *cases[2] = {&ex->cases[0], &ex->cases[1]};
    double limits[2] = {60, 60};
    struct run_spec s = {0};
    struct strbuf out;
    strbuf_init(&out);
    s.lab = &lab;
    s.ex = ex;
    s.v = v;
    s.cases = cases;
    s.n_cases = 2;
    s.case_timeout_s = limits;
    s.checks = 2;
    s.time = true;
    s.timing = ex->timing;
    s.timing.blocking = blocking;
    s.reference_lib = "/cache/matmul-gpu_dev/libref.so";
    runner_job_text(&s, &out);
    return strbuf_detach(&out);
}

static const struct variant_spec *matmul_variant(const char *id)
{
    const struct variant_spec *v = exercise_variant(lab_exercise(&lab, "matmul"), id);
    ck_assert_ptr_nonnull(v);
    return v;
}

START_TEST(test_job_cases_arguments_and_tolerances)
{
    char *job = job_text(matmul_variant("gpu_dev"), true);
    ck_assert_ptr_nonnull(strstr(job, "harness 2\nfunction matmul_gpu_dev\ntarget gpu\ntime 1\n"
                                      "reference_lib /cache/matmul-gpu_dev/libref.so\n"));
    /* Every timing key, from the spec: the harness has no defaults of its own. The spec's
     * relative standard error (1%) is a 95% interval's half-width of 1.96 of it. */
    ck_assert_ptr_nonnull(strstr(job, "\nwarmup 2\nmin_pairs 10\nmax_pairs 200\ntarget_ci 0.0196\n"
                                      "budget 0.4\nflush_l2 0\nblocking 1\ntransfer 1\n"
                                      "transfer_from host\n"));
    /* One section per case, in order, each with its seeds, arguments and tolerances. */
    const char *c0 = strstr(job, "\ncase n256\nchecks 2\nseed 0 ");
    const char *c1 = strstr(job, "\ncase n1024\nchecks 2\nseed 0 ");
    ck_assert(c0 && c1 && c0 < c1);
    ck_assert_ptr_nonnull(strstr(c0, "\narg A in f32 65536 device uniform 0 1\n"));
    ck_assert_ptr_nonnull(strstr(c0, "\narg C out f32 65536 device uniform 0 1\n"
                                     "tol C 0.002 0.001 0\n"));
    ck_assert_ptr_nonnull(strstr(c0, "\narg n scalar i32 1 host constant 256 0\nend\n"));
    ck_assert_ptr_nonnull(strstr(c1, "\narg A in f32 1048576 device uniform 0 1\n"));
    free(job);
    job = job_text(matmul_variant("gpu"), true);
    ck_assert_ptr_nonnull(strstr(job, "\narg A in f32 65536 host uniform 0 1\n"));
    free(job);
}
END_TEST

START_TEST(test_seeds_differ_per_check_and_repeat)
{
    const struct exercise_spec *ex = lab_exercise(&lab, "matmul");
    uint64_t a[2], b[2];
    plan_seeds(&lab, ex, &ex->cases[0], 2, a);
    plan_seeds(&lab, ex, &ex->cases[0], 2, b);
    ck_assert(a[0] == b[0] && a[1] == b[1]); /* a re-grade draws the same inputs */
    ck_assert(a[0] != a[1]);                 /* every checked call gets fresh ones */
    ck_assert(a[0] == ex->cases[0].seeds[0] && a[1] == ex->cases[0].seeds[1]);
    ck_assert(ex->cases[0].seeds[0] != ex->cases[1].seeds[0]);
}
END_TEST

START_TEST(test_blocking_for_device_pointers_only)
{
    char *job = job_text(matmul_variant("gpu_dev"), true);
    ck_assert_ptr_nonnull(strstr(job, "\nblocking 1\n"));
    free(job);
    /* Host pointers: the function copies the results back, so it waits inside the call. */
    job = job_text(matmul_variant("gpu"), true);
    ck_assert_ptr_nonnull(strstr(job, "\nblocking 0\n"));
    free(job);
    job = job_text(matmul_variant("cpu"), true);
    ck_assert_ptr_nonnull(strstr(job, "\nblocking 0\n"));
    free(job);
    /* Pinned host memory is still host memory. */
    struct variant_spec pinned = *matmul_variant("gpu_dev");
    pinned.memory = MEM_PINNED;
    pinned.n_mem = 0;
    job = job_text(&pinned, true);
    ck_assert_ptr_nonnull(strstr(job, "\nblocking 0\n"));
    free(job);
    /* Not asked for: never. */
    job = job_text(matmul_variant("gpu_dev"), false);
    ck_assert_ptr_nonnull(strstr(job, "\nblocking 0\n"));
    free(job);
}
END_TEST

/* ---- result.txt read back ---- */

static void parse(struct run_outcome *o, size_t n_cases, const char *text)
{
    run_outcome_init(o);
    o->n_cases = n_cases;
    o->cases = calloc(n_cases, sizeof(*o->cases));
    runner_parse_result(o, text);
}

#define CASE0 "harness 2\ntimesource vdso\ncase 0 begin\nphase setup\n"
#define CHECKS "phase check 0\ncheck 0 done\nphase check 1\ncheck 1 done\n"

START_TEST(test_cases_in_order)
{
    struct run_outcome o;
    parse(&o, 2,
          CASE0 CHECKS "case 0 end\ncase 1 begin\nphase setup\n" CHECKS "case 1 end\nstatus ok\n");
    ck_assert_ptr_null(o.tampered);
    ck_assert(o.finished && o.cases[0].finished && o.cases[1].finished);
    ck_assert_int_eq(o.cases[1].checks_done, 2);
    run_outcome_release(&o);
    /* Died in the second case's first checked call. */
    parse(&o, 2, CASE0 CHECKS "case 0 end\ncase 1 begin\nphase setup\nphase check 0\n");
    ck_assert_ptr_null(o.tampered);
    ck_assert(!o.finished && o.cases[0].finished && !o.cases[1].finished);
    ck_assert_int_eq(o.last_case, 1);
    ck_assert_str_eq(o.cases[1].phase, "check 0");
    run_outcome_release(&o);
    /* Out of order, repeated, a line outside a case, anything after the last: forged. */
    const char *forged[] = {
        "harness 2\ncase 1 begin\n",
        CASE0 "case 0 end\ncase 0 begin\n",
        CASE0 "case 0 end\nphase check 0\n",
        CASE0 "case 0 end\nstatus ok\nstatus ok\n",
        CASE0 "check 1 done\n",
        "harness 1\ncase 0 begin\n",
    };
    for (size_t i = 0; i < sizeof(forged) / sizeof(forged[0]); i++) {
        parse(&o, 2, forged[i]);
        ck_assert_msg(o.tampered != NULL, "not caught: %s", forged[i]);
        run_outcome_release(&o);
    }
}
END_TEST

START_TEST(test_error_lines)
{
    struct run_outcome o;
    /* The harness's own, before student code ran: trusted. */
    parse(&o, 1, "harness 2\nerror nogpu no CUDA-capable device\n");
    ck_assert_str_eq(o.error_kind, "nogpu");
    ck_assert_ptr_null(o.tampered);
    run_outcome_release(&o);
    parse(&o, 1, CASE0 "error setup cannot allocate x\n");
    ck_assert_str_eq(o.error_kind, "setup");
    ck_assert_int_eq(o.error_case, 0);
    ck_assert_ptr_null(o.tampered);
    run_outcome_release(&o);
    /* A CUDA error after a call is the submission's, and stays so. */
    parse(&o, 1, CASE0 "phase check 0\nerror cuda illegal address\n");
    ck_assert_str_eq(o.error_kind, "cuda");
    ck_assert_ptr_null(o.tampered);
    run_outcome_release(&o);
    /* Anything else after the student's code ran (an exit handler): forged. */
    parse(&o, 1, CASE0 CHECKS "case 0 end\nerror nogpu no CUDA-capable device\n");
    ck_assert_ptr_null(o.error_kind);
    ck_assert_msg(o.tampered && strstr(o.tampered, "after student code had run"), "%s",
                  o.tampered ? o.tampered : "(not tampered)");
    run_outcome_release(&o);
    /* The harness exits after its error line: a second one is forged. */
    parse(&o, 1, CASE0 "phase check 0\nerror cuda a\nerror cuda b\n");
    ck_assert_ptr_nonnull(o.tampered);
    run_outcome_release(&o);
}
END_TEST

START_TEST(test_series_and_samples)
{
    struct run_outcome o;
    parse(&o, 1,
          CASE0 CHECKS "phase warmup call\nblocking on\nphase time call\n"
                       "series call 3 1 1\nsamples call stu_event 1.5 1.25 \\\n"
                       "1.0\nsamples call stu_host 2 2 2\nsamples call ref_event 3 3 3\n"
                       "samples call ref_host 4 4 4\norder call 010\n"
                       "clock call 1755 1980\nthrottle call 2 0 1980\n"
                       "tail call 0.0213 0.0020 0.0015\nchecks call 1.5 20.25\ncase 0 end\n"
                       "status ok\n");
    ck_assert_ptr_null(o.tampered);
    const struct run_series *s = &o.cases[0].series[RUN_SERIES_CALL];
    ck_assert(s->present && s->paired && s->blocked);
    ck_assert_uint_eq(s->n, 3);
    ck_assert(s->stu_event[0] == 1.5 && s->stu_event[2] == 1.0 && s->ref_host[1] == 4);
    ck_assert_str_eq(s->order, "010");
    ck_assert_int_eq(s->clock_min_mhz, 1755);
    ck_assert_int_eq(s->throttle_dropped, 2);
    ck_assert_int_eq(s->throttle_max_mhz, 1980);
    ck_assert(s->has_tail && s->tail_stu_ms == 0.0213 && s->tail_ref_ms == 0.0020 &&
              s->tail_idle_ms == 0.0015);
    ck_assert(s->checks_ms == 1.5 && s->draws_ms == 20.25);
    ck_assert_int_eq(o.cases[0].blocking, 1);
    ck_assert(!o.cases[0].series[RUN_SERIES_TRANSFER].present);
    run_outcome_release(&o);
    /* A count that does not match, a repeated series or samples, numbers that are not: forged. */
    const char *forged[] = {
        CASE0 "series call 2 0 0\nsamples call stu_host 1 2 3\n",
        CASE0 "series call 1 0 0\nseries call 1 0 0\n",
        CASE0 "series call 1 0 0\nsamples call stu_host 1\nsamples call stu_host 1\n",
        CASE0 "series call 1 0 0\nsamples call stu_host nan\n",
        CASE0 "samples call stu_host 1\n",
        CASE0 "series sideways 1 0 0\n",
        CASE0 "series call 1 0 0\nsamples call stu_host 1\ntail call 1 1 1\ntail call 0 0 0\n",
        CASE0 "series call 1 0 0\nsamples call stu_host 1\ntail call 1 x\n",
        CASE0 "series call 1 0 0\nsamples call stu_host 1\nchecks call 0.1\n",
        CASE0 "series call 1 0 0\nsamples call stu_host 1\nchecks call 0.1 -3\n",
    };
    for (size_t i = 0; i < sizeof(forged) / sizeof(forged[0]); i++) {
        parse(&o, 1, forged[i]);
        ck_assert_msg(o.tampered != NULL, "not caught: %s", forged[i]);
        run_outcome_release(&o);
    }
    /* Cut off before its samples: the series does not count. */
    parse(&o, 1, CASE0 "series call 2 0 0\n");
    ck_assert_ptr_null(o.tampered);
    ck_assert(!o.cases[0].series[RUN_SERIES_CALL].present);
    run_outcome_release(&o);
    /* Cut off inside a line of samples continued on the next (fuzz_runlog: the grader then
     * read 1000 samples of an array of 2): the series does not count either. */
    parse(&o, 1, CASE0 "series call 1000 0 0\nsamples call stu_host 1 2 \\\n");
    ck_assert_ptr_null(o.tampered);
    ck_assert(!o.cases[0].series[RUN_SERIES_CALL].present);
    run_outcome_release(&o);
    parse(&o, 1,
          CASE0
          "series call 4 1 0\nsamples call stu_host 1 2 3 4\nsamples call ref_host 1 \\\n2 \\");
    ck_assert_ptr_null(o.tampered);
    ck_assert(!o.cases[0].series[RUN_SERIES_CALL].present);
    run_outcome_release(&o);
}
END_TEST

/* The control pipe's lines, as the supervisor timestamped them. */
static void control(struct run_outcome *o, size_t n_cases, const char *const *lines,
                    const double *t, size_t n)
{
    parse(o, n_cases, "");
    o->sb.events = calloc(n, sizeof(*o->sb.events));
    for (size_t i = 0; i < n; i++) {
        snprintf(o->sb.events[i].line, sizeof(o->sb.events[i].line), "%s", lines[i]);
        o->sb.events[i].t_s = o->sb.events[i].t_after_s = t[i];
    }
    o->sb.n_events = n;
    o->sb.wall_s = t[n - 1] + 0.5;
    struct run_spec s = {0};
    s.n_cases = n_cases;
    runner_apply_events(&s, o);
}

START_TEST(test_stages)
{
    struct run_outcome o;
    const char *lines[] = {"B 0",        "P 0 checks",   "W 0",
                           "P 0 warmup", "S 0 call",     "E 0 call 2000.000 10 0 0",
                           "P 0 warmup", "S 0 transfer", "E 0 transfer 1000.000 10 0 0",
                           "R 0",        "B 1",          "P 1 checks"};
    const double t[] = {1, 1.25, 1.75, 2, 2.5, 4.5, 5, 5.25, 6.25, 6.5, 7, 7.5};
    control(&o, 2, lines, t, 12);
    ck_assert_ptr_null(o.tampered);
    const double *st = o.cases[0].stage_s;
    ck_assert(st[RUN_STAGE_SETUP] == 0.25 && st[RUN_STAGE_CHECKED] == 0.5);
    ck_assert(st[RUN_STAGE_QUEUE] == 0.25); /* waiting for the timing locks */
    ck_assert(st[RUN_STAGE_WARMUP] == 0.5 + 0.25 && st[RUN_STAGE_TIMED] == 2 + 1);
    ck_assert(st[RUN_STAGE_AFTER] == 0.5 + 0.25 + 0.5);
    ck_assert(o.cases[0].wall_s == 6);
    ck_assert(o.cases[0].series[RUN_SERIES_CALL].supervisor_span_ms == 2000);
    /* The last case runs to the end of the run. */
    ck_assert(o.cases[1].stage_s[RUN_STAGE_SETUP] == 0.5);
    ck_assert(o.cases[1].stage_s[RUN_STAGE_CHECKED] == 0.5);
    run_outcome_release(&o);
    /* A stage of a case not running, a stage the harness has no name for, a stage inside a
     * series; the timing locks asked for twice in a case, given back before they were asked
     * for, asked for or given back inside a series: lines the harness does not send. */
    const char *bad[][4] = {{"B 0", "P 1 checks", "P 0 warmup", "P 0 warmup"},
                            {"B 0", "P 0 sleeping", "P 0 warmup", "P 0 warmup"},
                            {"B 0", "S 0 call", "P 0 checks", "P 0 checks"},
                            {"B 0", "W 0", "W 0", "P 0 warmup"},
                            {"B 0", "R 0", "W 0", "P 0 warmup"},
                            {"B 0", "W 0", "S 0 call", "R 0"},
                            {"B 0", "W 0", "R 0", "R 0"},
                            /* Before the first case: a constructor of the submission's wrote
                             * a series of case -1 (once a write to o->cases[-1]), or asked for
                             * the locks. */
                            {"S -1 call", "E -1 call 1.000 1 0 0", "B 0", "P 0 checks"},
                            {"W -1", "B 0", "P 0 checks", "P 0 warmup"},
                            {"P -1 checks", "B 0", "P 0 checks", "P 0 warmup"}};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        control(&o, 2, bad[i], t, 4);
        ck_assert_msg(o.tampered != NULL, "not caught: %s, %s, %s", bad[i][1], bad[i][2],
                      bad[i][3]);
        run_outcome_release(&o);
    }
}
END_TEST

START_TEST(test_incidents)
{
    struct run_outcome o;
    parse(&o, 1,
          CASE0 "phase check 0\nunready 0 z\nguard 0 z 0 24 8000\nmodified 0 x\ncheck 0 done\n"
                "phase check 1\nunready 1 z\ncheck 1 done\ntimed_mismatch call 7 z 12 3\n");
    ck_assert_ptr_null(o.tampered);
    const struct run_case_outcome *c = &o.cases[0];
    ck_assert_uint_eq(c->n_guards, 1);
    ck_assert_str_eq(c->guards[0].arg, "z");
    ck_assert(c->guards[0].after == 24 && c->guards[0].first == 8000 && !c->guards[0].series);
    ck_assert_uint_eq(c->n_modified, 1);
    /* An output not ready at return, on both checked calls: named once. */
    ck_assert_uint_eq(c->n_unready, 1);
    ck_assert_str_eq(c->unready[0], "z");
    ck_assert_ptr_nonnull(c->timed_mismatch);
    ck_assert_int_eq(c->timed_mismatch->call, 7);
    ck_assert(c->timed_mismatch->count == 12 && c->timed_mismatch->first == 3);
    ck_assert_str_eq(c->timed_mismatch->series, "call");
    run_outcome_release(&o);
    parse(&o, 1, CASE0 "timed_mismatch call 1 z 1 0\ntimed_mismatch call 2 z 1 0\n");
    ck_assert_ptr_nonnull(o.tampered); /* the harness stops at the first */
    run_outcome_release(&o);
    /* A damaged byte before the buffer is a negative index: the harness's. */
    parse(&o, 1, CASE0 "phase check 0\nguard 0 z 3 0 -3\n");
    ck_assert_ptr_null(o.tampered);
    ck_assert(o.cases[0].n_guards == 1 && o.cases[0].guards[0].first == -3);
    run_outcome_release(&o);
    /* Counts no buffer holds (fuzz_runlog: two of them added overflowed, undefined behaviour
     * in the grader), negative counts: written by the submission. */
    const char *forged[] = {
        CASE0 "guard 0 z 9223372036854775807 1 0\n",
        CASE0 "guard 0 z -1 0 0\n",
        CASE0 "timed_mismatch call 1 z -5 0\n",
        CASE0 "precision_mismatch z 1 -9223372036854775807\n",
    };
    for (size_t i = 0; i < sizeof(forged) / sizeof(forged[0]); i++) {
        parse(&o, 1, forged[i]);
        ck_assert_msg(o.tampered != NULL, "not caught: %s", forged[i]);
        run_outcome_release(&o);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("runner");
    TCase *tc = tcase_create("job");
    tcase_add_checked_fixture(tc, load_lab6, unload_lab6);
    tcase_add_test(tc, test_job_cases_arguments_and_tolerances);
    tcase_add_test(tc, test_seeds_differ_per_check_and_repeat);
    tcase_add_test(tc, test_blocking_for_device_pointers_only);
    suite_add_tcase(s, tc);
    TCase *rc = tcase_create("result");
    tcase_add_test(rc, test_cases_in_order);
    tcase_add_test(rc, test_error_lines);
    tcase_add_test(rc, test_series_and_samples);
    tcase_add_test(rc, test_incidents);
    tcase_add_test(rc, test_stages);
    suite_add_tcase(s, rc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
