/*
 * mutconst: the mutants that replace a whole function by a constant answer, built from the
 * spec since they must know the function's outputs and their sizes:
 *
 *   zero_result  every output (and inout) array is set to zeros, what an all-zero kernel or
 *                a forgotten copy back leaves (KernelBench let such outputs pass on 4 of 60
 *                problems through a loose atol)
 *   echo_input   the first output receives a copy of the first input of the same dtype and
 *                shape (the function "returns its input")
 *
 * The function's parameters are used by position, whatever the solution calls them. A size
 * must be a product or sum of size parameters passed as scalar arguments (n, n*m, ...); an
 * output whose size the function cannot compute gets no such mutant.
 */
#ifndef LG_MUTCONST_H
#define LG_MUTCONST_H

#include "analyze/mutant.h"
#include "analyze/syntax.h"
#include "spec/spec.h"

/* The constant mutants of variant v (of ex), whose function f is defined in l. */
void mutconst_generate(const struct token_list *l, const struct syntax *s, const struct syn_func *f,
                       const struct exercise_spec *ex, const struct variant_spec *v,
                       enum src_lang lang, struct mutant_list *out);

#endif
