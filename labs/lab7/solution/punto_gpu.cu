/*
 * Laboratorio 7, ejercicio 2, variante GPU (solución): producto escalar x·y devuelto al host.
 *
 * El mismo kernel que la suma (grid-stride, warp shuffles, un atomicAdd por bloque) con
 * x[i]*y[i] en lugar de x[i]. El acumulador es una variable __device__ del fichero: no hace
 * falta reservar memoria en cada llamada. La función espera al resultado (el cudaMemcpy de
 * vuelta sincroniza), porque lo devuelve.
 */
#include "lab7.h"

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
#define WARPS (HILOS / 32)
#define MAX_BLOQUES 1024

static __device__ float acumulador;

static __device__ __forceinline__ float suma_warp(float v)
{
    for (int d = 16; d > 0; d >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, d);
    return v;
}

__global__ void punto_kernel(const float *__restrict__ x, const float *__restrict__ y, float *r,
                             int n)
{
    __shared__ float por_warp[WARPS];
    int T = gridDim.x * blockDim.x;
    float acc = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += T)
        acc += x[i] * y[i];
    acc = suma_warp(acc);
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0)
        por_warp[warp] = acc;
    __syncthreads();
    if (warp == 0) {
        acc = suma_warp(lane < WARPS ? por_warp[lane] : 0.0f);
        if (lane == 0)
            atomicAdd(r, acc);
    }
}

float punto_gpu_dev(const float *x, const float *y, int32_t n)
{
    float *r = NULL, resultado = 0.0f;
    CUDA_CHECK(cudaGetSymbolAddress((void **)&r, acumulador));
    CUDA_CHECK(cudaMemsetAsync(r, 0, sizeof(float)));
    if (n > 0) {
        int bloques = (n + HILOS - 1) / HILOS;
        if (bloques > MAX_BLOQUES)
            bloques = MAX_BLOQUES;
        punto_kernel<<<bloques, HILOS>>>(x, y, r, n);
        CUDA_CHECK(cudaGetLastError());
    }
    CUDA_CHECK(cudaMemcpy(&resultado, r, sizeof(float), cudaMemcpyDeviceToHost));
    return resultado;
}
