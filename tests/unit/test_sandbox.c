/*
 * Unit tests for the sandbox: outcomes, limits, cleanup of escaped processes, output
 * capture and, where bubblewrap works, the namespace isolation. Tests that take an
 * isolation level run once per level (loop index 0: supervisor, 1: bwrap); the bwrap
 * pass is skipped with a message where bwrap does not work.
 */
#include "run/runner.h"
#include "run/sandbox.h"
#include "base/strbuf.h"
#include "base/alloc.h"
#include "base/fs.h"

#include <check.h>
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

static bool bwrap_ok;
static const char *user_cgroup; /* LABGRADER_CGROUP as the suite was started: a delegated parent */
static SRunner *runner;
static char workdir[256];
static char sibling[256]; /* a folder next to the workdir that the sandbox must not see */

static void make_temp_dir(char *buf, size_t size)
{
    snprintf(buf, size, "/tmp/lg-sbtest-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(buf));
}

static void setup(void)
{
    make_temp_dir(workdir, sizeof(workdir));
    make_temp_dir(sibling, sizeof(sibling));
    unsetenv("LABGRADER_ISOLATION");
    if (user_cgroup)
        setenv("LABGRADER_CGROUP", user_cgroup, 1);
    else
        unsetenv("LABGRADER_CGROUP");
}

static void teardown(void)
{
    struct error err;
    error_init(&err);
    remove_tree(workdir, &err);
    remove_tree(sibling, &err);
}

static enum isolation level(int i)
{
    return i % 2 == 0 ? ISOLATION_SUPERVISOR : ISOLATION_BWRAP;
}

/* Skips the bwrap pass of a looped test where bwrap does not work. */
#define SKIP_IF_NO_BWRAP(iso)                                                                      \
    do {                                                                                           \
        if ((iso) == ISOLATION_BWRAP && !bwrap_ok) {                                               \
            fprintf(stderr, "%s: skipped under bwrap (bubblewrap does not work here)\n",           \
                    __func__);                                                                     \
            return;                                                                                \
        }                                                                                          \
    } while (0)

static void opts_for(struct sandbox_opts *o, enum isolation iso, const char *const *argv)
{
    sandbox_opts_init(o);
    o->argv = argv;
    o->workdir = workdir;
    o->isolation = iso;
    o->wall_limit_s = 30; /* a safety net: no test should come near it */
}

static int run_sh(enum isolation iso, const char *script, struct sandbox_opts *tweak,
                  struct sandbox_result *r)
{
    const char *argv[] = {"sh", "-c", script, NULL};
    struct sandbox_opts o;
    struct error err;
    error_init(&err);
    if (tweak) {
        o = *tweak;
        o.argv = argv;
        o.isolation = iso;
        if (!o.workdir)
            o.workdir = workdir;
    } else {
        opts_for(&o, iso, argv);
    }
    sandbox_result_init(r);
    return sandbox_run(&o, r, &err);
}

/* Number of live processes whose command line is exactly argv0 arg1; with `sig`, also
 * sends them that signal. */
static int signal_processes(const char *argv0, const char *arg1, int sig)
{
    DIR *d = opendir("/proc");
    ck_assert_ptr_nonnull(d);
    struct dirent *de;
    int count = 0;
    while ((de = readdir(d))) {
        if (de->d_name[0] < '0' || de->d_name[0] > '9')
            continue;
        char path[300];
        snprintf(path, sizeof(path), "/proc/%s/cmdline", de->d_name);
        FILE *f = fopen(path, "rb");
        if (!f)
            continue;
        char buf[256];
        size_t n = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
        buf[n] = '\0';
        size_t a0 = strlen(argv0);
        if (n > a0 + 1 && strcmp(buf, argv0) == 0 && strcmp(buf + a0 + 1, arg1) == 0) {
            count++;
            if (sig)
                kill((pid_t)strtol(de->d_name, NULL, 10), sig);
        }
    }
    closedir(d);
    return count;
}

static int count_processes(const char *argv0, const char *arg1)
{
    return signal_processes(argv0, arg1, 0);
}

/* Processes whose parent is this test process: all must be reaped after a run. */
static int count_own_children(void)
{
    DIR *d = opendir("/proc");
    ck_assert_ptr_nonnull(d);
    struct dirent *de;
    int count = 0;
    while ((de = readdir(d))) {
        if (de->d_name[0] < '0' || de->d_name[0] > '9')
            continue;
        char path[300];
        snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
        struct strbuf sb = STRBUF_INIT;
        struct error err;
        error_init(&err);
        if (read_file(path, &sb, &err) == 0) {
            const char *p = strrchr(sb.buf, ')');
            char state;
            long ppid;
            if (p && sscanf(p + 1, " %c %ld", &state, &ppid) == 2 && ppid == (long)getpid())
                count++;
        }
        strbuf_release(&sb);
    }
    closedir(d);
    return count;
}

/* A sleep duration nobody else on the machine uses, to find our sleeps in /proc. */
static void unique_duration(char *buf, size_t size)
{
    static int counter;
    snprintf(buf, size, "%d.%d%d", 300 + (int)(getpid() % 500), (int)getpid(), ++counter);
}

static void write_text(const char *path, const char *text, mode_t mode)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
    ck_assert_int_eq(chmod(path, mode), 0);
}

static char *listing(const char *dir)
{
    struct strbuf sb = STRBUF_INIT;
    struct dirent **names;
    int n = scandir(dir, &names, NULL, alphasort);
    ck_assert_int_ge(n, 0);
    for (int i = 0; i < n; i++) {
        strbuf_addf(&sb, "%s\n", names[i]->d_name);
        free(names[i]);
    }
    free(names);
    return strbuf_detach(&sb);
}

/* ------------------------------------------------------------------------ */

START_TEST(test_exit_code)
{
    enum isolation iso = level(_i);
    SKIP_IF_NO_BWRAP(iso);
    struct sandbox_result r;
    ck_assert_int_eq(run_sh(iso, "echo hello; echo oops >&2; exit 3", NULL, &r), 0);
    ck_assert_int_eq(r.status, SB_EXITED);
    ck_assert_int_eq(r.exit_code, 3);
    ck_assert_int_eq(r.isolation_used, iso);
    ck_assert_ptr_nonnull(strstr(r.output, "hello\n"));
    ck_assert_ptr_nonnull(strstr(r.output, "oops\n"));
    ck_assert_uint_eq(r.output_len, strlen(r.output));
    ck_assert(!r.output_truncated);
    ck_assert(r.wall_s >= 0);
    ck_assert(r.cpu_s >= 0);
    ck_assert_int_gt(r.peak_rss_kb, 0);
    char text[200];
    sandbox_describe(&r, text, sizeof(text));
    ck_assert_str_eq(text, "exited with status 3");
    sandbox_result_release(&r);
    ck_assert_ptr_null(r.output);
    ck_assert_int_eq(count_own_children(), 0);
}
END_TEST

START_TEST(test_success_is_exit_zero)
{
    enum isolation iso = level(_i);
    SKIP_IF_NO_BWRAP(iso);
    struct sandbox_result r;
    ck_assert_int_eq(run_sh(iso, "true", NULL, &r), 0);
    ck_assert_int_eq(r.status, SB_EXITED);
    ck_assert_int_eq(r.exit_code, 0);
    ck_assert_str_eq(r.output, "");
    sandbox_result_release(&r);
}
END_TEST

START_TEST(test_signal)
{
    enum isolation iso = level(_i);
    SKIP_IF_NO_BWRAP(iso);
    struct sandbox_result r;
    ck_assert_int_eq(run_sh(iso, "kill -SEGV $$", NULL, &r), 0);
    ck_assert_int_eq(r.status, SB_SIGNALED);
    ck_assert_int_eq(r.term_signal, SIGSEGV);
    char text[200];
    sandbox_describe(&r, text, sizeof(text));
    ck_assert_str_eq(text, "killed by SIGSEGV (segmentation fault)");
    sandbox_result_release(&r);
}
END_TEST

