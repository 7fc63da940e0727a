/*
 * Other graders in the machine's timing coordinator (run/presence.h), and what a run's place in
 * it makes of its priority (run/turns.h's turns_join, sandbox_opts.background): a grader alone
 * keeps its untimed work at its own priority; beside another grader of the same folder (a
 * forked process here, as a check's variants and a class's workers are) its untimed work runs
 * under SCHED_IDLE and its timed runs do not. Every test has a coordinator folder of its own.
 */
#include "run/presence.h"
#include "run/sandbox.h"
#include "run/turns.h"

#include "base/alloc.h"
#include "base/error.h"

#include <check.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[] = "/tmp/lg-presence-XXXXXX";
static char *coord;
static struct turns t;

static void setup(void)
{
    ck_assert_ptr_nonnull(mkdtemp(dir));
    coord = xstrfmt("%s/coordinator", dir);
    setenv("LABGRADER_COORDINATOR", coord, 1);
    turns_init(&t);
    turns_setup(&t, 1);
    ck_assert_msg(t.problem == NULL, "%s", t.problem);
    turns_place(&t, 0, NULL);
}

static void teardown(void)
{
    turns_release(&t);
    presence_leave();
    char *cmd = xstrfmt("rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
    free(cmd);
    free(coord);
    unsetenv("LABGRADER_COORDINATOR");
    memcpy(dir + strlen(dir) - 6, "XXXXXX", 6);
}

/* Whether turns_join runs work of `use` in the background, holding the lane's GPU or not. */
static bool background_on(enum turns_use use, bool gpu)
{
    struct sandbox_opts o;
    struct turns_locks l;
    sandbox_opts_init(&o);
    turns_join(&t, use, gpu, &o, &l);
    turns_locks_release(&l);
    return o.background;
}

static bool background_for(enum turns_use use)
{
    return background_on(use, false);
}

/* Another grader: a forked process that joins `folder`'s coordinator (its own hold, as a
 * forked worker takes one), says on *ready whether it sees this process too (1 or 0), and holds
 * on until killed. */
static pid_t other_grader(const char *folder)
{
    int ready[2];
    ck_assert_int_eq(pipe(ready), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        close(ready[0]);
        presence_join(folder);
        char seen = presence_others() ? '1' : '0';
        if (write(ready[1], &seen, 1) != 1)
            _exit(1);
        for (;;)
            pause();
    }
    close(ready[1]);
    char seen = 0;
    ck_assert_int_eq(read(ready[0], &seen, 1), 1);
    close(ready[0]);
    /* The child of the same folder saw this process; of another folder, nobody. */
    ck_assert_int_eq(seen, strcmp(folder, t.dir) == 0 ? '1' : '0');
    return pid;
}

static void end_grader(pid_t pid)
{
    kill(pid, SIGKILL);
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
}

START_TEST(test_alone)
{
    ck_assert(!presence_others());
    ck_assert(!background_for(TURNS_UNTIMED));
    ck_assert(!background_for(TURNS_GPU_SERIES));
}
END_TEST

START_TEST(test_beside_another_grader)
{
    pid_t other = other_grader(t.dir);
    ck_assert(presence_others());
    ck_assert(background_for(TURNS_UNTIMED));
    /* Untimed work on the GPU: no GPU series beside it, and they all wait for it. */
    ck_assert(!background_on(TURNS_UNTIMED, true));
    /* A timed run could never take its priority back for its series. */
    ck_assert(!background_for(TURNS_GPU_SERIES));
    ck_assert(!background_for(TURNS_CPU_SERIES));
    ck_assert(!background_for(TURNS_EXCLUSIVE));
    end_grader(other);
    ck_assert(!presence_others());
    ck_assert(!background_for(TURNS_UNTIMED));
}
END_TEST

START_TEST(test_other_folder_not_counted)
{
    char *elsewhere = xstrfmt("%s/elsewhere", dir);
    ck_assert_int_eq(mkdir(elsewhere, 0755), 0);
    pid_t other = other_grader(elsewhere);
    ck_assert(!presence_others());
    ck_assert(!background_for(TURNS_UNTIMED));
    end_grader(other);
    free(elsewhere);
}
END_TEST

/* A process forked after joining (a check's variant) asks with a hold of its own: its parent,
 * whose hold it inherited, is another grader to it, and it is one to its parent. */
START_TEST(test_forked_child_holds_its_own)
{
    int done[2];
    ck_assert_int_eq(pipe(done), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        close(done[0]);
        char seen = presence_others() ? '1' : '0';
        if (write(done[1], &seen, 1) != 1)
            _exit(1);
        for (;;)
            pause();
    }
    close(done[1]);
    char seen = 0;
    ck_assert_int_eq(read(done[0], &seen, 1), 1);
    close(done[0]);
    ck_assert_int_eq(seen, '1');
    ck_assert(presence_others());
    end_grader(pid);
    ck_assert(!presence_others());
}
END_TEST

/* The scheduling policy a run's command runs under: field 41 of /proc/self/stat. */
static long policy_of_run(bool background)
{
    const char *argv[] = {"sh", "-c", "set -- $(cat /proc/self/stat); shift 40; echo $1", NULL};
    struct sandbox_opts o;
    struct sandbox_result r;
    struct error err;
    error_init(&err);
    sandbox_opts_init(&o);
    o.argv = argv;
    o.workdir = dir;
    o.isolation = ISOLATION_SUPERVISOR;
    o.wall_limit_s = 30;
    o.background = background;
    sandbox_result_init(&r);
    ck_assert_msg(sandbox_run(&o, &r, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(r.status, SB_EXITED);
    ck_assert_int_eq(r.exit_code, 0);
    char *end = NULL;
    long policy = strtol(r.output, &end, 10);
    ck_assert_msg(end != r.output, "no policy in %s", r.output);
    sandbox_result_release(&r);
    return policy;
}

START_TEST(test_background_run_is_idle)
{
    ck_assert_int_eq(policy_of_run(true), SCHED_IDLE);
    ck_assert_int_eq(policy_of_run(false), SCHED_OTHER);
    /* The grader itself keeps its own. */
    ck_assert_int_eq(sched_getscheduler(0), SCHED_OTHER);
}
END_TEST

static Suite *presence_suite(void)
{
    Suite *s = suite_create("presence");
    TCase *tc = tcase_create("graders");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120); /* a watchdog: each test takes milliseconds */
    tcase_add_test(tc, test_alone);
    tcase_add_test(tc, test_beside_another_grader);
    tcase_add_test(tc, test_other_folder_not_counted);
    tcase_add_test(tc, test_forked_child_holds_its_own);
    tcase_add_test(tc, test_background_run_is_idle);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(presence_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
