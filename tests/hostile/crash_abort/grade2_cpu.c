/* Hostile submission "crash_abort": grade2_cpu computes, then aborts (SIGABRT).
 * Expected: grade2/cpu SG; everything else graded as usual.
 */
#include "lab6.h"

#include <stdlib.h>

void grade2_cpu(const double *x, const double *y, double *z, double a, double b, double c,
                int32_t n)
{
    for (int32_t i = 0; i < n; i++)
        z[i] = a * x[i] * x[i] + b * y[i] + c;
    abort();
}
