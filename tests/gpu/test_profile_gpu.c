/*
 * --profile on a GPU machine (make test-gpu), end to end with the real grader and the real
 * Nsight Compute, on the profile test lab (tests/fixtures/profile/lab.yaml, case n16m):
 *
 *   uncoalesced  neighbouring threads 4 MiB apart: both sides profiled, the diagnosis names
 *                uncoalesced access (sectors per request well above the reference's) and the
 *                report says so in words, naming the line of the excess sectors (ncu's source
 *                page: scale_gpu.cu:12);
 *   starved      48 KiB of shared memory per 64-thread block: the diagnosis names low
 *                occupancy with shared memory as its limiter, and the report says so.
 *
 * Both pass every case: profiling never changes a verdict. The cross-check of ncu's kernel
 * time against the grader's own is printed, not asserted (a disagreement is a finding).
 * Every real output ncu gave (the profiling run's output, the imported CSV) is copied to
 * $LG_PROFILE_CAPTURE (default build/tests/ncu-capture/) to replace the hand-written fixtures
 * of tests/fixtures/ncu/ (see the README there).
 *
 * Without a GPU the suite still checks the one line a report gets ("not profiled: there is no
 * GPU here.") and prints "skipped:" with the reason.
 */
#include "../e2e/e2e.h"

#include "grade/profile.h"
#include "report/phrases.h"
#include "report/profile.h"

static char *out_dir;

static void setup(void)
{
    if (!out_dir)
        out_dir = e2e_tmpdir("profile");
}

/* A GPU variant under ncu: two runs of at most ncu_wall_limit(30 s) = 600 s each. */
#define WATCHDOG_S 1500

struct graded {
    int status;
    char *log, *report;
    struct results r;
};

static void grade(const char *fixture, struct graded *g)
{
    char *sub = xstrfmt("tests/fixtures/profile/%s", fixture);
    g->log = xstrfmt("%s/%s.log", out_dir, fixture);
    const char *argv[] = {e2e_bin(),      "check",     "tests/fixtures/profile",
                          "--submission", sub,         "--student",
                          fixture,        "--out",     out_dir,
                          "--lang",       "en",        "--no-pdf",
                          "--keep",       "--profile", NULL};
    g->status = e2e_run(argv, g->log);
    char *json = xstrfmt("%s/lab96/%s/results.json", out_dir, fixture);
    g->report = xstrfmt("%s/lab96/%s/report.md", out_dir, fixture);
    struct error err;
    results_init(&g->r);
    ck_assert_msg(results_read(&g->r, json, &err) == 0, "%s: %s (log %s)", fixture, err.msg,
                  g->log);
    free(json);
    free(sub);
}

static void graded_release(struct graded *g)
{
    results_release(&g->r);
    free(g->log);
    free(g->report);
}

static bool report_says(const struct graded *g, const char *what)
{
    struct strbuf sb = STRBUF_INIT;
    bool found = read_file(g->report, &sb, NULL) == 0 && strstr(sb.buf, what) != NULL;
    strbuf_release(&sb);
    return found;
}

/* ncu's real outputs, kept (--keep) in the work folders, copied for the fixtures. */
static void capture(const char *fixture)
{
    const char *dest = getenv("LG_PROFILE_CAPTURE");
    char *script = xstrfmt(
        "mkdir -p \"$2\" && find \"$1/.work\" -type d -name 'profile-*' | while read -r d; do "
        "n=$(basename \"$d\"); for f in profile-run.txt profile.csv profile-source.csv; do "
        "[ -f \"$d/$f\" ] && cp \"$d/$f\" \"$2/$3-$n-$f\"; done; done; true");
    const char *argv[] = {"/bin/sh", "-c",    script,
                          "sh",      out_dir, dest && *dest ? dest : "build/tests/ncu-capture",
                          fixture,   NULL};
    e2e_run(argv, NULL);
    free(script);
}

/* Without a GPU: the variant's profile is one line saying so, and the grade stands. */
static bool no_gpu_here(const struct graded *g)
{
    if (g->r.machine.gpu_name)
        return false;
    const struct variant_result *vr = e2e_variant(&g->r, "scale", "gpu");
    ck_assert_msg(vr && vr->profile, "no profile recorded for scale/gpu (log %s)", g->log);
    ck_assert_int_eq(vr->profile->student.status, PROFILE_SKIPPED);
    ck_assert_int_eq(vr->profile->student.reason, PROFILE_NO_GPU);
    ck_assert_str_eq(vr->profile->case_id, "n16m"); /* the spec's profile: {case} */
    ck_assert_msg(report_says(g, "there is no GPU here"), "report %s", g->report);
    printf("profile-gpu: skipped: no GPU here (%s)\n",
           g->r.machine.gpu_status ? g->r.machine.gpu_status : "none seen");
    fflush(stdout);
    return true;
}

