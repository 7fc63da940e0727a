/*
 * Laboratorio 7, ejercicio 1, variantes GPU (solución): *s = suma de x[i].
 *
 *   suma_gpu_dev  punteros de dispositivo: pone *s a cero y lanza el kernel.
 *   suma_gpu      punteros de host: reserva, copia x, llama a suma_gpu_dev, copia *s, libera.
 *
 * El kernel, en tres pasos:
 *   1. bucle grid-stride: cada hilo suma sus elementos x[i], x[i + T], x[i + 2T]... (T, el
 *      total de hilos de la malla), así que vale para cualquier n; se lanzan a lo sumo 1024
 *      bloques, y con n grande cada hilo suma varios elementos en registros (cuatro
 *      lecturas independientes por vuelta, para tener más accesos a memoria en vuelo);
 *   2. reducción dentro del warp con __shfl_down_sync: en 5 pasos, el hilo 0 del warp tiene
 *      la suma de los 32; las sumas de los 8 warps del bloque van a memoria compartida y,
 *      tras __syncthreads(), el warp 0 las suma igual;
 *   3. un atomicAdd por bloque sobre *s, que antes se ha puesto a cero (llega con NaN).
 * El orden de los atomicAdd cambia de una ejecución a otra, así que el resultado puede
 * variar en la última cifra: la tolerancia lo admite.
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

#define HILOS 256 // por bloque: 8 warps
#define WARPS (HILOS / 32)
#define MAX_BLOQUES 1024

// La suma de v en los 32 hilos del warp; el resultado queda en el hilo 0 del warp.
static __device__ __forceinline__ float suma_warp(float v)
{
    for (int d = 16; d > 0; d >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, d);
    return v;
}

__global__ void suma_kernel(const float *__restrict__ x, float *s, int n)
{
    __shared__ float por_warp[WARPS];
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int T = gridDim.x * blockDim.x;
    float acc = 0.0f;
    int i = t;
    for (; i + 3 * T < n; i += 4 * T)
        acc += (x[i] + x[i + T]) + (x[i + 2 * T] + x[i + 3 * T]);
    for (; i < n; i += T)
        acc += x[i];

    acc = suma_warp(acc);
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0)
        por_warp[warp] = acc;
    __syncthreads(); // todos los warps han dejado su suma en por_warp
    if (warp == 0) {
        acc = suma_warp(lane < WARPS ? por_warp[lane] : 0.0f);
        if (lane == 0)
            atomicAdd(s, acc);
    }
}

void suma_gpu_dev(const float *x, float *s, int32_t n)
{
    CUDA_CHECK(cudaMemsetAsync(s, 0, sizeof(float))); // *s llega con NaN
    if (n <= 0)
        return;
    int bloques = (n + HILOS - 1) / HILOS;
    if (bloques > MAX_BLOQUES)
        bloques = MAX_BLOQUES;
    suma_kernel<<<bloques, HILOS>>>(x, s, n);
    CUDA_CHECK(cudaGetLastError());
}

void suma_gpu(const float *x, float *s, int32_t n)
{
    size_t bytes = (size_t)(n > 0 ? n : 1) * sizeof(float);
    float *dx = NULL, *ds = NULL;
    CUDA_CHECK(cudaMalloc((void **)&dx, bytes));
    CUDA_CHECK(cudaMalloc((void **)&ds, sizeof(float)));
    if (n > 0)
        CUDA_CHECK(cudaMemcpy(dx, x, (size_t)n * sizeof(float), cudaMemcpyHostToDevice));
    suma_gpu_dev(dx, ds, n);
    // cudaMemcpy espera a que termine el kernel (mismo stream).
    CUDA_CHECK(cudaMemcpy(s, ds, sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(dx));
    CUDA_CHECK(cudaFree(ds));
}
