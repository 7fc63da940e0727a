#include "run/phaselock.h"

#include "base/alloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
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

static int open_lock(const char *path, struct error *err)
{
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        error_set(err, "cannot open the timing lock %s: %s", path, strerror(errno));
    return fd;
}

int phaselock_open(struct phaselock *pl, const struct sb_lock *locks, size_t n, struct error *err)
{
    memset(pl, 0, sizeof(*pl));
    for (size_t i = 0; i < SB_MAX_LOCKS; i++)
        pl->fd[i] = pl->turn[i] = -1;
    if (n > SB_MAX_LOCKS)
        return error_set(err, "%zu timing locks asked for, at most %d", n, SB_MAX_LOCKS);
    pl->spec = locks;
    pl->n = n;
    for (size_t i = 0; i < n; i++) {
        char *turn = xstrfmt("%s.turn", locks[i].path);
        pl->fd[i] = open_lock(locks[i].path, err);
        if (pl->fd[i] >= 0)
            pl->turn[i] = open_lock(turn, err);
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

/* Lets go of every lock held in another mode than the one wanted: a lock already held as
 * wanted is kept (a GPU run keeps the CPU lock shared while it waits for its GPU). */
static void let_go_others(struct phaselock *pl, bool timed)
{
    for (size_t i = 0; i < pl->n; i++)
        if (pl->held[i] != SB_LOCK_NONE && pl->held[i] != (int)wanted(pl, i, timed)) {
            unlock(pl->fd[i]);
            pl->held[i] = SB_LOCK_NONE;
        }
}

/* Every lock in its wanted mode (the spec's idle or timed), or none of those this attempt took.
 * A lock whose wanted mode is exclusive keeps its turnstile across failed attempts (writers
 * first); the others pass through theirs. */
static bool try_all(struct phaselock *pl, bool timed)
{
    bool took[SB_MAX_LOCKS] = {false};
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
    return false;
}

static bool holds(const struct phaselock *pl, bool timed)
{
    for (size_t i = 0; i < pl->n; i++)
        if (pl->held[i] != (int)(timed ? pl->spec[i].timed : pl->spec[i].idle))
            return false;
    return true;
}

void phaselock_idle_wait(struct phaselock *pl)
{
    struct timespec pause = {0, 2 * 1000 * 1000};
    let_go(pl);
    while (!try_all(pl, false))
        nanosleep(&pause, NULL);
}

bool phaselock_try_timed(struct phaselock *pl)
{
    if (holds(pl, true))
        return true;
    let_go_others(pl, true);
    return try_all(pl, true);
}

bool phaselock_is_timed(const struct phaselock *pl)
{
    return holds(pl, true);
}

bool phaselock_try_idle(struct phaselock *pl)
{
    if (holds(pl, false))
        return true;
    let_go_others(pl, false);
    return try_all(pl, false);
}

void phaselock_back_to_idle(struct phaselock *pl)
{
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

void phaselock_release(struct phaselock *pl)
{
    let_go(pl);
    drop_turnstiles(pl);
    for (size_t i = 0; i < SB_MAX_LOCKS; i++) {
        if (pl->fd[i] >= 0)
            close(pl->fd[i]);
        if (pl->turn[i] >= 0)
            close(pl->turn[i]);
        pl->fd[i] = pl->turn[i] = -1;
    }
    pl->n = 0;
}

int phaselock_hold_shared(const char *path)
{
    char *turn_path = xstrfmt("%s.turn", path);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    int turn = open(turn_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    free(turn_path);
    if (turn >= 0)
        while (flock(turn, LOCK_EX) != 0 && errno == EINTR)
            ;
    if (fd >= 0)
        while (flock(fd, LOCK_SH) != 0 && errno == EINTR)
            ;
    if (turn >= 0)
        close(turn);
    return fd;
}
