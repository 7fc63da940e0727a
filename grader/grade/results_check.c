/*
 * What results.json must hold before anything trusts it: its shape (results_check_json, on
 * the parsed tree) and its arithmetic (results_check, on what was read). A file that was
 * truncated, edited or written by something else fails here and is never graded from.
 */
#include "grade/results.h"

#include "base/json.h"
#include "run/sanitizer.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum kind { K_STR, K_NUM, K_BOOL, K_ARR, K_OBJ };

struct field {
    const char *key;
    enum kind kind;
    bool required; /* present, of its kind, never null */
};

static const char *const kind_names[] = {"a string", "a number", "true or false", "an array",
                                         "an object"};

static const char *type_name(enum json_type t)
{
    static const char *const names[] = {"null",     "true or false", "a number",
                                        "a string", "an array",      "an object"};
    return (size_t)t < sizeof(names) / sizeof(names[0]) ? names[t] : "?";
}

static int bad(struct error *err, const char *name, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int bad(struct error *err, const char *name, const char *where, const char *fmt, ...)
{
    char what[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    return error_set_at(err, name, 0, 0,
                        "%s%s%s; the file was damaged or edited and is not used: grade the "
                        "student again",
                        where, *where ? ": " : "", what);
}

/* Where in the file, "exercises[0].variants[1].cases[2]"; cut short when very deep. */
static void path_at(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void path_at(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, size, fmt, ap);
    va_end(ap);
}

static bool kind_matches(const struct json_value *v, enum kind k)
{
    static const enum json_type types[] = {JSON_STRING, JSON_NUMBER, JSON_BOOL, JSON_ARRAY,
                                           JSON_OBJECT};
    return v->type == types[k];
}

static int check_fields(const struct json_value *o, const struct field *f, size_t n,
                        const char *where, const char *name, struct error *err)
{
    if (!o || o->type != JSON_OBJECT)
        return bad(err, name, where, "expected an object, found %s",
                   o ? type_name(o->type) : "nothing");
    for (size_t i = 0; i < n; i++) {
        const struct json_value *v = json_get(o, f[i].key);
        if (!v && f[i].required)
            return bad(err, name, where, "\"%s\" is missing", f[i].key);
        if (!v || kind_matches(v, f[i].kind))
            continue;
        /* The writer's null stands for a missing string or a NaN; never for what grades. */
        if (v->type == JSON_NULL && !f[i].required && (f[i].kind == K_STR || f[i].kind == K_NUM))
            continue;
        return bad(err, name, where, "\"%s\" should be %s, not %s", f[i].key, kind_names[f[i].kind],
                   type_name(v->type));
    }
    return 0;
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct field root_fields[] = {
    {"lab_id", K_STR, true},
    {"student_id", K_STR, true},
    {"score", K_NUM, true},
    {"max_score", K_NUM, true},
    {"n_pass", K_NUM, true},
    {"n_fail", K_NUM, true},
    {"n_skipped", K_NUM, true},
    {"n_grader_errors", K_NUM, true},
    {"n_not_timed", K_NUM, false},
    {"exercises", K_ARR, true},
    {"lab_number", K_NUM, false},
    {"lab_title", K_STR, false},
    {"course", K_STR, false},
    {"lang", K_STR, false},
    {"student_name", K_STR, false},
    {"submission", K_STR, false},
    {"submission_hash", K_STR, false},
    {"grader_version", K_STR, false},
    {"date", K_STR, false},
    {"mode", K_STR, false},
    {"isolation", K_STR, false},
    {"timing_mode", K_STR, false},
    {"cgroup", K_STR, false},
    {"timing_blocking", K_BOOL, false},
    {"memory_limit_enforced", K_BOOL, false},
    {"pids_limit_enforced", K_BOOL, false},
    {"full", K_BOOL, false},
    {"hidden", K_BOOL, false},
    {"show_hidden", K_BOOL, false},
    {"machine", K_OBJ, false},
};

static const struct field exercise_fields[] = {
    {"exercise_id", K_STR, true}, {"points", K_NUM, true},       {"max_points", K_NUM, true},
    {"variants", K_ARR, true},    {"perf_points", K_NUM, false}, {"perf_max_points", K_NUM, false},
    {"title", K_STR, false},      {"tol_summary", K_STR, false}, {"perf_variant", K_STR, false},
};

static const struct field variant_fields[] = {
    {"variant_id", K_STR, true}, {"cases", K_ARR, true},       {"title", K_STR, false},
    {"function", K_STR, false},  {"target", K_STR, false},     {"memory", K_STR, false},
    {"built", K_BOOL, false},    {"build_log", K_STR, false},  {"n_warnings", K_NUM, false},
    {"sanitizer", K_ARR, false}, {"arg_memory", K_ARR, false}, {"profile", K_OBJ, false},
};

static const struct field case_fields[] = {
    {"case_id", K_STR, true},
    {"verdict", K_STR, true},
    {"points", K_NUM, true},
    {"max_points", K_NUM, true},
    {"sizes", K_STR, false},
    {"hidden", K_BOOL, false},
    {"slow", K_BOOL, false},
    {"message", K_STR, false},
    {"detail", K_STR, false},
    {"time", K_OBJ, false},
    {"time_transfer", K_OBJ, false},
    {"ref_time", K_OBJ, false},
    {"ref_time_transfer", K_OBJ, false},
    {"gpu_clock", K_OBJ, false},
    {"ref_gpu_clock", K_OBJ, false},
    {"baseline_ms", K_NUM, false},
    {"speedup_ref", K_NUM, false},
    {"speedup_baseline", K_NUM, false},
    {"rounds", K_ARR, false},
    {"gflops", K_NUM, false},
    {"gbps", K_NUM, false},
    {"mismatches", K_ARR, false},
    {"findings", K_ARR, false},
    {"perf_finding", K_NUM, false},
    {"params", K_ARR, false},
    {"roofline_first", K_NUM, false},
    {"roofline_count", K_NUM, false},
    {"wall_s", K_NUM, false},
    {"stages", K_OBJ, false},
    {"checks_s", K_NUM, false},
    {"draws_s", K_NUM, false},
    {"not_timed", K_STR, false},
    {"not_timed_detail", K_STR, false},
    {"not_timed_cpus", K_NUM, false},
    {"not_timed_irq_cpus", K_NUM, false},
    {"not_timed_steal_cpus", K_NUM, false},
    {"not_timed_cpu_pid", K_NUM, false},
    {"not_timed_gpu_pid", K_NUM, false},
    {"not_timed_gpu_util", K_NUM, false},
    {"cpu_s", K_NUM, false},
    {"peak_rss_kb", K_NUM, false},
};

static const struct field sanitizer_fields[] = {
    {"tool", K_STR, false},   {"case_id", K_STR, false}, {"status", K_STR, true},
    {"reason", K_STR, false}, {"reports", K_ARR, false},
};

/* Every element of array a is an object with fields f (or, with f NULL, a string). */
static int check_items(const struct json_value *a, const struct field *f, size_t n,
                       const char *where, const char *key, const char *name, struct error *err)
{
    char at[512];
    for (size_t i = 0; a && i < a->n; i++) {
        path_at(at, sizeof(at), "%s%s%s[%zu]", where, *where ? "." : "", key, i);
        if (!f && a->items[i]->type != JSON_STRING)
            return bad(err, name, at, "should be a string, not %s", type_name(a->items[i]->type));
        if (f && check_fields(a->items[i], f, n, at, name, err) != 0)
            return -1;
    }
    return 0;
}

static int check_case_json(const struct json_value *c, const char *at, const char *name,
                           struct error *err)
{
    static const struct field any_object[] = {{"", K_OBJ, false}};
    if (check_fields(c, case_fields, N(case_fields), at, name, err) != 0)
        return -1;
    const char *v = json_get_string(c, "verdict");
    if (verdict_parse(v) < 0)
        return bad(err, name, at, "unknown verdict \"%s\"", v);
    if (check_items(json_get(c, "findings"), NULL, 0, at, "findings", name, err) != 0 ||
        check_items(json_get(c, "mismatches"), any_object, 0, at, "mismatches", name, err) != 0 ||
        check_items(json_get(c, "rounds"), any_object, 0, at, "rounds", name, err) != 0)
        return -1;
    return 0;
}

static int check_variant_json(const struct json_value *v, const char *at, const char *name,
                              struct error *err)
{
    char here[512];
    if (check_fields(v, variant_fields, N(variant_fields), at, name, err) != 0)
        return -1;
    const struct json_value *cases = json_get(v, "cases");
    for (size_t c = 0; c < cases->n; c++) {
        path_at(here, sizeof(here), "%s.cases[%zu]", at, c);
        if (check_case_json(cases->items[c], here, name, err) != 0)
            return -1;
    }
    const struct json_value *san = json_get(v, "sanitizer");
    if (check_items(san, sanitizer_fields, N(sanitizer_fields), at, "sanitizer", name, err) != 0)
        return -1;
    for (size_t k = 0; san && san->type == JSON_ARRAY && k < san->n; k++) {
        const char *st = json_get_string(san->items[k], "status");
        path_at(here, sizeof(here), "%s.sanitizer[%zu]", at, k);
        if (sanitizer_status_parse(st) < 0)
            return bad(err, name, here, "unknown status \"%s\"", st);
    }
    return 0;
}

int results_check_json(const struct json_value *root, const char *name, struct error *err)
{
    char at[512];
    if (check_fields(root, root_fields, N(root_fields), "", name, err) != 0)
        return -1;
    const struct json_value *exs = json_get(root, "exercises");
    for (size_t e = 0; e < exs->n; e++) {
        path_at(at, sizeof(at), "exercises[%zu]", e);
        if (check_fields(exs->items[e], exercise_fields, N(exercise_fields), at, name, err) != 0)
            return -1;
        const struct json_value *vs = json_get(exs->items[e], "variants");
        for (size_t v = 0; v < vs->n; v++) {
            path_at(at, sizeof(at), "exercises[%zu].variants[%zu]", e, v);
            if (check_variant_json(vs->items[v], at, name, err) != 0)
                return -1;
        }
    }
    return 0;
}

/* Sums written with 17 significant digits, added up in another order. */
static bool same_sum(double a, double b)
{
    return fabs(a - b) <= 1e-9 * (fabs(a) > 1 ? fabs(a) : 1);
}

static bool points_ok(double points, double max)
{
    return isfinite(points) && isfinite(max) && max >= 0 && points >= 0 &&
           (points <= max || same_sum(points, max));
}

static int check_case(const struct case_result *c, const char *at, const char *name,
                      struct error *err)
{
    if (!points_ok(c->points, c->max_points))
        return bad(err, name, at, "points %g out of 0..%g", c->points, c->max_points);
    /* Only a passed case earns its points; a failed one, a skip or XX none. */
    if (c->verdict != V_PASS && c->points != 0)
        return bad(err, name, at, "%g points for a case whose verdict is %s", c->points,
                   verdict_code(c->verdict));
    return 0;
}

static int check_exercise(const struct exercise_result *ex, size_t e, const char *name,
                          struct error *err)
{
    char at[512];
    double sum = ex->perf_points, max = ex->perf_max_points;
    path_at(at, sizeof(at), "exercises[%zu] (\"%s\")", e, ex->exercise_id);
    if (!points_ok(ex->perf_points, ex->perf_max_points))
        return bad(err, name, at, "speed points %g out of 0..%g", ex->perf_points,
                   ex->perf_max_points);
    for (size_t v = 0; v < ex->n_variants; v++)
        for (size_t c = 0; c < ex->variants[v].n_cases; c++) {
            const struct case_result *cr = &ex->variants[v].cases[c];
            char here[700];
            path_at(here, sizeof(here), "%s, %s/%s", at, ex->variants[v].variant_id, cr->case_id);
            if (check_case(cr, here, name, err) != 0)
                return -1;
            sum += cr->points;
            max += cr->max_points;
        }
    if (!same_sum(ex->points, sum) || !same_sum(ex->max_points, max))
        return bad(err, name, at, "%g of %g points, but its cases add up to %g of %g", ex->points,
                   ex->max_points, sum, max);
    return 0;
}

int results_check(const struct results *r, const char *name, struct error *err)
{
    double score = 0, max = 0;
    int n[4] = {0, 0, 0, 0}; /* passed, failed, skipped, grader errors, as results_tally counts */
    for (size_t e = 0; e < r->n_exercises; e++) {
        const struct exercise_result *ex = &r->exercises[e];
        if (check_exercise(ex, e, name, err) != 0)
            return -1;
        score += ex->points;
        max += ex->max_points;
        for (size_t v = 0; v < ex->n_variants; v++)
            for (size_t c = 0; c < ex->variants[v].n_cases; c++) {
                enum verdict vd = ex->variants[v].cases[c].verdict;
                n[0] += vd == V_PASS;
                n[1] += verdict_is_failure(vd);
                n[2] += vd == V_SKIPPED;
                n[3] += vd == V_GRADER;
            }
    }
    if (!same_sum(r->score, score) || !same_sum(r->max_score, max))
        return bad(err, name, "", "the total is %g of %g, but the exercises add up to %g of %g",
                   r->score, r->max_score, score, max);
    if (n[0] != r->n_pass || n[1] != r->n_fail || n[2] != r->n_skipped ||
        n[3] != r->n_grader_errors)
        return bad(err, name, "",
                   "it counts %d passed, %d failed, %d skipped and %d grader errors, but its "
                   "cases say %d, %d, %d and %d",
                   r->n_pass, r->n_fail, r->n_skipped, r->n_grader_errors, n[0], n[1], n[2], n[3]);
    return 0;
}
