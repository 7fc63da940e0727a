/*
 * results: what grading one submission produced, and its JSON form
 * (reports/<lab>/<student>/results.json), which reports, exports and batch
 * merges read back. Grading writes it; nothing downstream re-runs anything.
 *
 * Verdicts keep the submission's faults apart from the grader's (after isolate):
 * XX is never charged to the student and makes the exit status 3, not 1.
 * struct results owns everything below it; results_release() frees it.
 */
#ifndef LG_RESULTS_H
#define LG_RESULTS_H

#include "base/error.h"
#include "base/stats.h"
#include "run/machine.h"
#include "run/runner.h"
#include "grade/profile.h"
#include "run/sanitizer.h"
#include "base/strbuf.h"
#include "grade/results_lms.h"
#include "spec/spec.h"

#include <stdbool.h>
#include <stddef.h>

/* results.json's "format": bumped only for changes an older reader would misread; added fields
 * do not need it, since readers ignore what they do not know. */
#define RESULTS_FORMAT "labgrader-results-1"

enum verdict {
    V_PASS,    /* OK: agrees with the reference */
    V_WRONG,   /* WA: values differ beyond the tolerance */
    V_COMPILE, /* CE: the submission did not compile or link */
    V_MISSING, /* MF: a function the lab asks for is not defined */
    V_CRASH,   /* SG: killed by a signal (segfault, abort, ...) */
    V_EXIT,    /* RE: non-zero exit, or a CUDA error after the student's call */
    V_TIMEOUT, /* TO: wall-clock limit; the whole process group was killed */
    V_MEMORY,  /* ML: memory limit */
    V_OUTPUT,  /* OL: output or file size limit */
    V_CHEAT,   /* CH: tampering caught (inputs modified, stale results, impossible time) */
    V_SKIPPED, /* SK: not run here (no GPU, slow case, hidden case) with the reason */
    V_GRADER,  /* XX: the grader or machine failed; never the student's fault */
};

/* Why a correct case has no speed measured here, though it was to be timed: never the
 * submission's doing, so a grade holding one is incomplete, like one with XX (docs/coordinator.md).
 */
enum not_timed {
    NOT_TIMED_NO,          /* timed, or not to be timed */
    NOT_TIMED_BUSY,        /* no turn came within the grader's wait: another process held it */
    NOT_TIMED_SHARED,      /* every measurement shared its cores or its GPU with another process */
    NOT_TIMED_COORDINATOR, /* the machine's timing coordinator could not be used */
};
/* "busy", "shared", "coordinator"; NULL for NOT_TIMED_NO. */
const char *not_timed_name(enum not_timed n);
/* The name back; NOT_TIMED_NO for NULL or an unknown name. */
enum not_timed not_timed_parse(const char *name);

const char *verdict_code(enum verdict v); /* "OK", "WA", ... */
const char *verdict_name(enum verdict v); /* "passed", "wrong values", ... */
/* "OK" -> V_PASS; -1 when unknown. */
int verdict_parse(const char *code);
bool verdict_is_failure(enum verdict v); /* a submission fault */

/* The GPU's SM clock over one run's kept timing samples, read through NVML after each sample
 * (0 where NVML is unavailable or the run is on the CPU), the maximum SM clock it was compared
 * with, and the samples dropped as taken while throttled (grader/harness/throttle.h). */
struct gpu_clock {
    int min_mhz, max_mhz;
    int limit_mhz;
    int dropped;
    bool throttled; /* dropping stopped: the GPU throttled for most samples */
};

struct mismatch_at {
    char index[64]; /* "[3, 17]" */
    double actual, expected;
};

struct mismatch {
    char arg[64];
    long n_mismatch, n_total;
    double max_abs, max_rel;
    struct mismatch_at first[5];
    int n_first;
    bool integer;     /* an integer dtype: values print as whole numbers */
    long n_unwritten; /* mismatches still holding the fill value (NaN, or the integer sentinel) */
};

/* A size parameter of a case as the spec bound it (JSON "params": [{"name": "n",
 * "value": 1024}, ...]): what plots and tables use, never the text of `sizes`. */
struct case_param {
    char *name;
    long value;
};

/* Where a variant keeps one array argument (JSON "arg_memory": [{"arg": "dst", "space":
 * "device"}, ...], spaces named by spec.h's mem_space_name()). */
struct arg_memory {
    /* "" only in results read from a file older than these fields whose `memory` named no
     * argument ("device"): one entry then stands for every array argument. */
    char *arg;
    enum mem_space space;
};

