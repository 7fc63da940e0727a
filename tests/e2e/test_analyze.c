/*
 * End to end over the analysis commands, through the grader binary (LG_BIN):
 *   - grader similarity on the fixture class (tests/fixtures/similarity): the copies found as
 *     six pairs and one group, the skeleton and the independent solutions in none; the CSV,
 *     JSON, Markdown and HTML written; bad input answered with status 2;
 *   - grader similarity on a class of 60 generated at test time (tests/unit/simclass.h): 20
 *     copies of the lab's solution among 40 honest students are one group, matching the
 *     solution, and nothing else is reported; the pages show the group first, its fragments
 *     side by side;
 *   - grader grade --similarity: three of the fixture submissions graded, then the same check
 *     beside their reports, grade's exit status kept;
 *   - grader mutate on lab 3's CPU variants: the exact kill ratio, the documented equivalent
 *     mutants apart, the report written.
 * Verdicts and counts only: no time is asserted (the mutation run takes minutes on two cores;
 * the watchdog is generous).
 */
#include "e2e.h"

#include "../unit/simclass.h"
#include "base/escape.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/strbuf.h"
#include "report/html.h"

#include <dirent.h>

static char *out_dir;

static void setup(void)
{
    if (!out_dir)
        out_dir = e2e_tmpdir("analyze");
}

static char *slurp(const char *path)
{
    struct strbuf sb = STRBUF_INIT;
    struct error err;
    ck_assert_msg(read_file(path, &sb, &err) == 0, "%s: %s", path, err.msg);
    return strbuf_detach(&sb);
}

/* The last non-empty line of text (caller frees). */
static char *last_line(const char *text)
{
    const char *end = text + strlen(text);
    while (end > text && end[-1] == '\n')
        end--;
    const char *start = end;
    while (start > text && start[-1] != '\n')
        start--;
    return xstrndup(start, (size_t)(end - start));
}

static bool is_copy(const char *id)
{
    return !strcmp(id, "orig") || !strcmp(id, "renamed") || !strcmp(id, "reordered") ||
           !strcmp(id, "commented");
}

START_TEST(test_similarity_command)
{
    char *out = xstrfmt("%s/sim", out_dir), *log = xstrfmt("%s/sim.log", out_dir);
    const char *argv[] = {
        e2e_bin(), "similarity", "labs/lab6", "--submissions", "tests/fixtures/similarity/class",
        "--out",   out,          NULL};
    int status = e2e_run(argv, log);
    char *text = slurp(log);
    ck_assert_msg(status == 0, "exit %d: %s", status, text);
    ck_assert_ptr_nonnull(strstr(text, "lab6: 7 submissions, 6 pairs at or above 80%, 1 group, 0 "
                                       "matching the instructor's solution"));
    char *csv_path = xstrfmt("%s/lab6/similarity.csv", out);
    char *csv = slurp(csv_path);
    /* The six pairs of copies first, then the rest; 21 rows in all. */
    size_t row = 0;
    for (char *line = strstr(csv, "\r\n") + 2; *line; line = strstr(line, "\r\n") + 2, row++) {
        char a[64], b[64];
        ck_assert_int_eq(sscanf(line, "%63[^,],%63[^,],", a, b), 2);
        ck_assert_msg(row < 6 ? is_copy(a) && is_copy(b) : !(is_copy(a) && is_copy(b)),
                      "row %zu: %s %s", row, a, b);
    }
    ck_assert_uint_eq(row, 21);
    char *md_path = xstrfmt("%s/lab6/similarity.md", out);
    char *html_path = xstrfmt("%s/lab6/similarity.html", out);
    char *md = slurp(md_path), *html = slurp(html_path);
    ck_assert_ptr_nonnull(strstr(md, "## Pareja 6:"));
    ck_assert_ptr_null(strstr(md, "## Pareja 7:"));
    /* The group first (the four copies, chained by their pairs), then the pairs. */
    const char *group = strstr(md, "## Grupo 1: 4 entregas unidas por parejas de"),
               *pairs = strstr(md, "## Parejas");
    ck_assert(group && pairs && group < pairs);
    ck_assert(!strstr(md, "skeleton_only (") && !strstr(md, "skeleton\\_only ("));
    ck_assert_ptr_nonnull(strstr(html, "<div class=\"side\">"));
    ck_assert_ptr_nonnull(strstr(html, "<span class=\"m m0\""));
    ck_assert_ptr_nonnull(strstr(html, "</html>"));
    free(md);
    free(html);
    free(md_path);
    free(html_path);
    free(csv);
    free(csv_path);
    free(text);
    free(out);
    free(log);
}
END_TEST

