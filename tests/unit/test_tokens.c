/* tokens and syntax: libclang's lexer over C and CUDA, and the structure read off its tokens. */
#include "analyze/syntax.h"
#include "analyze/tokens.h"
#include "base/alloc.h"
#include "base/strbuf.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

static void lex(const char *text, enum src_lang lang, struct token_list *l)
{
    struct error err;
    char why[512];
    ck_assert_msg(tokens_available(why, sizeof(why)), "libclang: %s", why);
    token_list_init(l);
    ck_assert_msg(tokens_lex("t", text, strlen(text), lang, l, &err) == 0, "%s", err.msg);
}

/* The token spellings joined by single spaces. */
static char *joined(const struct token_list *l)
{
    struct strbuf s = STRBUF_INIT;
    for (size_t i = 0; i < l->n; i++)
        strbuf_addf(&s, "%s%s", i ? " " : "", l->items[i].text);
    return strbuf_detach(&s);
}

START_TEST(test_c_tokens_and_positions)
{
    struct token_list l;
    lex("int f(int n) {\n  return n <= 3; // note\n}\n", SRC_C, &l);
    char *s = joined(&l);
    ck_assert_str_eq(s, "int f ( int n ) { return n <= 3 ; // note }");
    free(s);
    ck_assert_int_eq(l.items[0].kind, TOK_KEYWORD);
    ck_assert_int_eq(l.items[1].kind, TOK_IDENT);
    ck_assert_int_eq(l.items[2].kind, TOK_PUNCT);
    ck_assert_int_eq(l.items[10].kind, TOK_LITERAL);
    ck_assert_int_eq(l.items[12].kind, TOK_COMMENT);
    /* "<=" on line 2, column 12, at byte 26. */
    ck_assert_str_eq(l.items[9].text, "<=");
    ck_assert_uint_eq(l.items[9].line, 2);
    ck_assert_uint_eq(l.items[9].col, 12);
    ck_assert_uint_eq(l.items[9].offset, 26);
    ck_assert_uint_eq(l.items[9].len, 2);
    token_list_release(&l);
}
END_TEST

START_TEST(test_cuda_launch_is_one_token)
{
    struct token_list l;
    lex("__global__ void k(float *x) { x[0] = 1; }\n"
        "void h(float *x) { k<<<(n + 255) / 256, 256>>>(x); }\n",
        SRC_CUDA, &l);
    size_t open = 0, close = 0;
    for (size_t i = 0; i < l.n; i++) {
        open += !strcmp(l.items[i].text, "<<<");
        close += !strcmp(l.items[i].text, ">>>");
        ck_assert_str_ne(l.items[i].text, "<<");
    }
    ck_assert_uint_eq(open, 1);
    ck_assert_uint_eq(close, 1);
    token_list_release(&l);
    /* The same text as C: no such token. */
    lex("void h(void) { k<<<1, 2>>>(x); }", SRC_C, &l);
    for (size_t i = 0; i < l.n; i++)
        ck_assert_str_ne(l.items[i].text, "<<<");
    token_list_release(&l);
}
END_TEST

/* Directives are lexed, never run: a macro that doubles forty times is a few hundred tokens,
 * and a '#' comes back as a token of its own, where it was. */
START_TEST(test_directives_never_run)
{
    struct strbuf src = STRBUF_INIT;
    strbuf_addstr(&src, "#include </dev/zero>\n#define B0 ;;\n");
    for (int i = 1; i <= 40; i++)
        strbuf_addf(&src, "#define B%d B%d B%d\n", i, i - 1, i - 1);
    strbuf_addstr(&src, "B40\n#define S(x) #x \"#not\" a##b\n");
    struct token_list l;
    lex(strbuf_str(&src), SRC_C, &l);
    ck_assert_uint_lt(l.n, 400);
    ck_assert_str_eq(l.items[0].text, "#");
    ck_assert_uint_eq(l.items[0].col, 1);
    ck_assert_str_eq(l.items[1].text, "include");
    char *s = joined(&l);
    ck_assert_ptr_nonnull(strstr(s, "# define S ( x ) # x \"#not\" a ## b"));
    free(s);
    token_list_release(&l);
    strbuf_release(&src);
}
END_TEST

