/* GPU half of calibrate (see calibrate.c): best-of-N measurements with CUDA events. */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

static float time_copy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind, int reps)
{
    cudaEvent_t a, b;
    float best = 1e30f;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    cudaMemcpy(dst, src, bytes, kind);
    for (int r = 0; r < reps; r++) {
        float ms;
        cudaEventRecord(a);
        cudaMemcpy(dst, src, bytes, kind);
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        cudaEventElapsedTime(&ms, a, b);
        if (ms < best)
            best = ms;
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return best;
}

/* The best of five timed SGEMMs (after one warm-up), in ms. */
static float best_sgemm_ms(cublasHandle_t h, int n, const float *a, const float *b, float *c)
{
    const float one = 1, zero = 0;
    cudaEvent_t e0, e1;
    float ms, best = 1e30f;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    for (int r = 0; r < 6; r++) {
        cudaEventRecord(e0);
        cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n);
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        cudaEventElapsedTime(&ms, e0, e1);
        if (r > 0 && ms < best)
            best = ms;
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return best;
}

extern "C" void lg_calibrate_gpu(void)
{
    int n_dev = 0;
    if (cudaGetDeviceCount(&n_dev) != cudaSuccess || n_dev == 0) {
        printf("gpu none\n");
        return;
    }
    cudaDeviceProp p;
    cudaGetDeviceProperties(&p, 0);
    printf("gpu_name %s\n", p.name);
    const size_t bytes = (size_t)256 << 20;
    void *d1, *d2, *pinned, *pageable;
    if (cudaMalloc(&d1, bytes * 4) != cudaSuccess || cudaMalloc(&d2, bytes * 4) != cudaSuccess ||
        cudaMallocHost(&pinned, bytes) != cudaSuccess || !(pageable = malloc(bytes))) {
        printf("gpu_error allocation failed\n");
        return;
    }
    for (size_t i = 0; i < bytes; i += 4096) {
        ((char *)pageable)[i] = 1;
        ((char *)pinned)[i] = 1;
    }
    float ms = time_copy(d2, d1, bytes * 4, cudaMemcpyDeviceToDevice, 10);
    printf("gpu_copy_gbs %.1f\n", 2.0 * bytes * 4 / (ms * 1e-3) / 1e9); /* read + write */
    ms = time_copy(d1, pinned, bytes, cudaMemcpyHostToDevice, 5);
    printf("h2d_pinned_gbs %.2f\n", bytes / (ms * 1e-3) / 1e9);
    ms = time_copy(d1, pageable, bytes, cudaMemcpyHostToDevice, 5);
    printf("h2d_pageable_gbs %.2f\n", bytes / (ms * 1e-3) / 1e9);
    ms = time_copy(pinned, d1, bytes, cudaMemcpyDeviceToHost, 5);
    printf("d2h_pinned_gbs %.2f\n", bytes / (ms * 1e-3) / 1e9);
    ms = time_copy(pageable, d1, bytes, cudaMemcpyDeviceToHost, 5);
    printf("d2h_pageable_gbs %.2f\n", bytes / (ms * 1e-3) / 1e9);

    const int n = 8192;
    cublasHandle_t h;
    float *a, *b, *c;
    if (cublasCreate(&h) == CUBLAS_STATUS_SUCCESS &&
        cudaMalloc((void **)&a, sizeof(float) * n * n) == cudaSuccess &&
        cudaMalloc((void **)&b, sizeof(float) * n * n) == cudaSuccess &&
        cudaMalloc((void **)&c, sizeof(float) * n * n) == cudaSuccess) {
        cudaMemset(a, 0x3c, sizeof(float) * n * n); /* about 0.0115: not zeros */
        cudaMemset(b, 0x3c, sizeof(float) * n * n);
        /* FP32 first (tensor cores off: CUBLAS_DEFAULT_MATH), then with TF32 tensor cores
         * allowed: the two rooflines a float32 lab is judged against (grade/limits.c). */
        cublasSetMathMode(h, CUBLAS_DEFAULT_MATH);
        printf("gpu_sgemm_gflops %.0f\n",
               2.0 * n * (double)n * n / (best_sgemm_ms(h, n, a, b, c) * 1e-3) / 1e9);
        cublasSetMathMode(h, CUBLAS_TF32_TENSOR_OP_MATH);
        printf("gpu_tf32_gflops %.0f\n",
               2.0 * n * (double)n * n / (best_sgemm_ms(h, n, a, b, c) * 1e-3) / 1e9);
        printf("gpu_l2_bytes %d\n", p.l2CacheSize);
    }
}
