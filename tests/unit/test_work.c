/*
 * The grader's own work in the machine's timing coordinator (run/work.h): a section holds its
 * lane's cores shared, waits for a series on them, gives way at a checkpoint to a series that
 * comes to wait, and holds nothing while the process waits for a run or holds its cores by other
 * means; hashing a cache file (grade/cache.h) is such a section. A "series" here is a child
 * process holding a core's lock exclusively, as a supervisor does for a timed CPU series. Every
 * test has a coordinator folder of its own (LABGRADER_COORDINATOR).
 */
#include "run/turns.h"
#include "run/work.h"

#include "base/alloc.h"
#include "base/fs.h"
#include "grade/cache.h"

#include <check.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char dir[] = "/tmp/lg-work-XXXXXX";
static char *coord, *lock0, *marker;
static struct turns t;

static void setup(void)
{
    ck_assert_ptr_nonnull(mkdtemp(dir));
    coord = xstrfmt("%s/coordinator", dir);
    marker = xstrfmt("%s/series-over", dir);
    setenv("LABGRADER_COORDINATOR", coord, 1);
    setenv("LABGRADER_TIMING_WAIT", "120", 1);
    turns_init(&t);
    turns_setup(&t, 1);
    ck_assert_msg(t.problem == NULL, "%s", t.problem);
    turns_place(&t, 0, NULL);
    int first = 0;
    while (!CPU_ISSET(first, &t.cpus))
        first++;
    lock0 = xstrfmt("%s/cpu%d.lock", coord, first);
}

static void teardown(void)
{
    turns_release(&t);
    char *cmd = xstrfmt("rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
    free(cmd);
    free(coord);
    free(lock0);
    free(marker);
    unsetenv("LABGRADER_COORDINATOR");
    unsetenv("LABGRADER_TIMING_WAIT");
    memcpy(dir + strlen(dir) - 6, "XXXXXX", 6);
}

/* Whether another process could take the core's lock exclusively now (a series could start). */
static bool series_could_start(void)
{
    int fd = open(lock0, O_RDONLY);
    ck_assert_int_ge(fd, 0);
    bool could = flock(fd, LOCK_EX | LOCK_NB) == 0;
    close(fd);
    return could;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/*
 * A series in a child: waits through the turnstile when `through_turnstile` (as a supervisor
 * asks for its timed mode: holding the turnstile, then the lock), tells `ready` once it holds
 * the lock (or, through the turnstile, once it waits), keeps it 300 ms, writes the marker and
 * lets go. Returns the child's pid.
 */
static pid_t series(bool through_turnstile, int ready)
{
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid != 0)
        return pid;
    char *turn = xstrfmt("%s.turn", lock0);
    int tf = through_turnstile ? open(turn, O_RDWR | O_CREAT, 0666) : -1;
    int fd = open(lock0, O_RDWR | O_CREAT, 0666);
    if (fd < 0 || (through_turnstile && (tf < 0 || flock(tf, LOCK_EX) != 0)))
        _exit(1);
    if (through_turnstile && write(ready, "w", 1) != 1)
        _exit(1);
    if (flock(fd, LOCK_EX) != 0 || (!through_turnstile && write(ready, "r", 1) != 1))
        _exit(1);
    sleep_ms(300);
    int m = open(marker, O_WRONLY | O_CREAT, 0644);
    if (m < 0)
        _exit(1);
    close(m);
    flock(fd, LOCK_UN);
    _exit(0);
}

static void series_done(pid_t pid)
{
    int st;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* A section holds the lane's cores shared: no series may start until it ends. */
START_TEST(test_section_holds_the_cores)
{
    ck_assert(series_could_start());
    work_begin();
    ck_assert(work_held());
    ck_assert(!series_could_start());
    work_begin();
    work_end();
    ck_assert_msg(!series_could_start(), "an inner section's end let go of the outer one's hold");
    work_end();
    ck_assert(!work_held());
    ck_assert(series_could_start());
}
END_TEST

/* A section begun while a series runs on the lane's cores waits for its end. */
START_TEST(test_section_waits_for_a_series)
{
    int ready[2];
    ck_assert_int_eq(pipe(ready), 0);
    pid_t pid = series(false, ready[1]);
    char c;
    ck_assert_int_eq(read(ready[0], &c, 1), 1);
    work_begin();
    ck_assert_msg(file_exists(marker), "the section began while the series held the cores");
    ck_assert(work_held());
    work_end();
    series_done(pid);
    close(ready[0]);
    close(ready[1]);
}
END_TEST

/* At a checkpoint, a section gives its cores up to a series that came to wait for them, and
 * takes them back once the series is over. */
START_TEST(test_checkpoint_gives_way)
{
    int ready[2];
    ck_assert_int_eq(pipe(ready), 0);
    work_begin();
    pid_t pid = series(true, ready[1]);
    char c;
    ck_assert_int_eq(read(ready[0], &c, 1), 1);
    ck_assert(!file_exists(marker));
    work_checkpoint();
    ck_assert_msg(file_exists(marker), "the checkpoint did not let the waiting series run");
    ck_assert(work_held());
    ck_assert(!series_could_start());
    work_end();
    series_done(pid);
    close(ready[0]);
    close(ready[1]);
}
END_TEST

/* A forked child (variants graded side by side) holds sections of its own on the same lane,
 * and its end leaves its parent's hold alone. */
START_TEST(test_forked_child_has_sections_of_its_own)
{
    int held[2], done[2];
    ck_assert_int_eq(pipe(held), 0);
    ck_assert_int_eq(pipe(done), 0);
    work_begin();
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        char c;
        work_begin();
        if (!work_held() || write(held[1], "h", 1) != 1 || read(done[0], &c, 1) != 1)
            _exit(1);
        work_end();
        _exit(work_held() ? 1 : 0);
    }
    char c;
    ck_assert_int_eq(read(held[0], &c, 1), 1);
    work_end();
    ck_assert_msg(!series_could_start(), "the child's section does not hold the cores");
    ck_assert_int_eq(write(done[1], "d", 1), 1);
    series_done(pid);
    ck_assert(series_could_start());
    work_begin();
    pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0)
        _exit(0);
    series_done(pid);
    ck_assert_msg(!series_could_start(), "a child's end let go of its parent's hold");
    work_end();
    for (int i = 0; i < 2; i++) {
        close(held[i]);
        close(done[i]);
    }
}
END_TEST

