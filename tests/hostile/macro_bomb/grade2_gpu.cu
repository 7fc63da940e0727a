/* Fixture "correct": one thread per element. */
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

__global__ void grade2_kernel(const double *x, const double *y, double *z, double a, double b,
                              double c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        z[i] = a * x[i] * x[i] + b * y[i] + c;
}

void grade2_gpu_dev(const double *x, const double *y, double *z, double a, double b, double c,
                    int32_t n)
{
    grade2_kernel<<<(n + 255) / 256, 256>>>(x, y, z, a, b, c, n);
    CUDA_CHECK(cudaGetLastError());
}

void grade2_gpu(const double *x, const double *y, double *z, double a, double b, double c,
                int32_t n)
{
    size_t bytes = (size_t)n * sizeof(double);
    double *dx, *dy, *dz;
    CUDA_CHECK(cudaMalloc((void **)&dx, bytes));
    CUDA_CHECK(cudaMalloc((void **)&dy, bytes));
    CUDA_CHECK(cudaMalloc((void **)&dz, bytes));
    CUDA_CHECK(cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dy, y, bytes, cudaMemcpyHostToDevice));
    grade2_gpu_dev(dx, dy, dz, a, b, c, n);
    CUDA_CHECK(cudaMemcpy(z, dz, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(dx));
    CUDA_CHECK(cudaFree(dy));
    CUDA_CHECK(cudaFree(dz));
}
