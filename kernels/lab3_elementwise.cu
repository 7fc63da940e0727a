/*
 * Reference for lab 3, add / mul / exp, GPU variants: one grid-stride kernel per operation,
 * 256 threads per block, one element per thread (beyond 16.7M elements, threads stride).
 *
 * ref_<op>_gpu      host pointers (pageable): cudaMalloc, copy the inputs in, kernel, copy
 *                   the output back, free. The seed's "GPU (con transferencia)".
 * ref_<op>_gpu_dev  device pointers: launch only; the grader synchronizes and also times its
 *                   own copies around the call ("sin transferencia" and "con transferencia").
 *
 * Every CUDA status is checked; a failure prints the call and exits(1).
 */
#include <cuda_runtime.h>
#include <stdint.h>
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

#define THREADS 256
#define MAX_BLOCKS 65535

static int blocks_for(int n)
{
    int b = (int)(((size_t)n + THREADS - 1) / THREADS);
    return b > MAX_BLOCKS ? MAX_BLOCKS : b;
}

#define GRID_STRIDE(i, n)                                                                          \
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (size_t)(n);                \
         i += (size_t)gridDim.x * blockDim.x)

__global__ void ref_add_kernel(const float *x, const float *y, float *z, int n)
{
    GRID_STRIDE(i, n) z[i] = x[i] + y[i];
}

__global__ void ref_mul_kernel(const float *x, const float *y, float *z, int n)
{
    GRID_STRIDE(i, n) z[i] = x[i] * y[i];
}

__global__ void ref_exp_kernel(const float *x, float *y, int n)
{
    GRID_STRIDE(i, n) y[i] = expf(x[i]);
}

extern "C" void ref_add_gpu_dev(const float *x, const float *y, float *z, int32_t n)
{
    if (n <= 0)
        return;
    ref_add_kernel<<<blocks_for(n), THREADS>>>(x, y, z, n);
    CUDA_CHECK(cudaGetLastError());
}

extern "C" void ref_mul_gpu_dev(const float *x, const float *y, float *z, int32_t n)
{
    if (n <= 0)
        return;
    ref_mul_kernel<<<blocks_for(n), THREADS>>>(x, y, z, n);
    CUDA_CHECK(cudaGetLastError());
}

extern "C" void ref_exp_gpu_dev(const float *x, float *y, int32_t n)
{
    if (n <= 0)
        return;
    ref_exp_kernel<<<blocks_for(n), THREADS>>>(x, y, n);
    CUDA_CHECK(cudaGetLastError());
}

/* Host-pointer version of a binary operation: the copies are part of the timed call. */
static void binary_with_transfer(void (*dev_fn)(const float *, const float *, float *, int32_t),
                                 const float *x, const float *y, float *z, int32_t n)
{
    size_t bytes = (size_t)n * sizeof(float);
    float *dx = NULL, *dy = NULL, *dz = NULL;
    CUDA_CHECK(cudaMalloc((void **)&dx, bytes));
    CUDA_CHECK(cudaMalloc((void **)&dy, bytes));
    CUDA_CHECK(cudaMalloc((void **)&dz, bytes));
    CUDA_CHECK(cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dy, y, bytes, cudaMemcpyHostToDevice));
    dev_fn(dx, dy, dz, n);
    CUDA_CHECK(cudaMemcpy(z, dz, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(dx));
    CUDA_CHECK(cudaFree(dy));
    CUDA_CHECK(cudaFree(dz));
}

extern "C" void ref_add_gpu(const float *x, const float *y, float *z, int32_t n)
{
    if (n > 0)
        binary_with_transfer(ref_add_gpu_dev, x, y, z, n);
}

extern "C" void ref_mul_gpu(const float *x, const float *y, float *z, int32_t n)
{
    if (n > 0)
        binary_with_transfer(ref_mul_gpu_dev, x, y, z, n);
}

extern "C" void ref_exp_gpu(const float *x, float *y, int32_t n)
{
    if (n <= 0)
        return;
    size_t bytes = (size_t)n * sizeof(float);
    float *dx = NULL, *dy = NULL;
    CUDA_CHECK(cudaMalloc((void **)&dx, bytes));
    CUDA_CHECK(cudaMalloc((void **)&dy, bytes));
    CUDA_CHECK(cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice));
    ref_exp_gpu_dev(dx, dy, n);
    CUDA_CHECK(cudaMemcpy(y, dy, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(dx));
    CUDA_CHECK(cudaFree(dy));
}
