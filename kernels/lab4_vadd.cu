/*
 * Reference for lab 4, vadd, GPU variants: the seed's cu_add_vectors in CUDA C. One thread
 * per element, blocks of 1024 threads as in the notebook, ceil(n / 1024) blocks, and the
 * bounds check for the threads of the last block that have no element.
 *
 * ref_vadd_gpu      host pointers (pageable): cudaMalloc, copy a and b in, kernel, copy u
 *                   out, free (what Numba does when given NumPy arrays).
 * ref_vadd_gpu_dev  device pointers (cuda.to_device done beforehand): launch only.
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

#define THREADS 1024

__global__ void ref_vadd_kernel(float *u, const float *a, const float *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        u[i] = a[i] + b[i];
}

extern "C" void ref_vadd_gpu_dev(float *u, const float *a, const float *b, int32_t n)
{
    if (n <= 0)
        return;
    ref_vadd_kernel<<<(n + THREADS - 1) / THREADS, THREADS>>>(u, a, b, n);
    CUDA_CHECK(cudaGetLastError());
}

extern "C" void ref_vadd_gpu(float *u, const float *a, const float *b, int32_t n)
{
    if (n <= 0)
        return;
    size_t bytes = (size_t)n * sizeof(float);
    float *du = NULL, *da = NULL, *db = NULL;
    CUDA_CHECK(cudaMalloc((void **)&du, bytes));
    CUDA_CHECK(cudaMalloc((void **)&da, bytes));
    CUDA_CHECK(cudaMalloc((void **)&db, bytes));
    CUDA_CHECK(cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice));
    ref_vadd_gpu_dev(du, da, db, n);
    CUDA_CHECK(cudaMemcpy(u, du, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(du));
    CUDA_CHECK(cudaFree(da));
    CUDA_CHECK(cudaFree(db));
}
