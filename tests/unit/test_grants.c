/*
 * The timing locks as the supervisor serves them (run/grants.c): a shell script in the sandbox
 * plays the harness, writing its lines on the control pipe (LG_CONTROL_FD) and reading the
 * grant pipe (LG_GRANT_FD). Under both isolation levels where bubblewrap works.
 *
 * No assertion bounds how long anything took: the one duration asserted is a lower bound on a
 * wait the test itself imposes (a holder that keeps the lock for 4 s after the run is seen
 * waiting; a sleep lasts at least what it asks), and the hangs are bounded by the runs' own
 * wall limits.
 */
#include "run/sandbox.h"

#include "base/alloc.h"
#include "base/fs.h"

#include <check.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char dir[] = "/tmp/lg-grants-XXXXXX";
static char *lock_path, *turn_path, *work;

/* The harness's side of one timed case: begin, ask, wait for the byte, time, give back. */
#define SAY(line) "echo '" line "' >&\"$LG_CONTROL_FD\"; "
#define WAIT_GRANT "dd bs=1 count=1 <&\"$LG_GRANT_FD\" >/dev/null 2>&1; "
static const char honest[] = SAY("B 0") SAY("P 0 checks") SAY("W 0") WAIT_GRANT SAY("P 0 warmup")
    SAY("S 0 call") SAY("E 0 call") SAY("R 0") "exit 0";

static void setup(void)
{
    ck_assert_ptr_nonnull(mkdtemp(dir));
    lock_path = xstrfmt("%s/cpu.lock", dir);
    turn_path = xstrfmt("%s/cpu.lock.turn", dir);
    work = xstrfmt("%s/work", dir);
    ck_assert_int_eq(mkdir(work, 0755), 0);
}

