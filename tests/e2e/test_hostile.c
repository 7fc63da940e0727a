/*
 * Hostile submissions on the CPU: grade each submission of tests/hostile/ (one threat each:
 * crash, hang, fork bomb, huge output, huge file, writing or reading outside the sandbox,
 * network, leftover daemons, killing other processes, forged results, compile-time bombs,
 * forbidden includes, exit(0), ignored signals, modified inputs, no or half the work when timed,
 * the previous output returned) with the real grader, and assert the exact verdicts, a sanity
 * bound on the grading time, that grading goes on with the other exercise and the next student,
 * and that nothing outside the scratch folders changed (tests/hostile/hostile.h says how). The GPU
 * threats are in tests/gpu/test_hostile_gpu.c; docs/threat-model.md describes what each isolation
 * level protects.
 *
 * Threats that only namespaces contain (files, network, other processes) are skipped, with
 * a "SKIPPED: reason" line, when the grader reports isolation "supervisor"; memory_hog is
 * skipped the same way where the grader records no enforced memory limit (results.json's
 * memory_limit_enforced: a delegated cgroup v2 with the memory controller).
 */
#include "../hostile/hostile.h"

static struct hostile_suite suite;

static void setup(void)
{
    if (!suite.repo && !suite.why[0] && !hostile_suite_setup(&suite))
        fprintf(stderr, "hostile: setup failed: %s\n", suite.why);
}

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
    /* The bomb really went off (so that "none left" means something). */
    ck_assert_msg(run->bombs_seen > 10, "only %d lgbomb processes seen while grading",
                  run->bombs_seen);
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
    message_has(run, "grade2", "cpu", "after the student's code ran");
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

#define THREAT(name, bwrap, timing, timeout, check)                                                \
    START_TEST(test_##name)                                                                        \
    {                                                                                              \
        static const struct hostile_threat t = {#name, bwrap, timing, timeout, NULL, check};       \
        hostile_run_threat(&suite, &t);                                                            \
    }                                                                                              \
    END_TEST

THREAT(crash_abort, false, false, 5, check_crash)
THREAT(hang_sleep, false, false, 5, check_timeout)
THREAT(fork_bomb, false, false, 5, check_fork_bomb)
THREAT(huge_stdout, false, false, 5, check_huge_stdout)
THREAT(huge_file, false, false, 5, check_huge_file)
THREAT(write_outside, true, false, 5, NULL)
THREAT(read_secrets, true, false, 5, NULL)
THREAT(network, true, false, 5, check_network)
THREAT(daemon_leftover, false, false, 5, NULL)
THREAT(kill_everyone, true, false, 5, NULL)
THREAT(tamper_results, false, true, 10, check_tamper)
THREAT(include_bomb, false, false, 5, check_include_bomb)
THREAT(template_bomb, false, false, 5, check_template_bomb)
THREAT(include_forbidden, true, false, 5, check_include_forbidden)
THREAT(exit_zero, false, false, 5, check_exit_zero)
THREAT(ignore_sigterm, false, false, 5, check_timeout)
THREAT(modify_inputs, false, false, 5, check_modify_inputs)
THREAT(delete_outputs, false, false, 5, check_delete_outputs)
THREAT(symlink_outputs, false, false, 5, check_symlink_outputs)
THREAT(fifo_result, false, false, 5, check_fifo_result)
THREAT(forged_error, false, false, 5, check_forged_error)
THREAT(macro_bomb, false, false, 5, check_macro_bomb)
THREAT(fast_when_timed, false, true, 10, check_fast_when_timed)
THREAT(partial_when_timed, false, true, 10, check_fast_when_timed)
THREAT(previous_output, false, false, 5, check_previous_output)

START_TEST(test_memory_hog)
{
    static const struct hostile_threat t = {"memory_hog", false, false, 20, "1G", NULL};
    /* What the grader itself recorded for the preflight grading (results.json). */
    if (suite.ready && !suite.memory_limited) {
        printf("hostile memory_hog: SKIPPED: the grader recorded memory_limit_enforced false: "
               "memory.max holds only under a delegated cgroup v2 with the memory controller "
               "(LABGRADER_CGROUP)\n");
        fflush(stdout);
        return;
    }
    hostile_run_threat(&suite, &t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("hostile");
    TCase *tc = tcase_create("lab6-hostile-cpu");
    tcase_add_unchecked_fixture(tc, setup, NULL);
    tcase_set_timeout(tc, 900);
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
