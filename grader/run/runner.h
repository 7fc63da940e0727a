/*
 * runner: one run of a built runner program on the cases of one variant: writes job.txt (the
 * harness's job, grader/harness/job.h), runs the program in the sandbox with a control pipe
 * (each case under its own time limit, every timed series timestamped by the supervisor), and
 * reads result.txt back, case by case.
 *
 * The grader never trusts the outcome beyond what it can check: a run's file may be anything,
 * so lines the harness could not have written, in an order it could not have written them,
 * mark the run as tampered with; outputs are compared against the expected ones by the caller,
 * and times are cross-checked (events against the host clock, the harness's clock against the
 * supervisor's, rates against physical limits) by grade/.
 *
 * struct run_outcome owns everything in it.
 */
#ifndef LG_RUNNER_H
#define LG_RUNNER_H

#include "base/strbuf.h"
#include "run/build.h"
#include "run/sandbox.h"
#include "spec/spec.h"

#include <stdbool.h>
#include <stdint.h>

#define RUN_MAX_CASES 64

enum run_series_kind { RUN_SERIES_CALL, RUN_SERIES_TRANSFER, RUN_SERIES_COUNT };
/* A series' name as the harness writes it ("call", "transfer"), and back: -1 for none. */
const char *run_series_name(enum run_series_kind k);
int run_series_lookup(const char *name);

/* One timed series of one case, as the harness reported it. The function's samples, and the
 * paired reference's taken alternately on the same inputs (paired); milliseconds. */
struct run_series {
    bool present;
    bool paired, blocked;
    size_t n;
    double *stu_event, *stu_host, *ref_event, *ref_host; /* events: GPU only */
    char *order;                                         /* '0' function first, '1' reference */
    int clock_min_mhz, clock_max_mhz;
    int throttle_dropped, throttle_max_mhz;
    bool throttle_gave_up;
    double checks_ms; /* the harness's time checking the pairs, outside the timed calls */
    double draws_ms;  /* and drawing each pair's fresh inputs */
    /* Why the series stopped (grader/harness/stop.h's words: "precision", "pairs", "budget",
     * "alone": the function timed alone against the reference's time on this machine); empty
     * when the harness did not say. */
    char stopped[16];
    /* GPU: the medians of how long the device stayed busy after the stop events of the
     * function's and the reference's calls, and on an idle device (harness.h's
     * lg_gpu_event_stop); the harness already added what is beyond idle to the event times. */
    bool has_tail;
    double tail_stu_ms, tail_ref_ms, tail_idle_ms;
    /* The series' span by the harness's own clock and by the supervisor's, whose control pipe
     * saw it begin and end (supervised). Lines read at once share a timestamp: a short series
     * can have a supervisor span of 0. */
    bool supervised;
    double harness_span_ms, supervisor_span_ms;
    /* What the series' real span can have been, from when the supervisor read its two lines
     * and when it had last found the pipe empty before each (sandbox_event): the checks
     * against the harness's figures use these bounds, so that a supervisor kept off the CPU
     * (a loaded machine) never makes an honest series look forged. */
    double supervisor_min_ms, supervisor_max_ms;
    /* Sent with the series' end on the control pipe (base/seal.h): its pair count, the seal of
     * its samples and the digest of the process's vDSO, all as they stood at that moment. */
    size_t sealed_n;
    uint64_t seal, vdso;
    /* What the supervisor saw beside the series (sandbox.h's sb_series_load): how many times it
     * was measured, and whether the last time still shared its cores or its GPU, with what. */
    int attempts;
    bool shared;
    double foreign_cpus;
    double irq_cpus, steal_cpus; /* of foreign_cpus: interrupts, a hypervisor (sandbox.h) */
    long gpu_pid;
    int gpu_util;
    char gpu_comm[32];
    long cpu_pid; /* the busiest other process on a shared CPU series' cores; 0: none seen */
    char cpu_comm[32];
};

/* Something a call did to its buffers or results: where, and how much. */
struct run_incident {
    char *series; /* NULL for a checked call */
    int call;     /* checked call (0-based) or timed pair (1-based) */
    char *arg;
    long long count, first;  /* mismatches (or guard bytes before + after) and first index */
    long long before, after; /* guards: bytes changed before and after the data */
    bool own;                /* timed_fault: the function's own output (else the reference's) */
    bool write;              /* timed_fault: a write (else a read) */
};

/* A case's stages, as the supervisor saw them: inputs and buffers, the checked calls, the
 * warm-up calls, the timed series (their draws and checks included), and what follows a series
 * (its results written); and, in a batch, waiting for the timing locks before the warm-up
 * (queue: other workers' timed series; not counted against the case's limit). */
