/*
 * batch: grade a whole class. Submissions are collected (folders or an LMS
 * export zip), references and expected outputs are prepared once, every
 * submission is built in parallel on the CPU cores, then run one at a time per
 * GPU (several GPUs: one worker process each, CUDA_VISIBLE_DEVICES), with timed
 * CPU work serialised across workers by a lock so timings do not disturb each
 * other: a timed CPU run holds it exclusively, timed GPU runs and PDF rendering
 * shared (run/runner.h), so none of them overlaps a timed CPU run. Each student's results are
 * written atomically as soon as they exist, with a stamp of what was graded: running the same
 * command again after a crash or Ctrl-C continues where it stopped and never re-grades unchanged
 * work (unless forced). Shards (--shard K/N) grade a slice; batch_merge joins them.
 */
#ifndef LG_BATCH_H
#define LG_BATCH_H

#include "class/late.h"
#include "grade/grade.h"
#include "spec/spec.h"

#include <stdbool.h>

struct batch_opts {
    const char *submissions; /* folder or zip */
    const char *roster;      /* CSV or NULL */
    const char *out;         /* reports root ("reports") */
    const char *templates_dir;
    const char *canvas_assignment; /* Canvas assignment id for gradebook-canvas.csv, or NULL */
    const char *lang;              /* report language ("es"/"en"); NULL: the lab's */
    int jobs;                      /* parallel builds; 0: number of CPUs */
    int gpus;                      /* GPU workers; 0: every visible GPU (at least one worker) */
    int shard_k, shard_n;          /* 1-based shard K of N; 0/0: everything */
    bool force;                    /* re-grade unchanged submissions */
    int pdf_mode;                  /* -1 none, 0 try, 1 required */
    bool no_html;                  /* no report.html, index.html (--no-html; report/html.h) */
    bool progress_bar;             /* a terminal: one updating line; else log lines */
    struct grade_opts grade;  /* full, hidden, timeout, ... (submission/student set per student) */
    struct late_options late; /* the command line's late policy (late.h); NULL fields: the lab's */
    const char *regrade_reason; /* why students are graded again, for regrades.csv (regrade.h) */
    double canvas_points;       /* > 0: the Canvas column scaled to these points possible */
};

struct batch_summary {
    int total, graded, skipped_unchanged, failed, grader_errors;
    int not_timed;  /* students with a case not timed here (the machine was busy): not stamped */
    int no_pdf;     /* students whose PDF was tried and not made (the reason was printed) */
    bool bad_input; /* the submissions or roster were refused: the caller's input to fix */
    /* Wall-clock seconds by phase, for `make bench`. */
    double t_collect, t_prepare, t_build, t_runs, t_reports;
};

void batch_opts_init(struct batch_opts *o);
int batch_grade(struct grade_env *env, const struct lab *lab, const struct batch_opts *o,
                struct batch_summary *s, struct error *err);
/* Gradebooks and class summary from every results.json under out/<lab>; when
 * submissions is given, students without results are listed in *missing. When the
 * submissions or the roster were refused (the caller's input to fix), *bad_input is set
 * (bad_input may be NULL). */
int batch_merge(const struct lab *lab, const struct batch_opts *o, int *missing, bool *bad_input,
                struct error *err);

/*
 * How many workers grade a class when --gpus does not say, with cpus CPUs (base/util.h's
 * cpus_usable: the process's affinity, so a Slurm allocation's, not the node's): two per
 * visible GPU where the GPU has room for several processes (run/machine.h) and the machine
 * has BATCH_CPUS_PER_SHARED_GPU CPUs or more per GPU, one otherwise; one without a GPU. Two
 * workers on one GPU take turns for their timed series through the machine's coordinator, and
 * one's untimed work (its runs' start-up, checked calls and freeing, its results) overlaps the
 * other's series: on an H200 of 16 cores (docs/benchmarks.md, 2026-11-29), a class of ten
 * copies of lab 6 went from 8.0 a minute with one worker to 9.5 with two and 9.8 with three,
 * the same scores and none not timed; four made a CPU series shared by another grader's own
 * work (one student not timed).
 */
#define BATCH_CPUS_PER_SHARED_GPU 8
int batch_default_workers(const struct gpu_probe *gpu, long cpus);

/*
 * The GPU worker w (0-based) grades on, as a CUDA_VISIBLE_DEVICES value: entry w mod k of
 * this process's CUDA_VISIBLE_DEVICES when it lists k devices (Slurm sets it to the GPUs it
 * granted, e.g. "2,3", or to GPU UUIDs, when cgroups do not renumber devices), else
 * w mod n_gpus. More workers than GPUs share them, round-robin (`--gpus N` with N above the
 * GPUs: several workers per GPU, whose timed runs take turns). Caller frees.
 */
char *batch_worker_device(int w, int n_gpus);

/*
 * Sends sig to the worker processes of a running batch_grade (none outside one).
 * Async-signal-safe: for the grader's SIGINT/SIGTERM handler, so that workers stop
 * with the main process (each also has PR_SET_PDEATHSIG, for a SIGKILL).
 */
void batch_kill_workers(int sig);

#endif
