#include "spec/plan.h"

#include "base/alloc.h"
#include "base/expr.h"
#include "base/sha256.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Element counts at or above this are certainly a mistake in the spec (8 TiB of bytes). */
#define MAX_ELEMENTS 1099511627776.0 /* 2^40 */

/* Reports at the case's line and column of the lab file. */
static int fail_case(struct error *err, const struct lab *lab, const struct case_spec *c,
                     const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int fail_case(struct error *err, const struct lab *lab, const struct case_spec *c,
                     const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return error_set_at(err, lab->path, c->loc.line, c->loc.col, "case '%s': %s", c->id, msg);
}

static bool int_range(enum lg_dtype t, double *lo, double *hi)
{
    switch (t) {
    case LG_I64:
        *lo = -9223372036854775808.0;
        *hi = 9223372036854775807.0;
        return true;
    case LG_I32:
        *lo = -2147483648.0;
        *hi = 2147483647.0;
        return true;
    case LG_I16:
        *lo = -32768;
        *hi = 32767;
        return true;
    case LG_I8:
        *lo = -128;
        *hi = 127;
        return true;
    case LG_U8:
        *lo = 0;
        *hi = 255;
        return true;
    default:
        return false;
    }
}

void case_env(const struct case_spec *c, struct expr_env *env)
{
    expr_env_init(env);
    for (size_t i = 0; i < c->n_sizes; i++)
        if (c->sizes[i].name)
            expr_env_set(env, c->sizes[i].name, (double)c->sizes[i].value);
}

void case_sizes_text(const struct case_spec *c, struct strbuf *out)
{
    for (size_t i = 0; i < c->n_sizes; i++)
        strbuf_addf(out, "%s%s=%ld", i ? "," : "", c->sizes[i].name, c->sizes[i].value);
}

void plan_seeds(const struct lab *lab, const struct exercise_spec *ex, const struct case_spec *c,
                int checks, uint64_t *seeds)
{
    for (int k = 0; k < checks && k < SPEC_MAX_CHECKS; k++) {
        struct sha256 s;
        char hex[65];
        /* Seed 0 keeps the historical key, so existing caches and results stay valid. */
        char *key = ex->seed ? xstrfmt("%s/%s/%s/%d/%ld", lab->id, ex->id, c->id, k, ex->seed)
                             : xstrfmt("%s/%s/%s/%d", lab->id, ex->id, c->id, k);
        sha256_init(&s);
        sha256_update(&s, key, strlen(key));
        sha256_final_hex(&s, hex);
        free(key);
        hex[16] = '\0';
        seeds[k] = strtoull(hex, NULL, 16);
    }
}

/* The shape of array argument i: dims and count, or an error naming the dimension. */
static int resolve_shape(const struct lab *lab, const struct arg_spec *a, const struct case_spec *c,
                         const struct expr_env *env, struct arg_plan *p, struct error *err)
{
    double total = 1;
    struct error e;
    error_init(&e);
    p->n_dims = a->n_shape;
    for (size_t d = 0; d < a->n_shape; d++) {
        double v;
        if (expr_eval(a->shape[d], env, &v, &e))
            return fail_case(err, lab, c, "dimension %zu ('%s') of argument '%s': %s", d + 1,
                             a->shape[d], a->name, e.msg);
        if (!(v >= 1) || v != floor(v))
            return fail_case(err, lab, c,
                             "dimension %zu ('%s') of argument '%s' is %.17g, expected a positive "
                             "whole number",
                             d + 1, a->shape[d], a->name, v);
        total *= v;
        p->dims[d] = (long)v;
    }
    if (!(total < MAX_ELEMENTS))
        return fail_case(err, lab, c, "argument '%s' has %.0f elements, expected fewer than 2^40",
                         a->name, total);
    p->count = (long)total;
    return 0;
}

static int resolve_scalar(const struct lab *lab, const struct arg_spec *a,
                          const struct case_spec *c, const struct expr_env *env, struct arg_plan *p,
                          struct error *err)
{
    double v, lo, hi;
    struct error e;
    error_init(&e);
    p->count = 1;
    if (expr_eval(a->value, env, &v, &e))
        return fail_case(err, lab, c, "value '%s' of argument '%s': %s", a->value, a->name, e.msg);
    /* %.17g: a value like 16777215.5 must not print as a whole number. */
    if (int_range(a->dtype, &lo, &hi) && (v != floor(v) || v < lo || v > hi))
        return fail_case(err, lab, c,
                         "value '%s' of argument '%s' is %.17g, not a whole number in the range "
                         "of %s [%.17g, %.17g]",
                         a->value, a->name, v, lg_dtype_name(a->dtype), lo, hi);
    p->value = v;
    return 0;
}

/* One bound of a tolerance: the expression evaluated under the case's sizes, else the
 * number. */
static int tol_value(const struct lab *lab, const struct case_spec *c, const char *what,
                     const char *expr, double number, const struct expr_env *env, double *out,
                     struct error *err)
{
    struct error e;
    error_init(&e);
    if (!expr) {
        *out = number;
        return 0;
    }
    if (expr_eval(expr, env, out, &e))
        return fail_case(err, lab, c, "tolerance %s '%s': %s", what, expr, e.msg);
    if (!(*out >= 0))
        return fail_case(err, lab, c, "tolerance %s '%s' is %g, expected >= 0", what, expr, *out);
    return 0;
}

/* Most specific first: the case's tolerance, the argument's, the exercise's, the dtype's. */
static const struct tolerance *pick_tol(const struct tolerance *const *levels, size_t n, bool rtol)
{
    for (size_t i = 0; i < n; i++)
        if (levels[i] && (rtol ? levels[i]->has_rtol : levels[i]->has_atol))
            return levels[i];
    return NULL;
}

static int resolve_tolerance(const struct lab *lab, const struct exercise_spec *ex,
                             const struct arg_spec *a, const struct case_spec *c,
                             const struct expr_env *env, struct arg_plan *p, struct error *err)
{
    const struct tolerance *levels[3] = {c->has_tol ? &c->tol : NULL, a->has_tol ? &a->tol : NULL,
                                         &ex->tol};
    double rtol, atol;
    lg_dtype_default_tolerance(a->dtype, &rtol, &atol);
    const struct tolerance *r = pick_tol(levels, 3, true), *t = pick_tol(levels, 3, false);
    memset(&p->tol, 0, sizeof(p->tol));
    p->tol.has_rtol = r != NULL;
    p->tol.has_atol = t != NULL;
    if (tol_value(lab, c, "rtol", r ? r->rtol_expr : NULL, r ? r->rtol : rtol, env, &p->tol.rtol,
                  err) ||
        tol_value(lab, c, "atol", t ? t->atol_expr : NULL, t ? t->atol : atol, env, &p->tol.atol,
                  err))
        return -1;
    /* No "was it written" flag exists for equal_nan, so any level can turn it on. */
    p->tol.equal_nan =
        ex->tol.equal_nan || (a->has_tol && a->tol.equal_nan) || (c->has_tol && c->tol.equal_nan);
    return 0;
}

static void resolve_init(const struct arg_spec *a, const struct case_spec *c, struct arg_plan *p)
{
    p->init = a->init;
    for (size_t i = 0; i < c->n_inits; i++)
        if (!strcmp(c->inits[i].arg, a->name))
            p->init = c->inits[i].init;
}

static int resolve_work(const struct lab *lab, const struct exercise_spec *ex, struct case_spec *c,
                        const struct expr_env *env, struct error *err)
{
    const char *formulas[2] = {ex->flops, ex->bytes}, *names[2] = {"flops", "bytes"};
    double *outs[2] = {&c->flops, &c->bytes};
    struct error e;
    error_init(&e);
    for (size_t k = 0; k < 2; k++) {
        *outs[k] = 0;
        if (!formulas[k])
            continue;
        if (expr_eval(formulas[k], env, outs[k], &e))
            return fail_case(err, lab, c, "work %s '%s': %s", names[k], formulas[k], e.msg);
        if (*outs[k] < 0)
            return fail_case(err, lab, c, "work %s '%s' is %g, expected >= 0", names[k],
                             formulas[k], *outs[k]);
    }
    return 0;
}

static int resolve_case(const struct lab *lab, const struct exercise_spec *ex, struct case_spec *c,
                        struct error *err)
{
    struct expr_env env;
    case_env(c, &env);
    free(c->args);
    c->args = xcalloc(ex->n_args ? ex->n_args : 1, sizeof(*c->args));
    c->array_bytes = 0;
    for (size_t i = 0; i < ex->n_args; i++) {
        const struct arg_spec *a = &ex->args[i];
        struct arg_plan *p = &c->args[i];
        if (a->kind == ARG_SCALAR) {
            if (resolve_scalar(lab, a, c, &env, p, err))
                return -1;
            continue;
        }
        if (resolve_shape(lab, a, c, &env, p, err))
            return -1;
        c->array_bytes += (double)p->count * (double)lg_dtype_size(a->dtype);
        if (a->kind != ARG_OUT)
            resolve_init(a, c, p);
        if (a->kind != ARG_IN && resolve_tolerance(lab, ex, a, c, &env, p, err))
            return -1;
    }
    if (resolve_work(lab, ex, c, &env, err))
        return -1;
    plan_seeds(lab, ex, c, ex->timing.checks, c->seeds);
    return 0;
}

int plan_resolve_exercise(const struct lab *lab, struct exercise_spec *ex, struct error *err)
{
    for (size_t i = 0; i < ex->n_cases; i++) {
        struct case_spec *c = &ex->cases[i];
        /* Nothing to resolve (no sizes), and nothing ever runs it: an empty plan, so that what
         * walks every case's plan (a cache key) reads zeros, not a NULL. */
        if (c->withheld)
            c->args = xcalloc(ex->n_args ? ex->n_args : 1, sizeof(*c->args));
        else if (resolve_case(lab, ex, c, err))
            return -1;
    }
    return 0;
}

static const char *space_word(enum mem_space m)
{
    return spec_mem_names[m];
}

void plan_key_text(const struct exercise_spec *ex, const struct variant_spec *v,
                   const struct case_spec *c, const char *function, int checks, struct strbuf *out)
{
    strbuf_addf(out, "function %s\ntarget %s\nchecks %d\n", function, target_name(v->target),
                checks);
    for (int k = 0; k < checks; k++)
        strbuf_addf(out, "seed %d %llu\n", k, (unsigned long long)c->seeds[k]);
    for (size_t i = 0; i < ex->n_args; i++) {
        const struct arg_spec *a = &ex->args[i];
        const struct arg_plan *p = &c->args[i];
        if (a->kind == ARG_SCALAR) {
            strbuf_addf(out, "arg %s scalar %s 1 host constant %.17g 0\n", a->name,
                        lg_dtype_name(a->dtype), p->value);
            continue;
        }
        const struct init_spec *in = &p->init;
        /* An output's init is unused; the dtype's default keeps the historical key. */
        struct init_spec dflt;
        if (a->kind == ARG_OUT) {
            dflt = a->init;
            in = &dflt;
        }
        strbuf_addf(out, "arg %s %s %s %ld %s %s %.17g %.17g\n", a->name, arg_kind_name(a->kind),
                    lg_dtype_name(a->dtype), p->count, space_word(variant_arg_memory(v, ex, i)),
                    dist_name(in->dist),
                    in->dist == DIST_NORMAL     ? in->mean
                    : in->dist == DIST_CONSTANT ? in->value
                                                : in->low,
                    in->dist == DIST_NORMAL ? in->std : in->high);
    }
}
