/*
 * lab.yaml's cases: the sizes each binds (in params order), its points, limits, tolerance and
 * its own inputs.
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

static const char *const case_keys[] = {"id",     "sizes",   "hidden",    "withheld", "slow",
                                        "points", "timeout", "tolerance", "init",     NULL};
/* What a withheld case may say: what it is worth, never what it is. */
static const char *const withheld_keys[] = {"id", "hidden", "withheld", "points", NULL};

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

/* init: {arg: {dist: ...}, ...}: the case's own inputs, over the arguments' init. */
static int parse_case_inits(struct loader *ld, const struct exercise_spec *ex, struct case_spec *c,
                            const yaml_node_t *m)
{
    char *who = xstrfmt("case '%s'", c->id);
    int rc = load_init_overrides(ld, ex, m, "'init'", who, &c->inits, &c->n_inits);
    free(who);
    return rc;
}

/* A withheld case (spec.h): hidden, and nothing but its id and points. */
static int load_withheld(struct loader *ld, struct case_spec *c, const yaml_node_t *m,
                         const yaml_node_t *key)
{
    yaml_node_t *n;
    if (!c->hidden)
        return ld_fail(ld, key,
                       "case '%s' is withheld but not hidden: grader kit writes 'withheld: true' "
                       "in place of a hidden case; in your own lab.yaml leave 'withheld' out",
                       c->id);
    if (ld_check_keys(ld, m, "in a withheld case", withheld_keys))
        return -1;
    if ((n = ld_map_get(ld, m, "points")) &&
        ld_get_number_min(ld, n, "'points'", 0, false, &c->points))
        return -1;
    return 0;
}

int load_case(struct loader *ld, struct exercise_spec *ex, size_t index, const yaml_node_t *m)
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

    if ((n = ld_map_get(ld, m, "hidden")) && ld_get_bool(ld, n, "'hidden'", &c->hidden))
        return -1;
    if ((n = ld_map_get(ld, m, "withheld")) && ld_get_bool(ld, n, "'withheld'", &c->withheld))
        return -1;
    if (c->withheld)
        return load_withheld(ld, c, m, n);

    if ((n = ld_map_get(ld, m, "sizes"))) {
        if (parse_sizes(ld, ex, c, n))
            return -1;
    } else if (ex->n_params > 0) {
        return fail_unbound(ld, ex, c, m);
    }
    if ((n = ld_map_get(ld, m, "slow")) && ld_get_bool(ld, n, "'slow'", &c->slow))
        return -1;
    if ((n = ld_map_get(ld, m, "points")) &&
        ld_get_number_min(ld, n, "'points'", 0, false, &c->points))
        return -1;
    if ((n = ld_map_get(ld, m, "timeout")) &&
        ld_get_number_min(ld, n, "'timeout'", 0, true, &c->timeout_s))
        return -1;
    if ((n = ld_map_get(ld, m, "tolerance"))) {
        if (load_tolerance(ld, n, ex, &c->tol))
            return -1;
        c->has_tol = true;
    }
    if ((n = ld_map_get(ld, m, "init")) && parse_case_inits(ld, ex, c, n))
        return -1;
    return 0;
}
