#include "base/error.h"

#include <stdarg.h>
#include <string.h>

void error_init(struct error *e)
{
    memset(e, 0, sizeof(*e));
}

int error_set(struct error *e, const char *fmt, ...)
{
    va_list ap;
    if (!e)
        return -1;
    e->file[0] = '\0';
    e->line = e->col = 0;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
    va_end(ap);
    return -1;
}

int error_set_at(struct error *e, const char *file, int line, int col, const char *fmt, ...)
{
    va_list ap;
    if (!e)
        return -1;
    snprintf(e->file, sizeof(e->file), "%s", file ? file : "");
    e->line = line;
    e->col = col;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
    va_end(ap);
    return -1;
}

void error_prefix(struct error *e, const char *fmt, ...)
{
    char prefix[512];
    va_list ap;
    if (!e)
        return;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof(prefix), fmt, ap);
    va_end(ap);
    /* Shift the message right, keeping what fits: the prefix matters more than the tail. */
    size_t pl = strlen(prefix), ml = strnlen(e->msg, sizeof(e->msg) - 1);
    if (pl > sizeof(e->msg) - 1)
        pl = sizeof(e->msg) - 1;
    if (ml > sizeof(e->msg) - 1 - pl)
        ml = sizeof(e->msg) - 1 - pl;
    memmove(e->msg + pl, e->msg, ml);
    memcpy(e->msg, prefix, pl);
    e->msg[pl + ml] = '\0';
}

void error_format(const struct error *e, char *buf, size_t size)
{
    if (e->file[0] && e->line > 0 && e->col > 0)
        snprintf(buf, size, "%s:%d:%d: %s", e->file, e->line, e->col, e->msg);
    else if (e->file[0] && e->line > 0)
        snprintf(buf, size, "%s:%d: %s", e->file, e->line, e->msg);
    else if (e->file[0])
        snprintf(buf, size, "%s: %s", e->file, e->msg);
    else
        snprintf(buf, size, "%s", e->msg);
}

void error_print(const struct error *e, FILE *out)
{
    char buf[sizeof(e->msg) + sizeof(e->file) + 64];
    error_format(e, buf, sizeof(buf));
    fprintf(out, "%s\n", buf);
}
