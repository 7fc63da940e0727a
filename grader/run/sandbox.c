/*
 * sandbox: the supervisor that runs untrusted commands (student programs and the
 * compiler on student sources).
 *
 * What each level guarantees
 * --------------------------
 * Supervisor (always):
 *   - the child runs in its own session and process group, with PR_SET_NO_NEW_PRIVS,
 *     PR_SET_PDEATHSIG(SIGKILL) (it dies with the grader), RLIMIT_CPU, RLIMIT_FSIZE,
 *     RLIMIT_NOFILE 256 and RLIMIT_CORE 0, default signal dispositions, a clean
 *     environment, stdin from /dev/null and no other inherited descriptor;
 *   - at the wall-clock limit, and also after a normal exit, the process group is
 *     killed, and then every remaining descendant: the grader is a child subreaper
 *     (PR_SET_CHILD_SUBREAPER, set once, process-wide), so processes that left the
 *     group (setsid, double fork) are re-parented to it and killed and reaped here;
 *   - output is drained continuously, so a chatty child never blocks, and only
 *     output_cap bytes are kept.
 *   It does NOT protect files: the command runs with the grader's uid and sees and may
 *   write everything that uid may (as root: everything, including cgroups and other
 *   processes). It does not limit the process count without a cgroup; memory it limits by
 *   sampling (below).
 * Cgroup v2 (added when our cgroup, or LABGRADER_CGROUP, is writable):
 *   - every process of the run, whatever it does with sessions and parents, is in
 *     labgrader-<pid>-<n> and dies with one write to cgroup.kill (race-free against
 *     fork loops); memory.max and pids.max are set when requested and the controllers
 *     are available (SB_MEMORY_LIMIT when the kernel OOM-killed any process of the
 *     run); CPU time (cpu.stat) and peak memory (memory.peak) cover all processes.
 *     Limits need a parent whose controllers can be enabled for children: a delegated
 *     cgroup (LABGRADER_CGROUP=/sys/fs/cgroup/..., e.g. from systemd Delegate=yes) or
 *     the root; in our own cgroup, which holds our processes, cgroup v2 refuses them.
 *   Only cgroup v2 is used; on v1/hybrid hosts the process limit is not enforced and
 *   memory is left to the watcher (the kill and accounting still work when the v2
 *   hierarchy is writable).
 * Bubblewrap (namespaces):
 *   - user, mount, pid, ipc, uts, cgroup and (unless opts->network) network
 *     namespaces; all capabilities dropped (bwrap run by root would otherwise keep
 *     them); a read-only system (/usr, /bin, /lib*, a few files of /etc, the CUDA
 *     toolkit), fresh /proc, minimal /dev, a private /tmp; only the workdir and
 *     rw_paths writable; ro_paths visible read-only; nothing else of the host (the
 *     grader's tree, home directories, other students' folders) exists inside;
 *   - the command and everything it started die when bwrap's pid 1 dies, which
 *     --die-with-parent ties to the supervisor.
 *   It does not filter system calls (no seccomp) and shares the kernel, so a kernel
 *   exploit escapes it; /sys is visible (read-only) when opts->gpu is set.
 *
 * Without a delegated cgroup, memory is still limited: the supervisor samples the memory of
 * the run's processes and kills the run above the limit (run/memwatch.c says what it
 * counts and what it cannot see).
 *
 * This file holds the names and words of results; run/sandbox_internal.h maps the modules
 * that run a command (the supervisor, limits, cgroup, bwrap, sweep, ...).
 */
#include "run/sandbox.h"
#include "base/alloc.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Names and descriptions                                                   */

const char *isolation_name(enum isolation i)
{
    switch (i) {
    case ISOLATION_AUTO:
        return "auto";
    case ISOLATION_SUPERVISOR:
        return "supervisor";
    case ISOLATION_BWRAP:
        return "bwrap";
    }
    return "unknown";
}

