/*
 * spec: the lab description (labs/labN/lab.yaml), parsed with libyaml.
 *
 * spec_load() validates everything it can without compiling anything: unknown
 * keys, types, names that must refer to each other (baseline, oracle, shape
 * parameters), expressions. Errors carry file:line:col of the offending node.
 * The struct lab owns every string and array below it; lab_release() frees them.
 * The full key reference, with defaults, is labs/README.md.
 */
#ifndef LG_SPEC_H
#define LG_SPEC_H

#include "base/dtype.h"
#include "base/error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct src_loc {
    int line, col;
};

enum arg_kind { ARG_IN, ARG_OUT, ARG_INOUT, ARG_SCALAR };
enum mem_space { MEM_HOST, MEM_PINNED, MEM_DEVICE };
enum target { TARGET_CPU, TARGET_GPU };
/* DIST_INTEGERS: uniform whole numbers in [low, high], in any dtype (integer-valued floats make
 * every summation order exact). */
enum dist { DIST_UNIFORM, DIST_NORMAL, DIST_ARANGE, DIST_CONSTANT, DIST_INTEGERS };

/* The names the spec spells the enums with, NULL-terminated, indexed by the enum. */
extern const char *const spec_kind_names[];
extern const char *const spec_mem_names[];
extern const char *const spec_transfer_names[];
extern const char *const spec_target_names[];
extern const char *const spec_dist_names[];
extern const char *const spec_lang_names[];

const char *arg_kind_name(enum arg_kind k);
const char *mem_space_name(enum mem_space m);
const char *target_name(enum target t);
const char *dist_name(enum dist d);

struct init_spec {
    enum dist dist;
    double low, high; /* uniform: [low, high); arange: start, step */
    double mean, std; /* normal */
    double value;     /* constant */
};

struct tolerance {
    double rtol, atol;
    bool equal_nan;
    bool has_rtol, has_atol; /* false: the dtype's default applies */
    /* A tolerance written as an expression of the sizes ("2.4e-7*log2(n) + 1e-6"), owned;
     * NULL when it is a plain number. spec/plan.c evaluates it for every case. */
    char *rtol_expr, *atol_expr;
};

#define SPEC_MAX_CHECKS 8
#define SPEC_MAX_DIMS 8

/* One argument of one case, resolved when the spec loads (spec/plan.c): what the runner
 * allocates, fills and compares. Nothing evaluates a size expression after loading. */
struct arg_plan {
    long count;               /* elements: 1 for scalars and for shape [] */
    long dims[SPEC_MAX_DIMS]; /* the shape, outermost first */
    size_t n_dims;            /* 0 for scalars and for shape [] */
    struct init_spec init;    /* inputs: the distribution this case draws from */
    struct tolerance tol;     /* outputs: the effective tolerance (numbers; no expressions) */
    double value;             /* scalars: the value */
};

/* A case's own distribution for one input (labs/README.md, "Per-case inputs"). */
struct init_override {
    char *arg;
    struct init_spec init;
    struct src_loc loc;
};

struct arg_spec {
    char *name;
    enum arg_kind kind;
    enum lg_dtype dtype;
    char *ctype;  /* prototype type override (e.g. "size_t"), or NULL */
    char **shape; /* expressions over the exercise's params; empty for scalars */
    size_t n_shape;
    char *value; /* scalars: expression over params, e.g. "n" or "3.5" */
    struct init_spec init;
    struct tolerance tol; /* outputs: override of the exercise tolerance */
    bool has_tol;
    /* The function's return value, graded as an output of shape [] in host memory: not a
     * parameter of the prototype (exercise key `returns`). */
    bool is_return;
    struct src_loc loc;
};

struct mem_override {
    char *arg;
    enum mem_space mem;
};

struct impl_spec {
    char *function;
    char **sources; /* resolved absolute paths for references; as written for students */
    size_t n_sources;
    char **libs; /* "openblas", "cublas", "m", ... */
    size_t n_libs;
};

struct variant_spec {
    char *id;
    char *title;
    enum target target;
    struct impl_spec student; /* function, source files in the submission, allowed libs */
    struct impl_spec reference;
    bool has_reference;
    enum mem_space memory; /* default for every array argument */
    struct mem_override *mem;
    size_t n_mem;
    enum mem_space transfer_from; /* host buffers of the with-transfer path (device variants) */
    double weight;
    struct src_loc loc;
};

