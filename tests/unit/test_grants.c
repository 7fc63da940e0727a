/*
 * The timing locks as the supervisor serves them (run/grants.c): a shell script in the sandbox
 * plays the harness, writing its lines on the control pipe (LG_CONTROL_FD) and reading the
 * grant pipe (LG_GRANT_FD). Under both isolation levels where bubblewrap works.
 *
 * No assertion bounds how long anything took: the one duration asserted is a lower bound on a
 * wait the test itself imposes (a holder that keeps the lock for 4 s after the run is seen
 * waiting; a sleep lasts at least what it asks), and the hangs are bounded by the runs' own
 * wall limits.
 */
#include "run/sandbox.h"
#include "unit.h"

#include "base/alloc.h"
#include "base/fs.h"

#include <check.h>
#include <dirent.h>
#include <sched.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char dir[] = "/tmp/lg-grants-XXXXXX";
static char *lock_path, *turn_path, *work;
/* What a test changes of a run's options beyond run_script's. */
static void (*tweak)(struct sandbox_opts *o);

/* The harness's side of one timed case: begin, ask, wait for the byte, time, give back. */
#define SAY(line) "echo '" line "' >&\"$LG_CONTROL_FD\"; "
#define WAIT_GRANT "dd bs=1 count=1 <&\"$LG_GRANT_FD\" >/dev/null 2>&1; "
static const char honest[] = SAY("B 0") SAY("P 0 checks") SAY("W 0") WAIT_GRANT SAY("P 0 warmup")
    SAY("S 0 call") SAY("E 0 call") SAY("R 0") "exit 0";

static void setup(void)
{
    ck_assert_ptr_nonnull(mkdtemp(dir));
    lock_path = xstrfmt("%s/cpu.lock", dir);
    turn_path = xstrfmt("%s/cpu.lock.turn", dir);
    work = xstrfmt("%s/work", dir);
    ck_assert_int_eq(mkdir(work, 0755), 0);
}