START_TEST(test_lang_of_paths)
{
    ck_assert_int_eq(src_lang_of("a/b.cu"), SRC_CUDA);
    ck_assert_int_eq(src_lang_of("k.cuh"), SRC_CUDA);
    ck_assert_int_eq(src_lang_of("m.cpp"), SRC_CXX);
    ck_assert_int_eq(src_lang_of("m.c"), SRC_C);
    ck_assert_int_eq(src_lang_of("lab3.h"), SRC_C);
    struct token_list l;
    struct error err;
    token_list_init(&l);
    ck_assert_int_eq(tokens_lex_file("/nonexistent/x.c", &l, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.file[0] ? err.file : err.msg, "/nonexistent/x.c"));
}
END_TEST

START_TEST(test_functions_params_macros)
{
    struct token_list l;
    struct syntax s;
    lex("#define FOR(i, n) for (int i = 0; i < (n); i++)\n"
        "extern \"C\" {\n"
        "__global__ void k(const float *__restrict__ x, float *y, int n) { FOR(i, n) y[i] = x[i]; "
        "}\n"
        "static int twice(int v) { return 2 * v; }\n"
        "}\n"
        "struct p { int a; };\n"
        "void none(void) { if (1) { } }\n",
        SRC_CUDA, &l);
    syntax_init(&s);
    syntax_scan(&s, &l);
    ck_assert_uint_eq(s.n_macros, 1);
    ck_assert_str_eq(s.macros[0].name, "FOR");
    ck_assert_str_eq(l.items[s.macros[0].body_first].text, "for");
    ck_assert_uint_eq(s.n_funcs, 3);
    ck_assert_str_eq(s.funcs[0].name, "k");
    ck_assert(s.funcs[0].kernel);
    ck_assert_uint_eq(s.funcs[0].n_params, 3);
    ck_assert_str_eq(s.funcs[0].params[0].name, "x");
    ck_assert_str_eq(s.funcs[0].params[0].type, "const float * __restrict__");
    ck_assert_str_eq(s.funcs[1].name, "twice");
    ck_assert(!s.funcs[1].kernel);
    ck_assert_str_eq(s.funcs[2].name, "none");
    ck_assert_uint_eq(s.funcs[2].n_params, 0);
    /* The macro's body is its own place: brackets match inside it. */
    size_t open = s.macros[0].body_first + 1;
    ck_assert_str_eq(l.items[syn_match(&s, open)].text, ")");
    ck_assert_str_eq(syn_directive_name(&s, open), "define");
    ck_assert_ptr_eq(syn_macro_at(&s, open), &s.macros[0]);
    syntax_release(&s);
    token_list_release(&l);
}
END_TEST

START_TEST(test_statement_ends)
{
    struct token_list l;
    struct syntax s;
    lex("void f(int *a, int n) {\n"
        "  if (n > 0) a[0] = 1; else { a[1] = 2; }\n"
        "  for (int i = 0; i < n; i++) if (a[i]) a[i]--;\n"
        "  do { n--; } while (n > 0);\n"
        "  a[2] = (n + 1) * 2;\n"
        "}\n",
        SRC_C, &l);
    syntax_init(&s);
    syntax_scan(&s, &l);
    size_t ends[4], k = 0;
    for (size_t i = s.funcs[0].body_open + 1; i < s.funcs[0].body_close && k < 4; i++) {
        size_t e = syn_stmt_end(&s, i);
        ck_assert(e != SIZE_MAX);
        ends[k++] = e;
        i = e;
    }
    ck_assert_uint_eq(k, 4);
    ck_assert_str_eq(l.items[ends[0]].text, "}");
    ck_assert_uint_eq(l.items[ends[0]].line, 2);
    ck_assert_uint_eq(l.items[ends[1]].line, 3);
    ck_assert_str_eq(l.items[ends[2]].text, ";");
    ck_assert_uint_eq(l.items[ends[2]].line, 4);
    ck_assert_uint_eq(l.items[ends[3]].line, 5);
    syntax_release(&s);
    token_list_release(&l);
}
END_TEST

static Suite *tokens_suite(void)
{
    Suite *s = suite_create("tokens");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_c_tokens_and_positions);
    tcase_add_test(tc, test_cuda_launch_is_one_token);
    tcase_add_test(tc, test_directives_never_run);
    tcase_add_test(tc, test_lang_of_paths);
    tcase_add_test(tc, test_functions_params_macros);
    tcase_add_test(tc, test_statement_ends);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(tokens_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
