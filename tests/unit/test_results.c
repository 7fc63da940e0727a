/* results: verdict tables, tally, ownership (release frees everything, checked under ASan),
 * and the results.json round trip: every field, NULL strings, NaN and infinities, awkward
 * text, forward compatibility, defaults, and errors that name the file and position. */
#include "grade/results.h"

#include "base/json.h"
#include "base/alloc.h"
#include "base/fs.h"

#include <check.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* "María Ñúñez" in UTF-8 (split so that no hex escape runs into a letter). */
#define MARIA                                                                                      \
    "Mar\xc3\xad"                                                                                  \
    "a \xc3\x91\xc3\xba\xc3\xb1"                                                                   \
    "ez"

static const enum verdict all_verdicts[] = {V_PASS,   V_WRONG, V_COMPILE, V_MISSING,
                                            V_CRASH,  V_EXIT,  V_TIMEOUT, V_MEMORY,
                                            V_OUTPUT, V_CHEAT, V_SKIPPED, V_GRADER};
#define N_VERDICTS (sizeof(all_verdicts) / sizeof(all_verdicts[0]))

static struct timing timing_of(double median, int samples)
{
    struct timing t = {true,          samples,       median,        median * 0.9, median * 0.95,
                       median * 1.05, median * 1.01, median * 0.02, 0.004};
    return t;
}

static void add_finding(struct case_result *c, const char *text)
{
    c->findings = xrealloc(c->findings, (c->n_findings + 1) * sizeof(char *));
    c->findings[c->n_findings++] = xstrdup(text);
}

/*
 * Every field set, most to unusual values: NULL strings, NaN and infinite doubles,
 * negative zero, a hidden case, two mismatch records (one with a NaN), findings with
 * control characters and invalid UTF-8, every verdict once.
 */
