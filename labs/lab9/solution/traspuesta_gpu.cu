/*
 * Laboratorio 9, variantes GPU (solución): B = Aᵀ con un kernel por teselas.
 *
 * Cada bloque de 32×8 hilos traspone una tesela de 32×32: la lee de A por filas (los 32
 * hilos de un warp leen 32 floats consecutivos: lectura coalescida), la guarda en memoria
 * compartida, y la escribe en B también por filas de B (escritura coalescida), leyendo la
 * tesela por columnas. La columna de relleno (TESELA + 1) evita que los 32 accesos de un
 * warp a una columna caigan en el mismo banco de memoria compartida.
 *
 * Las teselas del borde no están completas (ni filas ni columnas son múltiplos de 32): cada
 * lectura y cada escritura comprueba sus límites. Sin esa comprobación, los hilos sobrantes
 * escriben fuera de B.
 */
#include "lab9.h"

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

#define TESELA 32
#define FILAS_POR_PASADA 8 // el bloque es de 32×8 hilos: cada hilo copia 4 elementos

__global__ void traspuesta_kernel(float *__restrict__ B, const float *__restrict__ A, int filas,
                                  int columnas)
{
    __shared__ float tesela[TESELA][TESELA + 1];
    int j = blockIdx.x * TESELA + threadIdx.x; // columna de A
    int i = blockIdx.y * TESELA + threadIdx.y; // fila de A
    for (int k = 0; k < TESELA; k += FILAS_POR_PASADA)
        if (j < columnas && i + k < filas)
            tesela[threadIdx.y + k][threadIdx.x] = A[(size_t)(i + k) * columnas + j];
    __syncthreads(); // la tesela está completa antes de leerla por columnas

    int ib = blockIdx.y * TESELA + threadIdx.x; // columna de B = fila de A
    int jb = blockIdx.x * TESELA + threadIdx.y; // fila de B = columna de A
    for (int k = 0; k < TESELA; k += FILAS_POR_PASADA)
        if (ib < filas && jb + k < columnas)
            B[(size_t)(jb + k) * filas + ib] = tesela[threadIdx.x][threadIdx.y + k];
}

void traspuesta_gpu_dev(float *B, const float *A, int32_t filas, int32_t columnas)
{
    if (filas <= 0 || columnas <= 0)
        return;
    dim3 hilos(TESELA, FILAS_POR_PASADA);
    dim3 bloques((columnas + TESELA - 1) / TESELA, (filas + TESELA - 1) / TESELA);
    traspuesta_kernel<<<bloques, hilos>>>(B, A, filas, columnas);
    CUDA_CHECK(cudaGetLastError());
}

void traspuesta_gpu(float *B, const float *A, int32_t filas, int32_t columnas)
{
    if (filas <= 0 || columnas <= 0)
        return;
    size_t bytes = (size_t)filas * (size_t)columnas * sizeof(float);
    float *dA = NULL, *dB = NULL;
    CUDA_CHECK(cudaMalloc((void **)&dA, bytes));
    CUDA_CHECK(cudaMalloc((void **)&dB, bytes));
    CUDA_CHECK(cudaMemcpy(dA, A, bytes, cudaMemcpyHostToDevice));
    traspuesta_gpu_dev(dB, dA, filas, columnas);
    CUDA_CHECK(cudaMemcpy(B, dB, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(dA));
    CUDA_CHECK(cudaFree(dB));
}
