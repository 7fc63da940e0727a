/*
 * One data layer for the Markdown and the HTML of a report (report/student.c, summary.c,
 * html.h): report.md and report.html, summary.md and index.html, rendered from the same
 * results, state the same facts: what the score means (or that it is not a grade yet, and
 * why), what cost points and what was not graded here, every count (grader errors apart from
 * cases not timed, a hidden case once however many variants run it), NaN as NaN, in one
 * language. The class's page says what its summary says, has every status a student has in
 * their row's filter tags, who failed each case, and tooltips that name the student. The pages
 * in a real browser, held against their Markdown line by line: tests/browser/.
 */
#include "base/alloc.h"
#include "base/fs.h"
#include "base/strbuf.h"
#include "grade/results.h"
#include "report/export_text.h"
#include "report/report.h"
#include "unit.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#define TEMPLATES "templates"
#define NO_GPU "GPU variant not run here: no usable CUDA device"

/* What a reader sees of a page: no tags, entities decoded, white space collapsed. */
static char *page_text(const char *html)
{
    struct strbuf sb = STRBUF_INIT;
    static const char *const ent[][2] = {
        {"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#39;", "'"}};
    const char *p = strstr(html, "<body");
    for (p = p ? p : html; *p;) {
        size_t k = 0;
        if (*p == '<') {
            p += strcspn(p, ">");
            p += *p == '>';
            strbuf_addch(&sb, ' ');
            continue;
        }
        for (; k < sizeof(ent) / sizeof(ent[0]); k++)
            if (!strncmp(p, ent[k][0], strlen(ent[k][0])))
                break;
        if (k < sizeof(ent) / sizeof(ent[0])) {
            strbuf_addstr(&sb, ent[k][1]);
            p += strlen(ent[k][0]);
        } else {
            strbuf_addch(&sb, *p++);
        }
    }
    /* White space collapsed; no space before the punctuation a closing tag left it after. */
    struct strbuf out = STRBUF_INIT;
    for (const char *q = strbuf_str(&sb); *q; q++) {
        bool blank = *q == ' ' || *q == '\n' || *q == '\t';
        if (blank && (out.len == 0 || out.buf[out.len - 1] == ' '))
            continue;
        if (strchr(".,:;)", *q) && out.len && out.buf[out.len - 1] == ' ')
            out.buf[--out.len] = '\0';
        strbuf_addch(&out, blank ? ' ' : *q);
    }
    strbuf_release(&sb);
    return strbuf_detach(&out);
}

/* What a reader sees of a Markdown report: no emphasis, no escapes, a table's cells apart by
 * white space as the page's are, white space collapsed. */
static char *md_text(const char *md)
{
    struct strbuf sb = STRBUF_INIT;
    for (const char *p = md; *p; p++) {
        char c = *p;
        if (p[0] == '*' && p[1] == '*') {
            p++;
            continue;
        }
        if (c == '\\' && p[1])
            c = *++p;
        else if (c == '|' || c == '\n')
            c = ' ';
        if (c == ' ' && (sb.len == 0 || sb.buf[sb.len - 1] == ' '))
            continue;
        strbuf_addch(&sb, c);
    }
    return strbuf_detach(&sb);
}

static struct case_result *add_case(struct variant_result *vr, const char *id, long n,
                                    enum verdict v)
{
    vr->cases = xrealloc(vr->cases, (vr->n_cases + 1) * sizeof(*vr->cases));
    struct case_result *cr = &vr->cases[vr->n_cases++];
    memset(cr, 0, sizeof(*cr));
    cr->case_id = xstrdup(id);
    cr->sizes = xstrfmt("n=%ld", n);
    case_result_add_param(cr, "n", n);
    cr->verdict = v;
    cr->max_points = 1;
    cr->points = v == V_PASS;
    cr->message = xstrdup(v == V_PASS ? "passed" : v == V_GRADER ? NO_GPU : "wrong");
    if (v == V_PASS) {
        cr->time = (struct timing){.valid = true, .samples = 9, .median_ms = 0.5, .min_ms = 0.4};
        cr->ref_time = cr->time;
        cr->speedup_ref = 1.2345;
        cr->baseline_ms = 0.5;
        cr->speedup_baseline = 1;
    }
    return cr;
}

static struct variant_result *set_variant(struct exercise_result *ex, size_t v, const char *id,
                                          const char *target)
{
    struct variant_result *vr = &ex->variants[v];
    memset(vr, 0, sizeof(*vr));
    vr->variant_id = xstrdup(id);
    vr->function = xstrfmt("scale_%s", id);
    vr->target = xstrdup(target);
    vr->built = true;
    return vr;
}

