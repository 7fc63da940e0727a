/*
 * Laboratorio 3, ejercicios add, mul y exp, variantes GPU (solución).
 *
 *   <op>_gpu_dev  punteros de dispositivo: solo lanza el kernel ("sin transferencia").
 *   <op>_gpu      punteros de host: reserva, copia, lanza, copia de vuelta y libera ("con
 *                 transferencia"), que es lo que mide el cuaderno con x.to('cuda').
 *
 * Los kernels son grid-stride con 256 hilos por bloque y accesos consecutivos entre hilos
 * vecinos (coalescentes). Hacen una o pocas operaciones por cada 8 o 12 bytes: los limita el
 * ancho de banda de la memoria y, con transferencia, el del bus PCIe, mucho menor.
 */
#include "lab3.h"

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

static int bloques(int32_t n)
{
    int b = (int)(((size_t)n + HILOS - 1) / HILOS);
    return b > MAX_BLOQUES ? MAX_BLOQUES : b;
}

#define PARA_CADA(i, n)                                                                            \
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (size_t)(n);                \
         i += (size_t)gridDim.x * blockDim.x)

__global__ void k_suma(const float *__restrict__ x, const float *__restrict__ y,
                       float *__restrict__ z, int n)
{
    PARA_CADA(i, n) z[i] = x[i] + y[i];
}

__global__ void k_producto(const float *__restrict__ x, const float *__restrict__ y,
                           float *__restrict__ z, int n)
{
    PARA_CADA(i, n) z[i] = x[i] * y[i];
}

__global__ void k_exp(const float *__restrict__ x, float *__restrict__ y, int n)
{
    PARA_CADA(i, n) y[i] = expf(x[i]);
}

void add_gpu_dev(const float *x, const float *y, float *z, int32_t n)
{
    if (n <= 0)
        return;
    k_suma<<<bloques(n), HILOS>>>(x, y, z, n);
    CUDA_CHECK(cudaGetLastError());
}

void mul_gpu_dev(const float *x, const float *y, float *z, int32_t n)
{
    if (n <= 0)
        return;
    k_producto<<<bloques(n), HILOS>>>(x, y, z, n);
    CUDA_CHECK(cudaGetLastError());
}

void exp_gpu_dev(const float *x, float *y, int32_t n)
{
    if (n <= 0)
        return;
    k_exp<<<bloques(n), HILOS>>>(x, y, n);
    CUDA_CHECK(cudaGetLastError());
}

// Con transferencia: las dos entradas a la GPU, la operación, el resultado de vuelta.
static void binaria_con_copia(void (*op_dev)(const float *, const float *, float *, int32_t),
                              const float *x, const float *y, float *z, int32_t n)
{
    size_t bytes = (size_t)n * sizeof(float);
    float *dx = NULL, *dy = NULL, *dz = NULL;
    CUDA_CHECK(cudaMalloc((void **)&dx, bytes));
    CUDA_CHECK(cudaMalloc((void **)&dy, bytes));
    CUDA_CHECK(cudaMalloc((void **)&dz, bytes));
    CUDA_CHECK(cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dy, y, bytes, cudaMemcpyHostToDevice));
    op_dev(dx, dy, dz, n);
    // cudaMemcpy espera a que acabe el kernel (mismo stream por defecto).
    CUDA_CHECK(cudaMemcpy(z, dz, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(dx));
    CUDA_CHECK(cudaFree(dy));
    CUDA_CHECK(cudaFree(dz));
}

void add_gpu(const float *x, const float *y, float *z, int32_t n)
{
    if (n > 0)
        binaria_con_copia(add_gpu_dev, x, y, z, n);
}

void mul_gpu(const float *x, const float *y, float *z, int32_t n)
{
    if (n > 0)
        binaria_con_copia(mul_gpu_dev, x, y, z, n);
}

void exp_gpu(const float *x, float *y, int32_t n)
{
    if (n <= 0)
        return;
    size_t bytes = (size_t)n * sizeof(float);
    float *dx = NULL, *dy = NULL;
    CUDA_CHECK(cudaMalloc((void **)&dx, bytes));
    CUDA_CHECK(cudaMalloc((void **)&dy, bytes));
    CUDA_CHECK(cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice));
    exp_gpu_dev(dx, dy, n);
    CUDA_CHECK(cudaMemcpy(y, dy, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(dx));
    CUDA_CHECK(cudaFree(dy));
}
