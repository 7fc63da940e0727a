/* s90: a HOSTILE submission for the HTML pages' tests (tests/browser/README.md): the
 * compiler's first error quotes markup that must read as text on both pages, never run. */
#include "labcpu.h"

#error "</pre><script>window.__pwned = 'compiler';</script><img src=x onerror=\"window.__pwned='img'\">"

void dot_cpu(const double *x, const double *y, double *out, int32_t n)
{
    (void)x, (void)y, (void)n;
    out[0] = 0;
}
