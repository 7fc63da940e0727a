/*
 * sanitizer: the optional compute-sanitizer pass over a GPU variant (labs/README.md,
 * "compute-sanitizer"). One extra run of the student's already-built runner on one small
 * case, checks only, under `compute-sanitizer --tool T`, in the same sandbox as every run.
 * What it finds (out-of-bounds accesses, races, uninitialized reads) is reported beside the
 * grade and never changes it.
 *
 * This module is the pure part: finding the tool, its command line, its time limit,
 * reading its output (mixed with the program's own) into deduplicated reports, and judging
 * whether it completed. grade.c runs it.
 *
 * struct sanitizer_output and struct sanitizer_run own every string and array below them;
 * their _release() functions free them.
 */
#ifndef LG_SANITIZER_H
#define LG_SANITIZER_H

#include "run/sandbox.h"
#include "spec/spec.h"

#include <stdbool.h>
#include <stddef.h>

struct messages;

#define SANITIZER_DEFAULT_TOOL "memcheck"

/* Reports kept per run: compute-sanitizer prints at most this many (--print-limit), and
 * forged lines must not grow results.json without bound. */
#define SANITIZER_MAX_REPORTS 10
#define SANITIZER_PRINT_LIMIT "10"
/* compute-sanitizer's exit status when it found errors (--error-exitcode). */
#define SANITIZER_ERROR_EXIT "86"
/* Captured output of a sanitizer run: the start, and the end (where the summary is). */
#define SANITIZER_OUTPUT_HEAD ((size_t)256 * 1024)
#define SANITIZER_OUTPUT_TAIL ((size_t)64 * 1024)

/* One kind of error at one place: printed reports with the same kind and location merged. */
struct sanitizer_report {
    char *kind;     /* "Invalid __global__ write of size 4 bytes" */
    char *location; /* "oob(float *, int) in san.cu:3" (no +0x offset); NULL when not printed */
    char *thread;   /* "(232,0,0)" of the first report; NULL when not printed */
    char *block;    /* "(3,0,0)" */
    /* What the access hit, from the first report: "1 byte after an allocation of 4,000
     * bytes", "misaligned"; racecheck: "and Write access at race(float *) in san.cu:6 [64
     * hazards], and ..." (the other side of the race). NULL when not printed. */
    char *access;
    long count; /* printed reports merged into this one */
};

struct sanitizer_output {
    bool summary;     /* a SUMMARY line was seen: the tool got to its end */
    long errors;      /* ERROR SUMMARY's count (racecheck: its errors) */
    long warnings;    /* racecheck's warnings */
    long not_printed; /* "N errors were not printed" (over the print limit) */
    struct sanitizer_report *reports;
    size_t n_reports;
    long other_reports; /* printed reports of further kinds, beyond SANITIZER_MAX_REPORTS */
    char *tool_error;   /* the tool's own failure ("Error: Target application terminated ...") */
};

void sanitizer_output_init(struct sanitizer_output *o);
void sanitizer_output_release(struct sanitizer_output *o);

/*
 * Read compute-sanitizer's lines ("========= ...") out of a run's output, where they are
 * mixed with the program's own lines. Fills out (initialised by the caller). Counts are the
 * largest any SUMMARY line gave; reports with the same kind and location are merged.
 */
void sanitizer_parse(const char *text, size_t len, struct sanitizer_output *out);

enum sanitizer_status {
    SANITIZER_RAN,     /* completed: out holds what it found (maybe nothing) */
    SANITIZER_SKIPPED, /* not run here: reason says why */
    SANITIZER_FAILED,  /* started but did not complete: reason says why; the grader's side */
};

const char *sanitizer_status_name(enum sanitizer_status s); /* "ran", "skipped", "failed" */
int sanitizer_status_parse(const char *name);               /* -1 when unknown */

/* One tool's pass over one variant, as results.json keeps it. */
struct sanitizer_run {
    char *tool;    /* "memcheck" */
    char *case_id; /* the case it ran on; NULL when none could be chosen */
    enum sanitizer_status status;
    char *reason; /* skipped or failed: why, in the report's language; else NULL */
    double wall_s;
    struct sanitizer_output out;
};

void sanitizer_run_init(struct sanitizer_run *r);
void sanitizer_run_release(struct sanitizer_run *r);

/*
 * compute-sanitizer's real path (symbolic links resolved), looked for in cuda_home/bin,
 * /usr/local/cuda/bin, PATH (path_env), then nvcc_home/bin (the toolkit nvcc came from);
 * NULL when none is executable. Any argument may be NULL. Caller frees.
 */
char *sanitizer_find(const char *cuda_home, const char *path_env, const char *nvcc_home);

/*
 * The command that runs `tool` around a program: fills argv[0..] with program and the
 * tool's options, NULL-terminated, and returns how many it filled (the caller appends the
 * runner and its arguments). argv must hold SANITIZER_ARGV_MAX pointers.
 */
#define SANITIZER_ARGV_MAX 16
size_t sanitizer_argv(const char *program, const char *tool, const char **argv);

/*
 * Folders the sandbox must show (read-only) for the tool at real path `program` to run:
 * its own folder, and the compute-sanitizer folder its bin/ wrapper script starts
 * (<toolkit>/compute-sanitizer). System folders (/usr, /bin, ...) are visible anyway and
 * are left out, as is anything too shallow to be a toolkit's. NULL-terminated; free with
 * sanitizer_paths_free().
 */
char **sanitizer_ro_paths(const char *program);
void sanitizer_paths_free(char **paths);

/* Wall-clock limit of a sanitizer run: the tools slow programs 10-100x. At least the case's
 * own timeout, ten times it when that fits in SANITIZER_MAX_WALL_S, and never under a
 * minute (the tool's own start-up). */
#define SANITIZER_MIN_WALL_S 60.0
#define SANITIZER_MAX_WALL_S 600.0
double sanitizer_wall_limit(double case_timeout_s);

/*
 * Judge a finished sanitizer run: parse its output into run->out and set run->status to
 * ran (a summary was printed and the tool exited) or failed, with run->reason in msgs'
 * language (NULL: English) saying why it did not complete. limit_s: the wall limit it had.
 */
void sanitizer_judge(const struct sandbox_result *sb, double limit_s, const struct messages *msgs,
                     struct sanitizer_run *run);

/* Errors a run found: the summary's count, or more when more reports were printed (forged
 * lines only ever add to it). */
long sanitizer_error_count(const struct sanitizer_output *o);

/* One report as a sentence: "Invalid __global__ write of size 4 bytes at oob(float *, int) in
 * san.cu:3, first by thread (232,0,0) in block (3,0,0): 1 byte after an allocation of 4,000
 * bytes". Caller frees. */
char *sanitizer_report_text(const struct sanitizer_report *r, const struct messages *msgs);
/* A run in one line, for the console: "memcheck on n1000: 25 errors: <first report>",
 * "memcheck on n1000: no errors", "memcheck: skipped: <why>". Caller frees. */
char *sanitizer_run_summary(const struct sanitizer_run *r, const struct messages *msgs);

#endif