/* The fixture class's submission id copied into class_dir/folder. */
static void copy_fixture(const char *id, const char *class_dir, const char *folder)
{
    struct error err;
    char *src = xstrfmt("tests/fixtures/similarity/class/%s", id);
    char *dst = xstrfmt("%s/%s", class_dir, folder);
    ck_assert_msg(mkdir_p(dst, &err) == 0, "%s: %s", dst, err.msg);
    DIR *d = opendir(src);
    ck_assert_ptr_nonnull(d);
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        char *from = xstrfmt("%s/%s", src, e->d_name), *to = xstrfmt("%s/%s", dst, e->d_name);
        ck_assert_msg(copy_file(from, to, &err) == 0, "%s: %s", from, err.msg);
        free(from);
        free(to);
    }
    closedir(d);
    free(src);
    free(dst);
}

/* What every similarity.html must be, for the ids given. */
static void assert_page(const char *html, const char *const *ids, size_t n_ids)
{
    /* A viewport for small screens, and a policy that runs nothing and applies only the
     * page's own stylesheet, by the hash of exactly what the <style> element holds. */
    ck_assert_ptr_nonnull(strstr(html, "<meta name=\"viewport\" content=\"width=device-width"));
    const char *style = strstr(html, "<style>"), *end = style ? strstr(style, "</style>") : NULL;
    ck_assert(style && end);
    struct strbuf hash = STRBUF_INIT;
    html_csp_hash(style + 7, (size_t)(end - style - 7), &hash);
    char *want = xstrfmt("style-src &#39;%.*s&#39;", (int)hash.len - 2, hash.buf + 1);
    const char *csp = strstr(html, "http-equiv=\"Content-Security-Policy\" content=\"");
    ck_assert_msg(csp && csp < style && strstr(csp, want) && strstr(csp, "script-src &#39;none"),
                  "no policy with %s", want);
    ck_assert_ptr_null(strstr(html, "<script"));
    ck_assert_ptr_null(strstr(html, " style="));
    /* Every table in a box that scrolls sideways; a print stylesheet for A4. */
    size_t tables = 0, boxed = 0;
    for (const char *p = html; (p = strstr(p, "<table>")); p++, tables++)
        boxed += p - html >= 20 && !strncmp(p - 20, "<div class=\"scroll\">", 20);
    ck_assert_uint_gt(tables, 2);
    ck_assert_uint_eq(boxed, tables);
    ck_assert(strstr(html, "@media print") && strstr(html, "size: A4"));
    /* Exactly one element per submission, under the id the class page links to. */
    for (size_t i = 0; i < n_ids; i++) {
        struct strbuf anchor = STRBUF_INIT;
        esc_anchor(&anchor, "sub-", ids[i]);
        char *attr = xstrfmt("id=\"%s\"", strbuf_str(&anchor));
        const char *at = strstr(html, attr);
        ck_assert_msg(at && !strstr(at + 1, attr), "%s: %s", ids[i], attr);
        free(attr);
        strbuf_release(&anchor);
    }
    free(want);
    strbuf_release(&hash);
}

/* The page of the fixture class, its first submission's folder renamed "a<b> c&d" (its id
 * becomes a-b-c-d; the roster's names would be text too): every id with exactly one element,
 * skeleton_only's under an escaped anchor, the evidence about each inside its element. */
