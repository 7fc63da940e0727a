/*
 * The machine's timing coordinator end to end (run/turns.h, docs/coordinator.md): graders with
 * output folders of their own take turns through it; one that waits says so, and who holds the
 * turn; a turn that never comes gives "not timed: the machine was busy", with the holder, never
 * a hang and never a time; a class graded so leaves those students ungraded for next time.
 *
 * Each test has a coordinator folder of its own (LABGRADER_COORDINATOR), so that the locks it
 * holds to play another grader never hold up the suites running beside it. The holder is a
 * child process that holds every core's lock exclusively, as a CPU series does. Hangs are
 * bounded by Check's timeout; the one duration that matters (a wait) is imposed by the test.
 */
#include "e2e.h"

#include "base/fs.h"
#include "base/strbuf.h"

#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>

static const char *lab = "tests/fixtures/labcpu";
static char *dir, *coord;

static void setup(void)
{
    dir = e2e_tmpdir("coordinator");
    ck_assert_ptr_nonnull(dir);
    coord = path_join(dir, "coordinator");
    ck_assert_int_eq(mkdir(coord, 01777), 0);
    ck_assert_int_eq(chmod(coord, 01777), 0);
    setenv("LABGRADER_COORDINATOR", coord, 1);
}

static void teardown(void)
{
    if (!getenv("LG_KEEP"))
        remove_tree(dir, NULL);
    free(coord);
    free(dir);
}

/* A process that holds every core's lock of the coordinator exclusively (as a CPU series of
 * another grader does) until killed. Returns once it holds them. */
static pid_t hold_the_machine(void)
{
    int ready[2];
    ck_assert_int_eq(pipe(ready), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        long n = sysconf(_SC_NPROCESSORS_CONF);
        for (long c = 0; c < n && c < 1024; c++) {
            char *p = xstrfmt("%s/cpu%ld.lock", coord, c);
            int fd = open(p, O_RDONLY | O_CREAT, 0644);
            free(p);
            if (fd < 0 || flock(fd, LOCK_EX) != 0)
                _exit(1);
        }
        if (write(ready[1], "r", 1) != 1)
            _exit(1);
        pause();
        _exit(0);
    }
    char c;
    close(ready[1]);
    ck_assert_int_eq(read(ready[0], &c, 1), 1);
    close(ready[0]);
    return pid;
}

static void release(pid_t holder)
{
    kill(holder, SIGKILL);
    waitpid(holder, NULL, 0);
}

/* `grader check` of labcpu's solution into out, English; its exit status, console in log. */
static int check(const char *out, const char *log, const char *wait)
{
    char *sub = xstrfmt("%s/solution", lab);
    const char *argv[] = {e2e_bin(), "check",    lab,         "--submission",
                          sub,       "--out",    out,         "--lang",
                          "en",      "--no-pdf", "--no-html", wait ? "--timing-wait" : NULL,
                          wait,      NULL};
    int rc = e2e_run(argv, log);
    free(sub);
    return rc;
}

static void read_results(const char *out, const char *id, struct results *r)
{
    struct error err;
    char *json = xstrfmt("%s/lab99/%s/results.json", out, id);
    results_init(r);
    ck_assert_msg(results_read(r, json, &err) == 0, "%s", err.msg);
    free(json);
}

static char *text_of(const char *path)
{
    struct strbuf sb = STRBUF_INIT;
    read_file(path, &sb, NULL);
    return strbuf_detach(&sb);
}

/* Every passed case got its turn: timed, or (on a loaded test machine) not timed because
 * another process shared its cores, said as a skip (e2e_timed); never "busy". */
static void assert_had_turns(const struct results *r)
{
    for (size_t e = 0; e < r->n_exercises; e++)
        for (size_t v = 0; v < r->exercises[e].n_variants; v++)
            for (size_t c = 0; c < r->exercises[e].variants[v].n_cases; c++) {
                const struct case_result *cr = &r->exercises[e].variants[v].cases[c];
                if (cr->verdict != V_PASS)
                    continue;
                ck_assert_msg(cr->not_timed != NOT_TIMED_BUSY, "%s: no turn after the holder left",
                              cr->case_id);
                e2e_timed(cr->case_id, cr);
            }
}

/* Another grader holds the machine: this one waits its turn, saying so and naming who holds it;
 * once the holder lets go (when the notice has appeared, or after a minute: then the notice is
 * missing and the test fails), it grades and times as usual. */
START_TEST(test_waits_its_turn_and_says_so)
{
    char *out = path_join(dir, "out"), *log = path_join(dir, "check.log");
    pid_t holder = hold_the_machine();
    pid_t grader = fork();
    ck_assert_int_ge(grader, 0);
    if (grader == 0)
        _exit(check(out, log, "600"));
    char *console = NULL;
    for (int i = 0; i < 600; i++) {
        free(console);
        console = text_of(log);
        if (strstr(console, "queued: waiting"))
            break;
        usleep(100 * 1000);
    }
    release(holder);
    int st;
    ck_assert_int_eq(waitpid(grader, &st, 0), grader);
    free(console);
    console = text_of(log);
    char *pid = xstrfmt("pid %ld", (long)holder);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "exit %#x: %s", st, console);
    ck_assert_msg(strstr(console, "queued: waiting") && strstr(console, pid),
                  "no notice naming the holder: %s", console);
    struct results r;
    read_results(out, "solution", &r);
    ck_assert_int_eq(r.n_fail, 0);
    ck_assert_int_eq(r.n_grader_errors, 0);
    assert_had_turns(&r);
    results_release(&r);
    free(pid);
    free(console);
    free(out);
    free(log);
}
END_TEST