/*
 * A graded student of a lab with a CPU and a GPU variant, on a machine without a GPU: the GPU
 * variant's two cases XX, one correct CPU case not timed, a CPU case whose every element is
 * NaN (no finite error: max_abs 0), and one hidden case run on both variants.
 */
static void graded(struct results *r, const char *id, const char *lang)
{
    results_init(r);
    r->lab_id = xstrdup("lab97");
    r->lab_number = 97;
    r->lab_title = xstrdup("Pages");
    r->course = xstrdup("Course");
    r->lang = xstrdup(lang);
    r->student_id = xstrdup(id);
    r->student_name = xstrdup(id);
    r->grader_version = xstrdup("0.1.0");
    r->date = xstrdup("2026-11-28T10:00:00+0000");
    r->mode = xstrdup("grade");
    r->hidden = r->full = true;
    r->machine.gpu_status = xstrdup("no usable CUDA device");
    r->exercises = xcalloc(1, sizeof(*r->exercises));
    r->n_exercises = 1;
    struct exercise_result *ex = &r->exercises[0];
    ex->exercise_id = xstrdup("scale");
    ex->title = xstrdup("Scale");
    ex->variants = xcalloc(2, sizeof(*ex->variants));
    ex->n_variants = 2;
    struct variant_result *cpu = set_variant(ex, 0, "cpu", "cpu");
    struct variant_result *gpu = set_variant(ex, 1, "gpu", "gpu");
    add_case(cpu, "n1000", 1000, V_PASS);
    add_case(cpu, "n4097", 4097, V_PASS);
    add_case(cpu, "n2M", 2000000, V_WRONG);
    add_case(cpu, "nh", 777, V_PASS);
    add_case(gpu, "n1000", 1000, V_GRADER);
    add_case(gpu, "nh", 777, V_GRADER);
    cpu->cases[3].hidden = gpu->cases[1].hidden = true;
    struct case_result *nt = &cpu->cases[1], *nan = &cpu->cases[2];
    nt->not_timed = NOT_TIMED_BUSY;
    nt->not_timed_detail = xstrdup("grader (pid 7)");
    nt->time.valid = false;
    nan->mismatches = xcalloc(1, sizeof(*nan->mismatches));
    nan->n_mismatches = 1;
    snprintf(nan->mismatches[0].arg, sizeof(nan->mismatches[0].arg), "out");
    nan->mismatches[0].n_mismatch = nan->mismatches[0].n_total = 2000000;
    nan->detail = xstrdup("Not equal to tolerance rtol=1e-05, atol=1e-08 (output out, call 1)\n");
    results_tally(r);
}

static void render(const struct results *r, const char *dir, const char *lang, char **md,
                   char **html)
{
    struct report_opts o;
    struct report_outcome out;
    struct error err;
    report_opts_init(&o);
    o.templates_dir = TEMPLATES;
    o.lang = lang;
    ck_assert_msg(report_student(r, dir, &o, &out, &err) == 0, "%s:%d: %s", err.file, err.line,
                  err.msg);
    char *m = unit_slurp(out.md_path), *h = unit_slurp(out.html_path);
    *md = md_text(m);
    *html = page_text(h);
    free(m);
    free(h);
}

static void finish(struct results *r, char *dir, char *md, char *html)
{
    free(md);
    free(html);
    remove_tree(dir, NULL);
    free(dir);
    results_release(r);
}

/* Both state s. */
#define BOTH(md, html, s)                                                                          \
    do {                                                                                           \
        ck_assert_msg(strstr(md, s) != NULL, "report.md does not say: %s", s);                     \
        ck_assert_msg(strstr(html, s) != NULL, "report.html does not say: %s\n%.3000s", s, html);  \
    } while (0)

