/*
 * loader: the YAML node helpers the spec's loader modules (load.c) share, internal to spec/.
 *
 * Each helper that can fail reports at the node's file:line:col through ld->err and returns
 * -1 (or NULL); the struct loader owns nothing but its document and its list of function
 * names, released by spec_load.
 */
#ifndef LG_SPEC_LOADER_H
#define LG_SPEC_LOADER_H

#include "spec/spec.h"
#include "base/strbuf.h"

#include <yaml.h>

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

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

/* Characters a case id, a library name and a ctype may use. */
extern const char ld_case_id_chars[];
extern const char ld_lib_chars[];
extern const char ld_ctype_chars[];

struct src_loc ld_loc_of(const yaml_node_t *n);
int ld_vfail_loc(struct loader *ld, struct src_loc loc, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
int ld_fail_loc(struct loader *ld, struct src_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int ld_fail(struct loader *ld, const yaml_node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
const char *ld_text(const yaml_node_t *n);
bool ld_is_plain(const yaml_node_t *n);
bool ld_is_null(const yaml_node_t *n);
void ld_describe(const yaml_node_t *n, char *buf, size_t size);
int ld_fail_type(struct loader *ld, const yaml_node_t *n, const char *expected, const char *label);
yaml_node_t *ld_doc_node(struct loader *ld, int index);
size_t ld_seq_size(const yaml_node_t *n);
yaml_node_t *ld_seq_at(struct loader *ld, const yaml_node_t *n, size_t i);
size_t ld_map_size(const yaml_node_t *n);
yaml_node_t *ld_map_key(struct loader *ld, const yaml_node_t *n, size_t i);
yaml_node_t *ld_map_value(struct loader *ld, const yaml_node_t *n, size_t i);
void ld_join_names(struct strbuf *sb, const char *const *names);
bool ld_in_list(const char *const *names, const char *s);
int ld_want_mapping(struct loader *ld, const yaml_node_t *n, const char *label);
int ld_want_sequence(struct loader *ld, const yaml_node_t *n, const char *label, bool nonempty);
int ld_check_keys(struct loader *ld, const yaml_node_t *map, const char *where,
                  const char *const *allowed);
yaml_node_t *ld_map_get(struct loader *ld, const yaml_node_t *map, const char *key);
int ld_need(struct loader *ld, const yaml_node_t *map, const char *key, const char *where,
            yaml_node_t **out);
int ld_want_scalar(struct loader *ld, const yaml_node_t *n, const char *expected,
                   const char *label);
int ld_get_string(struct loader *ld, const yaml_node_t *n, const char *label, char **out);
int ld_get_expr_text(struct loader *ld, const yaml_node_t *n, const char *label, char **out);
bool ld_only_chars(const char *s, const char *allowed);
int ld_fail_not(struct loader *ld, const yaml_node_t *n, const char *expected, const char *label);
int ld_get_number(struct loader *ld, const yaml_node_t *n, const char *label, double *out);
int ld_get_long(struct loader *ld, const yaml_node_t *n, const char *label, long *out);
int ld_get_seed(struct loader *ld, const yaml_node_t *n, long *out);
int ld_get_bool(struct loader *ld, const yaml_node_t *n, const char *label, bool *out);
int ld_get_number_min(struct loader *ld, const yaml_node_t *n, const char *label, double min,
                      bool strict, double *out);
int ld_get_int_range(struct loader *ld, const yaml_node_t *n, const char *label, long lo, long hi,
                     int *out);
int ld_get_enum(struct loader *ld, const yaml_node_t *n, const char *key, const char *const *names,
                int *out);
bool ld_is_c_ident(const char *s);
bool ld_is_lower_ident(const char *s);
int ld_check_expr(struct loader *ld, const yaml_node_t *n, const char *src,
                  const struct exercise_spec *ex, const char *context);

#endif
