/* export: gradebook CSV (plain and Canvas), Gradescope JSON and JUnit XML, byte for byte. */
#include "report/export.h"
#include "base/json.h"
#include "grade/results.h"
#include "base/strbuf.h"
#include "base/alloc.h"
#include "base/fs.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- building results by hand ---- */

static struct exercise_result *add_exercise(struct results *r, const char *id, const char *title)
{
    r->exercises = xrealloc(r->exercises, (r->n_exercises + 1) * sizeof(*r->exercises));
    struct exercise_result *e = &r->exercises[r->n_exercises++];
    memset(e, 0, sizeof(*e));
    e->exercise_id = xstrdup(id);
    e->title = xstrdup(title);
    return e;
}

static struct variant_result *add_variant(struct exercise_result *e, const char *id,
                                          const char *target)
{
    e->variants = xrealloc(e->variants, (e->n_variants + 1) * sizeof(*e->variants));
    struct variant_result *v = &e->variants[e->n_variants++];
    memset(v, 0, sizeof(*v));
    v->variant_id = xstrdup(id);
    v->title = xstrdup(id);
    v->function = xstrdup("f");
    v->target = xstrdup(target);
    v->memory = xstrdup("host");
    v->built = true;
    return v;
}

static struct case_result *add_case(struct variant_result *v, const char *id, enum verdict verdict,
                                    double points, double max_points, const char *message,
                                    const char *detail, double wall_s)
{
    v->cases = xrealloc(v->cases, (v->n_cases + 1) * sizeof(*v->cases));
    struct case_result *c = &v->cases[v->n_cases++];
    memset(c, 0, sizeof(*c));
    c->case_id = xstrdup(id);
    c->sizes = xstrdup("n=16");
    c->verdict = verdict;
    c->points = points;
    c->max_points = max_points;
    c->message = message ? xstrdup(message) : NULL;
    c->detail = detail ? xstrdup(detail) : NULL;
    c->wall_s = wall_s;
    return c;
}

static void add_finding(struct case_result *c, const char *text)
{
    c->findings = xrealloc(c->findings, (c->n_findings + 1) * sizeof(*c->findings));
    c->findings[c->n_findings++] = xstrdup(text);
}

static struct results *new_results(const char *id, const char *name)
{
    struct results *r = xmalloc(sizeof(*r));
    results_init(r);
    r->lab_id = xstrdup("lab6");
    r->lab_number = 6;
    r->lab_title = xstrdup("Lab 6: Matrices");
    r->student_id = xstrdup(id);
    r->student_name = xstrdup(name);
    r->mode = xstrdup("grade");
    return r;
}

/* points and max include the speed points, as results_tally counts them. */
static void set_exercise(struct results *r, const char *id, double points, double max, double perf,
                         double perf_max)
{
    struct exercise_result *e = add_exercise(r, id, id);
    e->points = points;
    e->max_points = max;
    e->perf_points = perf;
    e->perf_max_points = perf_max;
}

/* Three students, given out of order, with names a spreadsheet or CSV parser would trip on. */
static void make_class(struct results *all[3])
{
    all[0] = new_results("s002", "N\xC3\xBA\xC3\xB1"
                                 "ez, Mar\xC3\xAD"
                                 "a \"Mia\"");
    set_exercise(all[0], "matmul", 6, 8, 0, 0);
    set_exercise(all[0], "reduce", 6.75, 8, 1.25, 2);
    all[0]->score = 12.75;
    all[0]->max_score = 16;

    all[1] = new_results("s001", "=HYPERLINK(\"http://x\")");
    set_exercise(all[1], "matmul", 4, 8, 0, 0);
    set_exercise(all[1], "reduce", 3.5, 8, 0, 2);
    all[1]->score = 7.5;
    all[1]->max_score = 16;
    all[1]->n_grader_errors = 1;

    all[2] = new_results("s003", "Line\nBreak \xC3\x98");
    set_exercise(all[2], "matmul", 8, 8, 0, 0);
    all[2]->score = 8;
    all[2]->max_score = 16;
}