/* Under bwrap a plain exit status above 128 cannot be told from a signal (bwrap reports
 * signal N as 128+N); below it, statuses pass through unchanged. */
START_TEST(test_exit_status_passes_through)
{
    enum isolation iso = level(_i);
    SKIP_IF_NO_BWRAP(iso);
    struct sandbox_result r;
    ck_assert_int_eq(run_sh(iso, "exit 127", NULL, &r), 0);
    ck_assert_int_eq(r.status, SB_EXITED);
    ck_assert_int_eq(r.exit_code, 127);
    sandbox_result_release(&r);
    /* A program printing bwrap's error format is still just a program that exited 1. */
    ck_assert_int_eq(run_sh(iso, "echo 'bwrap: execvp x: No such file'; exit 1", NULL, &r), 0);
    ck_assert_int_eq(r.status, SB_EXITED);
    ck_assert_int_eq(r.exit_code, 1);
    sandbox_result_release(&r);
}
END_TEST

START_TEST(test_wall_timeout)
{
    enum isolation iso = level(_i);
    SKIP_IF_NO_BWRAP(iso);
    const char *argv[] = {"sleep", "100", NULL};
    struct sandbox_opts o;
    struct sandbox_result r;
    struct error err;
    error_init(&err);
    opts_for(&o, iso, argv);
    o.wall_limit_s = 1;
    sandbox_result_init(&r);
    ck_assert_int_eq(sandbox_run(&o, &r, &err), 0);
    ck_assert_int_eq(r.status, SB_TIMEOUT);
    /* Never sooner than the limit; how much later depends on the machine's load. */
    ck_assert(r.wall_s >= 1.0);
    char text[200];
    sandbox_describe(&r, text, sizeof(text));
    double said = 0;
    ck_assert_msg(sscanf(text, "timed out after %lf s", &said) == 1 && said >= 1.0, "%s", text);
    ck_assert_ptr_nonnull(strstr(text, "(wall clock); the whole process group was killed"));
    sandbox_result_release(&r);
    ck_assert_int_eq(count_own_children(), 0);
}
END_TEST

/* Loop index: bit 0 the level, bit 1 "no cgroup" (the process-tree sweep alone). */
START_TEST(test_timeout_kills_escaped_grandchildren)
{
    enum isolation iso = level(_i);
    SKIP_IF_NO_BWRAP(iso);
    if (_i >= 2)
        setenv("LABGRADER_CGROUP", "off", 1);
    char dur[64], script[512];
    unique_duration(dur, sizeof(dur));
    /* One escapee through setsid, one through a double fork plus setsid, and the main
     * process itself. */
    snprintf(script, sizeof(script),
             "setsid sleep %s & (setsid sleep %s &); echo started; exec sleep %s", dur, dur, dur);
    struct sandbox_opts o;
    opts_for(&o, iso, NULL);
    o.wall_limit_s = 1;
    struct sandbox_result r;
    ck_assert_int_eq(run_sh(iso, script, &o, &r), 0);
    ck_assert_int_eq(r.status, SB_TIMEOUT);
    ck_assert_ptr_nonnull(strstr(r.output, "started"));
    ck_assert_int_eq(count_processes("sleep", dur), 0);
    ck_assert_int_eq(count_own_children(), 0);
    sandbox_result_release(&r);
}
END_TEST

START_TEST(test_exit_kills_background_processes)
{
    enum isolation iso = level(_i);
    SKIP_IF_NO_BWRAP(iso);
    if (_i >= 2)
        setenv("LABGRADER_CGROUP", "off", 1);
    char dur[64], script[512];
    unique_duration(dur, sizeof(dur));
    /* The escapee keeps the output pipe open: the run must still end at the exit (were it to
     * wait for the pipe, the sleeps would outlast the 30 s limit: SB_TIMEOUT). */
    snprintf(script, sizeof(script), "setsid sleep %s & sleep %s & echo done", dur, dur);
    struct sandbox_result r;
    ck_assert_int_eq(run_sh(iso, script, NULL, &r), 0);
    ck_assert_int_eq(r.status, SB_EXITED);
    ck_assert_int_eq(r.exit_code, 0);
    ck_assert_str_eq(r.output, "done\n");
    ck_assert_int_eq(count_processes("sleep", dur), 0);
    ck_assert_int_eq(count_own_children(), 0);
    sandbox_result_release(&r);
}
END_TEST

START_TEST(test_output_cap)
{
    enum isolation iso = level(_i);
    SKIP_IF_NO_BWRAP(iso);
    struct sandbox_opts o;
    opts_for(&o, iso, NULL);
    o.output_cap = 1000;
    struct sandbox_result r;
    ck_assert_int_eq(run_sh(iso, "yes | head -c 10000000", &o, &r), 0);
    ck_assert_int_eq(r.status, SB_EXITED);
    ck_assert_int_eq(r.exit_code, 0);
    ck_assert_uint_eq(r.output_len, 1000);
    ck_assert_uint_eq(strlen(r.output), 1000);
    ck_assert(r.output_truncated);
    for (size_t k = 0; k < r.output_len; k++)
        ck_assert_int_eq(r.output[k], k % 2 ? '\n' : 'y');
    sandbox_result_release(&r);
}
END_TEST

/* With a tail asked for, the end of a flood survives the cap (a wrapper's last words, such as
 * compute-sanitizer's summary), after a marker line, from its first whole line on. */
START_TEST(test_output_tail)
{
    enum isolation iso = level(_i);
    SKIP_IF_NO_BWRAP(iso);
    struct sandbox_opts o;
    opts_for(&o, iso, NULL);
    o.output_cap = 1000;
    o.output_tail = 100;
    struct sandbox_result r;
    ck_assert_int_eq(run_sh(iso, "yes | head -c 1000000; echo; echo the end", &o, &r), 0);
    ck_assert_int_eq(r.status, SB_EXITED);
    ck_assert(r.output_truncated);
    ck_assert_uint_eq(r.output_len, strlen(r.output));
    for (size_t k = 0; k < 1000; k++)
        ck_assert_int_eq(r.output[k], k % 2 ? '\n' : 'y');
    /* 1000009 bytes written, 1000 kept at the start and 100 at the end, less the cut line
     * there ("y" or nothing before its newline). */
    const char *mark = r.output + 1000;
    size_t left_out = 0;
    ck_assert_msg(sscanf(mark, "\n[... %zu bytes", &left_out) == 1, "%.60s", mark);
    ck_assert_msg(left_out == 1000009 - 1000 - 99 || left_out == 1000009 - 1000 - 100, "%zu",
                  left_out);
    ck_assert_msg(strstr(mark, " bytes of output left out ...]\ny\n"), "%.80s", mark);
    ck_assert_str_eq(r.output + r.output_len - 10, "\n\nthe end\n");
    ck_assert_uint_lt(r.output_len, 1000 + 60 + 100);
    sandbox_result_release(&r);
    /* Short output: nothing left out, no marker. */
    ck_assert_int_eq(run_sh(iso, "echo short", &o, &r), 0);
    ck_assert(!r.output_truncated);
    ck_assert_str_eq(r.output, "short\n");
    sandbox_result_release(&r);
}
END_TEST

