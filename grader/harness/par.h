/*
 * par: the harness's own passes over large host buffers (drawing inputs, digesting them,
 * comparing outputs), split across the CPUs this process may use. They run between timed
 * calls, inside a timed case's turn on the machine (docs/timing.md, "Timing locks"): a single
 * core reading 160 MB per pair of a 5M-element case cost more than the calls it checked.
 * Threads live for one loop only, so nothing of the harness runs beside the student's code.
 */
#ifndef LG_HARNESS_PAR_H
#define LG_HARNESS_PAR_H

#include <stddef.h>

/* At most this many parts in one loop: callers keep a result per part on the stack. */
#define LG_PAR_MAX_PARTS 64

/* Part k of n_parts over [0, count): [lo, hi). The split depends on count and n_parts alone,
 * never on how many threads ran it, so a per-part result (a digest) is the same each time. */
typedef void lg_par_fn(void *ctx, size_t lo, size_t hi, size_t part);

/* How many parts count elements make with at least min_per_part in each (1 .. LG_PAR_MAX_PARTS). */
size_t lg_par_parts(size_t count, size_t min_per_part);
/* fn once for each of n_parts parts (n_parts <= LG_PAR_MAX_PARTS), on up to as many threads as
 * the process has CPUs; a thread that cannot start (a process limit) leaves its parts to the
 * caller's thread. Returns when every part is done. */
void lg_par_for(size_t count, size_t n_parts, lg_par_fn *fn, void *ctx);

#endif
