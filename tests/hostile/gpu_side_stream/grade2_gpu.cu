/* Hostile submission "gpu_side_stream": grade2_gpu_dev computes the right values, but on a
 * non-blocking stream of its own (which never waits for, nor is waited for by, the legacy
 * default stream), in a kernel padded to run about 5 ms, and returns without waiting for it.
 * CUDA events recorded on the default stream then measure almost nothing.
 * Expected on a GPU (graded with timing): grade2/gpu_dev OK (the harness synchronizes the
 * whole device before reading the outputs) with a finding that CUDA events and the host
 * clock disagree, and the host-clock time counts (about 5 ms, not microseconds).
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

#define PAD_NS 5000000ULL

__global__ void slow_grade2_kernel(const double *x, const double *y, double *z, double a,
                                   double b, double c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long start;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    for (;;) {
        unsigned long long now;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
        if (now - start >= PAD_NS)
            break;
    }
    if (i < n)
        z[i] = a * x[i] * x[i] + b * y[i] + c;
}

void grade2_gpu_dev(const double *x, const double *y, double *z, double a, double b, double c,
                    int32_t n)
{
    static cudaStream_t side;
    if (!side)
        CUDA_CHECK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
    slow_grade2_kernel<<<(n + 255) / 256, 256, 0, side>>>(x, y, z, a, b, c, n);
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
