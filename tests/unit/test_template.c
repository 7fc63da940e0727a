/* template: the Mustache subset, its context tree, and errors with line:column. */
#include "base/escape.h"
#include "base/template.h"
#include "base/alloc.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

static void md_escape(struct strbuf *out, const char *s)
{
    esc_md_text(out, s, 0);
}

/* Render text with ctx; returns the output (caller frees) or NULL with *err set. */
static char *render(const char *text, const struct tpl_value *ctx, bool strict, struct error *err)
{
    struct tpl_render_opts o = {md_escape, strict};
    struct strbuf out = STRBUF_INIT;
    error_init(err);
    if (template_render_text("t.md", text, ctx, &o, &out, err) != 0) {
        strbuf_release(&out);
        return NULL;
    }
    return out.buf ? strbuf_detach(&out) : xstrdup("");
}

#define ASSERT_RENDER(text, ctx, expected)                                                         \
    do {                                                                                           \
        struct error e_;                                                                           \
        char *got_ = render(text, ctx, true, &e_);                                                 \
        ck_assert_msg(got_ != NULL, "render failed: %d:%d: %s", e_.line, e_.col, e_.msg);          \
        ck_assert_str_eq(got_, expected);                                                          \
        free(got_);                                                                                \
    } while (0)

/* The render (or parse) fails at line:col with a message containing `needle`. */
#define ASSERT_ERROR(text, ctx, strict, eline, ecol, needle)                                       \
    do {                                                                                           \
        struct error e_;                                                                           \
        char *got_ = render(text, ctx, strict, &e_);                                               \
        ck_assert_msg(got_ == NULL, "expected an error, got '%s'", got_ ? got_ : "");              \
        ck_assert_str_eq(e_.file, "t.md");                                                         \
        ck_assert_int_eq(e_.line, eline);                                                          \
        ck_assert_int_eq(e_.col, ecol);                                                            \
        ck_assert_msg(strstr(e_.msg, needle), "message '%s' lacks '%s'", e_.msg, needle);          \
    } while (0)

static struct tpl_value *sample(void)
{
    struct tpl_value *m = tpl_map();
    tpl_set_str(m, "name", "José_Ñúñez");
    tpl_set_md(m, "bold", "**x**");
    tpl_set_num(m, "int", 42);
    tpl_set_num(m, "frac", 2.5);
    tpl_set_num(m, "zero", 0);
    tpl_set_bool(m, "yes", true);
    tpl_set_bool(m, "no", false);
    tpl_set_str(m, "empty", "");
    tpl_set_list(m, "none");
    struct tpl_value *words = tpl_set_list(m, "words");
    tpl_push(words, tpl_string("a"));
    tpl_push(words, tpl_string("b*"));
    tpl_push(words, tpl_string("c"));
    struct tpl_value *machine = tpl_set_map(m, "machine");
    tpl_set_str(machine, "cpu", "Xeon");
    struct tpl_value *gpu = tpl_set_map(machine, "gpu");
    tpl_set_str(gpu, "name", "H100");
    tpl_set_num(gpu, "mib", 81559);
    struct tpl_value *exs = tpl_set_list(m, "exercises");
    for (int e = 1; e <= 2; e++) {
        struct tpl_value *ex = tpl_push_map(exs);
        char id[16];
        snprintf(id, sizeof(id), "ex%d", e);
        tpl_set_str(ex, "id", id);
        struct tpl_value *cases = tpl_set_list(ex, "cases");
        for (int c = 1; c <= e; c++) {
            struct tpl_value *cv = tpl_push_map(cases);
            snprintf(id, sizeof(id), "c%d", c);
            tpl_set_str(cv, "id", id);
            tpl_set_bool(cv, "passed", c == 1);
        }
    }
    return m;
}

