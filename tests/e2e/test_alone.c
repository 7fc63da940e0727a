/*
 * A case whose pair would cost more than its time budget times the function alone: one call,
 * against the reference's own time measured once on this machine, its output checked after the
 * turn by the reference on the same inputs (grader/harness/timing.h; docs/timing.md, "When a
 * series stops"). The CPU test lab and the exploit lab with budgets far under their references'
 * calls: the solution passes, timed once with a speed-up; a function that works only when it
 * is checked is still WA on its timed call; one that leaves work running after it returns
 * cannot finish its outputs before they are checked.
 *
 * No assertion bounds how long anything took; the suite's watchdog bounds a hang.
 */
#include "e2e.h"

static char *tmp_dir;

static void sh(const char *cmd)
{
    ck_assert_msg(system(cmd) == 0, "%s", cmd);
}

/* A copy of a fixture lab whose every series has a budget of 10 microseconds: every pair costs
 * more, so each case whose reference is known takes the function alone. */
static char *tiny_budget_lab(const char *fixture, const char *name)
{
    char *lab = xstrfmt("%s/%s", tmp_dir, name);
    char *cmd = xstrfmt("cp -r '%s' '%s' && sed -i -E 's/budget: [0-9.]+/budget: 0.00001/' "
                        "'%s/lab.yaml' && grep -q 'budget: 0.00001' '%s/lab.yaml'",
                        fixture, lab, lab, lab);
    sh(cmd);
    free(cmd);
    return lab;
}

/* The solution with one file of it replaced (NULL: none). */
static char *submission(const char *fixture, const char *name, const char *exploit_file)
{
    char *sub = xstrfmt("%s/%s", tmp_dir, name);
    char *cmd = exploit_file ? xstrfmt("cp -r '%s/solution' '%s' && cp '%s' '%s/'", fixture, sub,
                                       exploit_file, sub)
                             : xstrfmt("cp -r '%s/solution' '%s'", fixture, sub);
    sh(cmd);
    free(cmd);
    return sub;
}

/* `grader check` of sub, timed, on case `case_id` of exercise `only` alone (one process per
 * case: the exploits count their calls across the cases of a process). */
static void check(const char *lab, const char *sub, const char *student, const char *only,
                  const char *case_id, struct results *r)
{
    char *out = xstrfmt("%s/out", tmp_dir), *log = xstrfmt("%s/%s.log", tmp_dir, student);
    const char *argv[] = {e2e_bin(),   "check",    lab,         "--submission", sub,
                          "--student", student,    "--only",    only,           "--case",
                          case_id,     "--no-pdf", "--no-html", "--quiet",      "--out",
                          out,         NULL};
    int status = e2e_run(argv, log);
    char *cmd = xstrfmt("ls %s/*/%s/results.json > %s/%s.path", out, student, tmp_dir, student);
    sh(cmd);
    char *listing = xstrfmt("%s/%s.path", tmp_dir, student);
    struct strbuf path = STRBUF_INIT;
    struct error err;
    ck_assert_int_eq(read_file(listing, &path, NULL), 0);
    path.buf[strcspn(path.buf, "\n")] = '\0';
    results_init(r);
    char *tail = e2e_log_tail(log);
    ck_assert_msg(results_read(r, path.buf, &err) == 0, "%s: %s (exit %d): %s", student, err.msg,
                  status, tail);
    free(tail);
    strbuf_release(&path);
    free(listing);
    free(cmd);
    free(log);
    free(out);
}

static const struct case_result *case_of(const struct results *r, const char *ex,
                                         const char *case_id)
{
    const struct variant_result *vr = e2e_variant(r, ex, "cpu");
    ck_assert_ptr_nonnull(vr);
    for (size_t c = 0; c < vr->n_cases; c++)
        if (!strcmp(vr->cases[c].case_id, case_id))
            return &vr->cases[c];
    ck_abort_msg("no case %s/%s", ex, case_id);
    return NULL;
}

