/* work: the grading process's own work in the timing coordinator (work.h). */
#include "run/work.h"

#include "run/phaselock.h"

#include "base/util.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* How often a section waiting for its cores looks again: soon at first, then seldom, since
 * every look tries each of the lane's cores' locks on the cores of the series it waits for
 * (sandbox_internal.h's SB_GRANT_POLL_MS says what that cost on an H200). */
#define WORK_POLL_MS 5
#define WORK_EAGER_S 0.05
#define WORK_IDLE_POLL_MS 10
/* A section that waits says so as a run that waits does (sandbox_opts.on_wait): after 2 s, then
 * every 30 s. */
#define WORK_NOTICE_FIRST_S 2.0
#define WORK_NOTICE_EVERY_S 30.0

static struct {
    bool open;
    pid_t pid; /* the process that opened the locks: a forked child opens its own */
    struct turns_locks locks;
    struct phaselock pl;
    const struct turns *t; /* its wait bound, read when a section waits */
    int depth, paused;
    bool held;
} w;

static void open_for(const struct turns *t);

/*
 * The locks a forked child inherited are its parent's open files: letting go of them would let
 * go of the parent's hold, so the child only closes them, and opens locks of its own on the
 * same lane. A child that grades (variants side by side, grade/fanout.h) compares outputs and
 * hashes files as its parent does, in sections of its own; none is open in it yet.
 */
static bool mine(void)
{
    if (!w.open || w.pid == getpid())
        return w.open;
    const struct turns *t = w.t;
    for (size_t i = 0; i < w.pl.n; i++) {
        close(w.pl.fd[i]);
        close(w.pl.turn[i]);
        w.pl.fd[i] = w.pl.turn[i] = -1;
    }
    phaselock_release(&w.pl);
    turns_locks_release(&w.locks);
    memset(&w, 0, sizeof(w));
    open_for(t);
    return w.open;
}

/* A section left open (an error path) lets go now. */
static void close_all(void)
{
    if (!mine())
        return;
    phaselock_release(&w.pl);
    turns_locks_release(&w.locks);
    memset(&w, 0, sizeof(w));
}

void work_teardown(const struct turns *t)
{
    if (w.t == t)
        close_all();
}

static void open_for(const struct turns *t)
{
    if (!t || !t->dir)
        return;
    turns_locks_make(t, TURNS_UNTIMED, false, &w.locks);
    if (w.locks.n == 0 || phaselock_open(&w.pl, w.locks.locks, w.locks.n, NULL) != 0) {
        turns_locks_release(&w.locks);
        return;
    }
    w.open = true;
    w.pid = getpid();
    w.t = t;
}

void work_setup(const struct turns *t)
{
    close_all();
    open_for(t);
}

/* Tells the process's watcher (turns.on_wait) how long a section has waited, and for whom. */
static void notice(double waited_s)
{
    if (!w.t || !w.t->on_wait)
        return;
    char *holders = turns_holders(w.locks.locks, w.locks.n);
    w.t->on_wait(w.t->on_wait_arg, waited_s, holders);
    free(holders);
}

/* The cores shared, through their turnstiles: after every series that waits for them or runs
 * on them, or past the wait bound without them. */
static void hold(void)
{
    double since = now_seconds(), bound = turns_wait_bound(w.t);
    double next_notice = WORK_NOTICE_FIRST_S;
    while (!(w.held = phaselock_try_idle(&w.pl))) {
        double waited = now_seconds() - since;
        /* Held past the wait (a process holding the machine for good): the work goes on, and
         * this process's later waits last a moment, as after a run's (turns_note_busy). */
        if (bound > 0 && waited > bound) {
            phaselock_drop(&w.pl);
            turns_note_busy();
            return;
        }
        if (waited >= next_notice) {
            notice(waited);
            next_notice = waited + WORK_NOTICE_EVERY_S;
        }
        struct timespec pause = {0, (waited < WORK_EAGER_S ? WORK_POLL_MS : WORK_IDLE_POLL_MS) *
                                        1000L * 1000L};
        nanosleep(&pause, NULL);
    }
}

static void let_go(void)
{
    if (w.held)
        phaselock_drop(&w.pl);
    w.held = false;
}

void work_begin(void)
{
    if (!mine())
        return;
    if (w.depth++ == 0 && w.paused == 0)
        hold();
}

void work_end(void)
{
    if (!mine() || w.depth == 0)
        return;
    if (--w.depth == 0)
        let_go();
}

void work_checkpoint(void)
{
    if (!mine() || !w.held || !phaselock_contested(&w.pl))
        return;
    let_go();
    hold();
}

/* Counted outside sections too: a section begun while the process waits for a run, or holds
 * its cores by other means, must not wait for a series that waits for this process. */
void work_pause(void)
{
    if (!mine())
        return;
    if (w.paused++ == 0)
        let_go();
}

void work_resume(void)
{
    if (!mine() || w.paused == 0)
        return;
    if (--w.paused == 0 && w.depth > 0)
        hold();
}

bool work_held(void)
{
    return mine() && w.held;
}