/* The detail a report shows says when the run's output was cut at the capture cap. */
START_TEST(test_output_excerpt_marks_truncation)
{
    enum isolation iso = level(_i);
    SKIP_IF_NO_BWRAP(iso);
    struct sandbox_opts o;
    opts_for(&o, iso, NULL);
    o.output_cap = 8 * 1024;
    struct sandbox_result r;
    ck_assert_int_eq(run_sh(iso, "yes | head -c 100000", &o, &r), 0);
    ck_assert(r.output_truncated);
    char *text = sandbox_output_excerpt(&r, 4000);
    ck_assert_msg(strstr(text, "(first 4000 bytes) (output truncated at 8 KiB):\ny\ny"), "%.200s",
                  text);
    free(text);
    sandbox_result_release(&r);
    ck_assert_int_eq(run_sh(iso, "echo short", &o, &r), 0);
    ck_assert(!r.output_truncated);
    text = sandbox_output_excerpt(&r, 4000);
    ck_assert_str_eq(text, "program output:\nshort\n");
    free(text);
    sandbox_result_release(&r);
    ck_assert_int_eq(run_sh(iso, "true", &o, &r), 0);
    ck_assert_ptr_null(sandbox_output_excerpt(&r, 4000));
    sandbox_result_release(&r);
}
END_TEST

/* Without a cgroup the process limit is not enforced, and the result says so (results.json
 * records it: grader/grade/grade.c); the memory limit is, by the supervisor's watcher. */
START_TEST(test_limits_recorded_without_cgroup)
{
    enum isolation iso = level(_i);
    SKIP_IF_NO_BWRAP(iso);
    setenv("LABGRADER_CGROUP", "off", 1);
    struct sandbox_opts o;
    opts_for(&o, iso, NULL);
    o.memory_limit_bytes = 64LL << 20;
    o.max_processes = 20;
    struct sandbox_result r;
    ck_assert_int_eq(run_sh(iso, "true", &o, &r), 0);
    ck_assert_int_eq(r.status, SB_EXITED);
    ck_assert(!r.cgroup_used && !r.pids_limit_enforced);
    ck_assert(r.memory_limit_enforced);
    ck_assert_int_eq(r.memory_guard, MEMORY_GUARD_WATCHER);
    ck_assert(r.memory_limit_bytes == 64LL << 20);
    sandbox_result_release(&r);
    /* No limit asked for: nothing to enforce. */
    o.memory_limit_bytes = 0;
    ck_assert_int_eq(run_sh(iso, "true", &o, &r), 0);
    ck_assert(!r.memory_limit_enforced && r.memory_guard == MEMORY_GUARD_NONE);
    ck_assert(r.memory_limit_bytes == 0 && r.memory_peak_bytes == 0);
    sandbox_result_release(&r);
}
END_TEST

/*
 * The memory watcher, where no cgroup holds the limit (LABGRADER_CGROUP=off): dd's buffer
 * (bs) is allocated and filled, then held while dd blocks writing into a pipe nobody reads
 * (sleep); the run ends when sleep does. Loop index: bit 0 the level, bit 1 the hog escaped
 * (setsid, its parent gone: re-parented to the grader, or to bwrap's init).
 */
START_TEST(test_memory_watcher)
{
    enum isolation iso = level(_i);
    SKIP_IF_NO_BWRAP(iso);
    setenv("LABGRADER_CGROUP", "off", 1);
    struct sandbox_opts o;
    opts_for(&o, iso, NULL);
    o.memory_limit_bytes = 64LL << 20;
    const char *hog = _i >= 2 ? "(setsid sh -c 'dd if=/dev/zero bs=160M count=1 2>/dev/null | "
                                "sleep 20' &); sleep 20"
                              : "dd if=/dev/zero bs=160M count=1 2>/dev/null | sleep 20";
    struct sandbox_result r;
    ck_assert_int_eq(run_sh(iso, hog, &o, &r), 0);
    ck_assert_msg(r.status == SB_MEMORY_LIMIT, "status %d, exit %d: %s", r.status, r.exit_code,
                  r.output);
    ck_assert_int_eq(r.memory_guard, MEMORY_GUARD_WATCHER);
    ck_assert(r.memory_limit_enforced && !r.cgroup_used);
    ck_assert_msg(r.memory_peak_bytes > 64LL << 20, "peak %lld", r.memory_peak_bytes);
    ck_assert_int_ge(r.peak_rss_kb, 64 * 1024);
    char text[200];
    sandbox_describe(&r, text, sizeof(text));
    ck_assert_msg(strstr(text, "memory limit exceeded (") && strstr(text, "limit 64 MiB)"), "%s",
                  text);
    sandbox_result_release(&r);
    ck_assert_int_eq(count_own_children(), 0);

    /* Below the limit: 20 MiB held for a second (about 40 samples), then a normal exit. */
    const char *fits = _i >= 2 ? "(setsid sh -c 'dd if=/dev/zero bs=20M count=1 2>/dev/null | "
                                 "sleep 1' &); sleep 1.5; echo done"
                               : "dd if=/dev/zero bs=20M count=1 2>/dev/null | sleep 1; echo done";
    ck_assert_int_eq(run_sh(iso, fits, &o, &r), 0);
    ck_assert_msg(r.status == SB_EXITED && r.exit_code == 0, "status %d: %s", r.status, r.output);
    ck_assert_str_eq(r.output, "done\n");
    ck_assert_msg(r.memory_peak_bytes >= 20LL << 20 && r.memory_peak_bytes < 64LL << 20,
                  "peak %lld", r.memory_peak_bytes);
    sandbox_result_release(&r);
}
END_TEST

/* RLIMIT_AS, for compilers only: an allocation beyond it fails inside the command. */
START_TEST(test_address_space_limit)
{
    enum isolation iso = level(_i);
    SKIP_IF_NO_BWRAP(iso);
    struct sandbox_opts o;
    opts_for(&o, iso, NULL);
    struct sandbox_result r;
    /* tail keeps the whole newline-free input in memory. */
    const char *script =
        "head -c 300000000 /dev/zero | tail -n 1 | wc -c; "
        "exit $(( $(head -c 300000000 /dev/zero | tail -n 1 | wc -c) != 300000000 ))";
    ck_assert_int_eq(run_sh(iso, script, &o, &r), 0);
    ck_assert_msg(r.status == SB_EXITED && r.exit_code == 0, "no limit: %s", r.output);
    sandbox_result_release(&r);
    o.address_space_bytes = 200LL << 20;
    ck_assert_int_eq(run_sh(iso, script, &o, &r), 0);
    ck_assert_msg(r.status == SB_EXITED && r.exit_code == 1, "status %d exit %d: %s", r.status,
                  r.exit_code, r.output);
    sandbox_result_release(&r);
}
END_TEST

START_TEST(test_output_complete_below_cap_and_default_cap)
{
    enum isolation iso = level(_i);
    SKIP_IF_NO_BWRAP(iso);
    struct sandbox_result r;
    ck_assert_int_eq(run_sh(iso, "head -c 5000 /dev/zero | tr '\\000' a", NULL, &r), 0);
    ck_assert_uint_eq(r.output_len, 5000);
    ck_assert(!r.output_truncated);
    ck_assert_int_eq(r.output[4999], 'a');
    sandbox_result_release(&r);
    ck_assert_int_eq(run_sh(iso, "head -c 100000 /dev/zero | tr '\\000' b", NULL, &r), 0);
    ck_assert_uint_eq(r.output_len, 64 * 1024);
    ck_assert(r.output_truncated);
    sandbox_result_release(&r);
}
END_TEST

