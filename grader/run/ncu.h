/*
 * ncu: Nsight Compute (`ncu`) around a runner, and its measurements read back as numbers
 * (docs/profile.md). The pure part: finding the tool, its two command lines (the profiling run,
 * which writes a report file, and the import, which prints that report as CSV), reading the
 * CSV into one record per kernel, and telling from the profiling run's output why it produced
 * nothing (counters restricted, no kernel launched, the tool failing). grade/profile.c runs it.
 *
 * A metric ncu did not print, printed as "n/a", or in a unit this file does not know is "not
 * measured" (NAN), never 0 and never a guess: ncu's metric names change between versions and
 * GPUs, and a wrong number explained in plain words is worse than none.
 *
 * struct ncu_profile owns its kernels and every string in them (their source lines' included);
 * ncu_profile_release() frees them.
 */
#ifndef LG_NCU_H
#define LG_NCU_H

#include <stdbool.h>
#include <stddef.h>

/* The measurements kept per kernel, each from one raw metric of ncu's (ncu_metric_name). */
enum ncu_metric {
    NCU_DURATION_NS,     /* gpu__time_duration.sum */
    NCU_DRAM_PCT,        /* DRAM throughput, % of peak */
    NCU_SM_PCT,          /* compute (SM) throughput, % of peak */
    NCU_OCC_ACHIEVED,    /* achieved occupancy, % of the SM's warps */
    NCU_OCC_THEORETICAL, /* theoretical occupancy, % */
    NCU_REGISTERS,       /* per thread */
    NCU_SMEM_STATIC,     /* bytes per block */
    NCU_SMEM_DYNAMIC,    /* bytes per block */
    NCU_GRID,            /* blocks */
    NCU_BLOCK,           /* threads per block */
    /* Blocks per SM each resource allows: the smallest is the occupancy's limiter. */
    NCU_LIMIT_REGISTERS,
    NCU_LIMIT_SMEM,
    NCU_LIMIT_WARPS,
    NCU_LIMIT_BLOCKS,
    /* Global memory sectors (32 bytes) and requests (one per warp instruction): sectors per
     * request is 4 for a warp reading 32 consecutive floats, up to 32 when every thread's
     * access falls in its own sector (uncoalesced). */
    NCU_LD_SECTORS,
    NCU_LD_REQUESTS,
    NCU_ST_SECTORS,
    NCU_ST_REQUESTS,
    NCU_METRIC_COUNT
};

/* ncu's raw metric name, and the key results.json keeps it under ("dram_pct"). */
const char *ncu_metric_name(enum ncu_metric m);
const char *ncu_metric_key(enum ncu_metric m);
/* -1 when unknown. */
int ncu_metric_from_key(const char *key);

/* The warp stall reasons are every metric of this family ncu prints (their set differs between
 * GPUs): "<prefix><reason><suffix>", average cycles a warp spent stalled for that reason per
 * instruction issued. */
#define NCU_STALL_PREFIX "smsp__average_warps_issue_stalled_"
#define NCU_STALL_SUFFIX "_per_issue_active.ratio"
#define NCU_MAX_STALLS 3

struct ncu_stall {
    char *reason;  /* "long_scoreboard", as ncu names it */
    double cycles; /* per issued instruction */
};

/* One source line of a kernel, from ncu's source page (the code built with -lineinfo): the line
 * that holds most of one of the kernel's per-line counts, summed over its launches. */
#define NCU_SOURCE_MAX 100 /* bytes of the line's text kept (cut at a character, "…" added) */
struct ncu_line {
    char *file;    /* the file's base name; NULL: no such line was measured */
    long line;     /* 1-based */
    char *source;  /* the line's text, trimmed; "" when ncu printed none */
    double count;  /* excess sectors, or warp stall samples, on this line */
    double share;  /* of the kernel's total count, 0..1 */
    double wasted; /* excess lines only: the excess share of the line's own sectors; NAN else */
};

/* One kernel (all launches of one name): the longest launch's measurements, and the total. */
struct ncu_kernel {
    char *name;                 /* as ncu printed it (demangled, arguments included) */
    long launches;              /* launches of this name profiled */
    double total_ns;            /* their durations summed; NAN when none was measured */
    double m[NCU_METRIC_COUNT]; /* the longest launch's; NAN: not measured */
    struct ncu_stall stalls[NCU_MAX_STALLS]; /* the largest first */
    size_t n_stalls;
    struct ncu_line hot_line;    /* the most warp stall samples ("Warp Stall Sampling") */
    struct ncu_line excess_line; /* the most excess global sectors (uncoalesced accesses) */
};

struct ncu_profile {
    struct ncu_kernel *kernels; /* in the order of their first launch */
    size_t n_kernels;
    long rows;    /* kernel rows read */
    long skipped; /* rows of the harness's own kernels (lg_*), left out */
};

void ncu_profile_init(struct ncu_profile *p);
void ncu_profile_release(struct ncu_profile *p);

/*
 * Read `ncu --import R --csv --page raw` (one row per launch: a header row of metric names, a
 * row of units, then the launches; ncu's own "==PROF==" lines and anything else before the
 * header ignored) into p (initialised by the caller). The details page's long form (one row per
 * metric: "Metric Name", "Metric Unit", "Metric Value") is read as well. Kernels whose name
 * starts with "lg_" are the harness's (drawing inputs, comparing outputs) and are left out.
 * Returns 0, or -1 when no CSV header was found (p then holds no kernel).
 */
