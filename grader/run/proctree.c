/*
 * proctree: a run's process tree as /proc shows it now (run/sandbox_internal.h). It allocates:
 * for the supervisor's loop, never for a signal handler (procscan.c is for those).
 */
#include "run/sandbox_internal.h"

#include "base/alloc.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void collect(const struct proc_info *pi, void *ctx)
{
    struct proctree *t = ctx;
    if (t->n == t->alloc) {
        t->alloc = t->alloc ? 2 * t->alloc : 256;
        t->pid = xrealloc(t->pid, t->alloc * sizeof(pid_t));
        t->ppid = xrealloc(t->ppid, t->alloc * sizeof(pid_t));
        t->state = xrealloc(t->state, t->alloc);
    }
    t->pid[t->n] = pi->pid;
    t->ppid[t->n] = pi->ppid;
    t->state[t->n] = pi->state;
    t->n++;
}

void proctree_load(struct proctree *t)
{
    memset(t, 0, sizeof(*t));
    proc_for_each(collect, t);
}

bool proctree_has(const struct proctree *t, pid_t root, pid_t pid)
{
    for (int depth = 0; depth < 64 && pid > 1; depth++) {
        if (pid == root)
            return true;
        pid_t parent = 0;
        for (size_t i = 0; i < t->n && !parent; i++)
            if (t->pid[i] == pid)
                parent = t->ppid[i];
        pid = parent;
    }
    return pid == root && root > 0;
}

void proctree_free(struct proctree *t)
{
    free(t->pid);
    free(t->ppid);
    free(t->state);
    memset(t, 0, sizeof(*t));
}

static bool signalled(const pid_t *done, size_t n, pid_t pid)
{
    for (size_t i = 0; i < n; i++)
        if (done[i] == pid)
            return true;
    return false;
}

/* Whether a state letter of /proc is a process that forks no more before it stops: stopped,
 * traced, dead, or waiting for a disk in the kernel (it takes its stop on the way out, and
 * walking again for it would only cost /proc walks for as long as the disk takes). */
static bool at_rest(char state)
{
    return state == 'T' || state == 't' || state == 'Z' || state == 'X' || state == 'D';
}

/* One walk of the tree: sig to each process of it not signalled yet (noted in *done). How many
 * processes it signalled, and in *moving how many signalled before have not stopped yet. */
static size_t signal_pass(pid_t root, int sig, pid_t **done, size_t *n, size_t *alloc,
                          size_t *moving)
{
    struct proctree t;
    size_t fresh = 0;
    *moving = 0;
    proctree_load(&t);
    for (size_t i = 0; i < t.n; i++) {
        if (!proctree_has(&t, root, t.pid[i]))
            continue;
        if (signalled(*done, *n, t.pid[i])) {
            *moving += !at_rest(t.state[i]);
            continue;
        }
        kill(t.pid[i], sig);
        ALLOC_GROW(*done, *n + 1, *alloc);
        (*done)[(*n)++] = t.pid[i];
        fresh++;
    }
    proctree_free(&t);
    return fresh;
}

/* A process forked while the tree is walked is not in that walk, nor one forked by a process
 * the walk signalled but the kernel has not stopped yet (one kept off the CPU, in the middle of
 * a fork): left running, it would compute beside the series the run was frozen for (a
 * compiler's next stage, say). So a stop walks again until a walk finds nobody new and every
 * process signalled has stopped (a stopped process forks no more), a millisecond apart, at most
 * this many walks: each is one pass through /proc. */
#define PROCTREE_STOP_WALKS 16

void proctree_signal(pid_t root, int sig)
{
    if (root <= 0)
        return;
    pid_t *done = NULL;
    size_t n = 0, alloc = 0, moving = 0;
    for (int walk = 0; walk < (sig == SIGSTOP ? PROCTREE_STOP_WALKS : 1); walk++) {
        if (walk > 0 && moving > 0) {
            struct timespec ms = {0, 1000000L};
            nanosleep(&ms, NULL);
        }
        if (signal_pass(root, sig, &done, &n, &alloc, &moving) == 0 && moving == 0)
            break;
    }
    free(done);
}
