/*
 * job: what one runner process is asked to do, read from the job file the grader writes
 * (grader/run/runner.c). One job covers every case of one variant: one process, one CUDA
 * context, the cases in order.
 *
 * The file is line-oriented ("key value..."); every timing key is required when timing is
 * asked for: the defaults live in the lab spec alone (grader/spec/load.c), never here. A
 * malformed or incomplete file is a setup failure (the grader's fault), never a guess.
 * struct lg_job owns its cases and arguments (lg_job_release).
 */
#ifndef LG_HARNESS_JOB_H
#define LG_HARNESS_JOB_H

#include "base/dtype.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LG_MAX_ARGS 32
#define LG_MAX_CHECKS 8
#define LG_MAX_CASES 64
#define LG_MAX_SAMPLES 10000
#define LG_MAX_BANDS 32

enum lg_arg_kind { LG_ARG_IN, LG_ARG_OUT, LG_ARG_INOUT, LG_ARG_SCALAR };

/* The distributions of spec/spec.h's enum dist, in the same order. */
enum lg_dist {
    LG_DIST_UNIFORM,
    LG_DIST_NORMAL,
    LG_DIST_ARANGE,
    LG_DIST_CONSTANT,
    LG_DIST_INTEGERS
};

struct lg_job_arg {
    char name[64];
    enum lg_arg_kind kind;
    enum lg_dtype dtype;
    size_t count;
    int space; /* enum lg_space */
    enum lg_dist dist;
    double p1, p2; /* uniform/integers low, high; normal mean, std; arange start, step; value */
    double rtol, atol;
    bool equal_nan;
    /* The precision check's distribution of this input (job key "probe"; timing.c). */
    bool has_probe;
    enum lg_dist probe_dist;
    double probe_p1, probe_p2;
};

struct lg_job_case {
    char id[64];
    int checks;
    /* The reference's own time on this machine for the call alone and with transfers (ms; 0:
     * not known), measured once by the grader (key "reftime"): a series whose pair would cost
     * more than its budget times the function alone against it (timing.h). */
    double ref_ms[2];
    uint64_t seeds[LG_MAX_CHECKS];
    struct lg_job_arg args[LG_MAX_ARGS];
    int n_args;
};

struct lg_timing {
    int warmup;
    int min_pairs, max_pairs;
    double target_ci; /* stop once the ratio's 95% interval is within +-this (relative); the
                       * runner gives 1.96 times the spec's relative standard error */
    double budget_s;  /* wall-clock budget of one series */
    /* The series with host-device transfers decides no points and times mostly the grader's own
     * copies: the grader gives it a rule of its own (run/runner.c). */
    int transfer_min_pairs;
    double transfer_target_ci, transfer_budget_s;
    bool flush_l2;
    bool blocking;
    bool transfer;     /* also time with host-device transfers (device-pointer variants) */
    int transfer_from; /* enum lg_space of the transfer path's host buffers */
};

struct lg_job {
    char function[128];
    bool gpu;
    bool time;
    bool has_reference; /* a paired reference is loaded (reference_lib) */
    bool guards;        /* guard zones around the function's buffers (off under the sanitizer) */
    char reference_lib[1024];
    struct lg_timing timing;
    /* Where the case's speed points change, as time ratios (function / reference), ascending
     * (key "bands"; stop.h): none where the variant carries no speed points. */
    double bands[LG_MAX_BANDS];
    int n_bands;
    struct lg_job_case *cases;
    int n_cases;
};

/* Parse path into job. 0, or -1 with why in err (the line and what was wrong). */
int lg_job_parse(const char *path, struct lg_job *job, char *err, size_t errsize);
void lg_job_release(struct lg_job *job);

#endif