enum run_stage {
    RUN_STAGE_SETUP,
    RUN_STAGE_CHECKED,
    RUN_STAGE_WARMUP,
    RUN_STAGE_TIMED,
    RUN_STAGE_AFTER,
    RUN_STAGE_QUEUE,
    RUN_STAGE_COUNT
};
extern const char *const run_stage_names[RUN_STAGE_COUNT];

struct run_case_outcome {
    bool started, finished; /* "case i begin" and "case i end" seen */
    /* Its series never got their turn within the grader's wait (the machine was busy): how
     * long it waited, and who held the turn ("" when unseen). */
    bool busy;
    double busy_waited_s;
    char busy_holders[256];
    int checks_done;
    char *phase;     /* the last phase entered ("check 0", "time call") */
    char **modified; /* inputs a checked call changed (deduplicated) */
    size_t n_modified;
    /* Outputs of a checked call that changed after the function returned (work it left
     * running: an asynchronous copy not waited for, a kernel on another stream, a thread). */
    char **unready;
    size_t n_unready;
    struct run_incident *guards; /* guard zones a call wrote into */
    size_t n_guards;
    struct run_incident *timed_mismatch; /* a timed pair's outputs differed from the reference's */
    struct run_incident *timed_modified; /* a timed call changed an input */
    /* A timed call touched a buffer fenced off from it (grader/harness/fence.h): the
     * reference's outputs while the function ran, or the function's own while the reference
     * ran (work it left running). */
    struct run_incident *timed_fault;
    /* The precision check's pair disagreed (spec.h's precision_check): count elements of arg,
     * the first at first. */
    struct run_incident *precision_mismatch;
    int blocking;       /* 1 on, 0 not asked, -1 asked but dropped (blocking_off says why) */
    char *blocking_off; /* "synchronizes", "setup" */
    struct run_series series[RUN_SERIES_COUNT];
    double wall_s; /* from its begin to its end (or the run's end), by the supervisor's clock */
    /* Where that time went, by the same clock (the harness announces each stage on the control
     * pipe): seconds per enum run_stage. */
    double stage_s[RUN_STAGE_COUNT];
};

struct run_outcome {
    struct sandbox_result sb;
    bool finished;    /* the harness reached "status ok" */
    char *error_kind; /* "cuda", "nogpu", "setup" or NULL */
    char *error_msg;
    int error_case; /* the case running when the error was reported, -1 before any */
    int last_case;  /* the case running when the process ended, -1 before any */
    char *tampered; /* result.txt or the control pipe shows signs of the student's hand */
    struct run_case_outcome *cases; /* one per case of the spec, in order */
    size_t n_cases;
};

void run_outcome_init(struct run_outcome *o);
void run_outcome_release(struct run_outcome *o);

struct run_spec {
    const struct toolchain *tc;
    const struct lab *lab;
    const struct exercise_spec *ex;
    const struct variant_spec *v;
    const struct case_spec *const *cases; /* the cases to run, in order */
    size_t n_cases;
    const double *case_timeout_s; /* each case's own wall-clock limit */
    bool reference;               /* the function under test is the reference itself */
    const char *reference_lib;    /* the paired reference's shared object, or NULL */
    const char *runner;           /* program */
    const char *workdir;          /* scratch folder, created and emptied by the caller */
    int checks;
    bool time;
    /* Each case's reference's own time on this machine, the call alone and with transfers (ms;
     * 0: not known), or NULL: a series whose pair would cost more than its budget times the
     * function alone against it (grader/harness/timing.h). */
    const double (*ref_ms)[2];
    struct timing_spec timing;
    long long memory_limit_bytes; /* 0: none */
    /* Run the runner under this command (compute-sanitizer and its options; NULL-terminated),
     * with wrap_ro visible read-only beside the toolchain's folders. NULL: run it directly. */
    const char *const *wrap;
    const char *const *wrap_ro;
    size_t output_cap, output_tail; /* the capture (sandbox.h); 0: the defaults */
};

/* The job file's text (harness version 2). */
void runner_job_text(const struct run_spec *s, struct strbuf *out);
/* Bytes of result.txt the grader reads: a larger one is tampering (CH). */
#define RUNNER_RESULT_MAX (16u << 20)

/* Run it. -1 only when the grader could not run it at all (err set). */
int runner_run(const struct run_spec *s, struct run_outcome *o, struct error *err);
/* Fill o (n_cases already set) from result.txt's text. Lines the harness could not have
 * written set o->tampered instead. */
void runner_parse_result(struct run_outcome *o, const char *text);
/* Then the control pipe's lines in o->sb.events (s->n_cases cases): each case's wall time and
 * stages, each series' span as the supervisor saw it. A line out of order sets o->tampered. */
void runner_apply_events(const struct run_spec *s, struct run_outcome *o);
/* RLIMIT_CPU of a student run: the wall-clock limit on every online CPU. 0 (none) when
 * there is no wall-clock limit. */
double runner_cpu_limit(double timeout_s, long online_cpus);

#endif
