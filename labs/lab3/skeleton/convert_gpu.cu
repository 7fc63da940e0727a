/*
 * Laboratorio 3, ejercicios de tipos de datos, variantes GPU: punteros de DISPOSITIVO.
 *
 * Cada función lanza un kernel que convierte un elemento por hilo. Las funciones de
 * conversión de CUDA están en cuda_fp16.h y cuda_bf16.h (las incluye lab3.h):
 *     __float2half_rn(f)        float -> __half, al más cercano con empates a par
 *     __half2float(h)           __half -> float (exacta)
 *     __float2bfloat16_rn(f)    float -> __nv_bfloat16, al más cercano con empates a par
 *     __bfloat162float(b)       __nv_bfloat16 -> float (exacta)
 *     __float2int_rn(f)         float -> int, al más cercano con empates a par
 * Ojo con las variantes _rz (hacia cero): truncan, y el corrector lo detecta.
 */
#include "lab3.h"

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

// TODO: escribe un kernel por conversión. Por ejemplo, con un bucle grid-stride:
//   __global__ void k_f32_a_f16(const float *x, __half *y, int n)
//   {
//       for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
//           y[i] = __float2half_rn(x[i]);
//   }
// y lánzalo con 256 hilos por bloque y (n + 255) / 256 bloques:
//   k_f32_a_f16<<<(n + 255) / 256, 256>>>(x, y, n);
//   CUDA_CHECK(cudaGetLastError());
// No hace falta cudaDeviceSynchronize(): el corrector sincroniza y mide.

void f32_to_f16_gpu_dev(const float *x, f16_t *y, int32_t n)
{
    // TODO: lanza el kernel FP32 -> FP16 (__float2half_rn).
    // TODO: borra las líneas (void) cuando uses los parámetros.
    (void)x;
    (void)y;
    (void)n;
}

void f16_to_f32_gpu_dev(const f16_t *x, float *y, int32_t n)
{
    // TODO: lanza el kernel FP16 -> FP32 (__half2float).
    (void)x;
    (void)y;
    (void)n;
}

void f32_to_bf16_gpu_dev(const float *x, bf16_t *y, int32_t n)
{
    // TODO: lanza el kernel FP32 -> BF16 (__float2bfloat16_rn).
    (void)x;
    (void)y;
    (void)n;
}

void bf16_to_f32_gpu_dev(const bf16_t *x, float *y, int32_t n)
{
    // TODO: lanza el kernel BF16 -> FP32 (__bfloat162float).
    (void)x;
    (void)y;
    (void)n;
}

void f16_roundtrip_gpu_dev(const float *x, float *y, int32_t n)
{
    // TODO: lanza un kernel con y[i] = __half2float(__float2half_rn(x[i])).
    (void)x;
    (void)y;
    (void)n;
}

void f32_to_i8_gpu_dev(const float *x, int8_t *q, float scale, int32_t n)
{
    // TODO: lanza un kernel con r = __float2int_rn(x[i] / scale), saturado a [-128, 127]
    //       (min y max de enteros existen en el código de dispositivo), y q[i] = (int8_t)r.
    (void)x;
    (void)q;
    (void)scale;
    (void)n;
}
