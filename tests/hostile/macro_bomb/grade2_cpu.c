/* Hostile submission "macro_bomb": grade2_cpu.c includes a header whose macros double forty
 * times (bomb.h): 2^40 tokens, far beyond any memory or time.
 * Expected: grade2/cpu CE, stopped by the compile's limits (grader/run/build.c: address space,
 * memory.max and pids.max where delegated, wall and CPU time), never the grader's memory.
 */
#include "lab6.h"
#include "bomb.h"

void grade2_cpu(const double *x, const double *y, double *z, double a, double b, double c,
                int32_t n)
{
    for (int32_t i = 0; i < n; i++)
        z[i] = a * x[i] * x[i] + b * y[i] + c;
}
