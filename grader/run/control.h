/*
 * control: the supervisor's end of a run's control pipe (sandbox.h's `control`).
 *
 * The harness writes one short line per case and timed series boundary (grader/harness/
 * result.h); the supervisor reads them as they come, stamps each with its own clock (which the
 * student's code cannot slow down) twice: when it read the line (written no later) and when it
 * last found the pipe empty before (written no earlier), and moves the run's deadline to the
 * current case's own limit, so that a case that hangs costs its own limit and the cases before it
 * keep theirs. "W <i>" asks for the timing locks' timed modes, "R <i>" gives them back
 * (phaselock.h; the supervisor serves both and answers on the grant pipe). Lines are kept whole up
 * to 63 bytes, at most SB_CONTROL_MAX_EVENTS of them: a flood from the student's code costs it only
 * its own record. struct sb_control owns its events until sb_control_finish hands them to the
 * result.
 */
#ifndef LG_CONTROL_H
#define LG_CONTROL_H

#include "run/sandbox.h"

#include <stdbool.h>
#include <stddef.h>

#define SB_CONTROL_MAX_EVENTS 20000
/* The fd the child's end goes to when the run has no bubblewrap status pipe (3 otherwise 4);
 * the harness finds it in LG_CONTROL_FD. */
#define SB_CONTROL_ENV "LG_CONTROL_FD"
/* The grant pipe's read end, the next fd after the control pipe's: one byte on it answers each
 * "W <i>" (grants.c). */
#define SB_GRANT_ENV "LG_GRANT_FD"

struct sb_control {
    int fd; /* the read end, -1 when the run has no control pipe */
    char line[256];
    size_t len;
    bool overlong; /* dropping the rest of a line too long to keep */
    struct sandbox_event *events;
    size_t n, alloc;
    const double *limits;
    size_t n_limits;
    int current; /* the case running, by its last "B <i>"; -1 before */
    double case_deadline;
    double start;
    double drained; /* when a read last emptied the pipe (since start) */
    /* The timing locks (sandbox.h's `locks`): a "W <i>" or "R <i>" of the current case not yet
     * served; whether the run may time now (from its grant to its "R"); and a series that began
     * or ended ("S", "E") outside that: a grant forged or reused, or a forged "R" mid-series,
     * never the harness's own order. */
    bool want_timed, want_idle, timed, unlocked_series;
    /* A series of the current case began ("S") or ended ("E") while the run held its timed
     * modes, not yet served (grants.c watches what ran beside it and answers each end); its
     * name. */
    bool series_began, series_ended;
    char series[16];
};

void sb_control_init(struct sb_control *c, int fd, const struct sandbox_opts *o, double start);
/* Read what is there without blocking; false at end of file or error (stop polling it). */
bool sb_control_read(struct sb_control *c);
/* The pipe was found empty by a wait that began at `since` (now_seconds()): every line read
 * later was written after it. */
void sb_control_idle(struct sb_control *c, double since);
/* The earlier of the run's own deadline (0: none) and the current case's. */
double sb_control_deadline(const struct sb_control *c, double run_deadline);
/* Whether the deadline that passed was the current case's own. */
bool sb_control_case_expired(const struct sb_control *c, double now);
/* The run waited wait_s for its timed locks, frozen: the current case's limit moves on by as
 * much; the run holds them from now. */
void sb_control_granted(struct sb_control *c, double wait_s);
/* The run was frozen pause_s for others' series: the current case's limit moves on by as much. */
void sb_control_pause(struct sb_control *c, double pause_s);
/* Hand the events over to r (and which case's limit ended it, when one did); closes fd. */
void sb_control_finish(struct sb_control *c, struct sandbox_result *r, bool case_expired);

#endif
