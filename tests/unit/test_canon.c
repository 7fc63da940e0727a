/*
 * canon (issue 48): the order in which the similarity check compares a file's tokens. What an
 * automated obfuscator changes without changing the program compares the same (dead
 * statements, for or while, braces, independent statements reordered, functions reordered and
 * prototyped, macros renamed, launch configurations), and what changes the program does not
 * (a dependent statement moved, a statement with an effect added). Hostile nesting,
 * unbalanced files and long chains of dead statements are compared too, in time linear in
 * their size.
 */
#include "analyze/canon.h"
#include "analyze/normalize.h"
#include "analyze/tokens.h"
#include "base/alloc.h"
#include "base/strbuf.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

/* libclang's thread-local storage under ASan: see test_similarity.c. */
const char *__asan_default_options(void);
__attribute__((used)) const char *__asan_default_options(void)
{
    return "intercept_tls_get_addr=0";
}

static void normalized(const char *text, struct norm_stream *s)
{
    struct token_list l;
    struct error err;
    token_list_init(&l);
    ck_assert_msg(tokens_lex("t.cu", text, strlen(text), SRC_CUDA, &l, &err) == 0, "%s", err.msg);
    norm_stream_init(s);
    norm_append(s, &l, 0);
    token_list_release(&l);
}

/* Whether the two texts compare as the same sequence of symbols. */
static bool same(const char *a, const char *b)
{
    struct norm_stream x, y;
    normalized(a, &x);
    normalized(b, &y);
    bool eq = x.n == y.n;
    for (size_t i = 0; eq && i < x.n; i++)
        eq = x.t[i].sym == y.t[i].sym;
    norm_stream_release(&x);
    norm_stream_release(&y);
    return eq;
}

#define SAME(a, b) ck_assert_msg(same(a, b), "differ:\n%s\n--\n%s", a, b)
#define DIFFERENT(a, b) ck_assert_msg(!same(a, b), "the same:\n%s\n--\n%s", a, b)

/* Locals nothing reads, the writes to them, statements that do nothing, if (0) and aliases go;
 * a statement with an effect, or a local that is read, stays. */
START_TEST(test_dead_statements)
{
    const char *plain = "void f(float *x, int n)\n{\n    for (int i = 0; i < n; i++)\n"
                        "        x[i] = 2 * x[i];\n}\n";
    SAME(plain,
         "void f(float *x, int n)\n{\n    int unused = 3;\n    (void)n;\n"
         "    double t = 1.5;\n    t *= 2.0;\n    ;\n    if (0) {\n        int z = 1;\n"
         "        (void)z;\n    }\n    float *p = x;\n    unsigned c = 0u;\n"
         "    for (int i = 0; i < n; i++) {\n        c++;\n        p[i] = 2 * p[i];\n    }\n}\n");
    DIFFERENT(plain, "void f(float *x, int n)\n{\n    printf(\"%d\", n);\n"
                     "    for (int i = 0; i < n; i++)\n        x[i] = 2 * x[i];\n}\n");
    DIFFERENT(plain, "void f(float *x, int n)\n{\n    int k = 3;\n    x[0] = k;\n"
                     "    for (int i = 0; i < n; i++)\n        x[i] = 2 * x[i];\n}\n");
}
END_TEST

/* for (A; B; C) S compares as A; while (B) { S C; }, with or without braces around it, and with
 * A wherever it was put before the loop. */
START_TEST(test_for_while)
{
    const char *f = "float s(const float *x, int n)\n{\n    float t = 0;\n"
                    "    for (int i = 0; i < n; i++)\n        t += x[i];\n    return t;\n}\n";
    SAME(f, "float s(const float *x, int n)\n{\n    float t = 0;\n    int i = 0;\n"
            "    while (i < n) {\n        t += x[i];\n        i++;\n    }\n    return t;\n}\n");
    SAME(f, "float s(const float *x, int n)\n{\n    float t = 0;\n    {\n        int i = 0;\n"
            "        while (i < n) {\n            t += x[i];\n            i++;\n        }\n"
            "    }\n    return t;\n}\n");
    SAME(f, "float s(const float *x, int n)\n{\n    int i = 0;\n    float t = 0;\n"
            "    while (i < n) {\n        t += x[i];\n        i++;\n    }\n    return t;\n}\n");
    DIFFERENT(f, "float s(const float *x, int n)\n{\n    float t = 0;\n"
                 "    for (int i = 0; i < n; i++)\n        t -= x[i];\n    return t;\n}\n");
}
END_TEST

/* Statements that neither touch a variable the other writes nor both touch memory are put in
 * one order; others keep theirs. */
