/*
 * expr: arithmetic over size parameters, for shapes ("n*n"), scalar values,
 * and work formulas ("2*n^3"). Numbers, names, + - * / % ^ (right-associative),
 * unary minus, parentheses, and the functions min(a,b), max(a,b), log2, log (natural),
 * sqrt, abs, ceil and floor. Doubles throughout: shapes are checked to be whole numbers by
 * the caller; a result that is not finite (log2(0), sqrt(-1), 1/0) is an error.
 */
#ifndef LG_EXPR_H
#define LG_EXPR_H

#include "base/error.h"

#include <stddef.h>

struct expr_var {
    const char *name;
    double value;
};

struct expr_env {
    struct expr_var vars[16];
    size_t n;
};

void expr_env_init(struct expr_env *env);
/* Returns -1 when the environment is full. */
int expr_env_set(struct expr_env *env, const char *name, double value);

/* Evaluate src. With env NULL, any name is an error. err->msg names the
 * position within src ("at column 4: unknown name 'm'"). */
int expr_eval(const char *src, const struct expr_env *env, double *out, struct error *err);
/* Parse only: every name must be in `names`. */
int expr_check(const char *src, const char *const *names, size_t n_names, struct error *err);

#endif