START_TEST(test_file_size_limit)
{
    enum isolation iso = level(_i);
    SKIP_IF_NO_BWRAP(iso);
    struct sandbox_opts o;
    opts_for(&o, iso, NULL);
    o.file_limit_bytes = 1024 * 1024;
    struct sandbox_result r;
    ck_assert_int_eq(run_sh(iso, "exec dd if=/dev/zero of=big bs=65536 count=64", &o, &r), 0);
    ck_assert_msg(r.status == SB_FILE_LIMIT, "status %d: %s", r.status, r.output);
    char text[200];
    sandbox_describe(&r, text, sizeof(text));
    ck_assert_str_eq(text, "file size limit exceeded");
    char *big = path_join(workdir, "big");
    struct stat st;
    ck_assert_int_eq(stat(big, &st), 0);
    ck_assert_int_le(st.st_size, 1024 * 1024);
    free(big);
    sandbox_result_release(&r);
}
END_TEST

START_TEST(test_cpu_limit)
{
    enum isolation iso = level(_i);
    SKIP_IF_NO_BWRAP(iso);
    struct sandbox_opts o;
    opts_for(&o, iso, NULL);
    o.cpu_limit_s = 1;
    struct sandbox_result r;
    ck_assert_int_eq(run_sh(iso, "while :; do :; done", &o, &r), 0);
    ck_assert_msg(r.status == SB_CPU_LIMIT, "status %d", r.status);
    ck_assert_msg(r.cpu_s >= 0.5, "cpu %.2f s", r.cpu_s);
    char text[200];
    sandbox_describe(&r, text, sizeof(text));
    ck_assert_msg(strncmp(text, "CPU time limit exceeded", 23) == 0, "%s", text);
    sandbox_result_release(&r);
}
END_TEST

START_TEST(test_clean_environment)
{
    enum isolation iso = level(_i);
    SKIP_IF_NO_BWRAP(iso);
    setenv("LG_SANDBOX_SECRET", "hunter2", 1);
    const char *argv[] = {"env", NULL};
    const char *env[] = {"FOO=bar", "LANG=C", NULL};
    struct sandbox_opts o;
    struct sandbox_result r;
    struct error err;
    error_init(&err);
    opts_for(&o, iso, argv);
    o.env = env;
    sandbox_result_init(&r);
    ck_assert_int_eq(sandbox_run(&o, &r, &err), 0);
    ck_assert_int_eq(r.status, SB_EXITED);
    ck_assert_ptr_null(strstr(r.output, "LG_SANDBOX_SECRET"));
    ck_assert_ptr_null(strstr(r.output, "hunter2"));
    char *real = realpath(workdir, NULL);
    char *home = xstrfmt("HOME=%s\n", real), *tmp = xstrfmt("TMPDIR=%s\n", real);
    ck_assert_ptr_nonnull(strstr(r.output, home));
    ck_assert_ptr_nonnull(strstr(r.output, tmp));
    ck_assert_ptr_nonnull(strstr(r.output, "FOO=bar\n"));
    ck_assert_ptr_nonnull(strstr(r.output, "LANG=C\n"));
    ck_assert_ptr_null(strstr(r.output, "C.UTF-8"));
    ck_assert_ptr_nonnull(strstr(r.output, "PATH=/usr/local/bin:/usr/bin:/bin"));
    /* Nothing else (bwrap adds PWD). */
    static const char *const allowed[] = {"PATH=", "HOME=", "TMPDIR=", "LANG=", "FOO=", "PWD="};
    for (const char *line = r.output; *line;) {
        bool ok = false;
        for (size_t k = 0; k < sizeof(allowed) / sizeof(allowed[0]); k++)
            ok |= strncmp(line, allowed[k], strlen(allowed[k])) == 0;
        ck_assert_msg(ok, "unexpected environment entry: %.40s", line);
        line = strchr(line, '\n');
        ck_assert_ptr_nonnull(line);
        line++;
    }
    free(real);
    free(home);
    free(tmp);
    sandbox_result_release(&r);
}
END_TEST

START_TEST(test_descriptors_and_cwd)
{
    enum isolation iso = level(_i);
    SKIP_IF_NO_BWRAP(iso);
    int leak = dup(1); /* inheritable in the grader: must not reach the child */
    ck_assert_int_ge(leak, 3);
    struct sandbox_result r;
    /* No pipeline: while setting one up the shell itself briefly holds pipe ends. */
    ck_assert_int_eq(run_sh(iso, "ls /proc/$$/fd; readlink /proc/$$/fd/0; pwd", NULL, &r), 0);
    close(leak);
    char *real = realpath(workdir, NULL);
    char *expect = xstrfmt("0\n1\n2\n/dev/null\n%s\n", real);
    ck_assert_str_eq(r.output, expect);
    free(expect);
    free(real);
    sandbox_result_release(&r);
}
END_TEST

START_TEST(test_exec_failures)
{
    enum isolation iso = level(_i);
    SKIP_IF_NO_BWRAP(iso);
    struct sandbox_opts o;
    struct sandbox_result r;
    struct error err;
    error_init(&err);

    /* Decision: a command that cannot be started is SB_SETUP_FAILED with rc -1, at both
     * levels, never a plausible exit status like 127. */
    const char *missing[] = {"/nonexistent/lg-prog", NULL};
    opts_for(&o, iso, missing);
    sandbox_result_init(&r);
    ck_assert_int_eq(sandbox_run(&o, &r, &err), -1);
    ck_assert_int_eq(r.status, SB_SETUP_FAILED);
    ck_assert_ptr_nonnull(strstr(r.setup_error, "/nonexistent/lg-prog"));
    ck_assert_ptr_nonnull(strstr(err.msg, "/nonexistent/lg-prog"));
    ck_assert_ptr_nonnull(r.output);
    char text[600];
    sandbox_describe(&r, text, sizeof(text));
    ck_assert_msg(strncmp(text, "could not start: ", 17) == 0, "%s", text);
    sandbox_result_release(&r);

    const char *unknown[] = {"lg-no-such-program-anywhere", NULL};
    opts_for(&o, iso, unknown);
    sandbox_result_init(&r);
    ck_assert_int_eq(sandbox_run(&o, &r, &err), -1);
    ck_assert_int_eq(r.status, SB_SETUP_FAILED);
    ck_assert_ptr_nonnull(strstr(r.setup_error, "not found"));
    sandbox_result_release(&r);

    char *data = path_join(workdir, "data.txt");
    write_text(data, "not a program\n", 0644);
    const char *notexec[] = {"./data.txt", NULL};
    opts_for(&o, iso, notexec);
    sandbox_result_init(&r);
    ck_assert_int_eq(sandbox_run(&o, &r, &err), -1);
    ck_assert_int_eq(r.status, SB_SETUP_FAILED);
    sandbox_result_release(&r);
    free(data);

    /* Found and executable, but exec itself fails: reported from inside the child (or
     * from inside bwrap) rather than guessed before. */
    char *bad = path_join(workdir, "bad-interp");
    write_text(bad, "#!/nonexistent/interpreter\n", 0755);
    const char *badinterp[] = {"./bad-interp", NULL};
    opts_for(&o, iso, badinterp);
    sandbox_result_init(&r);
    ck_assert_int_eq(sandbox_run(&o, &r, &err), -1);
    ck_assert_msg(r.status == SB_SETUP_FAILED, "status %d: %s", r.status, r.output);
    ck_assert_msg(strstr(r.setup_error, "No such file or directory"), "%s", r.setup_error);
    if (iso == ISOLATION_BWRAP)
        ck_assert_msg(strstr(r.setup_error, "bwrap: "), "%s", r.setup_error);
    else
        ck_assert_msg(strstr(r.setup_error, "exec"), "%s", r.setup_error);
    sandbox_result_release(&r);
    free(bad);

    const char *nowhere[] = {"true", NULL};
    opts_for(&o, iso, nowhere);
    o.workdir = "/nonexistent/lg-workdir";
    sandbox_result_init(&r);
    ck_assert_int_eq(sandbox_run(&o, &r, &err), -1);
    ck_assert_int_eq(r.status, SB_SETUP_FAILED);
    sandbox_result_release(&r);
}
END_TEST

