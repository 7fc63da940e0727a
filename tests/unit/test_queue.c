/*
 * The class's work queue (class/queue.h): students handed out once each across processes, in
 * order, and a worker's wait for a build that ends when the build does or when the builder is
 * gone. A generous watchdog (Check's timeout) bounds every wait; nothing asserts a duration.
 */
#include "class/queue.h"

#include <check.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define N 64
#define TAKERS 4

/* Processes taking at once: every index handed out exactly once, each taker's in order. */
START_TEST(test_each_student_once)
{
    struct work_queue *q = work_queue_create(N);
    ck_assert_ptr_nonnull(q);
    ck_assert_uint_eq(work_queue_size(q), N);
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    for (int t = 0; t < TAKERS; t++) {
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
            size_t last = 0;
            bool first = true;
            for (size_t i; (i = work_queue_take(q)) < N;) {
                if (!first && i <= last)
                    _exit(2);
                first = false;
                last = i;
                unsigned char b = (unsigned char)i;
                if (write(fds[1], &b, 1) != 1)
                    _exit(3);
            }
            _exit(0);
        }
    }
    close(fds[1]);
    int seen[N] = {0};
    unsigned char b;
    while (read(fds[0], &b, 1) == 1)
        seen[b]++;
    close(fds[0]);
    for (int t = 0; t < TAKERS; t++) {
        int st;
        ck_assert_int_gt(wait(&st), 0);
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
                      "a taker saw its indices out of order");
    }
    for (int i = 0; i < N; i++)
        ck_assert_msg(seen[i] == 1, "student %d handed out %d times", i, seen[i]);
    ck_assert_uint_eq(work_queue_take(q), N); /* none left */
    work_queue_free(q);
}
END_TEST

/* A worker waits for its student's build, not for the others'. */
START_TEST(test_wait_for_the_build)
{
    struct work_queue *q = work_queue_create(3);
    ck_assert_ptr_nonnull(q);
    int go[2];
    ck_assert_int_eq(pipe(go), 0);
    pid_t builder = fork();
    ck_assert_int_ge(builder, 0);
    if (builder == 0) {
        char c;
        work_queue_mark_built(q, 1);
        /* Student 0 only once the test says so; the builder then lives on. */
        if (read(go[0], &c, 1) != 1)
            _exit(1);
        work_queue_mark_built(q, 0);
        work_queue_set_build_seconds(q, 2.5);
        pause();
        _exit(0);
    }
    work_queue_not_builder(q);
    ck_assert(work_queue_wait_built(q, 1));
    ck_assert_int_eq(write(go[1], "g", 1), 1);
    ck_assert(work_queue_wait_built(q, 0)); /* ends with the build, the builder still alive */
    ck_assert(work_queue_build_seconds(q) == 2.5);
    kill(builder, SIGKILL);
    waitpid(builder, NULL, 0);
    work_queue_free(q);
}
END_TEST

/* A builder that dies (or was never started) leaves nobody waiting: the worker builds. */
START_TEST(test_builder_gone)
{
    struct work_queue *q = work_queue_create(2);
    ck_assert_ptr_nonnull(q);
    pid_t builder = fork();
    ck_assert_int_ge(builder, 0);
    if (builder == 0) {
        work_queue_mark_built(q, 0);
        raise(SIGKILL); /* killed before student 1 */
    }
    work_queue_not_builder(q);
    ck_assert(work_queue_wait_built(q, 0));
    ck_assert(!work_queue_wait_built(q, 1));
    waitpid(builder, NULL, 0);
    work_queue_free(q);

    q = work_queue_create(1);
    ck_assert_ptr_nonnull(q);
    work_queue_not_builder(q); /* the fork failed */
    ck_assert(!work_queue_wait_built(q, 0));
    work_queue_free(q);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("queue");
    TCase *tc = tcase_create("queue");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_each_student_once);
    tcase_add_test(tc, test_wait_for_the_build);
    tcase_add_test(tc, test_builder_gone);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
