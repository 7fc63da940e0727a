/*
 * grading: the stages of grading one submission, internal to grade/. grade.c reads as their
 * table of contents:
 *
 *   select     which exercises, variants and cases run (--only, --case, hidden, slow)
 *   build      every variant of the submission, in parallel, from the build cache when its
 *              sources did not change (build.c)
 *   references the references' builds, expected outputs and per-machine timings (references.c)
 *   run        one process per variant for all its cases, again after a crash, never after a
 *              hang (variant_run.c); in a student's check the variants side by side, each
 *              prepared here first and then run and judged in a process of its own (side.c
 *              over fanout.c)
 *   judge      each case: how its run ended, its outputs against the expected ones, what the
 *              harness saw during the timed pairs (judge.c)
 *   time       each passed case's timing: the paired ratios, the checks on the clocks and the
 *              physical limits (speed.c, limits.c)
 *   score      the speed points (score.c), and the compute-sanitizer pass (sanitize.c)
 *
 * struct grading is what one submission's stages share; it owns the work folder's paths and
 * the build contexts, borrows the env, the lab, the options and the results it fills.
 */
#ifndef LG_GRADING_H
#define LG_GRADING_H

#include "grade/grade.h"
#include "run/runner.h"

#include <stdbool.h>

/* A reference's own timing of one case on this machine (solo: no pairing), kept per env and
 * on disk per machine (references.c). */
struct ref_timing {
    char *key; /* "exercise/variant/case" */
    struct timing call, transfer;
    struct gpu_clock clock;
    double case_wall_s; /* the whole case (checks, warm-up, samples), by the supervisor */
    bool ok;
    char *message; /* why the reference failed, when !ok */
};

struct grading {
    struct grade_env *env;
    const struct lab *lab;
    const struct grade_opts *o;
    struct results *r;
    struct build_ctx ref_build, student_build;
    char ref_digest[65];
    char *ref_dir;
    char *work;
    /* An flock on "<work>.lock", held while the grading uses work: two gradings of one
     * student into one work folder (two checks into one --out) take turns rather than remove
     * each other's builds. -1 when not held. */
    int work_lock;
    /* Where the time went (results.json "phases"). */
    double phase_build_s, phase_references_s, phase_runs_s;
    /* A process grading one variant beside others (side.c): it uses the references' timings
     * already measured but never measures one, which would share the machine with the other
     * variants' runs and be kept for the machine. */
    bool beside_others;
};

/* ---- selection (select.c) ---- */

/* Why case c is not run (in the report's language), or NULL when it is. */
const char *grading_case_skipped(const struct grading *g, const struct case_spec *c);
/* The case's wall-clock limit: --timeout, else the spec's, tightened by the reference's own
 * time on this machine where it is known (references.c). */
double grading_case_timeout(const struct grading *g, const struct exercise_spec *ex,
                            const struct variant_spec *v, const struct case_spec *c);
/* The timing rules a run uses: the spec's, or for a student's check (with or without --full)
 * at most QUICK_BUDGET_S and QUICK_MAX_PAIRS per series, so that a check takes seconds and the
 * slow cases of --full a few pairs each (a lab that lets its short calls take hundreds of pairs
 * for the class's grades would spend them on every check); the instructor's grading always
 * uses the spec's own rules. */
#define QUICK_BUDGET_S 0.2
#define QUICK_MAX_PAIRS 30
struct timing_spec grading_timing(const struct grading *g, const struct exercise_spec *ex);
/* A fresh scratch folder under the work folder; NULL with err set. Caller frees. */
char *grading_fresh_dir(const struct grading *g, const char *name, struct error *err);

/* ---- builds (buildcache.c) ---- */

/* Variant v of the submission built, from the build cache when nothing it depends on changed.
 * -1 only when the grader failed (err). */
int student_build(struct grading *g, const struct exercise_spec *ex, const struct variant_spec *v,
                  struct build_result *r, struct error *err);
/* Build every variant of the selected exercises that is not in the cache, in parallel child
 * processes (one per core), ahead of grading. Never fails: what it could not build is built
 * again, in order, when graded. */
void student_build_all(struct grading *g, const bool *exercise_selected);

/* ---- references (references.c) ---- */

/* The reference's runner program, built once per reference digest (cached, checksummed);
 * NULL with *why set when it cannot be built here, NULL without *why on a grader failure. */
char *reference_runner(struct grading *g, const struct exercise_spec *ex,
                       const struct variant_spec *v, char **why, struct error *err);
/* The reference as a shared object for pairing (harness.h's lg_ref_invoke), built likewise. */
char *reference_library(struct grading *g, const struct exercise_spec *ex,
                        const struct variant_spec *v, char **why, struct error *err);
/* The expected outputs of case c: the cache folder holding out_<arg>_<k>.bin, computed with
 * the other cases of the exercise that lack theirs in one oracle run. NULL with *why when they
 * cannot be had here, NULL without *why on a grader failure. Caller frees. */
char *expected_outputs(struct grading *g, const struct exercise_spec *ex, const struct case_spec *c,
                       char **why, struct error *err);
/* The reference's own time on case c on this machine (solo, cached per machine), for the
 * CPU baseline and the per-case limits; NULL when it cannot be had (why says so). */
/* The samples a series' times come from: the events on the GPU, where taken, else the host
 * clock; the function's (student) or the paired reference's. */
