/* Hostile submission "gpu_oob_write": grade2_gpu_dev computes every element right, but its
 * kernel runs three threads too many and they write z[n], z[n+1] and z[n+2]: past the end of
 * the output. The writes land in the allocation's padding, so nothing crashes and every
 * output and input is intact: only compute-sanitizer sees the bug.
 * Expected on a GPU: grade2/gpu_dev OK with full points; with --sanitize, memcheck on n1000
 * reports an "Invalid __global__ write of size 8 bytes" at this file's line marked below.
 * tests/gpu/test_sanitizer_gpu.c checks both.
 */
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

#define EXTRA 3 /* threads past the end */

__global__ void grade2_oob_kernel(const double *x, const double *y, double *z, double a, double b,
                                  double c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n + EXTRA) {
        int k = i < n ? i : n - 1; /* reads stay in bounds: only the write is wrong */
        z[i] = a * x[k] * x[k] + b * y[k] + c; /* lg-oob-write: past the end when i >= n */
    }
}

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
    grade2_oob_kernel<<<(n + EXTRA + 255) / 256, 256>>>(x, y, z, a, b, c, n);
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
    /* The correct launch, not the hostile grade2_gpu_dev: only that variant is hostile. */
    grade2_kernel<<<(n + 255) / 256, 256>>>(dx, dy, dz, a, b, c, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(z, dz, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(dx));
    CUDA_CHECK(cudaFree(dy));
    CUDA_CHECK(cudaFree(dz));
}