static void teardown(void)
{
    char *cmd = xstrfmt("rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
    free(cmd);
    free(lock_path);
    free(turn_path);
    free(work);
    memcpy(dir + strlen(dir) - 6, "XXXXXX", 6);
}

static enum isolation iso_of(int i)
{
    return i % 2 == 0 ? ISOLATION_SUPERVISOR : ISOLATION_BWRAP;
}

/* One run of script with a lock held shared while idle and exclusively while timing, each
 * case limited to case_limit_s. */
static int run_script(enum isolation iso, const char *script, double case_limit_s,
                      struct sandbox_result *r)
{
    const char *argv[] = {"sh", "-c", script, NULL};
    double limits[1] = {case_limit_s};
    struct sb_lock locks[1] = {{lock_path, SB_LOCK_SHARED, SB_LOCK_EXCLUSIVE}};
    struct sandbox_opts o;
    struct error err;
    error_init(&err);
    sandbox_opts_init(&o);
    o.argv = argv;
    o.workdir = work;
    o.isolation = iso;
    o.wall_limit_s = case_limit_s + 20;
    o.control = true;
    o.case_limits_s = limits;
    o.n_case_limits = 1;
    o.locks = locks;
    o.n_locks = 1;
    sandbox_result_init(r);
    return sandbox_run(&o, r, &err);
}

static bool skip_bwrap(enum isolation iso)
{
    if (iso == ISOLATION_BWRAP && sandbox_available() != ISOLATION_BWRAP) {
        fprintf(stderr, "skipped: under bwrap (bubblewrap does not work here)\n");
        return true;
    }
    return false;
}

/* Nobody else holds the lock: the grant comes at once, the run ends well. */
START_TEST(test_grant_at_once)
{
    enum isolation iso = iso_of(_i);
    struct sandbox_result r;
    if (skip_bwrap(iso))
        return;
    ck_assert_int_eq(run_script(iso, honest, 10, &r), 0);
    ck_assert_msg(r.status == SB_EXITED && r.exit_code == 0, "status %d exit %d: %s", r.status,
                  r.exit_code, r.output);
    ck_assert(!r.unlocked_series);
    ck_assert_int_eq(r.n_events, 7);
    sandbox_result_release(&r);
}
END_TEST

/* Another run holds the lock shared (its untimed work): the timed series waits, and the wait
 * does not count against the case's 3 s limit. The holder lets go 4 s after it sees the run
 * waiting (the lock's turnstile taken). */
static pid_t hold_until_waited_for(double extra_s)
{
    int ready[2];
    ck_assert_int_eq(pipe(ready), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int fd = open(lock_path, O_RDWR | O_CREAT, 0644);
        int turn = open(turn_path, O_RDWR | O_CREAT, 0644);
        if (fd < 0 || turn < 0 || flock(fd, LOCK_SH) != 0)
            _exit(1);
        if (write(ready[1], "r", 1) != 1)
            _exit(1);
        /* Bounded by the run's own limits: it ends, and with it the turnstile's holder. */
        for (int i = 0; i < 6000; i++) {
            if (flock(turn, LOCK_EX | LOCK_NB) != 0)
                break;
            flock(turn, LOCK_UN);
            struct timespec ms10 = {0, 10 * 1000 * 1000};
            nanosleep(&ms10, NULL);
        }
        struct timespec wait = {(time_t)extra_s, 0};
        nanosleep(&wait, NULL);
        _exit(0);
    }
    char c;
    close(ready[1]);
    ck_assert_int_eq(read(ready[0], &c, 1), 1);
    close(ready[0]);
    return pid;
}

START_TEST(test_wait_not_counted)
{
    enum isolation iso = iso_of(_i);
    struct sandbox_result r;
    if (skip_bwrap(iso))
        return;
    pid_t holder = hold_until_waited_for(4);
    ck_assert_int_eq(run_script(iso, honest, 3, &r), 0);
    int st;
    ck_assert_int_eq(waitpid(holder, &st, 0), holder);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the holder failed: %#x", st);
    ck_assert_msg(r.status == SB_EXITED && r.exit_code == 0, "status %d exit %d: %s", r.status,
                  r.exit_code, r.output);
    ck_assert_int_eq(r.case_timed_out, -1);
    ck_assert_msg(r.lock_wait_s >= 4.0, "waited %.3f s for a lock held 4 s after", r.lock_wait_s);
    ck_assert(!r.unlocked_series);
    sandbox_result_release(&r);
}
END_TEST

/* A run that times without its grant (its own "W" answered before the harness's; here the
 * series' start written with the request, in one write, so the supervisor reads both before it
 * can answer) or gives the lock back in the middle of a series: noted. */
START_TEST(test_series_outside_the_lock)
{
    static const char *const scripts[] = {
        SAY("B 0") "printf 'W 0\\nS 0 call\\n' >&\"$LG_CONTROL_FD\"; " SAY("E 0 call") "exit 0",
        SAY("B 0") SAY("W 0") WAIT_GRANT SAY("S 0 call") SAY("R 0") SAY("E 0 call") "exit 0"};
    for (size_t k = 0; k < 2; k++) {
        struct sandbox_result r;
        ck_assert_int_eq(run_script(ISOLATION_SUPERVISOR, scripts[k], 10, &r), 0);
        ck_assert_msg(r.status == SB_EXITED && r.exit_code == 0, "script %zu: %s", k, r.output);
        ck_assert_msg(r.unlocked_series, "script %zu: not noted", k);
        sandbox_result_release(&r);
    }
}
END_TEST

/* A run that ends while it holds the lock exclusively, or before its grant could reach it (the
 * grant then meets a closed socket: the supervisor must not die of SIGPIPE; twenty times, for
 * the race): the lock is free afterwards (nothing of a run outlives it). */
START_TEST(test_lock_free_after_the_run)
{
    static const char *const scripts[] = {SAY("B 0") SAY("W 0") WAIT_GRANT "exit 3",
                                          SAY("B 0") SAY("W 0") WAIT_GRANT "kill -9 $$",
                                          SAY("B 0") SAY("W 0") "exit 0"};
    for (size_t k = 0; k < 22; k++) {
        struct sandbox_result r;
        ck_assert_int_eq(run_script(ISOLATION_SUPERVISOR, scripts[k < 2 ? k : 2], 10, &r), 0);
        int fd = open(lock_path, O_RDWR);
        ck_assert_int_ge(fd, 0);
        ck_assert_msg(flock(fd, LOCK_EX | LOCK_NB) == 0, "script %zu left the lock held", k);
        close(fd);
        sandbox_result_release(&r);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("grants");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_grant_at_once, 0, 2);
    tcase_add_loop_test(tc, test_wait_not_counted, 0, 2);
    tcase_add_test(tc, test_series_outside_the_lock);
    tcase_add_test(tc, test_lock_free_after_the_run);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
