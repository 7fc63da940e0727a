/*
 * grader mutate with a GPU (make test-gpu): lab 4's vadd, GPU variants included. The mutants
 * every lab 4 case must kill are killed: the block count rounded down (n = 5466 is no multiple
 * of 1024), the kernel's bounds check dropped (the last block's extra threads write into the
 * guard zone after u), outputs left as zeros, the input echoed, and every CPU mutant; none ends
 * in a grader error.
 */
#include "../e2e/e2e.h"

#include "base/fs.h"
#include "base/json.h"
#include "base/strbuf.h"

static char *out_dir;

static void setup(void)
{
    if (!out_dir)
        out_dir = e2e_tmpdir("mutate-gpu");
}

/* The mutant of `file` made by `op` that reaches `target` (NULL: any), or NULL. */
static const struct json_value *find(const struct json_value *muts, const char *file,
                                     const char *op, const char *target)
{
    for (size_t i = 0; json_at(muts, i); i++) {
        const struct json_value *m = json_at(muts, i);
        if (strcmp(json_get_string(m, "file"), file) || strcmp(json_get_string(m, "operator"), op))
            continue;
        if (!target)
            return m;
        const struct json_value *reaches = json_get(m, "reaches"), *t;
        for (size_t k = 0; (t = json_at(reaches, k)) != NULL; k++)
            if (t->string && !strcmp(t->string, target))
                return m;
    }
    return NULL;
}

START_TEST(test_vadd_with_gpu)
{
    char *out = xstrfmt("%s/out", out_dir), *log = xstrfmt("%s/mutate.log", out_dir);
    const char *argv[] = {e2e_bin(), "mutate", "labs/lab4", "--only", "vadd", "--no-slow",
                          "--jobs",  "4",      "--no-pdf",  "--out",  out,    NULL};
    int status = e2e_run(argv, log);
    ck_assert_msg(status == 0, "exit %d (log %s)", status, log);
    char *path = xstrfmt("%s/lab4/mutate/mutants.json", out);
    struct strbuf text = STRBUF_INIT;
    struct json_value *root = NULL;
    struct error err;
    ck_assert_msg(read_file(path, &text, &err) == 0, "%s", err.msg);
    ck_assert_msg(json_parse(text.buf, text.len, &root, &err) == 0, "%s", err.msg);
    ck_assert_msg(json_get_bool(root, "gpu", false), "GPU variants not mutated (see %s)", log);
    ck_assert_int_eq((int)json_get_number(root, "errors", -1), 0);
    ck_assert_int_eq((int)json_get_number(root, "not_run", -1), 0);
    const struct json_value *muts = json_get(root, "mutants");
    static const char *const must[][3] = {{"vadd_gpu.cu", "blocks_down", NULL},
                                          {"vadd_gpu.cu", "drop_guard", NULL},
                                          {"vadd_gpu.cu", "zero_result", "vadd/gpu_dev"},
                                          {"vadd_gpu.cu", "zero_result", "vadd/gpu"},
                                          {"vadd_gpu.cu", "echo_input", "vadd/gpu"}};
    for (size_t i = 0; i < sizeof(must) / sizeof(must[0]); i++) {
        const struct json_value *m = find(muts, must[i][0], must[i][1], must[i][2]);
        ck_assert_msg(m != NULL, "no %s mutant of %s", must[i][1], must[i][0]);
        ck_assert_msg(!strcmp(json_get_string(m, "status"), "killed"), "%s %s: %s",
                      json_get_string(m, "id"), must[i][1], json_get_string(m, "status"));
    }
    for (size_t i = 0; json_at(muts, i); i++) {
        const struct json_value *m = json_at(muts, i);
        if (!strcmp(json_get_string(m, "file"), "vadd_cpu.c"))
            ck_assert_msg(!strcmp(json_get_string(m, "status"), "killed"), "%s: %s",
                          json_get_string(m, "id"), json_get_string(m, "status"));
    }
    json_value_free(root);
    strbuf_release(&text);
    free(path);
    free(out);
    free(log);
}
END_TEST

static Suite *mutate_gpu_suite(void)
{
    Suite *s = suite_create("mutate_gpu");
    TCase *tc = tcase_create("core");
    tcase_add_unchecked_fixture(tc, setup, NULL);
    tcase_set_timeout(tc, 1800);
    tcase_add_test(tc, test_vadd_with_gpu);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(mutate_gpu_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    if (out_dir && !failed)
        remove_tree(out_dir, NULL);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
