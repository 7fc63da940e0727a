/*
 * The deadline rush on a machine without a GPU (docs/coordinator.md, "The deadline rush"):
 * twenty `grader autograde --stdin-tar` at once on the rush test lab (tests/fixtures/labrush: a
 * CPU case whose series, about 0.3 s, are long enough for the load watch to judge), as
 * Gradescope's runners call the course's machine, on a machine of two cores. The first wave
 * starts on empty caches (the machine's calibration and the references measured once, by one of
 * them, while the others wait), the second on warm ones. Every runner gets its grade, the one a
 * lone run gets, with every case timed: none is an autograder failure, none has a case not
 * timed (nor speed points left pending) because the others ran.
 *
 * No assertion bounds how long anything took; the suite's watchdog bounds a hang.
 */
#include "e2e.h"

#include "base/json.h"

#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>

enum { N_RUSH = 20 };

static char *tmp_dir, *tarball;
/* The lab the answers grade: the rush lab, unless a test says otherwise. */
static const char *rush_lab = "tests/fixtures/labrush";

static void sh(const char *cmd)
{
    ck_assert_msg(system(cmd) == 0, "%s", cmd);
}

/* The solution of lab as Gradescope's runner sends it: submission/ and its metadata, a tar.gz
 * in tmp_dir/name. */
static char *pack(const char *lab, const char *name)
{
    char *cmd =
        xstrfmt("rm -rf '%s/root' && mkdir -p '%s/root/submission' && cp %s/solution/* "
                "'%s/root/submission/' "
                "&& printf '{\"users\": [{\"email\": \"s@uni.example\", \"name\": \"S\"}]}' "
                "> '%s/root/submission_metadata.json' && tar -C '%s/root' -czf '%s/%s' submission "
                "submission_metadata.json",
                tmp_dir, tmp_dir, lab, tmp_dir, tmp_dir, tmp_dir, tmp_dir, name);
    sh(cmd);
    free(cmd);
    return xstrfmt("%s/%s", tmp_dir, name);
}

static void setup(void)
{
    tmp_dir = e2e_tmpdir("rush");
    ck_assert_ptr_nonnull(tmp_dir);
    rush_lab = "tests/fixtures/labrush";
    tarball = pack(rush_lab, "sub.tgz");
}

static void teardown(void)
{
    char *cmd = xstrfmt("rm -rf '%s'", tmp_dir);
    sh(cmd);
    free(cmd);
    free(tmp_dir);
    free(tarball);
}

struct answer {
    pid_t pid;
    char *out, *log;
    int status;
    struct json_value *doc;
    char *text;
};

