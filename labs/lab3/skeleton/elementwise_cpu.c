/*
 * Laboratorio 3, ejercicios add, mul y exp, variantes CPU: bucles simples sobre float.
 * Son la línea base (baseline) de los speedups del informe.
 */
#include "lab3.h"

#include <math.h>

void add_cpu(const float *x, const float *y, float *z, int32_t n)
{
    // TODO: z[i] = x[i] + y[i] para i = 0..n-1.
    // TODO: borra las líneas (void) cuando uses los parámetros.
    (void)x;
    (void)y;
    (void)z;
    (void)n;
}

void mul_cpu(const float *x, const float *y, float *z, int32_t n)
{
    // TODO: z[i] = x[i] * y[i].
    (void)x;
    (void)y;
    (void)z;
    (void)n;
}

void exp_cpu(const float *x, float *y, int32_t n)
{
    // TODO: y[i] = expf(x[i]) (la versión float de exp, de <math.h>).
    (void)x;
    (void)y;
    (void)n;
}
