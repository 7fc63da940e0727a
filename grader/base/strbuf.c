#include "base/strbuf.h"
#include "base/alloc.h"

#include <stdio.h>
#include <string.h>

void strbuf_init(struct strbuf *sb)
{
    sb->buf = NULL;
    sb->len = sb->alloc = 0;
}

void strbuf_release(struct strbuf *sb)
{
    free(sb->buf);
    strbuf_init(sb);
}

void strbuf_reset(struct strbuf *sb)
{
    strbuf_setlen(sb, 0);
}

char *strbuf_detach(struct strbuf *sb)
{
    char *r = sb->buf ? sb->buf : xstrdup("");
    strbuf_init(sb);
    return r;
}

void strbuf_grow(struct strbuf *sb, size_t extra)
{
    size_t need = sb->len + extra + 1;
    if (need < sb->len)
        die_oom();
    if (need <= sb->alloc)
        return;
    size_t n = sb->alloc ? sb->alloc : 64;
    while (n < need)
        n = n * 2 < n ? need : n * 2;
    sb->buf = xrealloc(sb->buf, n);
    if (sb->alloc == 0)
        sb->buf[0] = '\0';
    sb->alloc = n;
}

void strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
    strbuf_grow(sb, len);
    if (len)
        memcpy(sb->buf + sb->len, data, len);
    sb->len += len;
    sb->buf[sb->len] = '\0';
}

void strbuf_addstr(struct strbuf *sb, const char *s)
{
    strbuf_add(sb, s, strlen(s));
}

void strbuf_addch(struct strbuf *sb, int c)
{
    char ch = (char)c;
    strbuf_add(sb, &ch, 1);
}

void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
    va_list cp;
    va_copy(cp, ap);
    int n = vsnprintf(NULL, 0, fmt, cp);
    va_end(cp);
    if (n < 0)
        return;
    strbuf_grow(sb, (size_t)n);
    vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
    sb->len += (size_t)n;
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    strbuf_vaddf(sb, fmt, ap);
    va_end(ap);
}

void strbuf_setlen(struct strbuf *sb, size_t len)
{
    if (!sb->buf) {
        if (len == 0)
            return;
        strbuf_grow(sb, len);
    }
    if (len > sb->len)
        strbuf_grow(sb, len - sb->len);
    sb->len = len;
    sb->buf[len] = '\0';
}

const char *strbuf_str(const struct strbuf *sb)
{
    return sb->buf ? sb->buf : "";
}

void strbuf_rtrim(struct strbuf *sb)
{
    while (sb->len > 0 && (sb->buf[sb->len - 1] == ' ' || sb->buf[sb->len - 1] == '\n' ||
                           sb->buf[sb->len - 1] == '\t' || sb->buf[sb->len - 1] == '\r'))
        sb->len--;
    if (sb->buf)
        sb->buf[sb->len] = '\0';
}
