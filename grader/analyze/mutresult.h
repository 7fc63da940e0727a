/*
 * mutresult: what a mutation run (mutate.h) is given and what it finds: the options, the
 * variants graded, and one record per mutant with its status, the case that killed it, its
 * diff, and the sizes that would have killed a survivor.
 *
 * struct mutate_result owns everything in it; mutate_result_release() frees it.
 */
#ifndef LG_MUTRESULT_H
#define LG_MUTRESULT_H

#include "analyze/mutant.h"
#include "base/error.h"
#include "grade/results.h"
#include "spec/spec.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum mut_status {
    MUT_KILLED,     /* some case failed */
    MUT_KILLED_CE,  /* did not compile: killed, trivially */
    MUT_SURVIVED,   /* every case passed */
    MUT_EQUIVALENT, /* documented as equivalent: cannot be killed */
    MUT_NOT_RUN,    /* every case was skipped */
    MUT_ERROR       /* the grader failed on it (XX, no results): not counted */
};
const char *mut_status_id(enum mut_status s); /* "killed", "ce", ... */

struct mutate_opts {
    const char *out;    /* reports folder (default "reports") */
    const char *grader; /* the grader program to run; NULL: this one */
    int jobs;           /* mutants graded at once; 0: one per CPU */
    const char *only;   /* one exercise, or NULL */
    double timeout_s;   /* > 0: every case's limit; 0: derived from the solution's */
    bool no_slow;       /* leave slow cases out */
    bool no_extra;      /* do not look for killing sizes */
    bool cpu_only;      /* mutate CPU variants only, even with a GPU */
    bool keep;          /* keep the mutants' folders and logs */
    FILE *progress;     /* a line per stage and a count as mutants finish, or NULL */
};

/* A variant the mutants are graded on. */
struct mut_target {
    size_t ex, var; /* indexes into the lab */
    size_t total, killed, ce, survived, equivalent;
};

/* A size that would have killed a surviving mutant. */
struct mut_extra {
    char *sizes; /* "n=1001" */
    enum verdict verdict;
};

struct mut_record {
    struct mutant m;
    size_t file;     /* index into files */
    size_t *targets; /* indexes into targets: the variants it reaches */
    size_t n_targets;
    enum mut_status status;
    char *kill_exercise, *kill_variant, *kill_case; /* the first failing case */
    enum verdict kill_verdict;
    char *diff;       /* "-" and "+" lines of the change, with their line numbers */
    char *note;       /* equivalent: the instructor's reason; error: what failed */
    bool extra_tried; /* extra sizes were run on it */
    struct mut_extra *extra;
    size_t n_extra;
};

struct mutate_result {
    char *lab_dir;
    char **files; /* the solution's files mutated (relative names) */
    char **texts; /* their contents */
    size_t n_files;
    struct mut_target *targets;
    size_t n_targets;
    struct mut_record *recs;
    size_t n_recs;
    bool gpu;       /* GPU variants were mutated and run */
    char *gpu_note; /* why not, when !gpu */
    size_t killed, ce, survived, equivalent, not_run, errors;
    char **extra_sizes; /* the extra sizes tried, per exercise: "exercise: n=1, n=1001, ..." */
    size_t n_extra_sizes;
    char **warnings; /* stale equivalence entries, unreadable files... */
    size_t n_warnings;
};

void mutate_opts_init(struct mutate_opts *o);
void mutate_result_init(struct mutate_result *r);
void mutate_result_release(struct mutate_result *r);
void mutate_warn(struct mutate_result *r, char *msg); /* takes msg */

/* Mutants that count in the ratio: killed (not CE) + survived. */
size_t mutate_counted(const struct mutate_result *r);

#endif