static void teardown(void)
{
    tweak = NULL;
    char *cmd = xstrfmt("rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
    free(cmd);
    free(lock_path);
    free(turn_path);
    free(work);
    memcpy(dir + strlen(dir) - 6, "XXXXXX", 6);
}

static enum isolation iso_of(int i)
{
    return i % 2 == 0 ? ISOLATION_SUPERVISOR : ISOLATION_BWRAP;
}

/* One run of script with a lock held shared while idle and exclusively while timing, each
 * case limited to case_limit_s. */
static int run_script(enum isolation iso, const char *script, double case_limit_s,
                      struct sandbox_result *r)
{
    const char *argv[] = {"sh", "-c", script, NULL};
    double limits[1] = {case_limit_s};
    struct sb_lock locks[1] = {{lock_path, SB_LOCK_SHARED, SB_LOCK_EXCLUSIVE, true}};
    struct sandbox_opts o;
    struct error err;
    error_init(&err);
    sandbox_opts_init(&o);
    o.argv = argv;
    o.workdir = work;
    o.isolation = iso;
    o.wall_limit_s = case_limit_s + 20;
    o.control = true;
    o.case_limits_s = limits;
    o.n_case_limits = 1;
    o.locks = locks;
    o.n_locks = 1;
    if (tweak)
        tweak(&o);
    sandbox_result_init(r);
    return sandbox_run(&o, r, &err);
}

static bool skip_bwrap(enum isolation iso)
{
    if (iso == ISOLATION_BWRAP && sandbox_available() != ISOLATION_BWRAP) {
        fprintf(stderr, "skipped: under bwrap (bubblewrap does not work here)\n");
        return true;
    }
    return false;
}

/* Nobody else holds the lock: the grant comes at once, the run ends well. */
START_TEST(test_grant_at_once)
{
    enum isolation iso = iso_of(_i);
    struct sandbox_result r;
    if (skip_bwrap(iso))
        return;
    ck_assert_int_eq(run_script(iso, honest, 10, &r), 0);
    ck_assert_msg(r.status == SB_EXITED && r.exit_code == 0, "status %d exit %d: %s", r.status,
                  r.exit_code, r.output);
    ck_assert(!r.unlocked_series);
    ck_assert_int_eq(r.n_events, 7);
    sandbox_result_release(&r);
}
END_TEST

/* Another run holds the lock shared (its untimed work): the timed series waits, and the wait
 * does not count against the case's 3 s limit. The holder lets go 4 s after it sees the run
 * waiting (the lock's turnstile taken). */
static pid_t hold_until_waited_for(double extra_s)
{
    int ready[2];
    ck_assert_int_eq(pipe(ready), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int fd = open(lock_path, O_RDWR | O_CREAT, 0644);
        int turn = open(turn_path, O_RDWR | O_CREAT, 0644);
        if (fd < 0 || turn < 0 || flock(fd, LOCK_SH) != 0)
            _exit(1);
        if (write(ready[1], "r", 1) != 1)
            _exit(1);
        /* Bounded by the run's own limits: it ends, and with it the turnstile's holder. */
        for (int i = 0; i < 6000; i++) {
            if (flock(turn, LOCK_EX | LOCK_NB) != 0)
                break;
            flock(turn, LOCK_UN);
            struct timespec ms10 = {0, 10 * 1000 * 1000};
            nanosleep(&ms10, NULL);
        }
        struct timespec wait = {(time_t)extra_s, 0};
        nanosleep(&wait, NULL);
        _exit(0);
    }
    char c;
    close(ready[1]);
    ck_assert_int_eq(read(ready[0], &c, 1), 1);
    close(ready[0]);
    return pid;
}

START_TEST(test_wait_not_counted)
{
    enum isolation iso = iso_of(_i);
    struct sandbox_result r;
    if (skip_bwrap(iso))
        return;
    pid_t holder = hold_until_waited_for(4);
    ck_assert_int_eq(run_script(iso, honest, 3, &r), 0);
    int st;
    ck_assert_int_eq(waitpid(holder, &st, 0), holder);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the holder failed: %#x", st);
    ck_assert_msg(r.status == SB_EXITED && r.exit_code == 0, "status %d exit %d: %s", r.status,
                  r.exit_code, r.output);
    ck_assert_int_eq(r.case_timed_out, -1);
    ck_assert_msg(r.lock_wait_s >= 4.0, "waited %.3f s for a lock held 4 s after", r.lock_wait_s);
    ck_assert(!r.unlocked_series);
    sandbox_result_release(&r);
}
END_TEST

/* A run that times without its grant (its own "W" answered before the harness's; here the
 * series' start written with the request, in one write, so the supervisor reads both before it
 * can answer) or gives the lock back in the middle of a series: noted. */
START_TEST(test_series_outside_the_lock)
{
    static const char *const scripts[] = {
        SAY("B 0") "printf 'W 0\\nS 0 call\\n' >&\"$LG_CONTROL_FD\"; " SAY("E 0 call") "exit 0",
        SAY("B 0") SAY("W 0") WAIT_GRANT SAY("S 0 call") SAY("R 0") SAY("E 0 call") "exit 0"};
    for (size_t k = 0; k < 2; k++) {
        struct sandbox_result r;
        ck_assert_int_eq(run_script(ISOLATION_SUPERVISOR, scripts[k], 10, &r), 0);
        ck_assert_msg(r.status == SB_EXITED && r.exit_code == 0, "script %zu: %s", k, r.output);
        ck_assert_msg(r.unlocked_series, "script %zu: not noted", k);
        sandbox_result_release(&r);
    }
}
END_TEST

/* A run that ends while it holds the lock exclusively, or before its grant could reach it (the
 * grant then meets a closed socket: the supervisor must not die of SIGPIPE; twenty times, for
 * the race): the lock is free afterwards (nothing of a run outlives it). */
START_TEST(test_lock_free_after_the_run)
{
    static const char *const scripts[] = {SAY("B 0") SAY("W 0") WAIT_GRANT "exit 3",
                                          SAY("B 0") SAY("W 0") WAIT_GRANT "kill -9 $$",
                                          SAY("B 0") SAY("W 0") "exit 0"};
    for (size_t k = 0; k < 22; k++) {
        struct sandbox_result r;
        ck_assert_int_eq(run_script(ISOLATION_SUPERVISOR, scripts[k < 2 ? k : 2], 10, &r), 0);
        int fd = open(lock_path, O_RDWR);
        ck_assert_int_ge(fd, 0);
        ck_assert_msg(flock(fd, LOCK_EX | LOCK_NB) == 0, "script %zu left the lock held", k);
        close(fd);
        sandbox_result_release(&r);
    }
}
END_TEST

/* Another process holds the turn exclusively and never lets go: the run waits at most the
 * grader's bound, is told "busy" ('n'), goes on untimed, and the supervisor records who held
 * the turn; the waiting run was told it waited (on_wait). */
static int notices;
static char noticed[256];
static void count_notice(void *arg, double waited_s, const char *holders)
{
    (void)arg;
    (void)waited_s;
    notices++;
    snprintf(noticed, sizeof(noticed), "%s", holders ? holders : "");
}
static void bounded_wait(struct sandbox_opts *o)
{
    o->timing_wait_s = 2.5;
    o->on_wait = count_notice;
}

START_TEST(test_busy_after_the_wait)
{
    static const char script[] = SAY("B 0") SAY("W 0") "b=$(dd bs=1 count=1 "
                                                       "<&\"$LG_GRANT_FD\" 2>/dev/null); "
                                                       "echo \"answer $b\"; exit 0";
    int ready[2];
    ck_assert_int_eq(pipe(ready), 0);
    pid_t holder = fork();
    ck_assert_int_ge(holder, 0);
    if (holder == 0) {
        int fd = open(lock_path, O_RDWR | O_CREAT, 0644);
        if (fd < 0 || flock(fd, LOCK_EX) != 0 || write(ready[1], "r", 1) != 1)
            _exit(1);
        pause();
        _exit(0);
    }
    char c;
    ck_assert_int_eq(read(ready[0], &c, 1), 1);
    tweak = bounded_wait;
    notices = 0;
    struct sandbox_result r;
    ck_assert_int_eq(run_script(ISOLATION_SUPERVISOR, script, 10, &r), 0);
    kill(holder, SIGKILL);
    waitpid(holder, NULL, 0);
    ck_assert_msg(r.status == SB_EXITED && r.exit_code == 0, "%s", r.output);
    ck_assert_msg(strstr(r.output, "answer n") != NULL, "the run was answered: %s", r.output);
    ck_assert_uint_eq(r.n_busy, 1);
    ck_assert_int_eq(r.busy[0].case_index, 0);
    ck_assert(r.busy[0].waited_s >= 2.5);
    char *want = xstrfmt("pid %ld", (long)holder);
    ck_assert_msg(strstr(r.busy[0].holders, want) != NULL, "holders: %s", r.busy[0].holders);
    ck_assert_int_eq(notices, 1);
    ck_assert_msg(strstr(noticed, want) != NULL, "noticed: %s", noticed);
    free(want);
    close(ready[0]);
    close(ready[1]);
    sandbox_result_release(&r);
}
END_TEST

/* Another process computes on the cores of a CPU series. The series here is a harness that
 * sleeps (its own CPU time is nil), pinned to one core, beside a loop pinned to the same core,
 * which ends by itself after burn_s (its alarm). */
static cpu_set_t one_core;
static double series_bound_s;
static void watched_series(struct sandbox_opts *o)
{
    CPU_ZERO(&one_core);
    CPU_SET(0, &one_core);
    o->cpus = &one_core;
    o->cpu_series = true;
    o->timing_wait_s = series_bound_s;
}

/* A process of the test's on the series' core. */
static void pin_to_core0(void)
{
    cpu_set_t c0;
    CPU_ZERO(&c0);
    CPU_SET(0, &c0);
    sched_setaffinity(0, sizeof(c0), &c0);
}

static pid_t burn(unsigned burn_s)
{
    pid_t burner = fork();
    ck_assert_int_ge(burner, 0);
    if (burner == 0) {
        pin_to_core0();
        /* The test's own alarm handler (Check's watchdog) would end the whole test. */
        signal(SIGALRM, SIG_DFL);
        alarm(burn_s);
        for (volatile unsigned long x = 0;; x++)
            ;
    }
    return burner;
}

/* Each attempt of the series says when it began (seconds since the epoch). */
static const char measured_again[] = SAY("B 0") SAY("W 0") WAIT_GRANT
    "while :; do date +'begin %s.%N'; " SAY("S 0 call") "sleep 0.3; " SAY(
        "E 0 call 300 1 0 0") "b=$(dd bs=1 count=1 <&\"$LG_GRANT_FD\" 2>/dev/null); "
                              "echo \"verdict $b\"; [ \"$b\" = a ] || break; done; " SAY(
                                  "R 0") "exit 0";

/* The series shared the machine ('a'): it is measured again only once the machine is quiet,
 * that is after the loop ended, and then kept ('k'). */
START_TEST(test_shared_series_measured_again_once_quiet)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    double burn_end = (double)t.tv_sec + t.tv_nsec / 1e9 + 2;
    pid_t burner = burn(2);
    tweak = watched_series;
    series_bound_s = 120;
    struct sandbox_result r;
    ck_assert_int_eq(run_script(ISOLATION_SUPERVISOR, measured_again, 200, &r), 0);
    kill(burner, SIGKILL);
    waitpid(burner, NULL, 0);
    ck_assert_msg(r.status == SB_EXITED && r.exit_code == 0, "%s", r.output);
    ck_assert_msg(strncmp(r.output, "begin ", 6) == 0, "%s", r.output);
    const char *again = strstr(r.output, "verdict a\nbegin ");
    ck_assert_msg(again != NULL, "verdicts: %s", r.output);
    double second = strtod(again + strlen("verdict a\nbegin "), NULL);
    ck_assert_msg(second >= burn_end - 0.05, "measured again at %.2f, the loop ended at %.2f",
                  second, burn_end);
    ck_assert_uint_eq(r.n_loads, 1);
    ck_assert_int_ge(r.loads[0].attempts, 2);
    ck_assert_str_eq(r.loads[0].series, "call");
    sandbox_result_release(&r);
}
END_TEST

