/*
 * Laboratorio 9, variante CPU: B = Aᵀ, A de filas×columnas y B de columnas×filas, por filas.
 */
#include "lab9.h"

void traspuesta_cpu(float *B, const float *A, int32_t filas, int32_t columnas)
{
    // TODO: para cada i = 0..filas-1 y j = 0..columnas-1: B[j*filas + i] = A[i*columnas + j].
    //       Usa (size_t) en los productos de índices: con matrices grandes no caben en int.
    // TODO: borra las líneas (void) cuando uses los parámetros.
    (void)B;
    (void)A;
    (void)filas;
    (void)columnas;
}
