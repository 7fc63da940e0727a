/* s01: saxpy, a plain loop. */
#include "labcpu.h"

void saxpy_cpu(const float *x, const float *y, float *out, float a, int32_t n)
{
    for (int32_t i = 0; i < n; i++)
        out[i] = a * x[i] + y[i];
}