/* On a GPU: every case passed, both sides profiled; the diagnosis. */
static void profiled(const struct graded *g, struct profile_diagnosis *d)
{
    ck_assert_msg(g->status == 0, "exit %d: profiling must not fail a grading (log %s)", g->status,
                  g->log);
    ck_assert_int_eq(g->r.n_fail, 0);
    ck_assert_int_eq(g->r.n_grader_errors, 0);
    const struct variant_result *vr = e2e_variant(&g->r, "scale", "gpu");
    ck_assert_msg(vr && vr->profile, "no profile recorded (log %s)", g->log);
    const struct variant_profile *p = vr->profile;
    ck_assert_str_eq(p->case_id, "n16m");
    ck_assert_msg(p->student.status == PROFILE_RAN, "student side %s %s: %s (log %s)",
                  profile_status_name(p->student.status), profile_reason_name(p->student.reason),
                  p->student.detail ? p->student.detail : "", g->log);
    ck_assert_msg(p->reference.status == PROFILE_RAN, "reference side %s %s: %s (log %s)",
                  profile_status_name(p->reference.status),
                  profile_reason_name(p->reference.reason),
                  p->reference.detail ? p->reference.detail : "", g->log);
    profile_diagnose(&p->student.prof, &p->reference.prof, d);
    ck_assert_int_ge(d->kernel, 0);
    printf("profile-gpu: %s: ncu %.4f ms against the grader's %.4f ms per call (%s); "
           "reference %.4f against %.4f (%s)\n",
           g->r.student_id, p->check.ncu_ms, p->check.event_ms,
           !p->check.done   ? "not compared"
           : p->check.agree ? "agree"
                            : "DISAGREE",
           p->ref_check.ncu_ms, p->ref_check.event_ms,
           !p->ref_check.done   ? "not compared"
           : p->ref_check.agree ? "agree"
                                : "DISAGREE");
    fflush(stdout);
}

/* The source page named the line the excess sectors come from, and the explanation says it. */
static void excess_line_named(const struct graded *g, const struct profile_diagnosis *d)
{
    const struct variant_profile *p = e2e_variant(&g->r, "scale", "gpu")->profile;
    const struct ncu_line *l = &p->student.prof.kernels[d->kernel].excess_line;
    ck_assert_msg(d->line == PROFILE_LINE_EXCESS && l->file,
                  "no source line for the excess sectors (see profile-source.csv under --keep; "
                  "log %s)",
                  g->log);
    ck_assert_str_eq(l->file, "scale_gpu.cu");
    ck_assert_int_eq(l->line, 12);
    /* The line's own text, read from the file compiled where ncu could not open it (the
     * sandboxed path): never ncu's "<Unable to open source file>". */
    ck_assert_msg(l->source && *l->source && !strstr(l->source, "Unable to open"),
                  "the line's text: %s", l->source ? l->source : "(none)");
    struct strings s;
    struct error err;
    size_t n;
    strings_init(&s);
    ck_assert_msg(strings_load(&s, "templates/en/strings.txt", &err) == 0, "%s", err.msg);
    char **list = profile_sentences(&s, false, p, &n);
    bool named = false;
    for (size_t i = 0; i < n; i++)
        named |= strstr(list[i], "scale_gpu.cu:12") != NULL;
    printf(
        "profile-gpu: excess sectors from %s:%ld \"%s\" (%.0f%%, %.0f%% of its sectors wasted)\n",
        l->file, l->line, l->source, 100 * l->share, 100 * l->wasted);
    ck_assert_msg(named, "the explanation does not name scale_gpu.cu:12");
    profile_sentences_free(list);
    strings_release(&s);
}

START_TEST(test_uncoalesced_named)
{
    struct graded g;
    grade("uncoalesced", &g);
    capture("uncoalesced");
    if (!no_gpu_here(&g)) {
        struct profile_diagnosis d;
        profiled(&g, &d);
        ck_assert_msg(d.causes & PROFILE_UNCOALESCED,
                      "not named uncoalesced: %.1f sectors per request against the reference's "
                      "%.1f (causes %#x; log %s)",
                      d.sectors_per_request, d.ref_sectors_per_request, d.causes, g.log);
        ck_assert_msg(!(d.causes & PROFILE_LOW_OCCUPANCY), "occupancy blamed too");
        ck_assert_msg(report_says(&g, "uncoalesced"), "the report %s does not say it", g.report);
        excess_line_named(&g, &d);
    }
    graded_release(&g);
}
END_TEST

START_TEST(test_starved_named)
{
    struct graded g;
    grade("starved", &g);
    capture("starved");
    if (!no_gpu_here(&g)) {
        struct profile_diagnosis d;
        profiled(&g, &d);
        ck_assert_msg(d.causes & PROFILE_LOW_OCCUPANCY,
                      "low occupancy not named (causes %#x; "
                      "log %s)",
                      d.causes, g.log);
        ck_assert_msg(d.limiter == NCU_LIMIT_SMEM, "limiter %s, expected shared memory",
                      d.limiter >= 0 ? ncu_metric_key((enum ncu_metric)d.limiter) : "none");
        ck_assert_msg(!(d.causes & PROFILE_UNCOALESCED), "coalescing blamed too");
        ck_assert_msg(report_says(&g, "limited by shared memory"), "the report %s does not say it",
                      g.report);
    }
    graded_release(&g);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("profile_gpu");
    TCase *tc = tcase_create("core");
    tcase_add_unchecked_fixture(tc, setup, NULL);
    tcase_set_timeout(tc, WATCHDOG_S);
    tcase_add_test(tc, test_uncoalesced_named);
    tcase_add_test(tc, test_starved_named);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