START_TEST(test_reorder)
{
    const char *a = "void f(float *x, int n)\n{\n    int a = n + 1;\n    int b = n * 2;\n"
                    "    float c = 0.5f;\n    x[0] = a + c;\n    x[1] = b;\n}\n";
    SAME(a, "void f(float *x, int n)\n{\n    float c = 0.5f;\n    int b = n * 2;\n"
            "    int a = n + 1;\n    x[0] = a + c;\n    x[1] = b;\n}\n");
    SAME(a, "void f(float *x, int n)\n{\n    int b = n * 2;\n    int a = n + 1;\n"
            "    float c = 0.5f;\n    x[0] = a + c;\n    x[1] = b;\n}\n");
    /* Dependent: a written, then read. */
    DIFFERENT("void f(float *x, int n)\n{\n    int a = 0, b = 0;\n    a = n + 1;\n    b = a * 2;\n"
              "    x[0] = a + b;\n}\n",
              "void f(float *x, int n)\n{\n    int a = 0, b = 0;\n    b = a * 2;\n    a = n + 1;\n"
              "    x[0] = a + b;\n}\n");
    /* Both touch memory, one writing: a store and a load of an array keep their order. */
    DIFFERENT("void f(float *x, float *y)\n{\n    x[0] = 1;\n    y[0] = x[0];\n}\n",
              "void f(float *x, float *y)\n{\n    y[0] = x[0];\n    x[0] = 1;\n}\n");
}
END_TEST

/* A launch configuration is not compared, but what it reads keeps its place before it. */
START_TEST(test_launch_reads)
{
    SAME("__global__ void k(float *x);\nvoid f(float *x, int n)\n{\n    k<<<(n + 255) / 256, "
         "256>>>(x);\n}\n",
         "__global__ void k(float *x);\nvoid f(float *x, int n)\n{\n    k<<<dim3(n / 128 + 1), "
         "dim3(128), 0, 0>>>(x);\n}\n");
    DIFFERENT(
        "void f(float *x, int n)\n{\n    int b = n;\n    b = b / 2;\n    k<<<b, 32>>>(x);\n}\n",
        "void f(float *x, int n)\n{\n    int b = n;\n    k<<<b, 32>>>(x);\n    b = b / 2;\n}\n");
}
END_TEST

/* Braces do not count: a single statement braced or not, a block's statements. */
START_TEST(test_braces)
{
    SAME(
        "void f(int *x, int n)\n{\n    if (n)\n        x[0] = 1;\n    else\n        x[1] = 2;\n}\n",
        "void f(int *x, int n) {\n  if (n) {\n    x[0] = 1;\n  } else {\n    x[1] = 2;\n  }\n}\n");
}
END_TEST

/* The order of functions does not count, nor does a prototype of a function the file defines;
 * a name the file defines is the student's even when it looks like a library's. */
START_TEST(test_functions_and_names)
{
    const char *a = "#define CUBLAS_CHECK(x) x\nstatic int g(int b)\n{\n    return b * 3 + 1;\n}\n"
                    "int f(int a)\n{\n    return CUBLAS_CHECK(g(a)) - 7;\n}\n";
    SAME(a, "static int g(int b);\nint f(int a)\n{\n    return CHK(g(a)) - 7;\n}\n"
            "#define CHK(x) x\nstatic int g(int b)\n{\n    return b * 3 + 1;\n}\n");
    DIFFERENT(a, "#define CUBLAS_CHECK(x) x\nstatic int g(int b)\n{\n    return b * 3 + 1;\n}\n"
                 "int f(int a)\n{\n    return CUBLAS_CHECK(g(a)) + 7;\n}\n");
}
END_TEST

/* Nesting past CANON_DEPTH, lists past CANON_LIST and unbalanced brackets: compared, in an
 * order of their own; the watchdog bounds the time. */
START_TEST(test_hostile)
{
    struct strbuf sb = STRBUF_INIT;
    struct norm_stream s;
    strbuf_addstr(&sb, "void f(int *x)\n{\n");
    for (int i = 0; i < 20000; i++)
        strbuf_addstr(&sb, "if (x[0]) {");
    strbuf_addstr(&sb, "x[1] = 2;");
    for (int i = 0; i < 20000; i++)
        strbuf_addch(&sb, '}');
    for (int i = 0; i < 3 * CANON_LIST; i++)
        strbuf_addf(&sb, "int v%d = x[%d];\nx[%d] = v%d;\n", i, i, i + 1, i);
    strbuf_addstr(&sb, "}\nvoid g(int n) { for (;; { while (n) do ; ) }\n");
    normalized(strbuf_str(&sb), &s);
    ck_assert_uint_gt(s.n, 20000);
    norm_stream_release(&s);
    /* A chain of locals that die one after another, the last first: all of it is dead. */
    strbuf_reset(&sb);
    strbuf_addstr(&sb, "void f(void)\n{\n    int x0 = 1;\n");
    for (int i = 1; i < 20000; i++)
        strbuf_addf(&sb, "    int x%d = x%d + 1;\n", i, i - 1);
    strbuf_addstr(&sb, "}\n");
    SAME(strbuf_str(&sb), "void f(void)\n{\n}\n");
    strbuf_release(&sb);
}
END_TEST

static Suite *canon_suite(void)
{
    Suite *s = suite_create("canon");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_dead_statements);
    tcase_add_test(tc, test_for_while);
    tcase_add_test(tc, test_reorder);
    tcase_add_test(tc, test_launch_reads);
    tcase_add_test(tc, test_braces);
    tcase_add_test(tc, test_functions_and_names);
    tcase_add_test(tc, test_hostile);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(canon_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
