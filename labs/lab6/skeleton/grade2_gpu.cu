/*
 * Laboratorio 6, ejercicio 2, variantes GPU: z[i] = a·x[i]² + b·y[i] + c (float64).
 *
 *   grade2_gpu      punteros de host: incluye las copias CPU <-> GPU ("con copia").
 *   grade2_gpu_dev  punteros de dispositivo: solo el kernel ("sin copia").
 */
#include "lab6.h"

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

// TODO: escribe el kernel, p. ej. con un bucle grid-stride (vale para cualquier n):
//   __global__ void grade2_kernel(const double *x, const double *y, double *z,
//                                 double a, double b, double c, int n)
//   {
//       for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
//           ...
//   }
//   y lánzalo con 256 hilos por bloque y (n + 255) / 256 bloques.

void grade2_gpu_dev(const double *x, const double *y, double *z, double a, double b, double c,
                    int32_t n)
{
    // TODO: x, y y z ya están en la GPU: lanza el kernel sobre ellos.
    // TODO: comprueba el lanzamiento con CUDA_CHECK(cudaGetLastError()).
    // No hace falta cudaDeviceSynchronize(): el corrector sincroniza y mide.
    (void)x;
    (void)y;
    (void)z;
    (void)a;
    (void)b;
    (void)c;
    (void)n;
}

void grade2_gpu(const double *x, const double *y, double *z, double a, double b, double c,
                int32_t n)
{
    // x, y y z son punteros de host. Pasos (comprueba cada llamada con CUDA_CHECK):
    // TODO: 1. cudaMalloc de dx, dy y dz, de n*sizeof(double) bytes cada una.
    // TODO: 2. cudaMemcpy de x -> dx e y -> dy (cudaMemcpyHostToDevice).
    // TODO: 3. lanzar el kernel: puedes llamar a grade2_gpu_dev(dx, dy, dz, a, b, c, n).
    // TODO: 4. cudaMemcpy de dz -> z (cudaMemcpyDeviceToHost).
    // TODO: 5. cudaFree de dx, dy y dz.
    (void)x;
    (void)y;
    (void)z;
    (void)a;
    (void)b;
    (void)c;
    (void)n;
}
