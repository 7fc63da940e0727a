/*
 * References for lab 7, CPU variants: the oracle and the CPU baseline of both exercises.
 *
 * ref_suma_cpu   s = sum of x[i], float32 inputs, accumulated in double and rounded once:
 *                what np.sum(x, dtype=np.float64) gives, within one rounding of the exact
 *                sum for the lab's inputs (positive, so no cancellation). A plain loop: the
 *                obvious reference, and the CPU time students compare with.
 * ref_punto_cpu  dot product x·y with OpenBLAS's cblas_dsdot: float32 inputs, double
 *                accumulation (BLAS's DSDOT), rounded once to float.
 *
 * Students may accumulate in float, in any order: the lab's tolerance (lab.yaml) admits
 * a float32 loop's error and no more than it needs to.
 */
#include <cblas.h>
#include <stdint.h>

void ref_suma_cpu(const float *x, float *s, int32_t n)
{
    double acc = 0.0;
    for (int32_t i = 0; i < n; i++)
        acc += x[i];
    *s = (float)acc;
}

float ref_punto_cpu(const float *x, const float *y, int32_t n)
{
    if (n <= 0)
        return 0.0f;
    return (float)cblas_dsdot(n, x, 1, y, 1);
}
