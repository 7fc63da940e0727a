/*
 * Reference for lab 3, dtype exercises, GPU variants on device pointers: one grid-stride
 * kernel per conversion, 256 threads per block, the conversion intrinsics of cuda_fp16.h and
 * cuda_bf16.h, which round to nearest, ties to even, like PyTorch's .half() and .bfloat16().
 * The grader synchronizes after the call; launch errors are checked here.
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
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

__global__ void ref_f32_to_f16_kernel(const float *x, __half *y, int n)
{
    GRID_STRIDE(i, n) y[i] = __float2half_rn(x[i]);
}

__global__ void ref_f16_to_f32_kernel(const __half *x, float *y, int n)
{
    GRID_STRIDE(i, n) y[i] = __half2float(x[i]);
}

__global__ void ref_f32_to_bf16_kernel(const float *x, __nv_bfloat16 *y, int n)
{
    GRID_STRIDE(i, n) y[i] = __float2bfloat16_rn(x[i]);
}

__global__ void ref_bf16_to_f32_kernel(const __nv_bfloat16 *x, float *y, int n)
{
    GRID_STRIDE(i, n) y[i] = __bfloat162float(x[i]);
}

__global__ void ref_f16_roundtrip_kernel(const float *x, float *y, int n)
{
    GRID_STRIDE(i, n) y[i] = __half2float(__float2half_rn(x[i]));
}

/* __float2int_rn: nearest, ties to even; NaN gives 0 and out-of-range values saturate to
 * INT_MIN/INT_MAX, so clamping the int gives the int8 saturation. */
__global__ void ref_f32_to_i8_kernel(const float *x, int8_t *q, float scale, int n)
{
    GRID_STRIDE(i, n)
    {
        int r = __float2int_rn(x[i] / scale);
        q[i] = (int8_t)min(127, max(-128, r));
    }
}

extern "C" void ref_f32_to_f16_gpu_dev(const float *x, __half *y, int32_t n)
{
    if (n <= 0)
        return;
    ref_f32_to_f16_kernel<<<blocks_for(n), THREADS>>>(x, y, n);
    CUDA_CHECK(cudaGetLastError());
}

extern "C" void ref_f16_to_f32_gpu_dev(const __half *x, float *y, int32_t n)
{
    if (n <= 0)
        return;
    ref_f16_to_f32_kernel<<<blocks_for(n), THREADS>>>(x, y, n);
    CUDA_CHECK(cudaGetLastError());
}

extern "C" void ref_f32_to_bf16_gpu_dev(const float *x, __nv_bfloat16 *y, int32_t n)
{
    if (n <= 0)
        return;
    ref_f32_to_bf16_kernel<<<blocks_for(n), THREADS>>>(x, y, n);
    CUDA_CHECK(cudaGetLastError());
}

extern "C" void ref_bf16_to_f32_gpu_dev(const __nv_bfloat16 *x, float *y, int32_t n)
{
    if (n <= 0)
        return;
    ref_bf16_to_f32_kernel<<<blocks_for(n), THREADS>>>(x, y, n);
    CUDA_CHECK(cudaGetLastError());
}

extern "C" void ref_f16_roundtrip_gpu_dev(const float *x, float *y, int32_t n)
{
    if (n <= 0)
        return;
    ref_f16_roundtrip_kernel<<<blocks_for(n), THREADS>>>(x, y, n);
    CUDA_CHECK(cudaGetLastError());
}

extern "C" void ref_f32_to_i8_gpu_dev(const float *x, int8_t *q, float scale, int32_t n)
{
    if (n <= 0)
        return;
    ref_f32_to_i8_kernel<<<blocks_for(n), THREADS>>>(x, q, scale, n);
    CUDA_CHECK(cudaGetLastError());
}
