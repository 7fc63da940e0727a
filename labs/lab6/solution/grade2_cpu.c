/*
 * Laboratorio 6, ejercicio 2, variante CPU (solución): z[i] = a·x[i]² + b·y[i] + c.
 *
 * Un bucle simple, como el @njit del cuaderno. restrict promete al compilador que z no
 * se solapa con x ni con y, así que con -O2 lo vectoriza sin comprobaciones en tiempo
 * de ejecución. (Los calificadores de los parámetros no cuentan para la compatibilidad
 * con el prototipo, así que la firma sigue siendo la de lab6.h.)
 */
#include "lab6.h"

void grade2_cpu(const double *restrict x, const double *restrict y, double *restrict z, double a,
                double b, double c, int32_t n)
{
    for (int32_t i = 0; i < n; i++)
        z[i] = a * x[i] * x[i] + b * y[i] + c;
}
