/*
 * grants: the supervisor's side of the timing locks (sandbox.h's `locks`, phaselock.h). The
 * run holds its idle modes from before it starts; a "W <i>" on the control pipe freezes it
 * (its cgroup, where one is delegated), waits for the timed modes without blocking the
 * supervisor, moves the case's limit on by the wait and answers with one byte on the grant
 * pipe; an "R <i>" turns the locks back to their idle modes.
 */
#include "run/sandbox_internal.h"

#include "base/alloc.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

void grants_init(struct grants *g)
{
    memset(g, 0, sizeof(*g));
    g->pipe[0] = g->pipe[1] = -1;
    g->target = -1;
    for (size_t i = 0; i < SB_MAX_LOCKS; i++)
        g->locks.fd[i] = g->locks.turn[i] = -1;
}

int grants_open(struct grants *g, const struct sandbox_opts *o, int target, struct error *err)
{
    if (!o->control)
        return 0;
    if (phaselock_open(&g->locks, o->locks, o->n_locks, err) != 0)
        return -1;
    /* A socket pair, not a pipe: a run that ended before its grant must cost the supervisor an
     * EPIPE, never a SIGPIPE (send's MSG_NOSIGNAL). */
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, g->pipe) != 0)
        return error_set(err, "socketpair: %s", strerror(errno));
    g->target = target;
    /* Before the run starts: its start-up is untimed work like any other. */
    phaselock_idle_wait(&g->locks);
    return 0;
}

/* Freeze or thaw the run's cgroup (cgroup v2's cgroup.freeze); without one, the run's own
 * harness is waiting on the grant pipe anyway, and only a thread of the student's could go on. */
static void freeze(const char *cgroup_dir, bool on)
{
    if (!cgroup_dir)
        return;
    char *path = xstrfmt("%s/cgroup.freeze", cgroup_dir);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t w;
        while ((w = write(fd, on ? "1" : "0", 1)) < 0 && errno == EINTR)
            ;
        close(fd);
    }
    free(path);
}

static void grant(struct grants *g)
{
    ssize_t w;
    while ((w = send(g->pipe[1], "g", 1, MSG_NOSIGNAL)) < 0 && errno == EINTR)
        ;
}

/* One attempt at the modes wanted; the run frozen from the first that fails until one succeeds
 * (a free lock, the usual case, freezes nothing). true once they are held. */
static bool wait_for(struct grants *g, bool timed, const char *cgroup_dir, double now)
{
    bool got = timed ? phaselock_try_timed(&g->locks) : phaselock_try_idle(&g->locks);
    if (!got && !g->waiting) {
        g->waiting = true;
        g->wait_since = now;
        freeze(cgroup_dir, true);
    }
    if (got && g->waiting) {
        g->waiting = false;
        g->waited_s += now_seconds() - g->wait_since;
        freeze(cgroup_dir, false);
    }
    return got;
}

int grants_serve(struct grants *g, struct sb_control *c, const char *cgroup_dir, double now)
{
    if (g->pipe[1] < 0)
        return -1;
    if (c->want_idle) {
        /* Straight back from the timed modes; after a request that never got its grant (not
         * the harness's order of lines), the idle modes may have to be waited for. */
        if (phaselock_is_timed(&g->locks))
            phaselock_back_to_idle(&g->locks);
        if (!wait_for(g, false, cgroup_dir, now))
            return SB_GRANT_POLL_MS;
        c->want_idle = false;
    }
    if (!c->want_timed)
        return -1;
    double before = g->waiting ? g->wait_since : now;
    if (!wait_for(g, true, cgroup_dir, now))
        return SB_GRANT_POLL_MS;
    sb_control_granted(c, now_seconds() - before);
    grant(g);
    return -1;
}

double grants_paused(const struct grants *g, double now)
{
    return g->waited_s + (g->waiting ? now - g->wait_since : 0);
}

void grants_close(struct grants *g)
{
    phaselock_release(&g->locks);
    sb_close_fd(&g->pipe[0]);
    sb_close_fd(&g->pipe[1]);
}
