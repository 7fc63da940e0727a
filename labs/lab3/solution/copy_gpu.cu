/*
 * Laboratorio 3, ejercicios h2d y d2h (solución): copias entre la CPU y la GPU.
 *
 * Desde memoria paginable, cudaMemcpy no puede leer el buffer directamente: el driver lo
 * copia por trozos a un buffer fijado intermedio y de ahí a la GPU (una copia de más en la
 * CPU). Desde memoria fijada (cudaMallocHost, el pin_memory() de PyTorch) el motor de copia
 * de la GPU lee o escribe el buffer directamente por DMA, y la copia puede ser asíncrona:
 * cudaMemcpyAsync vuelve enseguida, como .to('cuda', non_blocking=True). Aquí esperamos a que
 * termine antes de volver, porque quien llama da la copia por hecha.
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

void copy_h2d(float *dst, const float *src, int32_t n)
{
    if (n <= 0)
        return;
    CUDA_CHECK(cudaMemcpy(dst, src, (size_t)n * sizeof(float), cudaMemcpyHostToDevice));
}

void copy_h2d_pinned(float *dst, const float *src, int32_t n)
{
    if (n <= 0)
        return;
    // Asíncrona en el stream por defecto; cudaStreamSynchronize espera a que acabe.
    CUDA_CHECK(cudaMemcpyAsync(dst, src, (size_t)n * sizeof(float), cudaMemcpyHostToDevice, 0));
    CUDA_CHECK(cudaStreamSynchronize(0));
}

void copy_d2h(float *dst, const float *src, int32_t n)
{
    if (n <= 0)
        return;
    CUDA_CHECK(cudaMemcpy(dst, src, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost));
}

void copy_d2h_pinned(float *dst, const float *src, int32_t n)
{
    if (n <= 0)
        return;
    CUDA_CHECK(cudaMemcpyAsync(dst, src, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost, 0));
    CUDA_CHECK(cudaStreamSynchronize(0));
}
