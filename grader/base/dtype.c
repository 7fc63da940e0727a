#include "base/dtype.h"

#include <math.h>
#include <string.h>

struct dtype_info {
    enum lg_dtype type;
    const char *name;
    size_t size;
    bool is_float;
    const char *ctype;
    const char *cudatype;
    double rtol, atol;
};

/* Tolerances follow torch.testing.assert_close: integers must match exactly. */
static const struct dtype_info dtypes[] = {
    {LG_F64, "f64", 8, true, "double", "double", 1e-7, 1e-7},
    {LG_F32, "f32", 4, true, "float", "float", 1.3e-6, 1e-5},
    {LG_F16, "f16", 2, true, "_Float16", "__half", 1e-3, 1e-5},
    {LG_BF16, "bf16", 2, true, "uint16_t", "__nv_bfloat16", 1.6e-2, 1e-5},
    {LG_I64, "i64", 8, false, "int64_t", "int64_t", 0, 0},
    {LG_I32, "i32", 4, false, "int32_t", "int32_t", 0, 0},
    {LG_I16, "i16", 2, false, "int16_t", "int16_t", 0, 0},
    {LG_I8, "i8", 1, false, "int8_t", "int8_t", 0, 0},
    {LG_U8, "u8", 1, false, "uint8_t", "uint8_t", 0, 0},
};

static const struct dtype_info *info(enum lg_dtype t)
{
    for (size_t i = 0; i < sizeof(dtypes) / sizeof(dtypes[0]); i++)
        if (dtypes[i].type == t)
            return &dtypes[i];
    return NULL;
}

enum lg_dtype lg_dtype_parse(const char *name)
{
    for (size_t i = 0; i < sizeof(dtypes) / sizeof(dtypes[0]); i++)
        if (!strcmp(dtypes[i].name, name))
            return dtypes[i].type;
    return LG_DTYPE_INVALID;
}

const char *lg_dtype_name(enum lg_dtype t)
{
    const struct dtype_info *d = info(t);
    return d ? d->name : "invalid";
}

const char *lg_dtype_names(void)
{
    return "f64, f32, f16, bf16, i64, i32, i16, i8, u8";
}

size_t lg_dtype_size(enum lg_dtype t)
{
    const struct dtype_info *d = info(t);
    return d ? d->size : 0;
}

bool lg_dtype_is_float(enum lg_dtype t)
{
    const struct dtype_info *d = info(t);
    return d && d->is_float;
}

const char *lg_dtype_ctype(enum lg_dtype t)
{
    const struct dtype_info *d = info(t);
    return d ? d->ctype : "void";
}

const char *lg_dtype_cudatype(enum lg_dtype t)
{
    const struct dtype_info *d = info(t);
    return d ? d->cudatype : "void";
}

void lg_dtype_default_tolerance(enum lg_dtype t, double *rtol, double *atol)
{
    const struct dtype_info *d = info(t);
    *rtol = d ? d->rtol : 0;
    *atol = d ? d->atol : 0;
}

static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof(u));
    return u;
}

static float bits_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof(f));
    return f;
}

uint16_t lg_f32_to_f16(float f)
{
    uint32_t x = f32_bits(f);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t exp = (x >> 23) & 0xffu;
    uint32_t man = x & 0x7fffffu;

    if (exp == 0xff) /* inf or NaN; keep NaN quiet and non-zero */
        return (uint16_t)(sign | 0x7c00u | (man ? 0x200u | (man >> 13) : 0));
    int e = (int)exp - 127 + 15;
    if (e >= 0x1f)
        return (uint16_t)(sign | 0x7c00u);
    if (e <= 0) {
        /* subnormal half (or zero): shift the full significand, round to nearest even */
        if (e < -10)
            return sign;
        uint32_t m = man | 0x800000u;
        int shift = 14 - e;
        uint32_t half = m >> shift;
        uint32_t rem = m & ((1u << shift) - 1);
        uint32_t mid = 1u << (shift - 1);
        if (rem > mid || (rem == mid && (half & 1u)))
            half++;
        return (uint16_t)(sign | half);
    }
    uint32_t h = ((uint32_t)e << 10) | (man >> 13);
    uint32_t rem = man & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u)))
        h++; /* may carry into the exponent, up to infinity: correct rounding */
    return (uint16_t)(sign | h);
}