/* A program the grader can see but the sandbox cannot: bwrap's own exec failure. */
START_TEST(test_bwrap_invisible_program_is_setup_failure)
{
    SKIP_IF_NO_BWRAP(ISOLATION_BWRAP);
    char *prog = path_join(sibling, "prog");
    write_text(prog, "#!/bin/sh\necho ran\n", 0755);
    const char *argv[] = {prog, NULL};
    struct sandbox_opts o;
    struct sandbox_result r;
    struct error err;
    error_init(&err);
    opts_for(&o, ISOLATION_BWRAP, argv);
    sandbox_result_init(&r);
    ck_assert_int_eq(sandbox_run(&o, &r, &err), -1);
    ck_assert_int_eq(r.status, SB_SETUP_FAILED);
    ck_assert_msg(strstr(r.setup_error, "bwrap: execvp"), "%s", r.setup_error);
    sandbox_result_release(&r);

    /* Visible through ro_paths: runs, and is read-only. */
    const char *ro[] = {sibling, NULL};
    o.ro_paths = ro;
    sandbox_result_init(&r);
    ck_assert_int_eq(sandbox_run(&o, &r, &err), 0);
    ck_assert_int_eq(r.status, SB_EXITED);
    ck_assert_str_eq(r.output, "ran\n");
    sandbox_result_release(&r);
    free(prog);
}
END_TEST

START_TEST(test_bwrap_writes_outside_workdir_fail)
{
    SKIP_IF_NO_BWRAP(ISOLATION_BWRAP);
    char cwd[4096];
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
    const char *home = getenv("HOME");
    char *before = listing(cwd);
    char *home_before = home ? listing(home) : xstrdup("");
    char *script = xstrfmt("touch '%s/lg-escape' 2>/dev/null && echo ESCAPED-cwd; "
                           "mkdir '%s/lg-escape-dir' 2>/dev/null && echo ESCAPED-mkdir; "
                           "touch '%s/lg-escape' 2>/dev/null && echo ESCAPED-home; "
                           "touch /usr/lg-escape 2>/dev/null && echo ESCAPED-usr; "
                           "touch '%s/lg-escape' 2>/dev/null && echo ESCAPED-sibling; "
                           "touch inside && touch \"$HOME/x\" && echo INSIDE-OK",
                           cwd, cwd, home ? home : "/root", sibling);
    struct sandbox_result r;
    ck_assert_int_eq(run_sh(ISOLATION_BWRAP, script, NULL, &r), 0);
    free(script);
    ck_assert_msg(!strstr(r.output, "ESCAPED"), "%s", r.output);
    ck_assert_msg(strstr(r.output, "INSIDE-OK"), "%s", r.output);
    char *inside = path_join(workdir, "inside");
    ck_assert(file_exists(inside));
    free(inside);
    char *after = listing(cwd);
    ck_assert_str_eq(before, after);
    char *home_after = home ? listing(home) : xstrdup("");
    ck_assert_str_eq(home_before, home_after);
    free(before);
    free(after);
    free(home_before);
    free(home_after);
    sandbox_result_release(&r);
}
END_TEST

START_TEST(test_bwrap_grader_tree_invisible)
{
    SKIP_IF_NO_BWRAP(ISOLATION_BWRAP);
    char *secret = path_join(sibling, "secret.txt");
    write_text(secret, "the-answer-key\n", 0644);
    char cwd[4096];
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
    char *script = xstrfmt("cat '%s' 2>&1; test -e '%s' && echo VISIBLE-sibling; "
                           "test -e '%s' && echo VISIBLE-cwd; test -e /root && echo VISIBLE-root; "
                           "test -e /home && echo VISIBLE-home; echo end",
                           secret, sibling, cwd);
    struct sandbox_result r;
    ck_assert_int_eq(run_sh(ISOLATION_BWRAP, script, NULL, &r), 0);
    free(script);
    ck_assert_msg(!strstr(r.output, "the-answer-key"), "%s", r.output);
    ck_assert_msg(!strstr(r.output, "VISIBLE"), "%s", r.output);
    ck_assert_msg(strstr(r.output, "end"), "%s", r.output);
    sandbox_result_release(&r);

    /* ro_paths makes it visible but not writable. */
    const char *ro[] = {sibling, NULL};
    struct sandbox_opts o;
    opts_for(&o, ISOLATION_BWRAP, NULL);
    o.ro_paths = ro;
    script = xstrfmt("cat '%s'; touch '%s/new' 2>/dev/null && echo ESCAPED", secret, sibling);
    ck_assert_int_eq(run_sh(ISOLATION_BWRAP, script, &o, &r), 0);
    free(script);
    ck_assert_str_eq(r.output, "the-answer-key\n");
    char *created = path_join(sibling, "new");
    ck_assert(!file_exists(created));
    free(created);
    sandbox_result_release(&r);

    /* rw_paths makes it writable. */
    const char *rw[] = {sibling, NULL};
    opts_for(&o, ISOLATION_BWRAP, NULL);
    o.rw_paths = rw;
    script = xstrfmt("touch '%s/made' && echo MADE", sibling);
    ck_assert_int_eq(run_sh(ISOLATION_BWRAP, script, &o, &r), 0);
    free(script);
    ck_assert_str_eq(r.output, "MADE\n");
    char *made = path_join(sibling, "made");
    ck_assert(file_exists(made));
    free(made);
    sandbox_result_release(&r);
    free(secret);
}
END_TEST

/* Connect to a port this test listens on: works without namespaces (the control), fails
 * under bwrap, works again under bwrap with opts->network. */
START_TEST(test_network)
{
    enum isolation iso = level(_i);
    SKIP_IF_NO_BWRAP(iso);
    if (!file_exists("/bin/bash") && !file_exists("/usr/bin/bash")) {
        fprintf(stderr, "%s: skipped, needs bash for /dev/tcp\n", __func__);
        return;
    }
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ck_assert_int_ge(s, 0);
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof(addr));
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_int_eq(bind(s, (struct sockaddr *)&addr, sizeof(addr)), 0);
    ck_assert_int_eq(listen(s, 4), 0);
    socklen_t len = sizeof(addr);
    ck_assert_int_eq(getsockname(s, (struct sockaddr *)&addr, &len), 0);
    char script[256];
    snprintf(script, sizeof(script),
             "exec 3<>/dev/tcp/127.0.0.1/%d && echo CONNECTED; cat /proc/net/dev",
             (int)ntohs(addr.sin_port));
    const char *argv[] = {"bash", "-c", script, NULL};
    struct sandbox_opts o;
    struct sandbox_result r;
    struct error err;
    error_init(&err);
    opts_for(&o, iso, argv);
    sandbox_result_init(&r);
    ck_assert_int_eq(sandbox_run(&o, &r, &err), 0);
    if (iso == ISOLATION_SUPERVISOR) {
        ck_assert_msg(strstr(r.output, "CONNECTED"), "%s", r.output);
    } else {
        ck_assert_msg(!strstr(r.output, "CONNECTED"), "%s", r.output);
        /* Only the loopback interface exists in the new network namespace. */
        const char *table = strstr(r.output, "face |");
        ck_assert_ptr_nonnull(table);
        int interfaces = 0;
        for (const char *p = strchr(table, '\n'); p && p[1]; p = strchr(p + 1, '\n')) {
            interfaces++;
            ck_assert_msg(strncmp(p + 1 + strspn(p + 1, " "), "lo:", 3) == 0, "%s", r.output);
        }
        ck_assert_int_eq(interfaces, 1);
        sandbox_result_release(&r);
        o.network = true;
        sandbox_result_init(&r);
        ck_assert_int_eq(sandbox_run(&o, &r, &err), 0);
        ck_assert_msg(strstr(r.output, "CONNECTED"), "%s", r.output);
    }
    sandbox_result_release(&r);
    close(s);
}
END_TEST

