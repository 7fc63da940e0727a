#include "base/json.h"

#include "base/alloc.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Deep enough for any document labgrader writes, shallow enough that a hostile
 * file cannot exhaust the stack through recursion. */
#define JSON_MAX_DEPTH 256

static const char replacement_char[] = "\xef\xbf\xbd"; /* U+FFFD */

/* Length of the valid UTF-8 sequence at s (at most n bytes available), or 0 for
 * an invalid one: truncated, overlong, a surrogate, or beyond U+10FFFF. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    if (s[0] < 0x80)
        return 1;
    size_t len;
    uint32_t cp;
    if ((s[0] & 0xe0) == 0xc0) {
        len = 2;
        cp = s[0] & 0x1fu;
    } else if ((s[0] & 0xf0) == 0xe0) {
        len = 3;
        cp = s[0] & 0x0fu;
    } else if ((s[0] & 0xf8) == 0xf0) {
        len = 4;
        cp = s[0] & 0x07u;
    } else {
        return 0;
    }
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3fu);
    }
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
        cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000))
        return 0;
    return len;
}

static void put_utf8(struct strbuf *sb, uint32_t cp)
{
    char b[4];
    if (cp < 0x80) {
        strbuf_addch(sb, (int)cp);
    } else if (cp < 0x800) {
        b[0] = (char)(0xc0 | (cp >> 6));
        b[1] = (char)(0x80 | (cp & 0x3f));
        strbuf_add(sb, b, 2);
    } else if (cp < 0x10000) {
        b[0] = (char)(0xe0 | (cp >> 12));
        b[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        b[2] = (char)(0x80 | (cp & 0x3f));
        strbuf_add(sb, b, 3);
    } else {
        b[0] = (char)(0xf0 | (cp >> 18));
        b[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
        b[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
        b[3] = (char)(0x80 | (cp & 0x3f));
        strbuf_add(sb, b, 4);
    }
}

/* ---- reading ---- */

struct parser {
    const char *s;
    size_t len, pos;
    int depth;
    struct error *err;
};

static int fail_at(struct parser *p, size_t at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Columns count characters, not bytes, so they match what an editor shows. */
static int fail_at(struct parser *p, size_t at, const char *fmt, ...)
{
    int line = 1, col = 1;
    for (size_t i = 0; i < at && i < p->len; i++) {
        unsigned char c = (unsigned char)p->s[i];
        if (c == '\n') {
            line++;
            col = 1;
        } else if ((c & 0xc0) != 0x80) {
            col++;
        }
    }
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return error_set_at(p->err, "", line, col, "%s", msg);
}

/* What sits at the current position, for messages: "end of input", "'x'", "byte 0xc3". */
static const char *found(const struct parser *p, char *buf, size_t size)
{
    if (p->pos >= p->len)
        return "end of input";
    unsigned char c = (unsigned char)p->s[p->pos];
    if (c >= 0x20 && c < 0x7f)
        snprintf(buf, size, "'%c'", c);
    else
        snprintf(buf, size, "byte 0x%02x", c);
    return buf;
}

static int fail_expected(struct parser *p, const char *what)
{
    char buf[32];
    return fail_at(p, p->pos, "expected %s, found %s", what, found(p, buf, sizeof(buf)));
}

static void skip_ws(struct parser *p)
{
    while (p->pos < p->len && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' ||
                               p->s[p->pos] == '\n' || p->s[p->pos] == '\r'))
        p->pos++;
}