static void fixture(struct results *r)
{
    results_init(r);
    r->lab_id = xstrdup("lab6");
    r->lab_number = 6;
    r->lab_title = xstrdup("GPUs: matmul & co. \xe2\x80\x94 \"fast\"");
    r->course = xstrdup("Programaci\xc3\xb3n de GPUs");
    r->lang = xstrdup("es");
    r->student_id = xstrdup("alumno09");
    r->student_name = xstrdup(MARIA " \"la\" \\ jefa\n");
    r->submission = xstrdup("entregas/alumno09");
    r->submission_hash =
        xstrdup("9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08");
    r->grader_version = xstrdup("0.1.0");
    r->date = xstrdup("2026-11-22T14:03:00+01:00");
    r->mode = xstrdup("grade");
    r->isolation = xstrdup("bubblewrap");
    r->timing_mode = xstrdup("cold-l2");
    r->cgroup = xstrdup("v2");
    r->memory_limit_enforced = true;
    r->timing_blocking = true;
    r->pids_limit_enforced = false;
    r->full = true;
    r->hidden = true;
    r->show_hidden = false;

    struct machine_info *m = &r->machine;
    m->hostname = xstrdup("node07");
    m->cpu_model = xstrdup("AMD EPYC 9654 96-Core Processor");
    m->cpu_threads = 192;
    m->gpu_name = NULL;
    m->gpu_cc = NULL;
    m->gpu_memory_mib = 0;
    m->driver_version = NULL;
    m->cuda_runtime_version = xstrdup("13.0");
    m->cc_version = xstrdup("gcc (Debian 12.2.0-14) 12.2.0");
    m->nvcc_version = NULL;
    m->cflags = xstrdup("-O2 -march=native");
    m->nvccflags = xstrdup("-O3 -arch=sm_90");
    m->gpu_status = xstrdup("no GPU: nvidia-smi not found");
    m->calibration = xstrdup("memcpy 12.5 GB/s, sgemm 1.2 TFLOP/s");

    r->n_exercises = 2;
    r->exercises = xcalloc(2, sizeof(*r->exercises));
    struct exercise_result *ex = &r->exercises[0];
    ex->exercise_id = xstrdup("matmul");
    ex->title = xstrdup("Matrix multiplication");
    ex->perf_points = 0.5;
    ex->perf_max_points = 2;
    ex->tol_summary = xstrdup("rtol=1e-3 atol=1e-5");
    ex->n_variants = 2;
    ex->variants = xcalloc(2, sizeof(*ex->variants));

    struct variant_result *cpu = &ex->variants[0];
    cpu->variant_id = xstrdup("cpu");
    cpu->title = xstrdup("CPU, blocked");
    cpu->function = xstrdup("matmul_cpu");
    cpu->target = xstrdup("cpu");
    cpu->memory = xstrdup("host");
    variant_result_add_arg_memory(cpu, "A", MEM_HOST);
    variant_result_add_arg_memory(cpu, "C", MEM_HOST);
    cpu->built = true;
    cpu->build_log = xstrdup("matmul.c:12:5: warning: unused variable 'i' [-Wunused-variable]\n"
                             "   12 |     int i;\n      |         ^\n");
    cpu->n_warnings = 1;
    cpu->n_cases = 6;
    cpu->cases = xcalloc(6, sizeof(*cpu->cases));
    for (size_t i = 0; i < 6; i++) {
        struct case_result *c = &cpu->cases[i];
        c->case_id = xstrfmt("case%zu", i);
        c->sizes = xstrfmt("n=%d", 64 << i);
        case_result_add_param(c, "n", 64L << i);
        c->verdict = all_verdicts[i];
        c->max_points = 1;
        c->points = c->verdict == V_PASS ? 1 : 0;
        c->wall_s = 0.125 * (double)(i + 1);
        c->cpu_s = 0.1;
        c->peak_rss_kb = 20480 + (long)i;
    }
    struct case_result *pass = &cpu->cases[0];
    pass->message = xstrdup("ok");
    pass->time = timing_of(1.5, 30);
    pass->ref_time = timing_of(3.0, 30);
    pass->baseline_ms = 12.25;
    pass->speedup_ref = 2;
    pass->speedup_baseline = 8.1666666666666661;
    pass->n_rounds = 3;
    pass->round_ms = xcalloc(3, sizeof(double));
    pass->round_ref_ms = xcalloc(3, sizeof(double));
    for (size_t i = 0; i < 3; i++) {
        pass->round_ms[i] = 1.5 + 0.125 * (double)i;
        pass->round_ref_ms[i] = 3.0 - 1.0 / 3 * (double)i;
    }
    pass->gflops = 123.456;
    pass->gbps = 0.1 + 0.2;
    pass->time.stddev_ms = NAN;
    pass->time.rse = INFINITY;
    pass->ref_time.min_ms = -0.0;

    struct case_result *wrong = &cpu->cases[1];
    wrong->message = xstrdup("C: 3 of 4096 elements differ");
    wrong->detail = xstrdup("Mismatched elements: 3 / 4096 (0.0732%)\n...");
    wrong->n_mismatches = 2;
    wrong->mismatches = xcalloc(2, sizeof(*wrong->mismatches));
    struct mismatch *mm = &wrong->mismatches[0];
    snprintf(mm->arg, sizeof(mm->arg), "C");
    mm->n_mismatch = 3;
    mm->n_total = 4096;
    mm->max_abs = 0.5;
    mm->max_rel = INFINITY;
    mm->n_first = 3;
    snprintf(mm->first[0].index, sizeof(mm->first[0].index), "[0, 3]");
    mm->first[0].actual = 1.5;
    mm->first[0].expected = 2;
    snprintf(mm->first[1].index, sizeof(mm->first[1].index), "[63, 63]");
    mm->first[1].actual = NAN;
    mm->first[1].expected = 1e-300;
    snprintf(mm->first[2].index, sizeof(mm->first[2].index), "[1, 0]");
    mm->first[2].actual = -INFINITY;
    mm->first[2].expected = 0;
    mm = &wrong->mismatches[1];
    snprintf(mm->arg, sizeof(mm->arg), "D \"quoted\"");
    mm->n_mismatch = 0;
    mm->n_total = 0;
    add_finding(wrong, "correct on the first call but wrong on a later call");
    add_finding(wrong, "tab\there, bell\a, escape \x1b[31m, DEL \x7f");
    add_finding(wrong, "invalid UTF-8: \xff\xc3( end");
    wrong->perf_finding = 2;
    wrong->roofline_first = 1;
    wrong->roofline_count = 2;

    cpu->cases[2].hidden = true;
    cpu->cases[2].slow = true;
    cpu->cases[2].message = xstrdup("compile error");
    cpu->cases[2].detail = NULL;

    struct variant_result *gpu = &ex->variants[1];
    gpu->variant_id = xstrdup("gpu");
    gpu->title = NULL;
    gpu->function = xstrdup("matmul_gpu");
    gpu->target = xstrdup("gpu");
    gpu->memory = xstrdup("A=device, C=pinned");
    variant_result_add_arg_memory(gpu, "A", MEM_DEVICE);
    variant_result_add_arg_memory(gpu, "C", MEM_PINNED);
    gpu->built = false;
    gpu->build_log = NULL;
    gpu->n_warnings = 0;
    gpu->n_cases = 6;
    gpu->cases = xcalloc(6, sizeof(*gpu->cases));
    for (size_t i = 0; i < 6; i++) {
        struct case_result *c = &gpu->cases[i];
        c->case_id = xstrfmt("g%zu", i);
        c->verdict = all_verdicts[6 + i];
        c->max_points = 0.25;
        c->hidden = i == 4;
        c->time_transfer = timing_of(0.75, 10);
        c->ref_time_transfer = timing_of(0.5, 10);
        c->message = i == 4 ? xstrdup("skipped: no GPU") : NULL;
    }
    /* NVML clocks: the student's run had three samples dropped, the reference's gave up. */
    gpu->cases[0].clock = (struct gpu_clock){1755, 1980, 1980, 3, false};
    gpu->cases[0].ref_clock = (struct gpu_clock){1410, 1455, 1980, 6, true};
    /* compute-sanitizer: one run with two reports (one without a location), one that did not
     * complete, one skipped. */
    gpu->n_sanitizer = 3;
    gpu->sanitizer = xcalloc(3, sizeof(*gpu->sanitizer));
    struct sanitizer_run *san = &gpu->sanitizer[0];
    sanitizer_run_init(san);
    san->tool = xstrdup("memcheck");
    san->case_id = xstrdup("g0");
    san->status = SANITIZER_RAN;
    san->wall_s = 4.25;
    san->out.summary = true;
    san->out.errors = 25;
    san->out.not_printed = 15;
    san->out.other_reports = 1;
    san->out.tool_error = xstrdup("Error: process didn't terminate successfully");
    san->out.n_reports = 2;
    san->out.reports = xcalloc(2, sizeof(*san->out.reports));
    san->out.reports[0].kind = xstrdup("Invalid __global__ write of size 4 bytes");
    san->out.reports[0].location = xstrdup("oob(float *, int) in san.cu:3");
    san->out.reports[0].thread = xstrdup("(232,0,0)");
    san->out.reports[0].block = xstrdup("(3,0,0)");
    san->out.reports[0].access = xstrdup("1 byte after an allocation of 4,000 bytes");
    san->out.reports[0].count = 9;
    san->out.reports[1].kind = xstrdup("Program hit cudaErrorLaunchFailure \"x\"\n");
    san->out.reports[1].count = 1;
    san = &gpu->sanitizer[1];
    sanitizer_run_init(san);
    san->tool = xstrdup("racecheck");
    san->case_id = xstrdup("g0");
    san->status = SANITIZER_FAILED;
    san->reason = xstrdup("compute-sanitizer did not complete: it ran longer than its 60 s limit");
    san->out.warnings = 2;
    san = &gpu->sanitizer[2];
    sanitizer_run_init(san);
    san->tool = xstrdup("initcheck");
    san->status = SANITIZER_SKIPPED;
    san->reason = xstrdup("no GPU");

    ex = &r->exercises[1];
    ex->exercise_id = xstrdup("empty");
    ex->title = NULL;
    ex->tol_summary = NULL;
    results_tally(r);
}

static char *to_json(const struct results *r)
{
    struct strbuf sb = STRBUF_INIT;
    results_to_json(r, &sb);
    return strbuf_detach(&sb);
}

static bool valid_utf8(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        size_t n = *p < 0x80             ? 1
                   : (*p & 0xe0) == 0xc0 ? 2
                   : (*p & 0xf0) == 0xe0 ? 3
                   : (*p & 0xf8) == 0xf0 ? 4
                                         : 0;
        if (n == 0 || (n == 2 && *p < 0xc2))
            return false;
        for (size_t i = 1; i < n; i++)
            if ((p[i] & 0xc0) != 0x80)
                return false;
        p += n;
    }
    return true;
}