static void free_class(struct results *all[3])
{
    for (int i = 0; i < 3; i++)
        results_free(all[i]);
}

static char *tmp_dir(void)
{
    char *d = xstrdup("/tmp/lg-export-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(d));
    return d;
}

START_TEST(test_gradebook_csv)
{
    struct results *all[3];
    struct strbuf sb = STRBUF_INIT, file = STRBUF_INIT;
    make_class(all);
    export_gradebook_csv_text((const struct results *const *)all, 3, &sb);
    ck_assert_str_eq(sb.buf, "student_id,name,matmul,reduce,total,max,status\r\n"
                             "s001,\"'=HYPERLINK(\"\"http://x\"\")\",4,3.5,7.5,16,grader-error\r\n"
                             "s002,\"N\xC3\xBA\xC3\xB1"
                             "ez, Mar\xC3\xAD"
                             "a \"\"Mia\"\"\",6,6.75,12.75,16,ok\r\n"
                             "s003,\"Line\nBreak \xC3\x98\",8,,8,16,incomplete\r\n");

    char *dir = tmp_dir();
    char *path = path_join(dir, "gradebook.csv");
    ck_assert_int_eq(export_gradebook_csv((const struct results *const *)all, 3, path, NULL), 0);
    ck_assert_int_eq(read_file(path, &file, NULL), 0);
    ck_assert_str_eq(file.buf, sb.buf);
    /* No BOM by default: Moodle would read it as part of the first header. */
    ck_assert_int_ne((unsigned char)file.buf[0], 0xEF);
    struct error err;
    ck_assert_int_eq(
        export_gradebook_csv((const struct results *const *)all, 3, "/nonexistent/x.csv", &err),
        -1);
    ck_assert_int_eq(remove_tree(dir, NULL), 0);
    free(path);
    free(dir);
    strbuf_release(&file);
    strbuf_release(&sb);
    free_class(all);
}
END_TEST

START_TEST(test_gradebook_formula_prefixes_and_numbers)
{
    const char *firsts[] = {"+1", "-2", "@SUM(A1)", "\tx", "\rx"};
    const char *expect[] = {"'+1", "'-2", "'@SUM(A1)", "'\tx", "\"'\rx\""};
    for (size_t i = 0; i < 5; i++) {
        struct results *r = new_results("a", firsts[i]);
        const struct results *one[] = {r};
        struct strbuf sb = STRBUF_INIT;
        r->score = 1.0 / 3;
        r->max_score = 0.999;
        export_gradebook_csv_text(one, 1, &sb);
        char *want = xstrfmt("student_id,name,total,max,status\r\na,%s,0.33,1,ok\r\n", expect[i]);
        ck_assert_str_eq(sb.buf, want);
        free(want);
        strbuf_release(&sb);
        results_free(r);
    }
    /* Invalid UTF-8 becomes U+FFFD; an empty class is just the header. */
    struct results *r = new_results("b", "x\xFFy");
    const struct results *one[] = {r};
    struct strbuf sb = STRBUF_INIT;
    export_gradebook_csv_text(one, 1, &sb);
    ck_assert_str_eq(sb.buf, "student_id,name,total,max,status\r\nb,x\xEF\xBF\xBDy,0,0,ok\r\n");
    strbuf_reset(&sb);
    export_gradebook_csv_text(one, 0, &sb);
    ck_assert_str_eq(sb.buf, "student_id,name,total,max,status\r\n");
    strbuf_release(&sb);
    results_free(r);
}
END_TEST

START_TEST(test_canvas_csv)
{
    struct results *all[3];
    struct strbuf sb = STRBUF_INIT;
    make_class(all);
    export_gradebook_canvas_csv_text((const struct results *const *)all, 3,
                                     "Lab 6, matrices (123456)", &sb);
    ck_assert_str_eq(sb.buf,
                     "Student,ID,SIS User ID,SIS Login ID,Section,\"Lab 6, matrices (123456)\"\r\n"
                     "\"'=HYPERLINK(\"\"http://x\"\")\",s001,,,,7.5\r\n"
                     "\"N\xC3\xBA\xC3\xB1"
                     "ez, Mar\xC3\xAD"
                     "a \"\"Mia\"\"\",s002,,,,12.75\r\n"
                     "\"Line\nBreak \xC3\x98\",s003,,,,8\r\n");
    strbuf_reset(&sb);
    export_gradebook_canvas_csv_text((const struct results *const *)all, 1, NULL, &sb);
    ck_assert_str_eq(sb.buf, "Student,ID,SIS User ID,SIS Login ID,Section,Lab 6: Matrices\r\n"
                             "\"N\xC3\xBA\xC3\xB1"
                             "ez, Mar\xC3\xAD"
                             "a \"\"Mia\"\"\",s002,,,,12.75\r\n");

    char *dir = tmp_dir();
    char *path = path_join(dir, "canvas.csv");
    struct strbuf file = STRBUF_INIT;
    ck_assert_int_eq(
        export_gradebook_canvas_csv((const struct results *const *)all, 1, NULL, path, NULL), 0);
    ck_assert_int_eq(read_file(path, &file, NULL), 0);
    ck_assert_str_eq(file.buf, sb.buf);
    ck_assert_int_eq(remove_tree(dir, NULL), 0);
    free(path);
    free(dir);
    strbuf_release(&file);
    strbuf_release(&sb);
    free_class(all);
}
END_TEST

/* One student with a pass, a failure with detail, a hidden failure, a skipped GPU case,
 * a grader error and speed points. */
static struct results *make_student(void)
{
    struct results *r = new_results("s002", "Mar\xC3\xAD"
                                            "a <N\xC3\xBA\xC3\xB1"
                                            "ez> & 'co'");
    struct exercise_result *e = add_exercise(r, "matmul", "Matrix multiply");
    struct variant_result *cpu = add_variant(e, "cpu", "cpu");
    struct case_result *c = add_case(cpu, "small", V_PASS, 2, 2, "agrees", NULL, 0.5);
    c->time.valid = true;
    c->time.samples = 9;
    c->time.median_ms = 1.25;
    add_finding(c, "performance: 0.90x the reference's time (best quartiles) earns 100% of the "
                   "speed points");
    add_case(cpu, "big", V_WRONG, 0, 2, "3 of 16 values differ",
             "C: 3 of 16 differ\nfirst at [0, 1]: 1.5 vs 2 \"quoted\" \x01 ]]> \xFF", 0.25);
    c = add_case(cpu, "secret", V_WRONG, 0, 1, "1 of 16 values differ", "at [2, 2]: 9 vs 7", 0.125);
    c->hidden = true;
    struct variant_result *gpu = add_variant(e, "gpu", "gpu");
    add_case(gpu, "small", V_SKIPPED, 0, 2, "no GPU on this machine", NULL, 0);
    add_case(gpu, "large", V_GRADER, 0, 2, "the reference crashed", "SIGBUS in reference", 0.125);
    e->perf_points = 1.5;
    e->perf_max_points = 2;
    results_tally(r);
    ck_assert(r->score == 3.5 && r->max_score == 11);
    ck_assert(r->n_pass == 1 && r->n_fail == 2 && r->n_skipped == 1 && r->n_grader_errors == 1);
    return r;
}

static const char *gradescope_student =
    "{\n"
    "  \"score\": 3.5,\n"
    "  \"execution_time\": 1,\n"
    "  \"output\": \"Lab 6: Matrices: 3.5 / 11 points. 1 passed, 2 failed, 1 skipped, 1 grader "
    "errors. The grader itself failed on the cases marked XX: they do not count against you and "
    "will be run again.\",\n"
    "  \"visibility\": \"visible\",\n"
    "  \"stdout_visibility\": \"hidden\",\n"
    "  \"tests\": [\n"
    "    {\n"
    "      \"name\": \"matmul / cpu / small\",\n"
    "      \"number\": \"1.1.1\",\n"
    "      \"score\": 2,\n"
    "      \"max_score\": 2,\n"
    "      \"status\": \"passed\",\n"
    "      \"output\": \"agrees\",\n"
    "      \"tags\": [\"matmul\", \"cpu\", \"OK\"],\n"
    "      \"visibility\": \"visible\"\n"
    "    },\n"
    "    {\n"
    "      \"name\": \"matmul / cpu / big\",\n"
    "      \"number\": \"1.1.2\",\n"
    "      \"score\": 0,\n"
    "      \"max_score\": 2,\n"
    "      \"status\": \"failed\",\n"
    "      \"output\": \"3 of 16 values differ\\n\\nC: 3 of 16 differ\\nfirst at [0, 1]: 1.5 vs 2 "
    "\\\"quoted\\\" \\u0001 ]]> \xEF\xBF\xBD\",\n"
    "      \"tags\": [\"matmul\", \"cpu\", \"WA\"],\n"
    "      \"visibility\": \"visible\"\n"
    "    },\n"
    "    {\n"
    "      \"name\": \"matmul / gpu / small\",\n"
    "      \"number\": \"1.2.1\",\n"
    "      \"score\": 0,\n"
    "      \"max_score\": 2,\n"
    "      \"output\": \"skipped: no GPU on this machine\",\n"
    "      \"tags\": [\"matmul\", \"gpu\", \"SK\"],\n"
    "      \"visibility\": \"visible\"\n"
    "    },\n"
    "    {\n"
    "      \"name\": \"matmul / gpu / large\",\n"
    "      \"number\": \"1.2.2\",\n"
    "      \"score\": 0,\n"
    "      \"max_score\": 2,\n"
    "      \"status\": \"failed\",\n"
    "      \"output\": \"the reference crashed\\n\\nSIGBUS in reference\",\n"
    "      \"tags\": [\"matmul\", \"gpu\", \"XX\"],\n"
    "      \"visibility\": \"visible\"\n"
    "    },\n"
    "    {\n"
    "      \"name\": \"matmul / hidden cases\",\n"
    "      \"number\": \"1.3\",\n"
    "      \"score\": 0,\n"
    "      \"max_score\": 1,\n"
    "      \"status\": \"failed\",\n"
    "      \"output\": \"0 of 1 hidden case passed. 1 failed.\",\n"
    "      \"tags\": [\"matmul\", \"hidden\"],\n"
    "      \"visibility\": \"visible\"\n"
    "    },\n"
    "    {\n"
    "      \"name\": \"matmul / performance\",\n"
    "      \"number\": \"1.4\",\n"
    "      \"score\": 1.5,\n"
    "      \"max_score\": 2,\n"
    "      \"status\": \"failed\",\n"
    "      \"output\": \"Speed points: 1.5 of 2.\\ncpu / small: performance: 0.90x the "
    "reference's time (best quartiles) earns 100% of the speed points\",\n"
    "      \"tags\": [\"matmul\", \"performance\"],\n"
    "      \"visibility\": \"visible\"\n"
    "    }\n"
    "  ]\n"
    "}\n";

START_TEST(test_gradescope_student_view)
{
    struct results *r = make_student();
    struct strbuf sb = STRBUF_INIT;
    export_gradescope_text(r, true, &sb);
    ck_assert_str_eq(sb.buf, gradescope_student);

    /* And it reads back as the JSON Gradescope expects. */
    struct json_value *doc = NULL;
    ck_assert_int_eq(json_parse(sb.buf, sb.len, &doc, NULL), 0);
    ck_assert(json_get_number(doc, "score", -1) == 3.5);
    const struct json_value *tests = json_get(doc, "tests");
    ck_assert_ptr_nonnull(tests);
    ck_assert_uint_eq(tests->n, 6);
    ck_assert_ptr_null(json_get(json_at(tests, 2), "status"));
    ck_assert(json_get_number(json_at(tests, 2), "score", -1) == 0);
    ck_assert_str_eq(json_get_string(json_at(tests, 4), "name"), "matmul / hidden cases");
    ck_assert_str_eq(json_get_string(json_at(tests, 5), "name"), "matmul / performance");
    json_value_free(doc);
    /* Nothing of the hidden case but its count: no name, message or detail. */
    ck_assert_ptr_null(strstr(sb.buf, "secret"));
    ck_assert_ptr_null(strstr(sb.buf, "1 of 16"));
    ck_assert_ptr_null(strstr(sb.buf, "9 vs 7"));

    /* The instructor's view shows the hidden case by name, with its detail. */
    strbuf_reset(&sb);
    export_gradescope_text(r, false, &sb);
    ck_assert_ptr_nonnull(strstr(sb.buf, "\"name\": \"matmul / cpu / secret\""));
    ck_assert_ptr_nonnull(
        strstr(sb.buf, "\"output\": \"1 of 16 values differ\\n\\nat [2, 2]: 9 vs 7\""));
    ck_assert_ptr_null(strstr(sb.buf, "hidden cases"));
    ck_assert_ptr_nonnull(strstr(sb.buf, "\"number\": \"1.3\""));

    /* A lab with show_hidden: students see hidden cases in full, as the instructor does. */
    struct strbuf full = STRBUF_INIT;
    r->show_hidden = true;
    strbuf_reset(&sb);
    export_gradescope_text(r, true, &sb);
    export_gradescope_text(r, false, &full);
    ck_assert_str_eq(sb.buf, full.buf);
    r->show_hidden = false;
    strbuf_release(&full);

    char *dir = tmp_dir();
    char *path = path_join(dir, "results.json");
    struct strbuf file = STRBUF_INIT;
    ck_assert_int_eq(export_gradescope(r, true, path, NULL), 0);
    ck_assert_int_eq(read_file(path, &file, NULL), 0);
    ck_assert_str_eq(file.buf, gradescope_student);
    ck_assert_int_eq(remove_tree(dir, NULL), 0);
    free(path);
    free(dir);
    strbuf_release(&file);
    strbuf_release(&sb);
    results_free(r);
}
END_TEST

/* The speed-points sentence is found by the grader's mark, in whatever language it is. */
START_TEST(test_gradescope_performance_in_any_language)
{
    struct results *r = make_student();
    struct case_result *c = &r->exercises[0].variants[0].cases[0];
    free(c->findings[0]);
    c->findings[0] = xstrdup("performance: an unmarked sentence");
    add_finding(c, "rendimiento: 0.90x el tiempo de la referencia (mejores cuartiles) da el "
                   "100% de los puntos de velocidad");
    c->perf_finding = 2;
    struct strbuf sb = STRBUF_INIT;
    export_gradescope_text(r, true, &sb);
    ck_assert_msg(strstr(sb.buf, "Speed points: 1.5 of 2.\\ncpu / small: rendimiento: 0.90x"), "%s",
                  sb.buf);
    /* With the mark, no other sentence is taken for it, however it begins. */
    ck_assert_ptr_null(strstr(sb.buf, "cpu / small: performance: an unmarked"));
    /* Results from before the mark: only the English sentence's prefix to go by. */
    c->perf_finding = 0;
    free(c->findings[0]);
    c->findings[0] = xstrdup("performance: legacy results without the mark");
    strbuf_reset(&sb);
    export_gradescope_text(r, true, &sb);
    ck_assert_ptr_nonnull(strstr(sb.buf, "cpu / small: performance: legacy"));
    ck_assert_ptr_null(strstr(sb.buf, "cpu / small: rendimiento"));
    strbuf_release(&sb);
    results_free(r);
}
END_TEST

START_TEST(test_gradescope_empty)
{
    struct results *r = new_results("x", "X");
    struct strbuf sb = STRBUF_INIT;
    export_gradescope_text(r, true, &sb);
    ck_assert_str_eq(sb.buf, "{\n"
                             "  \"score\": 0,\n"
                             "  \"execution_time\": 0,\n"
                             "  \"output\": \"Lab 6: Matrices: 0 / 0 points. 0 passed, 0 failed, "
                             "0 skipped, 0 grader errors.\",\n"
                             "  \"visibility\": \"visible\",\n"
                             "  \"stdout_visibility\": \"hidden\",\n"
                             "  \"tests\": []\n"
                             "}\n");
    strbuf_release(&sb);
    results_free(r);
}
END_TEST

static const char *junit_student =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<testsuites name=\"labgrader\" tests=\"5\" failures=\"2\" errors=\"1\" skipped=\"1\" "
    "time=\"1.000\">\n"
    "  <testsuite name=\"lab6.matmul\" tests=\"5\" failures=\"2\" errors=\"1\" skipped=\"1\" "
    "time=\"1.000\">\n"
    "    <testcase classname=\"lab6.matmul.cpu\" name=\"small\" time=\"0.500\">\n"
    "      <system-out>sizes: n=16\n"
    "time: median 1.2500 ms over 9 samples\n"
    "performance: 0.90x the reference&apos;s time (best quartiles) earns 100% of the speed "
    "points\n"
    "</system-out>\n"
    "    </testcase>\n"
    "    <testcase classname=\"lab6.matmul.cpu\" name=\"big\" time=\"0.250\">\n"
    "      <failure type=\"WA\" message=\"3 of 16 values differ\">C: 3 of 16 differ\n"
    "first at [0, 1]: 1.5 vs 2 &quot;quoted&quot;  ]]&gt; \xEF\xBF\xBD</failure>\n"
    "      <system-out>sizes: n=16\n"
    "</system-out>\n"
    "    </testcase>\n"
    "    <testcase classname=\"lab6.matmul.cpu\" name=\"secret\" time=\"0.125\">\n"
    "      <failure type=\"WA\" message=\"1 of 16 values differ\">at [2, 2]: 9 vs 7</failure>\n"
    "      <system-out>sizes: n=16\n"
    "</system-out>\n"
    "    </testcase>\n"
    "    <testcase classname=\"lab6.matmul.gpu\" name=\"small\" time=\"0.000\">\n"
    "      <skipped message=\"no GPU on this machine\"/>\n"
    "      <system-out>sizes: n=16\n"
    "</system-out>\n"
    "    </testcase>\n"
    "    <testcase classname=\"lab6.matmul.gpu\" name=\"large\" time=\"0.125\">\n"
    "      <error type=\"XX\" message=\"the reference crashed\">SIGBUS in reference</error>\n"
    "      <system-out>sizes: n=16\n"
    "</system-out>\n"
    "    </testcase>\n"
    "  </testsuite>\n"
    "</testsuites>\n";

/* The student view: the hidden case "secret" is one count-only testcase. */
static const char *junit_veiled_suite =
    "  <testsuite name=\"lab6.matmul\" tests=\"5\" failures=\"2\" errors=\"1\" skipped=\"1\" "
    "time=\"1.000\">\n";
static const char *junit_veiled_case =
    "    <testcase classname=\"lab6.matmul\" name=\"hidden cases\" time=\"0.125\">\n"
    "      <failure type=\"hidden\" message=\"0 of 1 hidden case passed. 1 failed.\"/>\n"
    "    </testcase>\n"
    "  </testsuite>\n";

START_TEST(test_junit)
{
    struct results *r = make_student();
    struct strbuf sb = STRBUF_INIT;
    export_junit_text(r, false, &sb);
    ck_assert_str_eq(sb.buf, junit_student);

    strbuf_reset(&sb);
    export_junit_text(r, true, &sb);
    ck_assert_msg(strstr(sb.buf, junit_veiled_suite) && strstr(sb.buf, junit_veiled_case),
                  "student view:\n%s", sb.buf);
    ck_assert_ptr_null(strstr(sb.buf, "secret"));
    ck_assert_ptr_null(strstr(sb.buf, "9 vs 7"));
    r->show_hidden = true;
    strbuf_reset(&sb);
    export_junit_text(r, true, &sb);
    ck_assert_str_eq(sb.buf, junit_student);
    r->show_hidden = false;

    char *dir = tmp_dir();
    char *path = path_join(dir, "junit.xml");
    struct strbuf file = STRBUF_INIT;
    ck_assert_int_eq(export_junit(r, false, path, NULL), 0);
    ck_assert_int_eq(read_file(path, &file, NULL), 0);
    ck_assert_str_eq(file.buf, junit_student);
    char *xmllint = find_program("xmllint");
    if (xmllint) {
        char *cmd = xstrfmt("'%s' --noout '%s'", xmllint, path);
        ck_assert_int_eq(system(cmd), 0);
        free(cmd);
    } else {
        fprintf(stderr, "test_junit: xmllint not installed, validity not checked\n");
    }
    free(xmllint);
    ck_assert_int_eq(remove_tree(dir, NULL), 0);
    free(path);
    free(dir);
    strbuf_release(&file);
    strbuf_release(&sb);
    results_free(r);
}
END_TEST

START_TEST(test_junit_escaping)
{
    struct results *r = new_results("x", "X");
    free(r->lab_id);
    r->lab_id = xstrdup("lab&<6>");
    struct exercise_result *e = add_exercise(r, "e\"1'", "t");
    struct variant_result *v = add_variant(e, "v\t1", "cpu");
    struct case_result *c = add_case(v, "c\r\n\x1b[31mred", V_CRASH, 0, 1,
                                     "killed by \"SIGSEGV\"\n<core>\x7f\xEF\xBF\xBE", NULL, -1);
    free(c->sizes);
    c->sizes = NULL;
    struct strbuf sb = STRBUF_INIT;
    export_junit_text(r, false, &sb);
    ck_assert_str_eq(sb.buf,
                     "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                     "<testsuites name=\"labgrader\" tests=\"1\" failures=\"1\" errors=\"0\" "
                     "skipped=\"0\" time=\"0.000\">\n"
                     "  <testsuite name=\"lab&amp;&lt;6&gt;.e&quot;1&apos;\" tests=\"1\" "
                     "failures=\"1\" errors=\"0\" skipped=\"0\" time=\"0.000\">\n"
                     "    <testcase classname=\"lab&amp;&lt;6&gt;.e&quot;1&apos;.v&#9;1\" "
                     "name=\"c&#13;&#10;[31mred\" time=\"0.000\">\n"
                     "      <failure type=\"SG\" message=\"killed by &quot;SIGSEGV&quot;&#10;"
                     "&lt;core&gt;\x7f\">killed by &quot;SIGSEGV&quot;\n&lt;core&gt;\x7f"
                     "</failure>\n"
                     "    </testcase>\n"
                     "  </testsuite>\n"
                     "</testsuites>\n");
    char *dir = tmp_dir();
    char *path = path_join(dir, "junit.xml");
    ck_assert_int_eq(write_file_atomic(path, sb.buf, sb.len, NULL), 0);
    char *xmllint = find_program("xmllint");
    if (xmllint) {
        char *cmd = xstrfmt("'%s' --noout '%s'", xmllint, path);
        ck_assert_int_eq(system(cmd), 0);
        free(cmd);
    }
    free(xmllint);
    ck_assert_int_eq(remove_tree(dir, NULL), 0);
    free(path);
    free(dir);
    strbuf_release(&sb);
    results_free(r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("export");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_gradebook_csv);
    tcase_add_test(tc, test_gradebook_formula_prefixes_and_numbers);
    tcase_add_test(tc, test_canvas_csv);
    tcase_add_test(tc, test_gradescope_student_view);
    tcase_add_test(tc, test_gradescope_performance_in_any_language);
    tcase_add_test(tc, test_gradescope_empty);
    tcase_add_test(tc, test_junit);
    tcase_add_test(tc, test_junit_escaping);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
