#include "spec/load_lms.h"
#include "spec/loader.h"
#include "spec/plan.h"

#include "base/alloc.h"
#include "base/expr.h"
#include "base/fs.h"
#include "base/util.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* Element counts at or above this are certainly a mistake in the spec (8 TiB of bytes). */
#define MAX_ELEMENTS 1099511627776.0 /* 2^40 */
#define MAX_PARAMS (sizeof(((struct expr_env *)0)->vars) / sizeof(((struct expr_env *)0)->vars[0]))

static const char *const top_keys[] = {
    "lab",  "title",     "course", "lang",      "show_hidden",     "build",
    "seed", "sanitizer", "kit",    "exercises", LOAD_LMS_TOP_KEYS, "solution_published",
    NULL};
static const char *const kit_keys[] = {"references", NULL};
static const char *const kit_reference_names[] = {"objects", "sources", NULL};
static const char *const build_keys[] = {"cflags", "nvccflags", "ldflags", "allow_symbols", NULL};
static const char *const exercise_keys[] = {
    "id",      "title",      "points",          "params", "args",      "variants",
    "cases",   "tolerance",  "tolerance_note",  "work",   "baseline",  "oracle",
    "timeout", "timing",     "performance",     "seed",   "sanitizer", "returns",
    "profile", "allow_tf32", "precision_check", NULL};
static const char *const arg_keys[] = {"name",  "kind", "dtype",     "ctype", "shape",
                                       "value", "init", "tolerance", NULL};
static const char *const init_keys[] = {"dist",  "low",  "high",  "mean", "std",
                                        "start", "step", "value", NULL};
static const char *const tolerance_keys[] = {"rtol", "atol", "equal_nan", NULL};
static const char *const work_keys[] = {"flops", "bytes", NULL};
static const char *const timing_keys[] = {"warmup", "min_samples", "max_samples", "target_rse",
                                          "budget", "flush_l2",    "blocking",    "checks",
                                          "rounds", NULL};
static const char *const perf_keys[] = {"points", "full_at", "zero_at", "variant", NULL};
static const char *const variant_keys[] = {"id",      "title",     "target", "function",
                                           "sources", "libs",      "memory", "transfer_from",
                                           "weight",  "reference", NULL};
static const char *const reference_keys[] = {"function", "sources", "libs", NULL};
static const char *const case_keys[] = {"id",      "sizes",     "hidden", "slow", "points",
                                        "timeout", "tolerance", "init",   NULL};
static const char *const returns_keys[] = {"name", "dtype", "tolerance", NULL};
static const char *const sanitizer_keys[] = {"tools", "case", NULL};
static const char *const profile_keys[] = {"case", NULL};

/* The keys of init that each distribution reads, indexed by enum dist. */
static const char *const dist_keys[][3] = {
    {"low", "high", NULL}, {"mean", "std", NULL}, {"start", "step", NULL},
    {"value", NULL, NULL}, {"low", "high", NULL},
};

/* ---- pieces ---- */

static void sanitizer_spec_copy(struct sanitizer_spec *dst, const struct sanitizer_spec *src)
{
    *dst = *src;
    dst->tools = src->n_tools ? xcalloc(src->n_tools, sizeof(char *)) : NULL;
    for (size_t i = 0; i < src->n_tools; i++)
        dst->tools[i] = xstrdup(src->tools[i]);
    dst->case_id = src->case_id ? xstrdup(src->case_id) : NULL;
}

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

