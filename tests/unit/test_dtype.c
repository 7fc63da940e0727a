/* dtype: names, sizes, half-precision conversions (round to nearest even), poison patterns. */
#include "base/dtype.h"

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

START_TEST(test_names_round_trip)
{
    const char *names[] = {"f64", "f32", "f16", "bf16", "i64", "i32", "i16", "i8", "u8"};
    const size_t sizes[] = {8, 4, 2, 2, 8, 4, 2, 1, 1};
    for (size_t i = 0; i < 9; i++) {
        enum lg_dtype t = lg_dtype_parse(names[i]);
        ck_assert_int_ne(t, LG_DTYPE_INVALID);
        ck_assert_str_eq(lg_dtype_name(t), names[i]);
        ck_assert_uint_eq(lg_dtype_size(t), sizes[i]);
    }
    ck_assert_int_eq(lg_dtype_parse("float32"), LG_DTYPE_INVALID);
    ck_assert(lg_dtype_is_float(LG_BF16));
    ck_assert(!lg_dtype_is_float(LG_I8));
}
END_TEST

START_TEST(test_f16_exact_and_rounding)
{
    ck_assert_uint_eq(lg_f32_to_f16(1.0f), 0x3c00);
    ck_assert_uint_eq(lg_f32_to_f16(-2.0f), 0xc000);
    ck_assert_uint_eq(lg_f32_to_f16(65504.0f), 0x7bff);   /* largest finite */
    ck_assert_uint_eq(lg_f32_to_f16(65520.0f), 0x7c00);   /* rounds up to inf */
    ck_assert_uint_eq(lg_f32_to_f16(0x1p-24f), 0x0001);   /* smallest subnormal */
    ck_assert_uint_eq(lg_f32_to_f16(0x1p-25f), 0x0000);   /* tie to even: 0 */
    ck_assert_uint_eq(lg_f32_to_f16(0x1.8p-24f), 0x0002); /* tie to even: 2 */
    /* 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to the even mantissa (1.0). */
    ck_assert_uint_eq(lg_f32_to_f16(1.0f + 0x1p-11f), 0x3c00);
    ck_assert_uint_eq(lg_f32_to_f16(1.0f + 0x1p-11f + 0x1p-20f), 0x3c01);
    ck_assert_uint_eq(lg_f32_to_f16(-0.0f), 0x8000);
    ck_assert(isnan(lg_f16_to_f32(lg_f32_to_f16(NAN))));
    ck_assert(isinf(lg_f16_to_f32(lg_f32_to_f16(INFINITY))));
    /* Every finite half converts to float and back unchanged. */
    for (uint32_t h = 0; h < 0x10000; h++) {
        if ((h & 0x7c00) == 0x7c00)
            continue;
        ck_assert_uint_eq(lg_f32_to_f16(lg_f16_to_f32((uint16_t)h)), h);
    }
}
END_TEST

START_TEST(test_bf16)
{
    ck_assert_uint_eq(lg_f32_to_bf16(1.0f), 0x3f80);
    ck_assert(lg_bf16_to_f32(0x3f80) == 1.0f);
    /* 1 + 2^-8 is halfway: ties to even (1.0); a hair above rounds up. */
    ck_assert_uint_eq(lg_f32_to_bf16(1.0f + 0x1p-8f), 0x3f80);
    ck_assert_uint_eq(lg_f32_to_bf16(1.0f + 0x1p-8f + 0x1p-20f), 0x3f81);
    ck_assert(isnan(lg_bf16_to_f32(lg_f32_to_bf16(NAN))));
}
END_TEST

START_TEST(test_store_load_saturates)
{
    int8_t b[2];
    uint8_t u[1];
    lg_dtype_store(LG_I8, b, 0, 300.0);
    lg_dtype_store(LG_I8, b, 1, -2.5);
    lg_dtype_store(LG_U8, u, 0, -7);
    ck_assert_int_eq(b[0], 127);
    ck_assert_int_eq(b[1], -2);
    ck_assert_int_eq(u[0], 0);
    ck_assert(lg_dtype_load(LG_I8, b, 0) == 127.0);
}
END_TEST

START_TEST(test_poison)
{
    float f[4];
    int32_t a[3], b[3];
    lg_dtype_poison(LG_F32, f, 4, 0);
    for (int i = 0; i < 4; i++)
        ck_assert(isnan(f[i]));
    lg_dtype_poison(LG_I32, a, 3, 0);
    lg_dtype_poison(LG_I32, b, 3, 1);
    for (int i = 0; i < 3; i++)
        ck_assert_int_ne(a[i], b[i]);
}
END_TEST

START_TEST(test_default_tolerances_match_torch)
{
    double r, a;
    lg_dtype_default_tolerance(LG_F32, &r, &a);
    ck_assert(r == 1.3e-6 && a == 1e-5);
    lg_dtype_default_tolerance(LG_F16, &r, &a);
    ck_assert(r == 1e-3 && a == 1e-5);
    lg_dtype_default_tolerance(LG_BF16, &r, &a);
    ck_assert(r == 1.6e-2 && a == 1e-5);
    lg_dtype_default_tolerance(LG_F64, &r, &a);
    ck_assert(r == 1e-7 && a == 1e-7);
    lg_dtype_default_tolerance(LG_I32, &r, &a);
    ck_assert(r == 0 && a == 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("dtype");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_names_round_trip);
    tcase_add_test(tc, test_f16_exact_and_rounding);
    tcase_add_test(tc, test_bf16);
    tcase_add_test(tc, test_store_load_saturates);
    tcase_add_test(tc, test_poison);
    tcase_add_test(tc, test_default_tolerances_match_torch);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
