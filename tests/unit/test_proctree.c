/*
 * A run's process tree from /proc (run/sandbox_internal.h's proctree), as a run is frozen for a
 * series where no cgroup can freeze it: every process of the tree stopped, including those its
 * processes fork while the tree is walked (a compiler driver starting its next stage), and all
 * of them continued after.
 */
#include "run/sandbox_internal.h"

#include "base/alloc.h"

#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* The state letter of /proc/<pid>/stat (R, S, T, Z, ...); 0 when it is gone. */
static char state_of(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')');
    return p && p[1] == ' ' ? p[2] : 0;
}

/* How many processes of root's tree (root excluded when it is a zombie) are not stopped. */
static int not_stopped(pid_t root, int *total)
{
    struct proctree t;
    proctree_load(&t);
    int n = 0;
    *total = 0;
    for (size_t i = 0; i < t.n; i++) {
        if (!proctree_has(&t, root, t.pid[i]))
            continue;
        char s = state_of(t.pid[i]);
        if (s == 0 || s == 'Z')
            continue;
        (*total)++;
        n += s != 'T' && s != 't';
    }
    proctree_free(&t);
    return n;
}

/* A shell that forks as fast as it can, each child sleeping: stopped while it forks, every
 * child it started is stopped too, however late in the walk it came. */
START_TEST(test_stop_reaches_children_forked_during_the_walk)
{
    pid_t root = fork();
    ck_assert_int_ge(root, 0);
    if (root == 0) {
        setpgid(0, 0);
        execl("/bin/sh", "sh", "-c",
              "i=0; while [ $i -lt 3000 ]; do sleep 30 & i=$((i+1)); done; wait", (char *)NULL);
        _exit(127);
    }
    sleep_ms(100); /* forking by now */
    for (int round = 0; round < 5; round++) {
        proctree_signal(root, SIGSTOP);
        sleep_ms(50); /* every signalled process has taken its stop */
        int total = 0, running = not_stopped(root, &total);
        ck_assert_msg(running == 0, "round %d: %d of %d processes of the tree still run", round,
                      running, total);
        ck_assert_int_gt(total, 1);
        proctree_signal(root, SIGCONT);
        sleep_ms(20);
    }
    proctree_signal(root, SIGKILL);
    kill(-root, SIGKILL);
    int status;
    ck_assert_int_eq(waitpid(root, &status, 0), root);
}
END_TEST

/* SIGCONT after a stop: every process of the tree runs again. */
START_TEST(test_continue_reaches_the_tree)
{
    pid_t root = fork();
    ck_assert_int_ge(root, 0);
    if (root == 0) {
        setpgid(0, 0);
        execl("/bin/sh", "sh", "-c", "sleep 30 & sleep 30 & wait", (char *)NULL);
        _exit(127);
    }
    sleep_ms(100);
    proctree_signal(root, SIGSTOP);
    sleep_ms(50);
    int total = 0;
    ck_assert_int_eq(not_stopped(root, &total), 0);
    ck_assert_int_eq(total, 3);
    proctree_signal(root, SIGCONT);
    sleep_ms(50);
    ck_assert_int_eq(not_stopped(root, &total), 3);
    kill(-root, SIGKILL);
    int status;
    ck_assert_int_eq(waitpid(root, &status, 0), root);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("proctree");
    TCase *tc = tcase_create("signal");
    tcase_set_timeout(tc, 120); /* a watchdog: each test takes a second */
    tcase_add_test(tc, test_stop_reaches_children_forked_during_the_walk);
    tcase_add_test(tc, test_continue_reaches_the_tree);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