static int parse_tolerance(struct loader *ld, const yaml_node_t *m, const struct exercise_spec *ex,
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

/* A sequence of strings, each accepted by check (which reports its own error). */
static int parse_string_list(struct loader *ld, const yaml_node_t *n, const char *label,
                             bool nonempty, char ***out, size_t *n_out)
{
    if (ld_want_sequence(ld, n, label, nonempty))
        return -1;
    size_t count = ld_seq_size(n);
    char item_label[96];
    snprintf(item_label, sizeof(item_label), "an item of %s", label);
    *out = xcalloc(count, sizeof(**out));
    *n_out = count;
    for (size_t i = 0; i < count; i++)
        if (ld_get_string(ld, ld_seq_at(ld, n, i), item_label, &(*out)[i]))
            return -1;
    return 0;
}

static int parse_libs(struct loader *ld, const yaml_node_t *n, struct impl_spec *impl)
{
    if (parse_string_list(ld, n, "'libs'", false, &impl->libs, &impl->n_libs))
        return -1;
    for (size_t i = 0; i < impl->n_libs; i++)
        if (!ld_only_chars(impl->libs[i], ld_lib_chars))
            return ld_fail(ld, ld_seq_at(ld, n, i), "library name '%s' must match [A-Za-z0-9_+.-]+",
                           impl->libs[i]);
    return 0;
}

static bool has_dotdot(const char *path)
{
    for (const char *p = path; *p;) {
        size_t len = strcspn(p, "/");
        if (len == 2 && p[0] == '.' && p[1] == '.')
            return true;
        p += len;
        while (*p == '/')
            p++;
    }
    return false;
}

static int parse_student_sources(struct loader *ld, const yaml_node_t *n, struct impl_spec *impl)
{
    if (parse_string_list(ld, n, "'sources'", true, &impl->sources, &impl->n_sources))
        return -1;
    for (size_t i = 0; i < impl->n_sources; i++) {
        const char *s = impl->sources[i];
        if (s[0] == '/')
            return ld_fail(ld, ld_seq_at(ld, n, i),
                           "source path '%s' must be relative to the submission folder", s);
        if (has_dotdot(s))
            return ld_fail(ld, ld_seq_at(ld, n, i), "source path '%s' must not contain '..'", s);
    }
    return 0;
}

static int resolve_reference_source(struct loader *ld, const yaml_node_t *n, char **src)
{
    const char *written = *src;
    char *joined;
    if (!strncmp(written, "kernels/", 8)) {
        if (!ld->kernel_root)
            return ld_fail(ld, n,
                           "reference source '%s' needs the labgrader root, which cannot be found "
                           "from %s",
                           written, ld->lab->dir);
        joined = path_join(ld->kernel_root, written);
        ld->used_kernels = true;
    } else {
        joined = path_join(ld->lab->dir, written);
    }
    struct stat st;
    int rc = 0;
    if (stat(joined, &st) != 0)
        rc = ld_fail(ld, n, "reference source '%s' not found: %s does not exist", written, joined);
    else if (!S_ISREG(st.st_mode))
        rc = ld_fail(ld, n, "reference source '%s' is not a regular file: %s", written, joined);
    if (!rc) {
        struct error e;
        char *abs = path_abs(joined, &e);
        if (!abs) {
            rc = ld_fail(ld, n, "reference source '%s': cannot resolve %s: %s", written, joined,
                         e.msg);
        } else {
            free(*src);
            *src = abs;
        }
    }
    free(joined);
    return rc;
}

static bool same_impl(const struct impl_spec *a, const struct impl_spec *b)
{
    if (strcmp(a->function, b->function) || a->n_sources != b->n_sources)
        return false;
    for (size_t i = 0; i < a->n_sources; i++)
        if (strcmp(a->sources[i], b->sources[i]))
            return false;
    return true;
}

static int register_function(struct loader *ld, const yaml_node_t *n, const char *name,
                             const struct impl_spec *reference)
{
    for (size_t i = 0; i < ld->n_fns; i++) {
        const struct fn_use *u = &ld->fns[i];
        if (strcmp(u->name, name))
            continue;
        if (reference && u->reference && same_impl(reference, u->reference))
            return 0;
        return ld_fail(ld, n,
                       "function '%s' is already used at line %d (function names must be unique in "
                       "the lab)",
                       name, u->line);
    }
    ALLOC_GROW(ld->fns, ld->n_fns + 1, ld->alloc_fns);
    ld->fns[ld->n_fns].name = name;
    ld->fns[ld->n_fns].reference = reference;
    ld->fns[ld->n_fns].line = ld_loc_of(n).line;
    ld->n_fns++;
    return 0;
}

static int parse_function_name(struct loader *ld, const yaml_node_t *n, char **out)
{
    if (ld_get_string(ld, n, "'function'", out))
        return -1;
    if (!ld_is_c_ident(*out))
        return ld_fail(ld, n, "function name '%s' is not a C identifier", *out);
    return 0;
}

static int parse_reference(struct loader *ld, const yaml_node_t *m, struct variant_spec *v)
{
    struct impl_spec *ref = &v->reference;
    yaml_node_t *fn, *sources, *libs;
    if (ld_want_mapping(ld, m, "'reference'") ||
        ld_check_keys(ld, m, "in reference", reference_keys) ||
        ld_need(ld, m, "function", "in reference", &fn) ||
        parse_function_name(ld, fn, &ref->function))
        return -1;
    if (ld_need(ld, m, "sources", "in reference", &sources) ||
        parse_string_list(ld, sources, "'sources'", true, &ref->sources, &ref->n_sources))
        return -1;
    for (size_t i = 0; i < ref->n_sources; i++)
        if (resolve_reference_source(ld, ld_seq_at(ld, sources, i), &ref->sources[i]))
            return -1;
    if ((libs = ld_map_get(ld, m, "libs")) && parse_libs(ld, libs, ref))
        return -1;
    if (register_function(ld, fn, ref->function, ref))
        return -1;
    v->has_reference = true;
    return 0;
}

static int check_memory_target(struct loader *ld, const yaml_node_t *n,
                               const struct variant_spec *v, enum mem_space mem)
{
    if (mem != MEM_HOST && v->target != TARGET_GPU)
        return ld_fail(ld, n, "memory '%s' needs target gpu (variant '%s' has target %s)",
                       mem_space_name(mem), v->id, target_name(v->target));
    return 0;
}

static void array_arg_names(const struct exercise_spec *ex, struct strbuf *sb)
{
    size_t k = 0;
    for (size_t i = 0; i < ex->n_args; i++)
        if (ex->args[i].kind != ARG_SCALAR)
            strbuf_addf(sb, "%s%s", k++ ? ", " : "", ex->args[i].name);
}

static int parse_memory_overrides(struct loader *ld, const yaml_node_t *m,
                                  const struct exercise_spec *ex, struct variant_spec *v)
{
    if (ld_check_keys(ld, m, "in memory", NULL))
        return -1;
    size_t n = ld_map_size(m);
    v->mem = xcalloc(n, sizeof(*v->mem));
    v->n_mem = n;
    for (size_t i = 0; i < n; i++) {
        yaml_node_t *key = ld_map_key(ld, m, i), *val = ld_map_value(ld, m, i);
        int idx = exercise_arg_index(ex, ld_text(key));
        if (idx < 0) {
            struct strbuf sb = STRBUF_INIT;
            array_arg_names(ex, &sb);
            ld_fail(ld, key, "unknown argument '%s' in memory (expected one of: %s)", ld_text(key),
                    strbuf_str(&sb));
            strbuf_release(&sb);
            return -1;
        }
        if (ex->args[idx].kind == ARG_SCALAR)
            return ld_fail(ld, key,
                           "argument '%s' is a scalar; memory applies to array arguments only",
                           ld_text(key));
        v->mem[i].arg = xstrdup(ld_text(key));
        int mem;
        if (ld_get_enum(ld, val, "memory", spec_mem_names, &mem) ||
            check_memory_target(ld, val, v, (enum mem_space)mem))
            return -1;
        v->mem[i].mem = (enum mem_space)mem;
    }
    return 0;
}

static int parse_variant(struct loader *ld, struct exercise_spec *ex, size_t index,
                         const yaml_node_t *m)
{
    struct variant_spec *v = &ex->variants[index];
    yaml_node_t *n;
    int e;
    v->loc = ld_loc_of(m);
    v->memory = MEM_HOST;
    v->transfer_from = MEM_HOST;
    v->weight = 1;
    if (ld_want_mapping(ld, m, "an item of 'variants'") ||
        ld_check_keys(ld, m, "in variant", variant_keys))
        return -1;

    if (ld_need(ld, m, "id", "in variant", &n) || ld_get_string(ld, n, "'id'", &v->id))
        return -1;
    if (!ld_is_lower_ident(v->id))
        return ld_fail(ld, n, "variant id '%s' must match [a-z][a-z0-9_]*", v->id);
    for (size_t j = 0; j < index; j++)
        if (!strcmp(ex->variants[j].id, v->id))
            return ld_fail(ld, n, "duplicate variant id '%s' in exercise '%s' (first at line %d)",
                           v->id, ex->id, ex->variants[j].loc.line);

    if ((n = ld_map_get(ld, m, "title"))) {
        if (ld_get_string(ld, n, "'title'", &v->title))
            return -1;
    } else {
        v->title = xstrdup(v->id);
    }
    if (ld_need(ld, m, "target", "in variant", &n) ||
        ld_get_enum(ld, n, "target", spec_target_names, &e))
        return -1;
    v->target = (enum target)e;

    if (ld_need(ld, m, "function", "in variant", &n) ||
        parse_function_name(ld, n, &v->student.function) ||
        register_function(ld, n, v->student.function, NULL))
        return -1;
    if (ld_need(ld, m, "sources", "in variant", &n) || parse_student_sources(ld, n, &v->student))
        return -1;
    if ((n = ld_map_get(ld, m, "libs")) && parse_libs(ld, n, &v->student))
        return -1;

    if ((n = ld_map_get(ld, m, "memory"))) {
        if (n->type == YAML_MAPPING_NODE) {
            if (parse_memory_overrides(ld, n, ex, v))
                return -1;
        } else if (n->type == YAML_SCALAR_NODE && !ld_is_null(n)) {
            if (ld_get_enum(ld, n, "memory", spec_mem_names, &e) ||
                check_memory_target(ld, n, v, (enum mem_space)e))
                return -1;
            v->memory = (enum mem_space)e;
        } else {
            return ld_fail_type(ld, n, "host, pinned, device or a mapping of argument names",
                                "'memory'");
        }
    }
    if ((n = ld_map_get(ld, m, "transfer_from"))) {
        if (ld_get_enum(ld, n, "transfer_from", spec_transfer_names, &e))
            return -1;
        v->transfer_from = (enum mem_space)e;
        if (v->transfer_from != MEM_HOST && v->target != TARGET_GPU)
            return ld_fail(ld, n,
                           "transfer_from '%s' needs target gpu (variant '%s' has target %s)",
                           mem_space_name(v->transfer_from), v->id, target_name(v->target));
    }
    if ((n = ld_map_get(ld, m, "weight")) &&
        ld_get_number_min(ld, n, "'weight'", 0, true, &v->weight))
        return -1;
    if ((n = ld_map_get(ld, m, "reference")) && parse_reference(ld, n, v))
        return -1;
    return 0;
}

static void default_init(struct arg_spec *a)
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

/* An init mapping into *init, which holds the argument's defaults on entry. */
static int parse_init_spec(struct loader *ld, const yaml_node_t *m, struct init_spec *init)
{
    yaml_node_t *n, *low = NULL, *high = NULL;
    int d = DIST_UNIFORM;
    if (ld_want_mapping(ld, m, "'init'") || ld_check_keys(ld, m, "in init", init_keys))
        return -1;
    if ((n = ld_map_get(ld, m, "dist")) && ld_get_enum(ld, n, "dist", spec_dist_names, &d))
        return -1;
    init->dist = (enum dist)d;
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
    switch (init->dist) {
    case DIST_UNIFORM:
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
        break;
    case DIST_NORMAL:
        init->mean = 0;
        init->std = 1;
        if ((n = ld_map_get(ld, m, "mean")) && ld_get_number(ld, n, "'mean'", &init->mean))
            return -1;
        if ((n = ld_map_get(ld, m, "std")) &&
            ld_get_number_min(ld, n, "'std'", 0, false, &init->std))
            return -1;
        break;
    case DIST_ARANGE:
        init->low = 0;
        init->high = 1;
        if ((n = ld_map_get(ld, m, "start")) && ld_get_number(ld, n, "'start'", &init->low))
            return -1;
        if ((n = ld_map_get(ld, m, "step")) && ld_get_number(ld, n, "'step'", &init->high))
            return -1;
        break;
    case DIST_CONSTANT:
        if (ld_need(ld, m, "value", "in init (dist constant)", &n) ||
            ld_get_number(ld, n, "'value'", &init->value))
            return -1;
        break;
    case DIST_INTEGERS:
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
            return ld_fail(ld, high, "'low' (%.17g) must not be greater than 'high' (%.17g)",
                           init->low, init->high);
        if (init->high - init->low >= 9007199254740992.0)
            return ld_fail(ld, high, "dist integers spans more than 2^53 values");
        break;
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
    default_init(a);
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
        if (parse_tolerance(ld, n, ex, &a->tol))
            return -1;
        a->has_tol = true;
    }
    return 0;
}

static int parse_arg(struct loader *ld, struct exercise_spec *ex, size_t index,
                     const yaml_node_t *m)
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

static int fail_unbound(struct loader *ld, const struct exercise_spec *ex,
                        const struct case_spec *c, const yaml_node_t *m)
{
    struct strbuf sb = STRBUF_INIT;
    ld_join_names(&sb, (const char *const *)ex->params);
    ld_fail(ld, m, "missing required key 'sizes' in case '%s' (expected sizes for: %s)", c->id,
            strbuf_str(&sb));
    strbuf_release(&sb);
    return -1;
}

/* Sizes are stored in params order, whatever order the case writes them in. */
static int parse_sizes(struct loader *ld, const struct exercise_spec *ex, struct case_spec *c,
                       const yaml_node_t *m)
{
    bool bound[MAX_PARAMS] = {false};
    if (ld_want_mapping(ld, m, "'sizes'") || ld_check_keys(ld, m, "in sizes", NULL))
        return -1;
    c->n_sizes = ex->n_params;
    c->sizes = xcalloc(c->n_sizes, sizeof(*c->sizes));
    for (size_t i = 0; i < ex->n_params; i++)
        c->sizes[i].name = xstrdup(ex->params[i]);
    for (size_t i = 0; i < ld_map_size(m); i++) {
        yaml_node_t *key = ld_map_key(ld, m, i), *val = ld_map_value(ld, m, i);
        size_t p = 0;
        while (p < ex->n_params && strcmp(ex->params[p], ld_text(key)))
            p++;
        if (p == ex->n_params) {
            if (ex->n_params == 0)
                return ld_fail(ld, key,
                               "unknown parameter '%s' in sizes (exercise '%s' has no params)",
                               ld_text(key), ex->id);
            struct strbuf sb = STRBUF_INIT;
            ld_join_names(&sb, (const char *const *)ex->params);
            ld_fail(ld, key, "unknown parameter '%s' in sizes (expected one of: %s)", ld_text(key),
                    strbuf_str(&sb));
            strbuf_release(&sb);
            return -1;
        }
        char label[96];
        snprintf(label, sizeof(label), "size '%s'", ld_text(key));
        if (ld_get_long(ld, val, label, &c->sizes[p].value))
            return -1;
        if (c->sizes[p].value <= 0)
            return ld_fail(ld, val, "%s must be > 0, got %ld", label, c->sizes[p].value);
        bound[p] = true;
    }
    for (size_t p = 0; p < ex->n_params; p++)
        if (!bound[p])
            return ld_fail(ld, m, "case '%s' does not bind parameter '%s'", c->id, ex->params[p]);
    return 0;
}

/* {arg: {dist: ...}, ...}: distributions of some inputs, over the arguments' init (a case's
 * `init`, an exercise's `precision_check`); who says whose, for the messages. */
static int parse_init_overrides(struct loader *ld, const struct exercise_spec *ex,
                                const yaml_node_t *m, const char *what, const char *who,
                                struct init_override **list, size_t *n)
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

/* init: {arg: {dist: ...}, ...}: the case's own inputs, over the arguments' init. */
static int parse_case_inits(struct loader *ld, const struct exercise_spec *ex, struct case_spec *c,
                            const yaml_node_t *m)
{
    char *who = xstrfmt("case '%s'", c->id);
    int rc = parse_init_overrides(ld, ex, m, "'init'", who, &c->inits, &c->n_inits);
    free(who);
    return rc;
}

static int parse_case(struct loader *ld, struct exercise_spec *ex, size_t index,
                      const yaml_node_t *m)
{
    struct case_spec *c = &ex->cases[index];
    yaml_node_t *n;
    c->loc = ld_loc_of(m);
    c->points = -1;
    c->timeout_s = ex->timeout_s;
    if (ld_want_mapping(ld, m, "an item of 'cases'") || ld_check_keys(ld, m, "in case", case_keys))
        return -1;

    if (ld_need(ld, m, "id", "in case", &n) || ld_get_string(ld, n, "'id'", &c->id))
        return -1;
    if (!ld_only_chars(c->id, ld_case_id_chars))
        return ld_fail(ld, n, "case id '%s' must match [A-Za-z0-9_.-]+", c->id);
    for (size_t j = 0; j < index; j++)
        if (!strcmp(ex->cases[j].id, c->id))
            return ld_fail(ld, n, "duplicate case id '%s' in exercise '%s' (first at line %d)",
                           c->id, ex->id, ex->cases[j].loc.line);

    if ((n = ld_map_get(ld, m, "sizes"))) {
        if (parse_sizes(ld, ex, c, n))
            return -1;
    } else if (ex->n_params > 0) {
        return fail_unbound(ld, ex, c, m);
    }

    if ((n = ld_map_get(ld, m, "hidden")) && ld_get_bool(ld, n, "'hidden'", &c->hidden))
        return -1;
    if ((n = ld_map_get(ld, m, "slow")) && ld_get_bool(ld, n, "'slow'", &c->slow))
        return -1;
    if ((n = ld_map_get(ld, m, "points")) &&
        ld_get_number_min(ld, n, "'points'", 0, false, &c->points))
        return -1;
    if ((n = ld_map_get(ld, m, "timeout")) &&
        ld_get_number_min(ld, n, "'timeout'", 0, true, &c->timeout_s))
        return -1;
    if ((n = ld_map_get(ld, m, "tolerance"))) {
        if (parse_tolerance(ld, n, ex, &c->tol))
            return -1;
        c->has_tol = true;
    }
    if ((n = ld_map_get(ld, m, "init")) && parse_case_inits(ld, ex, c, n))
        return -1;
    return 0;
}

static int parse_timing(struct loader *ld, const yaml_node_t *m, struct timing_spec *t)
{
    yaml_node_t *n, *min_node, *max_node;
    if (ld_want_mapping(ld, m, "'timing'") || ld_check_keys(ld, m, "in timing", timing_keys))
        return -1;
    if ((n = ld_map_get(ld, m, "warmup")) &&
        ld_get_int_range(ld, n, "'warmup'", 0, INT_MAX, &t->warmup))
        return -1;
    if ((min_node = ld_map_get(ld, m, "min_samples")) &&
        ld_get_int_range(ld, min_node, "'min_samples'", 1, INT_MAX, &t->min_samples))
        return -1;
    if ((max_node = ld_map_get(ld, m, "max_samples")) &&
        ld_get_int_range(ld, max_node, "'max_samples'", 1, INT_MAX, &t->max_samples))
        return -1;
    if (t->max_samples < t->min_samples)
        return ld_fail(ld, max_node ? max_node : min_node,
                       "'max_samples' (%d) must be >= 'min_samples' (%d)", t->max_samples,
                       t->min_samples);
    if ((n = ld_map_get(ld, m, "target_rse")) &&
        ld_get_number_min(ld, n, "'target_rse'", 0, true, &t->target_rse))
        return -1;
    if ((n = ld_map_get(ld, m, "budget")) &&
        ld_get_number_min(ld, n, "'budget'", 0, true, &t->budget_s))
        return -1;
    if ((n = ld_map_get(ld, m, "flush_l2")) && ld_get_bool(ld, n, "'flush_l2'", &t->flush_l2))
        return -1;
    if ((n = ld_map_get(ld, m, "blocking")) && ld_get_bool(ld, n, "'blocking'", &t->blocking))
        return -1;
    if ((n = ld_map_get(ld, m, "checks")) && ld_get_int_range(ld, n, "'checks'", 1, 8, &t->checks))
        return -1;
    if ((n = ld_map_get(ld, m, "rounds")) &&
        ld_get_int_range(ld, n, "'rounds'", 1, TIMING_MAX_ROUNDS, &t->rounds))
        return -1;
    return 0;
}

static int fail_no_variant(struct loader *ld, const yaml_node_t *n, const char *what,
                           const struct exercise_spec *ex)
{
    struct strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < ex->n_variants; i++)
        strbuf_addf(&sb, "%s%s", i ? ", " : "", ex->variants[i].id);
    ld_fail(ld, n, "%s '%s' is not a variant of exercise '%s' (expected one of: %s)", what,
            ld_text(n), ex->id, strbuf_str(&sb));
    strbuf_release(&sb);
    return -1;
}

