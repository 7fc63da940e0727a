/*
 * Reference for lab 6, grade2, CPU variant: z[i] = a·x[i]² + b·y[i] + c, float64.
 * A plain loop, the C counterpart of the notebook's Numba @njit loop (the fastest CPU
 * version there), so it is the CPU baseline of the speedups. Built with -O2 like a
 * student's file: gcc vectorises it, and with the default x86-64 target it does not
 * fuse multiply-adds, so it is also the exact oracle.
 */
#include <stdint.h>

void ref_grade2_cpu(const double *x, const double *y, double *z, double a, double b, double c,
                    int32_t n)
{
    for (int32_t i = 0; i < n; i++)
        z[i] = a * x[i] * x[i] + b * y[i] + c;
}
