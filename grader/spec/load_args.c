/*
 * lab.yaml's arguments: names, dtypes, shapes, how inputs are drawn (init, and the overrides
 * a case or a precision check makes) and the tolerances outputs are compared with.
 */
#include "spec/load_parts.h"

#include "base/alloc.h"
#include "base/expr.h"
#include "base/fs.h"
#include "base/util.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static const char *const arg_keys[] = {"name",  "kind", "dtype",     "ctype", "shape",
                                       "value", "init", "tolerance", NULL};
static const char *const init_keys[] = {"dist",  "low",  "high",  "mean", "std",
                                        "start", "step", "value", NULL};
static const char *const tolerance_keys[] = {"rtol", "atol", "equal_nan", NULL};

/* The keys of init that each distribution reads, indexed by enum dist. */
static const char *const dist_keys[][3] = {
    {"low", "high", NULL}, {"mean", "std", NULL}, {"start", "step", NULL},
    {"value", NULL, NULL}, {"low", "high", NULL},
};

/* rtol or atol: a number, or an expression of the exercise's sizes evaluated per case. */
static int parse_tol_bound(struct loader *ld, const yaml_node_t *v, const struct exercise_spec *ex,
                           const char *label, double *out, char **expr)
{
    char *text = NULL, *end;
    if (ld_get_expr_text(ld, v, label, &text))
        return -1;
    bool number = strtod(text, &end) == strtod(text, NULL) && end != text && *end == '\0';
    if (number) {
        free(text);
        return ld_get_number_min(ld, v, label, 0, false, out);
    }
    char context[64];
    snprintf(context, sizeof(context), "tolerance %s", label);
    if (ld_check_expr(ld, v, text, ex, context)) {
        free(text);
        return -1;
    }
    free(*expr);
    *expr = text;
    return 0;
}

int load_tolerance(struct loader *ld, const yaml_node_t *m, const struct exercise_spec *ex,
                   struct tolerance *tol)
{
    yaml_node_t *v;
    if (ld_want_mapping(ld, m, "'tolerance'") ||
        ld_check_keys(ld, m, "in tolerance", tolerance_keys))
        return -1;
    if ((v = ld_map_get(ld, m, "rtol"))) {
        if (parse_tol_bound(ld, v, ex, "'rtol'", &tol->rtol, &tol->rtol_expr))
            return -1;
        tol->has_rtol = true;
    }
    if ((v = ld_map_get(ld, m, "atol"))) {
        if (parse_tol_bound(ld, v, ex, "'atol'", &tol->atol, &tol->atol_expr))
            return -1;
        tol->has_atol = true;
    }
    if ((v = ld_map_get(ld, m, "equal_nan")) && ld_get_bool(ld, v, "'equal_nan'", &tol->equal_nan))
        return -1;
    return 0;
}

void load_default_init(struct arg_spec *a)
{
    memset(&a->init, 0, sizeof(a->init));
    a->init.dist = DIST_UNIFORM;
    if (lg_dtype_is_float(a->dtype)) {
        a->init.low = 0;
        a->init.high = 1;
    } else {
        /* Unsigned types start at 0 so that no default value saturates. */
        a->init.low = a->dtype == LG_U8 ? 0 : -100;
        a->init.high = 100;
    }
    a->init.std = 1;
}

/* Every key of init but dist must be one that dist d reads. */
static int check_dist_keys(struct loader *ld, const yaml_node_t *m, int d)
{
    for (size_t i = 0; i < ld_map_size(m); i++) {
        yaml_node_t *key = ld_map_key(ld, m, i);
        if (!strcmp(ld_text(key), "dist") || ld_in_list(dist_keys[d], ld_text(key)))
            continue;
        struct strbuf sb = STRBUF_INIT;
        ld_join_names(&sb, dist_keys[d]);
        ld_fail(ld, key, "key '%s' does not apply to dist %s (expected: %s)", ld_text(key),
                spec_dist_names[d], strbuf_str(&sb));
        strbuf_release(&sb);
        return -1;
    }
    return 0;
}

static int parse_uniform(struct loader *ld, const yaml_node_t *m, struct init_spec *init)
{
    yaml_node_t *low, *high;
    if ((low = ld_map_get(ld, m, "low")) && ld_get_number(ld, low, "'low'", &init->low))
        return -1;
    if ((high = ld_map_get(ld, m, "high")) && ld_get_number(ld, high, "'high'", &init->high))
        return -1;
    if (!(init->low < init->high))
        return ld_fail(ld,
                       high  ? high
                       : low ? low
                             : m,
                       "'low' (%g) must be less than 'high' (%g) for dist uniform", init->low,
                       init->high);
    return 0;
}

