/*
 * The HTML pages (report/html.h, svg.h): escaping, links, the figures' axes and markup, the
 * compiler's first error, and the two pages written from results built here: a hostile
 * submission's text stays text, hidden cases stay counts on the student's page and show on
 * the class's, --no-html writes nothing, a broken template keeps the Markdown, and the
 * class's similarity and mutation files are read (or noted when broken). The pages in a real
 * browser: tests/browser/.
 */
#include "base/alloc.h"
#include "base/escape.h"
#include "base/fs.h"
#include "base/strbuf.h"
#include "grade/results.h"
#include "report/html.h"
#include "report/html_parts.h"
#include "report/report.h"
#include "report/sections.h"
#include "report/svg.h"
#include "unit.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TEMPLATES "templates"
#define HOSTILE "<img src=x onerror=alert(1)>\"'&"

static struct case_result *add_case(struct variant_result *vr, const char *id, long n,
                                    enum verdict v, bool hidden, const char *message)
{
    vr->cases = xrealloc(vr->cases, (vr->n_cases + 1) * sizeof(*vr->cases));
    struct case_result *cr = &vr->cases[vr->n_cases++];
    memset(cr, 0, sizeof(*cr));
    cr->case_id = xstrdup(id);
    cr->sizes = xstrfmt("n=%ld", n);
    case_result_add_param(cr, "n", n);
    cr->verdict = v;
    cr->hidden = hidden;
    cr->message = xstrdup(message);
    cr->max_points = 1;
    cr->points = v == V_PASS;
    if (v == V_PASS) {
        cr->time = (struct timing){.valid = true, .samples = 9, .median_ms = 0.5, .min_ms = 0.4};
        cr->ref_time = cr->time;
        cr->speedup_ref = 1.25;
        cr->speedup_lo = 1.1;
        cr->speedup_hi = 1.4;
        cr->pairs = 30;
        cr->gflops = 2;
        cr->gbps = 12;
    }
    return cr;
}

/* One student: exercise "ex<b>" with a variant that passes c1, fails c2 with markup in its
 * message, and fails the hidden case "secret7" (n=777). */
static void fixture(struct results *r, const char *id, const char *name)
{
    results_init(r);
    r->lab_id = xstrdup("lab9");
    r->lab_number = 9;
    r->lab_title = xstrdup("Test <lab>");
    r->course = xstrdup("Course");
    r->lang = xstrdup("en");
    r->student_id = xstrdup(id);
    r->student_name = xstrdup(name);
    r->grader_version = xstrdup("0.1.0");
    r->date = xstrdup("2026-11-28T10:00:00+01:00");
    r->mode = xstrdup("grade");
    r->hidden = r->full = true;
    r->machine.gpu_status = xstrdup("no GPU");
    r->exercises = xcalloc(1, sizeof(*r->exercises));
    r->n_exercises = 1;
    struct exercise_result *ex = &r->exercises[0];
    ex->exercise_id = xstrdup("ex<b>");
    ex->title = xstrdup("Title </h2><script>alert(2)</script>");
    ex->variants = xcalloc(1, sizeof(*ex->variants));
    ex->n_variants = 1;
    struct variant_result *vr = &ex->variants[0];
    vr->variant_id = xstrdup("cpu");
    vr->function = xstrdup("f");
    vr->target = xstrdup("cpu");
    vr->built = true;
    vr->build_log = xstrdup("warning: <blink>");
    add_case(vr, "c1", 1000, V_PASS, false, "passed");
    add_case(vr, "c2", 2000, V_WRONG, false, "</td></tr><script>alert(3)</script>");
    add_case(vr, "secret7", 777, V_WRONG, true, "hidden secret message");
    results_tally(r);
}

START_TEST(test_escape_and_links)
{
    struct strbuf sb = STRBUF_INIT;
    esc_html(&sb, "a<b>&\"c'\x01");
    ck_assert_str_eq(strbuf_str(&sb), "a&lt;b&gt;&amp;&quot;c&#39;");
    strbuf_reset(&sb);
    esc_html(&sb, NULL);
    ck_assert_str_eq(strbuf_str(&sb), "");
    html_url_segment(&sb, "../a b:c?d#é");
    ck_assert_str_eq(strbuf_str(&sb), "..%2Fa%20b%3Ac%3Fd%23%C3%A9");
    strbuf_release(&sb);
}
END_TEST

