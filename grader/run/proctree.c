/*
 * proctree: a run's process tree as /proc shows it now (run/sandbox_internal.h). It allocates:
 * for the supervisor's loop, never for a signal handler (procscan.c is for those).
 */
#include "run/sandbox_internal.h"

#include "base/alloc.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

static void collect(const struct proc_info *pi, void *ctx)
{
    struct proctree *t = ctx;
    if (t->n == t->alloc) {
        t->alloc = t->alloc ? 2 * t->alloc : 256;
        t->pid = xrealloc(t->pid, t->alloc * sizeof(pid_t));
        t->ppid = xrealloc(t->ppid, t->alloc * sizeof(pid_t));
    }
    t->pid[t->n] = pi->pid;
    t->ppid[t->n] = pi->ppid;
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
    memset(t, 0, sizeof(*t));
}

void proctree_signal(pid_t root, int sig)
{
    struct proctree t;
    if (root <= 0)
        return;
    proctree_load(&t);
    for (size_t i = 0; i < t.n; i++)
        if (proctree_has(&t, root, t.pid[i]))
            kill(t.pid[i], sig);
    proctree_free(&t);
}
