/* Hostile submission "gpu_fast_when_timed": grade2_gpu_dev does the work on its first three
 * calls (the two checked calls and the first warm-up call) and nothing at all afterwards, so
 * the timed calls look infinitely fast.
 * Expected on a GPU (graded with timing): grade2/gpu_dev CH: the grader poisons the outputs
 * before the timed calls and verifies the last one's against the checked call's.
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
    static int calls;
    if (++calls > 3)
        return;
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
    /* The correct launch, not the hostile grade2_gpu_dev: only that variant is hostile. */
    grade2_kernel<<<(n + 255) / 256, 256>>>(dx, dy, dz, a, b, c, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(z, dz, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(dx));
    CUDA_CHECK(cudaFree(dy));
    CUDA_CHECK(cudaFree(dz));
}
