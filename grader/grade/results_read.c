/*
 * results.json read back: the format name checked, missing fields left at results_init's
 * defaults, older files' text fields filled into today's structure.
 */
#include "grade/results.h"

#include "base/json.h"
#include "base/alloc.h"
#include "base/fs.h"
#include "base/util.h"

#include <limits.h>
#include <stdlib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Missing fields keep the defaults of results_init (0, false, NULL); null, which
 * the writer uses for NaN and infinities, reads back as NaN. */

static char *dup_str(const struct json_value *o, const char *key)
{
    const char *s = json_get_string(o, key);
    return s ? xstrdup(s) : NULL;
}

static double num(const struct json_value *o, const char *key)
{
    const struct json_value *v = json_get(o, key);
    if (v && v->type == JSON_NULL)
        return NAN;
    return json_get_number(o, key, 0);
}

/* Converting a NaN or out-of-range double to an integer is undefined behaviour:
 * a hand-edited or corrupt file must not get that far. */
static long num_long(const struct json_value *o, const char *key)
{
    double d = num(o, key);
    if (isnan(d))
        return 0;
    if (d <= (double)LONG_MIN)
        return LONG_MIN;
    if (d >= (double)LONG_MAX)
        return LONG_MAX;
    return (long)d;
}

static int num_int(const struct json_value *o, const char *key)
{
    long l = num_long(o, key);
    return l < INT_MIN ? INT_MIN : l > INT_MAX ? INT_MAX : (int)l;
}

static size_t arr_len(const struct json_value *a)
{
    return a && a->type == JSON_ARRAY ? a->n : 0;
}

static void copy_cstr(char *dst, size_t size, const char *src)
{
    snprintf(dst, size, "%s", src ? src : "");
}

static void read_timing(const struct json_value *o, struct timing *t)
{
    memset(t, 0, sizeof(*t));
    t->valid = json_get_bool(o, "valid", false);
    t->samples = num_int(o, "samples");
    t->median_ms = num(o, "median_ms");
    t->min_ms = num(o, "min_ms");
    t->q1_ms = num(o, "q1_ms");
    t->q3_ms = num(o, "q3_ms");
    t->mean_ms = num(o, "mean_ms");
    t->stddev_ms = num(o, "stddev_ms");
    t->rse = num(o, "rse");
}

/* Absent (a CPU run, no NVML, an older grader's results): all zero. */
static void read_gpu_clock(const struct json_value *o, struct gpu_clock *g)
{
    memset(g, 0, sizeof(*g));
    g->min_mhz = num_int(o, "min_mhz");
    g->max_mhz = num_int(o, "max_mhz");
    g->limit_mhz = num_int(o, "limit_mhz");
    g->dropped = num_int(o, "dropped");
    g->throttled = json_get_bool(o, "throttled", false);
}

static void read_mismatch(const struct json_value *o, struct mismatch *m)
{
    copy_cstr(m->arg, sizeof(m->arg), json_get_string(o, "arg"));
    m->n_mismatch = num_long(o, "n_mismatch");
    m->n_total = num_long(o, "n_total");
    m->max_abs = num(o, "max_abs");
    m->max_rel = num(o, "max_rel");
    const struct json_value *first = json_get(o, "first");
    size_t n = arr_len(first), cap = sizeof(m->first) / sizeof(m->first[0]);
    m->n_first = (int)(n < cap ? n : cap);
    for (int k = 0; k < m->n_first; k++) {
        const struct json_value *f = json_at(first, (size_t)k);
        copy_cstr(m->first[k].index, sizeof(m->first[k].index), json_get_string(f, "index"));
        m->first[k].actual = num(f, "actual");
        m->first[k].expected = num(f, "expected");
    }
}

/* "device" -> MEM_DEVICE, by spec.h's own names; -1 when unknown (a newer grader's). */
static int mem_space_parse(const char *s, size_t len)
{
    for (int m = MEM_HOST; m <= MEM_DEVICE; m++) {
        const char *name = mem_space_name((enum mem_space)m);
        if (s && strlen(name) == len && !memcmp(name, s, len))
            return m;
    }
    return -1;
}

static void read_params(const struct json_value *a, struct case_result *c)
{
    for (size_t i = 0; i < arr_len(a); i++) {
        const struct json_value *p = json_at(a, i);
        const char *name = json_get_string(p, "name");
        if (name)
            case_result_add_param(c, name, num_long(p, "value"));
    }
}