static int parse_integers(struct loader *ld, const yaml_node_t *m, struct init_spec *init)
{
    yaml_node_t *low, *high;
    if (ld_need(ld, m, "low", "in init (dist integers)", &low) ||
        ld_get_number(ld, low, "'low'", &init->low) ||
        ld_need(ld, m, "high", "in init (dist integers)", &high) ||
        ld_get_number(ld, high, "'high'", &init->high))
        return -1;
    if (init->low != floor(init->low) || init->high != floor(init->high))
        return ld_fail(ld, init->low != floor(init->low) ? low : high,
                       "'low' and 'high' of dist integers must be whole numbers (got %.17g "
                       "and %.17g)",
                       init->low, init->high);
    if (!(init->low <= init->high))
        return ld_fail(ld, high, "'low' (%.17g) must not be greater than 'high' (%.17g)", init->low,
                       init->high);
    if (init->high - init->low >= 9007199254740992.0)
        return ld_fail(ld, high, "dist integers spans more than 2^53 values");
    return 0;
}

/* An init mapping into *init, which holds the argument's defaults on entry. */
static int parse_init_spec(struct loader *ld, const yaml_node_t *m, struct init_spec *init)
{
    yaml_node_t *n;
    int d = DIST_UNIFORM;
    if (ld_want_mapping(ld, m, "'init'") || ld_check_keys(ld, m, "in init", init_keys))
        return -1;
    if ((n = ld_map_get(ld, m, "dist")) && ld_get_enum(ld, n, "dist", spec_dist_names, &d))
        return -1;
    init->dist = (enum dist)d;
    if (check_dist_keys(ld, m, d))
        return -1;
    switch (init->dist) {
    case DIST_UNIFORM:
        return parse_uniform(ld, m, init);
    case DIST_NORMAL:
        init->mean = 0;
        init->std = 1;
        if ((n = ld_map_get(ld, m, "mean")) && ld_get_number(ld, n, "'mean'", &init->mean))
            return -1;
        return (n = ld_map_get(ld, m, "std")) &&
                       ld_get_number_min(ld, n, "'std'", 0, false, &init->std)
                   ? -1
                   : 0;
    case DIST_ARANGE:
        init->low = 0;
        init->high = 1;
        if ((n = ld_map_get(ld, m, "start")) && ld_get_number(ld, n, "'start'", &init->low))
            return -1;
        return (n = ld_map_get(ld, m, "step")) && ld_get_number(ld, n, "'step'", &init->high) ? -1
                                                                                              : 0;
    case DIST_CONSTANT:
        return ld_need(ld, m, "value", "in init (dist constant)", &n) ||
                       ld_get_number(ld, n, "'value'", &init->value)
                   ? -1
                   : 0;
    case DIST_INTEGERS:
        return parse_integers(ld, m, init);
    }
    return 0;
}

/* 'name': a C identifier, not taken by an earlier argument. */
static int arg_name(struct loader *ld, struct exercise_spec *ex, size_t index, const yaml_node_t *m)
{
    struct arg_spec *a = &ex->args[index];
    yaml_node_t *n;
    if (ld_need(ld, m, "name", "in argument", &n) || ld_get_string(ld, n, "'name'", &a->name))
        return -1;
    if (!ld_is_c_ident(a->name))
        return ld_fail(ld, n, "argument name '%s' is not a C identifier", a->name);
    for (size_t j = 0; j < index; j++)
        if (!strcmp(ex->args[j].name, a->name))
            return ld_fail(ld, n,
                           "duplicate argument name '%s' in exercise '%s' (first at line %d)",
                           a->name, ex->id, ex->args[j].loc.line);
    return 0;
}

/* 'kind', 'dtype' and the optional 'ctype'. */
static int arg_type(struct loader *ld, struct arg_spec *a, const yaml_node_t *m)
{
    yaml_node_t *n, *dtype_node;
    int e;
    if (ld_need(ld, m, "kind", "in argument", &n) ||
        ld_get_enum(ld, n, "kind", spec_kind_names, &e))
        return -1;
    a->kind = (enum arg_kind)e;
    if (ld_need(ld, m, "dtype", "in argument", &dtype_node) ||
        ld_want_scalar(ld, dtype_node, "a dtype", "'dtype'"))
        return -1;
    a->dtype = lg_dtype_parse(ld_text(dtype_node));
    if (a->dtype == LG_DTYPE_INVALID)
        return ld_fail(ld, dtype_node, "dtype '%s' is not one of %s", ld_text(dtype_node),
                       lg_dtype_names());
    if (a->kind == ARG_SCALAR && (a->dtype == LG_F16 || a->dtype == LG_BF16))
        return ld_fail(ld, dtype_node,
                       "half-precision scalars cannot be passed by value portably; use f32");
    if ((n = ld_map_get(ld, m, "ctype"))) {
        if (ld_get_string(ld, n, "'ctype'", &a->ctype))
            return -1;
        if (!ld_only_chars(a->ctype, ld_ctype_chars))
            return ld_fail(ld, n, "ctype '%s' is not a C type name (letters, digits, _, spaces, *)",
                           a->ctype);
    }
    return 0;
}

