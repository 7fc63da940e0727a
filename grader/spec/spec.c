#include "spec/spec.h"

#include "base/expr.h"
#include "base/alloc.h"
#include "base/fs.h"
#include "base/util.h"

#include <yaml.h>

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* Element counts at or above this are certainly a mistake in the spec (8 TiB of bytes). */
#define MAX_ELEMENTS 1099511627776.0 /* 2^40 */
#define MAX_PARAMS (sizeof(((struct expr_env *)0)->vars) / sizeof(((struct expr_env *)0)->vars[0]))

static const char *const kind_names[] = {"in", "out", "inout", "scalar", NULL};
static const char *const mem_names[] = {"host", "pinned", "device", NULL};
static const char *const transfer_names[] = {"host", "pinned", NULL};
static const char *const target_names[] = {"cpu", "gpu", NULL};
static const char *const dist_names[] = {"uniform", "normal", "arange", "constant", NULL};
static const char *const lang_names[] = {"es", "en", NULL};

static const char *const top_keys[] = {"lab",         "title",     "course", "lang",
                                       "show_hidden", "build",     "seed",   "sanitizer",
                                       "kit",         "exercises", NULL};
static const char *const kit_keys[] = {"references", NULL};
static const char *const kit_reference_names[] = {"objects", "sources", NULL};
static const char *const build_keys[] = {"cflags", "nvccflags", "ldflags", NULL};
static const char *const exercise_keys[] = {
    "id",      "title",     "points",         "params", "args",      "variants",
    "cases",   "tolerance", "tolerance_note", "work",   "baseline",  "oracle",
    "timeout", "timing",    "performance",    "seed",   "sanitizer", NULL};
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
static const char *const case_keys[] = {"id", "sizes", "hidden", "slow", "points", "timeout", NULL};
const char *const sanitizer_tools[] = {"memcheck", "racecheck", "initcheck", "synccheck", NULL};

bool sanitizer_tool_known(const char *name)
{
    for (size_t i = 0; name && sanitizer_tools[i]; i++)
        if (!strcmp(sanitizer_tools[i], name))
            return true;
    return false;
}

static const char *const sanitizer_keys[] = {"tools", "case", NULL};

/* The keys of init that each distribution reads, indexed by enum dist. */
static const char *const dist_keys[][3] = {
    {"low", "high", NULL},
    {"mean", "std", NULL},
    {"start", "step", NULL},
    {"value", NULL, NULL},
};

static const char *enum_name(const char *const *names, size_t n, int v)
{
    return v >= 0 && (size_t)v < n ? names[v] : "invalid";
}

const char *arg_kind_name(enum arg_kind k)
{
    return enum_name(kind_names, 4, (int)k);
}

const char *mem_space_name(enum mem_space m)
{
    return enum_name(mem_names, 3, (int)m);
}

const char *target_name(enum target t)
{
    return enum_name(target_names, 2, (int)t);
}

const char *dist_name(enum dist d)
{
    return enum_name(dist_names, 4, (int)d);
}

/* ---- lifetime ---- */

