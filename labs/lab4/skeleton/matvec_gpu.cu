/*
 * Laboratorio 4, ejercicio 2, variantes GPU: u = A·v con A de n×m por filas (float32).
 *
 *   matvec_gpu      punteros de host: incluye las copias CPU <-> GPU.
 *   matvec_gpu_dev  punteros de dispositivo: solo el kernel.
 */
#include "lab4.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

// Comprueba el resultado de una llamada CUDA: si falla, imprime cuál y termina.
#define CUDA_CHECK(call)                                                                           \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

// TODO: escribe el kernel del cuaderno (cu_mv_product), un hilo por fila:
//   __global__ void matvec_kernel(float *u, const float *A, const float *v, int n, int m)
//   {
//       int fila = blockIdx.x * blockDim.x + threadIdx.x;
//       if (fila < n) {
//           float tmp = 0.0f;                  // suma en un registro...
//           for (int j = 0; j < m; j++)
//               tmp += A[(size_t)fila * m + j] * v[j];
//           u[fila] = tmp;                     // ...y una sola escritura en memoria global
//       }
//   }
// Para ir más rápido (opcional): un warp (32 hilos) por fila, cada hilo con los elementos
// j = carril, carril + 32, ... (accesos consecutivos entre hilos vecinos), y las 32 sumas
// parciales reunidas con __shfl_down_sync.

void matvec_gpu_dev(float *u, const float *A, const float *v, int32_t n, int32_t m)
{
    // TODO: u, A y v ya están en la GPU: lanza el kernel con (n + 1023) / 1024 bloques de
    //       1024 hilos y comprueba el lanzamiento con CUDA_CHECK(cudaGetLastError()).
    // TODO: borra las líneas (void) cuando uses los parámetros.
    (void)u;
    (void)A;
    (void)v;
    (void)n;
    (void)m;
}

void matvec_gpu(float *u, const float *A, const float *v, int32_t n, int32_t m)
{
    // u, A y v son punteros de host. Pasos (comprueba cada llamada con CUDA_CHECK):
    // TODO: 1. cudaMalloc de du (n floats), dA (n*m floats: usa size_t) y dv (m floats).
    // TODO: 2. cudaMemcpy de A -> dA y v -> dv.
    // TODO: 3. matvec_gpu_dev(du, dA, dv, n, m).
    // TODO: 4. cudaMemcpy de du -> u.
    // TODO: 5. cudaFree de du, dA y dv.
    (void)u;
    (void)A;
    (void)v;
    (void)n;
    (void)m;
}