const double *series_samples(const struct run_series *s, bool student);
const struct ref_timing *reference_time(struct grading *g, const struct exercise_spec *ex,
                                        const struct variant_spec *v, const struct case_spec *c,
                                        struct error *err);

/* ---- runs (variant_run.c) ---- */

/* The outcome of one variant's cases, each run exactly once (or not at all: not_run says why,
 * a case after which a smaller case timed out). */
struct variant_runs {
    struct run_outcome *outcomes; /* the runs made, in order */
    char **dirs;                  /* each run's working folder (its outputs) */
    size_t n_outcomes;
    /* For each case of the exercise: the run and index within it, or -1 when not run. */
    int *run_of, *index_in;
    char **not_run; /* why a selected case was not run, or NULL */
};

void variant_runs_release(struct variant_runs *vr);
/* A run that failed while the grader's disk was full failed because of the disk: the harness
 * could not write its outputs or its result, which reads as tampering or a crash. Asked once
 * the runs' folders are gone, so that only the grader's use of the disk counts, never what a
 * run wrote itself: every failed case of vr becomes XX with the reason. */
void variant_runs_disk_full(struct grading *g, const struct exercise_spec *ex,
                            struct variant_result *vr);
/* Run the selected cases of variant v (its runner built, expected outputs ready). -1 only when
 * the grader itself failed (err set). */
int variant_run(struct grading *g, const struct exercise_spec *ex, const struct variant_spec *v,
                const char *runner, const char *reference_lib, const bool *selected,
                struct variant_runs *out, struct error *err);

/* ---- variants (grade.c, side.c) ---- */

/* What the grading resolves for a variant before it runs anything (its build, which cases
 * run, their expected outputs, the reference its timed calls are paired with, the
 * references' timings), and the result it fills. Owns all but ex and vr. */
struct variant_task {
    const struct exercise_spec *ex;
    size_t vi;
    struct variant_result *vr;
    struct build_result br;
    bool *selected;
    char **expected;
    bool any;      /* some case runs */
    char *lib;     /* the paired reference's shared object, or NULL */
    char *no_pair; /* why there is none, where the timing wanted one */
};

/* A prepared variant's runs, judging, and the passes beside the grade, into t->vr. -1 only
 * on a grader failure. */
int variant_execute(struct grading *g, const struct variant_task *t, struct error *err);
/* The prepared variants executed side by side, at most jobs at a time, each in a process of
 * its own (fanout.h), their results read back into each task's vr and their progress lines
 * printed in the tasks' order. The runs take turns for their timed series as a class's
 * workers do (run/phaselock.h). -1 on a grader failure, in any of them. */
int variants_side_by_side(struct grading *g, struct variant_task *tasks, size_t n, int jobs,
                          struct error *err);
/* How many variants run side by side: jobs as asked, but one at a time on a GPU without room
 * for several processes (run/machine.h's gpu_probe_room_for_several). */
int side_jobs(int jobs, const struct gpu_probe *gpu);

/* ---- judging (judge.c) ---- */

/* The verdict of case ci from its run: how it ended, its checked outputs against expected,
 * its guard zones, inputs and timed pairs. Fills cr; -1 only on a grader failure. */
int judge_case(struct grading *g, const struct exercise_spec *ex, const struct variant_spec *v,
               const struct case_spec *c, const struct run_outcome *o,
               const struct run_case_outcome *co, const char *rundir, const char *expected,
               struct case_result *cr, struct error *err);
void judge_add_finding(struct case_result *cr, char *text);
/* A precision the lab forbids (TF32, FP16 inside a float32 exercise) is decided once per
 * variant: when one case shows it, by its precision check (WA) or by a rate past FP32's (CH,
 * limits.c), every other passed case of the variant gets that verdict too. */
void judge_variant_precision(struct grading *g, const struct exercise_spec *ex,
                             const struct variant_spec *v, struct variant_result *vr,
                             const struct variant_runs *runs);
void judge_skip(struct case_result *cr, enum verdict v, const char *msg);

/* ---- timing (speed.c, limits.c) ---- */

/* A passed case's times from its series: the function's and the reference's, the paired
 * speedup and its interval; the clock and stream checks that turn a forged time into CH. */
/* The clocks of a case's timed series: the process's own clock against the supervisor's, the
 * events against the host clock (side streams). false when one set the verdict to CH. */
bool speed_honest(struct grading *g, const struct run_case_outcome *co, struct case_result *cr);
void speed_case(struct grading *g, const struct exercise_spec *ex, const struct variant_spec *v,
                const struct case_spec *c, const struct run_case_outcome *co,
                struct case_result *cr);
/* Each time against what this machine can do (calibration): shares for the report, and CH
 * for a time no hardware here could reach. */
void limits_case(struct grading *g, const struct exercise_spec *ex, const struct variant_spec *v,
                 const struct case_spec *c, struct case_result *cr);
/* Whether the case's time shows float32 arithmetic past what FP32 can do on this GPU (by the
 * margin, and against the paired reference) where the lab does not allow TF32. */
bool limits_reduced_precision(struct grading *g, const struct exercise_spec *ex,
                              const struct variant_spec *v, const struct case_spec *c,
                              const struct case_result *cr);

/* ---- scores (score.c, sanitize.c) ---- */

void score_performance(struct grading *g, const struct exercise_spec *ex,
                       struct exercise_result *er);
int sanitize_variant(struct grading *g, const struct exercise_spec *ex,
                     const struct variant_spec *v, const struct build_result *br,
                     struct variant_result *vr, struct error *err);

#endif