/* 'shape' (arrays) or 'value' (scalars): expressions of the exercise's sizes. */
static int arg_size(struct loader *ld, struct exercise_spec *ex, struct arg_spec *a,
                    const yaml_node_t *m)
{
    bool array = a->kind != ARG_SCALAR;
    char context[160];
    yaml_node_t *n = ld_map_get(ld, m, "shape"), *v = ld_map_get(ld, m, "value");
    if (!array && n)
        return ld_fail(ld, n, "scalar argument '%s' cannot have a shape (use 'value')", a->name);
    if (array && !n)
        return ld_fail(ld, m, "missing required key 'shape' in argument '%s' (kind %s)", a->name,
                       arg_kind_name(a->kind));
    if (array && v)
        return ld_fail(ld, v, "array argument '%s' cannot have a value (only scalars do)", a->name);
    if (!array && !v)
        return ld_fail(ld, m, "missing required key 'value' in argument '%s' (kind scalar)",
                       a->name);
    if (!array) {
        snprintf(context, sizeof(context), "value of argument '%s'", a->name);
        return ld_get_expr_text(ld, v, "'value'", &a->value) ||
                       ld_check_expr(ld, v, a->value, ex, context)
                   ? -1
                   : 0;
    }
    /* shape []: one element passed by pointer (a scalar result, a counter). */
    if (ld_want_sequence(ld, n, "'shape'", false))
        return -1;
    a->n_shape = ld_seq_size(n);
    if (a->n_shape > SPEC_MAX_DIMS)
        return ld_fail(ld, n, "argument '%s' has %zu dimensions, at most %d are supported", a->name,
                       a->n_shape, SPEC_MAX_DIMS);
    a->shape = xcalloc(a->n_shape ? a->n_shape : 1, sizeof(*a->shape));
    snprintf(context, sizeof(context), "shape of argument '%s'", a->name);
    for (size_t i = 0; i < a->n_shape; i++) {
        yaml_node_t *dim = ld_seq_at(ld, n, i);
        if (ld_get_expr_text(ld, dim, "an item of 'shape'", &a->shape[i]) ||
            ld_check_expr(ld, dim, a->shape[i], ex, context))
            return -1;
    }
    return 0;
}

/* 'init' (inputs) and 'tolerance' (outputs). */
static int arg_checks(struct loader *ld, struct exercise_spec *ex, struct arg_spec *a,
                      const yaml_node_t *m)
{
    yaml_node_t *n;
    load_default_init(a);
    if ((n = ld_map_get(ld, m, "init"))) {
        if (a->kind != ARG_IN && a->kind != ARG_INOUT)
            return ld_fail(ld, n, "'init' is only for in and inout arguments ('%s' has kind %s)",
                           a->name, arg_kind_name(a->kind));
        if (parse_init_spec(ld, n, &a->init))
            return -1;
    }
    if ((n = ld_map_get(ld, m, "tolerance"))) {
        if (a->kind != ARG_OUT && a->kind != ARG_INOUT)
            return ld_fail(ld, n,
                           "'tolerance' is only for out and inout arguments ('%s' has kind %s)",
                           a->name, arg_kind_name(a->kind));
        if (load_tolerance(ld, n, ex, &a->tol))
            return -1;
        a->has_tol = true;
    }
    return 0;
}

int load_arg(struct loader *ld, struct exercise_spec *ex, size_t index, const yaml_node_t *m)
{
    struct arg_spec *a = &ex->args[index];
    a->loc = ld_loc_of(m);
    if (ld_want_mapping(ld, m, "an item of 'args'") ||
        ld_check_keys(ld, m, "in argument", arg_keys))
        return -1;
    if (arg_name(ld, ex, index, m) || arg_type(ld, a, m) || arg_size(ld, ex, a, m))
        return -1;
    return arg_checks(ld, ex, a, m);
}

/* {arg: {dist: ...}, ...}: distributions of some inputs, over the arguments' init (a case's
 * `init`, an exercise's `precision_check`); who says whose, for the messages. */
int load_init_overrides(struct loader *ld, const struct exercise_spec *ex, const yaml_node_t *m,
                        const char *what, const char *who, struct init_override **list, size_t *n)
{
    if (ld_want_mapping(ld, m, what) || ld_check_keys(ld, m, "in init", NULL))
        return -1;
    *n = ld_map_size(m);
    *list = xcalloc(*n ? *n : 1, sizeof(**list));
    for (size_t i = 0; i < *n; i++) {
        yaml_node_t *key = ld_map_key(ld, m, i);
        int a = exercise_arg_index(ex, ld_text(key));
        if (a < 0 || (ex->args[a].kind != ARG_IN && ex->args[a].kind != ARG_INOUT)) {
            struct strbuf sb = STRBUF_INIT;
            for (size_t j = 0; j < ex->n_args; j++)
                if (ex->args[j].kind == ARG_IN || ex->args[j].kind == ARG_INOUT)
                    strbuf_addf(&sb, "%s%s", sb.len ? ", " : "", ex->args[j].name);
            ld_fail(ld, key, "%s: '%s' is not an input of exercise '%s' (inputs: %s)", who,
                    ld_text(key), ex->id, strbuf_str(&sb));
            strbuf_release(&sb);
            return -1;
        }
        (*list)[i].arg = xstrdup(ld_text(key));
        (*list)[i].init = ex->args[a].init;
        (*list)[i].loc = ld_loc_of(key);
        if (parse_init_spec(ld, ld_map_value(ld, m, i), &(*list)[i].init))
            return -1;
    }
    return 0;
}
