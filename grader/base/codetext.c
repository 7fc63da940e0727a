#include "base/codetext.h"

#include <ctype.h>
#include <stdbool.h>

static int is_word(int c)
{
    return isalnum(c) || c == '_';
}

/* A literal from its opening quote to its closing one (a backslash escapes), copied. */
static size_t literal(const char *s, size_t n, size_t i, struct strbuf *out)
{
    char q = s[i];
    strbuf_addch(out, s[i++]);
    while (i < n && s[i] != q && s[i] != '\n') {
        if (s[i] == '\\' && i + 1 < n)
            strbuf_addch(out, s[i++]);
        strbuf_addch(out, s[i++]);
    }
    if (i < n && s[i] == q)
        strbuf_addch(out, s[i++]);
    return i;
}

/* Past a comment starting at i (i when there is none). */
static size_t skip_comment(const char *s, size_t n, size_t i)
{
    if (i + 1 >= n || s[i] != '/')
        return i;
    if (s[i + 1] == '/') {
        while (i < n && s[i] != '\n')
            i++;
        return i;
    }
    if (s[i + 1] == '*') {
        for (i += 2; i + 1 < n && !(s[i] == '*' && s[i + 1] == '/'); i++)
            ;
        return i + 1 < n ? i + 2 : n;
    }
    return i;
}

void code_text(const char *src, size_t n, struct strbuf *out)
{
    bool gap = false;
    size_t i = 0;
    while (i < n) {
        size_t j = skip_comment(src, n, i);
        if (j != i || isspace((unsigned char)src[i])) {
            gap = true;
            i = j != i ? j : i + 1;
            continue;
        }
        if (gap && out->len && is_word((unsigned char)out->buf[out->len - 1]) &&
            is_word((unsigned char)src[i]))
            strbuf_addch(out, ' ');
        gap = false;
        if (src[i] == '"' || src[i] == '\'')
            i = literal(src, n, i, out);
        else
            strbuf_addch(out, src[i++]);
    }
}
