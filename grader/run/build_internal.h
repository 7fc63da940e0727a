/*
 * build_internal: what the modules of building share (run/build.h is the interface):
 *
 *   toolchain.c  the compilers found, their flags, and the environment every sandboxed
 *                command gets
 *   buildtool.c  one compile or link step in the sandbox, and the flags it takes
 *   buildreuse.c a student build's compile or link step taken from the object cache
 *   build.c      a submission's (or a reference's) objects and runner
 *   buildlib.c   a reference's shared object
 *   buildsyms.c  what a student's objects may define and use (run/symbols.h)
 *
 * struct argv_list owns its strings; struct build_obj is one object of a build_ctx.
 */
#ifndef LG_BUILD_INTERNAL_H
#define LG_BUILD_INTERNAL_H

#include "run/build.h"

#include <stdbool.h>
#include <stddef.h>

#define BASE_CFLAGS "-std=gnu11 -O2 -Wall -Wextra"
/* -lineinfo: compute-sanitizer's reports name the source file and line (sanitizer.h); it
 * adds line tables only, and changes neither the code nor its speed. */
#define BASE_NVCCFLAGS "-O2 -lineinfo -Xcompiler -Wall"
#define SUBMISSION_MAX_BYTES (64LL << 20)
#define SUBMISSION_MAX_FILES 500
/* What a compile or link step may need to write (objects, nvcc's intermediate files in
 * TMPDIR, which is the build folder): with less free, a failed step is the disk's doing. */
#define BUILD_SPACE_NEEDED (32LL << 20)
/* The build folder's copy of the lab's handed-out headers (build.c's write_handout). */
#define BUILD_HANDOUT_DIR "handout"

struct build_obj {
    char *source; /* as named in the spec */
    char *flags;  /* the extra flags it was compiled with */
    char *object; /* relative to the build folder */
    enum build_status status;
    char *message;
    char *log;
    int n_warnings;
};

/* argv: a NULL-terminated growable list of owned strings. */
struct argv_list {
    char **v;
    size_t n, alloc;
};

void argv_list_push(struct argv_list *a, const char *s);
/* Whitespace-separated flags; labs and environment give flags without shell quoting. */
void argv_list_push_split(struct argv_list *a, const char *flags);
void argv_list_release(struct argv_list *a);

/* ---- buildtool.c ---- */
bool build_ends_with(const char *s, const char *suffix);
bool build_is_cuda_source(const char *path);
/* Compiler warnings in a log. */
int build_count_warnings(const char *log);
/* Whether a failed step is the disk's doing (then *message says so). */
bool build_disk_full(const struct build_ctx *b, char **message);
/* Run a build command in the sandbox, pinned to the lane's cores and holding them (given up
 * while a series waits); its output appended to log, *ok when it succeeded. -1 only when it
 * could not run at all. */
int build_tool_run(struct build_ctx *b, struct argv_list *cmd, struct strbuf *log, bool *ok,
                   struct error *err);
/* A library's flags for compiling (compile) or linking. */
void build_lib_flags(const char *lib, bool compile, struct argv_list *out);
/* One CUDA runtime per process: the shared libcudart, found through an rpath. */
void build_cudart_shared(const struct toolchain *tc, struct argv_list *cmd);
const struct impl_spec *build_impl_of(const struct build_ctx *b, const struct variant_spec *v);
/* nvcc's flags (a reference's shared object: position-independent, machine code only). */
void build_push_nvcc_flags(const struct build_ctx *b, const char *flags, struct argv_list *cmd);

/* ---- buildreuse.c ---- */
/* Compile src_path (relative to the build folder) to object, or take the object from the
 * cache (student builds with a cache only); a compile that succeeds is kept with the files it
 * read. As build_tool_run: its output in log, *ok, -1 only when it could not run at all. */
int build_compile_cached(struct build_ctx *b, struct argv_list *cmd, const char *src_path,
                         const char *object, struct strbuf *log, bool *ok, struct error *err);
/* The same for a link writing output: keyed by the command, key_input's content (the
 * driver's object) and the digests of the other inputs in the build folder; its inputs are the
 * files the command names (the harness's by size and time). */
int build_link_cached(struct build_ctx *b, struct argv_list *cmd, const char *output,
                      const char *key_input, struct strbuf *log, bool *ok, struct error *err);

/* ---- build.c ---- */
/* The object a source of the variant compiles to (compiled now, or earlier in this build);
 * NULL only when the grader failed. */
struct build_obj *build_compile_source(struct build_ctx *b, const struct variant_spec *v,
                                       const char *source, struct error *err);

/* ---- buildsyms.c ---- */
/* A student variant's objects before they are linked: CE naming the first refused symbol. */
bool build_symbols_refused(struct build_ctx *b, const struct argv_list *objs,
                           struct build_result *r);

#endif
