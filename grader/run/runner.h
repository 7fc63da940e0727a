/*
 * runner: one run of a built runner program (student or reference) on one case:
 * writes job.txt, runs the program in the sandbox, and reads back result.txt.
 *
 * The grader never trusts the outcome beyond what it can check: outputs are
 * compared against the reference by the caller, and times are cross-checked
 * (events against the host clock, against physical limits) by the caller.
 * struct run_outcome owns everything in it.
 */
#ifndef LG_RUNNER_H
#define LG_RUNNER_H

#include "run/build.h"
#include "run/sandbox.h"
#include "spec/spec.h"
#include "base/strbuf.h"

#include <stdbool.h>
#include <stdint.h>

enum sample_series {
    SERIES_CALL_HOST,
    SERIES_CALL_EVENT,
    SERIES_XFER_HOST,
    SERIES_XFER_EVENT,
    SERIES_COUNT
};

struct run_spec {
    const struct toolchain *tc;
    const struct lab *lab;
    const struct exercise_spec *ex;
    const struct variant_spec *v;
    const struct case_spec *c;
    bool reference;
    const char *runner;  /* program */
    const char *workdir; /* scratch folder, created and emptied by the caller */
    int checks;
    bool time;
    struct timing_spec timing;
    double timeout_s;
    long long memory_limit_bytes; /* cgroup memory.max where delegated; 0: none */
    /* Run the runner under this command (compute-sanitizer and its options; NULL-terminated),
     * with wrap_ro visible read-only beside the toolchain's folders. NULL: run it directly. */
    const char *const *wrap;
    const char *const *wrap_ro;
    size_t output_cap, output_tail; /* the capture (sandbox.h); 0: the defaults */
};

struct run_outcome {
    struct sandbox_result sb;
    bool finished; /* the harness reached "status ok" */
    int checks_done;
    char *phase;      /* the last phase entered ("check 0", "time call") */
    char *error_kind; /* "cuda", "nogpu", "setup" or NULL */
    char *error_msg;
    char **modified; /* "A" for each input changed by a checked call (deduplicated) */
    size_t n_modified;
    double *samples[SERIES_COUNT];
    size_t n_samples[SERIES_COUNT];
    int clock_min_mhz, clock_max_mhz;
    /* GPU samples dropped as taken while throttled (grader/harness/throttle.h), whether the
     * harness gave up dropping (throttled throughout), and the maximum SM clock it compared
     * with. Summed over the series. */
    int throttle_dropped;
    bool throttle_gave_up;
    int throttle_max_mhz;
    /* Timing behind the blocking kernel: 1 on, 0 not asked for, -1 asked for but dropped
     * (blocking_off says why: "synchronizes" or "setup"). */
    int blocking;
    char *blocking_off;
    /* The output a timed call left wrong (the checked calls had it right), which call
     * (1-based) and how many elements; NULL when the timed calls agreed. */
    char *timed_mismatch;
    int timed_mismatch_call;
    long timed_mismatch_elements;
    char *tampered; /* result.txt shows signs of being written by the student */
};

void run_outcome_init(struct run_outcome *o);
void run_outcome_release(struct run_outcome *o);

/* The job file's text. Without timing lines when `for_key` (the expected-output cache key). */
int runner_job_text(const struct run_spec *s, bool for_key, struct strbuf *out, struct error *err);
/* Bytes of result.txt the grader reads: a larger one is tampering (CH). */
#define RUNNER_RESULT_MAX (16u << 20)

/* Run it. -1 only when the grader could not run it at all (err set). */
int runner_run(const struct run_spec *s, struct run_outcome *o, struct error *err);
/* Fill o from result.txt's text. Lines the harness could not have written (a second
 * 'status ok' or sample series, 'harness' not first, an 'error' other than 'cuda' after
 * the first call into student code) set o->tampered instead. */
void runner_parse_result(struct run_outcome *o, const char *text);
/* RLIMIT_CPU of a student run: the wall-clock limit on every online CPU. 0 (none) when
 * there is no wall-clock limit. */
double runner_cpu_limit(double timeout_s, long online_cpus);

#endif
