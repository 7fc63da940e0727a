/*
 * Laboratorio 3, ejercicios de tipos de datos, variantes GPU (solución): punteros de
 * dispositivo, un kernel grid-stride por conversión con las funciones intrínsecas de
 * cuda_fp16.h y cuda_bf16.h (_rn: al más cercano, empates a par).
 *
 * Las conversiones solo mueven memoria: 6 bytes por elemento (4 de FP32 y 2 de FP16/BF16),
 * así que el tiempo lo marca el ancho de banda de la memoria de la GPU.
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

// Bucle grid-stride: vale para cualquier n, también mayor que hilos × bloques.
#define PARA_CADA(i, n)                                                                            \
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (size_t)(n);                \
         i += (size_t)gridDim.x * blockDim.x)

__global__ void k_f32_a_f16(const float *__restrict__ x, __half *__restrict__ y, int n)
{
    PARA_CADA(i, n) y[i] = __float2half_rn(x[i]);
}

__global__ void k_f16_a_f32(const __half *__restrict__ x, float *__restrict__ y, int n)
{
    PARA_CADA(i, n) y[i] = __half2float(x[i]);
}

__global__ void k_f32_a_bf16(const float *__restrict__ x, __nv_bfloat16 *__restrict__ y, int n)
{
    PARA_CADA(i, n) y[i] = __float2bfloat16_rn(x[i]);
}

__global__ void k_bf16_a_f32(const __nv_bfloat16 *__restrict__ x, float *__restrict__ y, int n)
{
    PARA_CADA(i, n) y[i] = __bfloat162float(x[i]);
}

__global__ void k_ida_y_vuelta(const float *__restrict__ x, float *__restrict__ y, int n)
{
    PARA_CADA(i, n) y[i] = __half2float(__float2half_rn(x[i]));
}

// __float2int_rn: al más cercano con empates a par; fuera de rango satura a INT_MIN/INT_MAX
// y un NaN da 0, así que basta con acotar el int a [-128, 127].
__global__ void k_cuantizar(const float *__restrict__ x, int8_t *__restrict__ q, float scale,
                            int n)
{
    PARA_CADA(i, n)
    {
        int r = __float2int_rn(x[i] / scale);
        q[i] = (int8_t)min(127, max(-128, r));
    }
}

void f32_to_f16_gpu_dev(const float *x, f16_t *y, int32_t n)
{
    if (n <= 0)
        return;
    k_f32_a_f16<<<bloques(n), HILOS>>>(x, y, n);
    CUDA_CHECK(cudaGetLastError());
}

void f16_to_f32_gpu_dev(const f16_t *x, float *y, int32_t n)
{
    if (n <= 0)
        return;
    k_f16_a_f32<<<bloques(n), HILOS>>>(x, y, n);
    CUDA_CHECK(cudaGetLastError());
}

void f32_to_bf16_gpu_dev(const float *x, bf16_t *y, int32_t n)
{
    if (n <= 0)
        return;
    k_f32_a_bf16<<<bloques(n), HILOS>>>(x, y, n);
    CUDA_CHECK(cudaGetLastError());
}

void bf16_to_f32_gpu_dev(const bf16_t *x, float *y, int32_t n)
{
    if (n <= 0)
        return;
    k_bf16_a_f32<<<bloques(n), HILOS>>>(x, y, n);
    CUDA_CHECK(cudaGetLastError());
}

void f16_roundtrip_gpu_dev(const float *x, float *y, int32_t n)
{
    if (n <= 0)
        return;
    k_ida_y_vuelta<<<bloques(n), HILOS>>>(x, y, n);
    CUDA_CHECK(cudaGetLastError());
}

void f32_to_i8_gpu_dev(const float *x, int8_t *q, float scale, int32_t n)
{
    if (n <= 0)
        return;
    k_cuantizar<<<bloques(n), HILOS>>>(x, q, scale, n);
    CUDA_CHECK(cudaGetLastError());
}