START_TEST(test_student_page_states_what_markdown_states)
{
    struct results r;
    graded(&r, "s1", "en");
    char *dir = unit_tmpdir("data"), *md, *html;
    render(&r, dir, "en", &md, &html);
    /* Not a grade yet, and why: the XX and the case not timed counted apart, and the grader
     * errors the score line counts (the page said "Score: 2 / 6" as a grade). */
    BOTH(md, html,
         "Not a grade yet: the grader failed on 2 cases (XX), not the submission, and 1 "
         "correct case could not be timed (the machine was busy)");
    BOTH(md, html, "grader errors: 2.");
    ck_assert_ptr_null(strstr(html, "Score: "));
    /* The grader's errors are not what cost points: they are not graded here. */
    BOTH(md, html, "Not graded here (2 points)");
    BOTH(md, html, "gpu, case n1000: grader error — " NO_GPU " (1 point)");
    const char *lost = strstr(html, "What cost points"), *ng = strstr(html, "Not graded here");
    ck_assert(lost && ng && lost < ng);
    ck_assert_ptr_null(memmem(lost, (size_t)(ng - lost), "grader error", 12));
    /* A hidden case once, its runs apart; never "2 hidden cases". */
    BOTH(md, html, "gpu: 1 hidden case: grader error (1 point)");
    BOTH(md, html,
         "Hidden cases: 1, each run on every variant of its exercise: 1 of 2 runs passed");
    /* Every element NaN: the largest error is NaN, and no English block says it again. */
    BOTH(md, html, "out 2000000 of 2000000 NaN, NaN");
    ck_assert_ptr_null(strstr(md, "Not equal to tolerance"));
    ck_assert_ptr_null(strstr(html, "Not equal to tolerance"));
    /* Not timed, and why, in the case's table and its details. */
    BOTH(md, html, "n4097 n=4097 passed, not timed");
    BOTH(md, html,
         "not timed: the machine was busy (its turn held by grader (pid 7)); grade "
         "again later");
    free(md);
    free(html);

    /* In Spanish: one language, one form of address. */
    render(&r, dir, "es", &md, &html);
    BOTH(md, html,
         "Todavía no es una nota: el corrector falló en 2 casos (XX), no la entrega, y "
         "1 caso correcto no se pudo medir");
    BOTH(md, html, "gpu, caso n1000: error del corrector");
    BOTH(md, html, "Casos ocultos: 1, cada uno en todas las variantes de su ejercicio");
    BOTH(md, html, "Laboratorio 97");
    for (const char *const *w = (const char *const[]){" cases ", " case ", "hidden", "Lab ",
                                                      "points", "not timed", "usted", NULL};
         *w; w++)
        ck_assert_msg(strstr(html, *w) == NULL, "English or usted in the Spanish page: %s", *w);
    finish(&r, dir, md, html);
}
END_TEST

/* graded()'s student as a check of their own, the cases skip() picks not run (with why, when
 * why is not NULL), then both reports rendered in English into *md and *html (under *dir). */
static void as_check(struct results *r, bool (*skip)(size_t v, const struct case_result *cr),
                     const char *why, char **dir, char **md, char **html)
{
    free(r->mode);
    r->mode = xstrdup("check");
    struct exercise_result *ex = &r->exercises[0];
    for (size_t v = 0; v < ex->n_variants; v++)
        for (size_t c = 0; c < ex->variants[v].n_cases; c++) {
            struct case_result *cr = &ex->variants[v].cases[c];
            if (!skip(v, cr))
                continue;
            cr->verdict = V_SKIPPED;
            cr->points = 0;
            cr->not_timed = NOT_TIMED_NO;
            if (why) {
                free(cr->message);
                cr->message = xstrdup(why);
            }
        }
    ex->variants[0].cases[1].not_timed = NOT_TIMED_NO;
    results_tally(r);
    *dir = unit_tmpdir("data");
    render(r, *dir, "en", md, html);
}

static bool gpu_slow_or_hidden(size_t v, const struct case_result *cr)
{
    return cr->hidden || v == 1 || cr->slow;
}

static bool hidden_only(size_t v, const struct case_result *cr)
{
    (void)v;
    return cr->hidden;
}

/* A student's own check without a GPU: the GPU cases, the slow and the hidden ones, and the
 * speed points, each a part of what was not graded here, adding up to it in both. */
START_TEST(test_check_not_graded_parts)
{
    struct results r;
    graded(&r, "s2", "en");
    r.hidden = r.full = false;
    struct exercise_result *ex = &r.exercises[0];
    ex->perf_max_points = 2;
    free(ex->perf_variant);
    ex->perf_variant = xstrdup("gpu");
    ex->variants[0].cases[2].slow = true; /* n2M */
    char *dir, *md, *html;
    as_check(&r, gpu_slow_or_hidden, NULL, &dir, &md, &html);
    BOTH(md, html, "Score: 2 / 8 (25%).");
    BOTH(md, html, "Not graded here (6 points)");
    BOTH(md, html, "1 GPU case not run here (1 point)");
    BOTH(md, html, "1 slow case not run (1 point)");
    BOTH(md, html, "1 hidden case, each on every variant of its exercise (2 runs) (2 points)");
    BOTH(md, html, "speed points of scale (2 points): measured on gpu, which did not run here");
    finish(&r, dir, md, html);
}
END_TEST

