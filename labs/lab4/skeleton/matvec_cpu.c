/*
 * Laboratorio 4, ejercicio 2, variante CPU: u = A·v con A de n×m por filas (float32).
 */
#include "lab4.h"

void matvec_cpu(float *u, const float *A, const float *v, int32_t n, int32_t m)
{
    // TODO: para cada fila i = 0..n-1: u[i] = suma sobre j = 0..m-1 de A[i*m + j] * v[j]
    //       (acumula en un float local y escribe u[i] al final).
    // TODO: o llama a OpenBLAS, que es lo que hace np.dot(A, v):
    //         #include <cblas.h>
    //         cblas_sgemv(CblasRowMajor, CblasNoTrans, n, m, 1.0f, A, m, v, 1, 0.0f, u, 1);
    // TODO: borra las líneas (void) cuando uses los parámetros.
    (void)u;
    (void)A;
    (void)v;
    (void)n;
    (void)m;
}
