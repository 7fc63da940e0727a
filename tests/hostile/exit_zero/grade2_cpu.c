/* Hostile submission "exit_zero": grade2_cpu computes the right values, then calls exit(0),
 * as if the whole program had succeeded.
 * Expected: grade2/cpu RE (the function must return; the harness never wrote "status ok").
 */
#include "lab6.h"

#include <stdlib.h>

void grade2_cpu(const double *x, const double *y, double *z, double a, double b, double c,
                int32_t n)
{
    for (int32_t i = 0; i < n; i++)
        z[i] = a * x[i] * x[i] + b * y[i] + c;
    exit(0);
}
