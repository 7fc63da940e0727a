/* Hostile submission "include_bomb": grade2_cpu.c includes a header that includes itself
 * forever (bomb.h).
 * Expected: grade2/cpu CE, quickly (gcc stops at its include depth limit).
 */
#include "lab6.h"
#include "bomb.h"

void grade2_cpu(const double *x, const double *y, double *z, double a, double b, double c,
                int32_t n)
{
    for (int32_t i = 0; i < n; i++)
        z[i] = a * x[i] * x[i] + b * y[i] + c;
}
