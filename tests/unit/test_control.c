/*
 * The supervisor's end of the control pipe (run/control.h): every line's two timestamps must
 * bound when it was written, however late the supervisor reads, so that the span checks made
 * from them (run/runner.c, grade/speed.c) never call an honest series forged; and the timing
 * locks' requests ("W", "R") must be kept in the harness's order, a series outside them noted.
 */
#include "run/control.h"

#include "base/util.h"

#include <check.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int fds[2];
static struct sb_control ctl;

static void sleep_ms(int ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

static void open_pipe(void)
{
    struct sandbox_opts o;
    ck_assert_int_eq(pipe(fds), 0);
    fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
    sandbox_opts_init(&o);
    sb_control_init(&ctl, fds[0], &o, now_seconds());
}

static void say(const char *line)
{
    ck_assert_int_eq(write(fds[1], line, strlen(line)), (ssize_t)strlen(line));
}

static void finish(struct sandbox_result *r)
{
    sandbox_result_init(r);
    close(fds[1]);
    sb_control_finish(&ctl, r, false);
}

/* Written 40 ms apart, read together (a supervisor kept off the CPU): both lines carry the
 * same read time, and only the time the pipe was last found empty bounds the span.
 * No assertion here or below bounds how long anything took: each compares stamps that the
 * order of the calls fixes (a sleep lasts at least what it asks), so a loaded machine only
 * widens the margins. */
START_TEST(test_lines_read_together)
{
    struct sandbox_result r;
    open_pipe();
    double t0 = now_seconds() - ctl.start;
    say("S 0 call\n");
    sleep_ms(40);
    say("E 0 call\n");
    ck_assert(sb_control_read(&ctl));
    finish(&r);
    ck_assert_int_eq(r.n_events, 2);
    const struct sandbox_event *s = &r.events[0], *e = &r.events[1];
    ck_assert(s->t_s == e->t_s);
    ck_assert(s->t_after_s <= t0);
    ck_assert_msg(e->t_s - s->t_after_s >= 0.040, "the largest span %.3f s misses the real 40 ms",
                  e->t_s - s->t_after_s);
    ck_assert(e->t_after_s - s->t_s <= 0.040);
    sandbox_result_release(&r);
}
END_TEST

/* Read as they come, with an empty pipe seen between them: the smallest span is close to the
 * real one, and never above it. */
START_TEST(test_idle_bounds_the_next_line)
{
    struct sandbox_result r;
    open_pipe();
    say("S 0 call\n");
    ck_assert(sb_control_read(&ctl));
    sleep_ms(40);
    ck_assert(sb_control_read(&ctl)); /* nothing there: EAGAIN */
    double idle = now_seconds();
    sb_control_idle(&ctl, idle);
    say("E 0 call\n");
    double written = now_seconds() - ctl.start;
    ck_assert(sb_control_read(&ctl));
    finish(&r);
    ck_assert_int_eq(r.n_events, 2);
    const struct sandbox_event *s = &r.events[0], *e = &r.events[1];
    ck_assert_msg(e->t_after_s - s->t_s >= 0.030, "smallest span %.3f s after a 40 ms wait",
                  e->t_after_s - s->t_s);
    ck_assert(e->t_after_s <= written && written <= e->t_s);
    /* An idle time from before the last one never moves the bound back. */
    sb_control_idle(&ctl, idle - 1);
    ck_assert(ctl.drained >= idle - ctl.start);
    sandbox_result_release(&r);
}
END_TEST

/* The timing locks' requests (run/grants.c serves them). One read can bring a case's "R", the
 * next case's "B" and its "W": both requests stand, the idle one served first. */
START_TEST(test_release_and_next_request_read_together)
{
    struct sandbox_result r;
    double limits[2] = {10, 10};
    open_pipe();
    ctl.limits = limits;
    ctl.n_limits = 2;
    say("B 0\nW 0\n");
    ck_assert(sb_control_read(&ctl));
    ck_assert(ctl.want_timed && !ctl.timed);
    double before = ctl.case_deadline;
    sb_control_granted(&ctl, 3.0);
    ck_assert(ctl.timed && !ctl.want_timed);
    ck_assert(ctl.case_deadline == before + 3.0); /* the wait is not the case's */
    say("S 0 call\nE 0 call\nR 0\nB 1\nW 1\n");
    ck_assert(sb_control_read(&ctl));
    ck_assert(ctl.want_idle && ctl.want_timed && !ctl.timed);
    ck_assert(!ctl.unlocked_series);
    finish(&r);
    ck_assert(!r.unlocked_series);
    sandbox_result_release(&r);
}
END_TEST

/* A series that begins before the grant (a forged or second "W" answered early), or a forged
 * "R" in the middle of one: the series is not under the locks, and the result says so. */
START_TEST(test_series_outside_the_locks)
{
    const char *scripts[] = {"B 0\nW 0\nS 0 call\n", "B 0\nW 0\n!S 0 call\nR 0\nE 0 call\n"};
    for (size_t k = 0; k < 2; k++) {
        struct sandbox_result r;
        double limits[1] = {10};
        open_pipe();
        ctl.limits = limits;
        ctl.n_limits = 1;
        const char *line = scripts[k];
        const char *grant_at = strchr(line, '!');
        if (grant_at) {
            char head[64];
            snprintf(head, sizeof(head), "%.*s", (int)(grant_at - line), line);
            say(head);
            ck_assert(sb_control_read(&ctl));
            sb_control_granted(&ctl, 0);
            line = grant_at + 1;
        }
        say(line);
        ck_assert(sb_control_read(&ctl));
        finish(&r);
        ck_assert_msg(r.unlocked_series, "script %zu", k);
        sandbox_result_release(&r);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("control");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_lines_read_together);
    tcase_add_test(tc, test_idle_bounds_the_next_line);
    tcase_add_test(tc, test_release_and_next_request_read_together);
    tcase_add_test(tc, test_series_outside_the_locks);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
