/*
 * Laboratorio 8, variante CPU: histograma de 256 clases de n bytes (np.bincount).
 */
#include "lab8.h"

void histograma_cpu(int32_t *hist, const uint8_t *datos, int32_t n)
{
    // TODO: hist llega con basura: pon sus 256 cuentas a cero (un bucle, o memset de
    //       <string.h>).
    // TODO: para i = 0..n-1, suma 1 a hist[datos[i]].
    // TODO: borra las líneas (void) cuando uses los parámetros.
    (void)hist;
    (void)datos;
    (void)n;
}