static void read_arg_memory(const struct json_value *a, struct variant_result *vr)
{
    for (size_t i = 0; i < arr_len(a); i++) {
        const struct json_value *m = json_at(a, i);
        const char *arg = json_get_string(m, "arg"), *space = json_get_string(m, "space");
        int s = mem_space_parse(space, space ? strlen(space) : 0);
        if (arg && s >= 0)
            variant_result_add_arg_memory(vr, arg, (enum mem_space)s);
    }
}

/* The next "name=value" item of a comma-separated list from *p on, trimmed; false at its end.
 * Items without '=' have an empty name and are the whole item. */
static bool next_item(const char **p, const char **name, size_t *name_len, const char **value,
                      size_t *value_len)
{
    const char *s = *p + strspn(*p, " ,");
    if (!*s)
        return false;
    const char *end = s + strcspn(s, ",");
    const char *eq = memchr(s, '=', (size_t)(end - s));
    const char *ke = eq ? eq : s, *vs = eq ? eq + 1 : s, *ve = end;
    while (ke > s && ke[-1] == ' ')
        ke--;
    while (vs < ve && *vs == ' ')
        vs++;
    while (ve > vs && ve[-1] == ' ')
        ve--;
    *name = s;
    *name_len = (size_t)(ke - s);
    *value = vs;
    *value_len = (size_t)(ve - vs);
    *p = end;
    return true;
}

/*
 * The one fallback for results older than params and arg_memory: both filled from the
 * text an older grader wrote, "n=1024,m=3" (sizes) and "host" or "dst=device, src=pinned"
 * (memory). Text that is neither form leaves them empty.
 */
static void fill_from_older_text(struct variant_result *vr)
{
    const char *p = vr->memory, *name, *value;
    size_t nl, vl;
    while (p && next_item(&p, &name, &nl, &value, &vl)) {
        int s = mem_space_parse(value, vl);
        if (s < 0)
            continue;
        char *arg = xstrndup(name, nl);
        variant_result_add_arg_memory(vr, arg, (enum mem_space)s);
        free(arg);
    }
    for (size_t c = 0; c < vr->n_cases; c++) {
        struct case_result *cr = &vr->cases[c];
        for (p = cr->n_params ? NULL : cr->sizes; p && next_item(&p, &name, &nl, &value, &vl);) {
            char *n = xstrndup(name, nl), *v = xstrndup(value, vl);
            long x;
            if (nl > 0 && parse_long(v, &x))
                case_result_add_param(cr, n, x);
            free(n);
            free(v);
        }
    }
}

static void read_speed(const struct json_value *o, struct case_result *c)
{
    c->not_timed = not_timed_parse(json_get_string(o, "not_timed"));
    const char *nd = json_get_string(o, "not_timed_detail");
    c->not_timed_detail = c->not_timed != NOT_TIMED_NO && nd ? xstrdup(nd) : NULL;
    c->not_timed_cpus = num(o, "not_timed_cpus");
    c->not_timed_irq_cpus = num(o, "not_timed_irq_cpus");
    c->not_timed_steal_cpus = num(o, "not_timed_steal_cpus");
    c->not_timed_cpu_pid = (long)num(o, "not_timed_cpu_pid");
    c->not_timed_gpu_pid = (long)num(o, "not_timed_gpu_pid");
    c->not_timed_gpu_util = (int)num(o, "not_timed_gpu_util");
    c->baseline_ms = num(o, "baseline_ms");
    c->speedup_ref = num(o, "speedup_ref");
    c->speedup_baseline = num(o, "speedup_baseline");
    c->speedup_lo = num(o, "speedup_lo");
    c->speedup_hi = num(o, "speedup_hi");
    c->pairs = (int)num(o, "pairs");
    copy_cstr(c->stopped, sizeof(c->stopped), json_get_string(o, "stopped"));
    c->checks_s = num(o, "checks_s");
    c->draws_s = num(o, "draws_s");
    const struct json_value *rounds = json_get(o, "rounds");
    c->n_rounds = arr_len(rounds);
    c->round_ms = c->n_rounds ? xcalloc(c->n_rounds, sizeof(double)) : NULL;
    c->round_ref_ms = c->n_rounds ? xcalloc(c->n_rounds, sizeof(double)) : NULL;
    for (size_t i = 0; i < c->n_rounds; i++) {
        c->round_ms[i] = num(json_at(rounds, i), "ms");
        c->round_ref_ms[i] = num(json_at(rounds, i), "ref_ms");
    }
}