/* While the process waits for a run or holds its cores by other means (work_pause), a section
 * holds nothing: it would wait for a series that waits for this process. Inside a section, the
 * pause lets go and the resume holds again. */
START_TEST(test_pause_outside_and_inside_a_section)
{
    work_pause();
    work_begin();
    ck_assert(!work_held());
    ck_assert(series_could_start());
    work_end();
    work_resume();
    work_begin();
    ck_assert(work_held());
    work_pause();
    ck_assert(series_could_start());
    work_resume();
    ck_assert(!series_could_start());
    work_end();
    ck_assert(series_could_start());
}
END_TEST

/* Cores held for a PDF (turns_hold_cores) pause a section: the process's own hold and a
 * series' wait for it never wait on each other. */
START_TEST(test_hold_cores_inside_a_section)
{
    work_begin();
    size_t n;
    int *held = turns_hold_cores(&t, &n);
    ck_assert_uint_eq(n, (size_t)t.n_cpus);
    ck_assert(!work_held());
    work_begin();
    ck_assert(!work_held());
    work_end();
    turns_let_go(held, n);
    ck_assert(work_held());
    work_end();
    ck_assert(series_could_start());
}
END_TEST

/* A core held past the wait (a process holding the machine for good): the section's work goes
 * on without a hold, and the process's later waits last a moment, as after a run's. */
