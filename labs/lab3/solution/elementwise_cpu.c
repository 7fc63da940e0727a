/*
 * Laboratorio 3, ejercicios add, mul y exp, variantes CPU (solución): bucles simples.
 *
 * restrict promete al compilador que la salida no se solapa con las entradas, así que con
 * -O2 vectoriza la suma y el producto sin comprobaciones en tiempo de ejecución. (Los
 * calificadores de los parámetros no cuentan para la compatibilidad con el prototipo.)
 * expf es la de la biblioteca de C, una llamada por elemento.
 */
#include "lab3.h"

#include <math.h>

void add_cpu(const float *restrict x, const float *restrict y, float *restrict z, int32_t n)
{
    for (int32_t i = 0; i < n; i++)
        z[i] = x[i] + y[i];
}

void mul_cpu(const float *restrict x, const float *restrict y, float *restrict z, int32_t n)
{
    for (int32_t i = 0; i < n; i++)
        z[i] = x[i] * y[i];
}

void exp_cpu(const float *restrict x, float *restrict y, int32_t n)
{
    for (int32_t i = 0; i < n; i++)
        y[i] = expf(x[i]);
}
