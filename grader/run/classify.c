/*
 * classify: how a run ended, in the command's own terms (run/sandbox_internal.h). The
 * supervisor's own reasons come first (the wall clock, the memory limit: it killed the run
 * itself), then the kernel's OOM kills in the cgroup, then the signal or exit status.
 *
 * Exit statuses through bubblewrap: bwrap reports a command killed by signal N as exit
 * status 128+N, so under bwrap such statuses are read as that signal. bwrap's
 * --json-status-fd reports an exit code only when its setup and the exec succeeded, which is
 * how a bwrap failure is told apart from the command's own exit status 1.
 */
#include "run/sandbox_internal.h"

#include <signal.h>
#include <sys/wait.h>

/* A signal stopped the command: which limit, if any, it stands for. */
static enum sandbox_status signal_status(int sig, const struct child_limits *l, double cpu_s)
{
    if (sig == SIGXCPU || (sig == SIGKILL && l->has_cpu_limit && cpu_s >= (double)l->cpu.rlim_cur))
        return SB_CPU_LIMIT;
    if (sig == SIGXFSZ)
        return SB_FILE_LIMIT;
    return SB_SIGNALED;
}

int classify_run(const struct run_end *e, struct sandbox_result *r)
{
    bool exited = WIFEXITED(e->wait_status), signaled = WIFSIGNALED(e->wait_status);
    int code = exited ? WEXITSTATUS(e->wait_status) : 0;
    int sig = signaled ? WTERMSIG(e->wait_status) : 0;
    if (e->bwrap && exited) {
        int bw_code;
        if (bwrap_exit_code(e->json_fd, &bw_code)) {
            code = bw_code;
            if (code > 128 && code < 128 + NSIG) {
                exited = false;
                signaled = true;
                sig = code - 128;
            }
        } else if (!e->timed_out && !e->memory_exceeded) {
            return -1; /* bwrap's own failure */
        }
    }

    if (e->timed_out) {
        r->status = SB_TIMEOUT;
    } else if (e->memory_exceeded || e->oom_kills > 0) {
        /* Any process of the run, not only the main one: a pipeline whose last command
         * exits 0 after its producer was OOM-killed still ran out of memory. */
        r->status = SB_MEMORY_LIMIT;
    } else if (signaled) {
        r->term_signal = sig;
        r->status = signal_status(sig, e->limits, r->cpu_s);
    } else {
        r->status = SB_EXITED;
        r->exit_code = code;
    }
    return 0;
}
