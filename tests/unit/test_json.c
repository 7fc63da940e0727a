/* json: parsing into a tree (structure, escapes, surrogate pairs, strict numbers, errors with
 * line:col), lookups, string escaping for any bytes, number formatting, the pretty writer. */
#include "base/json.h"

#include <check.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* "María Ñúñez" in UTF-8 (split so that no hex escape runs into a letter). */
#define MARIA                                                                                      \
    "Mar\xc3\xad"                                                                                  \
    "a \xc3\x91\xc3\xba\xc3\xb1"                                                                   \
    "ez"

static struct json_value *parse_ok(const char *text)
{
    struct json_value *v = NULL;
    struct error err;
    error_init(&err);
    int rc = json_parse(text, strlen(text), &v, &err);
    ck_assert_msg(rc == 0, "parsing <%s>: %d:%d: %s", text, err.line, err.col, err.msg);
    ck_assert_ptr_nonnull(v);
    return v;
}

/* Parsing fails at line:col with a message containing `what`. */
static void parse_fails(const char *text, size_t len, int line, int col, const char *what)
{
    struct json_value *v = (struct json_value *)1;
    struct error err;
    error_init(&err);
    ck_assert_msg(json_parse(text, len, &v, &err) == -1, "<%s> parsed", text);
    ck_assert_ptr_null(v);
    ck_assert_msg(err.line == line && err.col == col, "<%s>: at %d:%d, want %d:%d (%s)", text,
                  err.line, err.col, line, col, err.msg);
    ck_assert_msg(strstr(err.msg, what), "<%s>: message '%s' lacks '%s'", text, err.msg, what);
    ck_assert_str_eq(err.file, "");
}

static void bad(const char *text, int line, int col, const char *what)
{
    parse_fails(text, strlen(text), line, col, what);
}

/* The string value of a one-string document. */
static char *string_of(const char *text)
{
    struct json_value *v = parse_ok(text);
    ck_assert_int_eq(v->type, JSON_STRING);
    char *s = strdup(v->string);
    json_value_free(v);
    return s;
}

static void assert_string(const char *text, const char *want)
{
    char *got = string_of(text);
    ck_assert_msg(!strcmp(got, want), "<%s> decoded differently", text);
    free(got);
}

static char *written(const char *s)
{
    struct strbuf sb = STRBUF_INIT;
    json_write_string(&sb, s);
    return strbuf_detach(&sb);
}

static void assert_written(const char *s, const char *want)
{
    char *got = written(s);
    ck_assert_str_eq(got, want);
    free(got);
}

static char *number_text(double v)
{
    struct strbuf sb = STRBUF_INIT;
    json_write_number(&sb, v);
    return strbuf_detach(&sb);
}

START_TEST(test_nested_structure)
{
    struct json_value *v = parse_ok(" {\"a\": [1, 2.5, -3e2, {\"b\": null}],\n \"c\": true, \"d\": "
                                    "false, \"e\": \"x\", \"f\": {}, \"g\": [], \"\": 0} ");
    ck_assert_int_eq(v->type, JSON_OBJECT);
    ck_assert_uint_eq(v->n, 7);
    const struct json_value *a = json_get(v, "a");
    ck_assert_int_eq(a->type, JSON_ARRAY);
    ck_assert_uint_eq(a->n, 4);
    ck_assert(json_at(a, 0)->number == 1);
    ck_assert(json_at(a, 1)->number == 2.5);
    ck_assert(json_at(a, 2)->number == -300);
    ck_assert_int_eq(json_get(json_at(a, 3), "b")->type, JSON_NULL);
    ck_assert_ptr_null(json_at(a, 4));
    ck_assert(json_get_bool(v, "c", false) == true);
    ck_assert(json_get_bool(v, "d", true) == false);
    ck_assert_str_eq(json_get_string(v, "e"), "x");
    ck_assert_int_eq(json_get(v, "f")->type, JSON_OBJECT);
    ck_assert_uint_eq(json_get(v, "f")->n, 0);
    ck_assert_uint_eq(json_get(v, "g")->n, 0);
    ck_assert(json_get_number(v, "", -1) == 0);
    /* Defaults for missing members and members of another type; NULL containers. */
    ck_assert(json_get_number(v, "e", 42) == 42);
    ck_assert(json_get_number(v, "zz", 42) == 42);
    ck_assert(json_get_bool(v, "e", true) == true);
    ck_assert_ptr_null(json_get_string(v, "c"));
    ck_assert_ptr_null(json_get(a, "x"));
    ck_assert_ptr_null(json_at(v, 0));
    ck_assert_ptr_null(json_get(NULL, "a"));
    ck_assert_ptr_null(json_at(NULL, 0));
    ck_assert(json_get_number(NULL, "a", 7) == 7);
    json_value_free(v);
    json_value_free(NULL);

    /* Scalars at the top level, and deep but acceptable nesting. */
    v = parse_ok("\t-0.0e+0\r\n");
    ck_assert_int_eq(v->type, JSON_NUMBER);
    ck_assert(v->number == 0 && signbit(v->number));
    json_value_free(v);
    char deep[402];
    memset(deep, '[', 200);
    memset(deep + 200, ']', 200);
    deep[400] = '\0';
    v = parse_ok(deep);
    json_value_free(v);
}
END_TEST

