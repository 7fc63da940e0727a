/*
 * Laboratorio 7, ejercicio 1, variante CPU: *s = x[0] + x[1] + ... + x[n-1] (float32).
 */
#include "lab7.h"

void suma_cpu(const float *x, float *s, int32_t n)
{
    // TODO: recorre i = 0..n-1 (¡los n elementos!) acumulando en una variable local y, al
    //       final, asigna el total a *s. *s llega con NaN: `*s += ...` da NaN.
    // TODO: acumula en double (como np.sum con dtype=np.float64) y redondea al final: un
    //       acumulador float también pasa, pero su error crece con n (ver el enunciado).
    // TODO: borra las líneas (void) cuando uses los parámetros.
    (void)x;
    (void)s;
    (void)n;
}
