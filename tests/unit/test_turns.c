/*
 * The machine's timing coordinator as one process takes part in it (run/turns.h): where it
 * lives and when its folder is refused, the lanes, the locks a run holds, the cores held for a
 * PDF, and who holds a lock. Every test has a coordinator folder of its own
 * (LABGRADER_COORDINATOR), so that nothing here meets a real grader of this machine.
 */
#include "run/turns.h"

#include "base/alloc.h"

#include <check.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[] = "/tmp/lg-turns-XXXXXX";
static char *coord;

static void setup(void)
{
    ck_assert_ptr_nonnull(mkdtemp(dir));
    coord = xstrfmt("%s/coordinator", dir);
    setenv("LABGRADER_COORDINATOR", coord, 1);
    unsetenv("LABGRADER_TIMING_WAIT");
}

static void teardown(void)
{
    char *cmd = xstrfmt("rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
    free(cmd);
    free(coord);
    unsetenv("LABGRADER_COORDINATOR");
    memcpy(dir + strlen(dir) - 6, "XXXXXX", 6);
}

/* The folder is made where it is missing, sticky and writable by every user's grader. */
START_TEST(test_folder_made_for_everyone)
{
    struct turns t;
    struct stat st;
    turns_init(&t);
    turns_setup(&t, 1);
    ck_assert_msg(t.problem == NULL, "%s", t.problem);
    ck_assert_str_eq(t.dir, coord);
    ck_assert_int_eq(stat(coord, &st), 0);
    ck_assert_int_eq(st.st_mode & 07777, 01777);
    ck_assert_double_eq(t.wait_s, TURNS_DEFAULT_WAIT_S);
    turns_release(&t);
    setenv("LABGRADER_TIMING_WAIT", "2.5", 1);
    turns_setup(&t, 1);
    ck_assert_double_eq(t.wait_s, 2.5);
    turns_release(&t);
}
END_TEST

/* A link, a file, or a folder others may change without the sticky bit: refused, with the
 * path and what to do; the run then takes no locks (and grade/ times nothing). */
START_TEST(test_folder_refused)
{
    struct turns t;
    struct turns_locks l;
    turns_init(&t);
    ck_assert_int_eq(symlink("/tmp", coord), 0);
    turns_setup(&t, 1);
    ck_assert_ptr_nonnull(t.problem);
    ck_assert_ptr_nonnull(strstr(t.problem, coord));
    ck_assert_ptr_nonnull(strstr(t.problem, "LABGRADER_COORDINATOR"));
    ck_assert_ptr_null(t.dir);
    turns_locks_make(&t, TURNS_CPU_SERIES, false, &l);
    ck_assert_uint_eq(l.n, 0);
    turns_locks_release(&l);
    turns_release(&t);
    unlink(coord);
    ck_assert_int_eq(mkdir(coord, 0777), 0);
    ck_assert_int_eq(chmod(coord, 0777), 0);
    turns_setup(&t, 1);
    ck_assert_ptr_nonnull(t.problem);
    ck_assert_ptr_nonnull(strstr(t.problem, "sticky"));
    turns_release(&t);
}
END_TEST

/* Lanes split the CPUs this process may use into equal, disjoint shares; a GPU's lane is its
 * rank among the GPUs' keys, whatever order CUDA lists them in. */
START_TEST(test_lanes)
{
    struct turns t;
    turns_init(&t);
    turns_setup(&t, 2);
    int total = CPU_COUNT(&t.allowed);
    cpu_set_t seen;
    CPU_ZERO(&seen);
    int sum = 0;
    for (int lane = 0; lane < 2; lane++) {
        turns_place(&t, lane, NULL);
        ck_assert_int_eq(t.n_cpus, CPU_COUNT(&t.cpus));
        ck_assert(t.n_cpus >= total / 2);
        cpu_set_t both;
        CPU_AND(&both, &seen, &t.cpus);
        ck_assert_int_eq(CPU_COUNT(&both), 0);
        CPU_OR(&seen, &seen, &t.cpus);
        sum += t.n_cpus;
    }
    ck_assert_int_eq(sum, total);
    /* A process of one lane for good is kept to its cores (where there are two lanes). */
    if (total >= 2) {
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
            cpu_set_t now;
            turns_place(&t, 1, NULL);
            turns_pin_self(&t);
            _exit(sched_getaffinity(0, sizeof(now), &now) == 0 && CPU_EQUAL(&now, &t.cpus) ? 0 : 1);
        }
        int st;
        ck_assert_int_eq(waitpid(pid, &st, 0), pid);
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "lane 1's process not on its cores");
    }
    turns_place_all(&t);
    ck_assert_int_eq(t.n_cpus, total);
    char *keys[] = {"0000:00:07.0", "0000:00:06.0", NULL};
    ck_assert_int_eq(turns_lane_of("0000:00:06.0", keys, 2), 0);
    ck_assert_int_eq(turns_lane_of("0000:00:07.0", keys, 2), 1);
    ck_assert_int_eq(turns_lane_of("0000:00:08.0", keys, 2), 0);
    ck_assert_int_eq(turns_lane_of(NULL, keys, 2), 0);
    turns_release(&t);
}
END_TEST

