/*
 * Laboratorio 7, ejercicio 1, variante CPU (solución): *s = suma de x[i].
 *
 * Se acumula en double y se redondea una vez al final, como np.sum(x, dtype=np.float64).
 * Un acumulador float también pasa (la tolerancia admite su error en los tamaños con
 * decimales, y con enteros la suma es exacta), pero su error crece como sqrt(n).
 */
#include "lab7.h"

void suma_cpu(const float *x, float *s, int32_t n)
{
    double acc = 0.0;
    for (int32_t i = 0; i < n; i++)
        acc += x[i];
    *s = (float)acc; // asignar, no acumular: *s llega con NaN
}
