/*
 * Laboratorio 9, variante CPU (solución): B = Aᵀ, A de filas×columnas.
 *
 * Recorre A por filas (lecturas consecutivas); las escrituras en B saltan de `filas` en
 * `filas`. Con matrices grandes, recorrerla por bloques de 32×32 aprovecha mejor la caché,
 * pero el bucle directo es la referencia de CPU.
 */
#include "lab9.h"

void traspuesta_cpu(float *B, const float *A, int32_t filas, int32_t columnas)
{
    for (int32_t i = 0; i < filas; i++)
        for (int32_t j = 0; j < columnas; j++)
            B[(size_t)j * filas + i] = A[(size_t)i * columnas + j];
}
