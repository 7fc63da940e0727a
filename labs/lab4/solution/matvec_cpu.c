/*
 * Laboratorio 4, ejercicio 2, variante CPU (solución): u = A·v con OpenBLAS, lo que hace
 * np.dot(A, v). cblas_sgemv recorre A por filas con instrucciones SIMD y varios
 * acumuladores; el producto matriz-vector lo limita el ancho de banda (cada elemento de A se
 * usa una sola vez), así que un bucle bien escrito tampoco queda lejos.
 */
#include "lab4.h"

#include <cblas.h>

void matvec_cpu(float *u, const float *A, const float *v, int32_t n, int32_t m)
{
    if (n <= 0)
        return;
    if (m <= 0) {
        for (int32_t i = 0; i < n; i++)
            u[i] = 0.0f;
        return;
    }
    cblas_sgemv(CblasRowMajor, CblasNoTrans, n, m, 1.0f, A, m, v, 1, 0.0f, u, 1);
}
