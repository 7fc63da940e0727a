/*
 * Reference for lab 4, matvec, CPU variant: u = A·v with A n×m row-major, float32, with
 * OpenBLAS's cblas_sgemv, what np.dot(A, v) calls. The oracle and the CPU baseline, so
 * speedups are measured against a library, as in the notebook.
 */
#include <cblas.h>
#include <stdint.h>

void ref_matvec_cpu(float *u, const float *A, const float *v, int32_t n, int32_t m)
{
    if (n <= 0)
        return;
    if (m <= 0) {
        for (int32_t i = 0; i < n; i++)
            u[i] = 0.0f;
        return;
    }
    cblas_sgemv(CblasRowMajor, CblasNoTrans, n, m, 1.0f, A, m, v, 1, 0.0f, u, 1);
}
