/*
 * dtype: the element types a lab can use, shared by the grader and the harness.
 *
 * Half types are stored as their 16-bit patterns; conversions round to nearest
 * even as the hardware does, so values generated here are bit-identical to what
 * a CUDA __float2half_rn() would produce. Nothing here allocates.
 */
#ifndef LG_DTYPE_H
#define LG_DTYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum lg_dtype {
    LG_DTYPE_INVALID = 0,
    LG_F64,
    LG_F32,
    LG_F16,
    LG_BF16,
    LG_I64,
    LG_I32,
    LG_I16,
    LG_I8,
    LG_U8,
};

/* "f32" -> LG_F32; LG_DTYPE_INVALID for an unknown name. */
enum lg_dtype lg_dtype_parse(const char *name);
const char *lg_dtype_name(enum lg_dtype t);
/* Comma-separated list of every valid name, for error messages. */
const char *lg_dtype_names(void);
size_t lg_dtype_size(enum lg_dtype t);
bool lg_dtype_is_float(enum lg_dtype t);
/* Parameter types in generated prototypes: C (gcc) and CUDA C++ (nvcc). */
const char *lg_dtype_ctype(enum lg_dtype t);
const char *lg_dtype_cudatype(enum lg_dtype t);

/* Element i of a buffer of type t, widened to double (exact for every type here except
 * i64 beyond 2^53; compare.c compares i64 as integers). */
double lg_dtype_load(enum lg_dtype t, const void *buf, size_t i);
/* Store v into element i, rounding to nearest even (floats) or saturating (integers). */
void lg_dtype_store(enum lg_dtype t, void *buf, size_t i, double v);
/* The bit pattern written into outputs before a checked call; `which` (0 or 1)
 * picks one of two values so an element left unwritten fails at least one call
 * even for integer types, where no value is impossible. */
void lg_dtype_poison(enum lg_dtype t, void *buf, size_t n, int which);

/* IEEE binary16 and bfloat16 conversions. */
uint16_t lg_f32_to_f16(float f);
float lg_f16_to_f32(uint16_t h);
uint16_t lg_f32_to_bf16(float f);
float lg_bf16_to_f32(uint16_t h);

/* torch.testing.assert_close default tolerances for the type. */
void lg_dtype_default_tolerance(enum lg_dtype t, double *rtol, double *atol);

#endif
