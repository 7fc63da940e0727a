/*
 * Hostile submissions on the CPU: grade each submission of tests/hostile/ (one threat each:
 * crash, hang, fork bomb, huge output, huge file, writing or reading outside the sandbox,
 * network, leftover daemons, killing other processes, forged results, compile-time bombs,
 * forbidden includes, exit(0), ignored signals, modified inputs, no or half the work when timed,
 * the previous output returned, all memory allocated) with the real grader, and assert the exact
 * verdicts, that grading goes on with the other exercise and the next student, and that nothing
 * outside the scratch folders changed (tests/hostile/hostile.h says how). The GPU threats are in
 * tests/gpu/test_hostile_gpu.c; docs/threat-model.md describes what each isolation level
 * protects.
 *
 * The threats are graded several at a time (LG_HOSTILE_JOBS, default one per CPU, from two
 * to eight) in the suite's setup, grade2 alone (the exercise of every hostile function;
 * matmul is graded before it); each test then checks one threat's outcome. Threats that only
 * namespaces contain (files, network, other processes) are skipped, with a "SKIPPED: reason"
 * line, when the grader reports isolation "supervisor". memory_hog runs everywhere: the
 * grader holds the memory limit with a cgroup's memory.max or, without one, its own watcher.
 */
#include "../hostile/hostile.h"

static struct hostile_suite suite;

static void message_has(const struct hostile_run *run, const char *ex, const char *var,
                        const char *text)
{
    const struct case_result *cr = hostile_case(run, ex, var);
    ck_assert(cr != NULL);
    ck_assert_msg(cr->message && strstr(cr->message, text), "%s/%s: message '%s' lacks '%s'", ex,
                  var, cr->message ? cr->message : "", text);
}

static void check_crash(const struct hostile_suite *s, const struct hostile_run *run)
{
    (void)s;
    message_has(run, "grade2", "cpu", "SIGABRT");
}

static void check_timeout(const struct hostile_suite *s, const struct hostile_run *run)
{
    (void)s;
    message_has(run, "grade2", "cpu", "timed out");
}

static void check_fork_bomb(const struct hostile_suite *s, const struct hostile_run *run)
{
    (void)s;
    /* The bomb really went off (so that "none left" means something): a child of it was
     * seen. How many at once depends on how fast a loaded machine forks within the 5 s limit
     * and on the 0.2 s sampling (CI once saw 7 at most, a loaded 2-core run of `make test`
     * 1), so one sighting is the evidence: only a fork names a process "lgbomb". */
    ck_assert_msg(run->bombs_seen >= 1, "no lgbomb process seen while grading");
    message_has(run, "grade2", "cpu", "timed out");
}

static void check_huge_stdout(const struct hostile_suite *s, const struct hostile_run *run)
{
    (void)s;
    /* The grader keeps 64 KiB of a run's output: buffering 200 MiB would show here. The
     * grader alone (not the compilers it runs) stays far below 128 MiB. */
    ck_assert_msg(run->peak_kib > 0 && run->peak_kib < 128 * 1024,
                  "grader peak RSS %ld KiB while a run wrote 200 MiB", run->peak_kib);
}

static void check_huge_file(const struct hostile_suite *s, const struct hostile_run *run)
{
    (void)s;
    message_has(run, "grade2", "cpu", "file size limit");
}

