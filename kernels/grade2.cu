/*
 * Reference for lab 6, grade2, GPU variants: z[i] = a·x[i]² + b·y[i] + c, float64.
 * A grid-stride kernel with 256 threads per block, about what the notebook's Numba
 * @vectorize(target='cuda') generates: one element per thread, memory-bound.
 *
 * ref_grade2_gpu      host pointers (pageable): cudaMalloc, copy x and y in, kernel,
 *                     copy z out, free. The notebook's "con copia" case.
 * ref_grade2_gpu_dev  device pointers: launch only ("sin copia"); the grader synchronizes.
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
/* Enough blocks for one element per thread up to 16.7M elements; beyond, threads stride. */
#define MAX_BLOCKS 65535

__global__ void ref_grade2_kernel(const double *x, const double *y, double *z, double a, double b,
                                  double c, int n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (size_t)n; i += stride)
        z[i] = a * x[i] * x[i] + b * y[i] + c;
}

static void launch(const double *x, const double *y, double *z, double a, double b, double c, int n)
{
    int blocks = (int)(((size_t)n + THREADS - 1) / THREADS);
    if (blocks > MAX_BLOCKS)
        blocks = MAX_BLOCKS;
    ref_grade2_kernel<<<blocks, THREADS>>>(x, y, z, a, b, c, n);
    CUDA_CHECK(cudaGetLastError());
}

void ref_grade2_gpu_dev(const double *x, const double *y, double *z, double a, double b, double c,
                        int32_t n)
{
    if (n <= 0)
        return;
    launch(x, y, z, a, b, c, n);
}

void ref_grade2_gpu(const double *x, const double *y, double *z, double a, double b, double c,
                    int32_t n)
{
    if (n <= 0)
        return;
    size_t bytes = (size_t)n * sizeof(double);
    double *dx = NULL, *dy = NULL, *dz = NULL;
    CUDA_CHECK(cudaMalloc((void **)&dx, bytes));
    CUDA_CHECK(cudaMalloc((void **)&dy, bytes));
    CUDA_CHECK(cudaMalloc((void **)&dz, bytes));
    CUDA_CHECK(cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dy, y, bytes, cudaMemcpyHostToDevice));
    launch(dx, dy, dz, a, b, c, n);
    CUDA_CHECK(cudaMemcpy(z, dz, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(dx));
    CUDA_CHECK(cudaFree(dy));
    CUDA_CHECK(cudaFree(dz));
}