static int parse_perf(struct loader *ld, const yaml_node_t *m, struct exercise_spec *ex)
{
    struct perf_spec *p = &ex->perf;
    yaml_node_t *n, *full, *zero;
    p->full_at = 1.2;
    p->zero_at = 10;
    if (ld_want_mapping(ld, m, "'performance'") ||
        ld_check_keys(ld, m, "in performance", perf_keys))
        return -1;
    if (ld_need(ld, m, "points", "in performance", &n) ||
        ld_get_number_min(ld, n, "'points'", 0, false, &p->points))
        return -1;
    if ((full = ld_map_get(ld, m, "full_at")) &&
        ld_get_number_min(ld, full, "'full_at'", 1, false, &p->full_at))
        return -1;
    if ((zero = ld_map_get(ld, m, "zero_at")) && ld_get_number(ld, zero, "'zero_at'", &p->zero_at))
        return -1;
    if (!(p->zero_at > p->full_at))
        return ld_fail(ld, zero ? zero : full, "'zero_at' (%g) must be greater than 'full_at' (%g)",
                       p->zero_at, p->full_at);
    if ((n = ld_map_get(ld, m, "variant"))) {
        if (ld_get_string(ld, n, "'variant'", &p->variant))
            return -1;
        const struct variant_spec *v = exercise_variant(ex, p->variant);
        if (!v)
            return fail_no_variant(ld, n, "performance variant", ex);
        if (!v->has_reference)
            return ld_fail(ld, n, "performance variant '%s' has no reference to be timed against",
                           v->id);
    }
    ex->has_perf = true;
    return 0;
}

