/*
 * Reference for lab 6, matmul, CPU variant: C = A·B, float32, row-major n×n, with
 * OpenBLAS's cblas_sgemm. This is the course's CPU baseline (NumPy's np.dot calls the
 * same SGEMM from an optimised BLAS), so speedups are measured against what a
 * student would get from a library, not against a naive triple loop.
 */
#include <cblas.h>
#include <stdint.h>

void ref_matmul_cpu(const float *A, const float *B, float *C, int32_t n)
{
    if (n <= 0)
        return;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, A, n, B, n, 0.0f, C, n);
}