/* A kit's check withholds a hidden case (run with --hidden, not in the kit): not run for a
 * reason of its own on both variants, it is still one case (issue 47). */
START_TEST(test_withheld_hidden_case_once)
{
    struct results r;
    graded(&r, "s3", "en");
    free(r.machine.gpu_status);
    r.machine.gpu_status = xstrdup("available");
    char *dir, *md, *html;
    as_check(&r, hidden_only, "hidden case, not in this kit", &dir, &md, &html);
    BOTH(md, html,
         "1 case not run, each on every variant of its exercise (2 runs) (2 points): "
         "hidden case, not in this kit");
    finish(&r, dir, md, html);
}
END_TEST

/* A case whose every measurement shared its cores: both pages give the other processes' load
 * and name the busiest of them, in the page's language. */
START_TEST(test_shared_cores_name_the_busiest)
{
    struct results r;
    graded(&r, "s4", "en");
    struct case_result *nt = &r.exercises[0].variants[0].cases[1];
    nt->not_timed = NOT_TIMED_SHARED;
    free(nt->not_timed_detail);
    nt->not_timed_detail = xstrdup("nvcc");
    nt->not_timed_cpus = 1.7;
    nt->not_timed_cpu_pid = 4312;
    char *dir = unit_tmpdir("data"), *md, *html;
    render(&r, dir, "en", &md, &html);
    BOTH(md, html,
         "not timed: other processes took 1.7 of its cores each time it was measured (the "
         "busiest: nvcc, pid 4312); grade again later");
    free(md);
    free(html);
    render(&r, dir, "es", &md, &html);
    BOTH(md, html,
         "sin medir: otros procesos ocuparon 1.7 de sus núcleos cada vez que se midió (el que "
         "más: nvcc, pid 4312); vuelve a corregir más tarde");
    finish(&r, dir, md, html);
}
END_TEST

/* Cores taken by no process: a hypervisor's steal time, or the kernel's interrupts, said as such
 * rather than as "other processes", on both pages and in both languages. */
START_TEST(test_shared_cores_by_the_machine_itself)
{
    struct results r;
    graded(&r, "s4", "en");
    struct case_result *nt = &r.exercises[0].variants[0].cases[1];
    nt->not_timed = NOT_TIMED_SHARED;
    nt->not_timed_cpus = 1.4;
    nt->not_timed_steal_cpus = 1.1;
    char *dir = unit_tmpdir("data"), *md, *html;
    render(&r, dir, "en", &md, &html);
    BOTH(md, html,
         "not timed: the machine's hypervisor took 1.1 of its cores (steal time) each time it was "
         "measured; grade again later");
    free(md);
    free(html);
    render(&r, dir, "es", &md, &html);
    BOTH(md, html,
         "sin medir: el hipervisor de la máquina ocupó 1.1 de sus núcleos (tiempo robado) cada vez "
         "que se midió; vuelve a corregir más tarde");
    free(md);
    free(html);
    nt->not_timed_steal_cpus = 0.2;
    nt->not_timed_irq_cpus = 0.9;
    render(&r, dir, "en", &md, &html);
    BOTH(md, html,
         "not timed: the kernel's interrupt handling took 0.9 of its cores each time it was "
         "measured; grade again later");
    free(md);
    free(html);
    nt->not_timed_irq_cpus = 0.3;
    render(&r, dir, "en", &md, &html);
    BOTH(md, html,
         "not timed: other processes took 1.4 of its cores each time it was measured; grade again "
         "later");
    finish(&r, dir, md, html);
}
END_TEST