static int check_case_points(struct loader *ld, const struct exercise_spec *ex,
                             const yaml_node_t *cases_node)
{
    size_t with = ex->n_cases, without = ex->n_cases;
    double sum = 0;
    for (size_t i = 0; i < ex->n_cases; i++) {
        if (ex->cases[i].points >= 0) {
            sum += ex->cases[i].points;
            if (with == ex->n_cases)
                with = i;
        } else if (without == ex->n_cases) {
            without = i;
        }
    }
    if (with == ex->n_cases)
        return 0;
    if (without < ex->n_cases)
        return ld_fail_loc(
            ld, ex->cases[without].loc,
            "case '%s' has no points but case '%s' has: give points to every case of "
            "exercise '%s' or to none",
            ex->cases[without].id, ex->cases[with].id, ex->id);
    if (fabs(sum - ex->points) > 1e-9)
        return ld_fail(ld, cases_node,
                       "case points of exercise '%s' add up to %g, but the exercise has %g points",
                       ex->id, sum, ex->points);
    return 0;
}

static int parse_params(struct loader *ld, const yaml_node_t *n, struct exercise_spec *ex)
{
    if (parse_string_list(ld, n, "'params'", false, &ex->params, &ex->n_params))
        return -1;
    if (ex->n_params > MAX_PARAMS)
        return ld_fail(ld, n, "at most %zu params are allowed, got %zu", (size_t)MAX_PARAMS,
                       ex->n_params);
    for (size_t i = 0; i < ex->n_params; i++) {
        yaml_node_t *item = ld_seq_at(ld, n, i);
        if (!ld_is_c_ident(ex->params[i]))
            return ld_fail(ld, item, "param '%s' is not a C identifier", ex->params[i]);
        for (size_t j = 0; j < i; j++)
            if (!strcmp(ex->params[i], ex->params[j]))
                return ld_fail(ld, item, "duplicate param '%s'", ex->params[i]);
    }
    /* A spare NULL slot lets ld_join_names() walk params; n_params stays the count. */
    ex->params = xrealloc(ex->params, (ex->n_params + 1) * sizeof(*ex->params));
    ex->params[ex->n_params] = NULL;
    return 0;
}