START_TEST(test_first_error)
{
    char *e = first_compiler_error("$ compile dot.c\nsrc/dot.c: In function 'f':\n"
                                   "src/dot.c:7:5: error: expected ';'\n    7 |  for (;;)\n"
                                   "      |  ^~~\nsrc/dot.c:9:1: error: second\n");
    ck_assert_str_eq(e, "src/dot.c:7:5: error: expected ';'\n    7 |  for (;;)\n      |  ^~~");
    free(e);
    e = first_compiler_error("k.cu(12): error: identifier \"x\" is undefined\n");
    ck_assert_str_eq(e, "k.cu(12): error: identifier \"x\" is undefined");
    free(e);
    e = first_compiler_error("main.o: undefined reference to `saxpy_cpu'\ncollect2: ld returned 1");
    ck_assert_str_eq(e, "main.o: undefined reference to `saxpy_cpu'");
    free(e);
    ck_assert_ptr_null(first_compiler_error("warning: unused variable\n"));
    ck_assert_ptr_null(first_compiler_error(NULL));
}
END_TEST

START_TEST(test_ticks)
{
    double t[24];
    size_t n = svg_ticks(0, 10, false, false, t, 24);
    ck_assert_uint_eq(n, 6);
    ck_assert(t[0] == 0 && t[1] == 2 && t[5] == 10);
    n = svg_ticks(0, 3, false, true, t, 24);
    ck_assert_uint_eq(n, 4); /* counts: whole numbers only */
    n = svg_ticks(-3, 3, true, false, t, 24);
    ck_assert_uint_eq(n, 7);
    ck_assert(fabs(t[0] - 1e-3) < 1e-12 && fabs(t[6] - 1e3) < 1e-9);
    /* Within a decade on a log axis: round values, not one power of ten. */
    n = svg_ticks(log10(0.8), log10(1.6), true, false, t, 24);
    ck_assert_uint_ge(n, 3);
    ck_assert_uint_eq(svg_ticks(1, 1, false, false, t, 24), 0);
}
END_TEST

START_TEST(test_svg_escapes_and_skips_empty)
{
    struct svg_fig f;
    struct strbuf sb = STRBUF_INIT;
    svg_fig_init(&f);
    svg_fig_set_text(&f, "t<script>", "x&y", "y\"");
    svg_render(&f, &sb);
    ck_assert_uint_eq(sb.len, 0); /* no point: no figure */
    f.logy = true;
    struct svg_series *s = svg_add_series(&f, "<b>series</b>", SVG_POINTS, 0);
    svg_add_point(s, 1, -1, NAN, NAN, NULL); /* not on a log axis */
    svg_render(&f, &sb);
    ck_assert_uint_eq(sb.len, 0);
    svg_add_point(s, 2, 3, 2, 4, "c1 </title><script>");
    svg_add_cat(&f, "<i>cat</i>");
    svg_add_marker(&f, 2, "m<");
    svg_render(&f, &sb);
    const char *svg = strbuf_str(&sb);
    ck_assert_ptr_nonnull(strstr(svg, "<svg class=\"plot\""));
    ck_assert_ptr_nonnull(strstr(svg, "role=\"img\""));
    ck_assert_ptr_nonnull(strstr(svg, "t&lt;script&gt;"));
    ck_assert_ptr_nonnull(strstr(svg, "&lt;b&gt;series&lt;/b&gt;"));
    ck_assert_ptr_nonnull(strstr(svg, "c1 &lt;/title&gt;&lt;script&gt;"));
    ck_assert_ptr_nonnull(strstr(svg, "class=\"whisker\""));
    ck_assert_ptr_null(strstr(svg, "<script"));
    ck_assert_ptr_null(strstr(svg, "<b>"));
    ck_assert_ptr_null(strstr(svg, "<i>"));
    strbuf_release(&sb);
    svg_fig_release(&f);
}
END_TEST