struct case_result {
    char *case_id;
    char *sizes; /* "n=1024": text for readers of older files; params is the data */
    struct case_param *params;
    size_t n_params;
    bool hidden, slow;
    enum verdict verdict;
    /* Correct, but not timed here, and why: no speed-up, no speed points. With what: who held
     * the turn (busy), the other process computing on its GPU (shared: its command name, pid and
     * utilisation) or the other processes' load on its cores in cores (shared, with the busiest
     * of them: its command name and pid), the coordinator's problem (coordinator); NULL and 0
     * when nothing more is known. */
    enum not_timed not_timed;
    char *not_timed_detail;
    double not_timed_cpus;
    /* Of not_timed_cpus, what no process did: interrupts (irq, softirq) and a hypervisor's
     * steal time, in cores. */
    double not_timed_irq_cpus, not_timed_steal_cpus;
    long not_timed_cpu_pid;
    long not_timed_gpu_pid;
    int not_timed_gpu_util;
    char *message; /* one line, for tables */
    char *detail;  /* several lines: mismatch summary, crash output excerpt */
    double points, max_points;
    struct timing time;          /* the call alone (device pointers: no transfer) */
    struct timing time_transfer; /* device variants: H2D + call + D2H */
    struct timing ref_time, ref_time_transfer;
    struct gpu_clock clock, ref_clock; /* the student's and the reference's timed runs */
    double baseline_ms;                /* CPU baseline reference time for this case; 0 if none */
    double speedup_ref;                /* ref / student, paired; 0 if unknown */
    /* Alternating rounds (timing.rounds > 1): the student's and the reference's median time
     * in each round, in the order taken (ABAB); speedup_ref is then 1 / the median of the
     * paired ratios. n_rounds 0: timed once each. */
    double *round_ms, *round_ref_ms;
    size_t n_rounds;
    double speedup_baseline; /* baseline / student; 0 if unknown */
    /* The 95% interval of speedup_ref from the timed pairs (function and reference on the same
     * fresh inputs, in random order), and how many pairs; 0 when not timed in pairs. */
    double speedup_lo, speedup_hi;
    int pairs;
    /* Why its series stopped where it did (run/runner.h's run_series.stopped): "precision" (the
     * lab's relative standard error reached, and its band of speed points decided), "pairs"
     * (max_samples), "budget" (its time budget), "alone" (one call of the function against the
     * reference's time on this machine, a pair costing more than the budget); empty when
     * unknown. */
    char stopped[16];
    /* Seconds the harness spent checking the timed pairs (outputs, guards, inputs): what the
     * integrity of the timing costs (`make bench`). */
    double checks_s;
    double draws_s;      /* and drawing (and digesting) each timed pair's fresh inputs */
    double gflops, gbps; /* from the spec's work formulas; 0 if none */
    struct mismatch *mismatches;
    size_t n_mismatches;
    char **findings; /* anti-cheating and measurement notes */
    size_t n_findings;
    /* Which finding states the case's speed points (1-based; 0: none), so exports can pick
     * it out whatever the language it was written in. */
    size_t perf_finding;
    /* Which findings compare the case's rates with this machine's measured peaks (memory
     * traffic, arithmetic, transfer rate: the roofline): roofline_count of them from
     * roofline_first on (1-based; 0: none), so reports can leave them out where they say
     * nothing (report/findings.h), whatever the language they were written in. */
    size_t roofline_first, roofline_count;
    double wall_s, cpu_s;
    /* Where wall_s went, by the supervisor's clock (run/runner.h's enum run_stage); all 0 for
     * a case that was not run (or results from before stages were kept). */
    double stage_s[RUN_STAGE_COUNT];
    long peak_rss_kb;
};

struct variant_result {
    char *variant_id;
    char *title;
    char *function;
    char *target; /* "cpu" or "gpu" */
    char *memory; /* "host", "dst=device, src=pinned": text for readers of older files */
    struct arg_memory *arg_memory; /* every array argument, in the spec's order */
    size_t n_arg_memory;
    bool built;
    char *build_log; /* compiler output excerpt (warnings and errors) */
    int n_warnings;
    struct case_result *cases;
    size_t n_cases;
    /* The compute-sanitizer pass, one run per tool (JSON "sanitizer", absent when not asked
     * for): findings beside the grade, which they never change. */
    struct sanitizer_run *sanitizer;
    size_t n_sanitizer;
    /* The Nsight Compute pass (--profile; JSON "profile", absent when not asked for):
     * grade/profile.h. Beside the grade, which it never changes. NULL: not asked. */
    struct variant_profile *profile;
};

