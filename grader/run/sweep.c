/*
 * sweep: what outlives a run's main process is killed here. The grader is a child subreaper
 * (set once, process-wide), so descendants that left the process group (setsid, a double
 * fork) are re-parented to it, then killed and reaped; and the running runs are recorded for
 * sandbox_kill_running(), which a signal handler calls (run/sandbox_internal.h).
 */
#include "run/sandbox_internal.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

void sweep_set_subreaper_once(void)
{
    static bool done;
    if (!done && prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
        done = true;
}
/* The grader's own children from before the run: never killed or reaped here (someone
 * else waits for them). Everything else that is our child after the run started is a
 * descendant of the sandboxed command that was re-parented to us. */
#define PREEXISTING_MAX 512
static struct {
    size_t n;
    bool overflow;
    pid_t pid[PREEXISTING_MAX];
    unsigned long long start[PREEXISTING_MAX];
} preexisting;

bool sweep_is_preexisting(const struct proc_info *pi)
{
    if (preexisting.overflow)
        return true; /* cannot tell: leave alone rather than kill a stranger */
    for (size_t i = 0; i < preexisting.n; i++)
        if (preexisting.pid[i] == pi->pid && preexisting.start[i] == pi->start)
            return true;
    return false;
}

static void preexisting_add(const struct proc_info *pi, void *ctx)
{
    (void)ctx;
    if (preexisting.n == PREEXISTING_MAX) {
        preexisting.overflow = true;
        return;
    }
    preexisting.pid[preexisting.n] = pi->pid;
    preexisting.start[preexisting.n] = pi->start;
    preexisting.n++;
}

void sweep_preexisting_snapshot(void)
{
    preexisting.n = 0;
    preexisting.overflow = false;
    proc_for_each_child(getpid(), preexisting_add, NULL);
}

static void sweep_one(const struct proc_info *pi, void *vctx)
{
    struct sweep_ctx *ctx = vctx;
    if (pi->pid == ctx->keep || sweep_is_preexisting(pi))
        return;
    if (!ctx->reap && pi->state == 'Z')
        return;
    ctx->remaining++;
    kill(pi->pid, SIGKILL);
    if (!ctx->reap)
        return;
    int st;
    struct rusage ru;
    if (wait4(pi->pid, &st, WNOHANG, &ru) == pi->pid) {
        ctx->cpu_s += (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
                      (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
        if (ru.ru_maxrss > ctx->maxrss_kb)
            ctx->maxrss_kb = ru.ru_maxrss;
    }
}

void sweep_descendants(struct sweep_ctx *ctx, int max_passes)
{
    for (int pass = 0; pass < max_passes; pass++) {
        ctx->remaining = 0;
        proc_for_each_child(getpid(), sweep_one, ctx);
        if (ctx->remaining == 0)
            return;
        sb_sleep_ms(1);
    }
}

/* ------------------------------------------------------------------------ */
/* Running groups, for sandbox_kill_running() from a signal handler.        */

#define MAX_RUNNING 8
static struct {
    atomic_int pgid;         /* 0: free slot */
    atomic_int kill_fd_plus; /* cgroup.kill descriptor + 1; 0: none */
} running[MAX_RUNNING];

int running_register(pid_t pgid, int kill_fd)
{
    for (int i = 0; i < MAX_RUNNING; i++) {
        int expected = 0;
        if (atomic_compare_exchange_strong(&running[i].pgid, &expected, -1)) {
            atomic_store(&running[i].kill_fd_plus, kill_fd + 1);
            atomic_store(&running[i].pgid, (int)pgid);
            return i;
        }
    }
    return -1;
}

void running_unregister(int slot)
{
    if (slot < 0)
        return;
    atomic_store(&running[slot].kill_fd_plus, 0);
    atomic_store(&running[slot].pgid, 0);
}

void sandbox_kill_running(void)
{
    int saved_errno = errno;
    bool any = false;
    for (int i = 0; i < MAX_RUNNING; i++) {
        int pgid = atomic_load(&running[i].pgid);
        if (pgid <= 0)
            continue;
        any = true;
        int kfd = atomic_load(&running[i].kill_fd_plus) - 1;
        if (kfd >= 0) {
            ssize_t w = write(kfd, "1", 1);
            (void)w;
        }
        kill(-pgid, SIGKILL);
        kill(pgid, SIGKILL); /* before its setsid() the group does not exist yet */
    }
    if (any) {
        struct sweep_ctx ctx = {.keep = 0, .reap = false};
        sweep_descendants(&ctx, 20);
    }
    errno = saved_errno;
}