START_TEST(test_interpolation_and_escaping)
{
    struct tpl_value *m = sample();
    ASSERT_RENDER("Hi {{name}}!", m, "Hi José\\_Ñúñez!");
    ASSERT_RENDER("Hi {{ name }}!", m, "Hi José\\_Ñúñez!");
    ASSERT_RENDER("raw {{{name}}} {{&name}}", m, "raw José_Ñúñez José_Ñúñez");
    ASSERT_RENDER("{{bold}} {{{bold}}}", m, "**x** **x**"); /* already Markdown */
    ASSERT_RENDER("{{int}} {{frac}} {{zero}} {{yes}} {{no}} [{{empty}}]", m,
                  "42 2.5 0 true false []");
    ASSERT_RENDER("{{machine.gpu.name}} {{machine.gpu.mib}} MiB", m, "H100 81559 MiB");
    ASSERT_RENDER("no tags at all\n", m, "no tags at all\n");
    ASSERT_RENDER("a } b }} c {", m, "a } b }} c {");
    ASSERT_RENDER("", m, "");
    tpl_value_free(m);
}
END_TEST

START_TEST(test_sections_lists_and_nesting)
{
    struct tpl_value *m = sample();
    ASSERT_RENDER("{{#words}}[{{.}}]{{/words}}", m, "[a][b\\*][c]");
    ASSERT_RENDER("{{#words}}{{@index}}={{.}}{{^@last}}, {{/@last}}{{/words}}", m,
                  "1=a, 2=b\\*, 3=c");
    ASSERT_RENDER("{{#words}}{{#@first}}first:{{/@first}}{{.}} {{/words}}", m, "first:a b\\* c ");
    ASSERT_RENDER("{{#exercises}}{{id}}:{{#cases}} {{id}}{{#passed}}+{{/passed}}"
                  "{{^passed}}-{{/passed}}{{/cases}};{{/exercises}}",
                  m, "ex1: c1+;ex2: c1+ c2-;");
    /* An inner item sees the names of the items around it and of the root. */
    ASSERT_RENDER("{{#exercises}}{{#cases}}{{name}}/{{machine.cpu}} {{/cases}}{{/exercises}}", m,
                  "José\\_Ñúñez/Xeon José\\_Ñúñez/Xeon José\\_Ñúñez/Xeon ");
    /* A map section pushes the map; truthy scalars render once. */
    ASSERT_RENDER("{{#machine}}{{cpu}} {{gpu.name}}{{/machine}}", m, "Xeon H100");
    ASSERT_RENDER("{{#yes}}y{{/yes}}{{#no}}n{{/no}}{{#int}}i{{/int}}{{#zero}}z{{/zero}}", m, "yi");
    ASSERT_RENDER("{{#name}}<{{.}}>{{/name}}{{#empty}}e{{/empty}}", m, "<José\\_Ñúñez>");
    ASSERT_RENDER("{{#none}}x{{/none}}", m, "");
    tpl_value_free(m);
}
END_TEST

START_TEST(test_inverted_sections)
{
    struct tpl_value *m = sample();
    ASSERT_RENDER("{{^none}}empty list{{/none}}", m, "empty list");
    ASSERT_RENDER("{{^no}}false{{/no}}{{^zero}} zero{{/zero}}{{^empty}} blank{{/empty}}", m,
                  "false zero blank");
    ASSERT_RENDER("{{^words}}x{{/words}}{{^yes}}x{{/yes}}{{^machine}}x{{/machine}}", m, "");
    /* A missing name is falsy, even in strict mode. */
    ASSERT_RENDER("{{^does_not_exist}}missing{{/does_not_exist}}", m, "missing");
    tpl_value_free(m);
}
END_TEST

START_TEST(test_standalone_lines)
{
    struct tpl_value *m = sample();
    ASSERT_RENDER("a\n{{#words}}\n- {{.}}\n{{/words}}\nz\n", m, "a\n- a\n- b\\*\n- c\nz\n");
    ASSERT_RENDER("a\n  {{#yes}}  \nb\n\t{{/yes}}\nc", m, "a\nb\nc");
    ASSERT_RENDER("a\r\n{{#yes}}\r\nb\r\n{{/yes}}\r\nc\r\n", m, "a\r\nb\r\nc\r\n");
    ASSERT_RENDER("{{! a comment\n   over two lines }}\nnext\n", m, "next\n");
    ASSERT_RENDER("x{{! inline }}y", m, "xy");
    /* Tags sharing a line with text or other tags keep the line. */
    ASSERT_RENDER("a {{#yes}}b{{/yes}}\nc\n", m, "a b\nc\n");
    ASSERT_RENDER("{{#yes}}{{/yes}}\nc\n", m, "\nc\n");
    /* Interpolations never take their line away. */
    ASSERT_RENDER("{{empty}}\nc\n", m, "\nc\n");
    /* At the end of the text without a newline. */
    ASSERT_RENDER("a\n{{#yes}}\nb\n{{/yes}}", m, "a\nb\n");
    tpl_value_free(m);
}
END_TEST

