/*
 * report: golden Markdown (es, en), PDFs checked through pdftotext, injection
 * strings kept literal, a missing pandoc, the class summary, and plot.h's
 * break-even arithmetic.
 *
 * Regenerate the golden files after an intended change of the templates or the
 * report code with:  UPDATE_GOLDEN=1 build/tests/test_report
 * (then review `git diff tests/fixtures/reports`).
 */
#include "report/plot.h"
#include "report/report.h"
#include "report/points.h"
#include "report/table.h"
#include "grade/results.h"
#include "base/strbuf.h"
#include "base/alloc.h"
#include "base/fs.h"
#include "unit.h"

#include <check.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define TEMPLATES "templates"
#define GOLDEN_DIR "tests/fixtures/reports"

/* ---- building results in C ---- */

static struct timing timing_ms(double median, double spread)
{
    struct timing t;
    memset(&t, 0, sizeof(t));
    t.valid = true;
    t.samples = 15;
    t.median_ms = median;
    t.min_ms = median - spread;
    t.q1_ms = median - spread / 2;
    t.q3_ms = median + spread / 2;
    t.mean_ms = median;
    t.stddev_ms = spread;
    t.rse = 0.01;
    return t;
}

/* A case of size n: params {n}, and the text older results carry beside them. */
static struct case_result *add_case(struct variant_result *vr, const char *id, long n,
                                    enum verdict v, double points)
{
    vr->cases = xrealloc(vr->cases, (vr->n_cases + 1) * sizeof(*vr->cases));
    struct case_result *cr = &vr->cases[vr->n_cases++];
    memset(cr, 0, sizeof(*cr));
    cr->case_id = xstrdup(id);
    cr->sizes = xstrfmt("n=%ld", n);
    case_result_add_param(cr, "n", n);
    cr->verdict = v;
    cr->message = xstrdup(v == V_PASS ? "passed" : "failed");
    cr->max_points = 1;
    cr->points = points;
    return cr;
}

/* A variant whose arguments x and y live in one space. */
static struct variant_result *add_variant(struct exercise_result *ex, const char *id,
                                          const char *title, const char *fn, const char *target,
                                          enum mem_space space)
{
    ex->variants = xrealloc(ex->variants, (ex->n_variants + 1) * sizeof(*ex->variants));
    struct variant_result *vr = &ex->variants[ex->n_variants++];
    memset(vr, 0, sizeof(*vr));
    vr->variant_id = xstrdup(id);
    vr->title = xstrdup(title);
    vr->function = xstrdup(fn);
    vr->target = xstrdup(target);
    vr->memory = xstrdup(mem_space_name(space));
    variant_result_add_arg_memory(vr, "x", space);
    variant_result_add_arg_memory(vr, "y", space);
    vr->built = true;
    vr->build_log = xstrdup("");
    return vr;
}

/* A copy between dst and src, each in its own space. */
static struct variant_result *add_copy_variant(struct exercise_result *ex, const char *id,
                                               const char *title, const char *fn,
                                               enum mem_space dst, enum mem_space src)
{
    struct variant_result *vr = add_variant(ex, id, title, fn, "gpu", dst);
    free(vr->memory);
    vr->memory = xstrfmt("dst=%s, src=%s", mem_space_name(dst), mem_space_name(src));
    for (size_t i = 0; i < vr->n_arg_memory; i++)
        free(vr->arg_memory[i].arg);
    vr->n_arg_memory = 0;
    variant_result_add_arg_memory(vr, "dst", dst);
    variant_result_add_arg_memory(vr, "src", src);
    return vr;
}

static struct exercise_result *add_exercise(struct results *r, const char *id, const char *title)
{
    r->exercises = xrealloc(r->exercises, (r->n_exercises + 1) * sizeof(*r->exercises));
    struct exercise_result *ex = &r->exercises[r->n_exercises++];
    memset(ex, 0, sizeof(*ex));
    ex->exercise_id = xstrdup(id);
    ex->title = xstrdup(title);
    ex->tol_summary = xstrdup("rtol=1e-05 atol=1e-08");
    return ex;
}

static void add_finding(struct case_result *cr, const char *text)
{
    cr->findings = xrealloc(cr->findings, (cr->n_findings + 1) * sizeof(char *));
    cr->findings[cr->n_findings++] = xstrdup(text);
}

/* A timed passing case: student, reference and CPU baseline times. */
static void set_times(struct case_result *cr, double t, double ref, double baseline)
{
    cr->time = timing_ms(t, t * 0.02);
    cr->ref_time = timing_ms(ref, ref * 0.02);
    cr->baseline_ms = baseline;
    cr->speedup_ref = ref / t;
    cr->speedup_baseline = baseline > 0 ? baseline / t : 0;
}

static void set_transfer(struct case_result *cr, double tt, double ref_tt)
{
    cr->time_transfer = timing_ms(tt, tt * 0.02);
    cr->ref_time_transfer = timing_ms(ref_tt, ref_tt * 0.02);
}

/*
 * The fixed submission: exercise saxpy (a CPU and a GPU variant, three timed
 * sizes, a hidden case that fails), exercise matmul (one GPU variant, a wrong
 * answer with mismatch detail and findings, compiler warnings). Every field a
 * report shows is set here, so the golden files depend on nothing else.
 */
/* The submission and the machine, no exercise yet. */
static void fixture_header(struct results *r, const char *lang)
{
    results_init(r);
    r->lab_id = xstrdup("lab6");
    r->lab_number = 6;
    r->lab_title = xstrdup("GPUs con C y CUDA");
    r->course = xstrdup("Programación de GPUs");
    r->lang = xstrdup(lang);
    r->student_id = xstrdup("alumno09");
    r->student_name = xstrdup("José Ñúñez Álvarez");
    r->submission = xstrdup("entregas/alumno09");
    r->submission_hash =
        xstrdup("9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08");
    r->grader_version = xstrdup("0.1.0");
    r->date = xstrdup("2026-11-22T14:03:00+01:00");
    r->mode = xstrdup("check");
    r->isolation = xstrdup("bwrap"); /* what sandbox.h's isolation_name() writes */
    r->timing_mode = xstrdup("warm");
    r->full = true;
    r->hidden = true;
    r->show_hidden = false;
    struct machine_info *m = &r->machine;
    m->hostname = xstrdup("bohr-gpu");
    m->cpu_model = xstrdup("Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz");
    m->cpu_threads = 40;
    m->gpu_name = xstrdup("NVIDIA GeForce RTX 2080 Ti");
    m->gpu_cc = xstrdup("7.5");
    m->gpu_memory_mib = 11019;
    m->driver_version = xstrdup("550.54.15");
    m->cuda_runtime_version = xstrdup("12.4");
    m->cc_version = xstrdup("gcc (Debian 12.2.0-14) 12.2.0");
    m->nvcc_version = xstrdup("Cuda compilation tools, release 12.4, V12.4.131");
    m->cflags = xstrdup("-O2 -march=native -fopenmp");
    m->nvccflags = xstrdup("-O3 -arch=sm_75");
    m->gpu_status = xstrdup("available");
}

static void fixture(struct results *r, const char *lang)
{
    fixture_header(r, lang);
    struct exercise_result *ex = add_exercise(r, "saxpy", "SAXPY: y = a·x + y");
    struct variant_result *cpu =
        add_variant(ex, "cpu", "CPU con OpenMP", "saxpy_cpu", "cpu", MEM_HOST);
    static const char *const ids[] = {"c1", "c2", "c3"};
    static const long sizes[] = {100000, 1000000, 10000000};
    static const double n[] = {1e5, 1e6, 1e7}, base[] = {0.05, 0.6, 7.0},
                        cpu_t[] = {0.04, 0.5, 6.0}, cpu_ref[] = {0.05, 0.55, 6.5},
                        gpu_t[] = {0.01, 0.05, 0.4}, gpu_tt[] = {0.3, 1.2, 5.0},
                        gpu_ref[] = {0.012, 0.06, 0.45}, gpu_ref_tt[] = {0.31, 1.25, 5.2};
    for (int i = 0; i < 3; i++) {
        struct case_result *cr = add_case(cpu, ids[i], sizes[i], V_PASS, 1);
        set_times(cr, cpu_t[i], cpu_ref[i], base[i]);
        cr->gbps = 12.0 * 1e-6 * n[i] / cpu_t[i];
        /* The roofline: meaningful at c3 only (6 ms; and the slowest), not at 0.04 or 0.5 ms
         * on data the caches hold. */
        char *traffic = xstrfmt("memory traffic: %.0f%% of this machine's measured CPU "
                                "bandwidth (45 GB/s)",
                                100 * cr->gbps / 45);
        add_finding(cr, traffic);
        free(traffic);
        cr->roofline_first = 1;
        cr->roofline_count = 1;
    }
    struct variant_result *gpu =
        add_variant(ex, "gpu", "GPU (CUDA)", "saxpy_gpu", "gpu", MEM_DEVICE);
    for (int i = 0; i < 3; i++) {
        struct case_result *cr = add_case(gpu, ids[i], sizes[i], V_PASS, 1);
        set_times(cr, gpu_t[i], gpu_ref[i], base[i]);
        set_transfer(cr, gpu_tt[i], gpu_ref_tt[i]);
        cr->gbps = 12.0 * 1e-6 * n[i] / gpu_t[i];
    }
    /* compute-sanitizer found an out-of-bounds write (and the launch failure after it) on c1;
     * racecheck ran on the hidden case, which the student view leaves out. */
    gpu->n_sanitizer = 2;
    gpu->sanitizer = xcalloc(2, sizeof(*gpu->sanitizer));
    struct sanitizer_run *san = &gpu->sanitizer[0];
    sanitizer_run_init(san);
    san->tool = xstrdup("memcheck");
    san->case_id = xstrdup("c1");
    san->status = SANITIZER_RAN;
    san->out.summary = true;
    san->out.errors = 25;
    san->out.not_printed = 15;
    san->out.n_reports = 2;
    san->out.reports = xcalloc(2, sizeof(*san->out.reports));
    san->out.reports[0].kind = xstrdup("Invalid __global__ write of size 4 bytes");
    san->out.reports[0].location = xstrdup("saxpy_kernel(float, const float *, float *, int) in "
                                           "saxpy.cu:12");
    san->out.reports[0].thread = xstrdup("(160,0,0)");
    san->out.reports[0].block = xstrdup("(390,0,0)");
    san->out.reports[0].access = xstrdup("0 bytes after an allocation of 400,000 bytes");
    san->out.reports[0].count = 9;
    san->out.reports[1].kind = xstrdup("Program hit cudaErrorLaunchFailure (error 719) due to "
                                       "\"unspecified launch failure\" on CUDA API call to "
                                       "cudaDeviceSynchronize.");
    san->out.reports[1].count = 1;
    san = &gpu->sanitizer[1];
    sanitizer_run_init(san);
    san->tool = xstrdup("racecheck");
    san->case_id = xstrdup("h1");
    san->status = SANITIZER_RAN;
    san->out.summary = true;
    san->out.errors = 1;
    san->out.n_reports = 1;
    san->out.reports = xcalloc(1, sizeof(*san->out.reports));
    san->out.reports[0].kind = xstrdup("Race reported between Write access");
    san->out.reports[0].location = xstrdup("secret_race(float *) in saxpy.cu:30");
    san->out.reports[0].access = xstrdup("and Read access at secret_race(float *) in saxpy.cu:31 "
                                         "[384 hazards]");
    san->out.reports[0].count = 1;
    struct case_result *h = add_case(gpu, "h1", 5000000, V_WRONG, 0);
    h->hidden = true;
    free(h->message);
    h->message = xstrdup("y: 17 of 5000000 elements differ (secret hidden message)");
    h->detail = xstrdup("hidden detail that students must not see");
    ex->points = 6;
    ex->max_points = 7;

    ex = add_exercise(r, "matmul", "Multiplicación de matrices");
    struct variant_result *mm = add_variant(ex, "gpu_tiled", "GPU con memoria compartida",
                                            "matmul_tiled", "gpu", MEM_DEVICE);
    free(mm->build_log);
    mm->build_log = xstrdup("matmul.cu(42): warning #177-D: variable \"tmp\" was declared but "
                            "never referenced\n      float tmp = 0.0f;\n            ^\n");
    mm->n_warnings = 1;
    struct case_result *cr = add_case(mm, "m1", 256, V_PASS, 2);
    cr->max_points = 2;
    set_times(cr, 0.21, 0.18, 12.5);
    set_transfer(cr, 0.45, 0.41);
    cr->gflops = 2.0 * 256 * 256 * 256 / (0.21e-3) / 1e9;
    add_finding(cr, "GPU SM clock varied from 1350 to 1950 MHz while timing (throttling or power "
                    "management): times may be noisy");
    cr = add_case(mm, "m2", 1000, V_WRONG, 0);
    cr->max_points = 3;
    free(cr->message);
    cr->message = xstrdup("C: 1000 of 1000000 elements differ (max abs diff 2.5, max rel diff 1)");
    cr->detail = xstrdup("Not equal to tolerance rtol=1e-05, atol=1e-08 (output C, call 1)\n"
                         "Mismatched elements: 1000 / 1000000 (0.1%)\n"
                         "Max absolute difference: 2.5\n"
                         "Max relative difference: 1\n"
                         "  at [999, 0]: actual 0, expected 2.5\n"
                         "  at [999, 1]: actual 0, expected 2.4\n");
    cr->mismatches = xcalloc(1, sizeof(struct mismatch));
    cr->n_mismatches = 1;
    snprintf(cr->mismatches[0].arg, sizeof(cr->mismatches[0].arg), "C");
    cr->mismatches[0].n_mismatch = 1000;
    cr->mismatches[0].n_total = 1000000;
    cr->mismatches[0].max_abs = 2.5;
    cr->mismatches[0].max_rel = 1;
    add_finding(cr, "the last row is never written: a bounds check off by one?");
    /* A clean run, one skipped, one that did not complete (with the tool's own line). */
    mm->n_sanitizer = 3;
    mm->sanitizer = xcalloc(3, sizeof(*mm->sanitizer));
    san = &mm->sanitizer[0];
    sanitizer_run_init(san);
    san->tool = xstrdup("memcheck");
    san->case_id = xstrdup("m1");
    san->status = SANITIZER_RAN;
    san->out.summary = true;
    san = &mm->sanitizer[1];
    sanitizer_run_init(san);
    san->tool = xstrdup("initcheck");
    san->case_id = xstrdup("m1");
    san->status = SANITIZER_SKIPPED;
    san->reason = xstrdup("compute-sanitizer no encontrado en $CUDA_HOME/bin");
    san = &mm->sanitizer[2];
    sanitizer_run_init(san);
    san->tool = xstrdup("synccheck");
    san->case_id = xstrdup("m1");
    san->status = SANITIZER_FAILED;
    san->reason = xstrdup("compute-sanitizer no terminó: superó su límite de 60 s");
    san->out.tool_error = xstrdup("Error: process didn't terminate successfully");
    ex->points = 2;
    ex->max_points = 5;

    r->score = 8;
    r->max_score = 12;
    r->n_pass = 7;
    r->n_fail = 2;
    r->n_skipped = 0;
    r->n_grader_errors = 0;
}

