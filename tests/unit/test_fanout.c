/* Tasks side by side (grader/grade/fanout.h): results come back in the tasks' order whatever
 * order they finish in, and a task that fails or dies stops the rest, named, as a grader
 * failure. */
#include "grade/fanout.h"

#include "base/alloc.h"
#include "base/fs.h"
#include "base/strbuf.h"

#include <check.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define N_TASKS 6

struct ctx {
    size_t collected[N_TASKS + 1];
    size_t n_collected;
    char seen[N_TASKS + 1][32]; /* what each child wrote */
    size_t fail_at, kill_at;    /* N_TASKS: none */
    char name[32];
};

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Earlier tasks take longer, so that they finish after the later ones. */
static int work(void *arg, size_t i, const char *out, struct error *err)
{
    struct ctx *c = arg;
    /* Check's runner forwards a SIGTERM to the test's whole process group; a task stopped
     * after a failure must only end itself. */
    signal(SIGTERM, SIG_DFL);
    sleep_ms((long)(N_TASKS - i) * 40);
    if (i == c->kill_at)
        raise(SIGKILL);
    if (i == c->fail_at)
        return error_set(err, "boom in task %zu", i);
    char text[32];
    int len = snprintf(text, sizeof(text), "task %zu in %ld", i, (long)getpid());
    return write_file_atomic(out, text, (size_t)len, err);
}

static int collect(void *arg, size_t i, const char *out, struct error *err)
{
    struct ctx *c = arg;
    struct strbuf sb = STRBUF_INIT;
    if (read_file(out, &sb, err) != 0)
        return -1;
    snprintf(c->seen[i], sizeof(c->seen[i]), "%s", sb.buf);
    strbuf_release(&sb);
    c->collected[c->n_collected++] = i;
    return 0;
}

static const char *name(void *arg, size_t i)
{
    struct ctx *c = arg;
    snprintf(c->name, sizeof(c->name), "t%zu", i);
    return c->name;
}

static int run(struct ctx *c, int jobs, struct error *err)
{
    char tmpl[] = "/tmp/lg-fanout-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(tmpl));
    struct fanout f = {.n = N_TASKS,
                       .jobs = jobs,
                       .dir = tmpl,
                       .work = work,
                       .collect = collect,
                       .name = name,
                       .arg = c};
    error_init(err);
    int rc = fanout_run(&f, err);
    /* Every task's file is gone, whatever happened. */
    DIR *d = opendir(tmpl);
    ck_assert_ptr_nonnull(d);
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        ck_assert_msg(len < 4 || strcmp(e->d_name + len - 4, ".out"), "%s left in %s", e->d_name,
                      tmpl);
    }
    closedir(d);
    remove_tree(tmpl, NULL);
    return rc;
}

START_TEST(test_results_in_order)
{
    struct ctx c = {.fail_at = N_TASKS, .kill_at = N_TASKS};
    struct error err;
    ck_assert_int_eq(run(&c, 3, &err), 0);
    ck_assert_uint_eq(c.n_collected, N_TASKS);
    for (size_t i = 0; i < N_TASKS; i++) {
        char want[16];
        snprintf(want, sizeof(want), "task %zu in ", i);
        ck_assert_uint_eq(c.collected[i], i);
        ck_assert_msg(!strncmp(c.seen[i], want, strlen(want)), "task %zu wrote '%s'", i, c.seen[i]);
        /* Each in a process of its own, never the caller's. */
        ck_assert_int_ne(atol(strrchr(c.seen[i], ' ') + 1), getpid());
    }
}
END_TEST

START_TEST(test_one_at_a_time)
{
    struct ctx c = {.fail_at = N_TASKS, .kill_at = N_TASKS};
    struct error err;
    ck_assert_int_eq(run(&c, 1, &err), 0);
    ck_assert_uint_eq(c.n_collected, N_TASKS);
}
END_TEST

START_TEST(test_a_failure_is_named_and_stops_the_rest)
{
    struct ctx c = {.fail_at = 2, .kill_at = N_TASKS};
    struct error err;
    ck_assert_int_eq(run(&c, 3, &err), -1);
    ck_assert_msg(strstr(err.msg, "grading t2: boom in task 2"), "%s", err.msg);
    /* In order, up to the failure at most; it stopped as soon as it was seen. */
    ck_assert_uint_le(c.n_collected, 2);
    for (size_t i = 0; i < c.n_collected; i++)
        ck_assert_uint_eq(c.collected[i], i);
}
END_TEST

START_TEST(test_a_killed_task_is_named)
{
    struct ctx c = {.fail_at = N_TASKS, .kill_at = 4};
    struct error err;
    ck_assert_int_eq(run(&c, 2, &err), -1);
    ck_assert_msg(strstr(err.msg, "t4 was killed by signal 9"), "%s", err.msg);
    ck_assert_uint_le(c.n_collected, 4);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("fanout");
    TCase *tc = tcase_create("fanout");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_results_in_order);
    tcase_add_test(tc, test_one_at_a_time);
    tcase_add_test(tc, test_a_failure_is_named_and_stops_the_rest);
    tcase_add_test(tc, test_a_killed_task_is_named);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
