/*
 * load_parts: the pieces of lab.yaml that load.c's exercise parser hands out, one file per
 * concern: load_args.c (arguments, inputs, tolerances), load_variant.c (variants and their
 * references), load_case.c (cases). Private to spec/: everything else reads struct lab.
 *
 * Each fills part of the exercise (or lab) it is given, which owns what it allocates; each
 * returns 0, or -1 with the loader's error (file:line:col) set.
 */
#ifndef LG_LOAD_PARTS_H
#define LG_LOAD_PARTS_H

#include "spec/loader.h"
#include "base/expr.h"

#include <stdbool.h>
#include <stddef.h>

/* A size expression binds at most this many params. */
#define MAX_PARAMS (sizeof(((struct expr_env *)0)->vars) / sizeof(((struct expr_env *)0)->vars[0]))

/* A sequence of strings (at least one when nonempty) into a new array. */
int load_string_list(struct loader *ld, const yaml_node_t *n, const char *label, bool nonempty,
                     char ***out, size_t *n_out);

/* rtol, atol (numbers or expressions of the exercise's sizes) and equal_nan. */
int load_tolerance(struct loader *ld, const yaml_node_t *m, const struct exercise_spec *ex,
                   struct tolerance *tol);

/* The init an argument gets when lab.yaml says none: uniform over its dtype's usual range. */
void load_default_init(struct arg_spec *a);

/* ex->args[index] from m; the arguments before it are loaded. */
int load_arg(struct loader *ld, struct exercise_spec *ex, size_t index, const yaml_node_t *m);

/* {arg: {dist: ...}, ...} over the arguments' init (a case's `init`, an exercise's
 * `precision_check`); what and who name the key and its owner in messages. */
int load_init_overrides(struct loader *ld, const struct exercise_spec *ex, const yaml_node_t *m,
                        const char *what, const char *who, struct init_override **list, size_t *n);

/* ex->variants[index] from m, its function registered against the lab's others. */
int load_variant(struct loader *ld, struct exercise_spec *ex, size_t index, const yaml_node_t *m);

/* ex->cases[index] from m; the exercise's params and args are loaded. */
int load_case(struct loader *ld, struct exercise_spec *ex, size_t index, const yaml_node_t *m);

#endif