START_TEST(test_numbers)
{
    struct json_value *v = parse_ok("[0, -0, 1E3, 1e-3, 12.5e+1, 123456789012345678, "
                                    "1.7976931348623157e308, 4.9406564584124654e-324, 1e-400]");
    ck_assert(json_at(v, 0)->number == 0);
    ck_assert(json_at(v, 2)->number == 1000);
    ck_assert(json_at(v, 3)->number == 0.001);
    ck_assert(json_at(v, 4)->number == 125);
    ck_assert(json_at(v, 5)->number == 123456789012345678.0);
    ck_assert(json_at(v, 6)->number == DBL_MAX);
    ck_assert(json_at(v, 7)->number == DBL_TRUE_MIN);
    ck_assert(json_at(v, 8)->number == 0); /* underflow is fine, overflow is not */
    json_value_free(v);
    /* The text need not be NUL-terminated: only len bytes count. */
    struct json_value *n = NULL;
    ck_assert_int_eq(json_parse("123456", 3, &n, NULL), 0);
    ck_assert(n->number == 123);
    json_value_free(n);
    ck_assert_int_eq(json_parse("[1]garbage", 3, &n, NULL), 0);
    json_value_free(n);
}
END_TEST

START_TEST(test_string_escapes)
{
    assert_string("\"\\\" \\\\ \\/ \\b \\f \\n \\r \\t\"", "\" \\ / \b \f \n \r \t");
    assert_string("\"\\u0041\\u00e9\\u20AC\"", "A\xc3\xa9\xe2\x82\xac");
    /* U+1F600 as a surrogate pair, upper and lower case hex. */
    assert_string("\"\\uD83D\\uDE00\"", "\xf0\x9f\x98\x80");
    assert_string("\"x\\ud83d\\ude00y\"", "x\xf0\x9f\x98\x80y");
    /* Unpaired surrogates become U+FFFD; what follows a lone high one is decoded on its own. */
    assert_string("\"\\uD800x\"", "\xef\xbf\xbdx");
    assert_string("\"\\uDC00\"", "\xef\xbf\xbd");
    assert_string("\"\\uD800\\u0041\"", "\xef\xbf\xbd"
                                        "A");
    assert_string("\"\\uD800\\uD83D\\uDE00\"", "\xef\xbf\xbd\xf0\x9f\x98\x80");
    assert_string("\"\\uD800\"", "\xef\xbf\xbd");
    /* An escaped NUL would cut a C string short. */
    assert_string("\"a\\u0000b\"", "a\xef\xbf\xbd"
                                   "b");
    /* Raw UTF-8 is kept; invalid raw bytes become U+FFFD one by one. */
    assert_string("\"" MARIA "\"", MARIA);
    assert_string("\"a\xff"
                  "b\xc3\"",
                  "a\xef\xbf\xbd"
                  "b\xef\xbf\xbd");
    assert_string("\"\"", "");
}
END_TEST

