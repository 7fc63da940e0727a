/*
 * Laboratorio 4, ejercicio 1, variante CPU (solución): u[i] = a[i] + b[i].
 *
 * El bucle que NumPy ejecuta por nosotros en a + b. restrict promete que u no se solapa con
 * a ni con b, así que gcc lo vectoriza con -O2 sin comprobaciones en tiempo de ejecución.
 */
#include "lab4.h"

void vadd_cpu(float *restrict u, const float *restrict a, const float *restrict b, int32_t n)
{
    for (int32_t i = 0; i < n; i++)
        u[i] = a[i] + b[i];
}