static int parse_work(struct loader *ld, const yaml_node_t *m, struct exercise_spec *ex)
{
    yaml_node_t *n;
    if (ld_want_mapping(ld, m, "'work'") || ld_check_keys(ld, m, "in work", work_keys))
        return -1;
    if ((n = ld_map_get(ld, m, "flops")) && (ld_get_expr_text(ld, n, "'flops'", &ex->flops) ||
                                             ld_check_expr(ld, n, ex->flops, ex, "work.flops")))
        return -1;
    if ((n = ld_map_get(ld, m, "bytes")) && (ld_get_expr_text(ld, n, "'bytes'", &ex->bytes) ||
                                             ld_check_expr(ld, n, ex->bytes, ex, "work.bytes")))
        return -1;
    return 0;
}

static int parse_baseline_oracle(struct loader *ld, const yaml_node_t *m, struct exercise_spec *ex)
{
    yaml_node_t *n;
    if ((n = ld_map_get(ld, m, "baseline"))) {
        if (ld_get_string(ld, n, "'baseline'", &ex->baseline))
            return -1;
        const struct variant_spec *v = exercise_variant(ex, ex->baseline);
        if (!v)
            return fail_no_variant(ld, n, "baseline", ex);
        if (v->target != TARGET_CPU)
            return ld_fail(ld, n,
                           "baseline '%s' must be a variant with target cpu, but it has target %s",
                           v->id, target_name(v->target));
        if (!v->has_reference)
            return ld_fail(ld, n, "baseline '%s' has no reference", v->id);
    }
    if ((n = ld_map_get(ld, m, "oracle"))) {
        if (ld_get_string(ld, n, "'oracle'", &ex->oracle))
            return -1;
        const struct variant_spec *v = exercise_variant(ex, ex->oracle);
        if (!v)
            return fail_no_variant(ld, n, "oracle", ex);
        if (!v->has_reference)
            return ld_fail(ld, n, "oracle '%s' has no reference", v->id);
        return 0;
    }
    const struct variant_spec *pick = NULL;
    for (size_t i = 0; i < ex->n_variants && !pick; i++)
        if (ex->variants[i].has_reference && ex->variants[i].target == TARGET_CPU)
            pick = &ex->variants[i];
    for (size_t i = 0; i < ex->n_variants && !pick; i++)
        if (ex->variants[i].has_reference)
            pick = &ex->variants[i];
    if (!pick)
        return ld_fail(ld, m,
                       "no variant of exercise '%s' has a reference, so nothing can produce the "
                       "expected outputs",
                       ex->id);
    ex->oracle = xstrdup(pick->id);
    return 0;
}

/*
 * sanitizer: true, false, or {tools: [memcheck, racecheck], case: n1000}. ex is NULL at the
 * lab's level, where a case cannot be named (case ids belong to an exercise).
 */
static int parse_sanitizer(struct loader *ld, const yaml_node_t *n, const struct exercise_spec *ex,
                           struct sanitizer_spec *s)
{
    static const char *const yes[] = {"true", "True", "TRUE", NULL};
    static const char *const no[] = {"false", "False", "FALSE", NULL};
    yaml_node_t *v;
    s->loc = ld_loc_of(n);
    if (n->type == YAML_SCALAR_NODE && ld_is_plain(n) &&
        (ld_in_list(yes, ld_text(n)) || ld_in_list(no, ld_text(n)))) {
        s->enabled = ld_in_list(yes, ld_text(n));
        return 0;
    }
    if (n->type != YAML_MAPPING_NODE)
        return ld_fail_type(ld, n, "true, false or a mapping {tools, case}", "'sanitizer'");
    if (ld_check_keys(ld, n, "in sanitizer", sanitizer_keys))
        return -1;
    s->enabled = true;
    if ((v = ld_map_get(ld, n, "tools"))) {
        if (parse_string_list(ld, v, "'tools'", true, &s->tools, &s->n_tools))
            return -1;
        for (size_t i = 0; i < s->n_tools; i++) {
            if (!sanitizer_tool_known(s->tools[i])) {
                struct strbuf sb = STRBUF_INIT;
                ld_join_names(&sb, sanitizer_tools);
                ld_fail(ld, ld_seq_at(ld, v, i), "compute-sanitizer tool '%s' is not one of %s",
                        s->tools[i], strbuf_str(&sb));
                strbuf_release(&sb);
                return -1;
            }
            for (size_t j = 0; j < i; j++)
                if (!strcmp(s->tools[i], s->tools[j]))
                    return ld_fail(ld, ld_seq_at(ld, v, i), "duplicate tool '%s' in sanitizer",
                                   s->tools[i]);
        }
    }
    if ((v = ld_map_get(ld, n, "case"))) {
        if (!ex)
            return ld_fail(ld, v,
                           "'case' belongs in an exercise's sanitizer (case ids are per exercise), "
                           "not in the lab's");
        if (ld_get_string(ld, v, "'case'", &s->case_id))
            return -1;
        const struct case_spec *c = NULL;
        for (size_t i = 0; i < ex->n_cases && !c; i++)
            if (!strcmp(ex->cases[i].id, s->case_id))
                c = &ex->cases[i];
        if (!c) {
            struct strbuf sb = STRBUF_INIT;
            for (size_t i = 0; i < ex->n_cases; i++)
                strbuf_addf(&sb, "%s%s", i ? ", " : "", ex->cases[i].id);
            ld_fail(ld, v,
                    "sanitizer case '%s' is not a case of exercise '%s' (expected one of: %s)",
                    s->case_id, ex->id, strbuf_str(&sb));
            strbuf_release(&sb);
            return -1;
        }
        if (c->hidden)
            return ld_fail(
                ld, v,
                "sanitizer case '%s' is hidden: its findings go into student reports, so "
                "name a visible case",
                s->case_id);
    }
    return 0;
}