static void answer_start_with(struct answer *a, const char *tag, int k, const char *limit)
{
    a->out = xstrfmt("%s/%s-%d.json", tmp_dir, tag, k);
    a->log = xstrfmt("%s/%s-%d.log", tmp_dir, tag, k);
    a->pid = fork();
    ck_assert_int_ge(a->pid, 0);
    if (a->pid == 0) {
        int in = open(tarball, O_RDONLY), out = open(a->out, O_WRONLY | O_CREAT | O_TRUNC, 0644),
            log = open(a->log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (in < 0 || out < 0 || log < 0)
            _exit(127);
        dup2(in, 0);
        dup2(out, 1);
        dup2(log, 2);
        execl(e2e_bin(), e2e_bin(), "autograde", rush_lab, "--stdin-tar", "--gpu-policy", "fail",
              limit ? "--time-limit" : (char *)NULL, limit, (char *)NULL);
        _exit(127);
    }
}

static void answer_start(struct answer *a, const char *tag, int k)
{
    answer_start_with(a, tag, k, NULL);
}

static void answer_wait(struct answer *a)
{
    int st;
    ck_assert_int_eq(waitpid(a->pid, &st, 0), a->pid);
    a->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    struct strbuf sb = STRBUF_INIT;
    struct error err;
    char *tail = e2e_log_tail(a->log);
    ck_assert_msg(a->status == 0, "autograde exited %d: %s", a->status, tail);
    ck_assert_msg(read_file(a->out, &sb, &err) == 0, "%s", err.msg);
    ck_assert_msg(json_parse(sb.buf, sb.len, &a->doc, &err) == 0, "%s: %s", err.msg, tail);
    a->text = strbuf_detach(&sb);
    free(tail);
}

static void answer_release(struct answer *a)
{
    json_value_free(a->doc);
    free(a->text);
    free(a->out);
    free(a->log);
}

/* The lone run's grade, every case of it timed: the same score, every test the same status and
 * points, and nothing said of a case not timed. */
static void same_as_alone(const struct answer *a, const struct answer *alone, const char *wave,
                          int k)
{
    double score = json_get_number(a->doc, "score", -1);
    ck_assert_msg(score == json_get_number(alone->doc, "score", -2), "%s %d: score %g, alone %g",
                  wave, k, score, json_get_number(alone->doc, "score", -2));
    const struct json_value *t = json_get(a->doc, "tests"), *ta = json_get(alone->doc, "tests");
    ck_assert(t && ta && t->n == ta->n);
    for (size_t i = 0; i < t->n; i++) {
        const char *st = json_get_string(json_at(t, i), "status");
        const char *sa = json_get_string(json_at(ta, i), "status");
        ck_assert_msg(st && sa && !strcmp(st, sa), "%s %d test %zu: %s, alone %s", wave, k, i, st,
                      sa);
        ck_assert(json_get_number(json_at(t, i), "score", -1) ==
                  json_get_number(json_at(ta, i), "score", -2));
    }
    ck_assert_msg(!strstr(a->text, "not timed") && !strstr(a->text, "could not be timed"),
                  "%s %d: a case not timed: %s", wave, k, a->text);
}

static void wave(const char *tag, const struct answer *alone)
{
    struct answer runs[N_RUSH];
    memset(runs, 0, sizeof(runs));
    for (int k = 0; k < N_RUSH; k++)
        answer_start(&runs[k], tag, k);
    for (int k = 0; k < N_RUSH; k++)
        answer_wait(&runs[k]);
    for (int k = 0; alone && k < N_RUSH; k++)
        same_as_alone(&runs[k], alone, tag, k);
    for (int k = 0; k < N_RUSH; k++)
        answer_release(&runs[k]);
}

START_TEST(test_rush_of_twenty_cold_then_warm)
{
    /* Empty caches: the first wave finds nothing measured, nothing built. The coordinator is the
     * machine's (or the test run's), as every grader beside them uses. */
    char *cache = xstrfmt("%s/cache", tmp_dir);
    setenv("LABGRADER_CACHE", cache, 1);
    struct answer cold[N_RUSH], alone;
    memset(cold, 0, sizeof(cold));
    memset(&alone, 0, sizeof(alone));
    for (int k = 0; k < N_RUSH; k++)
        answer_start(&cold[k], "cold", k);
    for (int k = 0; k < N_RUSH; k++)
        answer_wait(&cold[k]);
    answer_start(&alone, "alone", 0);
    answer_wait(&alone);
    ck_assert_msg(json_get_number(alone.doc, "score", -1) > 0, "%s", alone.text);
    for (int k = 0; k < N_RUSH; k++) {
        same_as_alone(&cold[k], &alone, "cold", k);
        answer_release(&cold[k]);
    }
    wave("warm", &alone);
    answer_release(&alone);
    free(cache);
}
END_TEST

/* The test's own cache and coordinator folder, as a machine of its own; the folder's path
 * (caller frees). */
static char *own_machine(void)
{
    char *cache = xstrfmt("%s/cache", tmp_dir), *coord = xstrfmt("%s/coord", tmp_dir);
    ck_assert_int_eq(mkdir(coord, 0777), 0);
    chmod(coord, 01777);
    setenv("LABGRADER_CACHE", cache, 1);
    setenv("LABGRADER_COORDINATOR", coord, 1);
    free(cache);
    return coord;
}

/* Every core of the machine held by another process for good: the answer still comes before the
 * runner's limit (--time-limit 60: every wait ends 30 s in), with the case's correctness verdict
 * and points, saying it could not be timed, never an autograder failure. */
START_TEST(test_answer_before_its_limit)
{
    char *coord = own_machine();
    int ready[2];
    ck_assert_int_eq(pipe(ready), 0);
    pid_t holder = fork();
    ck_assert_int_ge(holder, 0);
    if (holder == 0) {
        for (long c = 0; c < sysconf(_SC_NPROCESSORS_CONF) && c < 1024; c++) {
            char *path = xstrfmt("%s/cpu%ld.lock", coord, c);
            int fd = open(path, O_RDONLY | O_CREAT, 0644);
            if (fd < 0 || flock(fd, LOCK_EX) != 0)
                _exit(1);
            free(path);
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
    struct answer a;
    memset(&a, 0, sizeof(a));
    answer_start_with(&a, "held", 0, "60");
    answer_wait(&a);
    kill(holder, SIGKILL);
    waitpid(holder, NULL, 0);
    ck_assert_msg(json_get_number(a.doc, "score", -1) == 10, "%s", a.text);
    ck_assert_msg(strstr(a.text, "could not be timed before Gradescope's time limit"), "%s",
                  a.text);
    answer_release(&a);
    unsetenv("LABGRADER_COORDINATOR");
    free(coord);
}
END_TEST

/* The first variant an answer's log says it ran (LABGRADER_TRACE's "reference library ready",
 * which each variant's run begins with). Caller frees. */
static char *first_variant_run(const char *log)
{
    struct strbuf sb = STRBUF_INIT;
    struct error err;
    ck_assert_msg(read_file(log, &sb, &err) == 0, "%s", err.msg);
    const char *at = strstr(sb.buf, " reference library ready");
    ck_assert_msg(at != NULL, "no variant ran: %s", sb.buf);
    const char *from = at;
    while (from > sb.buf && from[-1] != ' ')
        from--;
    char *id = xstrndup(from, (size_t)(at - from));
    strbuf_release(&sb);
    return id;
}

/* A grader that finds the first grading slot taken starts on the lab's second variant, so that
 * graders at once do not all run one variant's heavy untimed work together; the order changes
 * nothing of the answer, which is a lone run's in the first slot. */
START_TEST(test_second_slot_starts_on_the_second_variant)
{
    char *coord = own_machine();
    setenv("LABGRADER_AUTOGRADE_SLOTS", "2", 1);
    setenv("LABGRADER_TRACE", "1", 1);
    rush_lab = "tests/fixtures/labcpu";
    free(tarball);
    tarball = pack(rush_lab, "labcpu.tgz");
    struct answer first, second;
    memset(&first, 0, sizeof(first));
    memset(&second, 0, sizeof(second));
    answer_start(&first, "slot0", 0);
    answer_wait(&first);
    char *slot_path = xstrfmt("%s/autograde-slot-0.lock", coord);
    int slot0 = open(slot_path, O_RDONLY | O_CREAT | O_CLOEXEC, 0644);
    ck_assert_int_ge(slot0, 0);
    ck_assert_int_eq(flock(slot0, LOCK_EX), 0);
    answer_start(&second, "slot1", 0);
    answer_wait(&second);
    close(slot0);
    char *v0 = first_variant_run(first.log), *v1 = first_variant_run(second.log);
    ck_assert_str_eq(v0, "saxpy/cpu");
    ck_assert_str_eq(v1, "dot/cpu");
    same_as_alone(&second, &first, "slot 1", 0);
    answer_release(&first);
    answer_release(&second);
    unsetenv("LABGRADER_TRACE");
    unsetenv("LABGRADER_AUTOGRADE_SLOTS");
    unsetenv("LABGRADER_COORDINATOR");
    free(v0);
    free(v1);
    free(slot_path);
    free(coord);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("rush");
    TCase *tc = tcase_create("autograde");
    /* A generous bound on a hang, never on speed. */
    tcase_set_timeout(tc, 1500);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_rush_of_twenty_cold_then_warm);
    tcase_add_test(tc, test_answer_before_its_limit);
    tcase_add_test(tc, test_second_slot_starts_on_the_second_variant);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
