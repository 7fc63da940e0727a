/*
 * normalize: a submission's tokens as the similarity check compares them, so that what a
 * copier changes cheaply does not hide a copy and what every student writes alike does not
 * make one:
 *
 *   - comments and preprocessor directives go (a #define's replacement list stays, as code);
 *   - every identifier is one symbol, ID, so renaming changes nothing; names a student cannot
 *     rename stay themselves: CUDA's built-ins and intrinsics (threadIdx, __syncthreads,
 *     anything starting with "__"), the CUDA, cuBLAS and CBLAS APIs (cuda*, cublas*, cblas_*)
 *     and the C library's math and memory functions and integer types;
 *   - every number is NUM, every string STR, every character CHR;
 *   - a launch configuration `<<<grid, block>>>` is one symbol, LAUNCH, whatever it holds;
 *   - CUDA boilerplate is neutral and left out: an error-check macro (a #define whose body
 *     calls cudaGetErrorString) and every statement that calls it, and every statement
 *     calling cudaMalloc, cudaFree, cudaMemcpy, cudaMemset, a synchronize or
 *     cudaGetLastError (error-checked or not);
 *   - a name the file defines (a macro, a function, a parameter) is ID even when it looks
 *     like a library's (CUBLAS_CHECK);
 *   - the tokens are then put in their canonical order (canon.h): dead statements, braces
 *     and prototypes out, for as while, independent statements and top-level items in an
 *     order of their content.
 *
 * Each normalized token remembers where it came from (file, line, byte range, its top-level
 * item), for the report's side-by-side view. struct norm_stream owns its array.
 */
#ifndef LG_NORMALIZE_H
#define LG_NORMALIZE_H

#include "analyze/tokens.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { NORM_ID = 1, NORM_NUM, NORM_STR, NORM_CHR, NORM_LAUNCH };

/* A token that is part of a k-gram the lab's skeleton also has. */
#define NORM_SKELETON 0x1u

struct norm_token {
    uint32_t sym;   /* NORM_* or the hash of a kept spelling */
    uint16_t file;  /* index of the file among the submission's */
    uint16_t flags; /* NORM_SKELETON */
    uint32_t unit;  /* the top-level item (function, declaration, macro) it belongs to */
    uint32_t gap;   /* a hash of what was left out right before it (similarity.c), 0: nothing */
    unsigned line;  /* 1-based, of the token's first character */
    unsigned offset, len;
};

struct norm_stream {
    struct norm_token *t;
    size_t n, alloc;
    uint32_t units; /* top-level items numbered so far */
};

void norm_stream_init(struct norm_stream *s);
void norm_stream_release(struct norm_stream *s);
/* Whether an identifier is one a student cannot rename (kept as itself): it says what the
 * code does, whatever its names. */
bool norm_kept_name(const char *s);

/* Append the normalized tokens of l, as file number `file`. */
void norm_append(struct norm_stream *s, const struct token_list *l, uint16_t file);

#endif
