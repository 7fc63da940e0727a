/*
 * Laboratorio 6, ejercicio 1, variantes GPU (solución): C = A·B con cuBLAS, como
 * torch.matmul en el cuaderno.
 *
 * cuBLAS trabaja por columnas. Una matriz por filas leída por columnas es su traspuesta,
 * y C^T = B^T·A^T: pasando B como primer operando y A como segundo, cuBLAS escribe
 * directamente C por filas, sin trasponer nada.
 *
 * El handle de cuBLAS se crea en la primera llamada y se reutiliza: crearlo cuesta
 * decenas de milisegundos, y las llamadas de calentamiento absorben ese coste (igual
 * que el warm-up del cuaderno). Se deja el modo de cálculo por defecto (FP32 estricto);
 * cublasSetMathMode(h, CUBLAS_TF32_TENSOR_OP_MATH) sería más rápido en GPUs Ampere o
 * posteriores, con menos precisión, y también lo acepta la tolerancia del ejercicio.
 */
#include "lab6.h"

#include <cublas_v2.h>
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

#define CUBLAS_CHECK(call)                                                                         \
    do {                                                                                           \
        cublasStatus_t s_ = (call);                                                                \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                         \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                          \
                    cublasGetStatusString(s_));                                                    \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static cublasHandle_t cublas(void)
{
    static cublasHandle_t h;
    static int creado;
    if (!creado) {
        CUBLAS_CHECK(cublasCreate(&h));
        creado = 1;
    }
    return h;
}

void matmul_gpu_dev(const float *A, const float *B, float *C, int32_t n)
{
    const float uno = 1.0f, cero = 0.0f;
    if (n <= 0)
        return;
    // Por columnas: C^T (n×n) = B^T · A^T.
    CUBLAS_CHECK(
        cublasSgemm(cublas(), CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &uno, B, n, A, n, &cero, C, n));
}

void matmul_gpu(const float *A, const float *B, float *C, int32_t n)
{
    if (n <= 0)
        return;
    size_t bytes = (size_t)n * (size_t)n * sizeof(float);
    float *dA = NULL, *dB = NULL, *dC = NULL;
    CUDA_CHECK(cudaMalloc((void **)&dA, bytes));
    CUDA_CHECK(cudaMalloc((void **)&dB, bytes));
    CUDA_CHECK(cudaMalloc((void **)&dC, bytes));
    CUDA_CHECK(cudaMemcpy(dA, A, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dB, B, bytes, cudaMemcpyHostToDevice));
    matmul_gpu_dev(dA, dB, dC, n);
    // cudaMemcpy espera a que termine la SGEMM (mismo stream por defecto).
    CUDA_CHECK(cudaMemcpy(C, dC, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(dA));
    CUDA_CHECK(cudaFree(dB));
    CUDA_CHECK(cudaFree(dC));
}
