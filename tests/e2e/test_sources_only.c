/*
 * A submission of only the lab's sources (as an LMS asks students to upload them) compiles,
 * although its code includes the lab's header: the headers the lab hands out with its skeleton
 * are in every student build's include path, after the submission's own folder (run/build.c's
 * write_handout). Tried in check, grade and autograde, on a copy of the CPU test lab given a
 * skeleton with its header; without that skeleton the same files do not compile, which is what
 * shows the header came from it.
 */
#include "e2e.h"

#include "base/fs.h"
#include "base/json.h"
#include "base/strbuf.h"

static char *dir, *lab, *bare, *sub;

static void sh(const char *cmd)
{
    const char *argv[] = {"/bin/sh", "-c", cmd, NULL};
    ck_assert_msg(e2e_run(argv, NULL) == 0, "'%s' failed", cmd);
}

static void setup(void)
{
    dir = e2e_tmpdir("sources-only");
    ck_assert_ptr_nonnull(dir);
    lab = path_join(dir, "lab");
    bare = path_join(dir, "bare");
    sub = path_join(dir, "sub");
    char *cmd = xstrfmt("cp -r tests/fixtures/labcpu '%s' && cp -r tests/fixtures/labcpu '%s' && "
                        "mkdir -p '%s/skeleton' '%s' && cp '%s/solution/labcpu.h' '%s/skeleton/' "
                        "&& cp '%s/solution/saxpy.c' '%s/solution/dot.c' '%s/'",
                        lab, bare, lab, sub, lab, lab, lab, lab, sub);
    sh(cmd);
    free(cmd);
}

static void teardown(void)
{
    if (!getenv("LG_KEEP"))
        remove_tree(dir, NULL);
    free(sub);
    free(bare);
    free(lab);
    free(dir);
}

/* Every case of results.json at json has verdict v (skipped cases aside). */
static void assert_all(const char *json, enum verdict v, const char *log)
{
    struct results r;
    struct error err;
    results_init(&r);
    ck_assert_msg(results_read(&r, json, &err) == 0, "%s (see %s)", err.msg, log);
    int seen = 0;
    for (size_t e = 0; e < r.n_exercises; e++)
        for (size_t c = 0; c < r.exercises[e].variants[0].n_cases; c++) {
            const struct case_result *cr = &r.exercises[e].variants[0].cases[c];
            if (cr->verdict == V_SKIPPED)
                continue;
            ck_assert_msg(cr->verdict == v, "%s %s: %s (%s; see %s)", r.exercises[e].exercise_id,
                          cr->case_id, verdict_code(cr->verdict), cr->message, log);
            seen++;
        }
    ck_assert_int_gt(seen, 0);
    results_release(&r);
}

START_TEST(test_check)
{
    char *out = path_join(dir, "out"), *log = path_join(dir, "check.log");
    const char *argv[] = {e2e_bin(), "check",       lab,        "--submission", sub, "--out",
                          out,       "--no-timing", "--no-pdf", "--no-html",    NULL};
    ck_assert_int_eq(e2e_run(argv, log), 0);
    char *json = xstrfmt("%s/lab99/sub/results.json", out);
    assert_all(json, V_PASS, log);
    /* The same files against the lab without a skeleton: the header is nowhere. */
    char *out2 = path_join(dir, "out-bare");
    argv[2] = bare;
    argv[6] = out2;
    ck_assert_int_eq(e2e_run(argv, log), 1);
    char *json2 = xstrfmt("%s/lab99/sub/results.json", out2);
    assert_all(json2, V_COMPILE, log);
    free(json2);
    free(out2);
    free(json);
    free(log);
    free(out);
}
END_TEST

START_TEST(test_grade)
{
    char *cls = path_join(dir, "class"), *out = path_join(dir, "grade-out");
    char *log = path_join(dir, "grade.log"),
         *cmd = xstrfmt("mkdir -p '%s' && cp -r '%s' '%s/s1'", cls, sub, cls);
    sh(cmd);
    const char *argv[] = {e2e_bin(), "grade",       lab,        "--submissions", cls, "--out",
                          out,       "--no-timing", "--no-pdf", "--no-html",     NULL};
    ck_assert_int_eq(e2e_run(argv, log), 0);
    char *json = xstrfmt("%s/lab99/s1/results.json", out);
    assert_all(json, V_PASS, log);
    free(json);
    free(cmd);
    free(log);
    free(out);
    free(cls);
}
END_TEST

START_TEST(test_autograde)
{
    char *root = path_join(dir, "autograder"), *log = path_join(dir, "autograde.log");
    char *cmd = xstrfmt("mkdir -p '%s/submission' '%s/results' && cp '%s'/*.c '%s/submission/'",
                        root, root, sub, root);
    sh(cmd);
    const char *argv[] = {e2e_bin(), "autograde", lab, "--root", root, "--no-timing", NULL};
    ck_assert_int_eq(e2e_run(argv, log), 0);
    char *json = xstrfmt("%s/results/results.json", root);
    struct strbuf sb = STRBUF_INIT;
    struct json_value *doc = NULL;
    struct error err;
    ck_assert_msg(read_file(json, &sb, &err) == 0, "%s (see %s)", err.msg, log);
    ck_assert_int_eq(json_parse(sb.buf, sb.len, &doc, &err), 0);
    const struct json_value *tests = json_get(doc, "tests");
    ck_assert(tests && tests->n > 0);
    for (size_t i = 0; i < tests->n; i++) {
        const char *st = json_get_string(json_at(tests, i), "status");
        const char *name = json_get_string(json_at(tests, i), "name");
        ck_assert_msg(st && !strcmp(st, "passed"), "%s: %s (see %s)", name, st, log);
    }
    json_value_free(doc);
    strbuf_release(&sb);
    free(json);
    free(cmd);
    free(log);
    free(root);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sources only");
    TCase *tc = tcase_create("handout");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_check);
    tcase_add_test(tc, test_grade);
    tcase_add_test(tc, test_autograde);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
