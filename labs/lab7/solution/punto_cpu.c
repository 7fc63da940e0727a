/*
 * Laboratorio 7, ejercicio 2, variante CPU (solución): producto escalar x·y.
 *
 * Acumula en double (cada producto de dos float es exacto en double) y redondea al final.
 */
#include "lab7.h"

float punto_cpu(const float *x, const float *y, int32_t n)
{
    double acc = 0.0;
    for (int32_t i = 0; i < n; i++)
        acc += (double)x[i] * y[i];
    return (float)acc;
}
