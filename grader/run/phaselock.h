/*
 * phaselock: the timing locks one run holds, phase by phase (sandbox.h's `locks`).
 *
 * Workers of a batch share the machine (and a GPU where there are more workers than GPUs).
 * A timed series must not share them with anybody's work, but the rest of a run (starting,
 * allocating, the checked calls, freeing) may overlap with the rest of other runs. So each
 * lock is held in two modes: the run's `idle` mode while it is not timing (shared: other runs'
 * untimed work goes on beside it), and its `timed` mode from the harness's request until the
 * case's series are over (exclusive: it waits for every other holder to leave, and nobody
 * enters meanwhile). Locks are flock(2) on files, so they hold across the workers' processes
 * and end with the process that held them.
 *
 * Writers first: every lock has a turnstile (its path + ".turn"). A run waiting for an
 * exclusive mode holds the turnstile, and a run entering any mode passes through it, so a
 * stream of shared holders cannot starve a waiting timed series.
 *
 * No deadlock: a run that asks for its timed modes first lets go of every lock it holds in
 * another mode (its process is waiting for the grant, doing nothing), keeping only those it
 * holds as wanted already (a GPU run's shared CPU lock); waiting runs hold besides only
 * turnstiles, of the locks they want exclusively; every attempt takes all of its locks or
 * none. A run that keeps a shared lock while it waits waits only for holders of another lock
 * (its GPU's), which never wait for the one it keeps.
 * Nothing here blocks: the supervisor polls phaselock_try_timed between its other duties, and
 * phaselock_idle_wait polls before the run starts.
 *
 * struct phaselock owns its file descriptors; phaselock_release closes them.
 */
#ifndef LG_PHASELOCK_H
#define LG_PHASELOCK_H

#include "base/error.h"
#include "run/sandbox.h"

#include <stdbool.h>
#include <stddef.h>

struct phaselock {
    const struct sb_lock *spec;
    size_t n;
    int fd[SB_MAX_LOCKS], turn[SB_MAX_LOCKS];
    bool turn_held[SB_MAX_LOCKS];
    int held[SB_MAX_LOCKS]; /* enum sb_lock_mode each lock is held in now */
};

/* Opens (creating) the lock files and their turnstiles; holds nothing yet. */
int phaselock_open(struct phaselock *pl, const struct sb_lock *locks, size_t n, struct error *err);
/* Waits (polling every few milliseconds) until every lock is held in its idle mode. */
void phaselock_idle_wait(struct phaselock *pl);
/* One attempt at every lock's timed mode, without waiting; the first attempt lets go of the
 * locks held in another mode. true once all are held (turnstiles released); false: call again
 * later. */
bool phaselock_try_timed(struct phaselock *pl);
/* From the timed modes back to the idle ones: exclusive to shared never waits (nobody else
 * holds the lock); a lock whose idle mode is none is let go. */
void phaselock_back_to_idle(struct phaselock *pl);
/* Whether every lock is held in its timed mode. */
bool phaselock_is_timed(const struct phaselock *pl);
/* Like phaselock_try_timed, for the idle modes: true at once when they are what is held. */
bool phaselock_try_idle(struct phaselock *pl);
/* Lets go of everything and closes the files. */
void phaselock_release(struct phaselock *pl);

/* For work outside any run that must not overlap a timed series (batch.c's PDFs): the lock at
 * path held shared, through its turnstile, waiting as long as it takes. Returns the descriptor
 * (closing it lets go; the caller owns it), or -1 when the file cannot be opened. */
int phaselock_hold_shared(const char *path);

#endif