static void check_network(const struct hostile_suite *s, const struct hostile_run *run)
{
    (void)run;
    int fd1 = accept4(s->tcp_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    int fd2 = accept4(s->unix_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd1 >= 0)
        close(fd1);
    if (fd2 >= 0)
        close(fd2);
    ck_assert_msg(fd1 < 0, "the submission connected to 127.0.0.1:%d", s->port);
    ck_assert_msg(fd2 < 0, "the submission connected to the abstract socket @%s", s->unix_name);
}

static void check_tamper(const struct hostile_suite *s, const struct hostile_run *run)
{
    (void)s;
    message_has(run, "grade2", "cpu", "tampered");
}

static void check_include_bomb(const struct hostile_suite *s, const struct hostile_run *run)
{
    (void)s;
    const char *log = hostile_build_log(run, "grade2", "cpu");
    ck_assert_msg(strstr(log, "nested depth"), "build log: %.2000s", log);
}

static void check_macro_bomb(const struct hostile_suite *s, const struct hostile_run *run)
{
    (void)s;
    /* Stopped by a limit, not by an error in the code. */
    const char *log = hostile_build_log(run, "grade2", "cpu");
    ck_assert_msg(strstr(log, "out of memory") || strstr(log, "memory exhausted") ||
                      strstr(log, "timed out") || strstr(log, "memory limit") ||
                      strstr(log, "CPU time"),
                  "build log: %.2000s", log);
}

static void check_forged_error(const struct hostile_suite *s, const struct hostile_run *run)
{
    (void)s;
    message_has(run, "grade2", "cpu", "a line after the harness's last");
}

static void check_delete_outputs(const struct hostile_suite *s, const struct hostile_run *run)
{
    (void)s;
    message_has(run, "grade2", "cpu", "was deleted");
}

static void check_fifo_result(const struct hostile_suite *s, const struct hostile_run *run)
{
    (void)s;
    message_has(run, "grade2", "cpu", "named pipe");
}

static void check_template_bomb(const struct hostile_suite *s, const struct hostile_run *run)
{
    if (!s->nvcc) {
        printf("hostile template_bomb: SKIPPED build-log check: no CUDA toolkit\n");
        return;
    }
    const char *log = hostile_build_log(run, "grade2", "gpu_dev");
    ck_assert_msg(strstr(log, "Bomb"), "build log: %.2000s", log);
}

static void check_include_forbidden(const struct hostile_suite *s, const struct hostile_run *run)
{
    /* CE because the files are not there, not because of what they contain. */
    const char *log = hostile_build_log(run, "grade2", "cpu");
    ck_assert_msg(strstr(log, "solution/grade2_cpu.c") && strstr(log, "No such file"),
                  "build log: %.2000s", log);
    if (!s->nvcc)
        return;
    log = hostile_build_log(run, "grade2", "gpu");
    ck_assert_msg(strstr(log, "/etc/shadow") && strstr(log, "No such file"), "build log: %.2000s",
                  log);
}

static void check_exit_zero(const struct hostile_suite *s, const struct hostile_run *run)
{
    (void)s;
    message_has(run, "grade2", "cpu", "exit()");
}

static void check_modify_inputs(const struct hostile_suite *s, const struct hostile_run *run)
{
    (void)s;
    message_has(run, "grade2", "cpu", "changed its input 'x'");
}

static void check_symlink_outputs(const struct hostile_suite *s, const struct hostile_run *run)
{
    /* The attack needs the cache's real path: without it the test proves nothing. */
    ck_assert_msg(s->expected_grade2 != NULL, "no cached expected outputs found for grade2");
    message_has(run, "grade2", "cpu", "symbolic link");
}

static void check_previous_output(const struct hostile_suite *s, const struct hostile_run *run)
{
    (void)s;
    message_has(run, "grade2", "cpu", "second call");
}

static void check_fast_when_timed(const struct hostile_suite *s, const struct hostile_run *run)
{
    (void)s;
    message_has(run, "grade2", "cpu", "correct when checked, wrong on timed call");
    message_has(run, "grade2", "cpu", "elements of 'z' differ from the reference's");
}

static void check_memory_hog(const struct hostile_suite *s, const struct hostile_run *run)
{
    (void)s;
    message_has(run, "grade2", "cpu", "memory limit");
    ck_assert_msg(run->r.memory_limit_enforced,
                  "results.json: memory_limit_enforced false, yet the verdict is ML");
}

/* name, needs bwrap, timing, --timeout, --memory-limit, check. Graded in this order, the
 * longest first (the macro bomb's compile, the timeouts), so that they overlap with the
 * rest rather than end the suite alone; the tests check them in main()'s order. */
static const struct hostile_threat threats[] = {
    {"macro_bomb", false, false, 5, NULL, check_macro_bomb},
    {"fork_bomb", false, false, 5, NULL, check_fork_bomb},
    {"ignore_sigterm", false, false, 5, NULL, check_timeout},
    {"hang_sleep", false, false, 5, NULL, check_timeout},
    {"memory_hog", false, false, 20, "1G", check_memory_hog},
    {"crash_abort", false, false, 5, NULL, check_crash},
    {"huge_stdout", false, false, 5, NULL, check_huge_stdout},
    {"huge_file", false, false, 5, NULL, check_huge_file},
    {"write_outside", true, false, 5, NULL, NULL},
    {"read_secrets", true, false, 5, NULL, NULL},
    {"network", true, false, 5, NULL, check_network},
    {"daemon_leftover", false, false, 5, NULL, NULL},
    {"kill_everyone", true, false, 5, NULL, NULL},
    {"tamper_results", false, true, 10, NULL, check_tamper},
    {"include_bomb", false, false, 5, NULL, check_include_bomb},
    {"template_bomb", false, false, 5, NULL, check_template_bomb},
    {"include_forbidden", true, false, 5, NULL, check_include_forbidden},
    {"exit_zero", false, false, 5, NULL, check_exit_zero},
    {"modify_inputs", false, false, 5, NULL, check_modify_inputs},
    {"delete_outputs", false, false, 5, NULL, check_delete_outputs},
    {"symlink_outputs", false, false, 5, NULL, check_symlink_outputs},
    {"fifo_result", false, false, 5, NULL, check_fifo_result},
    {"forged_error", false, false, 5, NULL, check_forged_error},
    {"fast_when_timed", false, true, 10, NULL, check_fast_when_timed},
    {"partial_when_timed", false, true, 10, NULL, check_fast_when_timed},
    {"previous_output", false, false, 5, NULL, check_previous_output},
};

/* Threats graded at once: LG_HOSTILE_JOBS, else one per online CPU, at least two (much of a
 * grading waits: on the compilers' start-up, on timeouts) and at most eight. */
static int hostile_jobs(void)
{
    const char *env = getenv("LG_HOSTILE_JOBS");
    long n;
    if (env && parse_long(env, &n) && n > 0)
        return (int)n;
    n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 2 ? 2 : n > 8 ? 8 : (int)n;
}

static void setup(void)
{
    if (suite.repo || suite.why[0])
        return;
    if (!hostile_suite_setup(&suite)) {
        fprintf(stderr, "hostile: setup failed: %s\n", suite.why);
        return;
    }
    /* Every hostile function is grade2's: matmul, graded before it, would say nothing. */
    suite.only = "grade2";
    hostile_run_all(&suite, threats, sizeof(threats) / sizeof(threats[0]), hostile_jobs());
}

#define THREAT(name)                                                                               \
    START_TEST(test_##name)                                                                        \
    {                                                                                              \
        hostile_check_threat(&suite, #name);                                                       \
    }                                                                                              \
    END_TEST

THREAT(crash_abort)
THREAT(hang_sleep)
THREAT(fork_bomb)
THREAT(huge_stdout)
THREAT(huge_file)
THREAT(write_outside)
THREAT(read_secrets)
THREAT(network)
THREAT(daemon_leftover)
THREAT(kill_everyone)
THREAT(tamper_results)
THREAT(include_bomb)
THREAT(template_bomb)
THREAT(include_forbidden)
THREAT(exit_zero)
THREAT(ignore_sigterm)
THREAT(modify_inputs)
THREAT(memory_hog)
THREAT(delete_outputs)
THREAT(symlink_outputs)
THREAT(fifo_result)
THREAT(forged_error)
THREAT(macro_bomb)
THREAT(fast_when_timed)
THREAT(partial_when_timed)
THREAT(previous_output)

int main(void)
{
    Suite *s = suite_create("hostile");
    TCase *tc = tcase_create("lab6-hostile-cpu");
    tcase_add_unchecked_fixture(tc, setup, NULL);
    /* No per-test timeout: the suite runs CK_NOFORK (its gradings happen in setup), and each
     * grading has its own watchdog (tests/hostile/hostile.h). */
    tcase_add_test(tc, test_crash_abort);
    tcase_add_test(tc, test_hang_sleep);
    tcase_add_test(tc, test_fork_bomb);
    tcase_add_test(tc, test_huge_stdout);
    tcase_add_test(tc, test_huge_file);
    tcase_add_test(tc, test_write_outside);
    tcase_add_test(tc, test_read_secrets);
    tcase_add_test(tc, test_network);
    tcase_add_test(tc, test_daemon_leftover);
    tcase_add_test(tc, test_kill_everyone);
    tcase_add_test(tc, test_tamper_results);
    tcase_add_test(tc, test_include_bomb);
    tcase_add_test(tc, test_template_bomb);
    tcase_add_test(tc, test_include_forbidden);
    tcase_add_test(tc, test_exit_zero);
    tcase_add_test(tc, test_ignore_sigterm);
    tcase_add_test(tc, test_modify_inputs);
    tcase_add_test(tc, test_memory_hog);
    tcase_add_test(tc, test_delete_outputs);
    tcase_add_test(tc, test_symlink_outputs);
    tcase_add_test(tc, test_fifo_result);
    tcase_add_test(tc, test_forged_error);
    tcase_add_test(tc, test_macro_bomb);
    tcase_add_test(tc, test_fast_when_timed);
    tcase_add_test(tc, test_partial_when_timed);
    tcase_add_test(tc, test_previous_output);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    hostile_suite_teardown(&suite, failed != 0);
    return failed ? 1 : 0;
}
