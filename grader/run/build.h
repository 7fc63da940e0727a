/*
 * build: compile a submission's (or the references') functions into runner
 * programs, one per exercise variant, each = generated driver + the variant's
 * sources + the harness.
 *
 * Compiling is untrusted work too (include bombs, endless template expansion,
 * #include of files it must not see), so every compiler and linker command runs
 * through the sandbox with a time limit, inside a build folder that holds a
 * copy of the submission and nothing else of the grader's.
 *
 * struct toolchain owns its strings; struct build_ctx owns its folder's paths
 * and per-source object cache; struct build_result owns its log and paths.
 */
#ifndef LG_BUILD_H
#define LG_BUILD_H

#include "base/error.h"
#include "run/sandbox.h"
#include "spec/spec.h"
#include "base/sha256.h"
#include "base/strbuf.h"

#include <stdbool.h>

struct turns;

struct toolchain {
    char *cc;   /* C compiler (CC or cc) */
    char *nvcc; /* NULL without a CUDA toolkit */
    char *cuda_home;
    char *cc_version, *nvcc_version;
    char *harness_dir;     /* harness objects: harness.o, rng.o, dtype.o, harness_{no,}gpu.o */
    char *harness_include; /* folder with harness.h */
    char *gpu_arch;        /* "sm_90" when a GPU was probed; NULL: nvcc's default */
    /* "sm_75,sm_80,sm_90": machine code for each and no PTX, instead of gpu_arch (a student
     * kit's reference objects, which must run on the students' GPUs: kit.h); NULL: none. */
    char *gpu_codes;
    char *no_cuda_reason; /* why GPU variants cannot be built, or NULL */
    enum isolation isolation;
    double compile_timeout_s; /* each compile and link step: 120 s, or --compile-timeout */
    /* Passed into every sandboxed command: library and include search paths of this
     * machine (CPATH, LIBRARY_PATH, LD_LIBRARY_PATH, CUDA_VISIBLE_DEVICES) as "K=V",
     * and the folders they name, made visible read-only. NULL-terminated. */
    char **env;
    char **ro_paths;
    /* The machine's timing coordinator and this process's lane in it (run/turns.h), which
     * every sandboxed command takes part in; borrowed; NULL: none (the tests of one module). */
    const struct turns *turns;
};

void toolchain_init(struct toolchain *tc);
void toolchain_release(struct toolchain *tc);
/* Find compilers and the harness. harness_dir holds the objects, include_dir harness.h. */
int toolchain_detect(struct toolchain *tc, const char *harness_dir, const char *include_dir,
                     struct error *err);
/* Set (or replace) K=V in the environment every sandboxed command gets. */
void toolchain_setenv(struct toolchain *tc, const char *key, const char *value);
/* ro_paths plus `extra` (NULL-terminated) as one NULL-terminated list; free with free(). */
const char **toolchain_ro_paths(const struct toolchain *tc, const char *const *extra);

/* The flags used for a language, as reported in results ("-std=gnu11 -O2 ..."). */
char *toolchain_cflags(const struct toolchain *tc, const struct lab *lab);
char *toolchain_nvccflags(const struct toolchain *tc, const struct lab *lab);

enum build_status {
    BUILD_OK,
    BUILD_COMPILE_ERROR,    /* the submission's code did not compile or link */
    BUILD_MISSING_FUNCTION, /* a required function or source file is absent */
    BUILD_NO_TOOLCHAIN,     /* e.g. no nvcc for a GPU variant: skipped, with the reason */
    BUILD_GRADER_ERROR,     /* the grader could not build (harness missing, disk full) */
};

struct build_result {
    enum build_status status;
    char *message;     /* one line */
    struct strbuf log; /* compiler output of every step of this variant */
    int n_warnings;
    char *runner; /* absolute path of the program when status == BUILD_OK */
};

void build_result_init(struct build_result *r);
void build_result_release(struct build_result *r);

struct build_obj;

struct messages;

struct build_ctx {
    const struct toolchain *tc;
    const struct lab *lab;
    bool reference;
    char *src_dir;                   /* submission folder (student builds) */
    char *dir;                       /* build folder */
    const struct messages *messages; /* the student's language (messages.h); NULL: English */
    char src_digest[65];             /* the submission's files (student builds) */
    const char *cache_dir;           /* the grader's cache (grade/ keeps builds there), or NULL */
    bool pic;                        /* compiling for a shared object (build_reference_library) */
    const char *variant;             /* "exercise-variant" while one is built (names objects) */
    struct build_obj *objs;
    size_t n_objs, alloc_objs;
};

/* Create dir, write lg_prototypes.h, copy the submission's files into dir/src. */
int build_ctx_init(struct build_ctx *b, const struct toolchain *tc, const struct lab *lab,
                   bool reference, const char *src_dir, const char *dir, struct error *err);
void build_ctx_release(struct build_ctx *b);

/* Build one variant. Returns -1 only when the grader failed (err set); submission
 * faults are a status in r. */
int build_variant(struct build_ctx *b, const struct exercise_spec *ex, const struct variant_spec *v,
                  struct build_result *r, struct error *err);

/*
 * Compile one reference source of v into an object with the flags its grading build uses,
 * position-independent with hidden visibility, so that it links both into a runner and into
 * the reference's shared object (student kits ship references so, kit.h; a reference source
 * ending in .o is linked as it is). *object: the object's path (caller frees), or NULL when
 * it did not compile, with r's status, message and log saying why. -1 only when the grader
 * failed (err set).
 */
int build_reference_object(struct build_ctx *b, const struct variant_spec *v, const char *source,
                           char **object, struct build_result *r, struct error *err);

/*
 * The reference of variant v as a shared object for the timed pairs (grader/harness/harness.h):
 * its sources and a generated entry point compiled position-independent with hidden
 * visibility, linked with -Bsymbolic, stripped and, for CUDA, with machine code only (no PTX),
 * so that nothing of it clashes with the student's names and little of it can be read back.
 * r->runner is its path (the variant's folder, libref.so). Reference builds only.
 */
int build_reference_library(struct build_ctx *b, const struct exercise_spec *ex,
                            const struct variant_spec *v, struct build_result *r,
                            struct error *err);

/* A variant's build record (build.txt, build.log, and the runner where it built) in dir:
 * save one, or load one (true when there is a complete one). */
int build_record_save(const char *dir, const struct build_result *r, struct error *err);
bool build_record_load(const char *dir, struct build_result *r);
/* Everything a student build depends on beyond the submission's files: compilers and their
 * versions, flags, the generated prototypes, the harness. Into a running digest. */
int build_environment_digest(const struct build_ctx *b, struct sha256 *h, struct error *err);

/* A digest of a submission folder's files (names and contents; dot-files and links
 * ignored), for reusing builds and skipping unchanged submissions. */
int submission_files_digest(const char *dir, char out[65], struct error *err);

/* A stable digest of everything a reference build depends on (sources, flags,
 * harness, compilers): the name of its cache folder. */
int build_reference_digest(const struct toolchain *tc, const struct lab *lab, char out[65],
                           struct error *err);

#endif