static int write_pages(const struct results *r, const char *dir, bool student_view, bool html,
                       struct report_outcome *out, struct error *err)
{
    struct report_opts o;
    report_opts_init(&o);
    o.templates_dir = TEMPLATES;
    o.student_view = student_view;
    o.html = html;
    return report_student(r, dir, &o, out, err);
}

START_TEST(test_student_page_hostile_and_hidden)
{
    struct results r;
    struct report_outcome out;
    struct error err;
    fixture(&r, "s1", HOSTILE);
    char *dir = unit_tmpdir("html");
    ck_assert_msg(write_pages(&r, dir, true, true, &out, &err) == 0, "%s", err.msg);
    ck_assert(out.md_written && out.html_written);
    char *html = unit_slurp(out.html_path);
    ck_assert_ptr_nonnull(strstr(html, "&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;"));
    ck_assert_ptr_null(strstr(html, "<img"));
    ck_assert_ptr_null(strstr(html, "<script"));
    ck_assert_ptr_null(strstr(html, "<blink"));
    ck_assert_ptr_nonnull(strstr(html, "&lt;/td&gt;&lt;/tr&gt;&lt;script&gt;alert(3)"));
    /* The hidden case: a count, never its id, size or message. */
    ck_assert_ptr_null(strstr(html, "secret7"));
    ck_assert_ptr_null(strstr(html, "777"));
    ck_assert_ptr_null(strstr(html, "hidden secret"));
    ck_assert_ptr_nonnull(strstr(html, "1 hidden case failed"));
    /* Self-contained: no script, nothing fetched, the policy says so. */
    ck_assert_ptr_nonnull(strstr(html, "default-src &#39;none&#39;"));
    ck_assert_ptr_nonnull(strstr(html, "script-src &#39;none&#39;"));
    ck_assert_ptr_null(strstr(html, "http://"));
    ck_assert_ptr_null(strstr(html, "https://"));
    ck_assert_ptr_nonnull(strstr(html, "<svg class=\"plot\""));
    free(html);
    /* The instructor's view of the same student shows the hidden case. */
    ck_assert_int_eq(write_pages(&r, dir, false, true, &out, &err), 0);
    html = unit_slurp(out.html_path);
    ck_assert_ptr_nonnull(strstr(html, "secret7"));
    free(html);
    /* --no-html: no page (and none left from before). */
    char *page = path_join(dir, "report.html");
    unlink(page);
    ck_assert_int_eq(write_pages(&r, dir, true, false, &out, &err), 0);
    ck_assert(out.md_written && !out.html_written && !file_exists(page));
    free(page);
    remove_tree(dir, NULL);
    free(dir);
    results_release(&r);
}
END_TEST

/* The page prints every point as report.md does (report/points.h): three passed cases worth a
 * third of a point each print 0.34, 0.33 and 0.33 in both, adding up to the exercise's 1,
 * never 0.33 three times on one of them. */
START_TEST(test_page_points_as_markdown)
{
    struct results r;
    struct report_outcome out;
    struct error err;
    fixture(&r, "s3", "Third");
    struct variant_result *vr = &r.exercises[0].variants[0];
    for (size_t c = 0; c < vr->n_cases; c++) {
        vr->cases[c].verdict = V_PASS;
        free(vr->cases[c].message);
        vr->cases[c].message = xstrdup("passed");
        vr->cases[c].hidden = false;
        vr->cases[c].max_points = vr->cases[c].points = 1.0 / 3;
    }
    results_tally(&r);
    char *dir = unit_tmpdir("html");
    ck_assert_msg(write_pages(&r, dir, false, true, &out, &err) == 0, "%s", err.msg);
    char *html = unit_slurp(out.html_path), *md = unit_slurp(out.md_path);
    ck_assert_ptr_nonnull(strstr(md, "| 0.34 / 0.34 |"));
    ck_assert_ptr_nonnull(strstr(html, "<td class=\"num\">0.34 / 0.34</td>"));
    const char *p = html;
    int thirds = 0;
    while ((p = strstr(p, "<td class=\"num\">0.33 / 0.33</td>")) != NULL) {
        thirds++;
        p++;
    }
    ck_assert_int_eq(thirds, 2);
    free(html);
    free(md);
    remove_tree(dir, NULL);
    free(dir);
    results_release(&r);
}
END_TEST