START_TEST(test_similarity_page)
{
    static const char *const folders[] = {"a<b> c&d", "renamed", "reordered",    "commented",
                                          "indep1",   "indep2",  "skeleton_only"};
    static const char *const ids[] = {"a-b-c-d", "renamed", "reordered",    "commented",
                                      "indep1",  "indep2",  "skeleton_only"};
    char *class_dir = xstrfmt("%s/hostile", out_dir), *out = xstrfmt("%s/simpage", out_dir);
    char *log = xstrfmt("%s/simpage.log", out_dir);
    for (size_t i = 0; i < sizeof(folders) / sizeof(*folders); i++)
        copy_fixture(i ? folders[i] : "orig", class_dir, folders[i]);
    const char *argv[] = {e2e_bin(), "similarity", "labs/lab6", "--submissions",
                          class_dir, "--out",      out,         "--lang",
                          "en",      NULL};
    int status = e2e_run(argv, log);
    char *text = slurp(log);
    ck_assert_msg(status == 0, "exit %d: %s", status, text);
    char *html_path = xstrfmt("%s/lab6/similarity.html", out), *html = slurp(html_path);
    assert_page(html, ids, sizeof(ids) / sizeof(*ids));
    /* The hostile id is text, and its element holds its evidence; an independent solution's
     * says nothing was found. */
    ck_assert_ptr_null(strstr(html, "a<b>"));
    ck_assert_ptr_nonnull(strstr(html, "id=\"sub-skeleton_5Fonly\""));
    const char *row = strstr(html, "id=\"sub-a-b-c-d\"");
    ck_assert_ptr_nonnull(row);
    const char *row_end = strstr(row, "</tr>");
    const char *group = strstr(row, "href=\"#group1\""), *pair = strstr(row, "href=\"#pair");
    ck_assert(group && group < row_end && pair && pair < row_end);
    row = strstr(html, "id=\"sub-indep1\"");
    ck_assert(row && strstr(row, "Nothing found") &&
              strstr(row, "Nothing found") < strstr(row, "</tr>"));
    free(html);
    free(html_path);
    free(text);
    free(log);
    free(out);
    free(class_dir);
}
END_TEST

static struct json_value *read_json(const char *path)
{
    char *text = slurp(path);
    struct json_value *v;
    struct error err;
    ck_assert_msg(json_parse(text, strlen(text), &v, &err) == 0, "%s: %s", path, err.msg);
    free(text);
    return v;
}

/* Issue 41's class: 20 copies of the lab's solution (renamed, reordered, re-commented) among
 * 40 honest students. */
START_TEST(test_similarity_leaked_solution)
{
    char *class_dir = xstrfmt("%s/c60", out_dir), *out = xstrfmt("%s/sim60", out_dir);
    char *log = xstrfmt("%s/sim60.log", out_dir);
    struct simclass c = {class_dir, 40, 20, "labs/lab6/solution", 4, true, 41};
    simclass_make(&c);
    const char *argv[] = {e2e_bin(), "similarity", "labs/lab6", "--submissions",
                          class_dir, "--out",      out,         "--lang",
                          "en",      NULL};
    int status = e2e_run(argv, log);
    char *text = slurp(log);
    ck_assert_msg(status == 0, "exit %d: %s", status, text);
    ck_assert_ptr_nonnull(strstr(text, "lab6: 60 submissions, 0 pairs at or above 80%, 1 group, "
                                       "20 matching the instructor's solution"));
    ck_assert_ptr_nonnull(strstr(text, "group 1: 20 submissions hold "));
    char *json_path = xstrfmt("%s/lab6/similarity.json", out);
    struct json_value *v = read_json(json_path);
    const struct json_value *groups = json_get(v, "groups"), *g = json_at(groups, 0);
    ck_assert_uint_eq(groups->n, 1);
    ck_assert(json_get_number(g, "size", 0) == 20 && json_get_bool(g, "matches_solution", false));
    for (size_t i = 0; i < json_get(g, "members")->n; i++)
        ck_assert_int_eq(json_at(json_get(g, "members"), i)->string[0], 'k');
    ck_assert_uint_eq(json_get(v, "pairs")->n, 0);
    ck_assert_uint_eq(json_get(v, "solution_matches")->n, 20);
    /* Groups, then the solution's matches, then the pairs (none); the group's fragments side
     * by side, as two columns of one code block. */
    char *md_path = xstrfmt("%s/lab6/similarity.md", out), *md = slurp(md_path);
    const char *groups_at = strstr(md, "## Group 1: 20 submissions hold ");
    const char *sol_at = strstr(md, "## Matches with the instructor's solution");
    const char *pairs_at = strstr(md, "No pair reaches 80%.");
    ck_assert(groups_at && sol_at && pairs_at && groups_at < sol_at && sol_at < pairs_at);
    ck_assert_ptr_nonnull(strstr(groups_at, "It is the instructor's solution"));
    const char *block = strstr(groups_at, "```\n");
    ck_assert_ptr_nonnull(block);
    ck_assert_msg(!strncmp(block + 4, json_at(json_get(g, "members"), 0)->string, 3) &&
                      strstr(block, " | ") && strstr(block, " | ") < strstr(block + 4, "```"),
                  "no side-by-side block: %.300s", block);
    char *html_path = xstrfmt("%s/lab6/similarity.html", out), *html = slurp(html_path);
    const char *hgroup = strstr(html, "id=\"group1\""), *hsol = strstr(html, "<h2>Matches");
    ck_assert(hgroup && hsol && hgroup < hsol);
    ck_assert_ptr_nonnull(strstr(hgroup, "<div class=\"side\">"));
    ck_assert_ptr_nonnull(strstr(hgroup, "<span class=\"m m0\""));
    free(html);
    free(html_path);
    free(md);
    free(md_path);
    json_value_free(v);
    free(json_path);
    free(text);
    free(log);
    free(out);
    free(class_dir);
}
END_TEST

