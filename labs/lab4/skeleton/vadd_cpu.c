/*
 * Laboratorio 4, ejercicio 1, variante CPU: u[i] = a[i] + b[i] (float32).
 */
#include "lab4.h"

void vadd_cpu(float *u, const float *a, const float *b, int32_t n)
{
    // TODO: un bucle sobre i = 0..n-1 que calcule u[i] = a[i] + b[i]: lo que hace NumPy con
    //       a + b.
    // TODO: borra las líneas (void) cuando uses los parámetros.
    (void)u;
    (void)a;
    (void)b;
    (void)n;
}