START_TEST(test_errors_with_position)
{
    bad("", 1, 1, "expected a value, found end of input");
    bad("   \n  ", 2, 3, "expected a value");
    bad("{\"a\": 1,}", 1, 9, "expected a string key, found '}'");
    bad("[1, 2", 1, 6, "expected ',' or ']', found end of input");
    bad("[1 2]", 1, 4, "expected ',' or ']', found '2'");
    bad("{\"a\" 1}", 1, 6, "expected ':'");
    bad("{\"a\": 1 \"b\": 2}", 1, 9, "expected ',' or '}'");
    bad("{\n  \"a\": tru\n}", 2, 8, "expected a value, found 't'");
    bad("[1,\n 2,\n ]", 3, 2, "expected a value, found ']'");
    bad("{1: 2}", 1, 2, "string key");
    bad("\"abc", 1, 1, "unterminated string");
    bad("[\"abc\\", 1, 2, "unterminated string");
    bad("[1] x", 1, 5, "end of input after the value");
    bad("[1][2]", 1, 4, "end of input after the value");
    /* Strict numbers. */
    bad("01", 1, 2, "leading zeros");
    bad("-01", 1, 3, "leading zeros");
    bad("1.", 1, 3, "a digit after the decimal point");
    bad("1.e5", 1, 3, "a digit after the decimal point");
    bad(".5", 1, 1, "expected a value");
    bad("-", 1, 2, "expected a digit");
    bad("-x", 1, 2, "expected a digit, found 'x'");
    bad("1e", 1, 3, "a digit in the exponent");
    bad("1e+", 1, 4, "a digit in the exponent");
    bad("+1", 1, 1, "expected a value");
    bad("NaN", 1, 1, "expected a value");
    bad("-Infinity", 1, 2, "expected a digit");
    bad("0x10", 1, 2, "end of input after the value");
    bad("[1e999]", 1, 2, "number out of range");
    bad("-1e400", 1, 1, "number out of range");
    /* Literals are case-sensitive and complete. */
    bad("True", 1, 1, "expected a value");
    bad("nul", 1, 1, "expected a value");
    bad("[truex]", 1, 6, "expected ',' or ']', found 'x'");
    /* Strings: raw control characters, bad escapes. */
    bad("\"a\tb\"", 1, 3, "control character 0x09");
    bad("[\"a\nb\"]", 1, 4, "control character 0x0a");
    bad("\"\\x\"", 1, 2, "invalid escape \\x");
    bad("\"\\u12G4\"", 1, 2, "four hex digits");
    bad("\"\\u12\"", 1, 2, "four hex digits");
    /* Columns count characters: the x is the 7th character but the 8th byte. */
    bad("[\"\xc3\xb1\", x]", 1, 7, "expected a value, found 'x'");
    bad("[\x01]", 1, 2, "found byte 0x01");
    /* Comments and trailing commas are not JSON. */
    bad("[1] // no", 1, 5, "end of input");
    bad("[1,]", 1, 4, "expected a value");
    /* An embedded NUL byte counts as text, not as the end. */
    parse_fails("[1]\0", 4, 1, 4, "end of input after the value");
}
END_TEST

START_TEST(test_depth_limit)
{
    size_t n = 100000;
    char *deep = malloc(n + 1);
    memset(deep, '[', n);
    deep[n] = '\0';
    struct json_value *v = NULL;
    struct error err;
    error_init(&err);
    ck_assert_int_eq(json_parse(deep, n, &v, &err), -1);
    ck_assert_ptr_null(v);
    ck_assert_msg(strstr(err.msg, "nested deeper than"), "%s", err.msg);
    ck_assert_int_eq(err.line, 1);
    ck_assert_int_eq(err.col, 257);
    /* No err to fill is fine too. */
    ck_assert_int_eq(json_parse(deep, n, &v, NULL), -1);
    free(deep);
}
END_TEST

