/*
 * Laboratorio 4, ejercicio 1, variantes GPU (solución): el cu_add_vectors del cuaderno en
 * CUDA C.
 *
 * Un hilo por elemento: el hilo calcula su posición absoluta en la malla (grid),
 * blockIdx.x * blockDim.x + threadIdx.x, y suma ese elemento. Se lanzan ceil(n / 1024)
 * bloques de 1024 hilos; en el último bloque sobran hilos (con n = 5466, 678), y el
 * `if (i < n)` impide que escriban fuera del vector.
 *
 * Diferencias con el cuaderno: u es una salida, no un acumulador (u = a + b, no u += a + b:
 * el corrector rellena u con NaN antes de llamar), y los tamaños se pasan como argumento.
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

#define HILOS_POR_BLOQUE 1024

__global__ void suma_vectores(float *__restrict__ u, const float *__restrict__ a,
                              const float *__restrict__ b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) // ¿está este hilo dentro del vector?
        u[i] = a[i] + b[i];
}

void vadd_gpu_dev(float *u, const float *a, const float *b, int32_t n)
{
    if (n <= 0)
        return;
    int bloques = (n + HILOS_POR_BLOQUE - 1) / HILOS_POR_BLOQUE; // ceil(n / 1024)
    suma_vectores<<<bloques, HILOS_POR_BLOQUE>>>(u, a, b, n);
    CUDA_CHECK(cudaGetLastError());
}

void vadd_gpu(float *u, const float *a, const float *b, int32_t n)
{
    if (n <= 0)
        return;
    size_t bytes = (size_t)n * sizeof(float);
    float *du = NULL, *da = NULL, *db = NULL;
    CUDA_CHECK(cudaMalloc((void **)&du, bytes));
    CUDA_CHECK(cudaMalloc((void **)&da, bytes));
    CUDA_CHECK(cudaMalloc((void **)&db, bytes));
    CUDA_CHECK(cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice)); // cuda.to_device(a)
    CUDA_CHECK(cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice));
    vadd_gpu_dev(du, da, db, n);
    // copy_to_host(); cudaMemcpy espera a que termine el kernel (mismo stream).
    CUDA_CHECK(cudaMemcpy(u, du, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(du));
    CUDA_CHECK(cudaFree(da));
    CUDA_CHECK(cudaFree(db));
}