START_TEST(test_limits_and_privileges)
{
    enum isolation iso = level(_i);
    SKIP_IF_NO_BWRAP(iso);
    struct sandbox_opts o;
    opts_for(&o, iso, NULL);
    o.cpu_limit_s = 1.5; /* rounded up to 2 s, hard limit one more */
    o.file_limit_bytes = 5 * 1024 * 1024;
    struct sandbox_result r;
    ck_assert_int_eq(run_sh(iso,
                            "cat /proc/$$/limits; grep -E '^(NoNewPrivs|CapEff)' /proc/$$/status; "
                            "set -- $(sed 's/.*) //' /proc/$$/stat); "
                            "echo \"pgrp=$3 sid=$4 pid=$$\"",
                            &o, &r),
                     0);
    ck_assert_int_eq(r.status, SB_EXITED);
    ck_assert_msg(strstr(r.output, "Max cpu time              2                    3    "), "%s",
                  r.output);
    ck_assert_msg(strstr(r.output, "Max file size             5242880              5242880"), "%s",
                  r.output);
    ck_assert_msg(strstr(r.output, "Max open files            256                  256"), "%s",
                  r.output);
    ck_assert_msg(strstr(r.output, "Max core file size        0                    0"), "%s",
                  r.output);
    /* Never RLIMIT_AS (CUDA) nor RLIMIT_NPROC: whatever the grader has, the child has. */
    struct strbuf own = STRBUF_INIT;
    struct error err;
    error_init(&err);
    ck_assert_int_eq(read_file("/proc/self/limits", &own, &err), 0);
    for (const char *key = "Max address space"; key;
         key = strcmp(key, "Max processes") ? "Max processes" : NULL) {
        const char *mine = strstr(own.buf, key), *theirs = strstr(r.output, key);
        ck_assert_ptr_nonnull(mine);
        ck_assert_ptr_nonnull(theirs);
        ck_assert_int_eq(strcspn(mine, "\n"), strcspn(theirs, "\n"));
        ck_assert_int_eq(strncmp(mine, theirs, strcspn(mine, "\n")), 0);
    }
    strbuf_release(&own);
    ck_assert_msg(strstr(r.output, "NoNewPrivs:\t1\n"), "%s", r.output);
    if (iso == ISOLATION_BWRAP) {
        /* No capabilities, even when the grader runs as root. */
        ck_assert_msg(strstr(r.output, "CapEff:\t0000000000000000\n"), "%s", r.output);
    } else {
        /* Its own session and process group. */
        const char *line = strstr(r.output, "pgrp=");
        ck_assert_ptr_nonnull(line);
        long pgrp, sid, pid;
        ck_assert_int_eq(sscanf(line, "pgrp=%ld sid=%ld pid=%ld", &pgrp, &sid, &pid), 3);
        ck_assert_int_eq(pgrp, pid);
        ck_assert_int_eq(sid, pid);
    }
    sandbox_result_release(&r);
}
END_TEST

/* Polls until the count of matching processes is `want` (a watchdog of 60 s: a loaded
 * machine starts and ends processes late); returns the count. */
static int wait_for_count(const char *argv0, const char *arg1, int want)
{
    int n = count_processes(argv0, arg1);
    for (int k = 0; k < 6000 && n != want; k++) {
        usleep(10000);
        n = count_processes(argv0, arg1);
    }
    return n;
}

/* Whether the parent cgroup the sandbox uses holds a group whose name starts with prefix. */
static bool own_cgroup_has(const char *prefix)
{
    char *dir = user_cgroup && strcmp(user_cgroup, "off") ? xstrdup(user_cgroup) : NULL;
    struct strbuf cg = STRBUF_INIT, mi = STRBUF_INIT;
    struct error err;
    error_init(&err);
    if (!dir && read_file("/proc/self/cgroup", &cg, &err) == 0 &&
        read_file("/proc/self/mountinfo", &mi, &err) == 0) {
        const char *own = strstr(cg.buf, "0::");
        for (char *line = mi.buf; own && line && *line;) {
            char *nl = strchr(line, '\n');
            if (nl)
                *nl = '\0';
            char root[512], mp[512];
            if (strstr(line, " - cgroup2 ") &&
                sscanf(line, "%*s %*s %*s %511s %511s", root, mp) == 2 && !strcmp(root, "/")) {
                dir = xstrfmt("%s%.*s", mp, (int)strcspn(own + 3, "\n"), own + 3);
                break;
            }
            line = nl ? nl + 1 : NULL;
        }
    }
    strbuf_release(&cg);
    strbuf_release(&mi);
    bool found = false;
    DIR *d = dir ? opendir(dir) : NULL;
    struct dirent *de;
    while (d && (de = readdir(d)))
        found |= strncmp(de->d_name, prefix, strlen(prefix)) == 0;
    if (d)
        closedir(d);
    free(dir);
    return found;
}

/* The grader is SIGKILLed mid-run (no handler can run): the command dies with it. */
START_TEST(test_grader_death_kills_command)
{
    enum isolation iso = level(_i);
    SKIP_IF_NO_BWRAP(iso);
    if (_i >= 2)
        setenv("LABGRADER_CGROUP", "off", 1);
    char escapee[64], main_dur[64];
    unique_duration(escapee, sizeof(escapee));
    unique_duration(main_dur, sizeof(main_dur));
    char *script = xstrfmt("setsid sleep %s & exec sleep %s", escapee, main_dur);
    pid_t grader = fork();
    ck_assert_int_ge(grader, 0);
    if (grader == 0) {
        struct sandbox_result r;
        run_sh(iso, script, NULL, &r);
        _exit(0);
    }
    ck_assert_int_eq(wait_for_count("sleep", main_dur, 1), 1);
    ck_assert_int_eq(wait_for_count("sleep", escapee, 1), 1);
    char prefix[64];
    snprintf(prefix, sizeof(prefix), "labgrader-%ld-", (long)grader);
    bool had_cgroup = own_cgroup_has(prefix);
    kill(grader, SIGKILL);
    int st;
    waitpid(grader, &st, 0);
    free(script);

    /* PDEATHSIG (and, under bwrap, the end of the pid namespace). */
    ck_assert_int_eq(wait_for_count("sleep", main_dur, 0), 0);
    if (iso == ISOLATION_BWRAP) {
        ck_assert_int_eq(wait_for_count("sleep", escapee, 0), 0);
    } else if (had_cgroup) {
        /* The escapee outlives a SIGKILLed grader in its cgroup; the next run removes
         * groups of dead graders together with their processes. */
        struct sandbox_result r;
        ck_assert_int_eq(run_sh(iso, "true", NULL, &r), 0);
        sandbox_result_release(&r);
        ck_assert_int_eq(wait_for_count("sleep", escapee, 0), 0);
        ck_assert(!own_cgroup_has(prefix));
    } else {
        fprintf(stderr,
                "%s: no cgroup here: an escapee of a SIGKILLed grader survives (documented)\n",
                __func__);
        ck_assert_int_eq(signal_processes("sleep", escapee, SIGKILL), 1);
    }
}
END_TEST

static void alarm_kills_sandbox(int sig)
{
    (void)sig;
    sandbox_kill_running();
}

