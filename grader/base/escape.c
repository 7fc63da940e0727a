#include "base/escape.h"
#include "base/alloc.h"

#include <stdint.h>
#include <string.h>

static const char replacement[] = "\xEF\xBF\xBD"; /* U+FFFD */
static const char zero_width_space[] = "\xE2\x80\x8B";
static const char ellipsis[] = "\xE2\x80\xA6";

/*
 * One code point from s (NUL-terminated). Returns the bytes consumed (>= 1 unless
 * at the end); *valid is false for an invalid sequence, which then covers its
 * maximal subpart (Unicode 3.9, table 3-7), so "\xE2\x82" is one U+FFFD, not two.
 */
static size_t utf8_next(const unsigned char *s, uint32_t *cp, bool *valid)
{
    unsigned char c = s[0];
    size_t len;
    unsigned char lo = 0x80, hi = 0xBF;
    uint32_t v;
    *valid = true;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        v = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        v = c & 0x0F;
        if (c == 0xE0)
            lo = 0xA0;
        else if (c == 0xED)
            hi = 0x9F; /* no surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        v = c & 0x07;
        if (c == 0xF0)
            lo = 0x90;
        else if (c == 0xF4)
            hi = 0x8F; /* nothing above U+10FFFF */
    } else {
        *valid = false;
        *cp = 0xFFFD;
        return 1;
    }
    for (size_t i = 1; i < len; i++) {
        unsigned char b = s[i];
        if (b < lo || b > hi) {
            *valid = false;
            *cp = 0xFFFD;
            return i;
        }
        v = (v << 6) | (b & 0x3F);
        lo = 0x80;
        hi = 0xBF;
    }
    *cp = v;
    return len;
}

static bool is_removed_control(uint32_t cp)
{
    if (cp == '\n' || cp == '\t')
        return false;
    return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F);
}

void esc_sanitize(struct strbuf *out, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        uint32_t cp;
        bool valid;
        size_t n = utf8_next(p, &cp, &valid);
        if (!valid)
            strbuf_addstr(out, replacement);
        else if (!is_removed_control(cp))
            strbuf_add(out, p, n);
        p += n;
    }
}

/* Bytes of the code point starting at p in already sanitized text. */
static size_t cp_len(const char *p)
{
    unsigned char c = (unsigned char)*p;
    if (c < 0x80)
        return 1;
    if (c >= 0xF0)
        return 4;
    if (c >= 0xE0)
        return 3;
    return 2;
}

/* Byte length of the first max_chars characters of sanitized text (all of it if shorter). */
static size_t prefix_bytes(const char *s, size_t max_chars, bool *cut)
{
    size_t i = 0, chars = 0;
    while (s[i] && chars < max_chars) {
        i += cp_len(s + i);
        chars++;
    }
    *cut = s[i] != '\0';
    return i;
}

static bool ascii_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* Markup anywhere in a line: code, emphasis, links and images, autolinks and HTML, pipe-table
 * cells, sub- and superscripts, strikeout, inline notes, escapes. */
static const char always_md[] = "\\`*[]<|~^";

/*
 * Whether the character at t[i] must be escaped for pandoc's Markdown (and CommonMark) to
 * read it as itself. first: the offset of the value's first non-blank character, where a
 * block can start (a heading, a list or block quote, a rule, a definition, a fenced div):
 * the value may sit at the start of a line. Everything else is left alone, so that the
 * Markdown reads as the text: a date, a path, a flag, matmul_cpu.
 */
static bool md_needs_escape(const char *t, size_t i, size_t end, size_t first)
{
    char c = t[i], prev = i > 0 ? t[i - 1] : ' ', next = i + 1 < end ? t[i + 1] : ' ';
    if (strchr(always_md, c))
        return true;
    if (c == '_') /* emphasis, unless inside a word (pandoc's intraword_underscores) */
        return !(ascii_alnum(prev) && ascii_alnum(next));
    if (c == '@') /* a citation starts a word; an e-mail address does not */
        return !ascii_alnum(prev);
    if (c == '&') /* an entity: &amp; &#38; */
        return ascii_alnum(next) || next == '#';
    if (i == first)
        return strchr("#>-+=:", c) != NULL;
    /* "1. ", "a) ", "(iv) ", "#. ": a list marker at the start of the value. */
    if ((c == '.' || c == ')') && (next == ' ' || i + 1 == end)) {
        size_t k = first + (t[first] == '(');
        while (k < i && (ascii_alnum(t[k]) || t[k] == '#'))
            k++;
        return k == i && i > first;
    }
    return false;
}

void esc_md_text(struct strbuf *out, const char *s, size_t max_chars)
{
    struct strbuf clean = STRBUF_INIT;
    esc_sanitize(&clean, s);
    const char *t = strbuf_str(&clean);
    bool cut = false;
    size_t end = max_chars ? prefix_bytes(t, max_chars, &cut) : clean.len;
    /* Leading blanks are layout, and four of them would start a code block. */
    size_t first = strspn(t, " \t\n");
    size_t run = 0;
    for (size_t i = first < end ? first : end; i < end;) {
        size_t n = cp_len(t + i);
        char c = t[i];
        bool space = c == ' ' || c == '\n' || c == '\t';
        if (space) {
            run = 0;
        } else {
            if (run == ESC_BREAK_RUN) {
                strbuf_addstr(out, zero_width_space);
                run = 0;
            }
            run++;
        }
        if (c == '\n' || c == '\t')
            strbuf_addch(out, ' ');
        else if (n == 1 && md_needs_escape(t, i, end, first))
            strbuf_addf(out, "\\%c", c);
        else
            strbuf_add(out, t + i, n);
        i += n;
    }
    if (cut)
        strbuf_addstr(out, ellipsis);
    strbuf_release(&clean);
}