static void read_case(const struct json_value *o, struct case_result *c)
{
    c->case_id = dup_str(o, "case_id");
    c->sizes = dup_str(o, "sizes");
    read_params(json_get(o, "params"), c);
    c->hidden = json_get_bool(o, "hidden", false);
    c->slow = json_get_bool(o, "slow", false);
    /* results_check_json refused a missing or unknown verdict already. */
    int v = verdict_parse(json_get_string(o, "verdict"));
    c->verdict = v < 0 ? V_GRADER : (enum verdict)v;
    c->message = dup_str(o, "message");
    c->detail = dup_str(o, "detail");
    c->points = num(o, "points");
    c->max_points = num(o, "max_points");
    read_timing(json_get(o, "time"), &c->time);
    read_timing(json_get(o, "time_transfer"), &c->time_transfer);
    read_timing(json_get(o, "ref_time"), &c->ref_time);
    read_timing(json_get(o, "ref_time_transfer"), &c->ref_time_transfer);
    read_gpu_clock(json_get(o, "gpu_clock"), &c->clock);
    read_gpu_clock(json_get(o, "ref_gpu_clock"), &c->ref_clock);
    read_speed(o, c);
    c->gflops = num(o, "gflops");
    c->gbps = num(o, "gbps");
    const struct json_value *ms = json_get(o, "mismatches");
    c->n_mismatches = arr_len(ms);
    c->mismatches = c->n_mismatches ? xcalloc(c->n_mismatches, sizeof(*c->mismatches)) : NULL;
    for (size_t i = 0; i < c->n_mismatches; i++)
        read_mismatch(json_at(ms, i), &c->mismatches[i]);
    /* Only strings: consumers may rely on every finding being non-NULL. */
    const struct json_value *fs = json_get(o, "findings");
    c->n_findings = 0;
    c->findings = arr_len(fs) ? xcalloc(arr_len(fs), sizeof(char *)) : NULL;
    for (size_t i = 0; i < arr_len(fs); i++) {
        const struct json_value *f = json_at(fs, i);
        if (f->type == JSON_STRING)
            c->findings[c->n_findings++] = xstrdup(f->string);
    }
    long pf = num_long(o, "perf_finding");
    c->perf_finding = pf > 0 && (size_t)pf <= c->n_findings ? (size_t)pf : 0;
    long rf = num_long(o, "roofline_first"), rn = num_long(o, "roofline_count");
    bool roofline_ok = rf > 0 && rn > 0 && (size_t)rf - 1 + (size_t)rn <= c->n_findings;
    c->roofline_first = roofline_ok ? (size_t)rf : 0;
    c->roofline_count = roofline_ok ? (size_t)rn : 0;
    c->wall_s = num(o, "wall_s");
    const struct json_value *st = json_get(o, "stages");
    for (int k = 0; k < RUN_STAGE_COUNT; k++)
        c->stage_s[k] = num(st, run_stage_names[k]);
    c->cpu_s = num(o, "cpu_s");
    c->peak_rss_kb = num_long(o, "peak_rss_kb");
}

static void read_sanitizer_run(const struct json_value *o, struct sanitizer_run *run)
{
    struct sanitizer_output *out = &run->out;
    run->tool = dup_str(o, "tool");
    run->case_id = dup_str(o, "case_id");
    /* An unknown status (a newer grader's) is the grader's side, never the student's. */
    int st = sanitizer_status_parse(json_get_string(o, "status"));
    run->status = st < 0 ? SANITIZER_FAILED : (enum sanitizer_status)st;
    run->reason = dup_str(o, "reason");
    run->wall_s = num(o, "wall_s");
    out->summary = json_get_bool(o, "summary", false);
    out->errors = num_long(o, "errors");
    out->warnings = num_long(o, "warnings");
    out->not_printed = num_long(o, "not_printed");
    out->other_reports = num_long(o, "other_reports");
    out->tool_error = dup_str(o, "tool_error");
    const struct json_value *rs = json_get(o, "reports");
    out->reports = arr_len(rs) ? xcalloc(arr_len(rs), sizeof(*out->reports)) : NULL;
    for (size_t i = 0; i < arr_len(rs); i++) {
        const struct json_value *r = json_at(rs, i);
        const char *kind = json_get_string(r, "kind");
        if (!kind)
            continue; /* consumers rely on every report having a kind */
        struct sanitizer_report *sr = &out->reports[out->n_reports++];
        sr->kind = xstrdup(kind);
        sr->location = dup_str(r, "location");
        sr->thread = dup_str(r, "thread");
        sr->block = dup_str(r, "block");
        sr->access = dup_str(r, "access");
        sr->count = num_long(r, "count");
    }
}