/* The wait for a quiet machine does not count against the run's own wall-clock limit, as it
 * does not against the case's: a run whose whole limit (6 s) is half the load beside its
 * series (12 s) waits, is measured again, and ends well. Before, a loaded machine killed it
 * "timed out while timing", a grade that changed with what ran beside it. The 6 s leave room
 * for the rest of the run on a core shared with the load, under the sanitizers and beside
 * another suite (1.5 s did not, in CI). */
static void watched_series_short_run(struct sandbox_opts *o)
{
    watched_series(o);
    o->wall_limit_s = 6;
}

START_TEST(test_quiet_wait_not_counted_against_the_run)
{
    pid_t burner = burn(12);
    tweak = watched_series_short_run;
    series_bound_s = 120;
    struct sandbox_result r;
    ck_assert_int_eq(run_script(ISOLATION_SUPERVISOR, measured_again, 200, &r), 0);
    kill(burner, SIGKILL);
    waitpid(burner, NULL, 0);
    ck_assert_msg(r.status == SB_EXITED && r.exit_code == 0, "status %d: %s", r.status, r.output);
    ck_assert_msg(strstr(r.output, "verdict a\nbegin ") && strstr(r.output, "verdict k"),
                  "verdicts: %s", r.output);
    ck_assert_uint_eq(r.n_loads, 1);
    ck_assert_int_ge(r.loads[0].attempts, 2);
    sandbox_result_release(&r);
}
END_TEST