/* The class: s1 above (no grade yet), s2 complete with a compile error. */
START_TEST(test_class_page_states_what_summary_states)
{
    struct results a, b;
    graded(&a, "s1", "en");
    graded(&b, "s2", "en");
    struct variant_result *gpu = &b.exercises[0].variants[1], *cpu = &b.exercises[0].variants[0];
    for (size_t c = 0; c < gpu->n_cases; c++) {
        gpu->cases[c].verdict = V_PASS;
        gpu->cases[c].points = 1;
        gpu->cases[c].speedup_ref = 2.3456;
    }
    cpu->cases[1].not_timed = NOT_TIMED_NO;
    cpu->built = false;
    for (size_t c = 0; c < cpu->n_cases; c++) {
        cpu->cases[c].verdict = V_COMPILE;
        cpu->cases[c].points = 0;
        cpu->cases[c].n_mismatches = 0;
    }
    results_tally(&b);
    const struct results *all[] = {&a, &b};
    char *dir = unit_tmpdir("data");
    struct report_opts o;
    struct report_outcome out;
    struct error err;
    report_opts_init(&o);
    o.templates_dir = TEMPLATES;
    ck_assert_msg(report_summary(all, 2, dir, &o, &out, &err) == 0, "%s", err.msg);
    char *m = unit_slurp(out.md_path), *h = unit_slurp(out.html_path);
    char *md = md_text(m), *html = page_text(h);
    /* No grade yet, and why: the same sentence, the same counts (XX apart from not timed). */
    BOTH(md, html, "No grade yet for 1 of 2 students");
    BOTH(md, html, "grader-error 1 2 1 the grader failed: " NO_GPU);
    BOTH(md, html, "Of the complete grades only: 1 of 2 students.");
    /* The row: no grade yet, never 2 / 6 as a grade; the compile error in s2's row. */
    ck_assert_ptr_nonnull(strstr(html, "s1 s1 no grade yet (grader-error)"));
    ck_assert_ptr_nonnull(strstr(h, "<span class=\"badge v-CE\">CE ×4</span>"));
    /* Every status a student has, for the filter: s1 failed, had grader errors and a case not
     * timed; s2 failed. */
    ck_assert_ptr_nonnull(strstr(h, "data-tags=\"failed grader not-timed\""));
    ck_assert_ptr_nonnull(strstr(h, "data-tags=\"failed\""));
    /* Who failed a case: s1's NaN case, s2's compile error, each linked to their page. */
    ck_assert_ptr_nonnull(strstr(h, "<td class=\"who\"><a href=\"s1/report.html\">s1</a>, <a "
                                    "href=\"s2/report.html\">s2</a></td>"));
    /* The figure's tooltips: whose, and the value as the tables round it. */
    ck_assert_ptr_nonnull(strstr(h, "<title>s2, scale/gpu: 2.35x</title>"));
    /* No similarity check: no link to its evidence. */
    ck_assert_ptr_null(strstr(h, "similarity.html#"));
    free(m);
    free(h);
    free(md);
    free(html);
    /* With one, each row links to the evidence about that student. */
    char *sim = path_join(dir, "similarity.json");
    const char *json = "{\"pairs\":[{\"a\":\"s1\",\"b\":\"s2\",\"score\":1,\"tokens\":9}]}";
    ck_assert_int_eq(write_file_atomic(sim, json, strlen(json), NULL), 0);
    ck_assert_int_eq(report_summary(all, 2, dir, &o, &out, &err), 0);
    h = unit_slurp(out.html_path);
    ck_assert_ptr_nonnull(strstr(h, "href=\"similarity.html#sub-s1\">similarity ×1</a>"));
    ck_assert_ptr_nonnull(strstr(h, "href=\"similarity.html#sub-s2\">similarity ×1</a>"));
    free(h);
    free(sim);
    remove_tree(dir, NULL);
    free(dir);
    results_release(&a);
    results_release(&b);
}
END_TEST

/* Every export says the same counts: XX apart from the cases not timed, and a hidden case once
 * however many variants run it. */
START_TEST(test_exports_count_as_the_reports)
{
    struct results r;
    graded(&r, "s1", "en");
    struct strbuf sb = STRBUF_INIT;
    grade_gap_sentence(&r, NULL, &sb);
    ck_assert_msg(strstr(strbuf_str(&sb), "the grader failed on 2 cases, not your code (" NO_GPU
                                          "), and 1 correct case could not be timed"),
                  "%s", strbuf_str(&sb));
    strbuf_reset(&sb);
    struct hidden_tally h;
    hidden_tally_of(&r.exercises[0], &h);
    hidden_summary(&h, NULL, &sb);
    ck_assert_str_eq(strbuf_str(&sb), "1 hidden case, run on every variant: 1 of 2 runs passed. "
                                      "1 grader error (not counted against you).");
    strbuf_release(&sb);
    results_release(&r);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("report_data");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_student_page_states_what_markdown_states);
    tcase_add_test(tc, test_check_not_graded_parts);
    tcase_add_test(tc, test_withheld_hidden_case_once);
    tcase_add_test(tc, test_shared_cores_name_the_busiest);
    tcase_add_test(tc, test_shared_cores_by_the_machine_itself);
    tcase_add_test(tc, test_class_page_states_what_summary_states);
    tcase_add_test(tc, test_exports_count_as_the_reports);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