static void read_variant(const struct json_value *o, struct variant_result *vr)
{
    vr->variant_id = dup_str(o, "variant_id");
    vr->title = dup_str(o, "title");
    vr->function = dup_str(o, "function");
    vr->target = dup_str(o, "target");
    vr->memory = dup_str(o, "memory");
    read_arg_memory(json_get(o, "arg_memory"), vr);
    vr->built = json_get_bool(o, "built", false);
    vr->build_log = dup_str(o, "build_log");
    vr->n_warnings = num_int(o, "n_warnings");
    const struct json_value *cs = json_get(o, "cases");
    vr->n_cases = arr_len(cs);
    vr->cases = vr->n_cases ? xcalloc(vr->n_cases, sizeof(*vr->cases)) : NULL;
    for (size_t c = 0; c < vr->n_cases; c++)
        read_case(json_at(cs, c), &vr->cases[c]);
    const struct json_value *ss = json_get(o, "sanitizer");
    vr->n_sanitizer = arr_len(ss);
    vr->sanitizer = vr->n_sanitizer ? xcalloc(vr->n_sanitizer, sizeof(*vr->sanitizer)) : NULL;
    for (size_t k = 0; k < vr->n_sanitizer; k++) {
        sanitizer_run_init(&vr->sanitizer[k]);
        read_sanitizer_run(json_at(ss, k), &vr->sanitizer[k]);
    }
    vr->profile = variant_profile_from_json(json_get(o, "profile"));
    if (!json_get(o, "arg_memory"))
        fill_from_older_text(vr);
}

static void read_exercise(const struct json_value *o, struct exercise_result *ex)
{
    ex->exercise_id = dup_str(o, "exercise_id");
    ex->title = dup_str(o, "title");
    ex->points = num(o, "points");
    ex->max_points = num(o, "max_points");
    ex->perf_points = num(o, "perf_points");
    ex->perf_max_points = num(o, "perf_max_points");
    ex->perf_variant = dup_str(o, "perf_variant");
    ex->tol_summary = dup_str(o, "tol_summary");
    const struct json_value *vs = json_get(o, "variants");
    ex->n_variants = arr_len(vs);
    ex->variants = ex->n_variants ? xcalloc(ex->n_variants, sizeof(*ex->variants)) : NULL;
    for (size_t v = 0; v < ex->n_variants; v++)
        read_variant(json_at(vs, v), &ex->variants[v]);
}

static void read_machine(const struct json_value *o, struct machine_info *m)
{
    m->hostname = dup_str(o, "hostname");
    m->cpu_model = dup_str(o, "cpu_model");
    m->cpu_threads = num_int(o, "cpu_threads");
    m->gpu_name = dup_str(o, "gpu_name");
    m->gpu_cc = dup_str(o, "gpu_cc");
    m->gpu_memory_mib = num_long(o, "gpu_memory_mib");
    m->driver_version = dup_str(o, "driver_version");
    m->cuda_runtime_version = dup_str(o, "cuda_runtime_version");
    m->cc_version = dup_str(o, "cc_version");
    m->nvcc_version = dup_str(o, "nvcc_version");
    m->cflags = dup_str(o, "cflags");
    m->nvccflags = dup_str(o, "nvccflags");
    m->gpu_status = dup_str(o, "gpu_status");
    m->calibration = dup_str(o, "calibration");
    m->blas_core = dup_str(o, "blas_core");
}

/* json parsed, an object, of our format, of the right shape: the tree (caller frees), or NULL
 * with err set. */