struct size_binding {
    char *name;
    long value;
};

struct case_spec {
    char *id;
    struct size_binding *sizes;
    size_t n_sizes;
    bool hidden;
    /* A hidden case whose sizes this copy of the lab does not carry (the student kit's
     * lab.yaml, written by grader kit): counted with its points like any hidden case, never
     * run; its plan is empty (args zeroed, no sizes, seeds 0). */
    bool withheld;
    bool slow;
    double points; /* < 0: share the exercise's points evenly */
    double timeout_s;
    /* The case's own tolerance (every output) and inputs, over the exercise's. */
    struct tolerance tol;
    bool has_tol;
    struct init_override *inits;
    size_t n_inits;
    struct src_loc loc;
    /* Resolved when the spec loads (spec/plan.c). */
    struct arg_plan *args;           /* one per argument of the exercise, in order */
    double flops, bytes;             /* the work formulas; 0 where absent */
    double array_bytes;              /* bytes of every array argument */
    uint64_t seeds[SPEC_MAX_CHECKS]; /* the checked calls' input seeds */
};

struct timing_spec {
    int warmup;
    int min_samples;
    int max_samples;
    double target_rse; /* stop sampling once the relative standard error is this low */
    double budget_s;   /* time budget for sampling, per run */
    bool flush_l2;     /* cold-cache GPU timing */
    bool blocking;     /* GPU calls timed behind a blocking kernel: launch overhead excluded */
    int checks;        /* checked calls per run, each with fresh inputs */
    /* Student and reference timed alternately this many times each (ABAB), in separate
     * runs; speedups and speed points from the paired ratios. 1: once each. */
    int rounds;
};
#define TIMING_MAX_ROUNDS 20

struct perf_spec {
    double points;
    double full_at; /* ratio to the reference time that still earns full points */
    double zero_at; /* ratio at which the points reach zero */
    char *variant;  /* which variant's time counts; NULL: each variant evenly */
};

/* Speed points come in bands of tenths: full at or under full_at times the reference's time,
 * falling log-linearly to none at zero_at, rounded down. The time ratios where the share
 * changes, ascending (full_at first; the last is where a tenth is left): PERF_BANDS of them. The
 * grader reads the share from them (perf_share) and a timed series stops only once its interval
 * lies between two of them (grader/harness/stop.h), so both read one definition. */
#define PERF_BANDS 10
void perf_band_edges(const struct perf_spec *p, double edges[PERF_BANDS]);
/* The share of the speed points a time ratio earns, in tenths; -1 for no ratio (<= 0). */
double perf_share(const struct perf_spec *p, double ratio);

/* The compute-sanitizer pass over an exercise's GPU variants (labs/README.md,
 * "compute-sanitizer"): findings beside the grade, never points. */
/* The tools a lab may ask for, NULL-terminated, in compute-sanitizer's own spelling. */
extern const char *const sanitizer_tools[];
bool sanitizer_tool_known(const char *name);

struct sanitizer_spec {
    bool enabled; /* asked for (the exercise, or the lab for every exercise with GPU code) */
    char **tools; /* "memcheck", "racecheck", ... in the order given; none: memcheck alone */
    size_t n_tools;
    char *case_id; /* the case it runs on; NULL: the smallest visible one */
    struct src_loc loc;
};