float lg_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t man = h & 0x3ffu;
    if (exp == 0) {
        if (man == 0)
            return bits_f32(sign);
        /* subnormal: value = man * 2^-24 */
        float v = (float)man * 5.9604644775390625e-8f;
        return sign ? -v : v;
    }
    if (exp == 0x1f)
        return bits_f32(sign | 0x7f800000u | (man << 13));
    return bits_f32(sign | ((exp - 15 + 127) << 23) | (man << 13));
}

uint16_t lg_f32_to_bf16(float f)
{
    uint32_t x = f32_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((x >> 16) | 0x40u); /* quiet NaN */
    uint32_t rounding = 0x7fffu + ((x >> 16) & 1u);
    return (uint16_t)((x + rounding) >> 16);
}

float lg_bf16_to_f32(uint16_t h)
{
    return bits_f32((uint32_t)h << 16);
}

double lg_dtype_load(enum lg_dtype t, const void *buf, size_t i)
{
    switch (t) {
    case LG_F64:
        return ((const double *)buf)[i];
    case LG_F32:
        return ((const float *)buf)[i];
    case LG_F16:
        return lg_f16_to_f32(((const uint16_t *)buf)[i]);
    case LG_BF16:
        return lg_bf16_to_f32(((const uint16_t *)buf)[i]);
    case LG_I64:
        return (double)((const int64_t *)buf)[i];
    case LG_I32:
        return ((const int32_t *)buf)[i];
    case LG_I16:
        return ((const int16_t *)buf)[i];
    case LG_I8:
        return ((const int8_t *)buf)[i];
    case LG_U8:
        return ((const uint8_t *)buf)[i];
    case LG_DTYPE_INVALID:
        break;
    }
    return NAN;
}

static double saturate(double v, double lo, double hi)
{
    if (isnan(v))
        return 0;
    v = nearbyint(v);
    return v < lo ? lo : v > hi ? hi : v;
}

void lg_dtype_store(enum lg_dtype t, void *buf, size_t i, double v)
{
    switch (t) {
    case LG_F64:
        ((double *)buf)[i] = v;
        break;
    case LG_F32:
        ((float *)buf)[i] = (float)v;
        break;
    case LG_F16:
        ((uint16_t *)buf)[i] = lg_f32_to_f16((float)v);
        break;
    case LG_BF16:
        ((uint16_t *)buf)[i] = lg_f32_to_bf16((float)v);
        break;
    case LG_I64:
        ((int64_t *)buf)[i] = (int64_t)saturate(v, -9.2233720368547748e18, 9.2233720368547748e18);
        break;
    case LG_I32:
        ((int32_t *)buf)[i] = (int32_t)saturate(v, INT32_MIN, INT32_MAX);
        break;
    case LG_I16:
        ((int16_t *)buf)[i] = (int16_t)saturate(v, INT16_MIN, INT16_MAX);
        break;
    case LG_I8:
        ((int8_t *)buf)[i] = (int8_t)saturate(v, INT8_MIN, INT8_MAX);
        break;
    case LG_U8:
        ((uint8_t *)buf)[i] = (uint8_t)saturate(v, 0, UINT8_MAX);
        break;
    case LG_DTYPE_INVALID:
        break;
    }
}

void lg_dtype_poison(enum lg_dtype t, void *buf, size_t n, int which)
{
    if (lg_dtype_is_float(t)) {
        /* NaN: fails every comparison unless the expected value is NaN too. One element,
         * then copies of what is filled so far (a per-element store costs seconds at the
         * largest sizes). */
        size_t esz = lg_dtype_size(t), total = n * esz;
        if (n == 0)
            return;
        lg_dtype_store(t, buf, 0, NAN);
        for (size_t have = esz; have < total;) {
            size_t step = have < total - have ? have : total - have;
            memcpy((char *)buf + have, buf, step);
            have += step;
        }
        return;
    }
    /* Two distinct byte patterns: no expected value can equal both. */
    memset(buf, which ? 0x5a : 0xa5, n * lg_dtype_size(t));
}
