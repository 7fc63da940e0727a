/*
 * work: the grading process's own work in the machine's timing coordinator (turns.h;
 * docs/coordinator.md, "The grader's own work").
 *
 * A grader does work of its own besides the runs it supervises: unpacking a submission,
 * comparing a run's outputs with the expected ones, writing results and reports. No supervisor
 * freezes it, and on a machine where several graders work at once (a deadline's autogrades,
 * students' checks) it ran beside other graders' CPU series, which then shared their cores and
 * were measured again or not timed at all. So such work is done inside a section: the
 * process holds its lane's cores shared while it computes, as a run's untimed work does, and
 * waits (through each core's turnstile) while a series waits for them or runs on them. At its
 * checkpoints, a section that another grader now waits for gives the cores up and waits for the
 * series to end. A GPU series, which leaves the cores shared, goes on beside it.
 *
 * Sections are opt-in, around pure computation: nothing inside one may wait for a lock or a run
 * (work_pause/work_resume around such a wait, which sandbox_run, turns_hold_cores and
 * cache_lock do for themselves), or it would wait for a series that waits for it. Sections nest.
 * The state is the process's own; without a coordinator (work_setup never called, or its folder
 * unusable) every call does nothing.
 */
#ifndef LG_WORK_H
#define LG_WORK_H

#include "run/turns.h"

#include <stdbool.h>

/* Opens the lane's core locks of t (held by nothing yet), t kept for its wait bound: called by
 * turns_place and turns_place_all, so again whenever the process moves lanes. */
void work_setup(const struct turns *t);
/* Closes them where they are t's, letting go of a section still open (turns_release). */
void work_teardown(const struct turns *t);

/* A section begins: the cores held shared, after any series waiting for them or running on
 * them (at most the coordinator's wait bound: then the work goes on without them). */
void work_begin(void);
/* The section ends: held no more once the outermost ends. */
void work_end(void);
/* Inside a section: the cores given up while another grader waits to time on them, taken back
 * once its series is over. Cheap when nobody waits (a non-blocking look at each turnstile). */
void work_checkpoint(void);

/* Around a wait (a run supervised, a lock) or a hold of the cores by other means
 * (turns_hold_cores): a section's cores let go, and held again after, as work_begin holds
 * them. Counted outside sections too: a section begun meanwhile holds nothing, since it would
 * wait for a series that waits for this very process. Pairs nest. */
void work_pause(void);
void work_resume(void);

/* Whether this process holds its lane's cores for a section now (tests, traces). */
bool work_held(void);

#endif
