#include "spec/loader.h"

#include "base/alloc.h"
#include "base/expr.h"
#include "base/util.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct src_loc ld_loc_of(const yaml_node_t *n)
{
    struct src_loc loc = {(int)n->start_mark.line + 1, (int)n->start_mark.column + 1};
    return loc;
}

int ld_vfail_loc(struct loader *ld, struct src_loc loc, const char *fmt, va_list ap)
{
    char msg[sizeof(ld->err->msg)];
    vsnprintf(msg, sizeof(msg), fmt, ap);
    return error_set_at(ld->err, ld->path, loc.line, loc.col, "%s", msg);
}

int ld_fail_loc(struct loader *ld, struct src_loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ld_vfail_loc(ld, loc, fmt, ap);
    va_end(ap);
    return -1;
}

int ld_fail(struct loader *ld, const yaml_node_t *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ld_vfail_loc(ld, ld_loc_of(n), fmt, ap);
    va_end(ap);
    return -1;
}

const char *ld_text(const yaml_node_t *n)
{
    return (const char *)n->data.scalar.value;
}

bool ld_is_plain(const yaml_node_t *n)
{
    return n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

bool ld_is_null(const yaml_node_t *n)
{
    if (n->type != YAML_SCALAR_NODE || !ld_is_plain(n))
        return false;
    const char *s = ld_text(n);
    return !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL");
}

/* What a node is, for "got ..." in messages. */
void ld_describe(const yaml_node_t *n, char *buf, size_t size)
{
    if (n->type == YAML_MAPPING_NODE)
        snprintf(buf, size, "a mapping");
    else if (n->type == YAML_SEQUENCE_NODE)
        snprintf(buf, size, "a sequence");
    else if (ld_is_null(n))
        snprintf(buf, size, "nothing");
    else if (n->data.scalar.length > 60)
        snprintf(buf, size, "'%.60s...'", ld_text(n));
    else
        snprintf(buf, size, "'%s'", ld_text(n));
}

int ld_fail_type(struct loader *ld, const yaml_node_t *n, const char *expected, const char *label)
{
    char got[96];
    ld_describe(n, got, sizeof(got));
    return ld_fail(ld, n, "expected %s for %s, got %s", expected, label, got);
}

yaml_node_t *ld_doc_node(struct loader *ld, int index)
{
    return yaml_document_get_node(&ld->doc, index);
}

size_t ld_seq_size(const yaml_node_t *n)
{
    return (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
}

yaml_node_t *ld_seq_at(struct loader *ld, const yaml_node_t *n, size_t i)
{
    return ld_doc_node(ld, n->data.sequence.items.start[i]);
}

size_t ld_map_size(const yaml_node_t *n)
{
    return (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
}

yaml_node_t *ld_map_key(struct loader *ld, const yaml_node_t *n, size_t i)
{
    return ld_doc_node(ld, n->data.mapping.pairs.start[i].key);
}

yaml_node_t *ld_map_value(struct loader *ld, const yaml_node_t *n, size_t i)
{
    return ld_doc_node(ld, n->data.mapping.pairs.start[i].value);
}

void ld_join_names(struct strbuf *sb, const char *const *names)
{
    for (size_t i = 0; names[i]; i++)
        strbuf_addf(sb, "%s%s", i ? ", " : "", names[i]);
}

bool ld_in_list(const char *const *names, const char *s)
{
    for (size_t i = 0; names[i]; i++)
        if (!strcmp(names[i], s))
            return true;
    return false;
}

int ld_want_mapping(struct loader *ld, const yaml_node_t *n, const char *label)
{
    if (n->type != YAML_MAPPING_NODE)
        return ld_fail_type(ld, n, "a mapping", label);
    return 0;
}

int ld_want_sequence(struct loader *ld, const yaml_node_t *n, const char *label, bool nonempty)
{
    if (n->type != YAML_SEQUENCE_NODE)
        return ld_fail_type(ld, n, "a sequence", label);
    if (nonempty && ld_seq_size(n) == 0)
        return ld_fail(ld, n, "%s must not be empty", label);
    return 0;
}

/* Keys of a mapping: plain scalars, unique, and among `allowed` (when given). */
int ld_check_keys(struct loader *ld, const yaml_node_t *map, const char *where,
                  const char *const *allowed)
{
    size_t n = ld_map_size(map);
    for (size_t i = 0; i < n; i++) {
        yaml_node_t *key = ld_map_key(ld, map, i);
        if (key->type != YAML_SCALAR_NODE || ld_is_null(key)) {
            char got[96];
            ld_describe(key, got, sizeof(got));
            return ld_fail(ld, key, "expected a plain key %s, got %s", where, got);
        }
        if (allowed && !ld_in_list(allowed, ld_text(key))) {
            struct strbuf sb = STRBUF_INIT;
            ld_join_names(&sb, allowed);
            ld_fail(ld, key, "unknown key '%s' %s (expected one of: %s)", ld_text(key), where,
                    strbuf_str(&sb));
            strbuf_release(&sb);
            return -1;
        }
        for (size_t j = 0; j < i; j++) {
            yaml_node_t *prev = ld_map_key(ld, map, j);
            if (!strcmp(ld_text(prev), ld_text(key)))
                return ld_fail(ld, key, "duplicate key '%s' %s (first at line %d)", ld_text(key),
                               where, ld_loc_of(prev).line);
        }
    }
    return 0;
}

/* The value of key in a mapping whose keys ld_check_keys() accepted; NULL when absent. */
yaml_node_t *ld_map_get(struct loader *ld, const yaml_node_t *map, const char *key)
{
    size_t n = ld_map_size(map);
    for (size_t i = 0; i < n; i++) {
        yaml_node_t *k = ld_map_key(ld, map, i);
        if (k->type == YAML_SCALAR_NODE && !strcmp(ld_text(k), key))
            return ld_map_value(ld, map, i);
    }
    return NULL;
}

int ld_need(struct loader *ld, const yaml_node_t *map, const char *key, const char *where,
            yaml_node_t **out)
{
    *out = ld_map_get(ld, map, key);
    if (!*out)
        return ld_fail(ld, map, "missing required key '%s' %s", key, where);
    return 0;
}

int ld_want_scalar(struct loader *ld, const yaml_node_t *n, const char *expected, const char *label)
{
    if (n->type != YAML_SCALAR_NODE || ld_is_null(n))
        return ld_fail_type(ld, n, expected, label);
    if (strlen(ld_text(n)) != n->data.scalar.length)
        return ld_fail(ld, n, "%s contains a NUL character", label);
    return 0;
}

int ld_get_string(struct loader *ld, const yaml_node_t *n, const char *label, char **out)
{
    if (ld_want_scalar(ld, n, "a string", label))
        return -1;
    free(*out);
    *out = xstrdup(ld_text(n));
    return 0;
}

/* Expressions may be written as strings ("n*n") or as YAML numbers (3.5). */
int ld_get_expr_text(struct loader *ld, const yaml_node_t *n, const char *label, char **out)
{
    if (ld_want_scalar(ld, n, "an expression", label))
        return -1;
    free(*out);
    *out = xstrdup(ld_text(n));
    return 0;
}

bool ld_only_chars(const char *s, const char *allowed)
{
    return *s && strspn(s, allowed) == strlen(s);
}

int ld_fail_not(struct loader *ld, const yaml_node_t *n, const char *expected, const char *label)
{
    char got[96];
    ld_describe(n, got, sizeof(got));
    return ld_fail(ld, n, "expected %s for %s, got %s%s", expected, label, got,
                   ld_is_plain(n) ? "" : " (quoted, so a string)");
}

int ld_get_number(struct loader *ld, const yaml_node_t *n, const char *label, double *out)
{
    double v;
    if (ld_want_scalar(ld, n, "a number", label))
        return -1;
    /* Plain scalars only, and no strtod extras such as hex, "inf" or "nan". */
    if (!ld_is_plain(n) || !ld_only_chars(ld_text(n), "0123456789+-.eE") ||
        !parse_double(ld_text(n), &v) || !isfinite(v))
        return ld_fail_not(ld, n, "a number", label);
    *out = v;
    return 0;
}

int ld_get_long(struct loader *ld, const yaml_node_t *n, const char *label, long *out)
{
    long v;
    if (ld_want_scalar(ld, n, "an integer", label))
        return -1;
    if (!ld_is_plain(n) || !ld_only_chars(ld_text(n), "0123456789+-") ||
        !parse_long(ld_text(n), &v))
        return ld_fail_not(ld, n, "an integer", label);
    *out = v;
    return 0;
}

/* Another seed draws other inputs (a new term's hidden data, say); 0 keeps the default. */
int ld_get_seed(struct loader *ld, const yaml_node_t *n, long *out)
{
    if (ld_get_long(ld, n, "'seed'", out))
        return -1;
    if (*out < 0)
        return ld_fail(ld, n, "'seed' must be >= 0, got %ld", *out);
    return 0;
}

int ld_get_bool(struct loader *ld, const yaml_node_t *n, const char *label, bool *out)
{
    static const char *const yes[] = {"true", "True", "TRUE", NULL};
    static const char *const no[] = {"false", "False", "FALSE", NULL};
    if (ld_want_scalar(ld, n, "true or false", label))
        return -1;
    if (ld_is_plain(n) && ld_in_list(yes, ld_text(n)))
        *out = true;
    else if (ld_is_plain(n) && ld_in_list(no, ld_text(n)))
        *out = false;
    else
        return ld_fail_not(ld, n, "true or false", label);
    return 0;
}

/* A number >= min (strict: > min). */
int ld_get_number_min(struct loader *ld, const yaml_node_t *n, const char *label, double min,
                      bool strict, double *out)
{
    double v;
    if (ld_get_number(ld, n, label, &v))
        return -1;
    if (strict ? !(v > min) : !(v >= min))
        return ld_fail(ld, n, "%s must be %s %g, got %g", label, strict ? ">" : ">=", min, v);
    *out = v;
    return 0;
}

int ld_get_int_range(struct loader *ld, const yaml_node_t *n, const char *label, long lo, long hi,
                     int *out)
{
    long v;
    if (ld_get_long(ld, n, label, &v))
        return -1;
    if (v < lo || v > hi) {
        if (hi == INT_MAX)
            return ld_fail(ld, n, "%s must be >= %ld, got %ld", label, lo, v);
        return ld_fail(ld, n, "%s must be between %ld and %ld, got %ld", label, lo, hi, v);
    }
    *out = (int)v;
    return 0;
}

/* One of names (NULL-terminated), as its index. `key` names the field in messages. */
int ld_get_enum(struct loader *ld, const yaml_node_t *n, const char *key, const char *const *names,
                int *out)
{
    struct strbuf sb = STRBUF_INIT;
    ld_join_names(&sb, names);
    int rc = 0;
    if (n->type != YAML_SCALAR_NODE || ld_is_null(n)) {
        char got[96], label[64];
        ld_describe(n, got, sizeof(got));
        snprintf(label, sizeof(label), "'%s'", key);
        rc = ld_fail(ld, n, "expected one of %s for %s, got %s", strbuf_str(&sb), label, got);
    } else {
        size_t i = 0;
        while (names[i] && strcmp(names[i], ld_text(n)))
            i++;
        if (names[i])
            *out = (int)i;
        else
            rc = ld_fail(ld, n, "%s '%s' is not one of %s", key, ld_text(n), strbuf_str(&sb));
    }
    strbuf_release(&sb);
    return rc;
}

bool ld_is_c_ident(const char *s)
{
    if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
        return false;
    return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") ==
           strlen(s);
}

bool ld_is_lower_ident(const char *s)
{
    if (!(*s >= 'a' && *s <= 'z'))
        return false;
    return strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") == strlen(s);
}

const char ld_case_id_chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-";
const char ld_lib_chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_+.-";
/* ctype goes verbatim into generated prototypes: type names and pointers, nothing else. */
const char ld_ctype_chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_ *";

int ld_check_expr(struct loader *ld, const yaml_node_t *n, const char *src,
                  const struct exercise_spec *ex, const char *context)
{
    struct error e;
    error_init(&e);
    if (expr_check(src, (const char *const *)ex->params, ex->n_params, &e))
        return ld_fail(ld, n, "bad expression '%s' in %s: %s", src, context, e.msg);
    return 0;
}