START_TEST(test_similarity_bad_input)
{
    char *log = xstrfmt("%s/bad.log", out_dir);
    const char *missing[] = {
        e2e_bin(), "similarity", "labs/lab6", "--submissions", "/nonexistent/class",
        "--out",   out_dir,      NULL};
    ck_assert_int_eq(e2e_run(missing, log), 2);
    char *text = slurp(log);
    ck_assert_ptr_nonnull(strstr(text, "/nonexistent/class"));
    free(text);
    const char *no_subs[] = {e2e_bin(), "similarity", "labs/lab6", NULL};
    ck_assert_int_eq(e2e_run(no_subs, log), 2);
    text = slurp(log);
    ck_assert_ptr_nonnull(strstr(text, "--submissions"));
    free(text);
    const char *bad_threshold[] = {e2e_bin(),
                                   "similarity",
                                   "labs/lab6",
                                   "--submissions",
                                   "tests/fixtures/similarity/class",
                                   "--threshold",
                                   "2",
                                   NULL};
    ck_assert_int_eq(e2e_run(bad_threshold, log), 2);
    free(log);
}
END_TEST

/* The class graded by grade --similarity: two copies and an independent solution, fewer
 * builds than the whole fixture class (every GPU variant is compiled by nvcc). */
static const char *const grade_class_ids[] = {"orig", "renamed", "indep1", NULL};

/* A class folder under out_dir with those submissions copied from the fixture (caller frees). */
static char *make_grade_class(void)
{
    char *class_dir = xstrfmt("%s/class3", out_dir);
    for (size_t i = 0; grade_class_ids[i]; i++)
        copy_fixture(grade_class_ids[i], class_dir, grade_class_ids[i]);
    return class_dir;
}

/*
 * What grade's status should be for the class graded under out: 0 on a machine with a GPU;
 * without one, `grade` marks the GPU cases XX (to be graded again where a GPU is), so 3, and
 * then every XX case must be a GPU variant's.
 */
static int expected_grade_status(const char *out)
{
    const char *const *ids = grade_class_ids;
    int want = 0;
    for (size_t i = 0; ids[i]; i++) {
        char *json = xstrfmt("%s/lab6/%s/results.json", out, ids[i]);
        struct results r;
        struct error err;
        results_init(&r);
        ck_assert_msg(results_read(&r, json, &err) == 0, "%s: %s", json, err.msg);
        for (size_t e = 0; e < r.n_exercises; e++)
            for (size_t v = 0; v < r.exercises[e].n_variants; v++) {
                const struct variant_result *vr = &r.exercises[e].variants[v];
                for (size_t c = 0; c < vr->n_cases; c++) {
                    if (vr->cases[c].verdict != V_GRADER)
                        continue;
                    ck_assert_msg(!r.machine.gpu_name && !strcmp(vr->target, "gpu"),
                                  "%s: %s/%s %s is XX: %s", ids[i], r.exercises[e].exercise_id,
                                  vr->variant_id, vr->cases[c].case_id,
                                  vr->cases[c].message ? vr->cases[c].message : "");
                    want = 3;
                }
            }
        results_release(&r);
        free(json);
    }
    return want;
}

/* The grade's own options (with values) pass through; the check lands beside the reports, and
 * grade's exit status is the command's. */
