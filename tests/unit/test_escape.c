/* escape: hostile student text becomes literal Markdown, and code blocks stay fenced. */
#include "base/escape.h"
#include "base/strbuf.h"
#include "base/alloc.h"

#include "base/json.h"

#include <check.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#define FFFD "\xEF\xBF\xBD"
#define ZWSP "\xE2\x80\x8B"
#define ELLIPSIS "\xE2\x80\xA6"

static char *md(const char *s, size_t max)
{
    struct strbuf sb = STRBUF_INIT;
    esc_md_text(&sb, s, max);
    return sb.buf ? strbuf_detach(&sb) : xstrdup("");
}

static char *clean(const char *s)
{
    struct strbuf sb = STRBUF_INIT;
    esc_sanitize(&sb, s);
    return sb.buf ? strbuf_detach(&sb) : xstrdup("");
}

#define ASSERT_MD(in, expected)                                                                    \
    do {                                                                                           \
        char *got_ = md(in, 0);                                                                    \
        ck_assert_str_eq(got_, expected);                                                          \
        free(got_);                                                                                \
    } while (0)

#define ASSERT_CLEAN(in, expected)                                                                 \
    do {                                                                                           \
        char *got_ = clean(in);                                                                    \
        ck_assert_str_eq(got_, expected);                                                          \
        free(got_);                                                                                \
    } while (0)

START_TEST(test_md_hostile_names)
{
    ASSERT_MD("José_Ñúñez #1 \\$100%", "José\\_Ñúñez #1 \\\\$100%");
    ASSERT_MD("\\input{/etc/passwd}", "\\\\input{/etc/passwd}");
    ASSERT_MD("\\write18{rm -rf /}", "\\\\write18{rm -rf /}");
    ASSERT_MD("$\\int$ & ~x^2 &amp;", "$\\\\int$ & \\~x\\^2 \\&amp;");
    ASSERT_MD("<script>alert('x')</script>", "\\<script>alert('x')\\</script>");
    ASSERT_MD("[link](http://evil) ![img](x.png) `code` *em* | cell",
              "\\[link\\](http://evil) !\\[img\\](x.png) \\`code\\` \\*em\\* \\| cell");
    ASSERT_MD("\"quoted\" @cite a@b.c 1. +2 -3 =4 ?5 ,6 ;7",
              "\"quoted\" \\@cite a@b.c 1. +2 -3 =4 ?5 ,6 ;7");
    ASSERT_MD(NULL, "");
    ASSERT_MD("plain text", "plain text");
}
END_TEST

/* Raw report.md reads as the text: only what Markdown would act on is escaped. */
START_TEST(test_md_readable_raw)
{
    ASSERT_MD("2026-11-28T12:24:11+0000", "2026-11-28T12:24:11+0000");
    ASSERT_MD("labs/lab6/solution", "labs/lab6/solution");
    ASSERT_MD("matmul_cpu n=1024 rtol=0.002 (float32)", "matmul_cpu n=1024 rtol=0.002 (float32)");
    ASSERT_MD("-std=gnu11 -O2 --full", "\\-std=gnu11 -O2 --full");
    ASSERT_MD("_leading and trailing_", "\\_leading and trailing\\_");
    /* Where a value may start a line: a heading, list, quote, rule, definition. */
    ASSERT_MD("# not a heading", "\\# not a heading");
    ASSERT_MD("  > not a quote", "\\> not a quote");
    ASSERT_MD("+ x", "\\+ x");
    ASSERT_MD("=== x", "\\=== x");
    ASSERT_MD(": x", "\\: x");
    ASSERT_MD("1. x", "1\\. x");
    ASSERT_MD("iv) x", "iv\\) x");
    ASSERT_MD("(a) x", "(a\\) x");
    ASSERT_MD("1.5 x", "1.5 x");
}
END_TEST

/* pandoc (as the PDF reads it, and as CommonMark) reads every escaped value back as plain
 * text, word for word, wherever it sits: each value is a paragraph of its own, so at the start
 * of a line after a blank one, the worst place. */