START_TEST(test_bom_skipped)
{
    struct json_value *v = parse_ok("\xef\xbb\xbf{\"a\": 1}");
    ck_assert(json_get_number(v, "a", 0) == 1);
    json_value_free(v);
}
END_TEST

START_TEST(test_write_string_escapes)
{
    assert_written(NULL, "null");
    assert_written("", "\"\"");
    assert_written("plain / text", "\"plain / text\"");
    assert_written("q\"b\\s", "\"q\\\"b\\\\s\"");
    assert_written("\b\f\n\r\t", "\"\\b\\f\\n\\r\\t\"");
    assert_written("\x01\x1f\x7f", "\"\\u0001\\u001f\\u007f\"");
    /* Valid UTF-8 is written as is, including 4-byte sequences and U+FFFD itself. */
    assert_written(MARIA " \xf0\x9f\x98\x80 \xef\xbf\xbd",
                   "\"" MARIA " \xf0\x9f\x98\x80 \xef\xbf\xbd\"");
    /* Invalid sequences: a lone continuation byte, a truncated sequence (followed by a valid
     * character, which survives), overlong forms, a UTF-16 surrogate, beyond U+10FFFF,
     * bytes that never occur. Each invalid byte becomes one U+FFFD. */
    assert_written("\x80", "\"\xef\xbf\xbd\"");
    assert_written("\xc3(", "\"\xef\xbf\xbd(\"");
    assert_written("\xe2\x82", "\"\xef\xbf\xbd\xef\xbf\xbd\"");
    assert_written("\xc0\xaf", "\"\xef\xbf\xbd\xef\xbf\xbd\"");
    assert_written("\xe0\x80\xaf", "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");
    assert_written("\xed\xa0\x80", "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");
    assert_written("\xf4\x90\x80\x80", "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");
    assert_written("\xfe\xff", "\"\xef\xbf\xbd\xef\xbf\xbd\"");
    assert_written("\xe2\x82\xac\xe2\x82", "\"\xe2\x82\xac\xef\xbf\xbd\xef\xbf\xbd\"");
}
END_TEST

START_TEST(test_write_then_parse_any_bytes)
{
    /* Every byte value 1..255 in one string: the output parses, and every valid part and
     * every ASCII character comes back unchanged. */
    char all[256];
    for (int i = 1; i < 256; i++)
        all[i - 1] = (char)i;
    all[255] = '\0';
    char *json = written(all);
    char *back = string_of(json);
    ck_assert_int_eq(memcmp(back, all, 127), 0);
    /* In ascending order no lead byte (0xc0 and up) is followed by a continuation byte
     * (0x80..0xbf), so each of the 128 high bytes becomes one U+FFFD (3 bytes). */
    ck_assert_uint_eq(strlen(back), 127 + 128 * 3);
    free(back);
    free(json);

    /* Valid text of all kinds survives a write/parse round trip exactly. */
    const char *texts[] = {"",
                           "a\"b\\c/d",
                           "\b\f\n\r\t\x01\x1f\x7f",
                           "\xc3\xa9\xe2\x82\xac",
                           "\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf",
                           "line 1\nline 2\n"};
    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
        json = written(texts[i]);
        back = string_of(json);
        ck_assert_str_eq(back, texts[i]);
        free(back);
        free(json);
    }
}
END_TEST

