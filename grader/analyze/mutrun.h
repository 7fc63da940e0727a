/*
 * mutrun: grading for the mutation testing, through the grader's command line: the solution
 * first (it must pass: it also builds the references and tells whether there is a GPU), then
 * every mutant, one `grader check` per exercise it reaches, several at a time (jobs.h).
 *
 * The runs write under <out>/<lab>/mutate/runs/, whose .cache keeps the references and
 * expected outputs from one mutation run to the next; each mutant's folder, log and results
 * are removed once read, unless opts.keep.
 */
#ifndef LG_MUTRUN_H
#define LG_MUTRUN_H

#include "analyze/mutresult.h"

struct mutrun {
    const struct lab *lab;
    const struct mutate_opts *o;
    struct mutate_result *r;
    char *grader;   /* absolute path of the grader run */
    char *lab_yaml; /* absolute */
    char *solution; /* absolute solution folder */
    /* The folder the solution is graded from (mutrun_baseline sets it): solution/, or with
     * --cpu-only a copy without the GPU variants' own sources, so nvcc builds nothing. */
    char *baseline;
    char *runs;      /* <out>/<lab>/mutate/runs, absolute */
    char *work;      /* runs/.work/mutants: the mutants' folders and logs */
    double *timeout; /* per exercise: the limit passed to every run, 0: the spec's */
};

/* Paths set up; -1 with err set when something is missing. */
int mutrun_init(struct mutrun *m, const struct lab *lab, const struct mutate_opts *o,
                struct mutate_result *r, struct error *err);
void mutrun_release(struct mutrun *m);

/* Grade the solution: sets r->gpu (and gpu_note) and the time limits. -1 with err set when
 * the grader failed or the solution fails a case of a variant that would be mutated. */
int mutrun_baseline(struct mutrun *m, struct error *err);

/* Grade every record of r still MUT_NOT_RUN and set its status. */
int mutrun_mutants(struct mutrun *m, struct error *err);

/* The argument vector of one `grader check` run (caller frees with mutrun_argv_free). lab_yaml
 * and cases (comma-separated ids) may be NULL: the lab's own, every case. */
char **mutrun_argv(const struct mutrun *m, const char *lab_yaml, const char *submission,
                   const char *exercise, const char *student, const char *cases);
void mutrun_argv_free(char **argv);

/* The results a run with that student id wrote (under runs/). */
char *mutrun_results_path(const struct mutrun *m, const char *student);

/* The folder a mutant (or the solution, rec NULL) is graded from: the solution's files, the
 * record's file mutated, and the sources of variants it does not reach left out (their
 * variants then fail fast, and are not counted). The solution reaches every variant, or with
 * --cpu-only every CPU variant. Caller frees. */
char *mutrun_mutant_dir(const struct mutrun *m, const struct mut_record *rec, size_t index,
                        struct error *err);

#endif
