/*
 * Laboratorio 8, variantes GPU (solución): histograma de 256 clases con atomicAdd.
 *
 * Si cada hilo hiciera atomicAdd(&hist[v], 1) en memoria global, con datos sesgados (todos
 * iguales) los n incrementos irían a la misma dirección, uno detrás de otro. Por eso cada
 * bloque cuenta primero en su propia copia del histograma en memoria compartida (256
 * enteros: las atómicas en memoria compartida son mucho más rápidas) y al final suma su copia
 * al histograma global: 256 atomicAdd por bloque en vez de uno por byte.
 *
 * Las atómicas son imprescindibles en los dos niveles: `p[v]++` no es atómico (leer, sumar
 * y escribir), y dos hilos con el mismo v pierden una cuenta.
 */
#include "lab8.h"

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

#define CLASES 256
#define HILOS 256
#define MAX_BLOQUES 1024

__global__ void histograma_kernel(int *hist, const unsigned char *__restrict__ datos, int n)
{
    __shared__ int parcial[CLASES];
    for (int v = threadIdx.x; v < CLASES; v += blockDim.x)
        parcial[v] = 0;
    __syncthreads(); // la copia del bloque está a cero antes de contar

    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&parcial[datos[i]], 1);
    __syncthreads(); // todo el bloque ha contado

    for (int v = threadIdx.x; v < CLASES; v += blockDim.x)
        if (parcial[v] != 0)
            atomicAdd(&hist[v], parcial[v]);
}

void histograma_gpu_dev(int32_t *hist, const uint8_t *datos, int32_t n)
{
    CUDA_CHECK(cudaMemsetAsync(hist, 0, CLASES * sizeof(int32_t))); // llega con basura
    if (n <= 0)
        return;
    int bloques = (n + HILOS - 1) / HILOS;
    if (bloques > MAX_BLOQUES)
        bloques = MAX_BLOQUES;
    histograma_kernel<<<bloques, HILOS>>>((int *)hist, datos, n);
    CUDA_CHECK(cudaGetLastError());
}

void histograma_gpu(int32_t *hist, const uint8_t *datos, int32_t n)
{
    unsigned char *dd = NULL;
    int32_t *dh = NULL;
    CUDA_CHECK(cudaMalloc((void **)&dd, (size_t)(n > 0 ? n : 1)));
    CUDA_CHECK(cudaMalloc((void **)&dh, CLASES * sizeof(int32_t)));
    if (n > 0)
        CUDA_CHECK(cudaMemcpy(dd, datos, (size_t)n, cudaMemcpyHostToDevice));
    histograma_gpu_dev(dh, dd, n);
    CUDA_CHECK(cudaMemcpy(hist, dh, CLASES * sizeof(int32_t), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(dd));
    CUDA_CHECK(cudaFree(dh));
}