START_TEST(test_write_numbers)
{
    struct {
        double v;
        const char *want;
    } cases[] = {
        {0, "0"},
        {-0.0, "-0"},
        {1, "1"},
        {-42, "-42"},
        {0.1, "0.1"},
        {2.5, "2.5"},
        {1e-3, "0.001"},
        {1e300, "1e+300"},
        {1.0 / 3, "0.3333333333333333"},
        {9007199254740993.0, "9007199254740992"},
        {123456789012345678.0, "1.2345678901234568e+17"},
        {DBL_MAX, "1.7976931348623157e+308"},
        {DBL_TRUE_MIN, "4.94065645841247e-324"},
        {NAN, "null"},
        {INFINITY, "null"},
        {-INFINITY, "null"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *got = number_text(cases[i].v);
        ck_assert_str_eq(got, cases[i].want);
        free(got);
    }
    /* Whatever the digits, the value reads back bit for bit. */
    const double tricky[] = {0.1 + 0.2, 1e23,     5e-324, 2.2250738585072014e-308,
                             1.0 / 7,   -123.456, 4.35,   0x1.fffffffffffffp-1};
    for (size_t i = 0; i < sizeof(tricky) / sizeof(tricky[0]); i++) {
        char *text = number_text(tricky[i]);
        struct json_value *v = parse_ok(text);
        ck_assert_msg(v->number == tricky[i], "%s", text);
        json_value_free(v);
        free(text);
    }
}
END_TEST

START_TEST(test_pretty_writer)
{
    struct strbuf sb = STRBUF_INIT;
    struct json_writer w;
    json_writer_init(&w, &sb);
    json_writer_begin_object(&w);
    json_writer_key(&w, "a");
    json_writer_number(&w, 1);
    json_writer_key(&w, "b");
    json_writer_begin_array(&w);
    json_writer_number(&w, 1.5);
    json_writer_string(&w, "x\ny");
    json_writer_begin_object(&w);
    json_writer_end_object(&w);
    json_writer_begin_array(&w);
    json_writer_end_array(&w);
    json_writer_begin_array(&w);
    json_writer_null(&w);
    json_writer_end_array(&w);
    json_writer_end_array(&w);
    json_writer_key(&w, "c \"quoted\"");
    json_writer_begin_object(&w);
    json_writer_key(&w, "d");
    json_writer_null(&w);
    json_writer_key(&w, "e");
    json_writer_bool(&w, true);
    json_writer_key(&w, "f");
    json_writer_string(&w, NULL);
    json_writer_key(&w, "g");
    json_writer_number(&w, NAN);
    json_writer_end_object(&w);
    json_writer_end_object(&w);
    ck_assert_str_eq(sb.buf, "{\n"
                             "  \"a\": 1,\n"
                             "  \"b\": [\n"
                             "    1.5,\n"
                             "    \"x\\ny\",\n"
                             "    {},\n"
                             "    [],\n"
                             "    [\n"
                             "      null\n"
                             "    ]\n"
                             "  ],\n"
                             "  \"c \\\"quoted\\\"\": {\n"
                             "    \"d\": null,\n"
                             "    \"e\": true,\n"
                             "    \"f\": null,\n"
                             "    \"g\": null\n"
                             "  }\n"
                             "}");
    /* What it writes parses back. */
    struct json_value *v = parse_ok(sb.buf);
    ck_assert_str_eq(json_at(json_get(v, "b"), 1)->string, "x\ny");
    ck_assert(json_get_bool(json_get(v, "c \"quoted\""), "e", false));
    json_value_free(v);
    strbuf_release(&sb);

    /* Top-level scalars and arrays. */
    json_writer_init(&w, &sb);
    json_writer_begin_array(&w);
    json_writer_bool(&w, false);
    json_writer_number(&w, -2);
    json_writer_end_array(&w);
    ck_assert_str_eq(sb.buf, "[\n  false,\n  -2\n]");
    strbuf_release(&sb);
    json_writer_init(&w, &sb);
    json_writer_string(&w, "only");
    ck_assert_str_eq(sb.buf, "\"only\"");
    strbuf_release(&sb);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("json");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_nested_structure);
    tcase_add_test(tc, test_numbers);
    tcase_add_test(tc, test_string_escapes);
    tcase_add_test(tc, test_errors_with_position);
    tcase_add_test(tc, test_depth_limit);
    tcase_add_test(tc, test_bom_skipped);
    tcase_add_test(tc, test_write_string_escapes);
    tcase_add_test(tc, test_write_then_parse_any_bytes);
    tcase_add_test(tc, test_write_numbers);
    tcase_add_test(tc, test_pretty_writer);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
