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
 * Untimed work never holds a series up: a run holding a preemptible lock (a core's, run/turns.h)
 * shared in its idle mode gives it up as soon as another run waits for it exclusively
 * (phaselock_contested, phaselock_yield: the supervisor freezes the run meanwhile) and takes it
 * back through the turnstile once the series is over. A GPU's lock is not given up: work already
 * sent to the GPU would run on beside the series.
 *
 * No deadlock: a run that asks for its timed modes first lets go of every lock it holds in
 * another mode and of every preemptible one (its process is waiting for the grant, doing
 * nothing); waiting runs hold besides only turnstiles, of the locks they want exclusively, taken
 * in the locks' order (a GPU's, then the cores' in ascending order) and kept across attempts;
 * every attempt takes all of its locks or none. A run that keeps a lock while it waits keeps
 * only its GPU's shared, which only runs on that GPU wait for, and they never wait for a core
 * held by a frozen run, which has given its cores up.
 * Nothing here blocks: the supervisor polls phaselock_try_timed and phaselock_try_idle between
 * its other duties (run/grants.c), and before the run starts.
 *
 * struct phaselock owns its arrays and file descriptors; phaselock_release frees them.
 */
#ifndef LG_PHASELOCK_H
#define LG_PHASELOCK_H

#include "base/error.h"
#include "run/sandbox.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct phaselock {
    const struct sb_lock *spec;
    size_t n;
    int *fd, *turn;
    bool *turn_held;
    int *held; /* enum sb_lock_mode each lock is held in now */
    /* In the timed modes, by phaselock_try_timed: kept apart from the modes held, which are
     * the idle ones too where a lock's two modes are the same (untimed work's shared cores). */
    bool timed;
};

/* One lock file (or turnstile) opened, created readable by every user whatever the umask, never
 * through a link; -1 with err set. */
int phaselock_open_file(const char *path, struct error *err);

/* A flock(2) held on a file, as a line of /proc/locks shows it. */
struct phaselock_holder {
    long pid;
    dev_t dev;
    ino_t ino;
    bool exclusive;
};
/* Whether a line of /proc/locks is a flock held (a waiter's "->" line is not), into *out. */
bool phaselock_holder_parse(const char *line, struct phaselock_holder *out);
/* Opens (creating) the lock files and their turnstiles; holds nothing yet. */
int phaselock_open(struct phaselock *pl, const struct sb_lock *locks, size_t n, struct error *err);
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
/* Whether another run waits to hold exclusively a preemptible lock this one holds in its idle
 * mode (it holds that lock's turnstile). */
bool phaselock_contested(const struct phaselock *pl);
/* Lets go of the preemptible locks; phaselock_try_idle takes them back. */
void phaselock_yield(struct phaselock *pl);
/* Lets go of every lock and turnstile held; the files stay open. */
void phaselock_drop(struct phaselock *pl);
/* Lets go of everything and closes the files. */
void phaselock_release(struct phaselock *pl);

#endif
