#include "run/phaselock.h"

#include "base/alloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

static int flock_op(enum sb_lock_mode m)
{
    return m == SB_LOCK_EXCLUSIVE ? LOCK_EX : LOCK_SH;
}

/* flock without waiting; EINTR retried. */
static bool try_flock(int fd, int op)
{
    int rc;
    while ((rc = flock(fd, op | LOCK_NB)) != 0 && errno == EINTR)
        ;
    return rc == 0;
}

static void unlock(int fd)
{
    if (fd >= 0)
        while (flock(fd, LOCK_UN) != 0 && errno == EINTR)
            ;
}

/* Read-only is enough for flock(2), so that another user's grader can use a file this one
 * made; never through a link someone put in the coordinator's folder. */
int phaselock_open_file(const char *path, struct error *err)
{
    int fd = open(path, O_RDONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    struct stat st;
    if (fd < 0)
        error_set(err, "cannot open the timing lock %s: %s", path, strerror(errno));
    else if (fstat(fd, &st) == 0 && st.st_uid == geteuid() && (st.st_mode & 0444) != 0444)
        fchmod(fd, 0644); /* made under a strict umask: others must open it too */
    return fd;
}

bool phaselock_holder_parse(const char *line, struct phaselock_holder *out)
{
    char kind[16], mode[16];
    unsigned maj, min;
    unsigned long ino;
    if (strstr(line, "->") ||
        sscanf(line, "%*d: %15s %*s %15s %ld %x:%x:%lu", kind, mode, &out->pid, &maj, &min, &ino) !=
            6 ||
        strcmp(kind, "FLOCK"))
        return false;
    out->dev = makedev(maj, min);
    out->ino = (ino_t)ino;
    out->exclusive = !strcmp(mode, "WRITE");
    return true;
}

int phaselock_open(struct phaselock *pl, const struct sb_lock *locks, size_t n, struct error *err)
{
    memset(pl, 0, sizeof(*pl));
    pl->fd = xcalloc(n + 1, sizeof(int));
    pl->turn = xcalloc(n + 1, sizeof(int));
    pl->turn_held = xcalloc(n + 1, sizeof(bool));
    pl->held = xcalloc(n + 1, sizeof(int));
    for (size_t i = 0; i < n; i++)
        pl->fd[i] = pl->turn[i] = -1;
    pl->spec = locks;
    pl->n = n;
    for (size_t i = 0; i < n; i++) {
        char *turn = xstrfmt("%s.turn", locks[i].path);
        pl->fd[i] = phaselock_open_file(locks[i].path, err);
        if (pl->fd[i] >= 0)
            pl->turn[i] = phaselock_open_file(turn, err);
        free(turn);
        if (pl->turn[i] < 0) {
            phaselock_release(pl);
            return -1;
        }
    }
    return 0;
}

static void let_go(struct phaselock *pl)
{
    for (size_t i = 0; i < pl->n; i++) {
        if (pl->held[i] != SB_LOCK_NONE)
            unlock(pl->fd[i]);
        pl->held[i] = SB_LOCK_NONE;
    }
}

static void drop_turnstiles(struct phaselock *pl)
{
    for (size_t i = 0; i < pl->n; i++)
        if (pl->turn_held[i]) {
            unlock(pl->turn[i]);
            pl->turn_held[i] = false;
        }
}

static enum sb_lock_mode wanted(const struct phaselock *pl, size_t i, bool timed)
{
    return timed ? pl->spec[i].timed : pl->spec[i].idle;
}

/* Lets go of every lock held in another mode than the one wanted, and before a timed turn of
 * every preemptible one: a run waiting for its turn keeps only a GPU's lock, shared. */
static void let_go_others(struct phaselock *pl, bool timed)
{
    for (size_t i = 0; i < pl->n; i++)
        if (pl->held[i] != SB_LOCK_NONE &&
            (pl->held[i] != (int)wanted(pl, i, timed) || (timed && pl->spec[i].preemptible))) {
            unlock(pl->fd[i]);
            pl->held[i] = SB_LOCK_NONE;
        }
}

/* Every lock in its wanted mode (the spec's idle or timed), or none of those this attempt took.
 * A lock whose wanted mode is exclusive keeps its turnstile across failed attempts (writers
 * first); the others pass through theirs. */
static bool try_all(struct phaselock *pl, bool timed)
{
    bool *took = xcalloc(pl->n + 1, sizeof(bool));
    for (size_t i = 0; i < pl->n; i++) {
        enum sb_lock_mode m = wanted(pl, i, timed);
        if (m == SB_LOCK_NONE || pl->held[i] == (int)m)
            continue;
        if (!pl->turn_held[i] && !try_flock(pl->turn[i], LOCK_EX))
            goto fail;
        pl->turn_held[i] = true;
        if (!try_flock(pl->fd[i], flock_op(m)))
            goto fail;
        pl->held[i] = (int)m;
        took[i] = true;
        if (m != SB_LOCK_EXCLUSIVE) {
            unlock(pl->turn[i]);
            pl->turn_held[i] = false;
        }
    }
    drop_turnstiles(pl);
    free(took);
    return true;
fail:
    for (size_t i = 0; i < pl->n; i++) {
        if (took[i]) {
            unlock(pl->fd[i]);
            pl->held[i] = SB_LOCK_NONE;
        }
        if (pl->turn_held[i] && wanted(pl, i, timed) != SB_LOCK_EXCLUSIVE) {
            unlock(pl->turn[i]);
            pl->turn_held[i] = false;
        }
    }
    free(took);
    return false;
}

static bool holds(const struct phaselock *pl, bool timed)
{
    for (size_t i = 0; i < pl->n; i++)
        if (pl->held[i] != (int)(timed ? pl->spec[i].timed : pl->spec[i].idle))
            return false;
    return true;
}

void phaselock_drop(struct phaselock *pl)
{
    pl->timed = false;
    let_go(pl);
    drop_turnstiles(pl);
}

bool phaselock_try_timed(struct phaselock *pl)
{
    if (!holds(pl, true)) {
        let_go_others(pl, true);
        if (!try_all(pl, true))
            return false;
    }
    pl->timed = true;
    return true;
}

bool phaselock_is_timed(const struct phaselock *pl)
{
    return pl->timed;
}

bool phaselock_try_idle(struct phaselock *pl)
{
    pl->timed = false;
    if (holds(pl, false))
        return true;
    let_go_others(pl, false);
    return try_all(pl, false);
}

void phaselock_back_to_idle(struct phaselock *pl)
{
    pl->timed = false;
    drop_turnstiles(pl);
    for (size_t i = 0; i < pl->n; i++) {
        enum sb_lock_mode m = pl->spec[i].idle;
        if (pl->held[i] == (int)m)
            continue;
        if (m == SB_LOCK_NONE || pl->held[i] == SB_LOCK_NONE) {
            /* Nothing to keep, or nothing held to turn into it (not after a grant). */
            unlock(pl->fd[i]);
            pl->held[i] = SB_LOCK_NONE;
            continue;
        }
        /* Exclusive to shared: nobody else holds the lock, so the conversion does not wait;
         * should a poller slip in between (flock converts by unlocking first), the run goes on
         * without it rather than keep its supervisor from watching it. */
        pl->held[i] = try_flock(pl->fd[i], flock_op(m)) ? (int)m : SB_LOCK_NONE;
    }
}

bool phaselock_contested(const struct phaselock *pl)
{
    if (pl->timed)
        return false; /* a series is never preempted */
    for (size_t i = 0; i < pl->n; i++) {
        if (!pl->spec[i].preemptible || pl->held[i] != SB_LOCK_SHARED || pl->turn_held[i])
            continue;
        /* A turnstile is held for a moment by every run entering, and for its whole wait by a
         * run waiting to hold the lock exclusively. */
        if (!try_flock(pl->turn[i], LOCK_EX))
            return true;
        unlock(pl->turn[i]);
    }
    return false;
}

void phaselock_yield(struct phaselock *pl)
{
    pl->timed = false;
    for (size_t i = 0; i < pl->n; i++)
        if (pl->spec[i].preemptible && pl->held[i] != SB_LOCK_NONE) {
            unlock(pl->fd[i]);
            pl->held[i] = SB_LOCK_NONE;
        }
}

void phaselock_release(struct phaselock *pl)
{
    if (pl->fd) {
        let_go(pl);
        drop_turnstiles(pl);
        for (size_t i = 0; i < pl->n; i++) {
            if (pl->fd[i] >= 0)
                close(pl->fd[i]);
            if (pl->turn[i] >= 0)
                close(pl->turn[i]);
        }
    }
    free(pl->fd);
    free(pl->turn);
    free(pl->turn_held);
    free(pl->held);
    pl->fd = pl->turn = pl->held = NULL;
    pl->turn_held = NULL;
    pl->n = 0;
}
