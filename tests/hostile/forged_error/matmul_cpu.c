/* Fixture "correct": a naive triple loop, correct but slow. */
#include "lab6.h"

void matmul_cpu(const float *A, const float *B, float *C, int32_t n)
{
    for (int32_t i = 0; i < n; i++)
        for (int32_t j = 0; j < n; j++) {
            float sum = 0.0f;
            for (int32_t k = 0; k < n; k++)
                sum += A[(size_t)i * n + k] * B[(size_t)k * n + j];
            C[(size_t)i * n + j] = sum;
        }
}
