/*
 * Laboratorio 8, variante CPU (solución): histograma de 256 clases, el np.bincount(datos,
 * minlength=256) del cuaderno.
 */
#include "lab8.h"

#include <string.h>

void histograma_cpu(int32_t *hist, const uint8_t *datos, int32_t n)
{
    memset(hist, 0, 256 * sizeof(int32_t)); // hist llega con un patrón de relleno
    for (int32_t i = 0; i < n; i++)
        hist[datos[i]]++;
}
