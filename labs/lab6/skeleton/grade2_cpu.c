/*
 * Laboratorio 6, ejercicio 2, variante CPU: z[i] = a·x[i]² + b·y[i] + c (float64).
 */
#include "lab6.h"

void grade2_cpu(const double *x, const double *y, double *z, double a, double b, double c,
                int32_t n)
{
    // TODO: un bucle sobre i = 0..n-1 que calcule z[i] = a*x[i]*x[i] + b*y[i] + c.
    //       Es el equivalente en C del bucle con @njit del cuaderno; con -O2 el compilador
    //       lo vectoriza si el bucle es sencillo.
    // TODO: borra las líneas (void) cuando uses los parámetros.
    (void)x;
    (void)y;
    (void)z;
    (void)a;
    (void)b;
    (void)c;
    (void)n;
}