START_TEST(test_broken_template_keeps_markdown)
{
    struct results r;
    struct report_outcome out;
    struct error err;
    fixture(&r, "s1", "Ann");
    char *dir = unit_tmpdir("html"), *t = path_join(dir, "templates");
    char *cmd = xstrfmt("cp -r " TEMPLATES " %s", t);
    ck_assert_int_eq(system(cmd), 0);
    char *tpl = path_join(t, "en/report.html");
    const char *bad = "<p>{{studnet_name}}</p>\n";
    ck_assert_int_eq(write_file_atomic(tpl, bad, strlen(bad), NULL), 0);
    struct report_opts o;
    report_opts_init(&o);
    o.templates_dir = t;
    char *outdir = path_join(dir, "out");
    ck_assert_int_eq(report_student(&r, outdir, &o, &out, &err), -1);
    ck_assert(out.md_written && !out.html_written);
    ck_assert_ptr_nonnull(strstr(err.msg, "studnet_name"));
    ck_assert_str_eq(err.file, tpl);
    /* Said once where the page should be, with the file and the reason. */
    ck_assert_ptr_nonnull(strstr(out.html_note, "studnet_name"));
    ck_assert_ptr_nonnull(strstr(out.html_note, "report.html"));
    char *page = path_join(outdir, "report.html");
    ck_assert(!file_exists(page));
    free(page);
    free(outdir);
    free(tpl);
    free(cmd);
    free(t);
    remove_tree(dir, NULL);
    free(dir);
    results_release(&r);
}
END_TEST

static void write_text(const char *dir, const char *name, const char *text)
{
    char *p = path_join(dir, name);
    ck_assert_int_eq(write_file_atomic(p, text, strlen(text), NULL), 0);
    free(p);
}

START_TEST(test_class_page)
{
    struct results a, b;
    fixture(&a, "a b/../x", HOSTILE);
    fixture(&b, "s2", "Bob");
    const struct results *all[] = {&a, &b};
    char *dir = unit_tmpdir("html");
    write_text(
        dir, "similarity.json",
        "{\"threshold\":0.8,\"new\":1,\"groups\":[{\"kind\":\"shared\",\"size\":2,"
        "\"shared_tokens\":9,\"members\":[\"s2\",\"<b>x</b>\"],\"fragment\":\"</pre><script>\"},"
        "{\"kind\":\"pairs\",\"size\":3,\"similarity_min\":0.81,\"similarity_max\":0.93,"
        "\"members\":[\"p1\",\"p2\",\"p3\"]}],\"pairs\":[{\"a\":\"s2\",\"b\":\"a b/../x\","
        "\"similarity\":0.9,\"a_shared_tokens\":40}]}");
    char *mdir = path_join(dir, "mutate");
    ck_assert_int_eq(mkdir_p(mdir, NULL), 0);
    write_text(mdir, "mutants.json",
               "{\"killed\":3,\"survived\":1,\"mutants\":[{\"id\":\"m1\","
               "\"operator\":\"<op>\",\"file\":\"a.c\",\"line\":4,"
               "\"status\":\"survived\",\"reaches\":[\"ex/cpu\"]}]}");
    struct report_opts o;
    struct report_outcome out;
    struct error err;
    report_opts_init(&o);
    o.templates_dir = TEMPLATES;
    ck_assert_msg(report_summary(all, 2, dir, &o, &out, &err) == 0, "%s", err.msg);
    ck_assert(out.html_written);
    char *html = unit_slurp(out.html_path);
    ck_assert_ptr_null(strstr(html, "<img"));
    ck_assert_ptr_null(strstr(html, "<b>"));
    ck_assert_ptr_null(strstr(html, "<op>"));
    ck_assert_ptr_nonnull(strstr(html, "href=\"a%20b%2F..%2Fx/report.html\""));
    ck_assert_ptr_nonnull(strstr(html, "secret7")); /* the instructor's page */
    ck_assert_ptr_nonnull(strstr(html, "Mutation score: <strong>75.0%</strong>"));
    ck_assert_ptr_nonnull(strstr(html, "&lt;/pre&gt;&lt;script&gt;"));
    /* similarity.json's own keys: a group of shared code by its tokens, a group of pairs by the
     * range of their similarity, a pair by its score. */
    ck_assert_ptr_nonnull(strstr(html, "2 submissions share 9 tokens of code"));
    ck_assert_ptr_nonnull(strstr(html, "3 submissions joined by pairs of 81% to 93% similarity"));
    ck_assert_ptr_nonnull(strstr(html, "<td class=\"num\">90%</td><td class=\"num\">40</td>"));
    /* s2: one group, one pair; the row links to the evidence about s2. */
    ck_assert_ptr_nonnull(strstr(html, "href=\"similarity.html#sub-s2\">similarity ×2<"));
    /* The script is there, allowed by its hash alone. */
    ck_assert_ptr_nonnull(strstr(html, "script-src &#39;sha256-"));
    size_t scripts = 0;
    for (const char *p = html; (p = strstr(p, "<script")); p++)
        scripts++;
    ck_assert_uint_eq(scripts, 1);
    free(html);
    /* A broken similarity.json is a note on the page, never a failed page. */
    write_text(dir, "similarity.json", "{\"groups\": [");
    ck_assert_int_eq(report_summary(all, 2, dir, &o, &out, &err), 0);
    html = unit_slurp(out.html_path);
    ck_assert_ptr_nonnull(strstr(html, "similarity.json: "));
    ck_assert_ptr_null(strstr(html, "id=\"similarity\""));
    free(html);
    free(mdir);
    remove_tree(dir, NULL);
    free(dir);
    results_release(&a);
    results_release(&b);
}
END_TEST