static struct json_value *parse_results(const char *json, size_t len, const char *name,
                                        struct error *err)
{
    struct json_value *root = NULL;
    if (json_parse(json, len, &root, err) != 0) {
        if (err)
            snprintf(err->file, sizeof(err->file), "%s", name);
        return NULL;
    }
    if (root->type != JSON_OBJECT) {
        json_value_free(root);
        error_set_at(err, name, 0, 0, "not a labgrader results file (not a JSON object)");
        return NULL;
    }
    const char *format = json_get_string(root, "format");
    if (!format || strcmp(format, RESULTS_FORMAT) != 0) {
        error_set_at(
            err, name, 0, 0, "not a labgrader results file (format %s%s%s, expected \"%s\")",
            format ? "\"" : "", format ? format : "missing", format ? "\"" : "", RESULTS_FORMAT);
        json_value_free(root);
        return NULL;
    }
    if (results_check_json(root, name, err) != 0) {
        json_value_free(root);
        return NULL;
    }
    return root;
}

/* Who, what and how: the fields above the exercises. */
static void read_header(const struct json_value *root, struct results *r)
{
    r->lab_id = dup_str(root, "lab_id");
    r->lab_number = num_long(root, "lab_number");
    r->lab_title = dup_str(root, "lab_title");
    r->course = dup_str(root, "course");
    r->lang = dup_str(root, "lang");
    r->student_id = dup_str(root, "student_id");
    r->student_name = dup_str(root, "student_name");
    r->submission = dup_str(root, "submission");
    r->submission_hash = dup_str(root, "submission_hash");
    r->grader_version = dup_str(root, "grader_version");
    r->date = dup_str(root, "date");
    r->mode = dup_str(root, "mode");
    r->isolation = dup_str(root, "isolation");
    r->timing_mode = dup_str(root, "timing_mode");
    r->timing_blocking = json_get_bool(root, "timing_blocking", false);
    r->cgroup = dup_str(root, "cgroup");
    r->memory_limit_enforced = json_get_bool(root, "memory_limit_enforced", false);
    r->pids_limit_enforced = json_get_bool(root, "pids_limit_enforced", false);
    r->full = json_get_bool(root, "full", false);
    r->hidden = json_get_bool(root, "hidden", false);
    r->show_hidden = json_get_bool(root, "show_hidden", false);
    read_machine(json_get(root, "machine"), &r->machine);
}

/* The totals and the phases' times. */
static void read_totals(const struct json_value *root, struct results *r)
{
    r->score = num(root, "score");
    r->max_score = num(root, "max_score");
    r->n_pass = num_int(root, "n_pass");
    r->n_fail = num_int(root, "n_fail");
    r->n_skipped = num_int(root, "n_skipped");
    r->n_grader_errors = num_int(root, "n_grader_errors");
    const struct json_value *ph = json_get(root, "phases");
    r->phase_build_s = num(ph, "build");
    r->phase_references_s = num(ph, "references");
    r->phase_runs_s = num(ph, "runs");
    r->phase_reports_s = num(ph, "reports");
}

int results_from_json(struct results *r, const char *json, size_t len, const char *path,
                      struct error *err)
{
    const char *name = path ? path : "<results>";
    struct json_value *root = parse_results(json, len, name, err);
    if (!root)
        return -1;
    read_header(root, r);
    const struct json_value *exs = json_get(root, "exercises");
    r->n_exercises = arr_len(exs);
    r->exercises = r->n_exercises ? xcalloc(r->n_exercises, sizeof(*r->exercises)) : NULL;
    for (size_t e = 0; e < r->n_exercises; e++)
        read_exercise(json_at(exs, e), &r->exercises[e]);
    read_totals(root, r);
    results_lms_from_json(json_get(root, "lms"), &r->lms);
    json_value_free(root);
    /* Derived from the cases, whatever the file says (older files have no count). */
    r->n_not_timed = results_count_not_timed(r);
    if (results_check(r, name, err) != 0) {
        results_release(r);
        return -1;
    }
    return 0;
}

int results_read(struct results *r, const char *path, struct error *err)
{
    struct strbuf sb = STRBUF_INIT;
    int rc = read_file(path, &sb, err);
    if (rc == 0)
        rc = results_from_json(r, sb.buf, sb.len, path, err);
    strbuf_release(&sb);
    return rc;
}