static const char *const hostile_values[] = {
    "# heading",
    "- item",
    "* item",
    "+ item",
    "1. item",
    "a) item",
    "(iv) item",
    "#. item",
    "> quote",
    "---",
    "***",
    "___",
    "===",
    ": definition",
    "::: div",
    "| a | b |",
    "[x](http://y)",
    "![i](x.png)",
    "<http://z>",
    "<b>bold</b>",
    "`code`",
    "*em* _em_ __s__",
    "~~strike~~",
    "H~2~O x^2^",
    "^[note] [^1]",
    "@cite [@key]",
    "(@) example",
    "\\input{/etc/passwd}",
    "$x^2$ $$y$$",
    "&amp; &#38;",
    "<!-- comment -->",
    "[ ] task",
    "a\\\nb",
    "matmul_cpu a_b",
    "x*y*z",
    "Table: caption",
    "% title",
    "~~~ fence",
    "``` fence",
    "    indented code",
};

static bool pandoc_here(void)
{
    return system("pandoc --version >/dev/null 2>&1") == 0;
}

/* The text of a pandoc JSON inline list; false on anything but Str, Space and SoftBreak. */
static bool plain_inlines(const struct json_value *list, struct strbuf *text)
{
    for (size_t i = 0; list && i < list->n; i++) {
        const char *t = json_get_string(json_at(list, i), "t");
        if (!t)
            return false;
        if (!strcmp(t, "Str"))
            strbuf_addstr(text, json_get_string(json_at(list, i), "c"));
        else if (!strcmp(t, "Space") || !strcmp(t, "SoftBreak"))
            strbuf_addch(text, ' ');
        else
            return false;
    }
    return true;
}

static void check_pandoc_reads_text(const char *format)
{
    size_t n = sizeof(hostile_values) / sizeof(*hostile_values);
    struct strbuf doc = STRBUF_INIT, out = STRBUF_INIT;
    for (size_t i = 0; i < n; i++) {
        esc_md_text(&doc, hostile_values[i], 0);
        strbuf_addstr(&doc, "\n\n");
    }
    char dir[] = "/tmp/lg-escape-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char *in = xstrfmt("%s/in.md", dir), *json = xstrfmt("%s/out.json", dir);
    FILE *f = fopen(in, "w");
    ck_assert_ptr_nonnull(f);
    fputs(strbuf_str(&doc), f);
    fclose(f);
    char *cmd = xstrfmt("pandoc -f %s -t json -o '%s' '%s'", format, json, in);
    ck_assert_int_eq(system(cmd), 0);
    FILE *j = fopen(json, "r");
    char buf[4096];
    size_t got;
    while ((got = fread(buf, 1, sizeof(buf), j)) > 0)
        strbuf_add(&out, buf, got);
    fclose(j);
    struct json_value *root = NULL;
    ck_assert_int_eq(json_parse(out.buf, out.len, &root, NULL), 0);
    const struct json_value *blocks = json_get(root, "blocks");
    ck_assert_msg(blocks && blocks->n == n, "%s: %zu blocks for %zu values:\n%s", format,
                  blocks ? blocks->n : 0, n, out.buf);
    for (size_t i = 0; i < n; i++) {
        const struct json_value *b = json_at(blocks, i);
        struct strbuf text = STRBUF_INIT, want = STRBUF_INIT;
        const char *t = json_get_string(b, "t");
        ck_assert_msg(t && !strcmp(t, "Para") && plain_inlines(json_get(b, "c"), &text),
                      "%s reads '%s' as markup: %s", format, hostile_values[i], out.buf);
        for (const char *p = hostile_values[i]; *p; p++)
            strbuf_addch(&want, *p == '\n' ? ' ' : *p);
        /* Leading blanks are layout, not text; the rest is the value word for word. */
        ck_assert_str_eq(strbuf_str(&text), strbuf_str(&want) + strspn(strbuf_str(&want), " "));
        strbuf_release(&text);
        strbuf_release(&want);
    }
    json_value_free(root);
    unlink(in);
    unlink(json);
    rmdir(dir);
    free(cmd);
    free(in);
    free(json);
    strbuf_release(&doc);
    strbuf_release(&out);
}

START_TEST(test_md_pandoc_reads_plain_text)
{
    if (!pandoc_here()) {
        fprintf(stderr, "test_escape: pandoc not installed: escaping not replayed through it\n");
        return;
    }
    check_pandoc_reads_text("markdown-raw_tex-raw_html-raw_attribute-tex_math_dollars-"
                            "yaml_metadata_block-smart");
    check_pandoc_reads_text("commonmark");
}
END_TEST

START_TEST(test_md_newlines_tabs_become_spaces)
{
    /* A value cannot leave its table cell or start a heading or list on a new line. */
    ASSERT_MD("line one\n# not a heading\n- not a list\ttab", "line one # not a heading - not a "
                                                              "list tab");
    ASSERT_MD("a\r\nb", "a b");
}
END_TEST