/* The machine never becomes free (another user's process holds the turn): after the wait the
 * check goes on, grades correctness, and reports every timed case "not timed" with the holder,
 * no time and no speed-up. */
START_TEST(test_busy_machine_not_timed)
{
    char *out = path_join(dir, "out"), *log = path_join(dir, "check.log");
    pid_t holder = hold_the_machine();
    int rc = check(out, log, "2");
    release(holder);
    char *console = text_of(log), *pid = xstrfmt("pid %ld", (long)holder);
    ck_assert_msg(rc == 0, "exit %d: %s", rc, console);
    ck_assert_msg(strstr(console, "not timed: the machine was busy") != NULL, "%s", console);
    struct results r;
    read_results(out, "solution", &r);
    ck_assert_int_eq(r.n_fail, 0);
    ck_assert_int_gt(r.n_pass, 0);
    ck_assert_int_eq(r.n_not_timed, r.n_pass);
    for (size_t e = 0; e < r.n_exercises; e++)
        for (size_t c = 0; c < r.exercises[e].variants[0].n_cases; c++) {
            const struct case_result *cr = &r.exercises[e].variants[0].cases[c];
            if (cr->verdict != V_PASS)
                continue;
            ck_assert_int_eq(cr->not_timed, NOT_TIMED_BUSY);
            ck_assert_msg(cr->not_timed_detail && strstr(cr->not_timed_detail, pid), "%s: %s",
                          cr->case_id, cr->not_timed_detail ? cr->not_timed_detail : "-");
            ck_assert(!cr->time.valid && cr->speedup_ref == 0 && cr->pairs == 0);
        }
    results_release(&r);
    free(pid);
    free(console);
    free(out);
    free(log);
}
END_TEST

/* Three checks at once, each with an output folder of its own, one of them of wrong code: each
 * gets the verdicts it gets alone, and nobody's honest code is CH. */
START_TEST(test_checks_at_once)
{
    const char *subs[3] = {"solution", "solution", "../class/s04"};
    pid_t pids[3];
    char *outs[3], *logs[3];
    for (int k = 0; k < 3; k++) {
        outs[k] = xstrfmt("%s/out%d", dir, k);
        logs[k] = xstrfmt("%s/check%d.log", dir, k);
        pids[k] = fork();
        ck_assert_int_ge(pids[k], 0);
        if (pids[k] == 0) {
            char *sub = xstrfmt("%s/%s", lab, subs[k]);
            const char *argv[] = {e2e_bin(), "check",  lab,  "--submission", sub,         "--out",
                                  outs[k],   "--lang", "en", "--no-pdf",     "--no-html", NULL};
            _exit(e2e_run(argv, logs[k]));
        }
    }
    for (int k = 0; k < 3; k++) {
        int st;
        ck_assert_int_eq(waitpid(pids[k], &st, 0), pids[k]);
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == (k < 2 ? 0 : 1), "check %d: %#x (%s)", k,
                      st, logs[k]);
        struct results r;
        read_results(outs[k], k < 2 ? "solution" : "s04", &r);
        for (size_t e = 0; e < r.n_exercises; e++)
            for (size_t c = 0; c < r.exercises[e].variants[0].n_cases; c++) {
                const struct case_result *cr = &r.exercises[e].variants[0].cases[c];
                bool wrong = k == 2 && !strcmp(r.exercises[e].exercise_id, "saxpy") && !cr->hidden;
                if (cr->verdict == V_SKIPPED)
                    continue;
                ck_assert_msg(cr->verdict == (wrong ? V_WRONG : V_PASS), "check %d %s %s: %s", k,
                              r.exercises[e].exercise_id, cr->case_id, verdict_code(cr->verdict));
            }
        results_release(&r);
        free(outs[k]);
        free(logs[k]);
    }
}
END_TEST

/* A class graded while the machine stays busy: its students are not stamped (exit 3, "not
 * timed"), so the next `grade`, on a free machine, grades them again rather than calling them
 * unchanged. */
START_TEST(test_class_not_timed_graded_again)
{
    char *cls = path_join(dir, "class"), *out = path_join(dir, "out");
    char *log = path_join(dir, "grade.log"), *cmd = xstrfmt("mkdir -p '%s' && cp -r "
                                                            "'%s/solution' '%s/s1'",
                                                            cls, lab, cls);
    ck_assert_int_eq(system(cmd), 0);
    const char *argv[] = {e2e_bin(), "grade",    lab,         "--submissions", cls, "--out",
                          out,       "--no-pdf", "--no-html", "--timing-wait", "2", NULL};
    pid_t holder = hold_the_machine();
    int rc = e2e_run(argv, log);
    release(holder);
    char *console = text_of(log);
    ck_assert_msg(rc == 3 && strstr(console, "1 not timed"), "exit %d: %s", rc, console);
    free(console);
    rc = e2e_run(argv, log);
    console = text_of(log);
    struct results r;
    read_results(out, "s1", &r);
    ck_assert_msg((rc == 0 || (rc == 3 && r.n_not_timed > 0)) &&
                      strstr(console, "1 graded, 0 unchanged"),
                  "exit %d: %s", rc, console);
    assert_had_turns(&r);
    results_release(&r);
    free(console);
    free(cmd);
    free(log);
    free(out);
    free(cls);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("coordinator");
    TCase *tc = tcase_create("turns");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_waits_its_turn_and_says_so);
    tcase_add_test(tc, test_busy_machine_not_timed);
    tcase_add_test(tc, test_checks_at_once);
    tcase_add_test(tc, test_class_not_timed_graded_again);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
