/*
 * Laboratorio 6, ejercicio 1, variantes GPU: C = A·B con matrices n×n float32 por filas.
 *
 *   matmul_gpu      punteros de host: incluye las transferencias CPU <-> GPU.
 *   matmul_gpu_dev  punteros de dispositivo: solo el cálculo.
 *
 * Puedes escribir tu propio kernel o usar cuBLAS (lo que usa torch.matmul). Ojo: cuBLAS
 * trabaja por columnas; una matriz por filas leída por columnas es su traspuesta, y
 * C^T = B^T·A^T, así que basta con pasar B antes que A:
 *     cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &uno, B, n, A, n, &cero, C, n);
 * Crea el cublasHandle_t una sola vez (p. ej. en una variable static) y reutilízalo:
 * crearlo es caro, y las llamadas de calentamiento del corrector absorben ese coste.
 */
#include "lab6.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

// Comprueba el resultado de una llamada CUDA: si falla, imprime cuál y termina.
// Úsala en todas: CUDA_CHECK(cudaMalloc((void **)&dA, bytes));
#define CUDA_CHECK(call)                                                                           \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

// TODO: si no usas cuBLAS, escribe aquí el kernel. Por ejemplo, un hilo por elemento de C:
//   fila = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x,
//   si fila < n y col < n: C[fila*n + col] = suma sobre k de A[fila*n + k] * B[k*n + col].
//   Se lanza con bloques de 16×16 hilos: dim3 hilos(16, 16), bloques((n+15)/16, (n+15)/16).
//   Para acercarte a cuBLAS: mosaicos (tiles) en memoria compartida.

void matmul_gpu_dev(const float *A, const float *B, float *C, int32_t n)
{
    // TODO: A, B y C ya están en la GPU: lanza el kernel (o cublasSgemm) sobre ellos.
    // TODO: comprueba el lanzamiento con CUDA_CHECK(cudaGetLastError()).
    // No hace falta cudaDeviceSynchronize(): el corrector sincroniza y mide.
    (void)A;
    (void)B;
    (void)C;
    (void)n;
}

void matmul_gpu(const float *A, const float *B, float *C, int32_t n)
{
    // A, B y C son punteros de host. Pasos (comprueba cada llamada con CUDA_CHECK):
    // TODO: 1. cudaMalloc de dA, dB y dC, de n*n*sizeof(float) bytes cada una (usa size_t).
    // TODO: 2. cudaMemcpy de A -> dA y B -> dB (cudaMemcpyHostToDevice).
    // TODO: 3. lanzar el kernel: puedes llamar a matmul_gpu_dev(dA, dB, dC, n).
    // TODO: 4. cudaMemcpy de dC -> C (cudaMemcpyDeviceToHost); espera a que acabe el kernel.
    // TODO: 5. cudaFree de dA, dB y dC.
    (void)A;
    (void)B;
    (void)C;
    (void)n;
}