static char *make_tmpdir(void)
{
    char *d = xstrdup("/tmp/lg-test-results-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(d));
    return d;
}

START_TEST(test_verdict_tables)
{
    static const char *const codes[] = {"OK", "WA", "CE", "MF", "SG", "RE",
                                        "TO", "ML", "OL", "CH", "SK", "XX"};
    static const char *const names[] = {
        "passed",       "wrong values",       "compile error", "missing function",
        "crashed",      "runtime error",      "timed out",     "memory limit",
        "output limit", "tampering detected", "skipped",       "grader error"};
    for (size_t i = 0; i < N_VERDICTS; i++) {
        enum verdict v = all_verdicts[i];
        ck_assert_str_eq(verdict_code(v), codes[i]);
        ck_assert_str_eq(verdict_name(v), names[i]);
        ck_assert_int_eq(verdict_parse(codes[i]), (int)v);
        ck_assert_int_eq(verdict_is_failure(v), v != V_PASS && v != V_SKIPPED && v != V_GRADER);
    }
    ck_assert(!verdict_is_failure(V_PASS));
    ck_assert(!verdict_is_failure(V_SKIPPED));
    ck_assert(!verdict_is_failure(V_GRADER));
    ck_assert(verdict_is_failure(V_CHEAT));
    ck_assert(verdict_is_failure(V_WRONG));
    ck_assert_int_eq(verdict_parse("ok"), -1); /* codes are upper case */
    ck_assert_int_eq(verdict_parse("passed"), -1);
    ck_assert_int_eq(verdict_parse(""), -1);
    ck_assert_int_eq(verdict_parse(NULL), -1);
    ck_assert_str_eq(verdict_code((enum verdict)99), "??");
}
END_TEST

START_TEST(test_tally)
{
    struct results r;
    fixture(&r);
    /* matmul: cpu cases 1 + 0*5 out of 6, gpu cases 0 out of 6 * 0.25, perf 0.5 of 2. */
    ck_assert(r.exercises[0].points == 1.5);
    ck_assert(r.exercises[0].max_points == 6 + 1.5 + 2);
    ck_assert(r.exercises[1].points == 0 && r.exercises[1].max_points == 0);
    ck_assert(r.score == 1.5);
    ck_assert(r.max_score == 9.5);
    ck_assert_int_eq(r.n_pass, 1);
    ck_assert_int_eq(r.n_skipped, 1);
    ck_assert_int_eq(r.n_grader_errors, 1);
    ck_assert_int_eq(r.n_fail, 9);
    /* Tally recomputes from scratch: stale totals and counts are replaced. */
    r.score = 100;
    r.n_pass = 42;
    r.exercises[0].points = -3;
    r.exercises[0].variants[1].cases[5].verdict = V_PASS; /* was XX */
    r.exercises[0].variants[1].cases[5].points = 0.25;
    r.exercises[1].perf_points = 1;
    r.exercises[1].perf_max_points = 1;
    results_tally(&r);
    ck_assert(r.exercises[0].points == 1.75);
    ck_assert(r.exercises[1].points == 1 && r.exercises[1].max_points == 1);
    ck_assert(r.score == 2.75);
    ck_assert(r.max_score == 10.5);
    ck_assert_int_eq(r.n_pass, 2);
    ck_assert_int_eq(r.n_grader_errors, 0);
    ck_assert_int_eq(r.n_fail, 9);
    results_release(&r);

    results_init(&r);
    results_tally(&r);
    ck_assert(r.score == 0 && r.max_score == 0 && r.n_pass == 0 && r.n_fail == 0);
    results_release(&r);
}
END_TEST

START_TEST(test_release_and_free)
{
    struct results *r = xmalloc(sizeof(*r));
    fixture(r);
    results_release(r);
    /* Released means back to the initial state, safe to release again or reuse. */
    ck_assert_ptr_null(r->student_name);
    ck_assert_ptr_null(r->exercises);
    ck_assert_uint_eq(r->n_exercises, 0);
    ck_assert_ptr_null(r->machine.hostname);
    results_release(r);
    fixture(r);
    results_free(r);
    results_free(NULL);
}
END_TEST

START_TEST(test_json_shape)
{
    struct results r;
    fixture(&r);
    char *json = to_json(&r);
    ck_assert_msg(!strncmp(json,
                           "{\n  \"format\": \"labgrader-results-1\",\n  \"lab_id\": \"lab6\",\n"
                           "  \"lab_number\": 6,\n",
                           strlen("{\n  \"format\": \"labgrader-results-1\",\n  \"lab_id\": "
                                  "\"lab6\",\n  \"lab_number\": 6,\n")),
                  "%.200s", json);
    ck_assert_str_eq(json + strlen(json) - 3, "\n}\n");
    ck_assert(valid_utf8(json));
    /* Escaping, NULL strings, NaN and infinities, verdict codes. */
    ck_assert(strstr(json, "\"student_name\": \"" MARIA " \\\"la\\\" \\\\ jefa\\n\","));
    ck_assert(strstr(json, "\"gpu_name\": null,"));
    ck_assert(strstr(json, "\"stddev_ms\": null,"));
    ck_assert(strstr(json, "\"rse\": null\n"));
    ck_assert(strstr(json, "\"min_ms\": -0,"));
    ck_assert(strstr(json, "\"gbps\": 0.30000000000000004,"));
    ck_assert(strstr(json, "\"verdict\": \"WA\","));
    ck_assert(strstr(json, "\"verdict\": \"XX\","));
    ck_assert(strstr(json, "\"tab\\there, bell\\u0007, escape \\u001b[31m, DEL \\u007f\""));
    ck_assert(strstr(json, "\"invalid UTF-8: \xef\xbf\xbd\xef\xbf\xbd( end\""));
    ck_assert(strstr(json, "\"mismatches\": [],"));
    ck_assert(strstr(json, "\"findings\": [],"));
    /* The sanitizer's runs only where there are some. */
    ck_assert(strstr(json, "\"sanitizer\": [\n"));
    ck_assert(strstr(json, "\"status\": \"skipped\","));
    const char *san_key = strstr(json, "\"sanitizer\":");
    ck_assert(san_key && !strstr(san_key + 1, "\"sanitizer\":"));
    ck_assert(strstr(json, "\"variants\": []\n"));
    /* Sizes and memory spaces as data beside the older text (their shape: below). */
    ck_assert(strstr(json, "\"space\": \"pinned\""));

    /* The document parses, and its names are the struct's field names. */
    struct json_value *root = NULL;
    struct error err;
    error_init(&err);
    ck_assert_msg(json_parse(json, strlen(json), &root, &err) == 0, "%d:%d: %s", err.line, err.col,
                  err.msg);
    static const char *const top[] = {"format",
                                      "lab_id",
                                      "lab_number",
                                      "lab_title",
                                      "course",
                                      "lang",
                                      "student_id",
                                      "student_name",
                                      "submission",
                                      "submission_hash",
                                      "grader_version",
                                      "date",
                                      "mode",
                                      "isolation",
                                      "timing_mode",
                                      "timing_blocking",
                                      "cgroup",
                                      "memory_limit_enforced",
                                      "pids_limit_enforced",
                                      "full",
                                      "hidden",
                                      "show_hidden",
                                      "machine",
                                      "score",
                                      "max_score",
                                      "n_pass",
                                      "n_fail",
                                      "n_skipped",
                                      "n_grader_errors",
                                      "n_not_timed",
                                      "phases",
                                      "exercises"};
    ck_assert_uint_eq(root->n, sizeof(top) / sizeof(top[0]));
    for (size_t i = 0; i < root->n; i++)
        ck_assert_str_eq(root->keys[i], top[i]);
    ck_assert_uint_eq(json_get(root, "machine")->n, 14);
    const struct json_value *ex = json_at(json_get(root, "exercises"), 0);
    ck_assert_uint_eq(ex->n, 8);
    const struct json_value *var = json_at(json_get(ex, "variants"), 0);
    ck_assert_uint_eq(var->n, 10);
    ck_assert_str_eq(var->keys[5], "arg_memory");
    const struct json_value *am = json_at(json_get(var, "arg_memory"), 1);
    ck_assert_uint_eq(am->n, 2);
    ck_assert_str_eq(json_get_string(am, "arg"), "C");
    ck_assert_str_eq(json_get_string(am, "space"), "host");
    const struct json_value *c = json_at(json_get(var, "cases"), 1);
    static const char *const case_keys[] = {"case_id",
                                            "sizes",
                                            "params",
                                            "hidden",
                                            "slow",
                                            "verdict",
                                            "message",
                                            "detail",
                                            "points",
                                            "max_points",
                                            "time",
                                            "time_transfer",
                                            "ref_time",
                                            "ref_time_transfer",
                                            "baseline_ms",
                                            "speedup_ref",
                                            "speedup_baseline",
                                            "gflops",
                                            "gbps",
                                            "mismatches",
                                            "findings",
                                            "perf_finding",
                                            "roofline_first",
                                            "roofline_count",
                                            "wall_s",
                                            "cpu_s",
                                            "peak_rss_kb"};
    ck_assert_uint_eq(c->n, sizeof(case_keys) / sizeof(case_keys[0]));
    const struct json_value *param = json_at(json_get(c, "params"), 0);
    ck_assert_uint_eq(param->n, 2);
    ck_assert_str_eq(json_get_string(param, "name"), "n");
    ck_assert(json_get_number(param, "value", 0) == 128);
    /* Clocks only where one was read: a CPU case has none, the GPU case both. */
    ck_assert_ptr_null(json_get(c, "gpu_clock"));
    const struct json_value *gc =
        json_at(json_get(json_at(json_get(ex, "variants"), 1), "cases"), 0);
    static const char *const clock_keys[] = {"min_mhz", "max_mhz", "limit_mhz", "dropped",
                                             "throttled"};
    ck_assert_str_eq(gc->keys[14], "gpu_clock");
    ck_assert_str_eq(gc->keys[15], "ref_gpu_clock");
    ck_assert_uint_eq(json_get(gc, "gpu_clock")->n, 5);
    for (size_t i = 0; i < 5; i++)
        ck_assert_str_eq(json_get(gc, "ref_gpu_clock")->keys[i], clock_keys[i]);
    ck_assert_ptr_null(
        json_get(json_at(json_get(json_at(json_get(ex, "variants"), 1), "cases"), 1), "gpu_clock"));
    for (size_t i = 0; i < c->n; i++)
        ck_assert_str_eq(c->keys[i], case_keys[i]);
    static const char *const timing_keys[] = {"valid", "samples", "median_ms", "min_ms", "q1_ms",
                                              "q3_ms", "mean_ms", "stddev_ms", "rse"};
    const struct json_value *t = json_get(c, "time");
    ck_assert_uint_eq(t->n, 9);
    for (size_t i = 0; i < t->n; i++)
        ck_assert_str_eq(t->keys[i], timing_keys[i]);
    const struct json_value *m = json_at(json_get(c, "mismatches"), 0);
    ck_assert_str_eq(json_get_string(m, "arg"), "C");
    ck_assert_uint_eq(json_get(m, "first")->n, 3);
    ck_assert_str_eq(json_get_string(json_at(json_get(m, "first"), 1), "index"), "[63, 63]");
    ck_assert_int_eq(json_get(json_at(json_get(m, "first"), 1), "actual")->type, JSON_NULL);
    json_value_free(root);
    free(json);
    results_release(&r);
}
END_TEST

START_TEST(test_round_trip_identical)
{
    struct results r, back;
    struct error err;
    error_init(&err);
    fixture(&r);
    char *first = to_json(&r);
    results_init(&back);
    ck_assert_msg(results_from_json(&back, first, strlen(first), "mem.json", &err) == 0, "%s",
                  err.msg);
    char *second = to_json(&back);
    ck_assert_str_eq(second, first);

    /* Spot checks on what came back. */
    ck_assert_str_eq(back.student_name, r.student_name);
    ck_assert_str_eq(back.lab_title, r.lab_title);
    ck_assert_int_eq(back.lab_number, 6);
    ck_assert(back.full && back.hidden && !back.show_hidden);
    /* What held the runs (grader/run/sandbox.h), for the report's isolation section. */
    ck_assert_str_eq(back.cgroup, "v2");
    ck_assert(back.memory_limit_enforced && !back.pids_limit_enforced);
    ck_assert(back.timing_blocking);
    ck_assert_ptr_null(back.machine.gpu_name);
    ck_assert_ptr_null(back.machine.driver_version);
    ck_assert_int_eq(back.machine.cpu_threads, 192);
    ck_assert_str_eq(back.machine.gpu_status, "no GPU: nvidia-smi not found");
    ck_assert_str_eq(back.machine.calibration, r.machine.calibration);
    ck_assert_uint_eq(back.n_exercises, 2);
    ck_assert_ptr_null(back.exercises[1].title);
    ck_assert_uint_eq(back.exercises[1].n_variants, 0);
    ck_assert(back.exercises[0].perf_points == 0.5);
    const struct variant_result *cpu = &back.exercises[0].variants[0];
    ck_assert(cpu->built);
    ck_assert_str_eq(cpu->build_log, r.exercises[0].variants[0].build_log);
    ck_assert_int_eq(cpu->n_warnings, 1);
    ck_assert_ptr_null(back.exercises[0].variants[1].title);
    ck_assert(!back.exercises[0].variants[1].built);
    for (size_t i = 0; i < 6; i++) {
        ck_assert_int_eq(cpu->cases[i].verdict, all_verdicts[i]);
        ck_assert_int_eq(back.exercises[0].variants[1].cases[i].verdict, all_verdicts[6 + i]);
        ck_assert_int_eq(cpu->cases[i].peak_rss_kb, 20480 + (long)i);
    }
    ck_assert(cpu->cases[2].hidden && cpu->cases[2].slow);
    /* Sizes and memory spaces came back as data, not from the text. */
    for (size_t i = 0; i < 6; i++) {
        ck_assert_uint_eq(cpu->cases[i].n_params, 1);
        ck_assert_str_eq(cpu->cases[i].params[0].name, "n");
        ck_assert_int_eq(cpu->cases[i].params[0].value, 64L << i);
        ck_assert_uint_eq(back.exercises[0].variants[1].cases[i].n_params, 0);
    }
    const struct variant_result *gv = &back.exercises[0].variants[1];
    ck_assert_uint_eq(gv->n_arg_memory, 2);
    ck_assert(!strcmp(gv->arg_memory[0].arg, "A") && gv->arg_memory[0].space == MEM_DEVICE);
    ck_assert(!strcmp(gv->arg_memory[1].arg, "C") && gv->arg_memory[1].space == MEM_PINNED);
    ck_assert_uint_eq(cpu->n_arg_memory, 2);
    ck_assert_int_eq(cpu->arg_memory[1].space, MEM_HOST);
    ck_assert(back.exercises[0].variants[1].cases[4].hidden);
    const struct case_result *pass = &cpu->cases[0];
    ck_assert(pass->time.valid && pass->time.samples == 30 && pass->time.median_ms == 1.5);
    ck_assert(pass->time.q1_ms == r.exercises[0].variants[0].cases[0].time.q1_ms);
    ck_assert(isnan(pass->time.stddev_ms)); /* NaN went out as null */
    ck_assert(isnan(pass->time.rse));       /* and so did inf */
    ck_assert(pass->ref_time.min_ms == 0 && signbit(pass->ref_time.min_ms));
    ck_assert(pass->gbps == 0.1 + 0.2);
    ck_assert(pass->speedup_baseline == 8.1666666666666661);
    /* Alternating rounds, exactly, in order; a case timed once each has none. */
    ck_assert_uint_eq(pass->n_rounds, 3);
    for (size_t i = 0; i < 3; i++)
        ck_assert(pass->round_ms[i] == 1.5 + 0.125 * (double)i &&
                  pass->round_ref_ms[i] == 3.0 - 1.0 / 3 * (double)i);
    ck_assert_uint_eq(cpu->cases[1].n_rounds, 0);
    ck_assert_ptr_null(cpu->cases[1].round_ms);
    ck_assert(!pass->time_transfer.valid);
    const struct case_result *g0 = &back.exercises[0].variants[1].cases[0];
    ck_assert(g0->clock.min_mhz == 1755 && g0->clock.max_mhz == 1980 &&
              g0->clock.limit_mhz == 1980 && g0->clock.dropped == 3 && !g0->clock.throttled);
    ck_assert(g0->ref_clock.min_mhz == 1410 && g0->ref_clock.max_mhz == 1455 &&
              g0->ref_clock.dropped == 6 && g0->ref_clock.throttled);
    ck_assert_int_eq(pass->clock.max_mhz, 0);
    ck_assert_int_eq(pass->clock.limit_mhz, 0);
    const struct case_result *wrong = &cpu->cases[1];
    ck_assert_uint_eq(wrong->n_mismatches, 2);
    ck_assert_str_eq(wrong->mismatches[0].arg, "C");
    ck_assert_int_eq(wrong->mismatches[0].n_mismatch, 3);
    ck_assert_int_eq(wrong->mismatches[0].n_total, 4096);
    ck_assert(isnan(wrong->mismatches[0].max_rel));
    ck_assert_int_eq(wrong->mismatches[0].n_first, 3);
    ck_assert_str_eq(wrong->mismatches[0].first[1].index, "[63, 63]");
    ck_assert(isnan(wrong->mismatches[0].first[1].actual));
    ck_assert(wrong->mismatches[0].first[1].expected == 1e-300);
    ck_assert_str_eq(wrong->mismatches[1].arg, "D \"quoted\"");
    ck_assert_int_eq(wrong->mismatches[1].n_first, 0);
    ck_assert_uint_eq(wrong->n_findings, 3);
    ck_assert_uint_eq(wrong->perf_finding, 2);
    ck_assert(wrong->roofline_first == 1 && wrong->roofline_count == 2);
    ck_assert(pass->roofline_first == 0 && pass->roofline_count == 0);
    ck_assert_str_eq(wrong->findings[1], r.exercises[0].variants[0].cases[1].findings[1]);
    /* Invalid UTF-8 was replaced on the way out and stays replaced. */
    ck_assert_str_eq(wrong->findings[2], "invalid UTF-8: \xef\xbf\xbd\xef\xbf\xbd( end");
    ck_assert(back.score == r.score && back.max_score == r.max_score);
    ck_assert_int_eq(back.n_fail, 9);
    /* compute-sanitizer runs, whatever their status; none where none ran. */
    ck_assert_uint_eq(cpu->n_sanitizer, 0);
    ck_assert_ptr_null(cpu->sanitizer);
    const struct variant_result *gpu = &back.exercises[0].variants[1];
    ck_assert_uint_eq(gpu->n_sanitizer, 3);
    const struct sanitizer_run *san = &gpu->sanitizer[0];
    ck_assert_str_eq(san->tool, "memcheck");
    ck_assert_str_eq(san->case_id, "g0");
    ck_assert_int_eq(san->status, SANITIZER_RAN);
    ck_assert_ptr_null(san->reason);
    ck_assert(san->wall_s == 4.25);
    ck_assert(san->out.summary);
    ck_assert_int_eq(san->out.errors, 25);
    ck_assert_int_eq(san->out.not_printed, 15);
    ck_assert_int_eq(san->out.other_reports, 1);
    ck_assert_str_eq(san->out.tool_error, "Error: process didn't terminate successfully");
    ck_assert_uint_eq(san->out.n_reports, 2);
    ck_assert_str_eq(san->out.reports[0].kind, "Invalid __global__ write of size 4 bytes");
    ck_assert_str_eq(san->out.reports[0].location, "oob(float *, int) in san.cu:3");
    ck_assert_str_eq(san->out.reports[0].thread, "(232,0,0)");
    ck_assert_str_eq(san->out.reports[0].block, "(3,0,0)");
    ck_assert_str_eq(san->out.reports[0].access, "1 byte after an allocation of 4,000 bytes");
    ck_assert_int_eq(san->out.reports[0].count, 9);
    ck_assert_str_eq(san->out.reports[1].kind, "Program hit cudaErrorLaunchFailure \"x\"\n");
    ck_assert_ptr_null(san->out.reports[1].location);
    ck_assert_ptr_null(san->out.reports[1].access);
    san = &gpu->sanitizer[1];
    ck_assert_int_eq(san->status, SANITIZER_FAILED);
    ck_assert_str_eq(san->reason,
                     "compute-sanitizer did not complete: it ran longer than its 60 s limit");
    ck_assert(!san->out.summary);
    ck_assert_int_eq(san->out.warnings, 2);
    ck_assert_uint_eq(san->out.n_reports, 0);
    san = &gpu->sanitizer[2];
    ck_assert_int_eq(san->status, SANITIZER_SKIPPED);
    ck_assert_ptr_null(san->case_id);
    ck_assert_str_eq(san->reason, "no GPU");

    free(first);
    free(second);
    results_release(&back);
    results_release(&r);
}
END_TEST

/* A case not timed because other processes shared its cores keeps, through results.json, their
 * load and the busiest of them (the report names it). */
START_TEST(test_not_timed_round_trip)
{
    struct results r, back;
    struct error err;
    error_init(&err);
    fixture(&r);
    struct case_result *c = &r.exercises[0].variants[0].cases[0];
    c->not_timed = NOT_TIMED_SHARED;
    c->not_timed_detail = xstrdup("nvcc");
    c->not_timed_cpus = 1.75;
    c->not_timed_irq_cpus = 0.25;
    c->not_timed_steal_cpus = 0.5;
    c->not_timed_cpu_pid = 4312;
    results_tally(&r);
    char *first = to_json(&r);
    results_init(&back);
    ck_assert_msg(results_from_json(&back, first, strlen(first), "mem.json", &err) == 0, "%s",
                  err.msg);
    const struct case_result *b = &back.exercises[0].variants[0].cases[0];
    ck_assert_int_eq(b->not_timed, NOT_TIMED_SHARED);
    ck_assert_str_eq(b->not_timed_detail, "nvcc");
    ck_assert(b->not_timed_cpus == 1.75);
    ck_assert(b->not_timed_irq_cpus == 0.25);
    ck_assert(b->not_timed_steal_cpus == 0.5);
    ck_assert_int_eq(b->not_timed_cpu_pid, 4312);
    ck_assert_int_eq(b->not_timed_gpu_pid, 0);
    char *second = to_json(&back);
    ck_assert_msg(strcmp(second, first) == 0, "results.json changed on its way back");
    free(first);
    free(second);
    results_release(&r);
    results_release(&back);
}
END_TEST

START_TEST(test_write_and_read_files)
{
    char *dir = make_tmpdir();
    char *path = path_join(dir, "results.json");
    struct results r, back;
    struct error err;
    error_init(&err);
    fixture(&r);
    ck_assert_msg(results_write(&r, path, &err) == 0, "%s", err.msg);
    results_init(&back);
    ck_assert_msg(results_read(&back, path, &err) == 0, "%s", err.msg);
    char *a = to_json(&r), *b = to_json(&back);
    ck_assert_str_eq(a, b);
    struct strbuf on_disk = STRBUF_INIT;
    ck_assert_int_eq(read_file(path, &on_disk, &err), 0);
    ck_assert_str_eq(on_disk.buf, a);
    strbuf_release(&on_disk);
    free(a);
    free(b);
    results_release(&back);

    /* A file that is not there: the error names it. */
    char *missing = path_join(dir, "nope.json");
    results_init(&back);
    error_init(&err);
    ck_assert_int_eq(results_read(&back, missing, &err), -1);
    ck_assert_str_eq(err.file, missing);
    ck_assert_ptr_null(back.lab_id);

    /* A parse error: file, line and column. */
    char *broken = path_join(dir, "broken.json");
    const char *text = "{\n  \"format\": \"labgrader-results-1\",\n  \"lab_id\": lab6\n}\n";
    ck_assert_int_eq(write_file_atomic(broken, text, strlen(text), &err), 0);
    error_init(&err);
    ck_assert_int_eq(results_read(&back, broken, &err), -1);
    ck_assert_str_eq(err.file, broken);
    ck_assert_int_eq(err.line, 3);
    ck_assert_int_eq(err.col, 13);
    char msg[4096];
    error_format(&err, msg, sizeof(msg));
    char *want = xstrfmt("%s:3:13: expected a value, found 'l'", broken);
    ck_assert_str_eq(msg, want);
    free(want);
    /* And with no error struct at all (batch merges do that). */
    ck_assert_int_eq(results_read(&back, broken, NULL), -1);
    ck_assert_int_eq(results_read(&back, missing, NULL), -1);
    results_release(&back);

    /* Writing where no directory exists fails with the path named. */
    char *nodir = path_join(dir, "no/such/dir/results.json");
    error_init(&err);
    ck_assert_int_eq(results_write(&r, nodir, &err), -1);
    ck_assert_str_eq(err.file, nodir);

    unlink(path);
    unlink(broken);
    rmdir(dir);
    free(nodir);
    free(broken);
    free(missing);
    free(path);
    free(dir);
    results_release(&r);
}
END_TEST

static int from_text(struct results *r, const char *text, struct error *err)
{
    results_init(r);
    error_init(err);
    return results_from_json(r, text, strlen(text), "x.json", err);
}

START_TEST(test_format_checked)
{
    struct results r;
    struct error err;
    ck_assert_int_eq(
        from_text(&r, "{\"format\": \"labgrader-results-2\", \"lab_id\": \"a\"}", &err), -1);
    ck_assert_str_eq(err.file, "x.json");
    ck_assert_msg(strstr(err.msg, "labgrader-results-2") && strstr(err.msg, "labgrader-results-1"),
                  "%s", err.msg);
    ck_assert_ptr_null(r.lab_id);
    ck_assert_int_eq(from_text(&r, "{\"lab_id\": \"a\"}", &err), -1);
    ck_assert_msg(strstr(err.msg, "missing"), "%s", err.msg);
    ck_assert_int_eq(from_text(&r, "{\"format\": 1}", &err), -1);
    ck_assert_int_eq(from_text(&r, "[\"labgrader-results-1\"]", &err), -1);
    ck_assert_msg(strstr(err.msg, "not a JSON object"), "%s", err.msg);
    ck_assert_int_eq(from_text(&r, "", &err), -1);
    ck_assert_str_eq(err.file, "x.json");
    ck_assert_int_eq(err.line, 1);
    ck_assert_int_eq(err.col, 1);
    /* Without a path the error still says where it comes from. */
    results_init(&r);
    error_init(&err);
    ck_assert_int_eq(results_from_json(&r, "{}", 2, NULL, &err), -1);
    ck_assert(err.file[0] != '\0');
}
END_TEST

/* A small file that passes every check: 1.5 of 3 points, one case passed, one failed. */
static const char valid_doc[] =
    "{\"format\": \"labgrader-results-1\", \"lab_id\": \"lab9\", \"student_id\": \"s1\",\n"
    " \"score\": 1.5, \"max_score\": 3, \"n_pass\": 1, \"n_fail\": 1, \"n_skipped\": 0,\n"
    " \"n_grader_errors\": 0,\n"
    " \"exercises\": [{\"exercise_id\": \"e\", \"points\": 1.5, \"max_points\": 3,\n"
    "   \"perf_points\": 0.5, \"perf_max_points\": 1, \"variants\": [{\"variant_id\": \"cpu\",\n"
    "   \"cases\": [{\"case_id\": \"a\", \"verdict\": \"OK\", \"points\": 1, \"max_points\": 1},\n"
    "    {\"case_id\": \"b\", \"verdict\": \"WA\", \"points\": 0, \"max_points\": 1}]}]}]}\n";

/* valid_doc with the first `from` replaced by `to`. Caller frees. */
static char *edited(const char *from, const char *to)
{
    const char *at = strstr(valid_doc, from);
    ck_assert_msg(at != NULL, "valid_doc has no '%s'", from);
    return xstrfmt("%.*s%s%s", (int)(at - valid_doc), valid_doc, to, at + strlen(from));
}

START_TEST(test_defaults_and_unknown_fields)
{
    struct results r;
    struct error err;
    /* What grades, and nothing else: everything optional at results_init's defaults. */
    ck_assert_msg(from_text(&r, valid_doc, &err) == 0, "%s", err.msg);
    ck_assert_str_eq(r.lab_id, "lab9");
    ck_assert_ptr_null(r.lab_title);
    ck_assert_ptr_null(r.machine.hostname);
    ck_assert_int_eq(r.lab_number, 0);
    ck_assert(!r.full);
    /* Results from before the limits were recorded: unknown, never "enforced". */
    ck_assert_ptr_null(r.cgroup);
    ck_assert(!r.memory_limit_enforced && !r.pids_limit_enforced);
    ck_assert(r.score == 1.5 && r.max_score == 3);
    ck_assert_uint_eq(r.n_exercises, 1);
    ck_assert_int_eq(r.exercises[0].variants[0].cases[1].verdict, V_WRONG);
    results_release(&r);

    /* A newer writer's fields are ignored; the writer's nulls (NaN, a missing string) read as
     * NaN and NULL; long texts are cut to their fields; sanitizer reports without a kind are
     * dropped. */
    char *t1 = edited(
        "{\"case_id\": \"b\", \"verdict\": \"WA\", \"points\": 0, \"max_points\": 1}",
        "{\"case_id\": \"b\", \"verdict\": \"WA\", \"points\": 0, \"max_points\": 1,\n"
        "  \"extra\": [1, {\"y\": null}], \"peak_rss_kb\": null,\n"
        "  \"baseline_ms\": null, \"message\": null, \"findings\": [\"kept\", \"also kept\"],\n"
        "  \"perf_finding\": 3, \"mismatches\": [{\"arg\": \""
        "0123456789012345678901234567890123456789012345678901234567890123456789\",\n"
        "  \"first\": [{}, {}, {}, {}, {}, {}, {}]}],\n"
        "  \"time\": {\"valid\": true, \"samples\": 3, \"median_ms\": 2}},\n"
        " {\"case_id\": \"c\", \"verdict\": \"SK\", \"points\": 0, \"max_points\": 0,\n"
        "  \"quantum\": true}");
    char *skip = strstr(t1, "\"n_skipped\": 0");
    ck_assert_ptr_nonnull(skip);
    skip[strlen("\"n_skipped\": ")] = '1';
    const char *san = "\"variant_id\": \"cpu\", \"sanitizer\": [{\"tool\": \"memcheck\", "
                      "\"status\": \"ran\", \"errors\": 1e300, \"reports\": [{\"count\": 2}, "
                      "{\"kind\": \"k\", \"count\": null}]}],";
    char *at = strstr(t1, "\"variant_id\": \"cpu\",");
    char *t2 =
        xstrfmt("%.*s%s%s", (int)(at - t1), t1, san, at + strlen("\"variant_id\": \"cpu\","));
    char *text = xstrfmt("{\"future\": {\"x\": [1]}, \"lab_number\": 1e300, %s", t2 + 1);
    free(t1);
    free(t2);
    ck_assert_msg(from_text(&r, text, &err) == 0, "%s\n%s", err.msg, text);
    ck_assert_int_eq(r.lab_number, LONG_MAX);
    const struct variant_result *v = &r.exercises[0].variants[0];
    ck_assert_uint_eq(v->n_cases, 3);
    const struct case_result *b = &v->cases[1];
    ck_assert_int_eq(b->peak_rss_kb, 0);
    ck_assert(isnan(b->baseline_ms));
    ck_assert_ptr_null(b->message);
    ck_assert_uint_eq(b->n_findings, 2);
    ck_assert_str_eq(b->findings[1], "also kept");
    ck_assert_uint_eq(b->perf_finding, 0); /* past the findings kept */
    ck_assert_uint_eq(b->n_mismatches, 1);
    ck_assert_uint_eq(strlen(b->mismatches[0].arg), 63);
    ck_assert_int_eq(b->mismatches[0].n_first, 5);
    ck_assert(b->time.valid && b->time.samples == 3);
    ck_assert(b->time.median_ms == 2 && b->time.min_ms == 0);
    ck_assert_int_eq(v->cases[2].verdict, V_SKIPPED);
    ck_assert_uint_eq(v->n_sanitizer, 1);
    ck_assert_int_eq(v->sanitizer[0].out.errors, LONG_MAX);
    ck_assert_uint_eq(v->sanitizer[0].out.n_reports, 1);
    ck_assert_str_eq(v->sanitizer[0].out.reports[0].kind, "k");
    results_release(&r);
    free(text);
}
END_TEST

/* Truncated, emptied, edited or foreign: refused, never read as a grade (issue 21). */
START_TEST(test_corrupt_refused)
{
    static const struct {
        const char *from, *to, *says;
    } edits[] = {
        /* A higher total than its exercises hold. */
        {"\"score\": 1.5", "\"score\": 9.5", "the total is 9.5 of 3, but the exercises add up"},
        {"\"verdict\": \"WA\"", "\"verdict\": \"ZZ\"", "unknown verdict \"ZZ\""},
        {"\"verdict\": \"WA\", ", "", "\"verdict\" is missing"},
        {"\"points\": 1, \"max_points\": 1}", "\"points\": \"1\", \"max_points\": 1}",
         "\"points\" should be a number, not a string"},
        /* Points moved to a failed case, every sum kept right. */
        {"\"verdict\": \"OK\", \"points\": 1", "\"verdict\": \"OK\", \"points\": 0",
         "cases add up to 0.5 of 3"},
        {"\"verdict\": \"WA\", \"points\": 0", "\"verdict\": \"WA\", \"points\": 0.5",
         "0.5 points for a case whose verdict is WA"},
        {"\"points\": 1, \"max_points\": 1}", "\"points\": 2, \"max_points\": 1}",
         "points 2 out of 0..1"},
        {"\"verdict\": \"OK\", \"points\": 1", "\"verdict\": \"OK\", \"points\": -1",
         "points -1 out of 0..1"},
        {"\"perf_points\": 0.5", "\"perf_points\": 5", "speed points 5 out of 0..1"},
        {"\"n_pass\": 1", "\"n_pass\": 2", "counts 2 passed"},
        {"\"score\": 1.5", "\"score\": null", "\"score\" should be a number, not null"},
        {"\"student_id\": \"s1\",", "", "\"student_id\" is missing"},
        {"\"exercises\": [", "\"exercises\": \"none\", \"x\": [",
         "\"exercises\" should be an array, not a string"},
        {"\"exercises\": [{\"exercise_id\"", "\"exercises\": [7, {\"exercise_id\"",
         "exercises[0]: expected an object, found a number"},
        {"\"verdict\": \"OK\",", "\"verdict\": \"OK\", \"findings\": [\"a\", 3],",
         "findings[1]: should be a string"},
        {"\"variant_id\": \"cpu\",",
         "\"variant_id\": \"cpu\", \"sanitizer\": [{\"status\": \"exploded\"}],",
         "unknown status \"exploded\""},
    };
    struct results r;
    struct error err;
    for (size_t i = 0; i < sizeof(edits) / sizeof(edits[0]); i++) {
        char *text = edited(edits[i].from, edits[i].to);
        ck_assert_msg(from_text(&r, text, &err) == -1, "accepted: %s", text);
        ck_assert_str_eq(err.file, "x.json");
        ck_assert_msg(strstr(err.msg, edits[i].says), "'%s' for %s", err.msg, text);
        ck_assert_msg(strstr(err.msg, "grade the student again"), "%s", err.msg);
        /* Nothing of a refused file is left behind to be used by mistake. */
        ck_assert_ptr_null(r.lab_id);
        ck_assert_ptr_null(r.exercises);
        free(text);
    }
    /* Cut anywhere, a results file is refused: truncation never reads as fewer cases. */
    size_t len = strlen(valid_doc);
    for (size_t cut = 0; cut + 1 < len; cut++) {
        results_init(&r);
        error_init(&err);
        ck_assert_msg(results_from_json(&r, valid_doc, cut, "x.json", &err) == -1,
                      "accepted the first %zu bytes", cut);
        results_release(&r);
    }
}
END_TEST

/* Results written before params and arg_memory: both filled from the older text, once, in the
 * reader; text that is neither form, and spaces this version does not know, give nothing. */
static void forget_structure(struct results *r)
{
    for (size_t e = 0; e < r->n_exercises; e++)
        for (size_t v = 0; v < r->exercises[e].n_variants; v++) {
            struct variant_result *vr = &r->exercises[e].variants[v];
            for (size_t a = 0; a < vr->n_arg_memory; a++)
                free(vr->arg_memory[a].arg);
            free(vr->arg_memory);
            vr->arg_memory = NULL;
            vr->n_arg_memory = 0;
            for (size_t c = 0; c < vr->n_cases; c++) {
                struct case_result *cr = &vr->cases[c];
                for (size_t i = 0; i < cr->n_params; i++)
                    free(cr->params[i].name);
                free(cr->params);
                cr->params = NULL;
                cr->n_params = 0;
            }
        }
}

START_TEST(test_older_text_fallback)
{
    struct results r, back;
    struct error err;
    struct strbuf sb = STRBUF_INIT;
    fixture(&r);
    forget_structure(&r);
    struct variant_result *cpu = &r.exercises[0].variants[0];
    free(cpu->cases[1].sizes);
    cpu->cases[1].sizes = xstrdup("n = 7 , bad, k=x");
    free(cpu->cases[2].sizes);
    cpu->cases[2].sizes = NULL;
    results_to_json(&r, &sb);
    /* An older writer had no "arg_memory" key at all: renamed, it is an unknown field. */
    for (char *k = sb.buf; (k = strstr(k, "\"arg_memory\"")) != NULL;)
        memcpy(k + 1, "old", 3);
    ck_assert_msg(from_text(&back, sb.buf, &err) == 0, "%d:%d: %s", err.line, err.col, err.msg);
    const struct variant_result *v = back.exercises[0].variants;
    ck_assert_uint_eq(v[0].cases[0].n_params, 1);
    ck_assert(!strcmp(v[0].cases[0].params[0].name, "n") && v[0].cases[0].params[0].value == 64);
    ck_assert_uint_eq(v[0].cases[1].n_params, 1);
    ck_assert(!strcmp(v[0].cases[1].params[0].name, "n") && v[0].cases[1].params[0].value == 7);
    ck_assert_uint_eq(v[0].cases[2].n_params, 0);
    /* One space for every argument: one entry that names none. */
    ck_assert_uint_eq(v[0].n_arg_memory, 1);
    ck_assert(!strcmp(v[0].arg_memory[0].arg, "") && v[0].arg_memory[0].space == MEM_HOST);
    ck_assert_uint_eq(v[1].n_arg_memory, 2);
    ck_assert(!strcmp(v[1].arg_memory[0].arg, "A") && v[1].arg_memory[0].space == MEM_DEVICE);
    ck_assert(!strcmp(v[1].arg_memory[1].arg, "C") && v[1].arg_memory[1].space == MEM_PINNED);
    results_release(&back);
    strbuf_release(&sb);
    results_release(&r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("results");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_verdict_tables);
    tcase_add_test(tc, test_tally);
    tcase_add_test(tc, test_release_and_free);
    tcase_add_test(tc, test_json_shape);
    tcase_add_test(tc, test_round_trip_identical);
    tcase_add_test(tc, test_not_timed_round_trip);
    tcase_add_test(tc, test_write_and_read_files);
    tcase_add_test(tc, test_format_checked);
    tcase_add_test(tc, test_defaults_and_unknown_fields);
    tcase_add_test(tc, test_corrupt_refused);
    tcase_add_test(tc, test_older_text_fallback);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
