/*
 * mutant: one small change of a source file, of the kind students actually make, as a list
 * of byte edits, so the mutated file is the original with only that change; the operators
 * that make them are in mutop.h (token level) and mutconst.h (from the spec).
 *
 * Operators (mut_op_id() names them in files and tests):
 *   rel_bound        < to <=, <= to <, > to >=, >= to >
 *   bound_minus_one  the right operand E of a comparison becomes (E) - 1
 *   drop_guard       an `if` holding a comparison runs always (its body) or never (an early
 *                    return): the dropped bounds check
 *   single_pass      a grid-stride loop stops after its first pass
 *   blocks_down      (n + T - 1) / T rounds down: n / T
 *   drop_syncthreads __syncthreads() or __syncwarp() removed
 *   swap_index       row * n + col becomes col * n + row inside [ ]; .x and .y of the CUDA
 *                    built-ins exchanged in one statement of a 2D kernel
 *   swap_args        two arguments of the same type exchanged in a cuBLAS or CBLAS call
 *   accum_assign     += becomes =
 *   wrong_stride     a loop's `i += s` becomes `i += 2 * (s)`
 *   drop_sync        cudaDeviceSynchronize() and the like replaced by cudaSuccess
 *   half_accum       a float accumulator becomes half precision (__half, _Float16), a double
 *                    one float
 *   loop_start       a counting loop starts one later
 *   zero_result      the function writes zeros to its outputs   (mutconst.h)
 *   echo_input       the function copies an input to its output (mutconst.h)
 *
 * struct mutant_list owns its mutants and their edits.
 */
#ifndef LG_MUTANT_H
#define LG_MUTANT_H

#include "analyze/tokens.h"

#include <stddef.h>

enum mut_op {
    MUT_REL_BOUND,
    MUT_BOUND_MINUS_ONE,
    MUT_DROP_GUARD,
    MUT_SINGLE_PASS,
    MUT_BLOCKS_DOWN,
    MUT_DROP_SYNCTHREADS,
    MUT_SWAP_INDEX,
    MUT_SWAP_ARGS,
    MUT_ACCUM_ASSIGN,
    MUT_WRONG_STRIDE,
    MUT_DROP_SYNC,
    MUT_HALF_ACCUM,
    MUT_LOOP_START,
    MUT_ZERO_RESULT,
    MUT_ECHO_INPUT,
    MUT_N_OPS
};

/* "rel_bound", ...; NULL for an unknown value. */
const char *mut_op_id(enum mut_op op);
/* What the operator does, in English: the msgid of its translation (messages.po). */
const char *mut_op_title(enum mut_op op);
/* The operator named id, or -1. */
int mut_op_parse(const char *id);

struct mut_edit {
    size_t offset, len; /* bytes of the original replaced */
    char *text;         /* by these */
};

struct mutant {
    enum mut_op op;
    size_t tok;             /* the token the change is about (attribution, line, column) */
    unsigned line, col;     /* of that token */
    struct mut_edit *edits; /* sorted, not overlapping */
    size_t n_edits;
};

struct mutant_list {
    struct mutant *items;
    size_t n, alloc;
};

void mutant_list_init(struct mutant_list *l);
void mutant_list_release(struct mutant_list *l);
void mutant_release(struct mutant *m);
/* A new mutant at token tok of l, without edits; returns it (owned by out). */
struct mutant *mutant_new(struct mutant_list *out, enum mut_op op, const struct token_list *l,
                          size_t tok);
/* Add an edit (kept sorted). */
void mutant_edit(struct mutant *m, size_t offset, size_t len, const char *text);

/* Whether m lets a loop or an index reach further than the original (a comparison widened,
 * < to <=; a bounds check that always passes): a survivor of that kind may only read past the
 * end of an array, which no output shows (docs/mutation.md, "Limits"). */
bool mutant_reaches_further(const struct mutant *m);

/* The source with m's edits applied (NUL-terminated; *out_len without the NUL). */
char *mutant_apply(const char *src, size_t len, const struct mutant *m, size_t *out_len);

#endif
