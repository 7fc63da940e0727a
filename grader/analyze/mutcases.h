/*
 * mutcases: for the mutants that survived, would some other size have killed them? Sizes the
 * lab does not try are derived from its cases: the largest case with a size doubled (plus one),
 * 1 and 3, and each size one less and one more, as long as the arrays stay within 2.5 times
 * the largest case's bytes; at most MUTCASES_MAX per exercise, in that order.
 *
 * They are added as cases to a copy of the lab (its lab.yaml rewritten through libyaml, the
 * rest copied, kernels/ beside it), the solution is graded on them first (a size it fails is
 * dropped: the spec may not allow it), then every survivor. Each survivor's record lists the
 * sizes that killed it; r->extra_sizes the sizes tried per exercise.
 */
#ifndef LG_MUTCASES_H
#define LG_MUTCASES_H

#include "analyze/mutrun.h"

#define MUTCASES_MAX 12

/* The extra sizes of ex as case lines ("{id: x_n1001, sizes: {n: 1001}}" in spirit): ids and
 * "n=1001" texts, each array of *n strings (caller frees). */
void mutcases_derive(const struct exercise_spec *ex, char ***ids, char ***sizes, size_t *n);

/* Write a copy of lab.yaml with each listed exercise's extra cases added, to path. */
int mutcases_write_yaml(const struct lab *lab, const char *path, struct error *err);

/* Run the extra sizes on every surviving record of m->r. */
int mutcases_run(struct mutrun *m, struct error *err);

#endif