START_TEST(test_grade_with_similarity)
{
    char *out = xstrfmt("%s/grade", out_dir), *log = xstrfmt("%s/grade.log", out_dir);
    char *class_dir = make_grade_class();
    const char *argv[] = {e2e_bin(),      "grade",  "labs/lab6",   "--submissions", class_dir,
                          "--only",       "grade2", "--no-timing", "--no-slow",     "--no-hidden",
                          "--no-pdf",     "--jobs", "2",           "--out",         out,
                          "--similarity", NULL};
    int status = e2e_run(argv, log);
    char *text = slurp(log);
    ck_assert_msg(status == expected_grade_status(out), "exit %d: %s", status, text);
    ck_assert_ptr_nonnull(strstr(text, "lab6: 3 graded"));
    ck_assert_ptr_nonnull(strstr(text, "lab6: 3 submissions, 1 pair at or above 80%, 0 groups, 0 "
                                       "matching the instructor's solution"));
    char *gradebook = xstrfmt("%s/lab6/gradebook.csv", out);
    char *csv = xstrfmt("%s/lab6/similarity.csv", out);
    ck_assert(file_exists(gradebook));
    /* The copies are the first row: the pair above the threshold. */
    char *rows = slurp(csv), a[64], b[64];
    ck_assert_int_eq(sscanf(strstr(rows, "\r\n") + 2, "%63[^,],%63[^,],", a, b), 2);
    ck_assert_msg((!strcmp(a, "orig") && !strcmp(b, "renamed")) ||
                      (!strcmp(a, "renamed") && !strcmp(b, "orig")),
                  "first pair: %s %s", a, b);
    free(rows);
    free(gradebook);
    free(csv);
    free(text);
    free(class_dir);
    free(out);
    free(log);
}
END_TEST

/*
 * Lab 3's CPU variants: 45 mutants, 4 of them documented as equivalent
 * (labs/lab3/solution/mutate-equivalent.txt), every other one killed. Before the harness's
 * guard zones, the 8 `i <= n` loops survived; before f16_roundtrip was compared exactly, so did
 * a function returning its input.
 */
START_TEST(test_mutate_lab3_cpu)
{
    char *out = xstrfmt("%s/mut", out_dir), *log = xstrfmt("%s/mut.log", out_dir);
    const char *argv[] = {e2e_bin(), "mutate",   "labs/lab3", "--cpu-only", "--no-slow", "--jobs",
                          "2",       "--no-pdf", "--quiet",   "--out",      out,         NULL};
    int status = e2e_run(argv, log);
    char *text = slurp(log);
    ck_assert_msg(status == 0, "exit %d: %s", status, text);
    char *last = last_line(text);
    ck_assert_str_eq(last, "lab3: 41 of 41 mutants killed (100.0%)");
    ck_assert_ptr_nonnull(strstr(text, "not counted: 0 did not compile (killed, trivially), "
                                       "4 equivalent, 0 not run, 0 grader errors"));
    ck_assert_ptr_nonnull(strstr(text, "  add/cpu                        5 of   5 killed"));
    ck_assert_ptr_null(strstr(text, "survived m"));
    char *md_path = xstrfmt("%s/lab3/mutate/report.md", out);
    char *md = slurp(md_path);
    ck_assert_ptr_nonnull(strstr(md, "**41 de 41 mutantes detectados (100.0%).**"));
    ck_assert_ptr_nonnull(strstr(md, "## Mutantes equivalentes"));
    ck_assert_ptr_nonnull(strstr(md, "convert_cpu.c:67:20"));
    free(md);
    free(md_path);
    free(last);
    free(text);
    free(out);
    free(log);
}
END_TEST

static Suite *analyze_suite(void)
{
    Suite *s = suite_create("analyze");
    TCase *sim = tcase_create("similarity");
    tcase_add_unchecked_fixture(sim, setup, NULL);
    tcase_set_timeout(sim, 3600);
    tcase_add_test(sim, test_similarity_command);
    tcase_add_test(sim, test_similarity_leaked_solution);
    tcase_add_test(sim, test_similarity_page);
    tcase_add_test(sim, test_similarity_bad_input);
    tcase_add_test(sim, test_grade_with_similarity);
    suite_add_tcase(s, sim);
    TCase *mut = tcase_create("mutate");
    tcase_add_unchecked_fixture(mut, setup, NULL);
    tcase_set_timeout(mut, 3600);
    tcase_add_test(mut, test_mutate_lab3_cpu);
    suite_add_tcase(s, mut);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(analyze_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    if (out_dir && !failed)
        remove_tree(out_dir, NULL);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