/* The machine never quiet within the series' bound: kept as it was, recorded as shared with
 * the other processes' load and the busiest of them, named. */
START_TEST(test_shared_series_kept_past_its_bound)
{
    pid_t burner = burn(60);
    tweak = watched_series;
    series_bound_s = 1.5;
    struct sandbox_result r;
    ck_assert_int_eq(run_script(ISOLATION_SUPERVISOR, measured_again, 20, &r), 0);
    char *comm_path = xstrfmt("/proc/%ld/comm", (long)burner), *comm = unit_slurp(comm_path);
    kill(burner, SIGKILL);
    waitpid(burner, NULL, 0);
    ck_assert_msg(r.status == SB_EXITED && r.exit_code == 0, "%s", r.output);
    ck_assert_msg(strstr(r.output, "verdict k") && !strstr(r.output, "verdict a"), "verdicts: %s",
                  r.output);
    ck_assert_uint_eq(r.n_loads, 1);
    ck_assert_int_eq(r.loads[0].attempts, 1);
    ck_assert(r.loads[0].shared);
    ck_assert_msg(r.loads[0].foreign_cpus > 0.25, "%.2f cores", r.loads[0].foreign_cpus);
    ck_assert_int_eq(r.loads[0].cpu_pid, burner);
    ck_assert_msg(r.loads[0].cpu_pid_cores > 0.25, "%.2f cores", r.loads[0].cpu_pid_cores);
    comm[strcspn(comm, "\n")] = '\0';
    ck_assert_str_eq(r.loads[0].cpu_comm, comm);
    free(comm);
    free(comm_path);
    sandbox_result_release(&r);
}
END_TEST

