/*
 * driver: the code generated from a spec so that a new lab needs no change to
 * the grader's C code.
 *
 * Why generation rather than libffi: the generated prototypes are force-included
 * when the submission is compiled, so a function with the wrong signature is a
 * compile error naming both declarations, where a libffi call would silently
 * pass a float where a double was expected. The generated call thunk is a
 * handful of lines, compiled in under 50 ms.
 */
#ifndef LG_DRIVER_H
#define LG_DRIVER_H

#include "spec/spec.h"
#include "base/strbuf.h"

#include <stdbool.h>

/* The C prototype of a variant's function (student's or reference's name). */
void driver_prototype(const struct exercise_spec *ex, const char *function, bool cuda,
                      struct strbuf *out);
/* lg_prototypes.h: every function of the lab (reference names when `reference`),
 * valid in C and CUDA C++, with C linkage. */
void driver_prototypes_header(const struct lab *lab, bool reference, struct strbuf *out);
/* driver.c for one variant: lg_function_name and the lg_invoke call thunk. */
void driver_source(const struct exercise_spec *ex, const struct variant_spec *v, bool reference,
                   struct strbuf *out);
/* The entry point of a variant's reference built as a shared object for pairing: the one
 * exported symbol, lg_ref_invoke (grader/harness/harness.h), calling the reference. */
void driver_reference_entry(const struct exercise_spec *ex, const struct variant_spec *v,
                            struct strbuf *out);

#endif
