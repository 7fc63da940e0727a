/* escape: hostile student text becomes literal Markdown, and code blocks stay fenced. */
#include "base/escape.h"
#include "base/strbuf.h"
#include "base/alloc.h"

#include <check.h>
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
    ASSERT_MD("José_Ñúñez #1 \\$100%", "José\\_Ñúñez \\#1 \\\\\\$100\\%");
    ASSERT_MD("\\input{/etc/passwd}", "\\\\input\\{\\/etc\\/passwd\\}");
    ASSERT_MD("\\write18{rm -rf /}", "\\\\write18\\{rm \\-rf \\/\\}");
    ASSERT_MD("$\\int$ & ~x^2", "\\$\\\\int\\$ \\& \\~x\\^2");
    ASSERT_MD("<script>alert('x')</script>", "\\<script\\>alert\\(\\'x\\'\\)\\<\\/script\\>");
    ASSERT_MD("[link](http://evil) ![img](x.png) `code` *em* | cell",
              "\\[link\\]\\(http\\:\\/\\/evil\\) \\!\\[img\\]\\(x\\.png\\) \\`code\\` \\*em\\* "
              "\\| cell");
    ASSERT_MD("\"quoted\" @cite 1. +2 -3 =4 ?5 ,6 ;7", "\\\"quoted\\\" \\@cite 1\\. \\+2 \\-3 "
                                                       "\\=4 \\?5 \\,6 \\;7");
    ASSERT_MD(NULL, "");
    ASSERT_MD("plain text", "plain text");
}
END_TEST

START_TEST(test_md_every_ascii_punctuation_escaped)
{
    const char *punct = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";
    ck_assert_uint_eq(strlen(punct), 32);
    for (size_t i = 0; punct[i]; i++) {
        char in[4] = {'x', punct[i], 'y', '\0'}, want[5] = {'x', '\\', punct[i], 'y', '\0'};
        char *got = md(in, 0);
        ck_assert_str_eq(got, want);
        free(got);
    }
    /* Letters, digits, spaces and non-ASCII text are left alone. */
    ASSERT_MD("azAZ09 ñ€", "azAZ09 ñ€");
}
END_TEST

START_TEST(test_md_newlines_tabs_become_spaces)
{
    /* A value cannot leave its table cell or start a heading or list on a new line. */
    ASSERT_MD("line one\n# not a heading\n- not a list\ttab",
              "line one \\# not a heading \\- not a "
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
    ASSERT_MD("bell\a!", "bell\\!");
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

static Suite *escape_suite(void)
{
    Suite *s = suite_create("escape");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_md_hostile_names);
    tcase_add_test(tc, test_md_every_ascii_punctuation_escaped);
    tcase_add_test(tc, test_md_newlines_tabs_become_spaces);
    tcase_add_test(tc, test_md_long_line_breakable);
    tcase_add_test(tc, test_sanitize_invalid_utf8);
    tcase_add_test(tc, test_sanitize_controls);
    tcase_add_test(tc, test_first_line_and_clip);
    tcase_add_test(tc, test_fence_longer_than_backtick_runs);
    tcase_add_test(tc, test_code_wrap_and_cap);
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