struct exercise_result {
    char *exercise_id;
    char *title;
    double points, max_points;
    /* Speed points (grade/score.h): perf_max_points is the lab's whatever was measured, so
     * that a lab has one maximum on every machine; perf_variant the variant they are measured
     * on (JSON "perf_variant"; NULL: every variant, or results older than the field). */
    double perf_points, perf_max_points;
    char *perf_variant;
    char *tol_summary; /* "rtol=1e-3 atol=1e-3" */
    struct variant_result *variants;
    size_t n_variants;
};

struct results {
    char *lab_id;
    long lab_number;
    char *lab_title;
    char *course;
    char *lang;
    char *student_id;
    char *student_name;
    char *submission;      /* path as given */
    char *submission_hash; /* sha256 over the submission's files */
    char *grader_version;
    char *date;
    char *mode;           /* "check" (student) or "grade" (instructor) */
    char *isolation;      /* "bwrap", "supervisor" */
    char *timing_mode;    /* "warm" or "cold-l2" */
    bool timing_blocking; /* some exercise's GPU calls are timed behind a blocking kernel */
    /* What the student programs' runs were held to beyond the isolation level (JSON fields
     * "cgroup", "memory_limit_enforced", "pids_limit_enforced"): cgroup is "v2" when every
     * run had its own cgroup v2, "none" when some did not, NULL when no student program ran
     * (or results older than these fields); a limit counts as enforced only when every run
     * had it. */
    char *cgroup;
    bool memory_limit_enforced, pids_limit_enforced;
    bool full;   /* slow cases included */
    bool hidden; /* hidden cases included */
    bool show_hidden;
    struct machine_info machine;
    struct exercise_result *exercises;
    size_t n_exercises;
    double score, max_score;
    int n_pass, n_fail, n_skipped, n_grader_errors;
    int n_not_timed; /* correct cases not timed here (enum not_timed): the grade is incomplete */
    /* A stand-in for a student whose stored results could not be read (batch_merge): why,
     * with lab_id, student_id and n_grader_errors 1 set and nothing else. Gradebooks list it
     * with no points at all, never with 0. NULL for real results; never in the JSON. */
    char *unreadable;
    /* Where the time went, in seconds (JSON "phases"): building the submission, the
     * references' builds, expected outputs and timings, the runs, and rendering the reports
     * (filled by whoever renders them). */
    double phase_build_s, phase_references_s, phase_runs_s, phase_reports_s;
    /* Identity in the LMSs, group, lateness, why nothing was graded (results_lms.h). */
    struct results_lms lms;
};

void results_init(struct results *r);
void results_release(struct results *r);
void results_free(struct results *r);

/* The score an LMS gets: the score less the late penalty, never below 0. */
double results_final_score(const struct results *r);
/* Append a parameter to a case, an argument's memory space to a variant (strings copied). */
void case_result_add_param(struct case_result *c, const char *name, long value);
void variant_result_add_arg_memory(struct variant_result *v, const char *arg, enum mem_space space);

/* Recompute points totals and counts from the case verdicts. */
void results_tally(struct results *r);
/* A correct case that was to be timed and was not (its not_timed says why). */
bool case_not_timed(const struct case_result *c);
/* The cases of r for which case_not_timed holds. */
int results_count_not_timed(const struct results *r);
/* Of those, the ones not timed for the reason `why`. */
int results_count_not_timed_why(const struct results *r, enum not_timed why);

/* JSON round trip. results_read fills an initialised struct. A file older than params and
 * arg_memory gets them from its sizes and memory text (the one place that reads them). */
void results_to_json(const struct results *r, struct strbuf *out);
int results_write(const struct results *r, const char *path, struct error *err);
/*
 * Reading verifies (results_check.c): the file's shape (every field that grades present and
 * of its type, every verdict and sanitizer status known) and its arithmetic (each case's
 * points within 0..max and none for a case that did not pass; exercise points, the total and
 * the counts equal to what the cases add up to). A file that fails is refused with an error
 * naming it and the first fault: it was truncated or edited, and is never graded from.
 */
int results_from_json(struct results *r, const char *json, size_t len, const char *path,
                      struct error *err);
int results_read(struct results *r, const char *path, struct error *err);

struct json_value;
/* The two halves of that verification; name is the file, for the error. */
int results_check_json(const struct json_value *root, const char *name, struct error *err);
int results_check(const struct results *r, const char *name, struct error *err);

#endif
