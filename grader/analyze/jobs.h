/*
 * jobs: run trusted commands (the grader itself, grading a mutant) several at a time, each
 * with its stdout and stderr into a log file, and call back as each one ends. The commands
 * are the grader's own: the untrusted code they build and run is sandboxed by them.
 *
 * An interrupted run (SIGINT, SIGTERM) stops starting jobs, sends SIGTERM to the running
 * ones (each grader then stops its own children) and returns -1 once they have ended.
 * The caller owns the jobs' strings.
 */
#ifndef LG_JOBS_H
#define LG_JOBS_H

#include "base/error.h"

#include <stdbool.h>
#include <stddef.h>

struct job {
    char **argv;     /* NULL-terminated; argv[0] an absolute path */
    const char *log; /* stdout and stderr */
    int status;      /* exit status, or 128 + signal; -1 when it could not start */
    void *data;      /* the caller's */
};

typedef void (*job_done_fn)(struct job *j, void *arg);

/* Run every job, at most `parallel` at once; done (may be NULL) after each. -1 with err set
 * when interrupted. */
int jobs_run(struct job *jobs, size_t n, int parallel, job_done_fn done, void *arg,
             struct error *err);

#endif
