/*
 * Laboratorio 6, ejercicio 2, variantes GPU (solución): z[i] = a·x[i]² + b·y[i] + c.
 *
 * Un kernel grid-stride con 256 hilos por bloque: un elemento por hilo (salvo para n
 * enormes), accesos consecutivos entre hilos vecinos (coalescentes). El cálculo es
 * trivial: el tiempo lo marca el ancho de banda de memoria (24 bytes por elemento),
 * y con copia lo marcan las transferencias por PCIe, como se vio en el cuaderno.
 */
#include "lab6.h"

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

#define HILOS 256
#define MAX_BLOQUES 65535

__global__ void grade2_kernel(const double *__restrict__ x, const double *__restrict__ y,
                              double *__restrict__ z, double a, double b, double c, int n)
{
    size_t paso = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (size_t)n; i += paso)
        z[i] = a * x[i] * x[i] + b * y[i] + c;
}

void grade2_gpu_dev(const double *x, const double *y, double *z, double a, double b, double c,
                    int32_t n)
{
    if (n <= 0)
        return;
    int bloques = (int)(((size_t)n + HILOS - 1) / HILOS);
    if (bloques > MAX_BLOQUES)
        bloques = MAX_BLOQUES;
    grade2_kernel<<<bloques, HILOS>>>(x, y, z, a, b, c, n);
    CUDA_CHECK(cudaGetLastError());
}

void grade2_gpu(const double *x, const double *y, double *z, double a, double b, double c,
                int32_t n)
{
    if (n <= 0)
        return;
    size_t bytes = (size_t)n * sizeof(double);
    double *dx = NULL, *dy = NULL, *dz = NULL;
    CUDA_CHECK(cudaMalloc((void **)&dx, bytes));
    CUDA_CHECK(cudaMalloc((void **)&dy, bytes));
    CUDA_CHECK(cudaMalloc((void **)&dz, bytes));
    CUDA_CHECK(cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dy, y, bytes, cudaMemcpyHostToDevice));
    grade2_gpu_dev(dx, dy, dz, a, b, c, n);
    CUDA_CHECK(cudaMemcpy(z, dz, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(dx));
    CUDA_CHECK(cudaFree(dy));
    CUDA_CHECK(cudaFree(dz));
}
