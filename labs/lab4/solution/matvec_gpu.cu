/*
 * Laboratorio 4, ejercicio 2, variantes GPU (solución): u = A·v, A n×m por filas.
 *
 * El kernel del cuaderno usa un hilo por fila: el hilo i recorre la fila i entera. Funciona,
 * pero en cada paso los 32 hilos de un warp leen 32 filas distintas, a m floats de distancia:
 * 32 accesos a memoria en vez de uno (no coalescentes).
 *
 * Aquí, un warp por fila: los 32 hilos del warp recorren la fila juntos, el hilo l lee los
 * elementos l, l+32, l+64..., que son consecutivos entre hilos vecinos (una sola transacción
 * por paso), y al final se suman las 32 sumas parciales dentro del warp con __shfl_down_sync,
 * sin memoria compartida. El vector v (m floats) se queda en la caché.
 */
#include "lab4.h"

#include <cuda_runtime.h>
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

#define HILOS_POR_BLOQUE 256
#define WARPS_POR_BLOQUE (HILOS_POR_BLOQUE / 32)

__global__ void matvec_warp_por_fila(float *__restrict__ u, const float *__restrict__ A,
                                     const float *__restrict__ v, int n, int m)
{
    int fila = blockIdx.x * WARPS_POR_BLOQUE + threadIdx.x / 32;
    int carril = threadIdx.x % 32;
    if (fila >= n) // todo el warp sale a la vez: el __shfl_down_sync de abajo no se rompe
        return;
    const float *a = A + (size_t)fila * m;
    float suma = 0.0f;
    for (int j = carril; j < m; j += 32)
        suma += a[j] * v[j];
    // Reducción en árbol dentro del warp: 16, 8, 4, 2, 1.
    for (int d = 16; d > 0; d /= 2)
        suma += __shfl_down_sync(0xffffffffu, suma, d);
    if (carril == 0)
        u[fila] = suma;
}

void matvec_gpu_dev(float *u, const float *A, const float *v, int32_t n, int32_t m)
{
    if (n <= 0)
        return;
    int bloques = (n + WARPS_POR_BLOQUE - 1) / WARPS_POR_BLOQUE;
    matvec_warp_por_fila<<<bloques, HILOS_POR_BLOQUE>>>(u, A, v, n, m);
    CUDA_CHECK(cudaGetLastError());
}

void matvec_gpu(float *u, const float *A, const float *v, int32_t n, int32_t m)
{
    if (n <= 0)
        return;
    size_t bytes_A = (size_t)n * (size_t)m * sizeof(float);
    size_t bytes_v = (size_t)m * sizeof(float), bytes_u = (size_t)n * sizeof(float);
    float *du = NULL, *dA = NULL, *dv = NULL;
    CUDA_CHECK(cudaMalloc((void **)&du, bytes_u));
    CUDA_CHECK(cudaMalloc((void **)&dA, bytes_A > 0 ? bytes_A : 1));
    CUDA_CHECK(cudaMalloc((void **)&dv, bytes_v > 0 ? bytes_v : 1));
    CUDA_CHECK(cudaMemcpy(dA, A, bytes_A, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dv, v, bytes_v, cudaMemcpyHostToDevice));
    matvec_gpu_dev(du, dA, dv, n, m);
    CUDA_CHECK(cudaMemcpy(u, du, bytes_u, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(du));
    CUDA_CHECK(cudaFree(dA));
    CUDA_CHECK(cudaFree(dv));
}