/* The locks of each use: a GPU's first, then one per core in ascending order; a CPU series holds
 * the cores exclusively, a GPU series its GPU; cores are preemptible, a GPU is not. */
START_TEST(test_locks_of_each_use)
{
    struct turns t;
    struct turns_locks l;
    turns_init(&t);
    turns_setup(&t, 1);
    turns_place(&t, 0, "0000:00:06.0");
    turns_locks_make(&t, TURNS_GPU_SERIES, true, &l);
    ck_assert_uint_eq(l.n, (size_t)t.n_cpus + 1);
    ck_assert_ptr_nonnull(strstr(l.locks[0].path, "gpu-0000_00_06.0.lock"));
    ck_assert(l.locks[0].timed == SB_LOCK_EXCLUSIVE && !l.locks[0].preemptible);
    for (size_t i = 1; i < l.n; i++)
        ck_assert(l.locks[i].idle == SB_LOCK_SHARED && l.locks[i].timed == SB_LOCK_SHARED &&
                  l.locks[i].preemptible);
    turns_locks_release(&l);
    turns_locks_make(&t, TURNS_CPU_SERIES, false, &l);
    ck_assert_uint_eq(l.n, (size_t)t.n_cpus);
    for (size_t i = 0; i < l.n; i++)
        ck_assert(l.locks[i].timed == SB_LOCK_EXCLUSIVE && strstr(l.locks[i].path, "/cpu"));
    turns_locks_release(&l);
    turns_locks_make(&t, TURNS_UNTIMED, true, &l);
    for (size_t i = 0; i < l.n; i++)
        ck_assert(l.locks[i].timed == SB_LOCK_SHARED);
    turns_locks_release(&l);
    /* The machine's own measurement: every core exclusive from the start, never the GPU's lock
     * (a frozen run that gave its cores up still holds it: waiting for it with the cores held
     * would wait for ever). */
    turns_locks_make(&t, TURNS_EXCLUSIVE, true, &l);
    ck_assert_uint_eq(l.n, (size_t)t.n_cpus);
    for (size_t i = 0; i < l.n; i++)
        ck_assert(l.locks[i].idle == SB_LOCK_EXCLUSIVE && l.locks[i].timed == SB_LOCK_EXCLUSIVE &&
                  !l.locks[i].preemptible && strstr(l.locks[i].path, "/cpu"));
    turns_locks_release(&l);
    turns_release(&t);
}
END_TEST

/* Cores held for a PDF: shared, so a series cannot take them; let go, it can. Who holds an
 * exclusive lock is named from /proc/locks. */
START_TEST(test_hold_cores_and_holders)
{
    struct turns t;
    struct turns_locks l;
    size_t n;
    turns_init(&t);
    turns_setup(&t, 1);
    int *held = turns_hold_cores(&t, &n);
    ck_assert_uint_eq(n, (size_t)t.n_cpus);
    turns_locks_make(&t, TURNS_CPU_SERIES, false, &l);
    int fd = open(l.locks[0].path, O_RDONLY);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_ne(flock(fd, LOCK_EX | LOCK_NB), 0);
    turns_let_go(held, n);
    ck_assert_int_eq(flock(fd, LOCK_EX | LOCK_NB), 0);
    close(fd);
    ck_assert_ptr_null(turns_holders(l.locks, l.n));
    int ready[2];
    ck_assert_int_eq(pipe(ready), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int h = open(l.locks[0].path, O_RDONLY);
        if (h < 0 || flock(h, LOCK_EX) != 0 || write(ready[1], "r", 1) != 1)
            _exit(1);
        pause();
        _exit(0);
    }
    char c;
    ck_assert_int_eq(read(ready[0], &c, 1), 1);
    char *who = turns_holders(l.locks, l.n);
    char *want = xstrfmt("pid %ld", (long)pid);
    ck_assert_msg(who && strstr(who, want), "holders: %s", who ? who : "(none)");
    free(who);
    free(want);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    close(ready[0]);
    close(ready[1]);
    turns_locks_release(&l);
    turns_release(&t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("turns");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_folder_made_for_everyone);
    tcase_add_test(tc, test_folder_refused);
    tcase_add_test(tc, test_lanes);
    tcase_add_test(tc, test_locks_of_each_use);
    tcase_add_test(tc, test_hold_cores_and_holders);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
