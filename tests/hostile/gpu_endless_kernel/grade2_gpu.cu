/* Hostile submission "gpu_endless_kernel": grade2_gpu_dev launches a kernel that spins
 * forever (on a volatile device flag, so the compiler cannot remove the loop).
 * Expected on a GPU: grade2/gpu_dev TO; grade2/gpu (a correct kernel of its own) OK; and the
 * next submission's GPU variants pass: the GPU is still usable after the killed context.
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

__device__ volatile int lg_forever = 1;

__global__ void endless_kernel(double *z, int n)
{
    while (lg_forever)
        ;
    if (threadIdx.x == 0 && blockIdx.x == 0 && n > 0)
        z[0] = 0;
}

void grade2_gpu_dev(const double *x, const double *y, double *z, double a, double b, double c,
                    int32_t n)
{
    (void)x, (void)y, (void)a, (void)b, (void)c;
    endless_kernel<<<(n + 255) / 256, 256>>>(z, n);
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