static struct json_value *new_value(enum json_type t)
{
    struct json_value *v = xcalloc(1, sizeof(*v));
    v->type = t;
    return v;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Four hex digits at pos; false (pos unchanged) if they are not there. */
static bool peek_hex4(const struct parser *p, size_t pos, uint32_t *out)
{
    uint32_t v = 0;
    if (pos > p->len || p->len - pos < 4)
        return false;
    for (size_t i = 0; i < 4; i++) {
        int d = hex_digit(p->s[pos + i]);
        if (d < 0)
            return false;
        v = (v << 4) | (uint32_t)d;
    }
    *out = v;
    return true;
}

/* The escape after a backslash (p->pos at the character after it, which exists). */
static int parse_escape(struct parser *p, struct strbuf *sb)
{
    char c = p->s[p->pos];
    static const char simple_in[] = "\"\\/bfnrt";
    static const char simple_out[] = "\"\\/\b\f\n\r\t";
    const char *hit = c ? strchr(simple_in, c) : NULL;
    if (hit) {
        strbuf_addch(sb, simple_out[hit - simple_in]);
        p->pos++;
        return 0;
    }
    if (c != 'u') {
        if ((unsigned char)c >= 0x20 && (unsigned char)c < 0x7f)
            return fail_at(p, p->pos - 1, "invalid escape \\%c in a string", c);
        return fail_at(p, p->pos - 1, "invalid escape in a string");
    }
    uint32_t cp, low;
    if (!peek_hex4(p, p->pos + 1, &cp))
        return fail_at(p, p->pos - 1, "\\u must be followed by four hex digits");
    p->pos += 5;
    if (cp >= 0xd800 && cp < 0xdc00) {
        /* A high surrogate needs a low one right after; otherwise it stands alone and
         * the next escape is decoded on its own. */
        if (p->len - p->pos >= 6 && p->s[p->pos] == '\\' && p->s[p->pos + 1] == 'u' &&
            peek_hex4(p, p->pos + 2, &low) && low >= 0xdc00 && low < 0xe000) {
            cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
            p->pos += 6;
        } else {
            cp = 0xfffd;
        }
    } else if ((cp >= 0xdc00 && cp < 0xe000) || cp == 0) {
        cp = 0xfffd;
    }
    put_utf8(sb, cp);
    return 0;
}

static int parse_string(struct parser *p, char **out)
{
    struct strbuf sb = STRBUF_INIT;
    size_t start = p->pos;
    p->pos++; /* the opening quote */
    while (p->pos < p->len) {
        unsigned char c = (unsigned char)p->s[p->pos];
        if (c == '"') {
            p->pos++;
            *out = strbuf_detach(&sb);
            return 0;
        }
        if (c < 0x20) {
            strbuf_release(&sb);
            return fail_at(p, p->pos, "control character 0x%02x in a string (must be escaped)", c);
        }
        if (c == '\\') {
            p->pos++;
            if (p->pos >= p->len)
                break;
            if (parse_escape(p, &sb) != 0) {
                strbuf_release(&sb);
                return -1;
            }
            continue;
        }
        size_t n = utf8_len((const unsigned char *)p->s + p->pos, p->len - p->pos);
        if (n == 0) {
            strbuf_addstr(&sb, replacement_char);
            p->pos++;
        } else {
            strbuf_add(&sb, p->s + p->pos, n);
            p->pos += n;
        }
    }
    strbuf_release(&sb);
    return fail_at(p, start, "unterminated string");
}

static bool is_digit(const struct parser *p, size_t i)
{
    return i < p->len && p->s[i] >= '0' && p->s[i] <= '9';
}

/* RFC 8259 numbers only: strtod alone would also take "01", "1.", ".5", "0x10", "inf". */
static int parse_number(struct parser *p, double *out)
{
    size_t i = p->pos;
    if (i < p->len && p->s[i] == '-')
        i++;
    if (!is_digit(p, i)) {
        p->pos = i;
        return fail_expected(p, "a digit");
    }
    if (p->s[i] == '0') {
        i++;
        if (is_digit(p, i))
            return fail_at(p, i, "leading zeros are not allowed in numbers");
    } else {
        while (is_digit(p, i))
            i++;
    }
    if (i < p->len && p->s[i] == '.') {
        i++;
        if (!is_digit(p, i)) {
            p->pos = i;
            return fail_expected(p, "a digit after the decimal point");
        }
        while (is_digit(p, i))
            i++;
    }
    if (i < p->len && (p->s[i] == 'e' || p->s[i] == 'E')) {
        i++;
        if (i < p->len && (p->s[i] == '+' || p->s[i] == '-'))
            i++;
        if (!is_digit(p, i)) {
            p->pos = i;
            return fail_expected(p, "a digit in the exponent");
        }
        while (is_digit(p, i))
            i++;
    }
    /* The text need not be NUL-terminated, so strtod gets its own copy. */
    char *copy = xstrndup(p->s + p->pos, i - p->pos);
    double d = strtod(copy, NULL);
    free(copy);
    if (isinf(d))
        return fail_at(p, p->pos, "number out of range");
    *out = d;
    p->pos = i;
    return 0;
}

static int parse_value(struct parser *p, struct json_value **out);

static int parse_container(struct parser *p, struct json_value *v)
{
    bool object = v->type == JSON_OBJECT;
    char close = object ? '}' : ']';
    size_t alloc = 0;
    p->pos++;
    skip_ws(p);
    if (p->pos < p->len && p->s[p->pos] == close) {
        p->pos++;
        return 0;
    }
    for (;;) {
        char *key = NULL;
        struct json_value *item = NULL;
        skip_ws(p);
        if (object) {
            if (p->pos >= p->len || p->s[p->pos] != '"')
                return fail_expected(p, "a string key");
            if (parse_string(p, &key) != 0)
                return -1;
            skip_ws(p);
            if (p->pos >= p->len || p->s[p->pos] != ':') {
                free(key);
                return fail_expected(p, "':'");
            }
            p->pos++;
        }
        if (parse_value(p, &item) != 0) {
            free(key);
            return -1;
        }
        if (v->n + 1 > alloc) {
            alloc = alloc ? alloc * 2 : 8;
            v->items = xrealloc(v->items, alloc * sizeof(*v->items));
            if (object)
                v->keys = xrealloc(v->keys, alloc * sizeof(*v->keys));
        }
        v->items[v->n] = item;
        if (object)
            v->keys[v->n] = key;
        v->n++;
        skip_ws(p);
        if (p->pos < p->len && p->s[p->pos] == ',') {
            p->pos++;
            continue;
        }
        if (p->pos < p->len && p->s[p->pos] == close) {
            p->pos++;
            return 0;
        }
        return fail_expected(p, object ? "',' or '}'" : "',' or ']'");
    }
}

static bool match_word(struct parser *p, const char *word)
{
    size_t n = strlen(word);
    if (p->len - p->pos < n || memcmp(p->s + p->pos, word, n) != 0)
        return false;
    p->pos += n;
    return true;
}

static int parse_value(struct parser *p, struct json_value **out)
{
    skip_ws(p);
    if (p->pos >= p->len)
        return fail_expected(p, "a value");
    if (p->depth >= JSON_MAX_DEPTH)
        return fail_at(p, p->pos, "nested deeper than %d levels", JSON_MAX_DEPTH);
    char c = p->s[p->pos];
    struct json_value *v = NULL;
    int rc = 0;
    if (c == '{' || c == '[') {
        v = new_value(c == '{' ? JSON_OBJECT : JSON_ARRAY);
        p->depth++;
        rc = parse_container(p, v);
        p->depth--;
    } else if (c == '"') {
        v = new_value(JSON_STRING);
        rc = parse_string(p, &v->string);
    } else if (c == '-' || (c >= '0' && c <= '9')) {
        v = new_value(JSON_NUMBER);
        rc = parse_number(p, &v->number);
    } else if (match_word(p, "true")) {
        v = new_value(JSON_BOOL);
        v->boolean = true;
    } else if (match_word(p, "false")) {
        v = new_value(JSON_BOOL);
    } else if (match_word(p, "null")) {
        v = new_value(JSON_NULL);
    } else {
        return fail_expected(p, "a value");
    }
    if (rc != 0) {
        json_value_free(v);
        return -1;
    }
    *out = v;
    return 0;
}

int json_parse(const char *text, size_t len, struct json_value **out, struct error *err)
{
    struct parser p = {text, len, 0, 0, err};
    struct json_value *v = NULL;
    *out = NULL;
    if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
        p.pos = 3;
    if (parse_value(&p, &v) != 0)
        return -1;
    skip_ws(&p);
    if (p.pos != len) {
        json_value_free(v);
        return fail_expected(&p, "end of input after the value");
    }
    *out = v;
    return 0;
}

void json_value_free(struct json_value *v)
{
    if (!v)
        return;
    for (size_t i = 0; i < v->n; i++) {
        json_value_free(v->items[i]);
        if (v->keys)
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->string);
    free(v);
}

const struct json_value *json_get(const struct json_value *obj, const char *key)
{
    if (!obj || obj->type != JSON_OBJECT || !key)
        return NULL;
    for (size_t i = 0; i < obj->n; i++)
        if (!strcmp(obj->keys[i], key))
            return obj->items[i];
    return NULL;
}

const struct json_value *json_at(const struct json_value *arr, size_t i)
{
    if (!arr || arr->type != JSON_ARRAY || i >= arr->n)
        return NULL;
    return arr->items[i];
}

const char *json_get_string(const struct json_value *obj, const char *key)
{
    const struct json_value *v = json_get(obj, key);
    return v && v->type == JSON_STRING ? v->string : NULL;
}

double json_get_number(const struct json_value *obj, const char *key, double dflt)
{
    const struct json_value *v = json_get(obj, key);
    return v && v->type == JSON_NUMBER ? v->number : dflt;
}

bool json_get_bool(const struct json_value *obj, const char *key, bool dflt)
{
    const struct json_value *v = json_get(obj, key);
    return v && v->type == JSON_BOOL ? v->boolean : dflt;
}

/* ---- writing ---- */

void json_write_string(struct strbuf *out, const char *s)
{
    if (!s) {
        strbuf_addstr(out, "null");
        return;
    }
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s);
    strbuf_addch(out, '"');
    for (size_t i = 0; i < n;) {
        unsigned char c = p[i];
        const char *esc = NULL;
        switch (c) {
        case '"':
            esc = "\\\"";
            break;
        case '\\':
            esc = "\\\\";
            break;
        case '\b':
            esc = "\\b";
            break;
        case '\f':
            esc = "\\f";
            break;
        case '\n':
            esc = "\\n";
            break;
        case '\r':
            esc = "\\r";
            break;
        case '\t':
            esc = "\\t";
            break;
        default:
            break;
        }
        if (esc) {
            strbuf_addstr(out, esc);
            i++;
        } else if (c < 0x20 || c == 0x7f) {
            strbuf_addf(out, "\\u%04x", c);
            i++;
        } else {
            size_t len = utf8_len(p + i, n - i);
            if (len == 0) {
                /* One replacement per invalid byte: simple, and never swallows a valid
                 * character that follows a truncated sequence. */
                strbuf_addstr(out, replacement_char);
                i++;
            } else {
                strbuf_add(out, p + i, len);
                i += len;
            }
        }
    }
    strbuf_addch(out, '"');
}

