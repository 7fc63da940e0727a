/*
 * Laboratorio 4, ejercicio 1, variantes GPU: u[i] = a[i] + b[i] (float32).
 *
 *   vadd_gpu      punteros de host: incluye las copias CPU <-> GPU ("con transferencia").
 *   vadd_gpu_dev  punteros de dispositivo: solo el kernel ("sin transferencia").
 *
 * Es el cu_add_vectors del cuaderno escrito en CUDA C. Ojo: allí el kernel hacía
 * u[tidx] += a[tidx] + b[tidx] sobre un u puesto a cero; aquí u es solo salida (el corrector
 * la rellena con NaN antes de llamar), así que hay que asignar, no acumular.
 */
#include "lab4.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

// Comprueba el resultado de una llamada CUDA: si falla, imprime cuál y termina.
// Úsala en todas: CUDA_CHECK(cudaMalloc((void **)&du, bytes));
#define CUDA_CHECK(call)                                                                           \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

// TODO: escribe el kernel. Cada hilo calcula su posición absoluta en la malla,
//         int i = blockIdx.x * blockDim.x + threadIdx.x;
//       y, SOLO si i < n (en el último bloque sobran hilos), suma ese elemento:
//   __global__ void suma_vectores(float *u, const float *a, const float *b, int n)
//   {
//       ...
//   }

void vadd_gpu_dev(float *u, const float *a, const float *b, int32_t n)
{
    // TODO: u, a y b ya están en la GPU. Calcula el número de bloques, ceil(n / 1024) con
    //       enteros: (n + 1023) / 1024, y lanza el kernel con 1024 hilos por bloque:
    //         suma_vectores<<<bloques, 1024>>>(u, a, b, n);
    // TODO: comprueba el lanzamiento con CUDA_CHECK(cudaGetLastError()).
    // No hace falta cudaDeviceSynchronize(): el corrector sincroniza y mide.
    // TODO: borra las líneas (void) cuando uses los parámetros.
    (void)u;
    (void)a;
    (void)b;
    (void)n;
}

void vadd_gpu(float *u, const float *a, const float *b, int32_t n)
{
    // u, a y b son punteros de host. Pasos (comprueba cada llamada con CUDA_CHECK):
    // TODO: 1. cudaMalloc de du, da y db, de (size_t)n * sizeof(float) bytes cada una.
    // TODO: 2. cudaMemcpy de a -> da y b -> db (cudaMemcpyHostToDevice): cuda.to_device().
    // TODO: 3. lanzar el kernel: puedes llamar a vadd_gpu_dev(du, da, db, n).
    // TODO: 4. cudaMemcpy de du -> u (cudaMemcpyDeviceToHost): copy_to_host().
    // TODO: 5. cudaFree de du, da y db.
    (void)u;
    (void)a;
    (void)b;
    (void)n;
}