char *esc_clip(const char *s, size_t max_chars)
{
    struct strbuf clean = STRBUF_INIT;
    esc_sanitize(&clean, s);
    bool cut = false;
    size_t end = prefix_bytes(strbuf_str(&clean), max_chars, &cut);
    strbuf_setlen(&clean, end);
    if (cut)
        strbuf_addstr(&clean, ellipsis);
    return strbuf_detach(&clean);
}

char *esc_first_line(const char *s, size_t max_chars)
{
    struct strbuf clean = STRBUF_INIT;
    esc_sanitize(&clean, s);
    const char *t = strbuf_str(&clean);
    const char *nl = strchr(t, '\n');
    bool more_lines = nl && nl[strspn(nl, " \t\n")] != '\0';
    if (nl)
        strbuf_setlen(&clean, (size_t)(nl - t));
    strbuf_rtrim(&clean);
    char *line = esc_clip(strbuf_str(&clean), max_chars);
    strbuf_release(&clean);
    if (more_lines && !strstr(line, ellipsis)) {
        char *longer = xstrfmt("%s %s", line, ellipsis);
        free(line);
        line = longer;
    }
    return line;
}

size_t esc_code_wrap(struct strbuf *out, const char *s, size_t width, size_t max_lines)
{
    struct strbuf clean = STRBUF_INIT, wrapped = STRBUF_INIT;
    esc_sanitize(&clean, s);
    const char *t = strbuf_str(&clean);
    size_t col = 0;
    if (width == 0)
        width = 100;
    for (size_t i = 0; t[i];) {
        size_t n = cp_len(t + i);
        char c = t[i];
        if (c == '\n') {
            strbuf_addch(&wrapped, '\n');
            col = 0;
        } else if (c == '\t') {
            for (size_t k = 8 - col % 8; k > 0; k--) {
                if (col == width) {
                    strbuf_addch(&wrapped, '\n');
                    col = 0;
                }
                strbuf_addch(&wrapped, ' ');
                col++;
            }
        } else {
            if (col == width) {
                strbuf_addch(&wrapped, '\n');
                col = 0;
            }
            strbuf_add(&wrapped, t + i, n);
            col++;
        }
        i += n;
    }
    /* Trailing blank lines carry nothing and would only lengthen the block. */
    while (wrapped.len && strchr(" \n", wrapped.buf[wrapped.len - 1])) {
        size_t len = wrapped.len;
        size_t line_start = len;
        while (line_start && wrapped.buf[line_start - 1] != '\n')
            line_start--;
        if (strspn(wrapped.buf + line_start, " ") != len - line_start)
            break; /* a last line with text and trailing spaces: keep it */
        strbuf_setlen(&wrapped, line_start ? line_start - 1 : 0);
    }
    size_t lines = 0, omitted = 0;
    const char *w = strbuf_str(&wrapped);
    for (const char *p = w; wrapped.len;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (max_lines && lines == max_lines) {
            omitted++;
        } else {
            strbuf_add(out, p, len);
            strbuf_addch(out, '\n');
            lines++;
        }
        if (!nl)
            break;
        p = nl + 1;
    }
    strbuf_release(&clean);
    strbuf_release(&wrapped);
    return omitted;
}

size_t esc_backtick_run(const char *s)
{
    size_t best = 0, run = 0;
    for (; s && *s; s++) {
        run = *s == '`' ? run + 1 : 0;
        if (run > best)
            best = run;
    }
    return best;
}

void esc_md_fence(struct strbuf *out, const char *body, const char *info)
{
    size_t fence = esc_backtick_run(body) + 1;
    if (fence < 3)
        fence = 3;
    for (size_t i = 0; i < fence; i++)
        strbuf_addch(out, '`');
    if (info && *info)
        strbuf_addstr(out, info);
    strbuf_addch(out, '\n');
    if (body && *body) {
        strbuf_addstr(out, body);
        if (body[strlen(body) - 1] != '\n')
            strbuf_addch(out, '\n');
    }
    for (size_t i = 0; i < fence; i++)
        strbuf_addch(out, '`');
    strbuf_addch(out, '\n');
}

void esc_anchor(struct strbuf *out, const char *prefix, const char *id)
{
    static const char hex[] = "0123456789ABCDEF";
    strbuf_addstr(out, prefix ? prefix : "");
    for (const unsigned char *p = (const unsigned char *)(id ? id : ""); *p; p++) {
        bool plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                     (*p >= '0' && *p <= '9') || *p == '.' || *p == '-';
        if (plain) {
            strbuf_addch(out, (char)*p);
            continue;
        }
        strbuf_addch(out, '_');
        strbuf_addch(out, hex[*p >> 4]);
        strbuf_addch(out, hex[*p & 15]);
    }
}

void esc_html(struct strbuf *out, const char *s)
{
    struct strbuf clean = STRBUF_INIT;
    esc_sanitize(&clean, s ? s : "");
    for (const char *p = strbuf_str(&clean); *p; p++) {
        switch (*p) {
        case '&':
            strbuf_addstr(out, "&amp;");
            break;
        case '<':
            strbuf_addstr(out, "&lt;");
            break;
        case '>':
            strbuf_addstr(out, "&gt;");
            break;
        case '"':
            strbuf_addstr(out, "&quot;");
            break;
        case '\'':
            strbuf_addstr(out, "&#39;");
            break;
        default:
            strbuf_addch(out, *p);
        }
    }
    strbuf_release(&clean);
}
