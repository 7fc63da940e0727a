/*
 * The Gradescope autograder on a machine with a GPU (make test-gpu): the GPU variants run
 * and count under every policy, so the score needs no scaling: `grader autograde` on the
 * test lab's solution (tests/fixtures/labgs) in a folder laid out as /autograder, with the
 * informational policy and with the fail policy (which grades normally where a GPU is).
 * tests/e2e/test_gradescope.c covers the same without a GPU, the zip and setup.sh.
 */
#include "../e2e/e2e.h"

#include "base/fs.h"
#include "base/json.h"
#include "base/strbuf.h"

static char *root;

static struct json_value *autograde(const char *policy)
{
    char *sub = path_join(root, "submission"), *results = path_join(root, "results");
    char *log = xstrfmt("%s/%s.log", root, policy), *json = path_join(results, "results.json");
    remove_tree(results, NULL);
    ck_assert_int_eq(mkdir_p(results, NULL), 0);
    /* Timed: the lab's performance points are part of its 8, and only timing earns them
     * (untimed, 6 of 8 could run and the score would rightly be scaled). */
    const char *argv[] = {e2e_bin(), "autograde", "tests/fixtures/labgs",
                          "--root",  root,        "--gpu-policy",
                          policy,    NULL};
    int rc = e2e_run(argv, log);
    ck_assert_msg(rc == 0, "autograde --gpu-policy %s exited %d (see %s)", policy, rc, log);
    struct strbuf sb = STRBUF_INIT;
    struct json_value *doc = NULL;
    struct error err;
    ck_assert_msg(read_file(json, &sb, &err) == 0, "no results.json (see %s)", log);
    ck_assert_msg(json_parse(sb.buf, sb.len, &doc, &err) == 0, "%s", err.msg);
    strbuf_release(&sb);
    free(json);
    free(log);
    free(results);
    free(sub);
    return doc;
}

static void assert_gpu_counted(const struct json_value *doc)
{
    ck_assert_msg(json_get_number(doc, "score", -1) == 8, "score %g",
                  json_get_number(doc, "score", -1));
    const struct json_value *tests = json_get(doc, "tests");
    bool found = false;
    for (size_t i = 0; tests && i < tests->n; i++) {
        const struct json_value *t = json_at(tests, i);
        const char *name = json_get_string(t, "name");
        if (!name || strcmp(name, "scale / gpu / n1000"))
            continue;
        found = true;
        ck_assert_str_eq(json_get_string(t, "status"), "passed");
        ck_assert(json_get_number(t, "max_score", 0) > 0);
    }
    ck_assert(found);
    ck_assert_ptr_null(strstr(json_get_string(doc, "output"), "scaled"));
}

START_TEST(test_gpu_cases_count_on_a_gpu)
{
    root = e2e_tmpdir("gradescope-gpu");
    char *sub = path_join(root, "submission");
    ck_assert_int_eq(mkdir_p(sub, NULL), 0);
    char *cmd = xstrfmt("cp tests/fixtures/labgs/solution/* '%s'/", sub);
    const char *argv[] = {"/bin/sh", "-c", cmd, NULL};
    ck_assert_int_eq(e2e_run(argv, NULL), 0);
    struct json_value *doc = autograde("informational");
    assert_gpu_counted(doc);
    json_value_free(doc);
    doc = autograde("fail");
    assert_gpu_counted(doc);
    json_value_free(doc);
    remove_tree(root, NULL);
    free(cmd);
    free(sub);
    free(root);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("gradescope gpu");
    TCase *tc = tcase_create("gpu");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_gpu_cases_count_on_a_gpu);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