/* A run doing untimed work gives its cores up while another run waits to time on them: it is
 * frozen (its clock stands still) until the other's series is over. The run writes the time
 * every 50 ms for 3 s; the test takes the lock's turnstile and then the lock itself, holds it
 * 1.5 s and lets go: the run's lines show a gap of at least that long. */
START_TEST(test_untimed_run_frozen_for_a_series)
{
    static const char script[] = "i=0; while [ $i -lt 60 ]; do date +%s.%N >> stamps; "
                                 "sleep 0.05; i=$((i + 1)); done; exit 0";
    char *stamps = xstrfmt("%s/stamps", work);
    pid_t taker = fork();
    ck_assert_int_ge(taker, 0);
    if (taker == 0) {
        struct timespec ms300 = {0, 300 * 1000 * 1000}, hold = {1, 500 * 1000 * 1000};
        nanosleep(&ms300, NULL);
        int turn = open(turn_path, O_RDWR | O_CREAT, 0644);
        int fd = open(lock_path, O_RDWR | O_CREAT, 0644);
        if (turn < 0 || fd < 0 || flock(turn, LOCK_EX) != 0 || flock(fd, LOCK_EX) != 0)
            _exit(1);
        flock(turn, LOCK_UN);
        nanosleep(&hold, NULL);
        _exit(0);
    }
    struct sandbox_result r;
    ck_assert_int_eq(run_script(ISOLATION_SUPERVISOR, script, 30, &r), 0);
    int st;
    waitpid(taker, &st, 0);
    ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    ck_assert_msg(r.status == SB_EXITED && r.exit_code == 0, "%s", r.output);
    FILE *f = fopen(stamps, "r");
    ck_assert_ptr_nonnull(f);
    double prev = 0, t, gap = 0;
    while (fscanf(f, "%lf", &t) == 1) {
        if (prev > 0 && t - prev > gap)
            gap = t - prev;
        prev = t;
    }
    fclose(f);
    ck_assert_msg(gap >= 1.4, "the longest pause between the run's lines: %.3f s", gap);
    ck_assert(r.lock_wait_s >= 1.4);
    free(stamps);
    sandbox_result_release(&r);
}
END_TEST

/* A run that ends while frozen for another run's series (here killed by the test; in a class,
 * a compile that exits the moment it is frozen) is over: nothing of it is thawed after its
 * cgroup is gone (a use after free under the sanitizers, in CI) and no signal goes to what may
 * now be another process. The run writes its pid; the test takes the lock's turnstile and the
 * lock, then kills the run while it is frozen, and holds the lock 1 s more. */
START_TEST(test_run_killed_while_frozen)
{
    static const char script[] = "echo $$ > pid; i=0; while [ $i -lt 100 ]; do sleep 0.05; "
                                 "i=$((i + 1)); done; exit 0";
    char *pidfile = xstrfmt("%s/pid", work);
    pid_t taker = fork();
    ck_assert_int_ge(taker, 0);
    if (taker == 0) {
        struct timespec ms50 = {0, 50 * 1000 * 1000}, ms500 = {0, 500 * 1000 * 1000}, hold = {1, 0};
        long pid = 0;
        for (int i = 0; i < 600 && pid <= 0; i++) {
            FILE *f = fopen(pidfile, "r");
            if (!f || fscanf(f, "%ld", &pid) != 1)
                pid = 0;
            if (f)
                fclose(f);
            nanosleep(&ms50, NULL);
        }
        int turn = open(turn_path, O_RDWR | O_CREAT, 0644);
        int fd = open(lock_path, O_RDWR | O_CREAT, 0644);
        if (pid <= 0 || turn < 0 || fd < 0 || flock(turn, LOCK_EX) != 0 || flock(fd, LOCK_EX) != 0)
            _exit(1);
        flock(turn, LOCK_UN);
        nanosleep(&ms500, NULL);
        kill((pid_t)pid, SIGKILL);
        nanosleep(&hold, NULL);
        _exit(0);
    }
    struct sandbox_result r;
    ck_assert_int_eq(run_script(ISOLATION_SUPERVISOR, script, 30, &r), 0);
    int st;
    waitpid(taker, &st, 0);
    ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    ck_assert_msg(r.status == SB_SIGNALED && r.term_signal == SIGKILL, "status %d signal %d: %s",
                  r.status, r.term_signal, r.output);
    ck_assert(r.lock_wait_s > 0);
    free(pidfile);
    sandbox_result_release(&r);
}
END_TEST