struct exercise_spec {
    char *id;
    char *title;
    double points; /* correctness points; performance points come on top */
    char **params;
    size_t n_params;
    struct arg_spec *args;
    size_t n_args;
    struct variant_spec *variants;
    size_t n_variants;
    struct case_spec *cases;
    size_t n_cases;
    struct tolerance tol;
    char *tol_note;
    char *baseline; /* variant id whose reference is the CPU baseline, or NULL */
    char *oracle;   /* variant id whose reference produces expected outputs */
    struct timing_spec timing;
    double timeout_s;
    long seed;   /* mixed into every input seed; 0 (the default): seeds from the ids alone */
    char *flops; /* expressions over params, or NULL */
    char *bytes;
    struct perf_spec perf;
    bool has_perf;
    /* float32 arithmetic may run on TF32 tensor cores (cuBLAS's TF32 mode, PyTorch's
     * allow_tf32): times are then judged against the TF32 rate, not FP32's (grade/limits.c). */
    bool allow_tf32;
    /* precision_check: {input: {dist: ...}, ...}: inputs on which a reduced precision (TF32,
     * FP16 inside a float32 exercise) cannot reproduce the reference within the tolerance;
     * each case of a variant makes one pair on them, the function against the reference, and
     * a disagreement is WA for the whole variant (labs/README.md, "Precision"). */
    struct init_override *precision_check;
    size_t n_precision_check;
    struct sanitizer_spec sanitizer;
    /* profile: {case: ID}: the case `--profile` runs under Nsight Compute (docs/profile.md);
     * NULL: the largest visible case that is not slow. */
    char *profile_case;
    struct src_loc loc;
};

/* The late policy (labs/README.md "Late submissions"). set false: none in the lab. */
struct late_spec {
    bool set;
    char *deadline;       /* ISO 8601, as written */
    long long deadline_s; /* Unix seconds */
    double grace_s;       /* after the deadline, still on time */
    double per_day;       /* percent of the maximum taken off per started day late */
    double cap;           /* the most taken off, in percent (100: everything) */
    double max_days;      /* later than this many days: the score counts 0; 0: no such limit */
    struct src_loc loc;
};

/* How Gradescope shows the lab (docs/exports.md). */
struct gradescope_spec {
    char *hidden_visibility; /* of the hidden cases' test: "after_due_date" (the default),
                                "after_published", "hidden" or "visible" */
    bool leaderboard;        /* speed ratios on Gradescope's leaderboard (default true) */
};

struct lab {
    char *path; /* lab.yaml as given */
    char *dir;  /* absolute lab folder */
    char *root; /* absolute labgrader root (holds kernels/), or NULL */
    long number;
    char *id; /* "lab6" */
    char *title;
    char *course;
    char *lang;       /* "es" or "en" */
    bool show_hidden; /* student reports show hidden cases in full */
    long seed;        /* default of every exercise's seed */
    char *cflags;     /* build: extra flags for C sources, NULL: none */
    char *nvccflags;  /* build: extra flags for CUDA sources */
    char *ldflags;    /* build: extra link flags */
    /* build: names a submission may define although a library the grader links exports them
     * (run/symbols.h); the lab's functions are always allowed. */
    char **allow_symbols;
    size_t n_allow_symbols;
    bool kit_reference_sources;      /* kit: {references: sources}: kits carry the sources */
    struct sanitizer_spec sanitizer; /* default of every exercise with a GPU variant */
    struct late_spec late;
    struct gradescope_spec gradescope;
    /* The solution is public: grader similarity counts it as handed out and matches no
     * submission with it or the references (docs/similarity.md). */
    bool solution_published;
    struct exercise_spec *exercises;
    size_t n_exercises;
};

void lab_init(struct lab *lab);
void lab_release(struct lab *lab);

/*
 * Parse and validate path. root may be NULL: then a `kernels/` path is looked
 * up from the lab folder's grandparent. Returns 0, or -1 with err set
 * (file:line:col: what was expected).
 */
int spec_load(struct lab *lab, const char *path, const char *root, struct error *err);

/* Lookups; NULL when absent. */
const struct exercise_spec *lab_exercise(const struct lab *lab, const char *id);
const struct variant_spec *exercise_variant(const struct exercise_spec *ex, const char *id);
int exercise_arg_index(const struct exercise_spec *ex, const char *name);
/* The memory space of array argument i in variant v. */
enum mem_space variant_arg_memory(const struct variant_spec *v, const struct exercise_spec *ex,
                                  size_t i);
/* Points each case is worth (its own, or an even share of the exercise's). */
double exercise_case_points(const struct exercise_spec *ex, size_t case_index);
/* The case the compute-sanitizer pass runs on: the spec's, else the visible case with the
 * fewest bytes of arrays (a slow one only when every visible case is slow; the first of
 * equals). NULL when every case is hidden. */
const struct case_spec *exercise_sanitizer_case(const struct exercise_spec *ex);
/* Whether some variant of the exercise targets the GPU. */
bool exercise_has_gpu(const struct exercise_spec *ex);

#endif
