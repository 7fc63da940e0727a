/*
 * Reference for lab 3, h2d and d2h: copy n floats between host and device memory with
 * cudaMemcpy, what PyTorch's x.to('cuda') and x.to('cpu') do for a contiguous tensor.
 *
 * The same function serves the pageable and the pinned variants: the grader places the host
 * buffer (malloc or cudaMallocHost) and the driver picks the path. From pageable memory it
 * stages the data through a pinned bounce buffer in chunks; from pinned memory the copy engine
 * reads or writes the buffer directly (DMA). That difference is what the report measures.
 *
 * cudaMemcpy returns when the copy is complete, so there is nothing left to synchronize.
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

extern "C" void ref_copy_h2d(float *dst, const float *src, int32_t n)
{
    if (n <= 0)
        return;
    CUDA_CHECK(cudaMemcpy(dst, src, (size_t)n * sizeof(float), cudaMemcpyHostToDevice));
}

extern "C" void ref_copy_d2h(float *dst, const float *src, int32_t n)
{
    if (n <= 0)
        return;
    CUDA_CHECK(cudaMemcpy(dst, src, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost));
}
