/*
 * profile: the optional Nsight Compute pass (`--profile`, docs/profile.md). For each GPU
 * variant, one representative case (the exercise's `profile: {case: ID}`, else its largest
 * visible case that is not slow) is run once more, checks only, under ncu (run/ncu.h): the
 * student's runner and the reference's own. What it measured is kept per variant as numbers;
 * the diagnosis below is data too (causes and limiter as enums); report/profile.c puts both into
 * words. Nothing here touches a verdict or a point: a profile that could not be taken is one
 * line in the report, never a failed grading.
 *
 * struct variant_profile owns its sides' profiles and strings; variant_profile_free() frees it.
 */
#ifndef LG_PROFILE_H
#define LG_PROFILE_H

#include "base/json.h"
#include "run/ncu.h"

#include <stdbool.h>

enum profile_status {
    PROFILE_RAN,     /* ncu measured at least one kernel */
    PROFILE_SKIPPED, /* not attempted here: reason says why */
    PROFILE_FAILED,  /* attempted, and ncu gave nothing: reason and detail say why */
};

/* Why a side has no measurements; words in report/profile.c. */
enum profile_reason {
    PROFILE_REASON_NONE,
    PROFILE_NO_GPU,        /* no GPU here */
    PROFILE_NO_NCU,        /* ncu not found */
    PROFILE_NO_PERMISSION, /* ERR_NVGPUCTRPERM: counters restricted to administrators */
    PROFILE_NO_KERNEL,     /* the run launched no kernel of its own */
    PROFILE_UNSUPPORTED,   /* this ncu does not support this GPU or driver */
    PROFILE_TOOL_FAILED,   /* ncu failed otherwise (detail: its error line) */
    PROFILE_NO_CASE,       /* every case of the exercise is hidden */
    PROFILE_NOT_PASSED,    /* the case did not pass: its kernel is not worth explaining */
    PROFILE_NO_REFERENCE,  /* the reference's runner could not be built here */
    PROFILE_REASON_COUNT
};

const char *profile_status_name(enum profile_status s);
int profile_status_parse(const char *name); /* -1 when unknown */
const char *profile_reason_name(enum profile_reason r);
int profile_reason_parse(const char *name); /* -1 when unknown */

/* One side (the student's kernels or the reference's) of a profile. */
struct profile_side {
    enum profile_status status;
    enum profile_reason reason;
    char *detail; /* ncu's own error line, verbatim; NULL when none */
    double wall_s;
    struct ncu_profile prof;
};

/* What the measurements of the student's main kernel (the one that took longest) point at,
 * against the reference's. Causes are flags; each rule is in docs/profile.md. */
enum profile_cause {
    PROFILE_UNCOALESCED = 1 << 0,   /* global sectors per request well above the reference's */
    PROFILE_LOW_OCCUPANCY = 1 << 1, /* theoretical occupancy below 50%: limiter says why */
    PROFILE_LOW_ACHIEVED = 1 << 2,  /* achieved under half the theoretical: too few blocks */
    PROFILE_MEMORY_BOUND = 1 << 3,  /* DRAM throughput at 60% of peak or more */
    PROFILE_COMPUTE_BOUND = 1 << 4, /* SM throughput at 60% of peak or more */
    PROFILE_LATENCY_BOUND = 1 << 5, /* neither: warps wait (stalls say on what) */
};
#define PROFILE_OCCUPANCY_LOW_PCT 50.0
#define PROFILE_BUSY_PCT 60.0
/* Sectors per request above which accesses count as uncoalesced: 4 is a warp's 32 floats, 8
 * its 32 doubles; a kernel counts as uncoalesced above both this and 1.5 times the
 * reference's own ratio (a reference as scattered as the student's is the problem's access
 * pattern, not a mistake). */
#define PROFILE_SECTORS_PER_REQUEST 8.0

/* The source line a diagnosis names (run/ncu.h's struct ncu_line of its main kernel): where the
 * excess sectors come from when the accesses are uncoalesced, else the line holding at least
 * PROFILE_HOT_LINE_SHARE of the warp stall samples. */
enum profile_line { PROFILE_LINE_NONE, PROFILE_LINE_EXCESS, PROFILE_LINE_HOT };
#define PROFILE_HOT_LINE_SHARE 0.30

struct profile_diagnosis {
    unsigned causes;        /* enum profile_cause flags */
    enum profile_line line; /* which of the main kernel's lines to name */
    int kernel, ref_kernel; /* index of each side's main kernel; -1: none */
    int limiter;            /* NCU_LIMIT_* of low occupancy; -1: none */
    bool stores;            /* the uncoalesced accesses are the stores (else the loads) */
    double sectors_per_request, ref_sectors_per_request; /* NAN: not measured */
};

/* The diagnosis of stu against ref (ref may have no kernel). Pure: the report calls it too. */
void profile_diagnose(const struct ncu_profile *stu, const struct ncu_profile *ref,
                      struct profile_diagnosis *d);
/* The kernel that took longest in total; -1 when none was measured. */
int profile_main_kernel(const struct ncu_profile *p);
/* Sectors per request of a kernel's loads (stores true: stores); NAN when not measured. */
double profile_sectors_per_request(const struct ncu_kernel *k, bool stores);
/* A side's kernels' total time per checked call, in milliseconds; NAN when not measured. */
double profile_kernel_ms(const struct ncu_profile *p);

/* ncu's kernel time against the grader's own event time for the same call. */
struct profile_crosscheck {
    bool done;               /* both times known and comparable (device memory only) */
    double ncu_ms, event_ms; /* per call */
    long launches;           /* kernels per call, by ncu */
    bool agree;              /* within profile_tolerance_ms() */
};
/* How far the two may differ: 5% of the event time (ncu's clocks and the timing run's are the
 * same GPU's, at the same clocks, but not the same moment), plus 5 microseconds per launch
 * (events also time the launches' gaps, which ncu's kernel durations leave out). */
double profile_tolerance_ms(double event_ms, long launches);
void profile_crosscheck(double ncu_ms, double event_ms, long launches,
                        struct profile_crosscheck *x);

struct variant_profile {
    char *case_id; /* NULL when none could be chosen */
    struct profile_side student, reference;
    struct profile_crosscheck check, ref_check;
};

void variant_profile_init(struct variant_profile *p);
void variant_profile_free(struct variant_profile *p);

/* results.json's "profile" of a variant, and back (a side's unknown status or reason reads
 * as failed). */
void variant_profile_to_json(struct json_writer *w, const struct variant_profile *p);
struct variant_profile *variant_profile_from_json(const struct json_value *o);

/* The text of the lines p's kernels name where ncu gave none (run/ncu.h's ncu_source_missing):
 * read from the one of paths (the files compiled) whose base name is the line's file, a
 * regular file opened without following links. Returns how many lines got their text. */
int profile_fill_sources(struct ncu_profile *p, const char *const *paths, size_t n);

struct grading;
struct exercise_spec;
struct variant_spec;
struct build_result;
struct variant_result;
/* The pass over one GPU variant, after its cases were graded (grade.c, with --profile).
 * -1 only when the grader itself failed (err set); ncu's failures are recorded in vr. */
int profile_variant(struct grading *g, const struct exercise_spec *ex, const struct variant_spec *v,
                    const struct build_result *br, struct variant_result *vr, struct error *err);

#endif
