/*
 * symbols: what a student's object files define and use, checked before they are linked.
 *
 * The student's code is linked into one program with the harness that times and checks it,
 * so a function of theirs named clock_gettime, cudaEventElapsedTime or cblas_sgemm would
 * replace the one the harness (or the reference) calls. The grader refuses that: a student
 * object may not define a global symbol that the harness, the C library (libc, libm,
 * libpthread, librt, libdl), the CUDA runtime and driver, cuBLAS or OpenBLAS export, nor use
 * the dynamic loader (dlopen, dlsym) to reach symbols it was not linked against; lab functions
 * and the student's own helper names stay allowed, and a lab may allow more (build:
 * allow_symbols). A refused submission is a compile error (CE) naming the symbol and why.
 *
 * The object reader trusts nothing in the file (it is the student's compiler's output, and the
 * student controls the compiler's input): every offset and size is checked against the file.
 * struct symbol_set owns its names.
 */
#ifndef LG_SYMBOLS_H
#define LG_SYMBOLS_H

#include "base/error.h"
#include "base/strbuf.h"

#include <stdbool.h>
#include <stddef.h>

/* A set of names, each with where it came from (a static string: "the C library"). */
struct symbol_set {
    struct symbol_entry {
        char *name;
        const char *origin;
    } * entries;
    size_t n, alloc;
    bool sorted;
};

void symbol_set_init(struct symbol_set *s);
void symbol_set_release(struct symbol_set *s);
void symbol_set_add(struct symbol_set *s, const char *name, const char *origin);
/* The origin of name, or NULL when it is not in the set. */
const char *symbol_set_find(struct symbol_set *s, const char *name);

/* The global symbols an ELF relocatable object (.o) defines and the ones it leaves undefined.
 * 0, or -1 with err set when the file is not a well-formed 64-bit ELF object. */
int symbols_read_object(const char *path, struct symbol_set *defined, struct symbol_set *undefined,
                        struct error *err);
/* The same from an object already in memory (the unit tests feed it hostile bytes). */
int symbols_read_object_bytes(const unsigned char *data, size_t size, const char *path,
                              struct symbol_set *defined, struct symbol_set *undefined,
                              struct error *err);

/* The dynamic symbols a shared library exports (its .dynsym), or the global symbols of every
 * member of an ar archive (static libraries such as libcudart_static.a). 0 or -1 (err). */
int symbols_read_library(const char *path, const char *origin, struct symbol_set *out,
                         struct error *err);

/* The libraries a runner may link, found in this machine's library folders (and CUDA's, when
 * cuda_home is not NULL), read into out. Libraries that are not installed are skipped. */
void symbols_reserved(const char *cuda_home, struct symbol_set *out);

enum symbol_verdict {
    SYMBOL_OK,
    SYMBOL_TIMES_YOU, /* a clock or a CUDA event or synchronize: the grader times with it */
    SYMBOL_LIBRARY,   /* any other function or variable a linked library exports */
    SYMBOL_HARNESS,   /* the grader's own (lg_*, main) */
    SYMBOL_LOADER,    /* the dynamic loader (dlopen, dlsym, ...) */
};

/* Whether a student object may define name (`reserved`: symbols_reserved(); `allowed`: the
 * lab's functions and allow_symbols); *origin names the library for SYMBOL_LIBRARY. */
enum symbol_verdict symbols_check_definition(const char *name, struct symbol_set *reserved,
                                             struct symbol_set *allowed, const char **origin);
/* Whether a student object may use (leave undefined) name. */
enum symbol_verdict symbols_check_use(const char *name);

#endif
