#include "base/alloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void die_oom(void)
{
    static const char msg[] = "labgrader: out of memory\n";
    if (write(2, msg, sizeof(msg) - 1) < 0) {
        /* nothing more to do */
    }
    abort();
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        die_oom();
    return p;
}

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        die_oom();
    return p;
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        die_oom();
    return q;
}

char *xstrdup(const char *s)
{
    char *p = strdup(s ? s : "");
    if (!p)
        die_oom();
    return p;
}

char *xstrndup(const char *s, size_t n)
{
    char *p = strndup(s, n);
    if (!p)
        die_oom();
    return p;
}

char *xstrfmt(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        die_oom();
    char *s = xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}