START_TEST(test_md_long_line_breakable)
{
    char *line = xmalloc(10001);
    memset(line, 'A', 10000);
    line[10000] = '\0';
    char *got = md(line, 0);
    /* A zero-width space after every 30 characters: 333 of them. */
    ck_assert_uint_eq(strlen(got), 10000 + 333 * 3);
    ck_assert(strncmp(got, "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" ZWSP "A", 34) == 0);
    free(got);
    /* Spaces reset the run: ordinary prose is untouched. */
    ASSERT_MD("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
              "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb");
    /* Escapes are never split from their character. */
    ASSERT_MD("______________________________x",
              "\\_\\_\\_\\_\\_\\_\\_\\_\\_\\_\\_\\_\\_\\_\\_\\_\\_"
              "\\_\\_\\_\\_\\_\\_\\_\\_\\_\\_\\_\\_\\_" ZWSP "x");
    /* Clipped text ends with an ellipsis. */
    got = md(line, 5);
    ck_assert_str_eq(got, "AAAAA" ELLIPSIS);
    free(got);
    got = md("ñandú_", 5);
    ck_assert_str_eq(got, "ñandú" ELLIPSIS);
    free(got);
    got = md("short", 5);
    ck_assert_str_eq(got, "short");
    free(got);
    free(line);
}
END_TEST

START_TEST(test_sanitize_invalid_utf8)
{
    /* One U+FFFD per maximal invalid subsequence (as Python's errors="replace"). */
    ASSERT_CLEAN("a\xff"
                 "b",
                 "a" FFFD "b");
    ASSERT_CLEAN("a\xe2\x82"
                 "c",
                 "a" FFFD "c");                                 /* truncated 3-byte sequence */
    ASSERT_CLEAN("\xc0\xaf", FFFD FFFD);                        /* overlong '/' */
    ASSERT_CLEAN("\xed\xa0\x80", FFFD FFFD FFFD);               /* a surrogate */
    ASSERT_CLEAN("\xf4\x90\x80\x80", FFFD FFFD FFFD FFFD);      /* above U+10FFFF */
    ASSERT_CLEAN("\xe2\x82", FFFD);                             /* cut at the end */
    ASSERT_CLEAN("\xf0\x9f\x98\x80 ok", "\xf0\x9f\x98\x80 ok"); /* valid 4-byte */
    ASSERT_CLEAN("Álvarez", "Álvarez");
    /* And through the Markdown escaper. */
    ASSERT_MD("x\xfe_", "x" FFFD "\\_");
}
END_TEST

START_TEST(test_sanitize_controls)
{
    ASSERT_CLEAN("a\x01"
                 "b\x1b[31mred\x1b[0m\x7f",
                 "ab[31mred[0m");
    ASSERT_CLEAN("keep\ttab\nnewline\r\n", "keep\ttab\nnewline\n");
    ASSERT_CLEAN("c1\xc2\x85"
                 "x\xc2\x9f"
                 "y",
                 "c1xy");                         /* C1 controls */
    ASSERT_CLEAN("\xc2\xa0nbsp", "\xc2\xa0nbsp"); /* U+00A0 is not a control */
    ASSERT_MD("bell\a!", "bell!");
}
END_TEST

START_TEST(test_first_line_and_clip)
{
    char *s = esc_first_line("first line\nsecond line", 100);
    ck_assert_str_eq(s, "first line " ELLIPSIS);
    free(s);
    s = esc_first_line("only line\n\n  \n", 100);
    ck_assert_str_eq(s, "only line");
    free(s);
    s = esc_first_line("abcdefghij", 4);
    ck_assert_str_eq(s, "abcd" ELLIPSIS);
    free(s);
    s = esc_clip("a\x01\xffz", 10);
    ck_assert_str_eq(s, "a" FFFD "z");
    free(s);
    s = esc_first_line(NULL, 10);
    ck_assert_str_eq(s, "");
    free(s);
}
END_TEST

START_TEST(test_fence_longer_than_backtick_runs)
{
    struct strbuf sb = STRBUF_INIT;
    esc_md_fence(&sb, "plain\n", NULL);
    ck_assert_str_eq(sb.buf, "```\nplain\n```\n");
    strbuf_reset(&sb);
    esc_md_fence(&sb, "a ``` b\n````````\nc", NULL);
    ck_assert_str_eq(sb.buf, "`````````\na ``` b\n````````\nc\n`````````\n");
    strbuf_reset(&sb);
    esc_md_fence(&sb, "x `y` z", "text");
    ck_assert_str_eq(sb.buf, "```text\nx `y` z\n```\n");
    strbuf_release(&sb);
    ck_assert_uint_eq(esc_backtick_run("a``b```c`"), 3);
    ck_assert_uint_eq(esc_backtick_run(""), 0);
}
END_TEST

