/*
 * Reference for lab 3, dtype exercises, CPU variants; these are the oracles of the exercises.
 *
 * f16 is C's _Float16 (GCC 12 and later on x86-64); bf16 has no arithmetic C type in GCC 12,
 * so it travels as its bit pattern in a uint16_t, the upper half of an IEEE binary32.
 * Narrowing conversions round to nearest, ties to even, as IEEE 754 and CUDA's
 * __float2half_rn / __float2bfloat16_rn do: results are bit-identical to the GPU's.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

void ref_f32_to_f16_cpu(const float *x, _Float16 *y, int32_t n)
{
    /* The conversion follows the current rounding mode: nearest-even by default. */
    for (int32_t i = 0; i < n; i++)
        y[i] = (_Float16)x[i];
}

void ref_f16_to_f32_cpu(const _Float16 *x, float *y, int32_t n)
{
    for (int32_t i = 0; i < n; i++)
        y[i] = (float)x[i];
}

static uint16_t f32_to_bf16_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof(u));
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((u >> 16) | 0x0040u); /* NaN stays a (quiet) NaN */
    /* Add just under half of the dropped part's weight, plus one when the kept part is odd:
     * a carry into bit 16 happens exactly when rounding to nearest-even rounds up. A carry
     * out of the largest finite value reaches the exponent's all-ones: infinity, correctly. */
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

void ref_f32_to_bf16_cpu(const float *x, uint16_t *y, int32_t n)
{
    for (int32_t i = 0; i < n; i++)
        y[i] = f32_to_bf16_bits(x[i]);
}

void ref_bf16_to_f32_cpu(const uint16_t *x, float *y, int32_t n)
{
    for (int32_t i = 0; i < n; i++) {
        uint32_t u = (uint32_t)x[i] << 16;
        memcpy(&y[i], &u, sizeof(float));
    }
}

/*
 * The round trip through FP16, rounded to nearest even both ways (the second way is exact).
 * It was once x itself, compared with a tolerance of half an FP16 ulp; mutation testing
 * (grader mutate) showed that a function returning x unchanged then passed. See lab.yaml.
 */
void ref_f16_roundtrip_cpu(const float *x, float *y, int32_t n)
{
    for (int32_t i = 0; i < n; i++)
        y[i] = (float)(_Float16)x[i];
}

/*
 * q = clamp(round(x / scale), -128, 127), rounding to nearest with ties to even (rintf under
 * the default rounding mode; CUDA's __float2int_rn). NaN quantises to 0, as __float2int_rn
 * gives; the comparisons below are false for NaN, so it needs its own test.
 */
void ref_f32_to_i8_cpu(const float *x, int8_t *q, float scale, int32_t n)
{
    for (int32_t i = 0; i < n; i++) {
        float r = rintf(x[i] / scale);
        if (isnan(r))
            q[i] = 0;
        else if (r > 127.0f)
            q[i] = 127;
        else if (r < -128.0f)
            q[i] = -128;
        else
            q[i] = (int8_t)r;
    }
}