START_TEST(test_kill_running_from_signal_handler)
{
    enum isolation iso = level(_i);
    SKIP_IF_NO_BWRAP(iso);
    if (_i >= 2)
        setenv("LABGRADER_CGROUP", "off", 1);
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = alarm_kills_sandbox;
    sigemptyset(&sa.sa_mask);
    ck_assert_int_eq(sigaction(SIGALRM, &sa, NULL), 0);
    char dur[64], script[256];
    unique_duration(dur, sizeof(dur));
    snprintf(script, sizeof(script), "setsid sleep %s & exec sleep %s", dur, dur);
    /* Every half second: a first signal that comes before the run is registered (a loaded
     * machine) kills nothing, the next one does. */
    struct itimerval it = {{0, 500000}, {0, 500000}}, off = {{0, 0}, {0, 0}};
    ck_assert_int_eq(setitimer(ITIMER_REAL, &it, NULL), 0);
    struct sandbox_result r;
    int rc = run_sh(iso, script, NULL, &r);
    ck_assert_int_eq(setitimer(ITIMER_REAL, &off, NULL), 0);
    ck_assert_int_eq(rc, 0);
    ck_assert_msg(r.status == SB_SIGNALED && r.term_signal == SIGKILL, "status %d signal %d",
                  r.status, r.term_signal);
    ck_assert_int_eq(count_processes("sleep", dur), 0);
    ck_assert_int_eq(count_own_children(), 0);
    sandbox_result_release(&r);
}
END_TEST

/* Where the cgroup v2 of this process accepts a limit, the sandboxed command can read it
 * back from its own cgroup; this decides whether the limit tests can run here. */
static bool cgroup_limit_applies(const char *file, const char *expect, struct sandbox_opts *o)
{
    struct strbuf mi = STRBUF_INIT;
    struct error err;
    error_init(&err);
    if (read_file("/proc/self/mountinfo", &mi, &err) != 0)
        return false;
    char mount[512] = "";
    for (char *line = mi.buf; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        char *sep = strstr(line, " - cgroup2 ");
        char root[512], mp[512];
        if (sep && sscanf(line, "%*s %*s %*s %511s %511s", root, mp) == 2 && !strcmp(root, "/")) {
            snprintf(mount, sizeof(mount), "%s", mp);
            break;
        }
        line = nl ? nl + 1 : NULL;
    }
    strbuf_release(&mi);
    if (!mount[0])
        return false;
    char script[1024];
    snprintf(script, sizeof(script), "cat \"%s$(sed -n 's/^0:://p' /proc/self/cgroup)/%s\"", mount,
             file);
    struct sandbox_result r;
    run_sh(ISOLATION_SUPERVISOR, script, o, &r);
    bool ok = r.status == SB_EXITED && r.exit_code == 0 && strcmp(r.output, expect) == 0;
    sandbox_result_release(&r);
    return ok;
}

START_TEST(test_fork_bomb_limited_by_pids)
{
    enum isolation iso = level(_i);
    SKIP_IF_NO_BWRAP(iso);
    struct sandbox_opts o;
    opts_for(&o, iso, NULL);
    o.max_processes = 20;
    if (!cgroup_limit_applies("pids.max", "20\n", &o)) {
        fprintf(stderr, "%s: skipped, no delegated cgroup v2 pids controller here\n", __func__);
        return;
    }
    /* Bounded, so that a broken limit costs 200 short sleeps rather than the machine. */
    struct sandbox_result r;
    ck_assert_int_eq(run_sh(iso,
                            "i=0; while [ $i -lt 200 ]; do sleep 5 & i=$((i+1)); done; "
                            "echo all-started",
                            &o, &r),
                     0);
    ck_assert_msg(!strstr(r.output, "all-started"), "%s", r.output);
    ck_assert_msg(strstr(r.output, "fork") || strstr(r.output, "Resource temporarily"), "%s",
                  r.output);
    ck_assert_int_eq(count_own_children(), 0);
    ck_assert(r.cgroup_used && r.pids_limit_enforced);
    sandbox_result_release(&r);
}
END_TEST

START_TEST(test_memory_limit)
{
    enum isolation iso = level(_i);
    SKIP_IF_NO_BWRAP(iso);
    struct sandbox_opts o;
    opts_for(&o, iso, NULL);
    o.memory_limit_bytes = 64LL * 1024 * 1024;
    if (!cgroup_limit_applies("memory.max", "67108864\n", &o)) {
        fprintf(stderr, "%s: skipped, no delegated cgroup v2 memory controller here\n", __func__);
        return;
    }
    /* tail keeps the whole newline-free input in memory: 300 MB, bounded. */
    struct sandbox_result r;
    ck_assert_int_eq(run_sh(iso, "head -c 300000000 /dev/zero | tail -n 1 | wc -c", &o, &r), 0);
    ck_assert_msg(r.status == SB_MEMORY_LIMIT, "status %d: %s", r.status, r.output);
    ck_assert(r.cgroup_used && r.memory_limit_enforced);
    ck_assert_int_eq(r.memory_guard, MEMORY_GUARD_CGROUP);
    char text[200];
    sandbox_describe(&r, text, sizeof(text));
    ck_assert_msg(!strncmp(text, "memory limit exceeded", 21), "%s", text);
    ck_assert_int_gt(r.peak_rss_kb, 32 * 1024);
    sandbox_result_release(&r);
}
END_TEST

START_TEST(test_available_and_auto)
{
    setenv("LABGRADER_ISOLATION", "supervisor", 1);
    ck_assert_int_eq(sandbox_available(), ISOLATION_SUPERVISOR);
    setenv("LABGRADER_ISOLATION", "bwrap", 1);
    ck_assert_int_eq(sandbox_available(), ISOLATION_BWRAP);
    unsetenv("LABGRADER_ISOLATION");
    ck_assert_int_eq(sandbox_available(), bwrap_ok ? ISOLATION_BWRAP : ISOLATION_SUPERVISOR);

    /* AUTO follows the override... */
    setenv("LABGRADER_ISOLATION", "supervisor", 1);
    struct sandbox_result r;
    ck_assert_int_eq(run_sh(ISOLATION_AUTO, "true", NULL, &r), 0);
    ck_assert_int_eq(r.isolation_used, ISOLATION_SUPERVISOR);
    sandbox_result_release(&r);
    /* ...and otherwise the probe. */
    unsetenv("LABGRADER_ISOLATION");
    ck_assert_int_eq(run_sh(ISOLATION_AUTO, "true", NULL, &r), 0);
    ck_assert_int_eq(r.isolation_used, bwrap_ok ? ISOLATION_BWRAP : ISOLATION_SUPERVISOR);
    ck_assert_int_eq(r.status, SB_EXITED);
    sandbox_result_release(&r);
}
END_TEST

/* Without bwrap in PATH: AUTO falls back, an explicit BWRAP request fails clearly. Needs a
 * fresh probe, i.e. its own process (CK_FORK). */
START_TEST(test_bwrap_missing)
{
    if (srunner_fork_status(runner) == CK_NOFORK) {
        fprintf(stderr, "%s: skipped, needs CK_FORK\n", __func__);
        return;
    }
    setenv("PATH", "/nonexistent", 1);
    ck_assert_int_eq(sandbox_available(), ISOLATION_SUPERVISOR);
    struct sandbox_result r;
    ck_assert_int_eq(run_sh(ISOLATION_BWRAP, "true", NULL, &r), -1);
    ck_assert_int_eq(r.status, SB_SETUP_FAILED);
    ck_assert_int_eq(r.isolation_used, ISOLATION_BWRAP);
    ck_assert_msg(strstr(r.setup_error, "bwrap"), "%s", r.setup_error);
    sandbox_result_release(&r);
    /* The command's PATH is the sandbox's, not the grader's. */
    ck_assert_int_eq(run_sh(ISOLATION_AUTO, "echo ok", NULL, &r), 0);
    ck_assert_int_eq(r.isolation_used, ISOLATION_SUPERVISOR);
    ck_assert_str_eq(r.output, "ok\n");
    sandbox_result_release(&r);
}
END_TEST