/* A grade that is not complete (a case not timed) is no grade yet, as in gradebook.csv: its row
 * says so, and the class's figures leave it out. */
START_TEST(test_class_page_incomplete_grade)
{
    struct results a, b;
    fixture(&a, "s1", "Ann");
    fixture(&b, "s2", "Bob");
    struct case_result *c2 = &b.exercises[0].variants[0].cases[1];
    c2->verdict = V_PASS;
    c2->points = 1;
    c2->not_timed = NOT_TIMED_BUSY;
    results_tally(&b);
    ck_assert(b.score > a.score && b.n_not_timed == 1);
    const struct results *all[] = {&a, &b};
    char *dir = unit_tmpdir("html");
    struct report_opts o;
    struct report_outcome out;
    struct error err;
    report_opts_init(&o);
    o.templates_dir = TEMPLATES;
    ck_assert_msg(report_summary(all, 2, dir, &o, &out, &err) == 0, "%s", err.msg);
    char *html = unit_slurp(out.html_path);
    char *mean = xstrfmt("<tbody><tr><td class=\"num\">%g</td>", a.score);
    ck_assert_ptr_nonnull(strstr(html, mean));
    ck_assert_ptr_nonnull(strstr(html, "Of the complete grades only: 1 of 2 students."));
    ck_assert_ptr_nonnull(strstr(html, "<span class=\"badge st-not-timed\">not timed</span>"));
    ck_assert_ptr_nonnull(strstr(html, "data-tags=\"failed not-timed\""));
    ck_assert_ptr_nonnull(strstr(html, "<strong>no grade yet</strong> (not-timed)"));
    free(mean);
    free(html);
    remove_tree(dir, NULL);
    free(dir);
    results_release(&a);
    results_release(&b);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("html");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_escape_and_links);
    tcase_add_test(tc, test_first_error);
    tcase_add_test(tc, test_ticks);
    tcase_add_test(tc, test_svg_escapes_and_skips_empty);
    tcase_add_test(tc, test_student_page_hostile_and_hidden);
    tcase_add_test(tc, test_page_points_as_markdown);
    tcase_add_test(tc, test_broken_template_keeps_markdown);
    tcase_add_test(tc, test_class_page);
    tcase_add_test(tc, test_class_page_incomplete_grade);
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