/* The first of %.15g, %.16g, %.17g that reads back as the same double: as exact as
 * %.17g, but 0.1 stays "0.1" instead of 0.10000000000000001 (%g drops trailing
 * zeros, so a value with at most 15 significant digits comes out short). */
void json_write_number(struct strbuf *out, double v)
{
    if (!isfinite(v)) {
        strbuf_addstr(out, "null");
        return;
    }
    char buf[40];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, sizeof(buf), "%.*g", prec, v);
        if (prec == 17 || strtod(buf, NULL) == v)
            break;
    }
    strbuf_addstr(out, buf);
}

void json_writer_init(struct json_writer *w, struct strbuf *out)
{
    w->out = out;
    w->depth = 0;
    w->first = true;
    w->after_key = false;
}

static void newline_indent(struct json_writer *w)
{
    strbuf_addch(w->out, '\n');
    for (int i = 0; i < w->depth; i++)
        strbuf_addstr(w->out, "  ");
}

/* Separator and indentation before a value: none after a key or at the top level. */
static void before_value(struct json_writer *w)
{
    if (w->after_key) {
        w->after_key = false;
        return;
    }
    if (w->depth > 0) {
        if (!w->first)
            strbuf_addch(w->out, ',');
        newline_indent(w);
    }
    w->first = false;
}

