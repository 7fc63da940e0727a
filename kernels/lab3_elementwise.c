/*
 * Reference for lab 3, add / mul / exp, CPU variants: plain loops, the oracles and the CPU
 * baseline of every "vs CPU" speedup. Built with -O2 like a student's file: gcc vectorises
 * the add and mul loops; expf is glibc's scalar function (under 1 ulp), called per element.
 * PyTorch's CPU kernels also use several threads; one thread here, so the baseline is what
 * one core does (the seed's "Pitfalls" 2: compare like with like).
 */
#include <math.h>
#include <stdint.h>

void ref_add_cpu(const float *x, const float *y, float *z, int32_t n)
{
    for (int32_t i = 0; i < n; i++)
        z[i] = x[i] + y[i];
}

void ref_mul_cpu(const float *x, const float *y, float *z, int32_t n)
{
    for (int32_t i = 0; i < n; i++)
        z[i] = x[i] * y[i];
}

void ref_exp_cpu(const float *x, float *y, int32_t n)
{
    for (int32_t i = 0; i < n; i++)
        y[i] = expf(x[i]);
}