START_TEST(test_code_wrap_and_cap)
{
    struct strbuf sb = STRBUF_INIT;
    char *line = xmalloc(10001);
    memset(line, 'x', 10000);
    line[10000] = '\0';
    /* 10 000 characters: 100 lines of 100, of which 60 are kept. */
    size_t omitted = esc_code_wrap(&sb, line, 100, 60);
    ck_assert_uint_eq(omitted, 40);
    ck_assert_uint_eq(sb.len, 60 * 101);
    for (size_t i = 0; i < 60; i++)
        ck_assert_int_eq(sb.buf[i * 101 + 100], '\n');
    strbuf_reset(&sb);
    omitted = esc_code_wrap(&sb, line, 100, 0);
    ck_assert_uint_eq(omitted, 0);
    ck_assert_uint_eq(sb.len, 100 * 101);
    free(line);

    /* Width counts characters, not bytes; tabs go to 8-column stops. */
    strbuf_reset(&sb);
    omitted = esc_code_wrap(&sb, "ñññññ\tx\n\tb\n\n\n", 6, 0);
    ck_assert_uint_eq(omitted, 0);
    ck_assert_str_eq(sb.buf, "ñññññ \n  x\n      \n  b\n");

    /* Controls and invalid bytes are cleaned inside code blocks too; trailing blank lines go. */
    strbuf_reset(&sb);
    esc_code_wrap(&sb, "warning: \x1b[1munused\x1b[0m \xff\r\n   \n\n", 100, 60);
    ck_assert_str_eq(sb.buf, "warning: [1munused[0m " FFFD "\n");

    /* Backticks survive the wrapping and the fence grows past them. */
    strbuf_reset(&sb);
    esc_code_wrap(&sb, "```` \\write18{rm -rf /}", 100, 60);
    struct strbuf fenced = STRBUF_INIT;
    esc_md_fence(&fenced, sb.buf, NULL);
    ck_assert_str_eq(fenced.buf, "`````\n```` \\write18{rm -rf /}\n`````\n");
    strbuf_release(&fenced);

    strbuf_reset(&sb);
    ck_assert_uint_eq(esc_code_wrap(&sb, "", 100, 60), 0);
    ck_assert_uint_eq(sb.len, 0);
    strbuf_release(&sb);
}
END_TEST

/* Anchors are the same for every page and never collide: "a b" and "a_20b" differ. */
START_TEST(test_anchor_distinct_and_plain)
{
    struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
    esc_anchor(&a, "sub-", "ana.g-2");
    ck_assert_str_eq(a.buf, "sub-ana.g-2");
    strbuf_reset(&a);
    esc_anchor(&a, "sub-", "a b");
    esc_anchor(&b, "sub-", "a_20b");
    ck_assert_str_eq(a.buf, "sub-a_20b");
    ck_assert_str_eq(b.buf, "sub-a_5F20b");
    strbuf_reset(&a);
    esc_anchor(&a, "", "\"<ñ>#");
    ck_assert_str_eq(a.buf, "_22_3C_C3_B1_3E_23");
    strbuf_reset(&a);
    esc_anchor(&a, NULL, NULL);
    ck_assert_str_eq(strbuf_str(&a), "");
    strbuf_release(&a);
    strbuf_release(&b);
}
END_TEST

static Suite *escape_suite(void)
{
    Suite *s = suite_create("escape");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_md_hostile_names);
    tcase_add_test(tc, test_md_readable_raw);
    tcase_add_test(tc, test_md_pandoc_reads_plain_text);
    tcase_add_test(tc, test_md_newlines_tabs_become_spaces);
    tcase_add_test(tc, test_md_long_line_breakable);
    tcase_add_test(tc, test_sanitize_invalid_utf8);
    tcase_add_test(tc, test_sanitize_controls);
    tcase_add_test(tc, test_first_line_and_clip);
    tcase_add_test(tc, test_fence_longer_than_backtick_runs);
    tcase_add_test(tc, test_code_wrap_and_cap);
    tcase_add_test(tc, test_anchor_distinct_and_plain);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(escape_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