/* ---- helpers ---- */

static char *make_tmpdir(void)
{
    char *d = xstrdup("/tmp/lg-report-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(d));
    return d;
}

/* Whether `needle` occurs in `hay` once line breaks, hyphenation and spaces are ignored. */
static bool contains_squeezed(const char *hay, const char *needle)
{
    struct strbuf h = STRBUF_INIT, n = STRBUF_INIT;
    for (const char *p = hay; *p; p++)
        if (!strchr(" \n\t\f", *p))
            strbuf_addch(&h, *p);
    for (const char *p = needle; *p; p++)
        if (!strchr(" \n\t\f", *p))
            strbuf_addch(&n, *p);
    bool found = strstr(strbuf_str(&h), strbuf_str(&n)) != NULL;
    strbuf_release(&h);
    strbuf_release(&n);
    return found;
}

static void render_md(const struct results *r, const char *dir, const char *lang, bool student,
                      char **md)
{
    struct report_opts o;
    struct report_outcome out;
    struct error err;
    report_opts_init(&o);
    o.templates_dir = TEMPLATES;
    o.lang = lang;
    o.student_view = student;
    error_init(&err);
    int rc = report_student(r, dir, &o, &out, &err);
    ck_assert_msg(rc == 0, "report_student: %s:%d:%d: %s", err.file, err.line, err.col, err.msg);
    ck_assert(out.md_written);
    ck_assert(!out.pdf_written);
    char *want = path_join(dir, "report.md");
    ck_assert_str_eq(out.md_path, want);
    free(want);
    *md = unit_slurp(out.md_path);
}

static void check_golden(const char *md, const char *golden_name)
{
    char *golden = path_join(GOLDEN_DIR, golden_name);
    const char *update = getenv("UPDATE_GOLDEN");
    if (update && !strcmp(update, "1")) {
        ck_assert_int_eq(write_file_atomic(golden, md, strlen(md), NULL), 0);
        fprintf(stderr, "test_report: wrote %s\n", golden);
    }
    char *want = unit_slurp(golden);
    if (strcmp(md, want) != 0) {
        size_t i = 0, line = 1;
        while (md[i] && md[i] == want[i]) {
            line += md[i] == '\n';
            i++;
        }
        ck_abort_msg("%s differs at line %zu (regenerate with UPDATE_GOLDEN=1 and review the "
                     "diff)",
                     golden, line);
    }
    free(want);
    free(golden);
}

static size_t count_of(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/* ---- tests ---- */

START_TEST(test_golden_es)
{
    if (!unit_have("gnuplot")) {
        fprintf(stderr, "test_report: gnuplot not installed: golden comparison skipped\n");
        return;
    }
    struct results r;
    fixture(&r, "es");
    char *dir = make_tmpdir(), *md;
    render_md(&r, dir, NULL, true, &md);
    check_golden(md, "golden_es.md");
    /* The plot it links to exists. */
    char *png = path_join(dir, "plots/saxpy.png");
    ck_assert(file_exists(png));
    free(png);
    free(md);
    remove_tree(dir, NULL);
    free(dir);
    results_release(&r);
}
END_TEST

START_TEST(test_golden_en)
{
    if (!unit_have("gnuplot")) {
        fprintf(stderr, "test_report: gnuplot not installed: golden comparison skipped\n");
        return;
    }
    struct results r;
    fixture(&r, "es");
    char *dir = make_tmpdir(), *md;
    render_md(&r, dir, "en", true, &md); /* the option overrides the results' language */
    check_golden(md, "golden_en.md");
    free(md);
    remove_tree(dir, NULL);
    free(dir);
    results_release(&r);
}
END_TEST

/* The same report from the results' JSON form: everything the report shows survives it. */
START_TEST(test_golden_from_json)
{
    if (!unit_have("gnuplot")) {
        fprintf(stderr, "test_report: gnuplot not installed: golden comparison skipped\n");
        return;
    }
    struct results r, back;
    struct error err;
    fixture(&r, "es");
    char *dir = make_tmpdir(), *md;
    char *json = path_join(dir, "results.json");
    ck_assert_msg(results_write(&r, json, &err) == 0, "%s", err.msg);
    results_init(&back);
    ck_assert_msg(results_read(&back, json, &err) == 0, "%s", err.msg);
    render_md(&back, dir, NULL, true, &md);
    char *want = unit_slurp(GOLDEN_DIR "/golden_es.md");
    ck_assert_msg(!strcmp(md, want), "the report from %s differs from golden_es.md", json);
    free(want);
    free(md);
    free(json);
    remove_tree(dir, NULL);
    free(dir);
    results_release(&back);
    results_release(&r);
}
END_TEST

/* Every case's and variant's text fields, which the report must not read. */
static void scramble_text(struct results *r)
{
    for (size_t e = 0; e < r->n_exercises; e++)
        for (size_t v = 0; v < r->exercises[e].n_variants; v++) {
            struct variant_result *vr = &r->exercises[e].variants[v];
            free(vr->memory);
            vr->memory = xstrdup("everything=nowhere");
            for (size_t c = 0; c < vr->n_cases; c++) {
                free(vr->cases[c].sizes);
                vr->cases[c].sizes = xstrdup("n=1");
            }
        }
}

/* The lines of json holding `"key": [],` dropped: a file older than that key. */
static void drop_empty_key(char *json, const char *key)
{
    char *needle = xstrfmt("\"%s\": [],", key);
    for (char *hit; (hit = strstr(json, needle));) {
        char *start = hit, *end = strchr(hit, '\n');
        while (start > json && start[-1] != '\n')
            start--;
        memmove(start, end + 1, strlen(end + 1) + 1);
    }
    free(needle);
}

/* The report reads sizes and memory spaces as data (params, arg_memory), never as text; an
 * older results file, which has only the text, gives the same report through the reader. */
START_TEST(test_structure_not_text)
{
    if (!unit_have("gnuplot")) {
        fprintf(stderr, "test_report: gnuplot not installed: golden comparison skipped\n");
        return;
    }
    struct results r, back;
    struct error err;
    fixture(&r, "es");
    char *dir = make_tmpdir(), *md;
    char *want = unit_slurp(GOLDEN_DIR "/golden_es.md");

    /* The text older files carry, alone. */
    struct strbuf json = STRBUF_INIT;
    for (size_t e = 0; e < r.n_exercises; e++)
        for (size_t v = 0; v < r.exercises[e].n_variants; v++) {
            struct variant_result *vr = &r.exercises[e].variants[v];
            for (size_t i = 0; i < vr->n_arg_memory; i++)
                free(vr->arg_memory[i].arg);
            vr->n_arg_memory = 0;
            for (size_t c = 0; c < vr->n_cases; c++) {
                for (size_t i = 0; i < vr->cases[c].n_params; i++)
                    free(vr->cases[c].params[i].name);
                vr->cases[c].n_params = 0;
            }
        }
    results_to_json(&r, &json);
    drop_empty_key(json.buf, "params");
    drop_empty_key(json.buf, "arg_memory");
    ck_assert_ptr_null(strstr(json.buf, "\"params\""));
    results_init(&back);
    ck_assert_msg(results_from_json(&back, json.buf, strlen(json.buf), "old.json", &err) == 0, "%s",
                  err.msg);
    render_md(&back, dir, NULL, true, &md);
    ck_assert_msg(!strcmp(md, want), "the report of an older file differs from golden_es.md");
    free(md);

    /* The data alone: text that says otherwise changes nothing. */
    scramble_text(&back);
    render_md(&back, dir, NULL, true, &md);
    ck_assert_msg(!strcmp(md, want), "the report read the sizes or memory text");
    free(md);

    strbuf_release(&json);
    free(want);
    remove_tree(dir, NULL);
    free(dir);
    results_release(&back);
    results_release(&r);
}
END_TEST

START_TEST(test_report_content)
{
    struct results r;
    fixture(&r, "es");
    char *dir = make_tmpdir(), *md;
    render_md(&r, dir, NULL, true, &md);
    /* Header, escaped only where Markdown needs it: it reads as written. */
    ck_assert_ptr_nonnull(strstr(md, "José Ñúñez Álvarez (alumno09)"));
    ck_assert_ptr_nonnull(strstr(md, "NVIDIA GeForce RTX 2080 Ti (capacidad de cómputo 7.5, "
                                     "11019 MiB)"));
    ck_assert_ptr_nonnull(strstr(md, "\\-O2 -march=native -fopenmp"));
    /* Case table rows, comparison rows with the transfer overhead, break-even. */
    ck_assert_ptr_nonnull(strstr(md, "| c3 | n=10000000 | correcto | 1 / 1 | 0.4000 | 0.008000 | "
                                     "5.000 | 17.50x | 1.12x |"));
    /* Points per case, next to the verdict. */
    ck_assert_ptr_nonnull(strstr(md, "| m1 | n=256 | correcto | 2 / 2 |"));
    ck_assert_ptr_nonnull(strstr(md, "| m2 | n=1000 | valores incorrectos | 0 / 3 |"));
    /* The grader writes "bwrap" (sandbox.h's isolation_name()). */
    ck_assert_ptr_nonnull(strstr(md, "aislamiento bubblewrap\n"));
    ck_assert_ptr_nonnull(strstr(md, "| **Línea base (CPU)** | 7.000 | 1.00x (línea base) |"));
    ck_assert_ptr_nonnull(strstr(md, "| GPU (CUDA) con transferencia | 5.000 | **1.40x más "
                                     "rápido** | 1.04x | 4.600 ms (12.50x más lento) |"));
    ck_assert_ptr_nonnull(strstr(md, "| GPU (CUDA) con transferencia | 0.3000 | 0.17x (6.00x "
                                     "más lento) |"));
    ck_assert_ptr_nonnull(strstr(md, "- GPU (CUDA) con transferencia: punto de equilibrio con la "
                                     "CPU en n ≈ 4710000\n"));
    /* Without transfers too: 5x to 17.5x faster, so no crossing. */
    ck_assert_ptr_nonnull(strstr(md, "- GPU (CUDA) sin transferencia: más rápida que la CPU en "
                                     "todos los tamaños medidos"));
    /* The hand-in table: no 2x with transfers (0.17x, 0.5x, 1.4x), 5x without at once. */
    ck_assert_ptr_nonnull(strstr(md, "| saxpy | GPU (CUDA) con transferencia | ninguno hasta n = "
                                     "10000000 | 0.50x |"));
    ck_assert_ptr_nonnull(strstr(md, "| saxpy | GPU (CUDA) sin transferencia | n = 100000 (c1: "
                                     "5.00x) | 12.00x |"));
    /* matmul has a baseline at one size only: not in the table. */
    ck_assert_ptr_null(strstr(md, "| matmul | GPU con memoria compartida"));
    /* The wrong answer: message, its mismatches as a table in the report's language (never the
     * English block that says them again), findings, what cost points. */
    ck_assert_ptr_nonnull(strstr(md, "| C | 1000 de 1000000 | 2.5, 1 |"));
    ck_assert_ptr_null(strstr(md, "Not equal to tolerance"));
    ck_assert_ptr_nonnull(strstr(md, "- **matmul / gpu_tiled**, caso m2: valores incorrectos — "
                                     "C: 1000 of 1000000 elements differ"));
    ck_assert_ptr_nonnull(strstr(md, "(puntos perdidos: 3)"));
    ck_assert_ptr_nonnull(strstr(md, "```\nmatmul.cu(42): warning #177-D"));
    /* The first page: what cost points, the hidden case by count only, what to try next. */
    ck_assert_msg(strstr(md, "### Qué ha restado puntos\n\n- **saxpy / gpu**: 1 caso oculto "
                             "fallido (puntos perdidos: 1)\n- **matmul / gpu_tiled**, caso m2: "
                             "valores incorrectos — C: 1000 of 1000000"),
                  "%s", md);
    ck_assert_ptr_nonnull(strstr(md, "\nCasos ocultos: 0 de 1 correctos; fallidos: 1.\n"));
    ck_assert_ptr_nonnull(strstr(md, "### Qué hacer ahora\n\n- Corrige los valores incorrectos"));
    ck_assert_ptr_nonnull(strstr(md, "- compute-sanitizer ha encontrado errores"));
    ck_assert_ptr_null(strstr(md, "Nada que corregir"));
    /* Before any exercise's details. */
    ck_assert(strstr(md, "### Qué hacer ahora") < strstr(md, "## Ejercicio saxpy"));
    /* Legends once, under the first table that needs them. */
    ck_assert_int_eq(count_of(md, "Puntos: los obtenidos en el caso y su máximo."), 1);
    ck_assert_int_eq(count_of(md, "Overhead de transferencia: tiempo con transferencia"), 1);
    ck_assert(strstr(md, "Puntos: los obtenidos en el caso") > strstr(md, "| c3 | n=10000000"));
    /* The roofline only where it means something: c3 (6 ms), not c1 or c2 (under 1 ms, on
     * data the caches hold, and not the slowest). */
    ck_assert_ptr_nonnull(strstr(md, "- memory traffic: 44% of this machine"));
    ck_assert_ptr_null(strstr(md, "memory traffic: 67%"));
    ck_assert_ptr_null(strstr(md, "memory traffic: 53%"));
    ck_assert_ptr_null(strstr(md, "**c1** (n"));
    ck_assert_ptr_null(strstr(md, "h1"));
    ck_assert_ptr_null(strstr(md, "secret"));
    ck_assert_ptr_null(strstr(md, "5000000"));
    /* compute-sanitizer: its findings beside the grade, with the reasons where it did not run;
     * the racecheck run on the hidden case is left out. */
    ck_assert_ptr_nonnull(strstr(md, "**compute-sanitizer** (solo hallazgos: no cambian la "
                                     "nota)\n\n- memcheck en el caso c1: 25 errores (15 sin "
                                     "mostrar)\n"));
    ck_assert_ptr_nonnull(strstr(md, "    - 9× Invalid \\_\\_global\\_\\_ write of size 4 "
                                     "bytes en saxpy_kernel(float, const float \\*, "
                                     "float \\*, int) in saxpy.cu:12, el primero en el "
                                     "hilo (160,0,0) del bloque (390,0,0): 0 "
                                     "bytes after an allocation of 400,000 bytes\n"));
    ck_assert_ptr_nonnull(strstr(md, "- memcheck en el caso m1: sin errores\n"));
    ck_assert_ptr_nonnull(strstr(md, "- initcheck en el caso m1: no se ejecutó: compute-"
                                     "sanitizer no encontrado en $CUDA_HOME/bin\n"));
    ck_assert_ptr_nonnull(strstr(md, "    - compute-sanitizer dijo: Error: process didn't "
                                     "terminate successfully\n"));
    ck_assert_ptr_null(strstr(md, "racecheck"));
    free(md);

    /* The instructor's view shows it whole. */
    render_md(&r, dir, NULL, false, &md);
    ck_assert_ptr_nonnull(strstr(md, "| h1 | n=5000000 | valores incorrectos |"));
    ck_assert_ptr_nonnull(strstr(md, "- racecheck en el caso h1: 1 error\n    - 1× Race reported "
                                     "between Write access en secret_race(float \\*) in "
                                     "saxpy.cu:30 and Read access at"));
    ck_assert_ptr_nonnull(strstr(md, "secret hidden message"));
    ck_assert_ptr_null(strstr(md, "Casos ocultos"));
    ck_assert_ptr_null(strstr(md, "caso oculto fallido"));
    free(md);

    /* So does the student's, when the lab shows hidden cases. */
    r.show_hidden = true;
    render_md(&r, dir, NULL, true, &md);
    ck_assert_ptr_nonnull(strstr(md, "secret hidden message"));
    free(md);
    remove_tree(dir, NULL);
    free(dir);
    results_release(&r);
}
END_TEST

/* The timing line sums up the SM clocks read over every timed run, the references' too, and
 * says nothing of clocks where none was read (a CPU-only grade, no NVML). */
START_TEST(test_gpu_clock_line)
{
    struct results r;
    fixture(&r, "en");
    char *dir = make_tmpdir(), *md;
    render_md(&r, dir, "en", true, &md);
    ck_assert_ptr_null(strstr(md, "; GPU SM clock"));
    free(md);
    struct case_result *c = NULL, *d = NULL;
    for (size_t e = 0; e < r.n_exercises && !d; e++)
        for (size_t v = 0; v < r.exercises[e].n_variants && !d; v++)
            for (size_t k = 0; k < r.exercises[e].variants[v].n_cases && !d; k++) {
                if (!c)
                    c = &r.exercises[e].variants[v].cases[k];
                else
                    d = &r.exercises[e].variants[v].cases[k];
            }
    ck_assert(c && d);
    c->clock = (struct gpu_clock){1755, 1980, 1980, 2, false};
    d->ref_clock = (struct gpu_clock){1410, 1900, 1980, 5, false};
    render_md(&r, dir, "en", true, &md);
    ck_assert_msg(strstr(md, "; GPU SM clock 1410–1980 MHz while timing (maximum 1980 MHz; "
                             "samples taken under 75% of it are dropped and taken again: 7 "
                             "dropped); slow cases"),
                  "%s", md);
    free(md);
    d->ref_clock.throttled = true;
    render_md(&r, dir, "es", true, &md);
    ck_assert_msg(strstr(md, "; reloj de los SM de la GPU entre 1410 y 1980 MHz durante la "
                             "medición (máximo 1980 MHz; las muestras tomadas por debajo del 75 % "
                             "se descartan y se repiten: 7 descartadas), **la GPU limitó su "
                             "rendimiento en la mayoría de las muestras**; casos lentos"),
                  "%s", md);
    free(md);
    remove_tree(dir, NULL);
    free(dir);
    results_release(&r);
}
END_TEST

START_TEST(test_pdf_es)
{
    if (!unit_have("pandoc") || !unit_have("xelatex") || !unit_have("pdftotext")) {
        fprintf(stderr, "test_report: SKIPPED test_pdf_es: pandoc, xelatex or pdftotext is not "
                        "installed (sudo apt-get install pandoc texlive-xetex fonts-dejavu-core "
                        "poppler-utils)\n");
        return;
    }
    struct results r;
    fixture(&r, "es");
    char *dir = make_tmpdir();
    struct report_opts o;
    struct report_outcome out;
    struct error err;
    report_opts_init(&o);
    o.templates_dir = TEMPLATES;
    o.pdf = true;
    o.pdf_required = true;
    ck_assert_msg(report_student(&r, dir, &o, &out, &err) == 0, "%s", err.msg);
    ck_assert_msg(out.pdf_written, "no PDF: %s", out.pdf_note);
    char *pdf = path_join(dir, "report.pdf");
    ck_assert_str_eq(out.pdf_path, pdf);
    char *text = unit_pdf_text(pdf, dir);
    ck_assert_msg(strstr(text, "José Ñúñez Álvarez"), "no accented name in:\n%s", text);
    ck_assert(strstr(text, "Resumen de la nota"));
    ck_assert(strstr(text, "Qué ha restado puntos"));
    ck_assert(strstr(text, "Comparación de métodos"));
    ck_assert(contains_squeezed(text, "17.50x"));
    ck_assert(contains_squeezed(text, "n=10000000"));
    ck_assert(contains_squeezed(text, "gpu_tiled"));
    /* The plot is in the PDF as an image (pdftotext shows its caption). */
    ck_assert(contains_squeezed(text, "tiempo frente a n, escala log-log"));
    if (getenv("LG_KEEP_PDF"))
        fprintf(stderr, "test_report: kept %s\n", pdf);
    else
        remove_tree(dir, NULL);
    free(text);
    free(pdf);
    free(dir);
    results_release(&r);
}
END_TEST

static const char *const hostile_name = "\\input{/etc/passwd} $x^2$ _#%&~";
static const char *const hostile_log =
    "\\write18{rm -rf /}\n\\input{/etc/passwd}\n``` fence breaker ````\n"
    "\\end{verbatim}\\immediate\\write18{touch /tmp/lg-pwned}\n";

START_TEST(test_pdf_injection_literal)
{
    if (!unit_have("pandoc") || !unit_have("xelatex") || !unit_have("pdftotext")) {
        fprintf(stderr, "test_report: SKIPPED test_pdf_injection_literal: pandoc, xelatex or "
                        "pdftotext is not installed\n");
        return;
    }
    struct results r;
    fixture(&r, "en");
    free(r.student_name);
    r.student_name = xstrdup(hostile_name);
    free(r.student_id);
    r.student_id = xstrdup("id\\write18{ls}");
    struct variant_result *mm = &r.exercises[1].variants[0];
    free(mm->build_log);
    mm->build_log = xstrdup(hostile_log);
    struct case_result *cr = &mm->cases[1];
    free(cr->message);
    cr->message = xstrdup("\\input{/etc/passwd} ![x](/etc/passwd) <b>html</b> | cell");
    add_finding(cr, "\\write18{rm -rf /} `code` **bold**");
    char *dir = make_tmpdir();
    struct report_opts o;
    struct report_outcome out;
    struct error err;
    report_opts_init(&o);
    o.templates_dir = TEMPLATES;
    o.pdf = true;
    ck_assert_msg(report_student(&r, dir, &o, &out, &err) == 0, "%s", err.msg);
    ck_assert_msg(out.pdf_written, "no PDF: %s", out.pdf_note);
    char *text = unit_pdf_text(out.pdf_path, dir);
    ck_assert_msg(contains_squeezed(text, "\\input{/etc/passwd} $x^2$ _#%&~"),
                  "student name not literal in:\n%s", text);
    ck_assert(contains_squeezed(text, "id\\write18{ls}"));
    ck_assert(contains_squeezed(text, "\\write18{rm -rf /}"));
    ck_assert(contains_squeezed(text, "\\end{verbatim}\\immediate\\write18{touch /tmp/lg-pwned}"));
    ck_assert(contains_squeezed(text, "``` fence breaker ````"));
    ck_assert(contains_squeezed(text, "![x](/etc/passwd) <b>html</b> | cell"));
    ck_assert(contains_squeezed(text, "`code` **bold**"));
    /* Nothing was read or run. */
    ck_assert_ptr_null(strstr(text, "root:x:0:0"));
    ck_assert(!file_exists("/tmp/lg-pwned"));
    free(text);
    if (getenv("LG_KEEP_PDF"))
        fprintf(stderr, "test_report: kept %s\n", dir);
    else
        remove_tree(dir, NULL);
    free(dir);
    results_release(&r);
}
END_TEST

START_TEST(test_no_pandoc)
{
    struct results r;
    fixture(&r, "es");
    char *dir = make_tmpdir();
    char *empty = path_join(dir, "empty-bin");
    ck_assert_int_eq(mkdir_p(empty, NULL), 0);
    char *old_path = xstrdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
    setenv("PATH", empty, 1);
    char *out_dir = path_join(dir, "out");
    /* A stale PDF from an earlier run must not stay next to the new Markdown. */
    ck_assert_int_eq(mkdir_p(out_dir, NULL), 0);
    char *stale = path_join(out_dir, "report.pdf");
    ck_assert_int_eq(write_file_atomic(stale, "%PDF-old", 8, NULL), 0);

    struct report_opts o;
    struct report_outcome out;
    struct error err;
    report_opts_init(&o);
    o.templates_dir = TEMPLATES;
    o.pdf = true;
    error_init(&err);
    int rc = report_student(&r, out_dir, &o, &out, &err);
    ck_assert_int_eq(rc, 0);
    ck_assert(out.md_written);
    ck_assert(!out.pdf_written);
    ck_assert_msg(strstr(out.pdf_note, "pandoc not found") && strstr(out.pdf_note, "apt-get"),
                  "note: %s", out.pdf_note);
    ck_assert(!file_exists(stale));
    char *md = unit_slurp(out.md_path);
    /* Without gnuplot, the plot's place says why. */
    ck_assert_ptr_nonnull(strstr(md, "Gráfica no disponible: gnuplot no está instalado."));
    ck_assert_ptr_null(strstr(md, "plots/saxpy.png"));
    free(md);

    /* Required PDF: an error, and the Markdown is still there. */
    unlink(out.md_path);
    o.pdf_required = true;
    rc = report_student(&r, out_dir, &o, &out, &err);
    ck_assert_int_eq(rc, -1);
    ck_assert(out.md_written);
    ck_assert(file_exists(out.md_path));
    ck_assert_ptr_nonnull(strstr(err.msg, "pandoc not found"));

    setenv("PATH", old_path, 1);
    free(old_path);
    free(stale);
    free(out_dir);
    free(empty);
    remove_tree(dir, NULL);
    free(dir);
    results_release(&r);
}
END_TEST

START_TEST(test_template_errors_are_failures)
{
    struct results r;
    fixture(&r, "es");
    char *dir = make_tmpdir();
    char *tdir = path_join(dir, "templates"), *es = path_join(dir, "templates/es");
    ck_assert_int_eq(mkdir_p(es, NULL), 0);
    char *strings = path_join(es, "strings.txt"), *tpl = path_join(es, "report.md");
    const char *s = "verdict.OK = fine\n";
    ck_assert_int_eq(write_file_atomic(strings, s, strlen(s), NULL), 0);
    const char *t = "# {{course}}\n\nby {{studnet_name}}\n";
    ck_assert_int_eq(write_file_atomic(tpl, t, strlen(t), NULL), 0);
    char *out_dir = path_join(dir, "out");

    struct report_opts o;
    struct report_outcome out;
    struct error err;
    report_opts_init(&o);
    o.templates_dir = tdir;
    ck_assert_int_eq(report_student(&r, out_dir, &o, &out, &err), -1);
    ck_assert(!out.md_written);
    ck_assert_str_eq(err.file, tpl);
    ck_assert_int_eq(err.line, 3);
    ck_assert_int_eq(err.col, 4);
    ck_assert_ptr_nonnull(strstr(err.msg, "studnet_name"));

    /* A broken strings.txt is reported at its line too. */
    s = "verdict.OK = fine\n# comment\nplot.xlabel = size {{param\n";
    ck_assert_int_eq(write_file_atomic(strings, s, strlen(s), NULL), 0);
    ck_assert_int_eq(report_student(&r, out_dir, &o, &out, &err), -1);
    ck_assert_str_eq(err.file, strings);
    ck_assert_int_eq(err.line, 3);
    ck_assert_int_eq(err.col, 20);

    /* An unknown language, and no templates folder at all. */
    o.lang = "fr";
    ck_assert_int_eq(report_student(&r, out_dir, &o, &out, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, "'fr'"));
    o.lang = "../es";
    ck_assert_int_eq(report_student(&r, out_dir, &o, &out, &err), -1);
    o.templates_dir = NULL;
    ck_assert_int_eq(report_student(&r, out_dir, &o, &out, &err), -1);

    free(out_dir);
    free(strings);
    free(tpl);
    free(es);
    free(tdir);
    remove_tree(dir, NULL);
    free(dir);
    results_release(&r);
}
END_TEST

/* The part of md from `from` to the next exercise heading (caller frees). */
static char *section(const char *md, const char *from)
{
    const char *p = strstr(md, from);
    ck_assert_msg(p != NULL, "no '%s' in the report", from);
    const char *end = strstr(p + strlen(from), "\n## ");
    return end ? xstrndup(p, (size_t)(end - p)) : xstrdup(p);
}

/*
 * Lab 3's shapes on top of the fixed submission: the element-wise add (a CPU
 * baseline over five sizes, a GPU variant on host pointers, one on device pointers
 * timed with and without transfers), the host-to-device copy (pageable and pinned
 * host memory, per argument), and variants whose memory differs in other ways.
 */
static void lab3_fixture(struct results *r)
{
    fixture(r, "es");
    free(r->isolation);
    r->isolation = xstrdup("supervisor");

    struct exercise_result *ex = add_exercise(r, "add", "Suma elemento a elemento");
    static const char *const ids[] = {"n100", "n1K", "n10K", "n100K", "n1M"};
    static const long sizes[] = {100, 1000, 10000, 100000, 1000000};
    static const double base[] = {0.0001, 0.001, 0.01, 0.1, 1.0},
                        host_t[] = {0.05, 0.05, 0.06, 0.08, 0.3},
                        dev_t[] = {0.004, 0.004, 0.004, 0.005, 0.02},
                        dev_tt[] = {0.04, 0.045, 0.06, 0.09, 0.45};
    struct variant_result *cpu = add_variant(ex, "cpu", "CPU bucle", "add_cpu", "cpu", MEM_HOST);
    struct variant_result *gpu =
        add_variant(ex, "gpu", "GPU punteros de host", "add_gpu", "gpu", MEM_HOST);
    struct variant_result *dev =
        add_variant(ex, "gpu_dev", "GPU punteros de dispositivo", "add_gpu_dev", "gpu", MEM_DEVICE);
    cpu = &ex->variants[0]; /* add_variant moves the array */
    gpu = &ex->variants[1];
    for (int i = 0; i < 5; i++) {
        set_times(add_case(cpu, ids[i], sizes[i], V_PASS, 1), base[i] * 1.1, base[i], base[i]);
        set_times(add_case(gpu, ids[i], sizes[i], V_PASS, 1), host_t[i], host_t[i], base[i]);
        /* n10K is a wrong answer: 2.5x without transfers, but no result. */
        struct case_result *cr =
            add_case(dev, ids[i], sizes[i], i == 2 ? V_WRONG : V_PASS, i == 2 ? 0 : 1);
        set_times(cr, dev_t[i], dev_t[i], base[i]);
        set_transfer(cr, dev_tt[i], dev_tt[i]);
    }

    /* The copy: the variants differ only in where the host buffer lives. */
    ex = add_exercise(r, "h2d", "Copia CPU a GPU");
    struct variant_result *pg =
        add_copy_variant(ex, "pageable", "Paginable", "copy_h2d", MEM_DEVICE, MEM_HOST);
    struct variant_result *pn =
        add_copy_variant(ex, "pinned", "Fijada", "copy_h2d_pinned", MEM_DEVICE, MEM_PINNED);
    pg = &ex->variants[0];
    static const double pg_t[] = {0.02, 0.1}, pn_t[] = {0.01, 0.04};
    static const char *const copy_ids[] = {"4KB", "1MB"};
    static const long copy_sizes[] = {1024, 262144};
    for (int i = 0; i < 2; i++) {
        struct case_result *a = add_case(pg, copy_ids[i], copy_sizes[i], V_PASS, 1);
        struct case_result *b = add_case(pn, copy_ids[i], copy_sizes[i], V_PASS, 1);
        set_times(a, pg_t[i], pg_t[i], 0);
        set_times(b, pn_t[i], pn_t[i], 0);
        /* The grader's round trip: no "with transfers" of the same call. */
        set_transfer(a, pg_t[i] * 3, pg_t[i] * 3);
        set_transfer(b, pn_t[i] * 3, pn_t[i] * 3);
        a->gbps = 4.0 * 1024 * (i ? 256 : 1) / (pg_t[i] * 1e6);
        b->gbps = 4.0 * 1024 * (i ? 256 : 1) / (pn_t[i] * 1e6);
    }

    /* One kind for every argument: host against pinned is a pair, device is not. */
    ex = add_exercise(r, "kinds", "Clases de memoria");
    struct variant_result *k1 = add_variant(ex, "k_host", "Kind host", "k1", "gpu", MEM_HOST);
    struct variant_result *k2 = add_variant(ex, "k_pinned", "Kind pinned", "k2", "gpu", MEM_PINNED);
    struct variant_result *k3 = add_variant(ex, "k_dev", "Kind device", "k3", "gpu", MEM_DEVICE);
    k1 = &ex->variants[0];
    k2 = &ex->variants[1];
    set_times(add_case(k1, "k", 10, V_PASS, 1), 0.3, 0.3, 0);
    set_times(add_case(k2, "k", 10, V_PASS, 1), 0.1, 0.1, 0);
    set_times(add_case(k3, "k", 10, V_PASS, 1), 0.2, 0.2, 0);

    /* Opposite directions, and pinned against device: never a pair. */
    ex = add_exercise(r, "mixed", "Direcciones opuestas");
    struct variant_result *m1 =
        add_copy_variant(ex, "to_dev", "Hacia la GPU", "m1", MEM_DEVICE, MEM_HOST);
    struct variant_result *m2 =
        add_copy_variant(ex, "to_host", "Hacia la CPU", "m2", MEM_PINNED, MEM_DEVICE);
    m1 = &ex->variants[0];
    set_times(add_case(m1, "m", 10, V_PASS, 1), 0.3, 0.3, 0);
    set_times(add_case(m2, "m", 10, V_PASS, 1), 0.1, 0.1, 0);
}

START_TEST(test_lab3_tables)
{
    struct results r;
    lab3_fixture(&r);
    char *dir = make_tmpdir(), *md;
    render_md(&r, dir, NULL, true, &md);

    /* The hand-in table: per GPU method, the first size above 2x over passing cases, and
     * the speedup at n = 1000000. */
    ck_assert_ptr_nonnull(strstr(md, "| Ejercicio | Método | Tamaño mínimo con speedup > 2x | "
                                     "Speedup con 1000000 elementos |"));
    ck_assert_ptr_nonnull(strstr(md, "| add | GPU punteros de host | n = 1000000 (n1M: 3.33x) | "
                                     "3.33x |"));
    ck_assert_ptr_nonnull(strstr(md, "| add | GPU punteros de dispositivo con transferencia | n = "
                                     "1000000 (n1M: 2.22x) | 2.22x |"));
    /* n10K (2.5x) failed, so the first is n100K. */
    ck_assert_ptr_nonnull(strstr(md, "| add | GPU punteros de dispositivo sin transferencia | n = "
                                     "100000 (n100K: 20.00x) | 50.00x |"));
    ck_assert_ptr_nonnull(strstr(md, "| saxpy | GPU (CUDA) con transferencia | ninguno hasta n "
                                     "= 10000000 | 0.50x |"));
    /* No baseline, or no GPU: no row. */
    char *table = section(md, "## Tabla de la entrega");
    ck_assert_int_eq(count_of(table, "\n| saxpy |"), 2);
    ck_assert_int_eq(count_of(table, "\n| add |"), 3);
    ck_assert_ptr_null(strstr(table, "| h2d |"));
    ck_assert_ptr_null(strstr(table, "| add | CPU bucle"));
    free(table);
    /* Break-even of the device variant with and without its transfers. */
    char *add = section(md, "## Ejercicio add:");
    ck_assert_ptr_nonnull(strstr(add, "- GPU punteros de dispositivo con transferencia: punto de "
                                      "equilibrio con la CPU en n ≈"));
    ck_assert_ptr_nonnull(strstr(add, "- GPU punteros de dispositivo sin transferencia: punto de "
                                      "equilibrio con la CPU en n ≈"));
    ck_assert_ptr_nonnull(strstr(add, "- GPU punteros de host: punto de equilibrio"));
    /* Its comparison rows still have the transfer overhead. */
    ck_assert_ptr_nonnull(strstr(add, "0.4300 ms (22.50x más lento)"));
    ck_assert_ptr_null(strstr(add, "Memoria fijada"));
    free(add);

    /* The copy: the pinned factor per case, and no with/without factor. */
    char *h2d = section(md, "## Ejercicio h2d:");
    ck_assert_ptr_nonnull(strstr(h2d, "### Memoria fijada (pinned) frente a paginable"));
    ck_assert_ptr_nonnull(strstr(h2d, "Paginable frente a Fijada:"));
    ck_assert_ptr_nonnull(strstr(h2d, "| 4KB | n=1024 | 0.02000 | 0.01000 | 0.2 | 0.4 | 2.00x |"));
    ck_assert_ptr_nonnull(
        strstr(h2d, "| 1MB | n=262144 | 0.1000 | 0.04000 | 10.5 | 26.2 | 2.50x |"));
    ck_assert_ptr_nonnull(strstr(h2d, "| Paginable con transferencia | 0.06000 |"));
    ck_assert_ptr_null(strstr(h2d, "más lento)"));
    ck_assert_ptr_null(strstr(h2d, " ms ("));
    free(h2d);
    char *kinds = section(md, "## Ejercicio kinds:");
    ck_assert_int_eq(count_of(kinds, "frente a Kind"), 1);
    ck_assert_ptr_nonnull(strstr(kinds, "Kind host frente a Kind pinned:"));
    ck_assert_ptr_nonnull(strstr(kinds, "| k | n=10 | 0.3000 | 0.1000 | – | – | 3.00x |"));
    free(kinds);
    char *mixed = section(md, "## Ejercicio mixed:");
    ck_assert_ptr_null(strstr(mixed, "Memoria fijada"));
    free(mixed);
    ck_assert_ptr_nonnull(strstr(md, "aislamiento supervisor\n"));
    free(md);

    /* English: the same tables in its words. */
    render_md(&r, dir, "en", true, &md);
    ck_assert_ptr_nonnull(strstr(md, "## Hand-in table: GPU speedup over the CPU baseline"));
    ck_assert_ptr_nonnull(strstr(md, "| add | GPU punteros de dispositivo without transfer | n = "
                                     "100000 (n100K: 20.00x) | 50.00x |"));
    ck_assert_ptr_nonnull(strstr(md, "| saxpy | GPU (CUDA) with transfer | none up to n = "
                                     "10000000 | 0.50x |"));
    ck_assert_ptr_nonnull(strstr(md, "### Pinned versus pageable host memory"));
    ck_assert_ptr_nonnull(strstr(md, "- GPU (CUDA) without transfer: faster than the CPU"));
    ck_assert_ptr_nonnull(strstr(md, "isolation supervisor\n"));
    free(md);
    remove_tree(dir, NULL);
    free(dir);
    results_release(&r);
}
END_TEST

/* A failing gnuplot: the report says so in its own language, with gnuplot's words. */
START_TEST(test_plot_failure_language)
{
    struct results r;
    fixture(&r, "es");
    char *dir = make_tmpdir(), *bin = path_join(dir, "bin"), *md;
    ck_assert_int_eq(mkdir_p(bin, NULL), 0);
    char *fake = path_join(bin, "gnuplot");
    const char *script = "#!/bin/sh\necho 'line 3: boom' >&2\nexit 1\n";
    ck_assert_int_eq(write_file_atomic(fake, script, strlen(script), NULL), 0);
    ck_assert_int_eq(chmod(fake, 0755), 0);
    char *old_path = xstrdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
    char *path = xstrfmt("%s:%s", bin, old_path);
    setenv("PATH", path, 1);
    char *out = path_join(dir, "out");
    render_md(&r, out, NULL, true, &md);
    ck_assert_ptr_nonnull(strstr(md, "*Gráfica no disponible: gnuplot ha fallado ("));
    ck_assert_ptr_nonnull(strstr(md, "boom"));
    ck_assert_ptr_null(strstr(md, "gnuplot failed"));
    free(md);
    render_md(&r, out, "en", true, &md);
    ck_assert_ptr_nonnull(strstr(md, "*Plot not available: gnuplot failed ("));
    free(md);
    setenv("PATH", old_path, 1);
    free(old_path);
    free(path);
    free(out);
    free(fake);
    free(bin);
    remove_tree(dir, NULL);
    free(dir);
    results_release(&r);
}
END_TEST

/*
 * A student's check of lab 6 on a laptop without a usable GPU, as the grader writes it: the
 * GPU variants not run (the probe's reason in every message), the slow cases without --full,
 * the hidden cases not included, and roofline findings on every timed case.
 */
#define NO_GPU_WHY                                                                                 \
    "no usable CUDA device: CUDA driver version is insufficient for CUDA runtime version "         \
    "(cudaErrorInsufficientDriver)"

static struct case_result *add_skipped(struct variant_result *vr, const char *id, long n,
                                       const char *why)
{
    struct case_result *cr = add_case(vr, id, n, V_SKIPPED, 0);
    free(cr->message);
    cr->message = xstrdup(why);
    return cr;
}

/* A timed passing case with its memory-traffic finding (the roofline). */
static void add_timed(struct variant_result *vr, const char *id, long n, double ms, double gbps)
{
    struct case_result *cr = add_case(vr, id, n, V_PASS, 1);
    set_times(cr, ms, ms, ms);
    cr->gbps = gbps;
    char *f = xstrfmt("memory traffic: %.0f%% of this machine's measured CPU bandwidth (45 GB/s)",
                      100 * gbps / 45);
    add_finding(cr, f);
    free(f);
    cr->roofline_first = 1;
    cr->roofline_count = 1;
}

static void no_gpu_variant_cases(struct variant_result *vr, bool gpu, const char *const *ids,
                                 const long *sizes, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        bool hidden = sizes[i] == 1500 || sizes[i] == 123457, slow = sizes[i] == 7000;
        struct case_result *cr;
        if (hidden)
            cr = add_skipped(vr, ids[i], sizes[i],
                             "hidden case: run only when the instructor grades");
        else if (slow)
            cr = add_skipped(vr, ids[i], sizes[i],
                             "slow case: run with --full (make check ARGS=--full)");
        else if (gpu)
            cr = add_skipped(vr, ids[i], sizes[i], "GPU variant not run here: " NO_GPU_WHY);
        else if (sizes[i] == 1024)
            add_timed(vr, ids[i], sizes[i], 7.0, 1.8); /* 4% */
        else if (sizes[i] < 2000)
            add_timed(vr, ids[i], sizes[i], sizes[i] == 1000 ? 0.0005 : 0.09, 51.3); /* 114% */
        else
            add_timed(vr, ids[i], sizes[i], 3.0, 38.7); /* 86% */
        if (hidden || slow) {
            cr->hidden = hidden;
            cr->slow = slow;
        }
    }
}

static void no_gpu_fixture(struct results *r)
{
    fixture_header(r, "es");
    r->full = false;
    r->hidden = false;
    free(r->machine.gpu_name);
    r->machine.gpu_name = NULL;
    free(r->machine.gpu_status);
    r->machine.gpu_status = xstrdup(NO_GPU_WHY);
    static const char *const mm_ids[] = {"n256", "n1024", "n7000", "n1500"};
    static const long mm_sizes[] = {256, 1024, 7000, 1500};
    static const char *const g2_ids[] = {"n1000", "n5M", "n123457"};
    static const long g2_sizes[] = {1000, 5000000, 123457};
    struct exercise_result *ex = add_exercise(r, "matmul", "Producto de matrices");
    no_gpu_variant_cases(add_variant(ex, "cpu", "CPU", "matmul_cpu", "cpu", MEM_HOST), false,
                         mm_ids, mm_sizes, 4);
    no_gpu_variant_cases(add_variant(ex, "gpu", "GPU", "matmul_gpu", "gpu", MEM_DEVICE), true,
                         mm_ids, mm_sizes, 4);
    ex = add_exercise(r, "grade2", "Función vectorial");
    no_gpu_variant_cases(add_variant(ex, "cpu", "CPU", "grade2_cpu", "cpu", MEM_HOST), false,
                         g2_ids, g2_sizes, 3);
    no_gpu_variant_cases(add_variant(ex, "gpu", "GPU", "grade2_gpu", "gpu", MEM_DEVICE), true,
                         g2_ids, g2_sizes, 3);
    results_tally(r);
}

/* Whether text names the number n on its own (not inside another number, "0.01500"). */
static bool mentions(const char *text, const char *n)
{
    for (const char *p = text; (p = strstr(p, n)); p++) {
        bool before = p > text && (isdigit((unsigned char)p[-1]) || p[-1] == '.');
        bool after = isdigit((unsigned char)p[strlen(n)]);
        if (!before && !after)
            return true;
    }
    return false;
}

/* Nothing of the hidden cases but how many: neither their ids nor their sizes. */
static void check_no_hidden(const char *text, const char *what)
{
    static const char *const hints[] = {"n1500", "1500", "n123457", "123457"};
    for (size_t i = 0; i < 4; i++)
        ck_assert_msg(!mentions(text, hints[i]), "%s names hidden case '%s':\n%s", what, hints[i],
                      text);
}

/* The first page answers the student's questions; every reason is said once. */
START_TEST(test_first_page_without_gpu)
{
    struct results r;
    no_gpu_fixture(&r);
    char *dir = make_tmpdir(), *md;
    render_md(&r, dir, NULL, true, &md);
    /* The score is stated for what ran; what did not is apart, never "what cost points", and
     * its parts add up to its total (4 + 2 + 4 = 10 of the 14). */
    ck_assert_msg(strstr(md, "**Nota: 4 / 14 (29%).** Casos correctos: 4; fallidos: 0; no "
                             "ejecutados: 10. Es la nota de lo que se ha ejecutado aquí, sobre sus "
                             "4 puntos; los otros 10 puntos no se han corregido aquí (abajo).\n"
                             "\n### Qué ha restado puntos\n\nNada: todos los casos ejecutados "
                             "son correctos.\n\n### Sin corregir aquí (10 puntos)\n\n- 4 casos "
                             "de GPU sin ejecutar aquí (4 puntos): no hay ningún dispositivo CUDA "
                             "utilizable (CUDA dice: «CUDA driver version is insufficient for "
                             "CUDA runtime version (cudaErrorInsufficientDriver)»"),
                  "%s", md);
    /* (after a break point for LaTeX: a zero-width space follows 30 characters without one) */
    ck_assert_msg(strstr(md, "); cuentan cuando corrige el profesor\n- 2 casos lentos sin "
                             "ejecutar (2 puntos): se ejecutan con `--full` (`make check "
                             "ARGS=--full`)\n- 2 casos ocultos, cada uno en todas las variantes "
                             "de su ejercicio (4 ejecuciones) (4 puntos): solo se ejecutan "
                             "cuando corrige el profesor\n"),
                  "%s", md);
    ck_assert_int_eq(count_of(md, "cudaErrorInsufficientDriver"), 1);
    ck_assert_ptr_nonnull(strstr(md, "### Qué hacer ahora\n\n- Las variantes de GPU no se han "
                                     "ejecutado en esta máquina"));
    ck_assert_ptr_nonnull(strstr(md, "- Antes de entregar, ejecuta también los casos lentos"));
    /* A GPU variant none of whose cases ran is one line, its slow case included, pointing at
     * the section that says why (issue 47: it pointed at "Qué ha restado puntos"). */
    ck_assert_int_eq(count_of(md, "*Sin ejecutar aquí: no hay GPU utilizable (ver Sin corregir "
                                  "aquí).*"),
                     2);
    ck_assert_ptr_nonnull(strstr(md, "las variantes de GPU no se han ejecutado (ver Sin corregir "
                                     "aquí)"));
    ck_assert_ptr_null(strstr(md, "Qué ha restado puntos)"));
    ck_assert_int_eq(count_of(md, "Puntos: los obtenidos en el caso y su máximo."), 1);
    /* The roofline: 114% of the bandwidth for 1000 elements says nothing; 5M's does. */
    ck_assert_ptr_null(strstr(md, "114"));
    ck_assert_ptr_nonnull(strstr(md, "memory traffic: 86%"));
    check_no_hidden(md, "report.md");
    free(md);

    /* English, from the same results. */
    render_md(&r, dir, "en", true, &md);
    ck_assert_msg(strstr(md, "- 4 GPU cases not run here (4 points): no usable CUDA device"), "%s",
                  md);
    /* Each hidden case once, as the kit's README counts them (issue 47: "4 hidden cases"). */
    ck_assert_ptr_nonnull(strstr(md, "- 2 hidden cases, each on every variant of its exercise "
                                     "(4 runs) (4 points): they run only when your instructor "
                                     "grades\n"));
    ck_assert_ptr_nonnull(strstr(md, "GPU variants were not run (see Not graded here)"));
    ck_assert_ptr_nonnull(strstr(md, "- Before handing in, run the slow cases too: `make check "
                                     "ARGS=--full`."));
    check_no_hidden(md, "report.md (en)");
    free(md);
    remove_tree(dir, NULL);
    free(dir);
    results_release(&r);
}
END_TEST

/* What table_print and table_print_summary write, in a language (NULL: English). */
static char *console(const struct results *r, const char *lang, bool student)
{
    struct messages msgs;
    struct error err;
    messages_init(&msgs);
    if (lang)
        ck_assert_msg(messages_load_lang(&msgs, TEMPLATES, lang, &err) == 0, "%s", err.msg);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    struct table_opts o;
    table_opts_init(&o);
    o.msgs = &msgs;
    o.student_view = student;
    table_print(f, r, &o);
    table_print_summary(f, r, &o);
    fclose(f);
    messages_release(&msgs);
    return buf;
}

/* The console's first screen: the score, what cost points (each reason once), what next;
 * hidden cases by count only; in the language asked for. */
START_TEST(test_console_first_screen)
{
    struct results r;
    no_gpu_fixture(&r);
    char *out = console(&r, NULL, true);
    ck_assert_msg(strstr(out,
                         "\nScore: 4.00 / 14.00 points — 4 passed, 0 failed, 10 not run\n"
                         "  of what ran here: 4.00 / 4.00 points; 10.00 points not graded here "
                         "(below)\nNothing cost points: every case that ran passed.\n"
                         "Not graded here (10.00 points):\n  - 4 GPU cases not run here (4.00 "
                         "points): " NO_GPU_WHY "; they count when your instructor grades\n"
                         "  - 2 slow cases not run (2.00 points): run them with --full (make "
                         "check ARGS=--full)\n  - 2 hidden cases, each on every variant of its "
                         "exercise (4 runs) (4.00 points): they run only when your instructor "
                         "grades\nWhat to try next:\n  - test the "
                         "GPU variants"),
                  "%s", out);
    ck_assert_int_eq(count_of(out, "cudaErrorInsufficientDriver"), 1);
    ck_assert(strstr(out, "What to try next:") < strstr(out, "\nmatmul  "));
    ck_assert_ptr_nonnull(strstr(out, "  gpu       not run here: no usable GPU (see above)\n"));
    ck_assert_ptr_nonnull(strstr(out, "slow case (see above)"));
    /* Findings that say nothing are left out: 114% for 1000 elements. */
    ck_assert_ptr_null(strstr(out, "114%"));
    ck_assert_ptr_nonnull(strstr(out, "memory traffic: 86%"));
    check_no_hidden(out, "the console");
    free(out);

    out = console(&r, "es", true);
    ck_assert_msg(strstr(out, "\nNota: 4.00 / 14.00 puntos — 4 correctos, 0 fallidos, 10 sin "
                              "ejecutar\n  de lo ejecutado aquí: 4.00 / 4.00 puntos; 10.00 puntos "
                              "sin corregir aquí (abajo)\nNada ha restado puntos: todos los casos "
                              "ejecutados son correctos.\nSin corregir aquí (10.00 puntos):\n  - "
                              "4 casos de GPU sin ejecutar aquí (4.00 puntos): no hay ningún "
                              "dispositivo CUDA utilizable (CUDA dice: «"),
                  "%s", out);
    ck_assert_ptr_nonnull(strstr(out, "Qué hacer ahora:\n  - prueba las variantes de GPU"));
    ck_assert_ptr_nonnull(strstr(out, "  gpu       sin ejecutar aquí: no hay GPU utilizable"));
    ck_assert_ptr_null(strstr(out, "What cost points"));
    check_no_hidden(out, "the console (es)");
    free(out);

    /* The instructor's view lists them. */
    out = console(&r, NULL, false);
    ck_assert_ptr_nonnull(strstr(out, "n1500"));
    free(out);
    results_release(&r);
}
END_TEST

/* Lab 6's grade2 as a laptop without a GPU checks it: 4 points over 5 cases of 3 variants
 * (4/15 = 0.2667 a case), the CPU variant's two visible cases passed, the GPU ones not run;
 * matmul's speed points measured on a GPU variant that did not run. */
static void thirds_fixture(struct results *r)
{
    fixture_header(r, "es");
    free(r->machine.gpu_status);
    r->machine.gpu_status = xstrdup(NO_GPU_WHY);
    static const char *const vs[] = {"cpu", "gpu", "gpu_dev"};
    static const char *const ids[] = {"n1000", "n5M", "n123457", "n1", "n20M"};
    struct exercise_result *ex = add_exercise(r, "grade2", "Función vectorial");
    for (int v = 0; v < 3; v++) {
        struct variant_result *vr =
            add_variant(ex, vs[v], vs[v], vs[v], v ? "gpu" : "cpu", v == 2 ? MEM_DEVICE : MEM_HOST);
        for (int c = 0; c < 5; c++) {
            bool ran = v == 0 && c < 2;
            struct case_result *cr = ran ? add_case(vr, ids[c], 1000, V_PASS, 4.0 / 15)
                                         : add_skipped(vr, ids[c], 1000, "not run here");
            cr->max_points = 4.0 / 15;
            cr->hidden = c >= 2;
            if (ran)
                set_times(cr, 1, 1, 1);
        }
    }
    ex = add_exercise(r, "matmul", "Producto de matrices");
    struct variant_result *mm = add_variant(ex, "cpu", "cpu", "matmul_cpu", "cpu", MEM_HOST);
    struct case_result *cr = add_case(mm, "n256", 256, V_PASS, 1);
    set_times(cr, 1, 1, 1);
    cr->pairs = 30;
    cr->speedup_lo = 0.9;
    add_skipped(add_variant(ex, "gpu_dev", "gpu_dev", "matmul_gpu_dev", "gpu", MEM_DEVICE), "n256",
                256, "not run here")
        ->max_points = 1;
    ex->perf_points = 0;
    ex->perf_max_points = 2;
    ex->perf_variant = xstrdup("gpu_dev");
    results_tally(r);
}

/* Every printed figure adds up with its neighbours: the cases to their exercise, the
 * exercises to the score, what was not graded to its total; a lab's maximum is the same
 * whatever ran. */
START_TEST(test_points_add_up)
{
    struct results r;
    thirds_fixture(&r);
    ck_assert(fabs(r.max_score - 8) < 1e-9); /* 4 + 1 + 1 + the 2 speed points */
    struct shown_points sp;
    shown_points_of(&r, &sp);
    long sum = 0, max = 0;
    for (size_t e = 0; e < sp.n_ex; e++) {
        long cases = sp.ex[e].perf, cases_max = sp.ex[e].perf_max;
        for (size_t k = 0; k < sp.ex[e].n_cases; k++) {
            cases += sp.ex[e].case_points[k];
            cases_max += sp.ex[e].case_max[k];
        }
        ck_assert_int_eq(cases, sp.ex[e].points);
        ck_assert_int_eq(cases_max, sp.ex[e].max);
        sum += sp.ex[e].points;
        max += sp.ex[e].max;
    }
    ck_assert_int_eq(sum, sp.score);
    ck_assert_int_eq(max, sp.max);
    ck_assert_int_eq(sp.ex[0].points, 53); /* 0.5333 */
    /* A case that earned its points prints as much earned as its maximum. */
    ck_assert_int_eq(sp.ex[0].case_points[0], sp.ex[0].case_max[0]);
    ck_assert_int_eq(sp.ex[0].case_points[1], sp.ex[0].case_max[1]);
    ck_assert_int_eq(sp.ex[0].case_points[0] + sp.ex[0].case_points[1], 53);
    shown_points_release(&sp);

    char *dir = make_tmpdir(), *md;
    render_md(&r, dir, NULL, true, &md);
    ck_assert_msg(strstr(md, "| n1000 | n=1000 | correcto | 0.27 / 0.27 |") &&
                      strstr(md, "| n5M | n=1000 | correcto | 0.26 / 0.26 |") &&
                      strstr(md, "Puntos: **0.53 / 4**"),
                  "%s", md);
    /* The score is of what ran: 1.53 of the 8, and what did not run (6.47) apart, its parts
     * adding up, the speed points among them. */
    ck_assert_msg(strstr(md, "**Nota: 1.53 / 8 (19%).**") &&
                      strstr(md, "Es la nota de lo que se ha ejecutado aquí, sobre sus 1.53 "
                                 "puntos; los otros 6.47 puntos no se han corregido aquí") &&
                      strstr(md, "### Sin corregir aquí (6.47 puntos)") &&
                      strstr(md, "- puntos de rendimiento de matmul (2 puntos): se miden en "
                                 "gpu_dev, que no se ha ejecutado aquí\n"),
                  "%s", md);
    free(md);
    char *out = console(&r, "es", true);
    ck_assert_msg(strstr(out, "Nota: 1.53 / 8.00 puntos") &&
                      strstr(out, "  de lo ejecutado aquí: 1.53 / 1.53 puntos; 6.47 puntos sin "
                                  "corregir aquí (abajo)\n") &&
                      strstr(out, "grade2  Función vectorial  0.53 / 4.00 puntos") &&
                      strstr(out, "  - puntos de rendimiento de matmul (2.00 puntos): se miden en "
                                  "gpu_dev, que no se ha ejecutado aquí\n"),
                  "%s", out);
    free(out);
    remove_tree(dir, NULL);
    free(dir);
    results_release(&r);
}
END_TEST

/* A grade the grader's side left incomplete says so first, in the report and the console. */
START_TEST(test_incomplete_grade_said_first)
{
    struct results r;
    thirds_fixture(&r);
    struct case_result *cr = &r.exercises[0].variants[1].cases[0];
    cr->verdict = V_GRADER;
    free(cr->message);
    cr->message = xstrdup("the reference crashed");
    results_tally(&r);
    char *dir = make_tmpdir(), *md;
    render_md(&r, dir, "en", true, &md);
    ck_assert_msg(strstr(md, "**Not a grade yet:** the grader failed on 1 case (XX), not the "
                             "submission: it must be graded again, and until then no gradebook "
                             "carries these points.") &&
                      strstr(md, "- **grade2 / gpu**, case n1000: grader error — the reference "
                                 "crashed (0.27 points): not the submission's fault"),
                  "%s", md);
    ck_assert(strstr(md, "Not a grade yet") < strstr(md, "### What cost points"));
    free(md);
    char *out = console(&r, NULL, true);
    ck_assert_msg(strstr(out, "  not a grade yet: the grader failed on some cases (XX), not the "
                              "submission; they must be graded again\n") &&
                      strstr(out, "  - grade2/gpu n1000: XX — the reference crashed (0.27 points): "
                                  "the grader's fault"),
                  "%s", out);
    free(out);
    remove_tree(dir, NULL);
    free(dir);
    results_release(&r);
}
END_TEST

/* Five students: different scores, failures and speedups. */
static void class_fixture(struct results rs[5])
{
    static const char *const ids[] = {"alumno03", "alumno01", "alumno05", "alumno02", "alumno04"};
    static const char *const names[] = {"Ana Pérez", "Luis Gómez", "Marta_Ruiz", "Íñigo Martín",
                                        "Zoë Castaño"};
    for (int s = 0; s < 5; s++) {
        fixture(&rs[s], "es");
        struct results *r = &rs[s];
        free(r->student_id);
        r->student_id = xstrdup(ids[s]);
        free(r->student_name);
        r->student_name = xstrdup(names[s]);
        r->score = 12 - 2.5 * s;
        struct variant_result *gpu = &r->exercises[0].variants[1];
        for (size_t c = 0; c < gpu->n_cases; c++)
            if (gpu->cases[c].speedup_ref > 0)
                gpu->cases[c].speedup_ref *= 0.5 + 0.3 * s;
        if (s == 0) {
            /* alumno03's kernel is clean under memcheck: no row of its own for it. */
            struct sanitizer_run *mc = &gpu->sanitizer[0];
            sanitizer_output_release(&mc->out);
            sanitizer_output_init(&mc->out);
            mc->out.summary = true;
        }
        if (s == 2) {
            struct variant_result *cpu = &r->exercises[0].variants[0];
            cpu->cases[0].verdict = V_TIMEOUT;
            cpu->cases[0].speedup_ref = 0;
        }
        if (s == 4) {
            struct variant_result *mm = &r->exercises[1].variants[0];
            mm->built = false;
            for (size_t c = 0; c < mm->n_cases; c++) {
                mm->cases[c].verdict = V_COMPILE;
                mm->cases[c].speedup_ref = 0;
                mm->cases[c].speedup_baseline = 0;
            }
        }
        if (s == 1)
            gpu->cases[0].verdict = V_GRADER;
        /* SM clocks: alumno05's dipped; alumno02 had samples dropped, and the reference of
         * its hidden case ran throttled throughout. */
        gpu->cases[0].clock = (struct gpu_clock){s == 2 ? 1410 : 1950, 1980, 1980, 0, false};
        gpu->cases[0].ref_clock = (struct gpu_clock){1980, 1980, 1980, 0, false};
        if (s == 3) {
            gpu->cases[0].clock.dropped = 4;
            for (size_t c = 0; c < gpu->n_cases; c++)
                if (gpu->cases[c].hidden)
                    gpu->cases[c].ref_clock = (struct gpu_clock){1300, 1400, 1980, 6, true};
        }
    }
}

START_TEST(test_summary)
{
    struct results rs[5];
    class_fixture(rs);
    const struct results *all[5];
    for (int i = 0; i < 5; i++)
        all[i] = &rs[i];
    char *dir = make_tmpdir();
    bool pdf = unit_have("pandoc") && unit_have("xelatex") && unit_have("pdftotext");
    if (!pdf)
        fprintf(stderr, "test_report: pandoc or xelatex not installed: summary PDF not checked\n");
    struct report_opts o;
    struct report_outcome out;
    struct error err;
    report_opts_init(&o);
    o.templates_dir = TEMPLATES;
    o.pdf = pdf;
    o.pdf_required = pdf;
    ck_assert_msg(report_summary(all, 5, dir, &o, &out, &err) == 0, "%s:%d:%d: %s", err.file,
                  err.line, err.col, err.msg);
    ck_assert(out.md_written);
    char *want = path_join(dir, "summary.md");
    ck_assert_str_eq(out.md_path, want);
    free(want);
    char *md = unit_slurp(out.md_path);
    ck_assert_ptr_nonnull(strstr(md, "Resumen de la clase: 5 entregas corregidas"));
    /* alumno01's GPU case is XX: no grade yet, said first, and left out of every figure
     * (mean, median, min, max over the other four: 12, 7, 4.5 and 2). */
    ck_assert_ptr_nonnull(strstr(md, "**Sin nota todavía para 1 de 5 estudiantes:**"));
    ck_assert_ptr_nonnull(strstr(md, "| grader-error | 1 | 1 | 0 | falló el corrector"));
    ck_assert(strstr(md, "**Sin nota todavía") < strstr(md, "## Notas"));
    ck_assert_ptr_nonnull(strstr(md, "Solo de las notas completas: 4 de 5 estudiantes."));
    ck_assert_ptr_nonnull(strstr(md, "| 6.38 | 5.75 | 2 | 12 | 12 |")); /* mean, median, min, max */
    ck_assert_ptr_nonnull(strstr(md, "| alumno01 | Luis Gómez | **sin nota todavía** "
                                     "(grader-error) | – |"));
    /* Students sorted by id, names escaped. */
    const char *a1 = strstr(md, "| alumno01 |"), *a5 = strstr(md, "| alumno05 | Marta_Ruiz |");
    ck_assert(a1 && a5 && a1 < a5);
    /* Pass rates per case: c1 of the CPU variant timed out for one student. */
    ck_assert_ptr_nonnull(strstr(md, "| cpu | c1 | n=100000 | 4 | 1 | 0 | 0 | 80% |"));
    ck_assert_ptr_nonnull(strstr(md, "| gpu_tiled | m2 | n=1000 | 0 | 5 | 0 | 0 | 0% |"));
    /* Speedup distribution: min / median / max over students. */
    ck_assert_ptr_nonnull(strstr(md, "| gpu | 5 | 0.59x | 1.29x | 2.00x |"));
    /* Failures by verdict, most frequent first. */
    const char *wa = strstr(md, "| valores incorrectos | 9 | 5 | saxpy / gpu / h1: 5; matmul "
                                "/ gpu_tiled / m2: 4 |");
    const char *ce = strstr(md, "| no compila | 2 | 1 | matmul / gpu_tiled / m1: 1; matmul "
                                "/ gpu_tiled / m2: 1 |");
    const char *to = strstr(md, "| tiempo agotado | 1 | 1 | saxpy / cpu / c1: 1 |");
    ck_assert(wa && ce && to && wa < ce && ce < to);
    /* The grader's errors are no failure of the class's: they are on the first page. */
    ck_assert_ptr_null(strstr(md, "| error del corrector | 1 | 1 |"));
    /* compute-sanitizer: who has findings, in the tool's words, framed in Spanish. */
    ck_assert_ptr_nonnull(strstr(md, "El código de GPU de 5 estudiantes se ejecutó bajo "
                                     "compute-sanitizer (15 ejecuciones"));
    ck_assert_ptr_nonnull(strstr(md, "| alumno01 | Luis Gómez | saxpy | gpu | memcheck | c1 | 25 | "
                                     "Invalid \\_\\_global\\_\\_ write of size 4 bytes "
                                     "(saxpy_kernel"));
    ck_assert_ptr_nonnull(
        strstr(md, "| alumno03 | Ana Pérez | saxpy | gpu | racecheck | h1 | 1 |"));
    ck_assert_ptr_null(strstr(md, "| alumno03 | Ana Pérez | saxpy | gpu | memcheck"));
    ck_assert_ptr_nonnull(strstr(md,
                                 "Ejecuciones que no terminaron (responsabilidad del corrector, "
                                 "nunca de los estudiantes): 5."));
    /* GPU clocks: the class's range, and one row for the student whose samples were dropped,
     * its hidden case by count only. */
    ck_assert_msg(strstr(md, "medidas de 5 estudiantes y de las referencias, estuvo entre 1300 y "
                             "1980 MHz (máximo 1980 MHz)."),
                  "%s", md);
    ck_assert_ptr_nonnull(strstr(md, "| alumno02 | Íñigo Martín | 10 | 1 | saxpy/gpu c1, 1 "
                                     "ocultos |"));
    ck_assert_ptr_null(strstr(md, "| alumno05 | Marta\\_Ruiz | 0 |"));
    if (unit_have("gnuplot")) {
        ck_assert_ptr_nonnull(strstr(md, "](plots/summary-scores.png)"));
        ck_assert_ptr_nonnull(strstr(md, "](plots/summary-speedups.png)"));
        char *png = path_join(dir, "plots/summary-speedups.png");
        ck_assert(file_exists(png));
        free(png);
    }
    if (pdf) {
        ck_assert_msg(out.pdf_written, "%s", out.pdf_note);
        char *text = unit_pdf_text(out.pdf_path, dir);
        ck_assert(strstr(text, "Fallos por tipo"));
        ck_assert(strstr(text, "Íñigo Martín"));
        ck_assert(contains_squeezed(text, "Marta_Ruiz"));
        free(text);
    }
    free(md);
    if (getenv("LG_KEEP_PDF"))
        fprintf(stderr, "test_report: kept %s\n", dir);
    else
        remove_tree(dir, NULL);
    free(dir);
    for (int i = 0; i < 5; i++)
        results_release(&rs[i]);
    /* No results: nothing to summarise. */
    ck_assert_int_eq(report_summary(all, 0, "/tmp", &o, &out, &err), -1);
}
END_TEST

START_TEST(test_break_even)
{
    double size = 0;
    /* The GPU (a) is slower at 1e5 and 1e6, faster at 1e7: the crossing is between, on a
     * log-log line: log(a/b) goes from ln 2 to ln(5/7). */
    const double n[] = {1e5, 1e6, 1e7}, a[] = {0.3, 1.2, 5.0}, b[] = {0.05, 0.6, 7.0};
    ck_assert_int_eq(plot_break_even(n, a, b, 3, &size), BREAK_EVEN_FOUND);
    double t = log(2.0) / (log(2.0) - log(5.0 / 7.0));
    ck_assert_double_eq_tol(size, pow(10, 6 + t), 1e-6 * size);
    ck_assert(size > 4.70e6 && size < 4.72e6);

    /* Unsorted input gives the same answer. */
    const double n2[] = {1e7, 1e5, 1e6}, a2[] = {5.0, 0.3, 1.2}, b2[] = {7.0, 0.05, 0.6};
    double size2 = 0;
    ck_assert_int_eq(plot_break_even(n2, a2, b2, 3, &size2), BREAK_EVEN_FOUND);
    ck_assert_double_eq_tol(size2, size, 1e-9 * size);

    /* Exactly equal at a measured size. */
    const double ae[] = {0.3, 0.6, 5.0};
    ck_assert_int_eq(plot_break_even(n, ae, b, 3, &size), BREAK_EVEN_FOUND);
    ck_assert_double_eq(size, 1e6);

    /* Symmetric case: halfway in log space. */
    const double ns[] = {100, 10000}, as[] = {2, 1}, bs[] = {1, 2};
    ck_assert_int_eq(plot_break_even(ns, as, bs, 2, &size), BREAK_EVEN_FOUND);
    ck_assert_double_eq_tol(size, 1000, 1e-9);

    /* No crossing within the measured sizes. */
    const double fast[] = {0.01, 0.1, 1}, slow[] = {1, 10, 100};
    ck_assert_int_eq(plot_break_even(n, fast, b, 3, &size), BREAK_EVEN_A_FASTER);
    ck_assert_int_eq(plot_break_even(n, slow, b, 3, &size), BREAK_EVEN_A_SLOWER);

    /* Too few usable points: zeros, negatives and NaN are ignored. */
    const double bad[] = {0, -1, NAN};
    ck_assert_int_eq(plot_break_even(n, bad, b, 3, &size), BREAK_EVEN_NO_DATA);
    ck_assert_int_eq(plot_break_even(n, a, b, 1, &size), BREAK_EVEN_NO_DATA);
    ck_assert_int_eq(plot_break_even(n, a, b, 0, &size), BREAK_EVEN_NO_DATA);
}
END_TEST

START_TEST(test_plot_names_and_missing_gnuplot)
{
    char *s = plot_safe_name("../ex 1/é");
    ck_assert_str_eq(s, "___ex_1___");
    free(s);
    struct plot_fig f;
    plot_fig_init(&f);
    struct plot_result pr;
    ck_assert_int_eq(plot_render(&f, "/tmp", "empty", &pr), -1);
    ck_assert(!pr.made);
    ck_assert_ptr_nonnull(strstr(pr.note, "no data"));
    struct plot_series *ser = plot_fig_add_series(&f, "it's", PLOT_LINES);
    plot_series_add(ser, 1, 1);
    ck_assert_int_eq(plot_render(&f, "/tmp", "../escape", &pr), -1);
    ck_assert_ptr_nonnull(strstr(pr.note, "invalid plot name"));
    char *old_path = xstrdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
    setenv("PATH", "/nonexistent", 1);
    ck_assert_int_eq(plot_render(&f, "/tmp", "x", &pr), -1);
    ck_assert(pr.no_gnuplot);
    ck_assert_ptr_nonnull(strstr(pr.note, "gnuplot not found"));
    setenv("PATH", old_path, 1);
    free(old_path);
    plot_fig_release(&f);
}
END_TEST

/* Each timed case says how many pairs its speed-up's interval came from and, where its series
 * did not stop on its precision, why (docs/timing.md, "When a series stops"): in report.md as in
 * report.html, in the report's language. */
START_TEST(test_pairs_and_why_the_series_stopped)
{
    struct results r;
    struct error err;
    results_init(&r);
    ck_assert(results_read(&r, "tests/fixtures/results/lab6-h200.json", &err) == 0);
    struct case_result *gd = &r.exercises[0].variants[2].cases[1];
    struct case_result *cpu = &r.exercises[0].variants[0].cases[1];
    ck_assert(gd->pairs > 1 && cpu->pairs > 1);
    snprintf(gd->stopped, sizeof(gd->stopped), "budget");
    snprintf(cpu->stopped, sizeof(cpu->stopped), "alone");
    char *dir = make_tmpdir(), *md;
    render_md(&r, dir, "en", false, &md);
    char *budget = xstrfmt("%d pairs, the time budget spent", gd->pairs);
    ck_assert_msg(strstr(md, budget), "%s", md);
    ck_assert(strstr(md, "1 call, against the reference's time on this machine"));
    free(md);
    render_md(&r, dir, "es", false, &md);
    char *es = xstrfmt("%d pares, agotado el presupuesto de tiempo", gd->pairs);
    ck_assert_msg(strstr(md, es), "%s", md);
    free(es);
    free(budget);
    free(md);
    remove_tree(dir, NULL);
    free(dir);
    results_release(&r);
}
END_TEST

/* A missing file is not a compile error: nothing was built, so the advice is to hand in what
 * the lab asks for, not to read the compiler's first error (there is none). */
START_TEST(test_missing_file_advice)
{
    struct results r;
    struct error err;
    results_init(&r);
    ck_assert(results_read(&r, "tests/fixtures/results/lab6-h200.json", &err) == 0);
    struct variant_result *vr = &r.exercises[1].variants[0];
    for (size_t c = 0; c < vr->n_cases; c++) {
        vr->cases[c].verdict = V_MISSING;
        vr->cases[c].points = 0;
    }
    results_tally(&r);
    char *out = console(&r, "en", true);
    ck_assert_msg(strstr(out, "hand in what the lab asks for") &&
                      !strstr(out, "make it build first"),
                  "%s", out);
    free(out);
    char *dir = make_tmpdir(), *md;
    render_md(&r, dir, "en", true, &md);
    ck_assert(strstr(md, "Hand in what the lab asks for") && !strstr(md, "Make it build first"));
    free(md);
    remove_tree(dir, NULL);
    free(dir);
    results_release(&r);
}
END_TEST

static Suite *report_suite(void)
{
    Suite *s = suite_create("report");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_break_even);
    tcase_add_test(tc, test_gpu_clock_line);
    tcase_add_test(tc, test_plot_names_and_missing_gnuplot);
    tcase_add_test(tc, test_golden_es);
    tcase_add_test(tc, test_golden_en);
    tcase_add_test(tc, test_golden_from_json);
    tcase_add_test(tc, test_structure_not_text);
    tcase_add_test(tc, test_report_content);
    tcase_add_test(tc, test_no_pandoc);
    tcase_add_test(tc, test_template_errors_are_failures);
    tcase_add_test(tc, test_pdf_es);
    tcase_add_test(tc, test_pdf_injection_literal);
    tcase_add_test(tc, test_summary);
    tcase_add_test(tc, test_lab3_tables);
    tcase_add_test(tc, test_plot_failure_language);
    tcase_add_test(tc, test_first_page_without_gpu);
    tcase_add_test(tc, test_console_first_screen);
    tcase_add_test(tc, test_points_add_up);
    tcase_add_test(tc, test_incomplete_grade_said_first);
    tcase_add_test(tc, test_pairs_and_why_the_series_stopped);
    tcase_add_test(tc, test_missing_file_advice);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(report_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