START_TEST(test_missing_names)
{
    struct tpl_value *m = sample();
    struct error e;
    char *got = render("[{{nope}}][{{machine.nope}}][{{#nope}}x{{/nope}}]", m, false, &e);
    ck_assert_ptr_nonnull(got);
    ck_assert_str_eq(got, "[][][]");
    free(got);
    ASSERT_ERROR("line one\n  see {{studnet_name}}", m, true, 2, 7, "unknown name 'studnet_name'");
    ASSERT_ERROR("{{machine.gpu.nope}}", m, true, 1, 1, "unknown name 'machine.gpu.nope'");
    ASSERT_ERROR("ñandú {{#nope}}x{{/nope}}", m, true, 1, 7, "unknown name 'nope'");
    /* Dotted lookups do not fall back to outer contexts after the first part. */
    ASSERT_ERROR("{{#machine}}{{gpu.cpu}}{{/machine}}", m, true, 1, 13, "unknown name 'gpu.cpu'");
    /* Lists and maps cannot be printed. */
    ASSERT_ERROR("\n\n   {{words}}", m, false, 3, 4, "'words' is a list");
    ASSERT_ERROR("{{{machine}}}", m, false, 1, 1, "'machine' is a map");
    /* No context at all. */
    got = render("[{{x}}]", NULL, false, &e);
    ck_assert_str_eq(got, "[]");
    free(got);
    tpl_value_free(m);
}
END_TEST

START_TEST(test_malformed_templates)
{
    struct tpl_value *m = sample();
    ASSERT_ERROR("abc\n  {{name", m, false, 2, 3, "unclosed tag");
    ASSERT_ERROR("x {{{name}} y", m, false, 1, 3, "unclosed tag");
    ASSERT_ERROR("a\n{{#words}}\nb\n", m, false, 2, 1, "section 'words' is never closed");
    ASSERT_ERROR("{{#words}}{{#yes}}{{/words}}{{/yes}}", m, false, 1, 19,
                 "closes section 'yes', opened at line 1, column 11");
    ASSERT_ERROR("text\n{{/words}}", m, false, 2, 1, "closes no open section");
    ASSERT_ERROR("{{a b}}", m, false, 1, 1, "invalid name 'a b'");
    ASSERT_ERROR("{{}}", m, false, 1, 1, "invalid name ''");
    ASSERT_ERROR("{{#}}{{/}}", m, false, 1, 1, "invalid name");
    ASSERT_ERROR("{{a..b}}", m, false, 1, 1, "invalid name");
    ASSERT_ERROR("{{.a}}", m, false, 1, 1, "invalid name");
    ASSERT_ERROR("é{{> partial}}", m, false, 1, 2, "partials");
    ASSERT_ERROR("{{=<% %>=}}", m, false, 1, 1, "delimiters");
    tpl_value_free(m);
}
END_TEST

START_TEST(test_context_tree)
{
    struct tpl_value *m = tpl_map();
    tpl_set_str(m, "k", "one");
    tpl_set_str(m, "k", "two"); /* replaces */
    tpl_set_mdf(m, "f", "%d%%", 50);
    struct tpl_value *l = tpl_set_list(m, "l");
    tpl_push_map(l);
    tpl_push(l, tpl_number(1));
    ck_assert_str_eq(tpl_str(tpl_get(m, "k")), "two");
    ck_assert_str_eq(tpl_str(tpl_get(m, "f")), "50%");
    ck_assert_uint_eq(tpl_list_len(tpl_get(m, "l")), 2);
    ck_assert_int_eq(tpl_type_of(tpl_get(m, "l")), TPL_LIST);
    ck_assert_ptr_null(tpl_get(m, "nope"));
    ck_assert_ptr_null(tpl_get(m, "k.deeper"));
    ck_assert_ptr_null(tpl_str(tpl_get(m, "l")));
    ASSERT_RENDER("{{k}} {{f}}", m, "two 50%");
    tpl_value_free(m);
    tpl_value_free(NULL);
}
END_TEST

