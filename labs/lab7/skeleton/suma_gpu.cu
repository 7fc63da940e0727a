/*
 * Laboratorio 7, ejercicio 1, variantes GPU: *s = suma de x[i] (float32).
 *
 *   suma_gpu      punteros de host: incluye las copias CPU <-> GPU ("con transferencia").
 *   suma_gpu_dev  punteros de dispositivo: solo el cálculo ("sin transferencia").
 */
#include "lab7.h"

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

// TODO: escribe el kernel de reducción, con bloques de 256 hilos:
//   __global__ void suma_kernel(const float *x, float *s, int n)
//   {
//       1. cada hilo suma sus elementos en un registro con un bucle grid-stride:
//            for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
//                 i += gridDim.x * blockDim.x)
//                acc += x[i];
//       2. el bloque reduce sus 256 sumas: en memoria compartida (__shared__ float p[256];
//          mitades sucesivas, p[t] += p[t + paso], con __syncthreads() entre pasos), o con
//          __shfl_down_sync dentro de cada warp y después entre los 8 warps;
//       3. el hilo 0 del bloque suma el resultado del bloque a *s con atomicAdd(s, total).
//   }

void suma_gpu_dev(const float *x, float *s, int32_t n)
{
    // TODO: *s llega con NaN: ponlo a cero antes de acumular en él con atomicAdd:
    //         CUDA_CHECK(cudaMemsetAsync(s, 0, sizeof(float)));
    // TODO: lanza suma_kernel con 256 hilos y min((n + 255) / 256, 1024) bloques y comprueba
    //       el lanzamiento con CUDA_CHECK(cudaGetLastError()). No sincronices: el corrector
    //       lo hace.
    // TODO: borra las líneas (void) cuando uses los parámetros.
    (void)x;
    (void)s;
    (void)n;
}

void suma_gpu(const float *x, float *s, int32_t n)
{
    // x y s son punteros de host. Pasos (comprueba cada llamada con CUDA_CHECK):
    // TODO: 1. cudaMalloc de dx ((size_t)n * sizeof(float) bytes) y de ds (un float).
    // TODO: 2. cudaMemcpy de x -> dx (cudaMemcpyHostToDevice).
    // TODO: 3. suma_gpu_dev(dx, ds, n).
    // TODO: 4. cudaMemcpy de ds -> s (cudaMemcpyDeviceToHost), un float.
    // TODO: 5. cudaFree de dx y ds.
    (void)x;
    (void)s;
    (void)n;
}
