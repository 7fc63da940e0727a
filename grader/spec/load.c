#include "spec/load_lms.h"
#include "spec/load_parts.h"
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
static const char *const work_keys[] = {"flops", "bytes", NULL};
static const char *const timing_keys[] = {"warmup", "min_samples", "max_samples", "target_rse",
                                          "budget", "flush_l2",    "blocking",    "checks",
                                          "rounds", NULL};
static const char *const perf_keys[] = {"points", "full_at", "zero_at", "variant", NULL};
static const char *const returns_keys[] = {"name", "dtype", "tolerance", NULL};
static const char *const sanitizer_keys[] = {"tools", "case", NULL};
static const char *const profile_keys[] = {"case", NULL};

/* ---- pieces ---- */

static void sanitizer_spec_copy(struct sanitizer_spec *dst, const struct sanitizer_spec *src)
{
    *dst = *src;
    dst->tools = src->n_tools ? xcalloc(src->n_tools, sizeof(char *)) : NULL;
    for (size_t i = 0; i < src->n_tools; i++)
        dst->tools[i] = xstrdup(src->tools[i]);
    dst->case_id = src->case_id ? xstrdup(src->case_id) : NULL;
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
    if (load_string_list(ld, n, "'params'", false, &ex->params, &ex->n_params))
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
        if (load_string_list(ld, v, "'tools'", true, &s->tools, &s->n_tools))
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
    if ((n = ld_map_get(ld, m, "tolerance")) && load_tolerance(ld, n, ex, &ex->tol))
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
    load_default_init(a);
    if ((n = ld_map_get(ld, m, "tolerance"))) {
        if (load_tolerance(ld, n, ex, &a->tol))
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
        if (load_arg(ld, ex, i, ld_seq_at(ld, args, i)))
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
        if (load_variant(ld, ex, i, ld_seq_at(ld, variants, i)))
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
        if (load_case(ld, ex, i, ld_seq_at(ld, cases, i)))
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
    return n ? load_init_overrides(ld, ex, n, "'precision_check'", "precision_check",
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
        load_string_list(ld, n, "'allow_symbols'", false, &lab->allow_symbols,
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
