/* trace: timestamps on stderr when LABGRADER_TRACE is set (trace.h). */
#include "base/trace.h"

#include "base/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int state = -1; /* unknown, off, on */
static double start;

bool trace_enabled(void)
{
    if (state < 0) {
        const char *v = getenv("LABGRADER_TRACE");
        state = v && *v && *v != '0';
        start = now_seconds();
    }
    return state == 1;
}

void trace_point(const char *fmt, ...)
{
    if (!trace_enabled())
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "[trace %8.3f s] ", now_seconds() - start);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}