static void free_strings(char **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

static void impl_release(struct impl_spec *impl)
{
    free(impl->function);
    free_strings(impl->sources, impl->n_sources);
    free_strings(impl->libs, impl->n_libs);
}

static void sanitizer_spec_release(struct sanitizer_spec *s)
{
    free_strings(s->tools, s->n_tools);
    free(s->case_id);
    memset(s, 0, sizeof(*s));
}

static void sanitizer_spec_copy(struct sanitizer_spec *dst, const struct sanitizer_spec *src)
{
    *dst = *src;
    dst->tools = src->n_tools ? xcalloc(src->n_tools, sizeof(char *)) : NULL;
    for (size_t i = 0; i < src->n_tools; i++)
        dst->tools[i] = xstrdup(src->tools[i]);
    dst->case_id = src->case_id ? xstrdup(src->case_id) : NULL;
}

static void exercise_release(struct exercise_spec *ex)
{
    free(ex->id);
    free(ex->title);
    free_strings(ex->params, ex->n_params);
    for (size_t i = 0; ex->args && i < ex->n_args; i++) {
        struct arg_spec *a = &ex->args[i];
        free(a->name);
        free(a->ctype);
        free_strings(a->shape, a->n_shape);
        free(a->value);
    }
    free(ex->args);
    for (size_t i = 0; ex->variants && i < ex->n_variants; i++) {
        struct variant_spec *v = &ex->variants[i];
        free(v->id);
        free(v->title);
        impl_release(&v->student);
        impl_release(&v->reference);
        for (size_t j = 0; v->mem && j < v->n_mem; j++)
            free(v->mem[j].arg);
        free(v->mem);
    }
    free(ex->variants);
    for (size_t i = 0; ex->cases && i < ex->n_cases; i++) {
        struct case_spec *c = &ex->cases[i];
        free(c->id);
        for (size_t j = 0; c->sizes && j < c->n_sizes; j++)
            free(c->sizes[j].name);
        free(c->sizes);
    }
    free(ex->cases);
    free(ex->tol_note);
    free(ex->baseline);
    free(ex->oracle);
    free(ex->flops);
    free(ex->bytes);
    free(ex->perf.variant);
    sanitizer_spec_release(&ex->sanitizer);
}

void lab_init(struct lab *lab)
{
    memset(lab, 0, sizeof(*lab));
}

void lab_release(struct lab *lab)
{
    free(lab->path);
    free(lab->dir);
    free(lab->root);
    free(lab->id);
    free(lab->title);
    free(lab->course);
    free(lab->lang);
    free(lab->cflags);
    free(lab->nvccflags);
    free(lab->ldflags);
    sanitizer_spec_release(&lab->sanitizer);
    for (size_t i = 0; lab->exercises && i < lab->n_exercises; i++)
        exercise_release(&lab->exercises[i]);
    free(lab->exercises);
    lab_init(lab);
}

/* ---- the loader and its node helpers ---- */

/* Every function of a lab may end up linked into one program with the others, so a
 * name is used once; the one exception is the same reference code shared by variants. */
struct fn_use {
    const char *name;
    const struct impl_spec *reference; /* NULL for a student function */
    int line;
};

struct loader {
    const char *path;
    struct error *err;
    struct lab *lab;
    yaml_document_t doc;
    char *kernel_root; /* where "kernels/..." resolves; NULL when unknown */
    bool used_kernels;
    struct fn_use *fns;
    size_t n_fns, alloc_fns;
};

static struct src_loc loc_of(const yaml_node_t *n)
{
    struct src_loc loc = {(int)n->start_mark.line + 1, (int)n->start_mark.column + 1};
    return loc;
}

static int vfail_loc(struct loader *ld, struct src_loc loc, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

static int vfail_loc(struct loader *ld, struct src_loc loc, const char *fmt, va_list ap)
{
    char msg[sizeof(ld->err->msg)];
    vsnprintf(msg, sizeof(msg), fmt, ap);
    return error_set_at(ld->err, ld->path, loc.line, loc.col, "%s", msg);
}

static int fail_loc(struct loader *ld, struct src_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail_loc(struct loader *ld, struct src_loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail_loc(ld, loc, fmt, ap);
    va_end(ap);
    return -1;
}

static int fail(struct loader *ld, const yaml_node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(struct loader *ld, const yaml_node_t *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail_loc(ld, loc_of(n), fmt, ap);
    va_end(ap);
    return -1;
}

static const char *text(const yaml_node_t *n)
{
    return (const char *)n->data.scalar.value;
}

static bool is_plain(const yaml_node_t *n)
{
    return n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

static bool is_null(const yaml_node_t *n)
{
    if (n->type != YAML_SCALAR_NODE || !is_plain(n))
        return false;
    const char *s = text(n);
    return !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL");
}

/* What a node is, for "got ..." in messages. */
static void describe(const yaml_node_t *n, char *buf, size_t size)
{
    if (n->type == YAML_MAPPING_NODE)
        snprintf(buf, size, "a mapping");
    else if (n->type == YAML_SEQUENCE_NODE)
        snprintf(buf, size, "a sequence");
    else if (is_null(n))
        snprintf(buf, size, "nothing");
    else if (n->data.scalar.length > 60)
        snprintf(buf, size, "'%.60s...'", text(n));
    else
        snprintf(buf, size, "'%s'", text(n));
}

static int fail_type(struct loader *ld, const yaml_node_t *n, const char *expected,
                     const char *label)
{
    char got[96];
    describe(n, got, sizeof(got));
    return fail(ld, n, "expected %s for %s, got %s", expected, label, got);
}

static yaml_node_t *doc_node(struct loader *ld, int index)
{
    return yaml_document_get_node(&ld->doc, index);
}

static size_t seq_size(const yaml_node_t *n)
{
    return (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
}

static yaml_node_t *seq_at(struct loader *ld, const yaml_node_t *n, size_t i)
{
    return doc_node(ld, n->data.sequence.items.start[i]);
}

static size_t map_size(const yaml_node_t *n)
{
    return (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
}

static yaml_node_t *map_key(struct loader *ld, const yaml_node_t *n, size_t i)
{
    return doc_node(ld, n->data.mapping.pairs.start[i].key);
}

static yaml_node_t *map_value(struct loader *ld, const yaml_node_t *n, size_t i)
{
    return doc_node(ld, n->data.mapping.pairs.start[i].value);
}

static void join_names(struct strbuf *sb, const char *const *names)
{
    for (size_t i = 0; names[i]; i++)
        strbuf_addf(sb, "%s%s", i ? ", " : "", names[i]);
}

static bool in_list(const char *const *names, const char *s)
{
    for (size_t i = 0; names[i]; i++)
        if (!strcmp(names[i], s))
            return true;
    return false;
}

static int want_mapping(struct loader *ld, const yaml_node_t *n, const char *label)
{
    if (n->type != YAML_MAPPING_NODE)
        return fail_type(ld, n, "a mapping", label);
    return 0;
}

static int want_sequence(struct loader *ld, const yaml_node_t *n, const char *label, bool nonempty)
{
    if (n->type != YAML_SEQUENCE_NODE)
        return fail_type(ld, n, "a sequence", label);
    if (nonempty && seq_size(n) == 0)
        return fail(ld, n, "%s must not be empty", label);
    return 0;
}

/* Keys of a mapping: plain scalars, unique, and among `allowed` (when given). */
static int check_keys(struct loader *ld, const yaml_node_t *map, const char *where,
                      const char *const *allowed)
{
    size_t n = map_size(map);
    for (size_t i = 0; i < n; i++) {
        yaml_node_t *key = map_key(ld, map, i);
        if (key->type != YAML_SCALAR_NODE || is_null(key)) {
            char got[96];
            describe(key, got, sizeof(got));
            return fail(ld, key, "expected a plain key %s, got %s", where, got);
        }
        if (allowed && !in_list(allowed, text(key))) {
            struct strbuf sb = STRBUF_INIT;
            join_names(&sb, allowed);
            fail(ld, key, "unknown key '%s' %s (expected one of: %s)", text(key), where,
                 strbuf_str(&sb));
            strbuf_release(&sb);
            return -1;
        }
        for (size_t j = 0; j < i; j++) {
            yaml_node_t *prev = map_key(ld, map, j);
            if (!strcmp(text(prev), text(key)))
                return fail(ld, key, "duplicate key '%s' %s (first at line %d)", text(key), where,
                            loc_of(prev).line);
        }
    }
    return 0;
}

/* The value of key in a mapping whose keys check_keys() accepted; NULL when absent. */
static yaml_node_t *map_get(struct loader *ld, const yaml_node_t *map, const char *key)
{
    size_t n = map_size(map);
    for (size_t i = 0; i < n; i++) {
        yaml_node_t *k = map_key(ld, map, i);
        if (k->type == YAML_SCALAR_NODE && !strcmp(text(k), key))
            return map_value(ld, map, i);
    }
    return NULL;
}

static int need(struct loader *ld, const yaml_node_t *map, const char *key, const char *where,
                yaml_node_t **out)
{
    *out = map_get(ld, map, key);
    if (!*out)
        return fail(ld, map, "missing required key '%s' %s", key, where);
    return 0;
}

static int want_scalar(struct loader *ld, const yaml_node_t *n, const char *expected,
                       const char *label)
{
    if (n->type != YAML_SCALAR_NODE || is_null(n))
        return fail_type(ld, n, expected, label);
    if (strlen(text(n)) != n->data.scalar.length)
        return fail(ld, n, "%s contains a NUL character", label);
    return 0;
}

static int get_string(struct loader *ld, const yaml_node_t *n, const char *label, char **out)
{
    if (want_scalar(ld, n, "a string", label))
        return -1;
    free(*out);
    *out = xstrdup(text(n));
    return 0;
}

/* Expressions may be written as strings ("n*n") or as YAML numbers (3.5). */
static int get_expr_text(struct loader *ld, const yaml_node_t *n, const char *label, char **out)
{
    if (want_scalar(ld, n, "an expression", label))
        return -1;
    free(*out);
    *out = xstrdup(text(n));
    return 0;
}

static bool only_chars(const char *s, const char *allowed)
{
    return *s && strspn(s, allowed) == strlen(s);
}

static int fail_not(struct loader *ld, const yaml_node_t *n, const char *expected,
                    const char *label)
{
    char got[96];
    describe(n, got, sizeof(got));
    return fail(ld, n, "expected %s for %s, got %s%s", expected, label, got,
                is_plain(n) ? "" : " (quoted, so a string)");
}

static int get_number(struct loader *ld, const yaml_node_t *n, const char *label, double *out)
{
    double v;
    if (want_scalar(ld, n, "a number", label))
        return -1;
    /* Plain scalars only, and no strtod extras such as hex, "inf" or "nan". */
    if (!is_plain(n) || !only_chars(text(n), "0123456789+-.eE") || !parse_double(text(n), &v) ||
        !isfinite(v))
        return fail_not(ld, n, "a number", label);
    *out = v;
    return 0;
}

static int get_long(struct loader *ld, const yaml_node_t *n, const char *label, long *out)
{
    long v;
    if (want_scalar(ld, n, "an integer", label))
        return -1;
    if (!is_plain(n) || !only_chars(text(n), "0123456789+-") || !parse_long(text(n), &v))
        return fail_not(ld, n, "an integer", label);
    *out = v;
    return 0;
}

/* Another seed draws other inputs (a new term's hidden data, say); 0 keeps the default. */
static int get_seed(struct loader *ld, const yaml_node_t *n, long *out)
{
    if (get_long(ld, n, "'seed'", out))
        return -1;
    if (*out < 0)
        return fail(ld, n, "'seed' must be >= 0, got %ld", *out);
    return 0;
}

static int get_bool(struct loader *ld, const yaml_node_t *n, const char *label, bool *out)
{
    static const char *const yes[] = {"true", "True", "TRUE", NULL};
    static const char *const no[] = {"false", "False", "FALSE", NULL};
    if (want_scalar(ld, n, "true or false", label))
        return -1;
    if (is_plain(n) && in_list(yes, text(n)))
        *out = true;
    else if (is_plain(n) && in_list(no, text(n)))
        *out = false;
    else
        return fail_not(ld, n, "true or false", label);
    return 0;
}

/* A number >= min (strict: > min). */
static int get_number_min(struct loader *ld, const yaml_node_t *n, const char *label, double min,
                          bool strict, double *out)
{
    double v;
    if (get_number(ld, n, label, &v))
        return -1;
    if (strict ? !(v > min) : !(v >= min))
        return fail(ld, n, "%s must be %s %g, got %g", label, strict ? ">" : ">=", min, v);
    *out = v;
    return 0;
}

static int get_int_range(struct loader *ld, const yaml_node_t *n, const char *label, long lo,
                         long hi, int *out)
{
    long v;
    if (get_long(ld, n, label, &v))
        return -1;
    if (v < lo || v > hi) {
        if (hi == INT_MAX)
            return fail(ld, n, "%s must be >= %ld, got %ld", label, lo, v);
        return fail(ld, n, "%s must be between %ld and %ld, got %ld", label, lo, hi, v);
    }
    *out = (int)v;
    return 0;
}

/* One of names (NULL-terminated), as its index. `key` names the field in messages. */
static int get_enum(struct loader *ld, const yaml_node_t *n, const char *key,
                    const char *const *names, int *out)
{
    struct strbuf sb = STRBUF_INIT;
    join_names(&sb, names);
    int rc = 0;
    if (n->type != YAML_SCALAR_NODE || is_null(n)) {
        char got[96], label[64];
        describe(n, got, sizeof(got));
        snprintf(label, sizeof(label), "'%s'", key);
        rc = fail(ld, n, "expected one of %s for %s, got %s", strbuf_str(&sb), label, got);
    } else {
        size_t i = 0;
        while (names[i] && strcmp(names[i], text(n)))
            i++;
        if (names[i])
            *out = (int)i;
        else
            rc = fail(ld, n, "%s '%s' is not one of %s", key, text(n), strbuf_str(&sb));
    }
    strbuf_release(&sb);
    return rc;
}

static bool is_c_ident(const char *s)
{
    if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
        return false;
    return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") ==
           strlen(s);
}

static bool is_lower_ident(const char *s)
{
    if (!(*s >= 'a' && *s <= 'z'))
        return false;
    return strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") == strlen(s);
}

static const char case_id_chars[] =
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-";
static const char lib_chars[] =
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_+.-";
/* ctype goes verbatim into generated prototypes: type names and pointers, nothing else. */
static const char ctype_chars[] =
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_ *";

static int check_expr(struct loader *ld, const yaml_node_t *n, const char *src,
                      const struct exercise_spec *ex, const char *context)
{
    struct error e;
    error_init(&e);
    if (expr_check(src, (const char *const *)ex->params, ex->n_params, &e))
        return fail(ld, n, "bad expression '%s' in %s: %s", src, context, e.msg);
    return 0;
}

/* ---- pieces ---- */

static int parse_tolerance(struct loader *ld, const yaml_node_t *m, struct tolerance *tol)
{
    yaml_node_t *v;
    if (want_mapping(ld, m, "'tolerance'") || check_keys(ld, m, "in tolerance", tolerance_keys))
        return -1;
    if ((v = map_get(ld, m, "rtol"))) {
        if (get_number_min(ld, v, "'rtol'", 0, false, &tol->rtol))
            return -1;
        tol->has_rtol = true;
    }
    if ((v = map_get(ld, m, "atol"))) {
        if (get_number_min(ld, v, "'atol'", 0, false, &tol->atol))
            return -1;
        tol->has_atol = true;
    }
    if ((v = map_get(ld, m, "equal_nan")) && get_bool(ld, v, "'equal_nan'", &tol->equal_nan))
        return -1;
    return 0;
}

/* A sequence of strings, each accepted by check (which reports its own error). */
static int parse_string_list(struct loader *ld, const yaml_node_t *n, const char *label,
                             bool nonempty, char ***out, size_t *n_out)
{
    if (want_sequence(ld, n, label, nonempty))
        return -1;
    size_t count = seq_size(n);
    char item_label[96];
    snprintf(item_label, sizeof(item_label), "an item of %s", label);
    *out = xcalloc(count, sizeof(**out));
    *n_out = count;
    for (size_t i = 0; i < count; i++)
        if (get_string(ld, seq_at(ld, n, i), item_label, &(*out)[i]))
            return -1;
    return 0;
}

static int parse_libs(struct loader *ld, const yaml_node_t *n, struct impl_spec *impl)
{
    if (parse_string_list(ld, n, "'libs'", false, &impl->libs, &impl->n_libs))
        return -1;
    for (size_t i = 0; i < impl->n_libs; i++)
        if (!only_chars(impl->libs[i], lib_chars))
            return fail(ld, seq_at(ld, n, i), "library name '%s' must match [A-Za-z0-9_+.-]+",
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
            return fail(ld, seq_at(ld, n, i),
                        "source path '%s' must be relative to the submission folder", s);
        if (has_dotdot(s))
            return fail(ld, seq_at(ld, n, i), "source path '%s' must not contain '..'", s);
    }
    return 0;
}

static int resolve_reference_source(struct loader *ld, const yaml_node_t *n, char **src)
{
    const char *written = *src;
    char *joined;
    if (!strncmp(written, "kernels/", 8)) {
        if (!ld->kernel_root)
            return fail(ld, n,
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
        rc = fail(ld, n, "reference source '%s' not found: %s does not exist", written, joined);
    else if (!S_ISREG(st.st_mode))
        rc = fail(ld, n, "reference source '%s' is not a regular file: %s", written, joined);
    if (!rc) {
        struct error e;
        char *abs = path_abs(joined, &e);
        if (!abs) {
            rc =
                fail(ld, n, "reference source '%s': cannot resolve %s: %s", written, joined, e.msg);
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
        return fail(ld, n,
                    "function '%s' is already used at line %d (function names must be unique in "
                    "the lab)",
                    name, u->line);
    }
    ALLOC_GROW(ld->fns, ld->n_fns + 1, ld->alloc_fns);
    ld->fns[ld->n_fns].name = name;
    ld->fns[ld->n_fns].reference = reference;
    ld->fns[ld->n_fns].line = loc_of(n).line;
    ld->n_fns++;
    return 0;
}

static int parse_function_name(struct loader *ld, const yaml_node_t *n, char **out)
{
    if (get_string(ld, n, "'function'", out))
        return -1;
    if (!is_c_ident(*out))
        return fail(ld, n, "function name '%s' is not a C identifier", *out);
    return 0;
}

static int parse_reference(struct loader *ld, const yaml_node_t *m, struct variant_spec *v)
{
    struct impl_spec *ref = &v->reference;
    yaml_node_t *fn, *sources, *libs;
    if (want_mapping(ld, m, "'reference'") || check_keys(ld, m, "in reference", reference_keys) ||
        need(ld, m, "function", "in reference", &fn) || parse_function_name(ld, fn, &ref->function))
        return -1;
    if (need(ld, m, "sources", "in reference", &sources) ||
        parse_string_list(ld, sources, "'sources'", true, &ref->sources, &ref->n_sources))
        return -1;
    for (size_t i = 0; i < ref->n_sources; i++)
        if (resolve_reference_source(ld, seq_at(ld, sources, i), &ref->sources[i]))
            return -1;
    if ((libs = map_get(ld, m, "libs")) && parse_libs(ld, libs, ref))
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
        return fail(ld, n, "memory '%s' needs target gpu (variant '%s' has target %s)",
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
    if (check_keys(ld, m, "in memory", NULL))
        return -1;
    size_t n = map_size(m);
    v->mem = xcalloc(n, sizeof(*v->mem));
    v->n_mem = n;
    for (size_t i = 0; i < n; i++) {
        yaml_node_t *key = map_key(ld, m, i), *val = map_value(ld, m, i);
        int idx = exercise_arg_index(ex, text(key));
        if (idx < 0) {
            struct strbuf sb = STRBUF_INIT;
            array_arg_names(ex, &sb);
            fail(ld, key, "unknown argument '%s' in memory (expected one of: %s)", text(key),
                 strbuf_str(&sb));
            strbuf_release(&sb);
            return -1;
        }
        if (ex->args[idx].kind == ARG_SCALAR)
            return fail(ld, key,
                        "argument '%s' is a scalar; memory applies to array arguments only",
                        text(key));
        v->mem[i].arg = xstrdup(text(key));
        int mem;
        if (get_enum(ld, val, "memory", mem_names, &mem) ||
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
    v->loc = loc_of(m);
    v->memory = MEM_HOST;
    v->transfer_from = MEM_HOST;
    v->weight = 1;
    if (want_mapping(ld, m, "an item of 'variants'") ||
        check_keys(ld, m, "in variant", variant_keys))
        return -1;

    if (need(ld, m, "id", "in variant", &n) || get_string(ld, n, "'id'", &v->id))
        return -1;
    if (!is_lower_ident(v->id))
        return fail(ld, n, "variant id '%s' must match [a-z][a-z0-9_]*", v->id);
    for (size_t j = 0; j < index; j++)
        if (!strcmp(ex->variants[j].id, v->id))
            return fail(ld, n, "duplicate variant id '%s' in exercise '%s' (first at line %d)",
                        v->id, ex->id, ex->variants[j].loc.line);

    if ((n = map_get(ld, m, "title"))) {
        if (get_string(ld, n, "'title'", &v->title))
            return -1;
    } else {
        v->title = xstrdup(v->id);
    }
    if (need(ld, m, "target", "in variant", &n) || get_enum(ld, n, "target", target_names, &e))
        return -1;
    v->target = (enum target)e;

    if (need(ld, m, "function", "in variant", &n) ||
        parse_function_name(ld, n, &v->student.function) ||
        register_function(ld, n, v->student.function, NULL))
        return -1;
    if (need(ld, m, "sources", "in variant", &n) || parse_student_sources(ld, n, &v->student))
        return -1;
    if ((n = map_get(ld, m, "libs")) && parse_libs(ld, n, &v->student))
        return -1;

    if ((n = map_get(ld, m, "memory"))) {
        if (n->type == YAML_MAPPING_NODE) {
            if (parse_memory_overrides(ld, n, ex, v))
                return -1;
        } else if (n->type == YAML_SCALAR_NODE && !is_null(n)) {
            if (get_enum(ld, n, "memory", mem_names, &e) ||
                check_memory_target(ld, n, v, (enum mem_space)e))
                return -1;
            v->memory = (enum mem_space)e;
        } else {
            return fail_type(ld, n, "host, pinned, device or a mapping of argument names",
                             "'memory'");
        }
    }
    if ((n = map_get(ld, m, "transfer_from"))) {
        if (get_enum(ld, n, "transfer_from", transfer_names, &e))
            return -1;
        v->transfer_from = (enum mem_space)e;
        if (v->transfer_from != MEM_HOST && v->target != TARGET_GPU)
            return fail(ld, n, "transfer_from '%s' needs target gpu (variant '%s' has target %s)",
                        mem_space_name(v->transfer_from), v->id, target_name(v->target));
    }
    if ((n = map_get(ld, m, "weight")) && get_number_min(ld, n, "'weight'", 0, true, &v->weight))
        return -1;
    if ((n = map_get(ld, m, "reference")) && parse_reference(ld, n, v))
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

static int parse_init(struct loader *ld, const yaml_node_t *m, struct arg_spec *a)
{
    struct init_spec *init = &a->init;
    yaml_node_t *n, *low = NULL, *high = NULL;
    int d = DIST_UNIFORM;
    if (want_mapping(ld, m, "'init'") || check_keys(ld, m, "in init", init_keys))
        return -1;
    if ((n = map_get(ld, m, "dist")) && get_enum(ld, n, "dist", dist_names, &d))
        return -1;
    init->dist = (enum dist)d;
    for (size_t i = 0; i < map_size(m); i++) {
        yaml_node_t *key = map_key(ld, m, i);
        if (!strcmp(text(key), "dist") || in_list(dist_keys[d], text(key)))
            continue;
        struct strbuf sb = STRBUF_INIT;
        join_names(&sb, dist_keys[d]);
        fail(ld, key, "key '%s' does not apply to dist %s (expected: %s)", text(key), dist_names[d],
             strbuf_str(&sb));
        strbuf_release(&sb);
        return -1;
    }
    switch (init->dist) {
    case DIST_UNIFORM:
        if ((low = map_get(ld, m, "low")) && get_number(ld, low, "'low'", &init->low))
            return -1;
        if ((high = map_get(ld, m, "high")) && get_number(ld, high, "'high'", &init->high))
            return -1;
        if (!(init->low < init->high))
            return fail(ld,
                        high  ? high
                        : low ? low
                              : m,
                        "'low' (%g) must be less than 'high' (%g) for dist uniform", init->low,
                        init->high);
        break;
    case DIST_NORMAL:
        init->mean = 0;
        init->std = 1;
        if ((n = map_get(ld, m, "mean")) && get_number(ld, n, "'mean'", &init->mean))
            return -1;
        if ((n = map_get(ld, m, "std")) && get_number_min(ld, n, "'std'", 0, false, &init->std))
            return -1;
        break;
    case DIST_ARANGE:
        init->low = 0;
        init->high = 1;
        if ((n = map_get(ld, m, "start")) && get_number(ld, n, "'start'", &init->low))
            return -1;
        if ((n = map_get(ld, m, "step")) && get_number(ld, n, "'step'", &init->high))
            return -1;
        break;
    case DIST_CONSTANT:
        if (need(ld, m, "value", "in init (dist constant)", &n) ||
            get_number(ld, n, "'value'", &init->value))
            return -1;
        break;
    }
    return 0;
}

static int parse_arg(struct loader *ld, struct exercise_spec *ex, size_t index,
                     const yaml_node_t *m)
{
    struct arg_spec *a = &ex->args[index];
    yaml_node_t *n, *dtype_node;
    int e;
    a->loc = loc_of(m);
    if (want_mapping(ld, m, "an item of 'args'") || check_keys(ld, m, "in argument", arg_keys))
        return -1;

    if (need(ld, m, "name", "in argument", &n) || get_string(ld, n, "'name'", &a->name))
        return -1;
    if (!is_c_ident(a->name))
        return fail(ld, n, "argument name '%s' is not a C identifier", a->name);
    for (size_t j = 0; j < index; j++)
        if (!strcmp(ex->args[j].name, a->name))
            return fail(ld, n, "duplicate argument name '%s' in exercise '%s' (first at line %d)",
                        a->name, ex->id, ex->args[j].loc.line);

    if (need(ld, m, "kind", "in argument", &n) || get_enum(ld, n, "kind", kind_names, &e))
        return -1;
    a->kind = (enum arg_kind)e;
    bool array = a->kind != ARG_SCALAR;

    if (need(ld, m, "dtype", "in argument", &dtype_node) ||
        want_scalar(ld, dtype_node, "a dtype", "'dtype'"))
        return -1;
    a->dtype = lg_dtype_parse(text(dtype_node));
    if (a->dtype == LG_DTYPE_INVALID)
        return fail(ld, dtype_node, "dtype '%s' is not one of %s", text(dtype_node),
                    lg_dtype_names());
    if (!array && (a->dtype == LG_F16 || a->dtype == LG_BF16))
        return fail(ld, dtype_node,
                    "half-precision scalars cannot be passed by value portably; use f32");

    if ((n = map_get(ld, m, "ctype"))) {
        if (get_string(ld, n, "'ctype'", &a->ctype))
            return -1;
        if (!only_chars(a->ctype, ctype_chars))
            return fail(ld, n, "ctype '%s' is not a C type name (letters, digits, _, spaces, *)",
                        a->ctype);
    }

    char context[160];
    n = map_get(ld, m, "shape");
    if (!array && n)
        return fail(ld, n, "scalar argument '%s' cannot have a shape (use 'value')", a->name);
    if (array && !n)
        return fail(ld, m, "missing required key 'shape' in argument '%s' (kind %s)", a->name,
                    arg_kind_name(a->kind));
    if (n) {
        if (want_sequence(ld, n, "'shape'", true))
            return -1;
        a->n_shape = seq_size(n);
        a->shape = xcalloc(a->n_shape, sizeof(*a->shape));
        snprintf(context, sizeof(context), "shape of argument '%s'", a->name);
        for (size_t i = 0; i < a->n_shape; i++) {
            yaml_node_t *dim = seq_at(ld, n, i);
            if (get_expr_text(ld, dim, "an item of 'shape'", &a->shape[i]) ||
                check_expr(ld, dim, a->shape[i], ex, context))
                return -1;
        }
    }

    n = map_get(ld, m, "value");
    if (array && n)
        return fail(ld, n, "array argument '%s' cannot have a value (only scalars do)", a->name);
    if (!array && !n)
        return fail(ld, m, "missing required key 'value' in argument '%s' (kind scalar)", a->name);
    if (n) {
        snprintf(context, sizeof(context), "value of argument '%s'", a->name);
        if (get_expr_text(ld, n, "'value'", &a->value) || check_expr(ld, n, a->value, ex, context))
            return -1;
    }

    default_init(a);
    if ((n = map_get(ld, m, "init"))) {
        if (a->kind != ARG_IN && a->kind != ARG_INOUT)
            return fail(ld, n, "'init' is only for in and inout arguments ('%s' has kind %s)",
                        a->name, arg_kind_name(a->kind));
        if (parse_init(ld, n, a))
            return -1;
    }
    if ((n = map_get(ld, m, "tolerance"))) {
        if (a->kind != ARG_OUT && a->kind != ARG_INOUT)
            return fail(ld, n, "'tolerance' is only for out and inout arguments ('%s' has kind %s)",
                        a->name, arg_kind_name(a->kind));
        if (parse_tolerance(ld, n, &a->tol))
            return -1;
        a->has_tol = true;
    }
    return 0;
}

static int fail_unbound(struct loader *ld, const struct exercise_spec *ex,
                        const struct case_spec *c, const yaml_node_t *m)
{
    struct strbuf sb = STRBUF_INIT;
    join_names(&sb, (const char *const *)ex->params);
    fail(ld, m, "missing required key 'sizes' in case '%s' (expected sizes for: %s)", c->id,
         strbuf_str(&sb));
    strbuf_release(&sb);
    return -1;
}

/* Sizes are stored in params order, whatever order the case writes them in. */
static int parse_sizes(struct loader *ld, const struct exercise_spec *ex, struct case_spec *c,
                       const yaml_node_t *m)
{
    bool bound[MAX_PARAMS] = {false};
    if (want_mapping(ld, m, "'sizes'") || check_keys(ld, m, "in sizes", NULL))
        return -1;
    c->n_sizes = ex->n_params;
    c->sizes = xcalloc(c->n_sizes, sizeof(*c->sizes));
    for (size_t i = 0; i < ex->n_params; i++)
        c->sizes[i].name = xstrdup(ex->params[i]);
    for (size_t i = 0; i < map_size(m); i++) {
        yaml_node_t *key = map_key(ld, m, i), *val = map_value(ld, m, i);
        size_t p = 0;
        while (p < ex->n_params && strcmp(ex->params[p], text(key)))
            p++;
        if (p == ex->n_params) {
            if (ex->n_params == 0)
                return fail(ld, key,
                            "unknown parameter '%s' in sizes (exercise '%s' has no params)",
                            text(key), ex->id);
            struct strbuf sb = STRBUF_INIT;
            join_names(&sb, (const char *const *)ex->params);
            fail(ld, key, "unknown parameter '%s' in sizes (expected one of: %s)", text(key),
                 strbuf_str(&sb));
            strbuf_release(&sb);
            return -1;
        }
        char label[96];
        snprintf(label, sizeof(label), "size '%s'", text(key));
        if (get_long(ld, val, label, &c->sizes[p].value))
            return -1;
        if (c->sizes[p].value <= 0)
            return fail(ld, val, "%s must be > 0, got %ld", label, c->sizes[p].value);
        bound[p] = true;
    }
    for (size_t p = 0; p < ex->n_params; p++)
        if (!bound[p])
            return fail(ld, m, "case '%s' does not bind parameter '%s'", c->id, ex->params[p]);
    return 0;
}

static int parse_case(struct loader *ld, struct exercise_spec *ex, size_t index,
                      const yaml_node_t *m)
{
    struct case_spec *c = &ex->cases[index];
    yaml_node_t *n;
    c->loc = loc_of(m);
    c->points = -1;
    c->timeout_s = ex->timeout_s;
    if (want_mapping(ld, m, "an item of 'cases'") || check_keys(ld, m, "in case", case_keys))
        return -1;

    if (need(ld, m, "id", "in case", &n) || get_string(ld, n, "'id'", &c->id))
        return -1;
    if (!only_chars(c->id, case_id_chars))
        return fail(ld, n, "case id '%s' must match [A-Za-z0-9_.-]+", c->id);
    for (size_t j = 0; j < index; j++)
        if (!strcmp(ex->cases[j].id, c->id))
            return fail(ld, n, "duplicate case id '%s' in exercise '%s' (first at line %d)", c->id,
                        ex->id, ex->cases[j].loc.line);

    if ((n = map_get(ld, m, "sizes"))) {
        if (parse_sizes(ld, ex, c, n))
            return -1;
    } else if (ex->n_params > 0) {
        return fail_unbound(ld, ex, c, m);
    }

    if ((n = map_get(ld, m, "hidden")) && get_bool(ld, n, "'hidden'", &c->hidden))
        return -1;
    if ((n = map_get(ld, m, "slow")) && get_bool(ld, n, "'slow'", &c->slow))
        return -1;
    if ((n = map_get(ld, m, "points")) && get_number_min(ld, n, "'points'", 0, false, &c->points))
        return -1;
    if ((n = map_get(ld, m, "timeout")) &&
        get_number_min(ld, n, "'timeout'", 0, true, &c->timeout_s))
        return -1;
    return 0;
}

static int parse_timing(struct loader *ld, const yaml_node_t *m, struct timing_spec *t)
{
    yaml_node_t *n, *min_node, *max_node;
    if (want_mapping(ld, m, "'timing'") || check_keys(ld, m, "in timing", timing_keys))
        return -1;
    if ((n = map_get(ld, m, "warmup")) && get_int_range(ld, n, "'warmup'", 0, INT_MAX, &t->warmup))
        return -1;
    if ((min_node = map_get(ld, m, "min_samples")) &&
        get_int_range(ld, min_node, "'min_samples'", 1, INT_MAX, &t->min_samples))
        return -1;
    if ((max_node = map_get(ld, m, "max_samples")) &&
        get_int_range(ld, max_node, "'max_samples'", 1, INT_MAX, &t->max_samples))
        return -1;
    if (t->max_samples < t->min_samples)
        return fail(ld, max_node ? max_node : min_node,
                    "'max_samples' (%d) must be >= 'min_samples' (%d)", t->max_samples,
                    t->min_samples);
    if ((n = map_get(ld, m, "target_rse")) &&
        get_number_min(ld, n, "'target_rse'", 0, true, &t->target_rse))
        return -1;
    if ((n = map_get(ld, m, "budget")) && get_number_min(ld, n, "'budget'", 0, true, &t->budget_s))
        return -1;
    if ((n = map_get(ld, m, "flush_l2")) && get_bool(ld, n, "'flush_l2'", &t->flush_l2))
        return -1;
    if ((n = map_get(ld, m, "blocking")) && get_bool(ld, n, "'blocking'", &t->blocking))
        return -1;
    if ((n = map_get(ld, m, "checks")) && get_int_range(ld, n, "'checks'", 1, 8, &t->checks))
        return -1;
    if ((n = map_get(ld, m, "rounds")) &&
        get_int_range(ld, n, "'rounds'", 1, TIMING_MAX_ROUNDS, &t->rounds))
        return -1;
    return 0;
}

static int fail_no_variant(struct loader *ld, const yaml_node_t *n, const char *what,
                           const struct exercise_spec *ex)
{
    struct strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < ex->n_variants; i++)
        strbuf_addf(&sb, "%s%s", i ? ", " : "", ex->variants[i].id);
    fail(ld, n, "%s '%s' is not a variant of exercise '%s' (expected one of: %s)", what, text(n),
         ex->id, strbuf_str(&sb));
    strbuf_release(&sb);
    return -1;
}

static int parse_perf(struct loader *ld, const yaml_node_t *m, struct exercise_spec *ex)
{
    struct perf_spec *p = &ex->perf;
    yaml_node_t *n, *full, *zero;
    p->full_at = 1.2;
    p->zero_at = 10;
    if (want_mapping(ld, m, "'performance'") || check_keys(ld, m, "in performance", perf_keys))
        return -1;
    if (need(ld, m, "points", "in performance", &n) ||
        get_number_min(ld, n, "'points'", 0, false, &p->points))
        return -1;
    if ((full = map_get(ld, m, "full_at")) &&
        get_number_min(ld, full, "'full_at'", 1, false, &p->full_at))
        return -1;
    if ((zero = map_get(ld, m, "zero_at")) && get_number(ld, zero, "'zero_at'", &p->zero_at))
        return -1;
    if (!(p->zero_at > p->full_at))
        return fail(ld, zero ? zero : full, "'zero_at' (%g) must be greater than 'full_at' (%g)",
                    p->zero_at, p->full_at);
    if ((n = map_get(ld, m, "variant"))) {
        if (get_string(ld, n, "'variant'", &p->variant))
            return -1;
        const struct variant_spec *v = exercise_variant(ex, p->variant);
        if (!v)
            return fail_no_variant(ld, n, "performance variant", ex);
        if (!v->has_reference)
            return fail(ld, n, "performance variant '%s' has no reference to be timed against",
                        v->id);
    }
    ex->has_perf = true;
    return 0;
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

/* Element count of array argument a under env, or -1 with err set (no location). */
static int shape_elements(const struct arg_spec *a, const struct expr_env *env, double *count,
                          struct error *err)
{
    double total = 1;
    for (size_t d = 0; d < a->n_shape; d++) {
        double v;
        if (expr_eval(a->shape[d], env, &v, err)) {
            error_prefix(err, "dimension %zu ('%s') of argument '%s': ", d + 1, a->shape[d],
                         a->name);
            return -1;
        }
        if (!(v >= 1) || v != floor(v))
            return error_set(err,
                             "dimension %zu ('%s') of argument '%s' is %g, expected a positive "
                             "whole number",
                             d + 1, a->shape[d], a->name, v);
        total *= v;
    }
    if (!(total < MAX_ELEMENTS))
        return error_set(err, "argument '%s' has %.0f elements, expected fewer than 2^40", a->name,
                         total);
    *count = total;
    return 0;
}

/* What every case implies: element counts, scalar values, work formulas. */
static int check_case_values(struct loader *ld, const struct exercise_spec *ex,
                             const struct case_spec *c)
{
    struct expr_env env;
    struct error e;
    error_init(&e);
    case_env(c, &env);
    for (size_t i = 0; i < ex->n_args; i++) {
        const struct arg_spec *a = &ex->args[i];
        double v, lo, hi;
        if (a->kind != ARG_SCALAR) {
            if (shape_elements(a, &env, &v, &e))
                return fail_loc(ld, c->loc, "case '%s': %s", c->id, e.msg);
            continue;
        }
        if (expr_eval(a->value, &env, &v, &e))
            return fail_loc(ld, c->loc, "case '%s': value '%s' of argument '%s': %s", c->id,
                            a->value, a->name, e.msg);
        if (int_range(a->dtype, &lo, &hi) && (v != floor(v) || v < lo || v > hi))
            return fail_loc(ld, c->loc,
                            "case '%s': value '%s' of argument '%s' is %g, not a whole number in "
                            "the range of %s",
                            c->id, a->value, a->name, v, lg_dtype_name(a->dtype));
    }
    const char *formulas[2] = {ex->flops, ex->bytes}, *names[2] = {"flops", "bytes"};
    for (size_t k = 0; k < 2; k++) {
        double v;
        if (!formulas[k])
            continue;
        if (expr_eval(formulas[k], &env, &v, &e))
            return fail_loc(ld, c->loc, "case '%s': work %s '%s': %s", c->id, names[k], formulas[k],
                            e.msg);
        if (v < 0)
            return fail_loc(ld, c->loc, "case '%s': work %s '%s' is %g, expected >= 0", c->id,
                            names[k], formulas[k], v);
    }
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
        return fail_loc(ld, ex->cases[without].loc,
                        "case '%s' has no points but case '%s' has: give points to every case of "
                        "exercise '%s' or to none",
                        ex->cases[without].id, ex->cases[with].id, ex->id);
    if (fabs(sum - ex->points) > 1e-9)
        return fail(ld, cases_node,
                    "case points of exercise '%s' add up to %g, but the exercise has %g points",
                    ex->id, sum, ex->points);
    return 0;
}

static int parse_params(struct loader *ld, const yaml_node_t *n, struct exercise_spec *ex)
{
    if (parse_string_list(ld, n, "'params'", false, &ex->params, &ex->n_params))
        return -1;
    if (ex->n_params > MAX_PARAMS)
        return fail(ld, n, "at most %zu params are allowed, got %zu", (size_t)MAX_PARAMS,
                    ex->n_params);
    for (size_t i = 0; i < ex->n_params; i++) {
        yaml_node_t *item = seq_at(ld, n, i);
        if (!is_c_ident(ex->params[i]))
            return fail(ld, item, "param '%s' is not a C identifier", ex->params[i]);
        for (size_t j = 0; j < i; j++)
            if (!strcmp(ex->params[i], ex->params[j]))
                return fail(ld, item, "duplicate param '%s'", ex->params[i]);
    }
    /* A spare NULL slot lets join_names() walk params; n_params stays the count. */
    ex->params = xrealloc(ex->params, (ex->n_params + 1) * sizeof(*ex->params));
    ex->params[ex->n_params] = NULL;
    return 0;
}

static int parse_work(struct loader *ld, const yaml_node_t *m, struct exercise_spec *ex)
{
    yaml_node_t *n;
    if (want_mapping(ld, m, "'work'") || check_keys(ld, m, "in work", work_keys))
        return -1;
    if ((n = map_get(ld, m, "flops")) && (get_expr_text(ld, n, "'flops'", &ex->flops) ||
                                          check_expr(ld, n, ex->flops, ex, "work.flops")))
        return -1;
    if ((n = map_get(ld, m, "bytes")) && (get_expr_text(ld, n, "'bytes'", &ex->bytes) ||
                                          check_expr(ld, n, ex->bytes, ex, "work.bytes")))
        return -1;
    return 0;
}

static int parse_baseline_oracle(struct loader *ld, const yaml_node_t *m, struct exercise_spec *ex)
{
    yaml_node_t *n;
    if ((n = map_get(ld, m, "baseline"))) {
        if (get_string(ld, n, "'baseline'", &ex->baseline))
            return -1;
        const struct variant_spec *v = exercise_variant(ex, ex->baseline);
        if (!v)
            return fail_no_variant(ld, n, "baseline", ex);
        if (v->target != TARGET_CPU)
            return fail(ld, n,
                        "baseline '%s' must be a variant with target cpu, but it has target %s",
                        v->id, target_name(v->target));
        if (!v->has_reference)
            return fail(ld, n, "baseline '%s' has no reference", v->id);
    }
    if ((n = map_get(ld, m, "oracle"))) {
        if (get_string(ld, n, "'oracle'", &ex->oracle))
            return -1;
        const struct variant_spec *v = exercise_variant(ex, ex->oracle);
        if (!v)
            return fail_no_variant(ld, n, "oracle", ex);
        if (!v->has_reference)
            return fail(ld, n, "oracle '%s' has no reference", v->id);
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
        return fail(ld, m,
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
    s->loc = loc_of(n);
    if (n->type == YAML_SCALAR_NODE && is_plain(n) &&
        (in_list(yes, text(n)) || in_list(no, text(n)))) {
        s->enabled = in_list(yes, text(n));
        return 0;
    }
    if (n->type != YAML_MAPPING_NODE)
        return fail_type(ld, n, "true, false or a mapping {tools, case}", "'sanitizer'");
    if (check_keys(ld, n, "in sanitizer", sanitizer_keys))
        return -1;
    s->enabled = true;
    if ((v = map_get(ld, n, "tools"))) {
        if (parse_string_list(ld, v, "'tools'", true, &s->tools, &s->n_tools))
            return -1;
        for (size_t i = 0; i < s->n_tools; i++) {
            if (!sanitizer_tool_known(s->tools[i])) {
                struct strbuf sb = STRBUF_INIT;
                join_names(&sb, sanitizer_tools);
                fail(ld, seq_at(ld, v, i), "compute-sanitizer tool '%s' is not one of %s",
                     s->tools[i], strbuf_str(&sb));
                strbuf_release(&sb);
                return -1;
            }
            for (size_t j = 0; j < i; j++)
                if (!strcmp(s->tools[i], s->tools[j]))
                    return fail(ld, seq_at(ld, v, i), "duplicate tool '%s' in sanitizer",
                                s->tools[i]);
        }
    }
    if ((v = map_get(ld, n, "case"))) {
        if (!ex)
            return fail(ld, v,
                        "'case' belongs in an exercise's sanitizer (case ids are per exercise), "
                        "not in the lab's");
        if (get_string(ld, v, "'case'", &s->case_id))
            return -1;
        const struct case_spec *c = NULL;
        for (size_t i = 0; i < ex->n_cases && !c; i++)
            if (!strcmp(ex->cases[i].id, s->case_id))
                c = &ex->cases[i];
        if (!c) {
            struct strbuf sb = STRBUF_INIT;
            for (size_t i = 0; i < ex->n_cases; i++)
                strbuf_addf(&sb, "%s%s", i ? ", " : "", ex->cases[i].id);
            fail(ld, v, "sanitizer case '%s' is not a case of exercise '%s' (expected one of: %s)",
                 s->case_id, ex->id, strbuf_str(&sb));
            strbuf_release(&sb);
            return -1;
        }
        if (c->hidden)
            return fail(ld, v,
                        "sanitizer case '%s' is hidden: its findings go into student reports, so "
                        "name a visible case",
                        s->case_id);
    }
    return 0;
}

static int parse_exercise(struct loader *ld, size_t index, const yaml_node_t *m)
{
    struct lab *lab = ld->lab;
    struct exercise_spec *ex = &lab->exercises[index];
    yaml_node_t *n, *args, *variants, *cases;
    ex->loc = loc_of(m);
    ex->timeout_s = 30;
    ex->timing = (struct timing_spec){.warmup = 2,
                                      .min_samples = 5,
                                      .max_samples = 50,
                                      .target_rse = 0.01,
                                      .budget_s = 2,
                                      .flush_l2 = false,
                                      .checks = 2,
                                      .rounds = 1};
    if (want_mapping(ld, m, "an item of 'exercises'") ||
        check_keys(ld, m, "in exercise", exercise_keys))
        return -1;

    if (need(ld, m, "id", "in exercise", &n) || get_string(ld, n, "'id'", &ex->id))
        return -1;
    if (!is_lower_ident(ex->id))
        return fail(ld, n, "exercise id '%s' must match [a-z][a-z0-9_]*", ex->id);
    for (size_t j = 0; j < index; j++)
        if (!strcmp(lab->exercises[j].id, ex->id))
            return fail(ld, n, "duplicate exercise id '%s' (first at line %d)", ex->id,
                        lab->exercises[j].loc.line);
    if (need(ld, m, "title", "in exercise", &n) || get_string(ld, n, "'title'", &ex->title))
        return -1;
    if (need(ld, m, "points", "in exercise", &n) ||
        get_number_min(ld, n, "'points'", 0, false, &ex->points))
        return -1;
    if ((n = map_get(ld, m, "timeout")) &&
        get_number_min(ld, n, "'timeout'", 0, true, &ex->timeout_s))
        return -1;
    ex->seed = lab->seed;
    if ((n = map_get(ld, m, "seed")) && get_seed(ld, n, &ex->seed))
        return -1;
    if ((n = map_get(ld, m, "params"))) {
        if (parse_params(ld, n, ex))
            return -1;
    } else {
        ex->params = xcalloc(1, sizeof(*ex->params));
    }
    if ((n = map_get(ld, m, "tolerance")) && parse_tolerance(ld, n, &ex->tol))
        return -1;
    if ((n = map_get(ld, m, "tolerance_note")) &&
        get_string(ld, n, "'tolerance_note'", &ex->tol_note))
        return -1;
    if ((n = map_get(ld, m, "work")) && parse_work(ld, n, ex))
        return -1;
    if ((n = map_get(ld, m, "timing")) && parse_timing(ld, n, &ex->timing))
        return -1;

    if (need(ld, m, "args", "in exercise", &args) || want_sequence(ld, args, "'args'", true))
        return -1;
    ex->n_args = seq_size(args);
    ex->args = xcalloc(ex->n_args, sizeof(*ex->args));
    bool has_output = false;
    for (size_t i = 0; i < ex->n_args; i++) {
        if (parse_arg(ld, ex, i, seq_at(ld, args, i)))
            return -1;
        has_output |= ex->args[i].kind == ARG_OUT || ex->args[i].kind == ARG_INOUT;
    }
    if (!has_output)
        return fail(ld, args,
                    "exercise '%s' has no out or inout argument, so nothing can be checked",
                    ex->id);

    if (need(ld, m, "variants", "in exercise", &variants) ||
        want_sequence(ld, variants, "'variants'", true))
        return -1;
    ex->n_variants = seq_size(variants);
    ex->variants = xcalloc(ex->n_variants, sizeof(*ex->variants));
    for (size_t i = 0; i < ex->n_variants; i++)
        if (parse_variant(ld, ex, i, seq_at(ld, variants, i)))
            return -1;
    if (parse_baseline_oracle(ld, m, ex))
        return -1;
    if ((n = map_get(ld, m, "performance")) && parse_perf(ld, n, ex))
        return -1;

    if (need(ld, m, "cases", "in exercise", &cases) || want_sequence(ld, cases, "'cases'", true))
        return -1;
    ex->n_cases = seq_size(cases);
    ex->cases = xcalloc(ex->n_cases, sizeof(*ex->cases));
    for (size_t i = 0; i < ex->n_cases; i++)
        if (parse_case(ld, ex, i, seq_at(ld, cases, i)))
            return -1;
    if (check_case_points(ld, ex, cases))
        return -1;
    for (size_t i = 0; i < ex->n_cases; i++)
        if (check_case_values(ld, ex, &ex->cases[i]))
            return -1;
    if ((n = map_get(ld, m, "sanitizer"))) {
        if (parse_sanitizer(ld, n, ex, &ex->sanitizer))
            return -1;
        if (ex->sanitizer.enabled && !exercise_has_gpu(ex))
            return fail(ld, n,
                        "exercise '%s' has no GPU variant, and compute-sanitizer checks GPU "
                        "code only",
                        ex->id);
    } else if (lab->sanitizer.enabled && exercise_has_gpu(ex)) {
        sanitizer_spec_copy(&ex->sanitizer, &lab->sanitizer);
    }
    return 0;
}

static int parse_build(struct loader *ld, const yaml_node_t *m)
{
    struct lab *lab = ld->lab;
    yaml_node_t *n;
    if (want_mapping(ld, m, "'build'") || check_keys(ld, m, "in build", build_keys))
        return -1;
    if ((n = map_get(ld, m, "cflags")) && get_string(ld, n, "'cflags'", &lab->cflags))
        return -1;
    if ((n = map_get(ld, m, "nvccflags")) && get_string(ld, n, "'nvccflags'", &lab->nvccflags))
        return -1;
    if ((n = map_get(ld, m, "ldflags")) && get_string(ld, n, "'ldflags'", &lab->ldflags))
        return -1;
    return 0;
}

/* kit: {references: objects|sources}: how a student kit carries the references (kit.h). */
static int parse_kit(struct loader *ld, const yaml_node_t *m)
{
    yaml_node_t *n;
    int e;
    if (want_mapping(ld, m, "'kit'") || check_keys(ld, m, "in kit", kit_keys))
        return -1;
    if ((n = map_get(ld, m, "references"))) {
        if (get_enum(ld, n, "references", kit_reference_names, &e))
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
    if (want_mapping(ld, m, "the lab file") || check_keys(ld, m, "at top level", top_keys))
        return -1;
    if (need(ld, m, "lab", "at top level", &n) || get_long(ld, n, "'lab'", &lab->number))
        return -1;
    if (lab->number < 0)
        return fail(ld, n, "'lab' must be >= 0, got %ld", lab->number);
    lab->id = xstrfmt("lab%ld", lab->number);
    if (need(ld, m, "title", "at top level", &n) || get_string(ld, n, "'title'", &lab->title))
        return -1;
    if ((n = map_get(ld, m, "course"))) {
        if (get_string(ld, n, "'course'", &lab->course))
            return -1;
    } else {
        lab->course = xstrdup("");
    }
    if ((n = map_get(ld, m, "lang"))) {
        if (get_enum(ld, n, "lang", lang_names, &e))
            return -1;
        lab->lang = xstrdup(lang_names[e]);
    } else {
        lab->lang = xstrdup("en");
    }
    if ((n = map_get(ld, m, "show_hidden")) && get_bool(ld, n, "'show_hidden'", &lab->show_hidden))
        return -1;
    if ((n = map_get(ld, m, "seed")) && get_seed(ld, n, &lab->seed))
        return -1;
    if ((n = map_get(ld, m, "build")) && parse_build(ld, n))
        return -1;
    if ((n = map_get(ld, m, "kit")) && parse_kit(ld, n))
        return -1;
    if ((n = map_get(ld, m, "sanitizer")) && parse_sanitizer(ld, n, NULL, &lab->sanitizer))
        return -1;
    if (need(ld, m, "exercises", "at top level", &n) || want_sequence(ld, n, "'exercises'", true))
        return -1;
    lab->n_exercises = seq_size(n);
    lab->exercises = xcalloc(lab->n_exercises, sizeof(*lab->exercises));
    for (size_t i = 0; i < lab->n_exercises; i++)
        if (parse_exercise(ld, i, seq_at(ld, n, i)))
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

/* ---- lookups ---- */

const struct exercise_spec *lab_exercise(const struct lab *lab, const char *id)
{
    for (size_t i = 0; id && i < lab->n_exercises; i++)
        if (lab->exercises[i].id && !strcmp(lab->exercises[i].id, id))
            return &lab->exercises[i];
    return NULL;
}

const struct variant_spec *exercise_variant(const struct exercise_spec *ex, const char *id)
{
    for (size_t i = 0; id && i < ex->n_variants; i++)
        if (ex->variants[i].id && !strcmp(ex->variants[i].id, id))
            return &ex->variants[i];
    return NULL;
}

int exercise_arg_index(const struct exercise_spec *ex, const char *name)
{
    for (size_t i = 0; name && i < ex->n_args; i++)
        if (ex->args[i].name && !strcmp(ex->args[i].name, name))
            return (int)i;
    return -1;
}

enum mem_space variant_arg_memory(const struct variant_spec *v, const struct exercise_spec *ex,
                                  size_t i)
{
    if (i >= ex->n_args || ex->args[i].kind == ARG_SCALAR)
        return MEM_HOST;
    for (size_t j = 0; j < v->n_mem; j++)
        if (v->mem[j].arg && !strcmp(v->mem[j].arg, ex->args[i].name))
            return v->mem[j].mem;
    return v->memory;
}

struct tolerance exercise_arg_tolerance(const struct exercise_spec *ex, size_t i)
{
    struct tolerance t = {0};
    if (i >= ex->n_args)
        return t;
    const struct arg_spec *a = &ex->args[i];
    double rtol, atol;
    lg_dtype_default_tolerance(a->dtype, &rtol, &atol);
    bool arg_rtol = a->has_tol && a->tol.has_rtol, arg_atol = a->has_tol && a->tol.has_atol;
    t.has_rtol = arg_rtol || ex->tol.has_rtol;
    t.rtol = arg_rtol ? a->tol.rtol : ex->tol.has_rtol ? ex->tol.rtol : rtol;
    t.has_atol = arg_atol || ex->tol.has_atol;
    t.atol = arg_atol ? a->tol.atol : ex->tol.has_atol ? ex->tol.atol : atol;
    /* No "was it written" flag exists for equal_nan, so either level can turn it on. */
    t.equal_nan = ex->tol.equal_nan || (a->has_tol && a->tol.equal_nan);
    return t;
}

void case_env(const struct case_spec *c, struct expr_env *env)
{
    expr_env_init(env);
    for (size_t i = 0; i < c->n_sizes; i++)
        if (c->sizes[i].name)
            expr_env_set(env, c->sizes[i].name, (double)c->sizes[i].value);
}

long exercise_arg_count(const struct exercise_spec *ex, size_t i, const struct case_spec *c,
                        struct error *err)
{
    if (i >= ex->n_args) {
        error_set(err, "exercise '%s' has no argument %zu", ex->id, i);
        return -1;
    }
    if (ex->args[i].kind == ARG_SCALAR)
        return 1;
    struct expr_env env;
    double count;
    case_env(c, &env);
    if (shape_elements(&ex->args[i], &env, &count, err)) {
        error_prefix(err, "case '%s': ", c->id);
        return -1;
    }
    return (long)count;
}

bool exercise_has_gpu(const struct exercise_spec *ex)
{
    for (size_t i = 0; i < ex->n_variants; i++)
        if (ex->variants[i].target == TARGET_GPU)
            return true;
    return false;
}

/* Bytes of every array argument of a case: how big a run on it is. */
static double case_bytes(const struct exercise_spec *ex, const struct case_spec *c)
{
    struct expr_env env;
    double total = 0;
    case_env(c, &env);
    for (size_t i = 0; i < ex->n_args; i++) {
        double count;
        if (ex->args[i].kind == ARG_SCALAR)
            continue;
        if (shape_elements(&ex->args[i], &env, &count, NULL) == 0)
            total += count * (double)lg_dtype_size(ex->args[i].dtype);
    }
    return total;
}

const struct case_spec *exercise_sanitizer_case(const struct exercise_spec *ex)
{
    const struct case_spec *best = NULL;
    double best_bytes = 0;
    if (ex->sanitizer.case_id) {
        for (size_t i = 0; i < ex->n_cases; i++)
            if (!strcmp(ex->cases[i].id, ex->sanitizer.case_id))
                return &ex->cases[i];
        return NULL;
    }
    /* Quick cases first: a slow one only when there is nothing else. */
    for (int allow_slow = 0; allow_slow < 2 && !best; allow_slow++)
        for (size_t i = 0; i < ex->n_cases; i++) {
            const struct case_spec *c = &ex->cases[i];
            if (c->hidden || (c->slow && !allow_slow))
                continue;
            double b = case_bytes(ex, c);
            if (!best || b < best_bytes) {
                best = c;
                best_bytes = b;
            }
        }
    return best;
}

double exercise_case_points(const struct exercise_spec *ex, size_t case_index)
{
    if (case_index >= ex->n_cases || ex->n_cases == 0)
        return 0;
    if (ex->cases[case_index].points >= 0)
        return ex->cases[case_index].points;
    return ex->points / (double)ex->n_cases;
}