static const struct {
    int sig;
    const char *name;
    const char *what;
} signal_table[] = {
    {SIGHUP, "SIGHUP", "hangup"},
    {SIGINT, "SIGINT", "interrupt"},
    {SIGQUIT, "SIGQUIT", "quit"},
    {SIGILL, "SIGILL", "illegal instruction"},
    {SIGTRAP, "SIGTRAP", "trace/breakpoint trap"},
    {SIGABRT, "SIGABRT", "aborted"},
    {SIGBUS, "SIGBUS", "bus error"},
    {SIGFPE, "SIGFPE", "floating-point exception"},
    {SIGKILL, "SIGKILL", "killed"},
    {SIGUSR1, "SIGUSR1", "user signal 1"},
    {SIGSEGV, "SIGSEGV", "segmentation fault"},
    {SIGUSR2, "SIGUSR2", "user signal 2"},
    {SIGPIPE, "SIGPIPE", "broken pipe"},
    {SIGALRM, "SIGALRM", "alarm clock"},
    {SIGTERM, "SIGTERM", "terminated"},
    {SIGXCPU, "SIGXCPU", "CPU time limit exceeded"},
    {SIGXFSZ, "SIGXFSZ", "file size limit exceeded"},
    {SIGSYS, "SIGSYS", "bad system call"},
};

const char *signal_name(int sig)
{
    for (size_t i = 0; i < sizeof(signal_table) / sizeof(signal_table[0]); i++)
        if (signal_table[i].sig == sig)
            return signal_table[i].name;
    return "SIG?";
}

const char *signal_description(int sig)
{
    for (size_t i = 0; i < sizeof(signal_table) / sizeof(signal_table[0]); i++)
        if (signal_table[i].sig == sig)
            return signal_table[i].what;
    return NULL;
}

char *sandbox_output_excerpt(const struct sandbox_result *r, size_t max)
{
    if (!r->output || !r->output_len)
        return NULL;
    size_t n = r->output_len > max ? max : r->output_len;
    char first[64] = "", cut[64] = "";
    if (r->output_len > n)
        snprintf(first, sizeof(first), " (first %zu bytes)", n);
    if (r->output_truncated)
        snprintf(cut, sizeof(cut), " (output truncated at %zu KiB)", (r->output_len + 1023) / 1024);
    return xstrfmt("program output%s%s:\n%.*s", first, cut, (int)n, r->output);
}

void sandbox_describe(const struct sandbox_result *r, char *buf, size_t size)
{
    if (!buf || size == 0)
        return;
    switch (r->status) {
    case SB_EXITED:
        snprintf(buf, size, "exited with status %d", r->exit_code);
        return;
    case SB_SIGNALED: {
        const char *what = signal_description(r->term_signal);
        if (what)
            snprintf(buf, size, "killed by %s (%s)", signal_name(r->term_signal), what);
        else
            snprintf(buf, size, "killed by signal %d", r->term_signal);
        return;
    }
    case SB_TIMEOUT:
        snprintf(buf, size,
                 "timed out after %.1f s (wall clock); the whole process group was killed",
                 r->wall_s);
        return;
    case SB_CPU_LIMIT:
        snprintf(buf, size, "CPU time limit exceeded (%.1f s of CPU time used)", r->cpu_s);
        return;
    case SB_FILE_LIMIT:
        snprintf(buf, size, "file size limit exceeded");
        return;
    case SB_MEMORY_LIMIT:
        if (r->memory_peak_bytes > 0 && r->memory_limit_bytes > 0)
            snprintf(buf, size, "memory limit exceeded (%.0f MiB in use, limit %.0f MiB)",
                     (double)r->memory_peak_bytes / (1 << 20),
                     (double)r->memory_limit_bytes / (1 << 20));
        else
            snprintf(buf, size, "memory limit exceeded");
        return;
    case SB_SETUP_FAILED:
        snprintf(buf, size, "could not start: %s",
                 r->setup_error[0] ? r->setup_error : "unknown error");
        return;
    }
    snprintf(buf, size, "unknown outcome");
}

void sandbox_opts_init(struct sandbox_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->isolation = ISOLATION_AUTO;
}

void sandbox_result_init(struct sandbox_result *r)
{
    memset(r, 0, sizeof(*r));
    r->output = NULL;
    r->isolation_used = ISOLATION_SUPERVISOR;
    r->case_timed_out = -1;
}

void sandbox_result_release(struct sandbox_result *r)
{
    free(r->output);
    r->output = NULL;
    r->output_len = 0;
    free(r->events);
    r->events = NULL;
    r->n_events = 0;
    free(r->loads);
    r->loads = NULL;
    r->n_loads = 0;
    free(r->busy);
    r->busy = NULL;
    r->n_busy = 0;
}