/* Graders frozen for another's series leave its cores alone: twelve neighbours, each a run of
 * thirty processes holding the lock shared under a memory limit, are frozen while a CPU series
 * times on the same core. Their supervisors used to sample their memory (a walk through /proc)
 * every 25 ms and look for their turn every 2 ms even while frozen, which on an H200 made the
 * series of a rush look shared (0.3 to 0.7 cores of other processes); the series must be kept,
 * not shared, at once or once the core is quiet within its bound. */
enum { NEIGHBOURS = 12 };
static void memory_limited(struct sandbox_opts *o)
{
    static cpu_set_t core0;
    CPU_ZERO(&core0);
    CPU_SET(0, &core0);
    o->cpus = &core0;
    o->memory_limit_bytes = 1LL << 30;
}

static pid_t neighbour(void)
{
    static const char script[] =
        "i=0; while [ $i -lt 30 ]; do sleep 60 & i=$((i + 1)); done; mkdir -p up; : > up/$$; "
        "i=0; while [ $i -lt 40 ]; do sleep 0.1; i=$((i + 1)); done; kill $(jobs -p); exit 0";
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        pin_to_core0();
        tweak = memory_limited;
        struct sandbox_result r;
        int rc = run_script(ISOLATION_SUPERVISOR, script, 60, &r);
        _exit(rc == 0 && r.status == SB_EXITED && r.exit_code == 0 ? 0 : 1);
    }
    return pid;
}

START_TEST(test_frozen_neighbours_leave_a_series_alone)
{
    pid_t pids[NEIGHBOURS];
    for (int k = 0; k < NEIGHBOURS; k++)
        pids[k] = neighbour();
    /* Every neighbour up (its thirty processes started): each leaves a file in up/. The
     * suite's watchdog bounds a neighbour that never comes up. */
    char *up = xstrfmt("%s/up", work);
    for (size_t n = 0; n < NEIGHBOURS;) {
        struct timespec ms50 = {0, 50 * 1000 * 1000};
        nanosleep(&ms50, NULL);
        DIR *d = opendir(up);
        n = 0;
        for (struct dirent *e; d && (e = readdir(d));)
            n += e->d_name[0] != '.';
        if (d)
            closedir(d);
    }
    free(up);
    tweak = watched_series;
    series_bound_s = 60;
    struct sandbox_result r;
    ck_assert_int_eq(run_script(ISOLATION_SUPERVISOR, measured_again, 200, &r), 0);
    for (int k = 0; k < NEIGHBOURS; k++) {
        int st;
        ck_assert_int_eq(waitpid(pids[k], &st, 0), pids[k]);
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "neighbour %d: %#x", k, st);
    }
    ck_assert_msg(r.status == SB_EXITED && r.exit_code == 0, "%s", r.output);
    ck_assert_uint_eq(r.n_loads, 1);
    ck_assert_msg(!r.loads[0].shared, "kept as shared after %d attempts: %.2f cores of others",
                  r.loads[0].attempts, r.loads[0].foreign_cpus);
    sandbox_result_release(&r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("grants");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, test_grant_at_once, 0, 2);
    tcase_add_loop_test(tc, test_wait_not_counted, 0, 2);
    tcase_add_test(tc, test_series_outside_the_lock);
    tcase_add_test(tc, test_lock_free_after_the_run);
    tcase_add_test(tc, test_busy_after_the_wait);
    tcase_add_test(tc, test_shared_series_measured_again_once_quiet);
    tcase_add_test(tc, test_shared_series_kept_past_its_bound);
    tcase_add_test(tc, test_quiet_wait_not_counted_against_the_run);
    tcase_add_test(tc, test_untimed_run_frozen_for_a_series);
    tcase_add_test(tc, test_frozen_neighbours_leave_a_series_alone);
    tcase_add_test(tc, test_run_killed_while_frozen);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
