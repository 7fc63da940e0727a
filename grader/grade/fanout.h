/*
 * fanout: independent tasks of one grading side by side, each in a child process of its own,
 * at most `jobs` at a time, their results taken back by the parent in the tasks' order.
 *
 * A child runs work(arg, i, out) and ends; what it has to say goes into the file at out (the
 * caller's format). The parent calls collect(arg, i, out) for tasks 0, 1, 2, ... as each one
 * and those before it are done, so whatever collect prints comes out in order, and removes
 * out afterwards. A task whose work returned -1 sends its error back; one that died (a signal,
 * an exit without a word) is named. Either is a grader failure: no task is started after it,
 * those running are stopped, and fanout_run returns -1 with err set.
 *
 * Children end with the parent (PR_SET_PDEATHSIG) and never return into the caller: they
 * leave through _exit, so nothing of the parent (stdio buffers, atexit, its folders) is
 * flushed or removed twice. Nothing is shared after the fork: a child's memory is its own.
 */
#ifndef LG_FANOUT_H
#define LG_FANOUT_H

#include "base/error.h"

#include <stddef.h>

typedef int (*fanout_work_fn)(void *arg, size_t i, const char *out, struct error *err);
typedef int (*fanout_collect_fn)(void *arg, size_t i, const char *out, struct error *err);
typedef const char *(*fanout_name_fn)(void *arg, size_t i);

struct fanout {
    size_t n;
    int jobs;        /* at most this many children at once; below 2: one at a time */
    const char *dir; /* an existing folder for the tasks' files */
    fanout_work_fn work;
    fanout_collect_fn collect;
    fanout_name_fn name; /* a task's name for messages ("matmul/gpu") */
    void *arg;
};

int fanout_run(const struct fanout *f, struct error *err);

#endif
