/*
 * Hidden cases in what students read. Lab 6 is graded with its hidden cases included and
 * every student artifact is scanned for the hidden cases' ids and sizes (n1500 = matmul at
 * n=1500, n123457 and n20M = grade2 at n=123457 and n=20000001; grade2's n1 is too short a
 * name to scan for): a student may learn how many hidden cases there are
 * and how they went, nothing that hints at what they are.
 *
 * - `grader check --hidden` (the student view): the console, stdout and stderr, and
 *   report.md, in both languages; and a plain `grader check`, where they are not run.
 * - `grader grade` of a class of one: the student's report.md, gradescope.json and
 *   junit.xml. results.json and the *-instructor files are the instructor's.
 *
 * --no-timing, --no-slow and --only keep it short. Without a GPU the GPU variants' hidden
 * cases are not run; their count is still said.
 */
#include "e2e.h"

#include "base/fs.h"

#include <ctype.h>

static char *tmp_root;

static char *slurp(const char *path)
{
    struct strbuf sb = STRBUF_INIT;
    struct error err;
    ck_assert_msg(read_file(path, &sb, &err) == 0, "%s: %s", path, err.msg);
    return sb.buf ? strbuf_detach(&sb) : xstrdup("");
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

static void check_file(const char *path)
{
    static const char *const hints[] = {"n1500", "1500", "n123457", "123457", "n20M", "20000001"};
    char *text = slurp(path);
    for (size_t i = 0; i < sizeof(hints) / sizeof(hints[0]); i++)
        ck_assert_msg(!mentions(text, hints[i]), "%s names the hidden case '%s':\n%.3000s", path,
                      hints[i], text);
    free(text);
}

/* `grader check` of the solution; hidden: with --hidden. Its console and report scanned. */
static void check_run(const char *student, const char *lang, bool with_hidden)
{
    char *out = xstrfmt("%s/check", tmp_root);
    char *log = xstrfmt("%s/%s.log", tmp_root, student);
    const char *argv[] = {e2e_bin(),     "check",     "labs/lab6",
                          "--no-timing", "--no-pdf",  "--out",
                          out,           "--student", student,
                          "--lang",      lang,        with_hidden ? "--hidden" : "--no-timing",
                          NULL};
    int status = e2e_run(argv, log);
    ck_assert_msg(status == 0, "grader check exited %d; see %s", status, log);
    char *json = xstrfmt("%s/lab6/%s/results.json", out, student);
    struct results r;
    struct error err;
    results_init(&r);
    ck_assert_msg(results_read(&r, json, &err) == 0, "%s", err.msg);
    /* The hidden cases are there, and ran when asked to (on the CPU at least). */
    size_t n_hidden = 0, ran = 0;
    for (size_t e = 0; e < r.n_exercises; e++)
        for (size_t v = 0; v < r.exercises[e].n_variants; v++)
            for (size_t c = 0; c < r.exercises[e].variants[v].n_cases; c++) {
                const struct case_result *cr = &r.exercises[e].variants[v].cases[c];
                n_hidden += cr->hidden;
                ran += cr->hidden && cr->verdict == V_PASS;
            }
    ck_assert_uint_eq(n_hidden, 12);
    ck_assert_msg(with_hidden ? ran >= 2 : ran == 0, "%zu hidden cases passed", ran);
    results_release(&r);
    check_file(log);
    char *md = xstrfmt("%s/lab6/%s/report.md", out, student);
    check_file(md);
    /* What may be said: how many (each hidden case once, as the kit's README counts them: 4,
     * run on 3 variants each), and how they went. */
    bool es = !strcmp(lang, "es");
    const char *count =
        !with_hidden ? (es ? "4 casos ocultos, cada uno en todas las variantes de su ejercicio "
                             "(12 ejecuciones) ("
                           : "4 hidden cases, each on every variant of its exercise (12 runs) (")
                     : (es ? " de 12 ejecuciones correctas, 0 fallidas."
                           : " of 12 runs passed, 0 "
                             "failed.");
    char *text = slurp(log);
    ck_assert_msg(strstr(text, count), "no '%s' in %s:\n%.3000s", count, log, text);
    free(text);
    text = slurp(md);
    count = !with_hidden
                ? (es ? "4 casos ocultos, cada uno en todas las variantes de su ejercicio "
                        "(12 ejecuciones) ("
                      : "4 hidden cases, each on every variant of its exercise (12 runs) (")
                : (es ? " de 12 ejecuciones correctas" : " of 12 runs passed");
    ck_assert_msg(strstr(text, count), "no '%s' in %s:\n%.3000s", count, md, text);
    free(text);
    free(md);
    free(json);
    free(log);
    free(out);
}

START_TEST(test_check_hidden_student_view)
{
    check_run("hidden-en", "en", true);
    check_run("hidden-es", "es", true);
    check_run("plain-es", "es", false);
}
END_TEST

/* `grader grade`: a class of one, the solution; what the student gets is scanned. */
START_TEST(test_grade_student_artifacts)
{
    char *class = xstrfmt("%s/class", tmp_root), *out = xstrfmt("%s/grade", tmp_root);
    char *log = xstrfmt("%s/grade.log", tmp_root);
    char *cmd = xstrfmt("mkdir -p '%s' && cp -r labs/lab6/solution '%s/s01'", class, class);
    ck_assert_int_eq(system(cmd), 0);
    const char *argv[] = {e2e_bin(), "grade",    "labs/lab6",   "--submissions", class,    "--out",
                          out,       "--no-pdf", "--no-timing", "--no-slow",     "--only", "grade2",
                          "--lang",  "en",       NULL};
    int status = e2e_run(argv, log);
    ck_assert_msg(status == 0 || status == 3, "grader grade exited %d; see %s", status, log);
    static const char *const student_files[] = {"report.md", "gradescope.json", "junit.xml"};
    for (size_t i = 0; i < sizeof(student_files) / sizeof(student_files[0]); i++) {
        char *path = xstrfmt("%s/lab6/s01/%s", out, student_files[i]);
        ck_assert_msg(file_exists(path), "no %s (see %s)", path, log);
        check_file(path);
        free(path);
    }
    /* The instructor's own copy has it: the scan would see a leak. */
    char *inst = xstrfmt("%s/lab6/s01/junit-instructor.xml", out);
    char *text = slurp(inst);
    ck_assert_msg(mentions(text, "n123457"), "%s does not name the hidden case", inst);
    free(text);
    free(inst);
    free(cmd);
    free(log);
    free(out);
    free(class);
}
END_TEST

int main(void)
{
    tmp_root = e2e_tmpdir("hidden");
    if (!tmp_root) {
        perror("mkdtemp");
        return EXIT_FAILURE;
    }
    Suite *s = suite_create("hidden_view");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 900);
    tcase_add_test(tc, test_check_hidden_student_view);
    tcase_add_test(tc, test_grade_student_artifacts);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    if (!failed)
        remove_tree(tmp_root, NULL);
    free(tmp_root);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
