/*
 * Laboratorio 9, variantes GPU: B = Aᵀ (float32).
 *
 *   traspuesta_gpu      punteros de host ("con transferencia").
 *   traspuesta_gpu_dev  punteros de dispositivo ("sin transferencia").
 */
#include "lab9.h"

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

// TODO: escribe el kernel. La versión directa usa un hilo por elemento en una malla 2D:
//         int j = blockIdx.x * blockDim.x + threadIdx.x;   // columna de A
//         int i = blockIdx.y * blockDim.y + threadIdx.y;   // fila de A
//         if (i < filas && j < columnas)                    // ¡los bloques del borde sobran!
//             B[(size_t)j * filas + i] = A[(size_t)i * columnas + j];
//       Sus escrituras en B no son coalescidas. Más rápida (puntos de rendimiento): una
//       tesela __shared__ float t[32][33] por bloque, leída de A por filas y escrita en B
//       por filas de B, con __syncthreads() entre las dos fases (ver el enunciado).

void traspuesta_gpu_dev(float *B, const float *A, int32_t filas, int32_t columnas)
{
    // TODO: lanza el kernel con bloques de dim3(32, 32) (o 32×8 con teselas) hilos y
    //       dim3((columnas + 31) / 32, (filas + 31) / 32) bloques, y comprueba el
    //       lanzamiento con CUDA_CHECK(cudaGetLastError()). No sincronices.
    // TODO: borra las líneas (void) cuando uses los parámetros.
    (void)B;
    (void)A;
    (void)filas;
    (void)columnas;
}

void traspuesta_gpu(float *B, const float *A, int32_t filas, int32_t columnas)
{
    // Punteros de host. Pasos (comprueba cada llamada con CUDA_CHECK):
    // TODO: 1. cudaMalloc de dA y dB, de (size_t)filas * columnas * sizeof(float) bytes.
    // TODO: 2. cudaMemcpy de A -> dA.
    // TODO: 3. traspuesta_gpu_dev(dB, dA, filas, columnas).
    // TODO: 4. cudaMemcpy de dB -> B.
    // TODO: 5. cudaFree de dA y dB.
    (void)B;
    (void)A;
    (void)filas;
    (void)columnas;
}