static void setup(void)
{
    tmp_dir = e2e_tmpdir("alone");
    ck_assert_ptr_nonnull(tmp_dir);
}

static void teardown(void)
{
    char *cmd = xstrfmt("rm -rf '%s'", tmp_dir);
    sh(cmd);
    free(cmd);
    free(tmp_dir);
}

/* The solution: passed, timed once against the reference's own time, with a speed-up and the
 * finding that says how. */
START_TEST(test_solution_timed_alone)
{
    char *lab = tiny_budget_lab("tests/fixtures/labcpu", "labcpu");
    char *sub = submission("tests/fixtures/labcpu", "solution", NULL);
    struct results r;
    check(lab, sub, "solution", "saxpy", "n100k", &r);
    const struct case_result *cr = case_of(&r, "saxpy", "n100k");
    char *failed = e2e_failed_cases(&r);
    ck_assert_msg(cr->verdict == V_PASS, "%s", failed);
    free(failed);
    if (e2e_timed("saxpy/cpu n100k", cr)) {
        ck_assert_str_eq(cr->stopped, "alone");
        ck_assert_int_eq(cr->pairs, 1);
        ck_assert(cr->speedup_ref > 0 && cr->ref_time.valid);
        bool said = false;
        for (size_t f = 0; f < cr->n_findings; f++)
            said = said || strstr(cr->findings[f], "timed once, against the reference's own time");
        ck_assert(said);
    }
    results_release(&r);
    free(sub);
    free(lab);
}
END_TEST

/* Correct when checked, wrong when timed: caught on its one timed call all the same. */
START_TEST(test_call_counting_caught_alone)
{
    char *lab = tiny_budget_lab("tests/fixtures/labcpu", "labcpu");
    char *sub =
        submission("tests/fixtures/labcpu", "counting", "tests/exploits/call_counting/saxpy.c");
    struct results r;
    check(lab, sub, "counting", "saxpy", "n100k", &r);
    const struct case_result *cr = case_of(&r, "saxpy", "n100k");
    ck_assert_msg(cr->verdict == V_WRONG && cr->message &&
                      strstr(cr->message, "wrong on timed call 1"),
                  "%s: %s", verdict_code(cr->verdict), cr->message ? cr->message : "");
    results_release(&r);
    free(sub);
    free(lab);
}
END_TEST

/* Work left running after the call returns cannot finish the outputs before they are checked:
 * they are fenced until then (WA, or the fault's signal). */
START_TEST(test_lazy_thread_caught_alone)
{
    char *lab = tiny_budget_lab("tests/fixtures/labexploit", "labexploit");
    /* A call as long as alone mode's are in a lab (about 10 ms of work here): at 100k elements
     * (50 us) a machine loaded enough to keep the grader off its core for that long right after
     * each of the three calls returned let the thread finish unseen, and the test failed once in
     * CI (the race tests/exploits/lazy_thread/vmul.c's header names). */
    char *cmd =
        xstrfmt("sed -i 's/{id: n100k, sizes: {n: 100000}}/{id: n4M, sizes: {n: 4000000}}/' "
                "'%s/lab.yaml' && grep -q 'id: n4M' '%s/lab.yaml'",
                lab, lab);
    sh(cmd);
    free(cmd);
    char *sub =
        submission("tests/fixtures/labexploit", "lazy", "tests/exploits/lazy_thread/vmul.c");
    struct results r;
    check(lab, sub, "lazy", "vmul", "n4M", &r);
    const struct case_result *cr = case_of(&r, "vmul", "n4M");
    ck_assert_msg(cr->verdict == V_WRONG || cr->verdict == V_CRASH, "%s: %s",
                  verdict_code(cr->verdict), cr->message ? cr->message : "");
    results_release(&r);
    free(sub);
    free(lab);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("alone");
    TCase *tc = tcase_create("alone");
    tcase_set_timeout(tc, 600);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_solution_timed_alone);
    tcase_add_test(tc, test_call_counting_caught_alone);
    tcase_add_test(tc, test_lazy_thread_caught_alone);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
