/* Fixture "correct": a naive kernel, one thread per element of C. */
#include "lab6.h"

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

__global__ void matmul_kernel(const float *A, const float *B, float *C, int n)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= n || col >= n)
        return;
    float sum = 0.0f;
    for (int k = 0; k < n; k++)
        sum += A[(size_t)row * n + k] * B[(size_t)k * n + col];
    C[(size_t)row * n + col] = sum;
}

void matmul_gpu_dev(const float *A, const float *B, float *C, int32_t n)
{
    dim3 threads(16, 16);
    dim3 blocks((n + 15) / 16, (n + 15) / 16);
    matmul_kernel<<<blocks, threads>>>(A, B, C, n);
    CUDA_CHECK(cudaGetLastError());
}

void matmul_gpu(const float *A, const float *B, float *C, int32_t n)
{
    size_t bytes = (size_t)n * n * sizeof(float);
    float *dA, *dB, *dC;
    CUDA_CHECK(cudaMalloc((void **)&dA, bytes));
    CUDA_CHECK(cudaMalloc((void **)&dB, bytes));
    CUDA_CHECK(cudaMalloc((void **)&dC, bytes));
    CUDA_CHECK(cudaMemcpy(dA, A, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dB, B, bytes, cudaMemcpyHostToDevice));
    matmul_gpu_dev(dA, dB, dC, n);
    CUDA_CHECK(cudaMemcpy(C, dC, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(dA));
    CUDA_CHECK(cudaFree(dB));
    CUDA_CHECK(cudaFree(dC));
}