/* The exercise's own keys: everything but its args, variants, cases and sanitizer. */
static int parse_exercise_head(struct loader *ld, size_t index, struct exercise_spec *ex,
                               const yaml_node_t *m)
{
    struct lab *lab = ld->lab;
    yaml_node_t *n;
    if (ld_need(ld, m, "id", "in exercise", &n) || ld_get_string(ld, n, "'id'", &ex->id))
        return -1;
    if (!ld_is_lower_ident(ex->id))
        return ld_fail(ld, n, "exercise id '%s' must match [a-z][a-z0-9_]*", ex->id);
    for (size_t j = 0; j < index; j++)
        if (!strcmp(lab->exercises[j].id, ex->id))
            return ld_fail(ld, n, "duplicate exercise id '%s' (first at line %d)", ex->id,
                           lab->exercises[j].loc.line);
    if (ld_need(ld, m, "title", "in exercise", &n) || ld_get_string(ld, n, "'title'", &ex->title))
        return -1;
    if (ld_need(ld, m, "points", "in exercise", &n) ||
        ld_get_number_min(ld, n, "'points'", 0, false, &ex->points))
        return -1;
    if ((n = ld_map_get(ld, m, "timeout")) &&
        ld_get_number_min(ld, n, "'timeout'", 0, true, &ex->timeout_s))
        return -1;
    ex->seed = lab->seed;
    if ((n = ld_map_get(ld, m, "seed")) && ld_get_seed(ld, n, &ex->seed))
        return -1;
    if ((n = ld_map_get(ld, m, "params"))) {
        if (parse_params(ld, n, ex))
            return -1;
    } else {
        ex->params = xcalloc(1, sizeof(*ex->params));
    }
    if ((n = ld_map_get(ld, m, "tolerance")) && parse_tolerance(ld, n, ex, &ex->tol))
        return -1;
    if ((n = ld_map_get(ld, m, "tolerance_note")) &&
        ld_get_string(ld, n, "'tolerance_note'", &ex->tol_note))
        return -1;
    if ((n = ld_map_get(ld, m, "work")) && parse_work(ld, n, ex))
        return -1;
    if ((n = ld_map_get(ld, m, "timing")) && parse_timing(ld, n, &ex->timing))
        return -1;
    if ((n = ld_map_get(ld, m, "allow_tf32")) &&
        ld_get_bool(ld, n, "'allow_tf32'", &ex->allow_tf32))
        return -1;
    return 0;
}

/* returns: {dtype, name, tolerance}: the function's return value, graded as an output of
 * shape [] that is not a parameter. Appended after the arguments. */
static int parse_returns(struct loader *ld, struct exercise_spec *ex, const yaml_node_t *m)
{
    yaml_node_t *n;
    if (ld_want_mapping(ld, m, "'returns'") || ld_check_keys(ld, m, "in returns", returns_keys))
        return -1;
    ex->args = xrealloc(ex->args, (ex->n_args + 1) * sizeof(*ex->args));
    struct arg_spec *a = &ex->args[ex->n_args++];
    memset(a, 0, sizeof(*a));
    a->loc = ld_loc_of(m);
    a->kind = ARG_OUT;
    a->is_return = true;
    a->shape = xcalloc(1, sizeof(*a->shape));
    if ((n = ld_map_get(ld, m, "name"))) {
        if (ld_get_string(ld, n, "'name'", &a->name))
            return -1;
        if (!ld_is_c_ident(a->name))
            return ld_fail(ld, n, "returns name '%s' is not a C identifier", a->name);
    } else {
        a->name = xstrdup("result");
    }
    for (size_t j = 0; j + 1 < ex->n_args; j++)
        if (!strcmp(ex->args[j].name, a->name))
            return ld_fail(ld, m,
                           "the return value's name '%s' is also an argument's: name it "
                           "with 'name'",
                           a->name);
    if (ld_need(ld, m, "dtype", "in returns", &n) || ld_want_scalar(ld, n, "a dtype", "'dtype'"))
        return -1;
    a->dtype = lg_dtype_parse(ld_text(n));
    if (a->dtype == LG_DTYPE_INVALID)
        return ld_fail(ld, n, "dtype '%s' is not one of %s", ld_text(n), lg_dtype_names());
    if (a->dtype == LG_F16 || a->dtype == LG_BF16)
        return ld_fail(ld, n, "a half-precision return value is not portable C; use f32");
    default_init(a);
    if ((n = ld_map_get(ld, m, "tolerance"))) {
        if (parse_tolerance(ld, n, ex, &a->tol))
            return -1;
        a->has_tol = true;
    }
    return 0;
}

static int parse_exercise_args(struct loader *ld, struct exercise_spec *ex, const yaml_node_t *m)
{
    yaml_node_t *args, *n;
    if (ld_need(ld, m, "args", "in exercise", &args) || ld_want_sequence(ld, args, "'args'", true))
        return -1;
    ex->n_args = ld_seq_size(args);
    ex->args = xcalloc(ex->n_args, sizeof(*ex->args));
    for (size_t i = 0; i < ex->n_args; i++)
        if (parse_arg(ld, ex, i, ld_seq_at(ld, args, i)))
            return -1;
    if ((n = ld_map_get(ld, m, "returns")) && parse_returns(ld, ex, n))
        return -1;
    for (size_t i = 0; i < ex->n_args; i++)
        if (ex->args[i].kind == ARG_OUT || ex->args[i].kind == ARG_INOUT)
            return 0;
    return ld_fail(ld, args,
                   "exercise '%s' has no out or inout argument and no 'returns', so nothing can "
                   "be checked",
                   ex->id);
}