START_TEST(test_parse_once_render_many)
{
    struct template t;
    struct error err;
    template_init(&t);
    const char *text = "{{#rows}}| {{id}} | {{v}} |\n{{/rows}}";
    ck_assert_int_eq(template_parse(&t, "rows.md", text, strlen(text), &err), 0);
    struct tpl_render_opts o = {NULL, true};
    for (int round = 0; round < 2; round++) {
        struct tpl_value *m = tpl_map();
        struct tpl_value *rows = tpl_set_list(m, "rows");
        for (int i = 0; i < 3; i++) {
            struct tpl_value *r = tpl_push_map(rows);
            tpl_set_num(r, "id", i + round);
            tpl_set_str(r, "v", "a_b"); /* no escape function: as is */
        }
        struct strbuf out = STRBUF_INIT;
        ck_assert_int_eq(template_render(&t, m, &o, &out, &err), 0);
        ck_assert_str_eq(out.buf, round ? "| 1 | a_b |\n| 2 | a_b |\n| 3 | a_b |\n"
                                        : "| 0 | a_b |\n| 1 | a_b |\n| 2 | a_b |\n");
        strbuf_release(&out);
        tpl_value_free(m);
    }
    template_release(&t);
    /* A template that failed to parse cannot be rendered, and says so. */
    ck_assert_int_eq(template_parse(&t, "bad.md", "{{#x}}", 6, &err), -1);
    struct strbuf out = STRBUF_INIT;
    ck_assert_int_eq(template_render(&t, NULL, &o, &out, &err), -1);
    strbuf_release(&out);
    template_release(&t);
    ck_assert_int_eq(template_load(&t, "/nonexistent/x.md", &err), -1);
    template_release(&t);
}
END_TEST

/* A block value: the render's block function inserts it (two formats, one context); without
 * one it is text like any other, escaped; {{{name}}} keeps it as it is. */
static void fence(struct strbuf *out, const char *s)
{
    strbuf_addf(out, "```\n%s```", s);
}

START_TEST(test_blocks)
{
    struct tpl_value *ctx = tpl_map();
    tpl_set_block(ctx, "log", "a *b*\n<c>\n");
    tpl_set_str(ctx, "t", "*x*");
    struct template t;
    struct error err;
    template_init(&t);
    ck_assert_int_eq(template_parse(&t, "t", "{{t}}:{{log}}|{{{log}}}", 23, &err), 0);
    struct tpl_render_opts o = {md_escape, true};
    struct strbuf out = STRBUF_INIT;
    ck_assert_int_eq(template_render_blocks(&t, ctx, &o, fence, &out, &err), 0);
    ck_assert_str_eq(strbuf_str(&out), "\\*x\\*:```\na *b*\n<c>\n```|a *b*\n<c>\n");
    strbuf_reset(&out);
    ck_assert_int_eq(template_render(&t, ctx, &o, &out, &err), 0);
    ck_assert_str_eq(strbuf_str(&out), "\\*x\\*:a \\*b\\* \\<c> |a *b*\n<c>\n");
    strbuf_release(&out);
    template_release(&t);
    tpl_value_free(ctx);
}
END_TEST

static Suite *template_suite(void)
{
    Suite *s = suite_create("template");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_interpolation_and_escaping);
    tcase_add_test(tc, test_sections_lists_and_nesting);
    tcase_add_test(tc, test_inverted_sections);
    tcase_add_test(tc, test_standalone_lines);
    tcase_add_test(tc, test_missing_names);
    tcase_add_test(tc, test_malformed_templates);
    tcase_add_test(tc, test_context_tree);
    tcase_add_test(tc, test_parse_once_render_many);
    tcase_add_test(tc, test_blocks);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(template_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