void json_writer_key(struct json_writer *w, const char *key)
{
    if (!w->first)
        strbuf_addch(w->out, ',');
    newline_indent(w);
    json_write_string(w->out, key);
    strbuf_addstr(w->out, ": ");
    w->first = false;
    w->after_key = true;
}

static void begin(struct json_writer *w, char open)
{
    before_value(w);
    strbuf_addch(w->out, open);
    w->depth++;
    w->first = true;
}

static void end(struct json_writer *w, char close)
{
    w->depth--;
    if (!w->first)
        newline_indent(w);
    strbuf_addch(w->out, close);
    w->first = false;
}

void json_writer_begin_object(struct json_writer *w)
{
    begin(w, '{');
}

void json_writer_end_object(struct json_writer *w)
{
    end(w, '}');
}

void json_writer_begin_array(struct json_writer *w)
{
    begin(w, '[');
}

void json_writer_end_array(struct json_writer *w)
{
    end(w, ']');
}

void json_writer_string(struct json_writer *w, const char *s)
{
    before_value(w);
    json_write_string(w->out, s);
}

void json_writer_number(struct json_writer *w, double v)
{
    before_value(w);
    json_write_number(w->out, v);
}

void json_writer_bool(struct json_writer *w, bool v)
{
    before_value(w);
    strbuf_addstr(w->out, v ? "true" : "false");
}

void json_writer_null(struct json_writer *w)
{
    before_value(w);
    strbuf_addstr(w->out, "null");
}
