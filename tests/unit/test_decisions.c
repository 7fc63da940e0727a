/*
 * Identical code, identical speed points (grade/decisions.h): a source as code, without its
 * comments and layout (base/codetext.h), and the band kept for that code on this machine.
 */
#include "base/codetext.h"
#include "grade/decisions.h"

#include "base/alloc.h"
#include "base/fs.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *text_of(const char *src)
{
    struct strbuf sb = STRBUF_INIT;
    code_text(src, strlen(src), &sb);
    return strbuf_detach(&sb);
}

/* Comments and layout go; literals and the code's own words stay, words kept apart. */
START_TEST(test_code_text)
{
    char *a = text_of("int  f(int x) /* the answer */\n{\n    return x+1; // one more\n}\n");
    char *b = text_of("int f(int x){return x + 1;}");
    ck_assert_str_eq(a, b);
    ck_assert_str_eq(a, "int f(int x){return x+1;}");
    free(b);
    b = text_of("int f(int y){return y+1;}"); /* renamed: other code */
    ck_assert_str_ne(a, b);
    free(a);
    free(b);
    a = text_of("const char *s = \"a  /* not a comment */  b\"; char c = '\\'';");
    ck_assert_str_eq(a, "const char*s=\"a  /* not a comment */  b\";char c='\\'';");
    free(a);
    a = text_of("unsigned  long\tlong n; /* unterminated");
    ck_assert_str_eq(a, "unsigned long long n;");
    free(a);
}
END_TEST

static char dir[] = "/tmp/lg-decisions-XXXXXX";
static struct lab lab;
static struct grade_env env;
static struct grade_opts opts;
static struct grading g;
static const struct exercise_spec *ex;
static const struct variant_spec *v;
static struct case_result cr;

static void write_saxpy(const char *comment)
{
    char *path = xstrfmt("%s/sub/saxpy.c", dir);
    char *text = xstrfmt("/* %s */\nvoid saxpy(int n, float a, const float *x, float *y)\n"
                         "{ for (int i = 0; i < n; i++) y[i] = a * x[i] + y[i]; }\n",
                         comment);
    ck_assert_int_eq(write_file_atomic(path, text, strlen(text), NULL), 0);
    free(text);
    free(path);
}

static void setup(void)
{
    struct error err;
    ck_assert_ptr_nonnull(mkdtemp(dir));
    error_init(&err);
    lab_init(&lab);
    ck_assert_msg(spec_load(&lab, "tests/fixtures/labcpu/lab.yaml", NULL, &err) == 0, "%s",
                  err.msg);
    ex = lab_exercise(&lab, "saxpy");
    ck_assert_ptr_nonnull(ex);
    v = exercise_variant(ex, "cpu");
    ck_assert_ptr_nonnull(v);
    grade_env_init(&env);
    env.cache_dir = xstrfmt("%s/cache", dir);
    grade_opts_init(&opts);
    opts.submission = xstrfmt("%s/sub", dir);
    ck_assert_int_eq(mkdir_p(opts.submission, NULL), 0);
    write_saxpy("student one");
    memset(&g, 0, sizeof(g));
    g.env = &env;
    g.lab = &lab;
    g.o = &opts;
    snprintf(g.ref_digest, sizeof(g.ref_digest), "%s", "ref");
    memset(&cr, 0, sizeof(cr));
    cr.case_id = "n100k";
    cr.verdict = V_PASS;
}

static void teardown(void)
{
    char *cmd = xstrfmt("rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
    free(cmd);
    free((char *)opts.submission);
    grade_env_release(&env);
    lab_release(&lab);
    memcpy(dir + strlen(dir) - 6, "XXXXXX", 6);
}

/* The first grading of some code decides its band; a copy (comments changed) whose interval
 * reaches that band keeps it; one whose interval excludes it replaces it; other code has its
 * own band. */
START_TEST(test_band_kept_for_the_same_code)
{
    ck_assert_double_eq_tol(decisions_settle(&g, ex, v, &cr, 0.5, 0.7), 0.5, 1e-9);
    write_saxpy("student two: same code, other comments");
    ck_assert_double_eq_tol(decisions_settle(&g, ex, v, &cr, 0.4, 0.6), 0.5, 1e-9);
    ck_assert_double_eq_tol(decisions_settle(&g, ex, v, &cr, 0.5, 0.5), 0.5, 1e-9);
    /* Excluded by this interval: measured anew, and kept from now on. */
    ck_assert_double_eq_tol(decisions_settle(&g, ex, v, &cr, 0.7, 0.9), 0.7, 1e-9);
    ck_assert_double_eq_tol(decisions_settle(&g, ex, v, &cr, 0.6, 0.8), 0.7, 1e-9);
    /* Another case, or other code: a band of its own. */
    cr.case_id = "n1000";
    ck_assert_double_eq_tol(decisions_settle(&g, ex, v, &cr, 0.4, 0.6), 0.4, 1e-9);
    cr.case_id = "n100k";
    char *path = xstrfmt("%s/sub/saxpy.c", dir);
    const char *other = "void saxpy(int n, float a, const float *x, float *y)\n"
                        "{ for (int i = n - 1; i >= 0; i--) y[i] += a * x[i]; }\n";
    ck_assert_int_eq(write_file_atomic(path, other, strlen(other), NULL), 0);
    free(path);
    ck_assert_double_eq_tol(decisions_settle(&g, ex, v, &cr, 0.6, 0.8), 0.6, 1e-9);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("decisions");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_code_text);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_band_kept_for_the_same_code);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
