/*
 * Reference for lab 4, vadd, CPU variant: u[i] = a[i] + b[i], float32. A plain loop, what
 * NumPy's a + b runs (gcc vectorises it at -O2); the oracle and the CPU baseline.
 */
#include <stdint.h>

void ref_vadd_cpu(float *u, const float *a, const float *b, int32_t n)
{
    for (int32_t i = 0; i < n; i++)
        u[i] = a[i] + b[i];
}
