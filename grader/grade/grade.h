/*
 * grade: grade one submission of one lab end to end: build the references
 * (cached), build the submission, compute or reuse expected outputs, run and
 * time every variant on every selected case, compare, score. Fills a struct
 * results; writing files and printing tables is the caller's business.
 *
 * struct grade_env is what stays the same across submissions (toolchain, GPU,
 * caches); it owns its strings and caches. One grade_env grades many
 * submissions in turn (batch grading), reusing reference builds, expected
 * outputs and reference timings.
 */
#ifndef LG_GRADE_H
#define LG_GRADE_H

#include "run/build.h"
#include "run/machine.h"
#include "run/turns.h"
#include "grade/calibration.h"
#include "grade/results.h"
#include "spec/spec.h"

#include <stdbool.h>
#include <stdio.h>

struct ref_timing;
struct messages;

struct grade_env {
    struct toolchain tc;
    struct gpu_probe gpu;
    /* This process's lane in the machine's timing coordinator (tc.turns points here). */
    struct turns turns;
    char *gpu_memo;  /* where the probe's answer is remembered (bootmemo.h), or NULL */
    char *cache_dir; /* reference builds and expected outputs */
    bool grade_mode; /* instructor grading: a missing GPU is a grader fault, not a skip */
    long long memory_limit_bytes; /* per student run, enforced where cgroups are delegated */
    struct calibration cal;       /* measured once per machine, cached */
    struct ref_timing *ref_times; /* reference timings measured so far, per variant and case */
    size_t n_ref_times, alloc_ref_times;
    /* Expected-output folders whose seal this process has checked: a folder is read by every
     * variant and every submission, its checksums need checking once. */
    char **sealed_ok;
    size_t n_sealed_ok;
    /* compute-sanitizer's real path, looked for the first time a pass needs it; NULL: none. */
    char *sanitizer;
    bool sanitizer_probed;
    /* The OpenBLAS kernel OpenBLAS chose here, and the one every child is made to run with
     * instead (OPENBLAS_CORETYPE), NULL when its choice stands (calibration.h). */
    char *blas_chosen, *blas_forced;
};

/* What a GPU variant gets where no GPU can run it (issue "one policy for no GPU here"):
 * DEFAULT is SKIP for a student's check and RERUN for an instructor's grading. */
enum gpu_policy {
    GPU_POLICY_DEFAULT,
    GPU_POLICY_SKIP,          /* SK with the reason: it counts when the instructor grades */
    GPU_POLICY_RERUN,         /* XX: grade again on a machine with a GPU */
    GPU_POLICY_INFORMATIONAL, /* SK worth no points: the score stands without GPU cases */
};

/* The compute-sanitizer pass: where the spec asks for it, on every GPU variant
 * (--sanitize), or nowhere (--no-sanitize: recorded as skipped where the spec asks). */
enum sanitize_mode { SANITIZE_SPEC, SANITIZE_ALL, SANITIZE_NONE };

struct grade_opts {
    const char *submission;   /* folder */
    const char *student_id;   /* NULL: the folder's name */
    const char *student_name; /* NULL: the id */
    const char *work_dir;     /* scratch parent folder */
    bool full;                /* include slow cases */
    bool hidden;              /* include hidden cases */
    const char *only;         /* exercise id or NULL */
    const char *cases;        /* comma-separated case ids to grade, or NULL for all */
    bool no_timing;           /* correctness only: no timing runs */
    double timeout_s;         /* > 0: overrides every case's timeout */
    bool keep_work;           /* keep build and run folders */
    bool build_only;          /* build every variant and stop (batch: builds run ahead) */
    bool reuse_build;         /* reuse a build folder left by an earlier build_only pass */
    bool reuse_ref_times;     /* time each reference once per env (batch) */
    enum sanitize_mode sanitize;
    bool profile; /* the Nsight Compute pass on every GPU variant (grade/profile.h) */
    enum gpu_policy gpu_policy;
    FILE *progress; /* one line per finished case, or NULL */
    /* How many variants run side by side (grading.h's variants_side_by_side); below 2: one
     * after another. */
    int variant_jobs;
    /* One after another, the variant run first (modulo their number; the order changes no
     * grade): graders at once (a rush's slots, a class's students) start on different variants,
     * so that one variant's heavy untimed work (lab 6's CPU matmul at n7000, with every core's
     * thread) is not run by all of them at once. */
    size_t first_variant;
    /* The grader's sentences in the report's language (messages.h); NULL: English. */
    const struct messages *messages;
};

void grade_env_init(struct grade_env *env);
void grade_env_release(struct grade_env *env);
/* Detect the toolchain and GPU. harness_dir: built harness objects; include_dir: harness.h. */
int grade_env_setup(struct grade_env *env, const char *harness_dir, const char *include_dir,
                    const char *cache_dir, enum isolation iso, struct error *err);
/* This process's lane of the timing coordinator (run/turns.h): GPU `device` of those the probe
 * saw and its share of the cores; lane 0, without a GPU key, where there is no such GPU. */
void grade_env_place(struct grade_env *env, int device);

void grade_opts_init(struct grade_opts *o);

/* Measure (or read from the cache) this machine's limits into env->cal. Never fatal. What it
 * says on log (once per machine) is in the language of msgs (NULL: English). */
void grade_calibrate(struct grade_env *env, FILE *log);
void grade_calibrate_say(struct grade_env *env, FILE *log, const struct messages *msgs);

/* Grade one submission into r (initialised by the caller). -1 only when grading could not
 * happen at all (err set); every per-exercise problem becomes a verdict instead. */
int grade_submission(struct grade_env *env, const struct lab *lab, const struct grade_opts *o,
                     struct results *r, struct error *err);

/* Build every reference and compute the expected outputs of every selected case once,
 * before many submissions are graded (in parallel processes that then only read them). */
int grade_prepare(struct grade_env *env, const struct lab *lab, const struct grade_opts *o,
                  struct error *err);

/* A digest of a submission folder's files (names and contents), for skipping unchanged work. */
int submission_digest(const char *dir, char out[65], struct error *err);

#endif
