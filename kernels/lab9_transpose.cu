/*
 * Reference for lab 9, GPU variants: B = A^T, A rows×cols and B cols×rows, row-major,
 * float32. A hand-written kernel: CUDA's libraries have no plain out-of-place transpose
 * (cuBLAS's geam computes alpha·op(A) + beta·op(B), and whether it reads B when beta is 0,
 * here a NaN-filled output, is not a promise to build a reference on).
 *
 * The kernel is the classic one (NVIDIA's "An Efficient Matrix Transpose in CUDA C/C++"): a
 * block of 32×8 threads copies a 32×32 tile of A into shared memory with coalesced reads,
 * then writes it transposed to B with coalesced writes; the tile has one column of padding
 * so that reading it by columns hits 32 different shared-memory banks. Tiles at the edges
 * check both bounds, so any rows and cols work (1 row, 1 column, not multiples of 32).
 *
 * ref_traspuesta_gpu_dev  device pointers; the grader synchronizes.
 * ref_traspuesta_gpu      host pointers (pageable): cudaMalloc, copy A in, kernel, copy B
 *                         out, free.
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

#define TILE 32
#define ROWS_PER_PASS 8

__global__ void ref_transpose_kernel(float *__restrict__ B, const float *__restrict__ A, int rows,
                                     int cols)
{
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x; /* a column of A */
    int y = blockIdx.y * TILE + threadIdx.y; /* a row of A */
    for (int k = 0; k < TILE; k += ROWS_PER_PASS)
        if (x < cols && y + k < rows)
            tile[threadIdx.y + k][threadIdx.x] = A[(size_t)(y + k) * cols + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x; /* a column of B: a row of A */
    y = blockIdx.x * TILE + threadIdx.y; /* a row of B: a column of A */
    for (int k = 0; k < TILE; k += ROWS_PER_PASS)
        if (x < rows && y + k < cols)
            B[(size_t)(y + k) * rows + x] = tile[threadIdx.x][threadIdx.y + k];
}

extern "C" void ref_traspuesta_gpu_dev(float *B, const float *A, int32_t rows, int32_t cols)
{
    if (rows <= 0 || cols <= 0)
        return;
    dim3 block(TILE, ROWS_PER_PASS);
    dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
    ref_transpose_kernel<<<grid, block>>>(B, A, rows, cols);
    CUDA_CHECK(cudaGetLastError());
}

extern "C" void ref_traspuesta_gpu(float *B, const float *A, int32_t rows, int32_t cols)
{
    if (rows <= 0 || cols <= 0)
        return;
    size_t bytes = (size_t)rows * (size_t)cols * sizeof(float);
    float *dA = NULL, *dB = NULL;
    CUDA_CHECK(cudaMalloc((void **)&dA, bytes));
    CUDA_CHECK(cudaMalloc((void **)&dB, bytes));
    CUDA_CHECK(cudaMemcpy(dA, A, bytes, cudaMemcpyHostToDevice));
    ref_traspuesta_gpu_dev(dB, dA, rows, cols);
    CUDA_CHECK(cudaMemcpy(B, dB, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(dA));
    CUDA_CHECK(cudaFree(dB));
}
