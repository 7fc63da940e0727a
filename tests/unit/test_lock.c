/* lock: one grader per lab output folder; shards side by side; a dead holder's lock taken
 * over with its note; refusals that name the holder. Holders are child processes, since
 * flock(2) locks belong to open files and a process never conflicts with itself through
 * one descriptor. */
#include "class/lock.h"

#include "base/alloc.h"
#include "base/fs.h"

#include <check.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char *lab_dir(void)
{
    char *d = xstrdup("/tmp/lg-test-lock-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(d));
    char *lab = path_join(d, "lab9");
    free(d);
    return lab;
}

/* A child that takes the lock and holds it until killed; returns once it holds it. */
static pid_t holder(const char *lab, int k, int n, const char *command)
{
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    pid_t pid = fork();
    if (pid == 0) {
        struct out_lock l;
        struct error err;
        close(p[0]);
        char ok = out_lock_take(&l, lab, k, n, command, &err) == 0 ? 'y' : 'n';
        if (write(p[1], &ok, 1) != 1)
            _exit(2);
        alarm(120); /* never outlives a test that failed before stopping it */
        for (;;)
            pause();
    }
    close(p[1]);
    char got = 0;
    ck_assert_int_eq(read(p[0], &got, 1), 1);
    close(p[0]);
    ck_assert_msg(got == 'y', "the holder could not take the lock");
    return pid;
}

static void stop(pid_t pid)
{
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

START_TEST(test_second_grader_refused_with_holder)
{
    char *lab = lab_dir();
    pid_t a = holder(lab, 0, 0, "grade");
    struct out_lock l;
    struct error err;
    error_init(&err);
    ck_assert_int_eq(out_lock_take(&l, lab, 0, 0, "grade", &err), -1);
    char *pid = xstrfmt("grade (pid %ld on ", (long)a);
    ck_assert_msg(strstr(err.msg, pid) && strstr(err.msg, "started ") && strstr(err.msg, lab) &&
                      strstr(err.msg, "another --out folder"),
                  "%s", err.msg);
    free(pid);
    /* Nor a shard, nor a merge, beside a whole-class grade. */
    ck_assert_int_eq(out_lock_take(&l, lab, 1, 2, "grade", &err), -1);
    ck_assert_int_eq(out_lock_take(&l, lab, 0, 0, "merge", &err), -1);
    ck_assert_int_eq(l.lab_fd, -1);
    /* Killed, however: its lock is free, and its note says it stopped without finishing. */
    stop(a);
    ck_assert_int_eq(out_lock_take(&l, lab, 0, 0, "merge", &err), 0);
    pid = xstrfmt("grade (pid %ld on ", (long)a);
    ck_assert_ptr_nonnull(l.stale_holder);
    ck_assert_msg(strstr(l.stale_holder, pid), "%s", l.stale_holder);
    free(pid);
    out_lock_release(&l);
    /* Let go properly: no note left, nothing to take over. */
    ck_assert_int_eq(out_lock_take(&l, lab, 0, 0, "grade", &err), 0);
    ck_assert_ptr_null(l.stale_holder);
    out_lock_release(&l);
    remove_tree(lab, NULL);
    free(lab);
}
END_TEST

START_TEST(test_shards_side_by_side)
{
    char *lab = lab_dir();
    pid_t s1 = holder(lab, 1, 3, "grade");
    pid_t s2 = holder(lab, 2, 3, "grade");
    struct out_lock l;
    struct error err;
    error_init(&err);
    /* The same shard twice: refused, naming the holder. */
    ck_assert_int_eq(out_lock_take(&l, lab, 2, 3, "grade", &err), -1);
    char *who = xstrfmt("pid %ld", (long)s2);
    ck_assert_msg(strstr(err.msg, who) && strstr(err.msg, "shard 2/3"), "%s", err.msg);
    free(who);
    /* A whole-class grade beside shards: refused, naming every shard. */
    ck_assert_int_eq(out_lock_take(&l, lab, 0, 0, "grade", &err), -1);
    char *w1 = xstrfmt("pid %ld", (long)s1), *w2 = xstrfmt("pid %ld", (long)s2);
    ck_assert_msg(strstr(err.msg, w1) && strstr(err.msg, w2), "%s", err.msg);
    free(w1);
    free(w2);
    /* The third shard goes ahead. */
    ck_assert_int_eq(out_lock_take(&l, lab, 3, 3, "grade", &err), 0);
    out_lock_release(&l);
    stop(s1);
    stop(s2);
    ck_assert_int_eq(out_lock_take(&l, lab, 0, 0, "grade", &err), 0);
    out_lock_release(&l);
    remove_tree(lab, NULL);
    free(lab);
}
END_TEST

/* out_lock_busy: who is at work, asked without taking or writing anything. */
START_TEST(test_busy_asks_without_taking)
{
    char *lab = lab_dir();
    struct out_lock l;
    struct error err;
    error_init(&err);
    /* No folder, no lock file: nobody. */
    ck_assert_int_eq(out_lock_busy(lab, &err), 0);
    pid_t a = holder(lab, 0, 0, "grade");
    ck_assert_int_eq(out_lock_busy(lab, &err), 1);
    char *who = xstrfmt("grade (pid %ld on ", (long)a);
    ck_assert_msg(strstr(err.msg, who) && strstr(err.msg, lab), "%s", err.msg);
    /* Killed: free again, and the note it left is still there for the next grader. */
    stop(a);
    ck_assert_int_eq(out_lock_busy(lab, &err), 0);
    ck_assert_int_eq(out_lock_take(&l, lab, 0, 0, "grade", &err), 0);
    ck_assert_msg(l.stale_holder && strstr(l.stale_holder, who), "%s",
                  l.stale_holder ? l.stale_holder : "(no note)");
    out_lock_release(&l);
    free(who);
    /* A shard at work is a grader at work. */
    pid_t s1 = holder(lab, 1, 2, "grade");
    ck_assert_int_eq(out_lock_busy(lab, &err), 1);
    stop(s1);
    remove_tree(lab, NULL);
    free(lab);
}
END_TEST

START_TEST(test_unwritable_folder)
{
    struct out_lock l;
    struct error err;
    error_init(&err);
    ck_assert_int_eq(out_lock_take(&l, "/proc/self/lab9", 0, 0, "grade", &err), -1);
    ck_assert(err.msg[0] != '\0');
    ck_assert_int_eq(l.lab_fd, -1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("lock");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_second_grader_refused_with_holder);
    tcase_add_test(tc, test_shards_side_by_side);
    tcase_add_test(tc, test_busy_asks_without_taking);
    tcase_add_test(tc, test_unwritable_folder);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