static int parse_exercise_variants(struct loader *ld, struct exercise_spec *ex,
                                   const yaml_node_t *m)
{
    yaml_node_t *variants, *n;
    if (ld_need(ld, m, "variants", "in exercise", &variants) ||
        ld_want_sequence(ld, variants, "'variants'", true))
        return -1;
    ex->n_variants = ld_seq_size(variants);
    ex->variants = xcalloc(ex->n_variants, sizeof(*ex->variants));
    for (size_t i = 0; i < ex->n_variants; i++)
        if (parse_variant(ld, ex, i, ld_seq_at(ld, variants, i)))
            return -1;
    if (parse_baseline_oracle(ld, m, ex))
        return -1;
    if ((n = ld_map_get(ld, m, "performance")) && parse_perf(ld, n, ex))
        return -1;
    return 0;
}

/* The cases, then what every case implies (spec/plan.c): an error at the case's line. */
static int parse_exercise_cases(struct loader *ld, struct exercise_spec *ex, const yaml_node_t *m)
{
    yaml_node_t *cases;
    if (ld_need(ld, m, "cases", "in exercise", &cases) ||
        ld_want_sequence(ld, cases, "'cases'", true))
        return -1;
    ex->n_cases = ld_seq_size(cases);
    ex->cases = xcalloc(ex->n_cases, sizeof(*ex->cases));
    for (size_t i = 0; i < ex->n_cases; i++)
        if (parse_case(ld, ex, i, ld_seq_at(ld, cases, i)))
            return -1;
    if (check_case_points(ld, ex, cases))
        return -1;
    return plan_resolve_exercise(ld->lab, ex, ld->err);
}

static int parse_exercise_sanitizer(struct loader *ld, struct exercise_spec *ex,
                                    const yaml_node_t *m)
{
    yaml_node_t *n;
    if ((n = ld_map_get(ld, m, "sanitizer"))) {
        if (parse_sanitizer(ld, n, ex, &ex->sanitizer))
            return -1;
        if (ex->sanitizer.enabled && !exercise_has_gpu(ex))
            return ld_fail(ld, n,
                           "exercise '%s' has no GPU variant, and compute-sanitizer checks GPU "
                           "code only",
                           ex->id);
    } else if (ld->lab->sanitizer.enabled && exercise_has_gpu(ex)) {
        sanitizer_spec_copy(&ex->sanitizer, &ld->lab->sanitizer);
    }
    return 0;
}

/* profile: {case: ID}, a visible case of a GPU exercise (docs/profile.md). */
static int parse_exercise_profile(struct loader *ld, struct exercise_spec *ex, const yaml_node_t *m)
{
    yaml_node_t *n = ld_map_get(ld, m, "profile"), *v;
    if (!n)
        return 0;
    if (n->type != YAML_MAPPING_NODE)
        return ld_fail_type(ld, n, "a mapping {case}", "'profile'");
    if (ld_check_keys(ld, n, "in profile", profile_keys))
        return -1;
    if (!exercise_has_gpu(ex))
        return ld_fail(ld, n,
                       "exercise '%s' has no GPU variant, and --profile profiles GPU "
                       "kernels only",
                       ex->id);
    if (!(v = ld_map_get(ld, n, "case")))
        return 0;
    if (ld_get_string(ld, v, "'case'", &ex->profile_case))
        return -1;
    for (size_t i = 0; i < ex->n_cases; i++)
        if (!strcmp(ex->cases[i].id, ex->profile_case))
            return ex->cases[i].hidden ? ld_fail(ld, v,
                                                 "profile case '%s' is hidden: its numbers go into "
                                                 "student reports, so name a visible case",
                                                 ex->profile_case)
                                       : 0;
    return ld_fail(ld, v, "profile case '%s' is not a case of exercise '%s'", ex->profile_case,
                   ex->id);
}

/* After the arguments, which it names. */
static int parse_exercise_precision(struct loader *ld, struct exercise_spec *ex,
                                    const yaml_node_t *m)
{
    yaml_node_t *n = ld_map_get(ld, m, "precision_check");
    return n ? parse_init_overrides(ld, ex, n, "'precision_check'", "precision_check",
                                    &ex->precision_check, &ex->n_precision_check)
             : 0;
}

static int parse_exercise(struct loader *ld, size_t index, const yaml_node_t *m)
{
    struct exercise_spec *ex = &ld->lab->exercises[index];
    ex->loc = ld_loc_of(m);
    ex->timeout_s = 30;
    /* The timing defaults live here and only here (labs/README.md); the harness takes what
     * the job file says. */
    ex->timing = (struct timing_spec){.warmup = 2,
                                      .min_samples = 5,
                                      .max_samples = 50,
                                      .target_rse = 0.01,
                                      .budget_s = 2,
                                      .flush_l2 = false,
                                      .checks = 2,
                                      .rounds = 1};
    if (ld_want_mapping(ld, m, "an item of 'exercises'") ||
        ld_check_keys(ld, m, "in exercise", exercise_keys))
        return -1;
    if (parse_exercise_head(ld, index, ex, m) || parse_exercise_args(ld, ex, m) ||
        parse_exercise_variants(ld, ex, m) || parse_exercise_cases(ld, ex, m))
        return -1;
    return parse_exercise_sanitizer(ld, ex, m) || parse_exercise_profile(ld, ex, m) ||
                   parse_exercise_precision(ld, ex, m)
               ? -1
               : 0;
}

static int parse_build(struct loader *ld, const yaml_node_t *m)
{
    struct lab *lab = ld->lab;
    yaml_node_t *n;
    if (ld_want_mapping(ld, m, "'build'") || ld_check_keys(ld, m, "in build", build_keys))
        return -1;
    if ((n = ld_map_get(ld, m, "cflags")) && ld_get_string(ld, n, "'cflags'", &lab->cflags))
        return -1;
    if ((n = ld_map_get(ld, m, "nvccflags")) &&
        ld_get_string(ld, n, "'nvccflags'", &lab->nvccflags))
        return -1;
    if ((n = ld_map_get(ld, m, "ldflags")) && ld_get_string(ld, n, "'ldflags'", &lab->ldflags))
        return -1;
    if ((n = ld_map_get(ld, m, "allow_symbols")) &&
        parse_string_list(ld, n, "'allow_symbols'", false, &lab->allow_symbols,
                          &lab->n_allow_symbols))
        return -1;
    for (size_t i = 0; i < lab->n_allow_symbols; i++)
        if (!ld_is_c_ident(lab->allow_symbols[i]))
            return ld_fail(ld, n, "'%s' in allow_symbols is not a C identifier",
                           lab->allow_symbols[i]);
    return 0;
}

/* kit: {references: objects|sources}: how a student kit carries the references (kit.h). */
static int parse_kit(struct loader *ld, const yaml_node_t *m)
{
    yaml_node_t *n;
    int e;
    if (ld_want_mapping(ld, m, "'kit'") || ld_check_keys(ld, m, "in kit", kit_keys))
        return -1;
    if ((n = ld_map_get(ld, m, "references"))) {
        if (ld_get_enum(ld, n, "references", kit_reference_names, &e))
            return -1;
        ld->lab->kit_reference_sources = e == 1;
    }
    return 0;
}