int ncu_parse_csv(const char *text, size_t len, struct ncu_profile *p);

/*
 * Read `ncu --import R --csv --page source --print-source cuda,sass` (ncu_source_argv) into the
 * kernels p already holds (from ncu_parse_csv): blocks of a "File Path" row, a "Function Name"
 * row (matched against the kernels' names; the harness's lg_* and unknown names are skipped), a
 * header row starting "Line No", then one row per source line (metrics summed over the line's
 * instructions) each followed by its SASS rows (no line number; ignored). A kernel may have
 * several blocks (launches, inlined headers' files): counts of one file and line are summed.
 * Per kernel it fills hot_line from "Warp Stall Sampling (All Samples)" and excess_line from
 * "L2 Theoretical Sectors Global Excessive" (with "L2 Theoretical Sectors Global" for wasted);
 * a column ncu did not print or a "-" value is not measured, and a kernel none of whose lines
 * counts anything gets no line. Returns the number of kernels given a line, or -1 when the text
 * holds no source page header.
 */
int ncu_parse_source(const char *text, size_t len, struct ncu_profile *p);

/* Whether a line's text says nothing of the code: empty, or ncu's own note that it could not
 * read the file ("<Unable to open source file>": the sandboxed build folder that -lineinfo
 * recorded is not where ncu looks). ncu_parse_source keeps such a line without text (""), for
 * grade/profile.c to read it from the submission; reports read older results through this. */
bool ncu_source_missing(const char *source);
/* Line `line` (1-based) of a file's text as a kept line's source is (trimmed, tabs as spaces,
 * at most NCU_SOURCE_MAX bytes); NULL when the text has no such line. Caller frees. */
char *ncu_source_line(const char *text, size_t len, long line);

/* A value in unit (as ncu prints it) in the metric's base unit: times ("nsecond", "usecond",
 * ...) in nanoseconds, sizes ("byte", "Kbyte", ...) in bytes, anything else (%, register/thread,
 * "") as printed. NAN for a value that is not a number ("n/a") or an unknown unit of time or
 * size. Thousands separators (",") are accepted. */
double ncu_value(const char *value, const char *unit);

/* Why a profiling run produced no report, read from its output and exit status. */
enum ncu_failure {
    NCU_OK,            /* ran: the report holds kernels */
    NCU_NO_PERMISSION, /* ERR_NVGPUCTRPERM: performance counters restricted to admins */
    NCU_NO_KERNEL,     /* "No kernels were profiled" */
    NCU_UNSUPPORTED,   /* the GPU or driver is not supported by this ncu */
    NCU_TOOL_FAILED,   /* anything else: exit status, "==ERROR==" */
};
const char *ncu_failure_name(enum ncu_failure f); /* "ok", "no_permission", ... */
int ncu_failure_parse(const char *name);          /* -1 when unknown */
/* From the profiling run's output: the first "==ERROR==" line (without the prefix) goes to
 * *detail when detail is not NULL (caller frees; NULL when none). */
enum ncu_failure ncu_diagnose(const char *output, size_t len, int exit_code, char **detail);

/* ncu's real path: cuda_home/bin, /usr/local/cuda/bin, PATH, then nvcc_home/bin; NULL when none
 * is executable. Any argument may be NULL. Caller frees. */
char *ncu_find(const char *cuda_home, const char *path_env, const char *nvcc_home);
/* Folders the sandbox must show for ncu at real path `program`: its own folder and, for the
 * toolkit's bin/ncu wrapper, the toolkit's nsight-compute* folders beside bin/. NULL-terminated;
 * free with ncu_paths_free(). */
char **ncu_ro_paths(const char *program);
void ncu_paths_free(char **paths);

/*
 * The profiling command: fills argv with program and its options, NULL-terminated, and returns
 * how many it filled (the caller appends the runner and its job). report: the report file's
 * path without its .ncu-rep suffix. flush_caches: ncu's --cache-control all (as the grader's
 * cold-L2 timing does) or none (warm). argv must hold NCU_ARGV_MAX pointers; the strings it
 * points at are static or report's, except argv's metric list, owned by *metrics (free it).
 * Besides the metrics, the SourceCounters section: the source page's per-line counts.
 */
#define NCU_ARGV_MAX 32
#define NCU_LAUNCH_COUNT "64"
#define NCU_LAUNCH_LIMIT 64 /* the same, as a number: a profile of this many launches was cut */
size_t ncu_profile_argv(const char *program, const char *report, bool flush_caches, char **metrics,
                        const char **argv);
/* The import command: `program --import <report>.ncu-rep --csv --page raw --print-units base`. */
size_t ncu_import_argv(const char *program, const char *report_file, const char **argv);
/* The source import: `program --import <report>.ncu-rep --csv --page source --print-source
 * cuda,sass` (per-line metrics exist only in the sass and cuda,sass views). */
size_t ncu_source_argv(const char *program, const char *report_file, const char **argv);

/* Wall-clock limit of a profiling run: ncu replays every kernel once per pass (ten or more
 * passes for these metrics) and starts in seconds. At least NCU_MIN_WALL_S, twenty times the
 * case's own limit when that fits in NCU_MAX_WALL_S. */
#define NCU_MIN_WALL_S 120.0
#define NCU_MAX_WALL_S 600.0
double ncu_wall_limit(double case_timeout_s);

#endif