/* A process holding the first core's lock exclusively until killed; its pid once it holds it. */
static pid_t hold_for_good(void)
{
    int ready[2];
    ck_assert_int_eq(pipe(ready), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int fd = open(lock0, O_RDWR | O_CREAT, 0666);
        if (fd < 0 || flock(fd, LOCK_EX) != 0 || write(ready[1], "r", 1) != 1)
            _exit(1);
        pause();
        _exit(0);
    }
    char c;
    ck_assert_int_eq(read(ready[0], &c, 1), 1);
    close(ready[0]);
    close(ready[1]);
    return pid;
}

START_TEST(test_held_for_good)
{
    pid_t pid = hold_for_good();
    t.wait_s = 0.5;
    ck_assert_double_eq(turns_wait_bound(&t), 0.5);
    work_begin();
    ck_assert(!work_held());
    work_end();
    ck_assert_msg(turns_wait_bound(&t) < 0.5, "the next wait is as long as the first");
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}
END_TEST

static double notice_waited;
static char notice_holders[256];

static void on_wait(void *arg, double waited_s, const char *holders)
{
    (void)arg;
    notice_waited = waited_s;
    snprintf(notice_holders, sizeof(notice_holders), "%s", holders ? holders : "");
}

/* A section that waits says so, naming who holds the cores, as a run that waits does. */
START_TEST(test_waiting_section_says_so)
{
    pid_t pid = hold_for_good();
    t.wait_s = 3;
    t.on_wait = on_wait;
    work_begin();
    work_end();
    char *who = xstrfmt("pid %ld", (long)pid);
    ck_assert_msg(notice_waited >= 2, "no notice while the section waited");
    ck_assert_msg(strstr(notice_holders, who), "the notice names %s", notice_holders);
    free(who);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}
END_TEST

/* A small file (a memo) is hashed at once, in no section: sealing it beside a process holding
 * the cores for good waits for nothing (a wait would have passed its bound, noted busy). */
START_TEST(test_small_file_hashed_without_a_section)
{
    char *path = xstrfmt("%s/memo.txt", dir);
    ck_assert_int_eq(write_file_atomic(path, "openblas_core Haswell\n", 22, NULL), 0);
    pid_t pid = hold_for_good();
    t.wait_s = 20;
    ck_assert_int_eq(cache_seal_file(path, NULL), 0);
    ck_assert_double_eq(turns_wait_bound(&t), 20);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    free(path);
}
END_TEST

/* Hashing a cache file (sealing it) is the grader's own work: not beside a series. */
START_TEST(test_hashing_waits_for_a_series)
{
    char *path = xstrfmt("%s/expected.bin", dir);
    size_t size = 3u << 20;
    char *bytes = xcalloc(size, 1);
    ck_assert_int_eq(write_file_atomic(path, bytes, size, NULL), 0);
    int ready[2];
    ck_assert_int_eq(pipe(ready), 0);
    pid_t pid = series(false, ready[1]);
    char c;
    ck_assert_int_eq(read(ready[0], &c, 1), 1);
    ck_assert_int_eq(cache_seal_file(path, NULL), 0);
    ck_assert_msg(file_exists(marker), "the file was hashed while the series held the cores");
    ck_assert(!work_held());
    ck_assert(series_could_start());
    series_done(pid);
    char why[256];
    ck_assert_int_eq(cache_check_file(path, why, sizeof(why)), CACHE_OK);
    close(ready[0]);
    close(ready[1]);
    free(bytes);
    free(path);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("work");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    /* A generous watchdog against a section that never comes back; no test bounds a time. */
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_section_holds_the_cores);
    tcase_add_test(tc, test_section_waits_for_a_series);
    tcase_add_test(tc, test_checkpoint_gives_way);
    tcase_add_test(tc, test_forked_child_has_sections_of_its_own);
    tcase_add_test(tc, test_pause_outside_and_inside_a_section);
    tcase_add_test(tc, test_hold_cores_inside_a_section);
    tcase_add_test(tc, test_held_for_good);
    tcase_add_test(tc, test_hashing_waits_for_a_series);
    tcase_add_test(tc, test_waiting_section_says_so);
    tcase_add_test(tc, test_small_file_hashed_without_a_section);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