static int parse_lab(struct loader *ld, const yaml_node_t *m)
{
    struct lab *lab = ld->lab;
    yaml_node_t *n;
    int e;
    if (ld_want_mapping(ld, m, "the lab file") || ld_check_keys(ld, m, "at top level", top_keys))
        return -1;
    if (ld_need(ld, m, "lab", "at top level", &n) || ld_get_long(ld, n, "'lab'", &lab->number))
        return -1;
    if (lab->number < 0)
        return ld_fail(ld, n, "'lab' must be >= 0, got %ld", lab->number);
    lab->id = xstrfmt("lab%ld", lab->number);
    if (ld_need(ld, m, "title", "at top level", &n) || ld_get_string(ld, n, "'title'", &lab->title))
        return -1;
    if ((n = ld_map_get(ld, m, "course"))) {
        if (ld_get_string(ld, n, "'course'", &lab->course))
            return -1;
    } else {
        lab->course = xstrdup("");
    }
    if ((n = ld_map_get(ld, m, "lang"))) {
        if (ld_get_enum(ld, n, "lang", spec_lang_names, &e))
            return -1;
        lab->lang = xstrdup(spec_lang_names[e]);
    } else {
        lab->lang = xstrdup("en");
    }
    if ((n = ld_map_get(ld, m, "show_hidden")) &&
        ld_get_bool(ld, n, "'show_hidden'", &lab->show_hidden))
        return -1;
    if ((n = ld_map_get(ld, m, "seed")) && ld_get_seed(ld, n, &lab->seed))
        return -1;
    if ((n = ld_map_get(ld, m, "build")) && parse_build(ld, n))
        return -1;
    if ((n = ld_map_get(ld, m, "kit")) && parse_kit(ld, n))
        return -1;
    if ((n = ld_map_get(ld, m, "solution_published")) &&
        ld_get_bool(ld, n, "'solution_published'", &lab->solution_published))
        return -1;
    if ((n = ld_map_get(ld, m, "sanitizer")) && parse_sanitizer(ld, n, NULL, &lab->sanitizer))
        return -1;
    if (load_lms_keys(ld, m, lab))
        return -1;
    if (ld_need(ld, m, "exercises", "at top level", &n) ||
        ld_want_sequence(ld, n, "'exercises'", true))
        return -1;
    lab->n_exercises = ld_seq_size(n);
    lab->exercises = xcalloc(lab->n_exercises, sizeof(*lab->exercises));
    for (size_t i = 0; i < lab->n_exercises; i++)
        if (parse_exercise(ld, i, ld_seq_at(ld, n, i)))
            return -1;
    return 0;
}

/* libyaml's own message, at its own position. */
static int yaml_failure(struct loader *ld, const yaml_parser_t *p, const struct strbuf *input)
{
    const char *problem = p->problem ? p->problem : "cannot parse the YAML";
    if (p->error == YAML_MEMORY_ERROR)
        die_oom();
    if (p->error == YAML_READER_ERROR) {
        /* Reader errors (bad encoding) carry a byte offset, not a mark. */
        int line = 1, col = 1;
        for (size_t i = 0; i < p->problem_offset && i < input->len; i++) {
            if (input->buf[i] == '\n') {
                line++;
                col = 1;
            } else {
                col++;
            }
        }
        return error_set_at(ld->err, ld->path, line, col, "%s", problem);
    }
    int line = (int)p->problem_mark.line + 1, col = (int)p->problem_mark.column + 1;
    if (p->context)
        return error_set_at(ld->err, ld->path, line, col, "%s (%s at line %d, column %d)", problem,
                            p->context, (int)p->context_mark.line + 1,
                            (int)p->context_mark.column + 1);
    return error_set_at(ld->err, ld->path, line, col, "%s", problem);
}

static int resolve_dirs(struct loader *ld, const char *path, const char *root)
{
    struct lab *lab = ld->lab;
    const char *slash = strrchr(path, '/');
    char *given = slash ? xstrndup(path, slash == path ? 1 : (size_t)(slash - path)) : xstrdup(".");
    lab->dir = path_abs(given, ld->err);
    free(given);
    if (!lab->dir)
        return -1;
    if (root) {
        lab->root = path_abs(root, ld->err);
        if (!lab->root) {
            error_prefix(ld->err, "labgrader root: ");
            return -1;
        }
        ld->kernel_root = xstrdup(lab->root);
    } else {
        char *up = path_join(lab->dir, "../..");
        ld->kernel_root = realpath(up, NULL);
        free(up);
    }
    return 0;
}

int spec_load(struct lab *lab, const char *path, const char *root, struct error *err)
{
    struct loader ld = {.path = path, .err = err, .lab = lab};
    struct strbuf input = STRBUF_INIT;
    yaml_parser_t parser;
    bool have_parser = false, have_doc = false;
    int rc = -1;

    lab_init(lab);
    lab->path = xstrdup(path);
    if (read_file(path, &input, err) || resolve_dirs(&ld, path, root))
        goto out;
    if (!yaml_parser_initialize(&parser))
        die_oom();
    have_parser = true;
    yaml_parser_set_input_string(&parser, (const unsigned char *)strbuf_str(&input), input.len);
    if (!yaml_parser_load(&parser, &ld.doc)) {
        yaml_failure(&ld, &parser, &input);
        goto out;
    }
    have_doc = true;
    yaml_node_t *top = yaml_document_get_root_node(&ld.doc);
    if (!top) {
        error_set_at(err, path, 0, 0,
                     "empty file: expected a mapping with lab, title and exercises");
        goto out;
    }
    yaml_document_t extra;
    if (!yaml_parser_load(&parser, &extra)) {
        yaml_failure(&ld, &parser, &input);
        goto out;
    }
    yaml_node_t *extra_top = yaml_document_get_root_node(&extra);
    if (extra_top)
        error_set_at(err, path, (int)extra_top->start_mark.line + 1,
                     (int)extra_top->start_mark.column + 1,
                     "a second YAML document: expected a single document");
    yaml_document_delete(&extra);
    if (extra_top)
        goto out;

    rc = parse_lab(&ld, top);
    if (!rc && !root && ld.kernel_root) {
        char *kernels = path_join(ld.kernel_root, "kernels");
        if (ld.used_kernels || dir_exists(kernels))
            lab->root = xstrdup(ld.kernel_root);
        free(kernels);
    }

out:
    if (have_doc)
        yaml_document_delete(&ld.doc);
    if (have_parser)
        yaml_parser_delete(&parser);
    strbuf_release(&input);
    free(ld.kernel_root);
    free(ld.fns);
    if (rc)
        lab_release(lab);
    return rc;
}