START_TEST(test_describe_and_names)
{
    struct sandbox_result r;
    char text[700];
    sandbox_result_init(&r);

    r.status = SB_EXITED;
    r.exit_code = 0;
    sandbox_describe(&r, text, sizeof(text));
    ck_assert_str_eq(text, "exited with status 0");

    r.status = SB_SIGNALED;
    r.term_signal = SIGABRT;
    sandbox_describe(&r, text, sizeof(text));
    ck_assert_str_eq(text, "killed by SIGABRT (aborted)");
    r.term_signal = SIGFPE;
    sandbox_describe(&r, text, sizeof(text));
    ck_assert_str_eq(text, "killed by SIGFPE (floating-point exception)");
    r.term_signal = 63;
    sandbox_describe(&r, text, sizeof(text));
    ck_assert_str_eq(text, "killed by signal 63");

    r.status = SB_TIMEOUT;
    r.wall_s = 2.04;
    sandbox_describe(&r, text, sizeof(text));
    ck_assert_str_eq(text,
                     "timed out after 2.0 s (wall clock); the whole process group was killed");

    r.status = SB_CPU_LIMIT;
    r.cpu_s = 2.01;
    sandbox_describe(&r, text, sizeof(text));
    ck_assert_str_eq(text, "CPU time limit exceeded (2.0 s of CPU time used)");

    r.status = SB_FILE_LIMIT;
    sandbox_describe(&r, text, sizeof(text));
    ck_assert_str_eq(text, "file size limit exceeded");

    r.status = SB_MEMORY_LIMIT;
    sandbox_describe(&r, text, sizeof(text));
    ck_assert_str_eq(text, "memory limit exceeded");
    r.memory_limit_bytes = 1LL << 30;
    r.memory_peak_bytes = 1280LL << 20;
    sandbox_describe(&r, text, sizeof(text));
    ck_assert_str_eq(text, "memory limit exceeded (1280 MiB in use, limit 1024 MiB)");

    r.status = SB_SETUP_FAILED;
    snprintf(r.setup_error, sizeof(r.setup_error), "fork: Resource temporarily unavailable");
    sandbox_describe(&r, text, sizeof(text));
    ck_assert_str_eq(text, "could not start: fork: Resource temporarily unavailable");

    /* Truncation is safe. */
    char small[8];
    sandbox_describe(&r, small, sizeof(small));
    ck_assert_str_eq(small, "could n");

    ck_assert_str_eq(signal_name(SIGSEGV), "SIGSEGV");
    ck_assert_str_eq(signal_name(SIGBUS), "SIGBUS");
    ck_assert_str_eq(signal_name(SIGILL), "SIGILL");
    ck_assert_str_eq(signal_name(SIGKILL), "SIGKILL");
    ck_assert_str_eq(signal_name(SIGTERM), "SIGTERM");
    ck_assert_str_eq(signal_name(SIGXCPU), "SIGXCPU");
    ck_assert_str_eq(signal_name(SIGXFSZ), "SIGXFSZ");
    ck_assert_str_eq(signal_name(SIGPIPE), "SIGPIPE");
    ck_assert_str_eq(signal_name(SIGTRAP), "SIGTRAP");
    ck_assert_str_eq(signal_name(SIGSYS), "SIGSYS");
    ck_assert_str_eq(signal_name(SIGHUP), "SIGHUP");
    ck_assert_str_eq(signal_name(SIGINT), "SIGINT");
    ck_assert_str_eq(signal_name(0), "SIG?");
    ck_assert_str_eq(signal_name(63), "SIG?");

    ck_assert_str_eq(isolation_name(ISOLATION_AUTO), "auto");
    ck_assert_str_eq(isolation_name(ISOLATION_SUPERVISOR), "supervisor");
    ck_assert_str_eq(isolation_name(ISOLATION_BWRAP), "bwrap");
}
END_TEST

/* runner: what the grader makes of a student run (grader/run/runner.h). */

START_TEST(test_runner_cpu_limit)
{
    /* Every core for the whole wall limit: OpenBLAS threads fit, a runaway does not. */
    ck_assert(runner_cpu_limit(5, 16) == 80);
    ck_assert(runner_cpu_limit(5, 1) == 5);
    ck_assert(runner_cpu_limit(5, -1) == 5);
    ck_assert(runner_cpu_limit(0, 16) == 0);
}
END_TEST

static Suite *sandbox_suite(void)
{
    Suite *s = suite_create("sandbox");
    TCase *tc = tcase_create("run");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 180); /* a watchdog: each test takes seconds */
    tcase_add_loop_test(tc, test_exit_code, 0, 2);
    tcase_add_loop_test(tc, test_success_is_exit_zero, 0, 2);
    tcase_add_loop_test(tc, test_signal, 0, 2);
    tcase_add_loop_test(tc, test_exit_status_passes_through, 0, 2);
    tcase_add_loop_test(tc, test_wall_timeout, 0, 2);
    tcase_add_loop_test(tc, test_timeout_kills_escaped_grandchildren, 0, 4);
    tcase_add_loop_test(tc, test_exit_kills_background_processes, 0, 4);
    tcase_add_loop_test(tc, test_output_cap, 0, 2);
    tcase_add_loop_test(tc, test_output_tail, 0, 2);
    tcase_add_loop_test(tc, test_output_complete_below_cap_and_default_cap, 0, 2);
    tcase_add_loop_test(tc, test_output_excerpt_marks_truncation, 0, 2);
    tcase_add_loop_test(tc, test_limits_recorded_without_cgroup, 0, 2);
    tcase_add_loop_test(tc, test_address_space_limit, 0, 2);
    tcase_add_loop_test(tc, test_file_size_limit, 0, 2);
    tcase_add_loop_test(tc, test_cpu_limit, 0, 2);
    tcase_add_loop_test(tc, test_clean_environment, 0, 2);
    tcase_add_loop_test(tc, test_descriptors_and_cwd, 0, 2);
    tcase_add_loop_test(tc, test_exec_failures, 0, 2);
    tcase_add_loop_test(tc, test_limits_and_privileges, 0, 2);
    tcase_add_loop_test(tc, test_grader_death_kills_command, 0, 4);
    tcase_add_test(tc, test_bwrap_invisible_program_is_setup_failure);
    tcase_add_test(tc, test_bwrap_writes_outside_workdir_fail);
    tcase_add_test(tc, test_bwrap_grader_tree_invisible);
    tcase_add_loop_test(tc, test_network, 0, 2);
    tcase_add_loop_test(tc, test_kill_running_from_signal_handler, 0, 4);
    tcase_add_loop_test(tc, test_fork_bomb_limited_by_pids, 0, 2);
    tcase_add_loop_test(tc, test_memory_limit, 0, 2);
    tcase_add_loop_test(tc, test_memory_watcher, 0, 4);
    tcase_add_test(tc, test_available_and_auto);
    tcase_add_test(tc, test_bwrap_missing);
    tcase_add_test(tc, test_describe_and_names);
    tcase_add_test(tc, test_runner_cpu_limit);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    /* Probe in a throw-away child so every test process starts with an unprobed sandbox
     * (test_bwrap_missing needs a fresh probe). */
    unsetenv("LABGRADER_ISOLATION");
    user_cgroup = getenv("LABGRADER_CGROUP");
    pid_t pid = fork();
    if (pid == 0)
        _exit(sandbox_available() == ISOLATION_BWRAP ? 0 : 1);
    int st = 1;
    waitpid(pid, &st, 0);
    bwrap_ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
    if (!bwrap_ok)
        fprintf(stderr, "test_sandbox: bubblewrap does not work here; bwrap passes skipped\n");

    runner = srunner_create(sandbox_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? 0 : 1;
}
