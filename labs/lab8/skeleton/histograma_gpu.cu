/*
 * Laboratorio 8, variantes GPU: histograma de 256 clases con atomicAdd.
 *
 *   histograma_gpu      punteros de host ("con transferencia").
 *   histograma_gpu_dev  punteros de dispositivo ("sin transferencia").
 */
#include "lab8.h"

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

// TODO: escribe el kernel. La versión directa es un bucle grid-stride con
//         atomicAdd(&hist[datos[i]], 1);
//       `hist[datos[i]]++` NO vale: dos hilos con el mismo valor pierden una cuenta.
//       Más rápido (puntos de rendimiento): cada bloque cuenta en una copia en memoria
//       compartida (__shared__ int parcial[256]), puesta a cero al principio, con
//       __syncthreads() antes y después de contar, y al final suma su copia a hist con
//       un atomicAdd por clase.

void histograma_gpu_dev(int32_t *hist, const uint8_t *datos, int32_t n)
{
    // TODO: hist llega con basura: CUDA_CHECK(cudaMemsetAsync(hist, 0, 256 * sizeof(int32_t)));
    // TODO: lanza el kernel con 256 hilos y min((n + 255) / 256, 1024) bloques, y comprueba
    //       el lanzamiento con CUDA_CHECK(cudaGetLastError()). No sincronices.
    // TODO: borra las líneas (void) cuando uses los parámetros.
    (void)hist;
    (void)datos;
    (void)n;
}

void histograma_gpu(int32_t *hist, const uint8_t *datos, int32_t n)
{
    // Punteros de host. Pasos (comprueba cada llamada con CUDA_CHECK):
    // TODO: 1. cudaMalloc de dd (n bytes) y dh (256 enteros).
    // TODO: 2. cudaMemcpy de datos -> dd.
    // TODO: 3. histograma_gpu_dev(dh, dd, n).
    // TODO: 4. cudaMemcpy de dh -> hist.
    // TODO: 5. cudaFree de dd y dh.
    (void)hist;
    (void)datos;
    (void)n;
}
