/*
 * lab.yaml's variants: which function a student writes for each, its sources and libraries,
 * the reference it is compared with, and where each array lives (memory overrides).
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

static const char *const variant_keys[] = {"id",      "title",     "target", "function",
                                           "sources", "libs",      "memory", "transfer_from",
                                           "weight",  "reference", NULL};
static const char *const reference_keys[] = {"function", "sources", "libs", NULL};

/* A sequence of strings, each accepted by check (which reports its own error). */
int load_string_list(struct loader *ld, const yaml_node_t *n, const char *label, bool nonempty,
                     char ***out, size_t *n_out)
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
    if (load_string_list(ld, n, "'libs'", false, &impl->libs, &impl->n_libs))
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
    if (load_string_list(ld, n, "'sources'", true, &impl->sources, &impl->n_sources))
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
        load_string_list(ld, sources, "'sources'", true, &ref->sources, &ref->n_sources))
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

/* The variant's id: a lower-case identifier, once in the exercise. */
static int parse_variant_id(struct loader *ld, const struct exercise_spec *ex, size_t index,
                            const yaml_node_t *m)
{
    struct variant_spec *v = &ex->variants[index];
    yaml_node_t *n;
    if (ld_need(ld, m, "id", "in variant", &n) || ld_get_string(ld, n, "'id'", &v->id))
        return -1;
    if (!ld_is_lower_ident(v->id))
        return ld_fail(ld, n, "variant id '%s' must match [a-z][a-z0-9_]*", v->id);
    for (size_t j = 0; j < index; j++)
        if (!strcmp(ex->variants[j].id, v->id))
            return ld_fail(ld, n, "duplicate variant id '%s' in exercise '%s' (first at line %d)",
                           v->id, ex->id, ex->variants[j].loc.line);
    return 0;
}

/* memory: one space for every array, or a mapping of argument names to spaces. */
static int parse_memory(struct loader *ld, const yaml_node_t *n, const struct exercise_spec *ex,
                        struct variant_spec *v)
{
    int e;
    if (n->type == YAML_MAPPING_NODE)
        return parse_memory_overrides(ld, n, ex, v);
    if (n->type != YAML_SCALAR_NODE || ld_is_null(n))
        return ld_fail_type(ld, n, "host, pinned, device or a mapping of argument names",
                            "'memory'");
    if (ld_get_enum(ld, n, "memory", spec_mem_names, &e) ||
        check_memory_target(ld, n, v, (enum mem_space)e))
        return -1;
    v->memory = (enum mem_space)e;
    return 0;
}

static int parse_transfer_from(struct loader *ld, const yaml_node_t *n, struct variant_spec *v)
{
    int e;
    if (ld_get_enum(ld, n, "transfer_from", spec_transfer_names, &e))
        return -1;
    v->transfer_from = (enum mem_space)e;
    if (v->transfer_from != MEM_HOST && v->target != TARGET_GPU)
        return ld_fail(ld, n, "transfer_from '%s' needs target gpu (variant '%s' has target %s)",
                       mem_space_name(v->transfer_from), v->id, target_name(v->target));
    return 0;
}

int load_variant(struct loader *ld, struct exercise_spec *ex, size_t index, const yaml_node_t *m)
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

    if (parse_variant_id(ld, ex, index, m))
        return -1;
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

    if ((n = ld_map_get(ld, m, "memory")) && parse_memory(ld, n, ex, v))
        return -1;
    if ((n = ld_map_get(ld, m, "transfer_from")) && parse_transfer_from(ld, n, v))
        return -1;
    if ((n = ld_map_get(ld, m, "weight")) &&
        ld_get_number_min(ld, n, "'weight'", 0, true, &v->weight))
        return -1;
    if ((n = ld_map_get(ld, m, "reference")) && parse_reference(ld, n, v))
        return -1;
    return 0;
}
