/*
 * Laboratorio 7, ejercicio 2, variante GPU: producto escalar x·y (float32) con x e y en la
 * GPU, devuelto al host.
 */
#include "lab7.h"

#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define CUDA_CHECK(call)                                                                           \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

// TODO: el mismo kernel que en suma_gpu.cu, con x[i] * y[i] en lugar de x[i].
// TODO: el acumulador puede ser una variable global de la GPU, sin cudaMalloc en cada llamada:
//         static __device__ float acumulador;
//       y su dirección se obtiene con cudaGetSymbolAddress((void **)&r, acumulador).

float punto_gpu_dev(const float *x, const float *y, int32_t n)
{
    // TODO: 1. pon el acumulador a cero (cudaMemsetAsync).
    // TODO: 2. lanza el kernel y comprueba el lanzamiento (cudaGetLastError).
    // TODO: 3. copia el acumulador al host con cudaMemcpy (espera a que acabe el kernel) y
    //          devuélvelo.
    // TODO: borra las líneas (void) y el `return NAN` cuando escribas la función.
    (void)x;
    (void)y;
    (void)n;
    return NAN; // "sin calcular": el corrector lo marca como erróneo
}
