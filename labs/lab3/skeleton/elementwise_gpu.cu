/*
 * Laboratorio 3, ejercicios add, mul y exp, variantes GPU.
 *
 *   <op>_gpu_dev  punteros de DISPOSITIVO: solo lanza el kernel ("sin transferencia").
 *   <op>_gpu      punteros de HOST: reserva, copia, lanza, copia de vuelta y libera ("con
 *                 transferencia"); es lo que mide el elementwise_benchmark del cuaderno.
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

// TODO: escribe los kernels (suma, producto y exponencial con expf), un elemento por hilo:
//   __global__ void k_suma(const float *x, const float *y, float *z, int n)
//   {
//       int i = blockIdx.x * blockDim.x + threadIdx.x;
//       if (i < n)           // sobran hilos en el último bloque: no escribas fuera
//           z[i] = x[i] + y[i];
//   }
// y lánzalos con 256 hilos por bloque: k_suma<<<(n + 255) / 256, 256>>>(x, y, z, n);

void add_gpu_dev(const float *x, const float *y, float *z, int32_t n)
{
    // TODO: x, y y z ya están en la GPU: lanza el kernel de suma.
    // TODO: comprueba el lanzamiento con CUDA_CHECK(cudaGetLastError()).
    // No hace falta cudaDeviceSynchronize(): el corrector sincroniza y mide.
    // TODO: borra las líneas (void) cuando uses los parámetros.
    (void)x;
    (void)y;
    (void)z;
    (void)n;
}

void add_gpu(const float *x, const float *y, float *z, int32_t n)
{
    // x, y y z son punteros de host. Pasos (comprueba cada llamada con CUDA_CHECK):
    // TODO: 1. cudaMalloc de dx, dy y dz, de (size_t)n * sizeof(float) bytes cada una.
    // TODO: 2. cudaMemcpy de x -> dx e y -> dy (cudaMemcpyHostToDevice).
    // TODO: 3. lanzar el kernel: puedes llamar a add_gpu_dev(dx, dy, dz, n).
    // TODO: 4. cudaMemcpy de dz -> z (cudaMemcpyDeviceToHost); espera a que acabe el kernel.
    // TODO: 5. cudaFree de dx, dy y dz.
    (void)x;
    (void)y;
    (void)z;
    (void)n;
}

void mul_gpu_dev(const float *x, const float *y, float *z, int32_t n)
{
    // TODO: como add_gpu_dev, con el kernel de producto.
    (void)x;
    (void)y;
    (void)z;
    (void)n;
}

void mul_gpu(const float *x, const float *y, float *z, int32_t n)
{
    // TODO: como add_gpu, llamando a mul_gpu_dev.
    (void)x;
    (void)y;
    (void)z;
    (void)n;
}

void exp_gpu_dev(const float *x, float *y, int32_t n)
{
    // TODO: lanza el kernel y[i] = expf(x[i]).
    (void)x;
    (void)y;
    (void)n;
}

void exp_gpu(const float *x, float *y, int32_t n)
{
    // TODO: como add_gpu, con una sola entrada: reserva dx y dy, copia x, llama a
    //       exp_gpu_dev(dx, dy, n), copia dy -> y y libera.
    (void)x;
    (void)y;
    (void)n;
}
