/* Unit tests of src/base/dtype.h: the type table, names both ways, element access, the half and
 * bfloat16 conversions (IEEE round to nearest even) and the reduction helpers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "dtype.h"

/* Compare doubles bit-for-bit in value (not within a tolerance): every case here is exact. */
static void assert_same(double actual, double expected)
{
    if (!(actual == expected)) {
        print_error("expected %.17g, got %.17g\n", expected, actual);
        fail();
    }
}

/* ---- the table ---- */

typedef struct {
    sp_dtype_t dtype;
    const char *name;
    size_t size;
    int is_integer;
} dtype_row_t;

static const dtype_row_t dtype_rows[SP_DTYPE_COUNT] = {
    {SP_DTYPE_INT8, "int8", 1, 1},     {SP_DTYPE_UINT8, "uint8", 1, 1},
    {SP_DTYPE_INT32, "int32", 4, 1},   {SP_DTYPE_UINT32, "uint32", 4, 1},
    {SP_DTYPE_INT64, "int64", 8, 1},   {SP_DTYPE_UINT64, "uint64", 8, 1},
    {SP_DTYPE_HALF, "half", 2, 0},     {SP_DTYPE_FLOAT, "float", 4, 0},
    {SP_DTYPE_DOUBLE, "double", 8, 0}, {SP_DTYPE_BFLOAT16, "bfloat16", 2, 0},
    {SP_DTYPE_F8E4M3, "f8e4m3", 1, 0}, {SP_DTYPE_F8E5M2, "f8e5m2", 1, 0},
};

static void test_nccl_enum_order(void **state)
{
    (void)state;
    /* the nccl backend maps by index: ncclInt8=0 ... ncclBfloat16=9, ncclFloat8e4m3=10,
     * ncclFloat8e5m2=11, ncclSum=0 ... ncclAvg=4 (premulsum is an operator NCCL creates) */
    assert_int_equal(SP_DTYPE_INT8, 0);
    assert_int_equal(SP_DTYPE_HALF, 6);
    assert_int_equal(SP_DTYPE_BFLOAT16, 9);
    assert_int_equal(SP_DTYPE_F8E4M3, 10);
    assert_int_equal(SP_DTYPE_F8E5M2, 11);
    assert_int_equal(SP_DTYPE_COUNT, 12);
    assert_int_equal(SP_REDOP_SUM, 0);
    assert_int_equal(SP_REDOP_AVG, 4);
    assert_int_equal(SP_REDOP_PREMULSUM, 5);
    assert_int_equal(SP_REDOP_COUNT, 6);
}

static void test_sizes_names_integer(void **state)
{
    (void)state;
    for (int i = 0; i < SP_DTYPE_COUNT; i++) {
        const dtype_row_t *r = &dtype_rows[i];

        assert_int_equal(r->dtype, i);
        assert_int_equal(sp_dtype_size(r->dtype), r->size);
        assert_string_equal(sp_dtype_name(r->dtype), r->name);
        assert_int_equal(sp_dtype_is_integer(r->dtype), r->is_integer);
        assert_int_equal(sp_dtype_from_name(r->name), (int)r->dtype);
    }
    assert_string_equal(sp_dtype_name(SP_DTYPE_COUNT), "?");
    assert_string_equal(sp_dtype_name((sp_dtype_t)-1), "?");
}

static void test_dtype_aliases_and_unknown(void **state)
{
    (void)state;
    /* only nccl-tests' names: no aliases */
    assert_int_equal(sp_dtype_from_name("fp16"), -1);
    assert_int_equal(sp_dtype_from_name("bf16"), -1);
    assert_int_equal(sp_dtype_from_name(""), -1);
    assert_int_equal(sp_dtype_from_name("int"), -1);
    assert_int_equal(sp_dtype_from_name("Float"), -1);
    assert_int_equal(sp_dtype_from_name("float "), -1);
    assert_int_equal(sp_dtype_from_name("all"), -1);
}

static void test_redop_names(void **state)
{
    static const char *const names[SP_REDOP_COUNT] = {"sum", "prod", "max", "min", "avg",
                                                      "mulsum"};

    (void)state;
    for (int i = 0; i < SP_REDOP_COUNT; i++) {
        assert_string_equal(sp_redop_name((sp_redop_t)i), names[i]);
        assert_int_equal(sp_redop_from_name(names[i]), i);
    }
    assert_string_equal(sp_redop_name(SP_REDOP_COUNT), "?");
    assert_int_equal(sp_redop_from_name("mean"), -1);
    assert_int_equal(sp_redop_from_name("SUM"), -1);
    assert_int_equal(sp_redop_from_name(""), -1);
}

/* ---- exact ranges: checked against the types themselves ---- */

static void test_exact_limit(void **state)
{
    (void)state;
    assert_same(sp_dtype_exact_limit(SP_DTYPE_INT8), 127.0);
    assert_same(sp_dtype_exact_limit(SP_DTYPE_UINT8), 255.0);
    assert_same(sp_dtype_exact_limit(SP_DTYPE_INT32), 2147483647.0);
    assert_same(sp_dtype_exact_limit(SP_DTYPE_UINT32), 4294967295.0);
    assert_same(sp_dtype_exact_limit(SP_DTYPE_INT64), 9007199254740992.0);
    assert_same(sp_dtype_exact_limit(SP_DTYPE_UINT64), 9007199254740992.0);
    assert_same(sp_dtype_exact_limit(SP_DTYPE_HALF), 2048.0);
    assert_same(sp_dtype_exact_limit(SP_DTYPE_FLOAT), 16777216.0);
    assert_same(sp_dtype_exact_limit(SP_DTYPE_DOUBLE), 9007199254740992.0);
    assert_same(sp_dtype_exact_limit(SP_DTYPE_BFLOAT16), 256.0);
    assert_same(sp_dtype_exact_limit(SP_DTYPE_F8E4M3), 16.0);
    assert_same(sp_dtype_exact_limit(SP_DTYPE_F8E5M2), 8.0);

    /* the limit round-trips through element access; for half, float and bfloat16 L+1 does not
     * (for double, L+1 is not even a double, so it cannot be written here) */
    for (int d = 0; d < SP_DTYPE_COUNT; d++) {
        double lim = sp_dtype_exact_limit((sp_dtype_t)d);

        assert_same(sp_dtype_round((sp_dtype_t)d, lim), lim);
        assert_same(sp_dtype_round((sp_dtype_t)d, lim - 1.0), lim - 1.0);
        if (!sp_dtype_is_integer((sp_dtype_t)d) && d != SP_DTYPE_DOUBLE) {
            assert_true(sp_dtype_round((sp_dtype_t)d, lim + 1.0) != lim + 1.0);
        }
    }
}

static void test_max_pow2_is_exact(void **state)
{
    (void)state;
    /* the types where the limit is the type's own range */
    assert_int_equal(sp_dtype_max_pow2(SP_DTYPE_INT8), 6);
    assert_int_equal(sp_dtype_max_pow2(SP_DTYPE_UINT8), 7);
    assert_int_equal(sp_dtype_max_pow2(SP_DTYPE_INT32), 30);
    assert_int_equal(sp_dtype_max_pow2(SP_DTYPE_UINT32), 31);
    assert_int_equal(sp_dtype_max_pow2(SP_DTYPE_HALF), 15);
    assert_int_equal(sp_dtype_max_pow2(SP_DTYPE_F8E4M3), 8);
    assert_int_equal(sp_dtype_max_pow2(SP_DTYPE_F8E5M2), 15);
    for (int d = 0; d < SP_DTYPE_COUNT; d++) {
        int e = sp_dtype_max_pow2((sp_dtype_t)d);

        assert_true(e >= 1);
        assert_same(sp_dtype_round((sp_dtype_t)d, ldexp(1.0, e)), ldexp(1.0, e));
    }
    /* half: 2^16 is above 65504 and overflows to infinity */
    assert_true(isinf(sp_dtype_round(SP_DTYPE_HALF, 65536.0)));
}

/* ---- half ---- */

static void test_half_small_integers_exact(void **state)
{
    (void)state;
    for (int i = 0; i <= 2048; i++) {
        uint16_t h = sp_half_from_float((float)i);

        assert_same(sp_half_to_float(h), (double)i);
        assert_same(sp_half_to_float(sp_half_from_float((float)-i)), (double)-i);
    }
}

static void test_half_known_encodings(void **state)
{
    (void)state;
    assert_int_equal(sp_half_from_float(0.0f), 0x0000);
    assert_int_equal(sp_half_from_float(-0.0f), 0x8000);
    assert_int_equal(sp_half_from_float(1.0f), 0x3c00);
    assert_int_equal(sp_half_from_float(-1.0f), 0xbc00);
    assert_int_equal(sp_half_from_float(2.0f), 0x4000);
    assert_int_equal(sp_half_from_float(0.5f), 0x3800);
    assert_int_equal(sp_half_from_float(65504.0f), 0x7bff);
    assert_int_equal(sp_half_from_float(2048.0f), 0x6800);
    /* values from IEEE binary16 tables, rounded to nearest even */
    assert_int_equal(sp_half_from_float(1.0f / 3.0f), 0x3555);
    assert_int_equal(sp_half_from_float(0.1f), 0x2e66);
    assert_same(sp_half_to_float(0x3555), 0.333251953125);
    assert_same(sp_half_to_float(0x2e66), 0.0999755859375);
    assert_same(sp_half_to_float(0x7bff), 65504.0);
    assert_same(sp_half_to_float(0x3c00), 1.0);
    assert_same(sp_half_to_float(0xc000), -2.0);
}

static void test_half_round_to_nearest_even(void **state)
{
    (void)state;
    /* spacing 2 in [2048, 4096): ties go to the even mantissa */
    assert_same(sp_half_to_float(sp_half_from_float(2049.0f)), 2048.0);
    assert_same(sp_half_to_float(sp_half_from_float(2050.0f)), 2050.0);
    assert_same(sp_half_to_float(sp_half_from_float(2051.0f)), 2052.0);
    assert_same(sp_half_to_float(sp_half_from_float(2053.0f)), 2052.0);
    assert_same(sp_half_to_float(sp_half_from_float(2050.5f)), 2050.0);
    assert_same(sp_half_to_float(sp_half_from_float(2051.5f)), 2052.0);
    /* spacing 4 in [4096, 8192) */
    assert_same(sp_half_to_float(sp_half_from_float(4097.0f)), 4096.0);
    assert_same(sp_half_to_float(sp_half_from_float(4098.0f)), 4096.0);
    assert_same(sp_half_to_float(sp_half_from_float(4099.0f)), 4100.0);
    assert_same(sp_half_to_float(sp_half_from_float(4102.0f)), 4104.0);
    assert_same(sp_half_to_float(sp_half_from_float(-2051.0f)), -2052.0);
    /* rounding that carries into the exponent */
    assert_int_equal(sp_half_from_float(2047.5f), 0x6800);        /* 2048 */
    assert_int_equal(sp_half_from_float(1.99951171875f), 0x4000); /* 1 + 2047/2048: tie -> 2.0 */
}

static void test_half_overflow_and_infinity(void **state)
{
    (void)state;
    /* 65519 rounds down to the largest finite half, 65520 is the tie that goes to infinity */
    assert_int_equal(sp_half_from_float(65519.0f), 0x7bff);
    assert_int_equal(sp_half_from_float(65520.0f), 0x7c00);
    assert_int_equal(sp_half_from_float(-65520.0f), 0xfc00);
    assert_int_equal(sp_half_from_float(1.0e6f), 0x7c00);
    assert_int_equal(sp_half_from_float(3.0e38f), 0x7c00);
    assert_int_equal(sp_half_from_float(INFINITY), 0x7c00);
    assert_int_equal(sp_half_from_float(-INFINITY), 0xfc00);
    assert_true(isinf(sp_half_to_float(0x7c00)) && sp_half_to_float(0x7c00) > 0);
    assert_true(isinf(sp_half_to_float(0xfc00)) && sp_half_to_float(0xfc00) < 0);
    assert_true(isinf(sp_dtype_round(SP_DTYPE_HALF, 65520.0)));
}

static void test_half_nan(void **state)
{
    uint32_t low_payload_bits = 0x7f800001u; /* a NaN whose payload lies below half's mantissa */
    float low_payload;

    (void)state;
    memcpy(&low_payload, &low_payload_bits, sizeof(low_payload));
    assert_true(isnan(low_payload));
    for (int k = 0; k < 2; k++) {
        float f = k == 0 ? NAN : low_payload;
        uint16_t h = sp_half_from_float(f);

        assert_int_equal(h & 0x7c00u, 0x7c00u);
        assert_true((h & 0x3ffu) != 0); /* not infinity */
        assert_true(isnan(sp_half_to_float(h)));
    }
    assert_true(isnan(sp_half_to_float(0x7e00)));
    assert_true(isnan(sp_half_to_float(0x7c01)));
    assert_true(isnan(sp_dtype_round(SP_DTYPE_HALF, NAN)));
}

static void test_half_subnormals(void **state)
{
    (void)state;
    /* smallest subnormal 2^-24, largest 1023 * 2^-24, smallest normal 2^-14 */
    assert_int_equal(sp_half_from_float(ldexpf(1.0f, -24)), 0x0001);
    assert_same(sp_half_to_float(0x0001), ldexp(1.0, -24));
    assert_int_equal(sp_half_from_float(1023.0f * ldexpf(1.0f, -24)), 0x03ff);
    assert_same(sp_half_to_float(0x03ff), 1023.0 * ldexp(1.0, -24));
    assert_int_equal(sp_half_from_float(ldexpf(1.0f, -14)), 0x0400);
    assert_same(sp_half_to_float(0x0400), ldexp(1.0, -14));
    assert_same(sp_half_to_float(0x8001), -ldexp(1.0, -24));
    /* ties and rounding among subnormals */
    assert_int_equal(sp_half_from_float(ldexpf(1.0f, -25)), 0x0000);        /* 0.5 ulp: even 0 */
    assert_int_equal(sp_half_from_float(1.5f * ldexpf(1.0f, -25)), 0x0001); /* 0.75 ulp */
    assert_int_equal(sp_half_from_float(3.0f * ldexpf(1.0f, -25)), 0x0002); /* 1.5 ulp: even 2 */
    assert_int_equal(sp_half_from_float(5.0f * ldexpf(1.0f, -25)), 0x0002); /* 2.5 ulp: even 2 */
    assert_int_equal(sp_half_from_float(ldexpf(1.0f, -26)), 0x0000);
    assert_int_equal(sp_half_from_float(ldexpf(1.0f, -40)), 0x0000);
    assert_int_equal(sp_half_from_float(-ldexpf(1.0f, -40)), 0x8000);
    /* 1023.5 * 2^-24: a tie between the largest subnormal and the smallest normal */
    assert_int_equal(sp_half_from_float(1023.5f * ldexpf(1.0f, -24)), 0x0400);
    /* every subnormal encoding round-trips */
    for (uint16_t h = 0; h < 0x400; h++) {
        assert_int_equal(sp_half_from_float(sp_half_to_float(h)), h);
    }
}

static void test_half_every_finite_encoding_round_trips(void **state)
{
    (void)state;
    for (uint32_t h = 0; h < 0x10000u; h++) {
        if ((h & 0x7c00u) == 0x7c00u) {
            continue; /* infinities and NaNs are tested above */
        }
        assert_int_equal(sp_half_from_float(sp_half_to_float((uint16_t)h)), h);
    }
}

/* ---- bfloat16 ---- */

static void test_bf16_small_integers_exact(void **state)
{
    (void)state;
    for (int i = 0; i <= 256; i++) {
        assert_same(sp_bf16_to_float(sp_bf16_from_float((float)i)), (double)i);
        assert_same(sp_bf16_to_float(sp_bf16_from_float((float)-i)), (double)-i);
    }
}

static void test_bf16_known_values(void **state)
{
    (void)state;
    assert_int_equal(sp_bf16_from_float(1.0f), 0x3f80);
    assert_int_equal(sp_bf16_from_float(-1.0f), 0xbf80);
    assert_int_equal(sp_bf16_from_float(0.0f), 0x0000);
    assert_int_equal(sp_bf16_from_float(-0.0f), 0x8000);
    assert_int_equal(sp_bf16_from_float(256.0f), 0x4380);
    assert_int_equal(sp_bf16_from_float(1.0f / 3.0f), 0x3eab);
    assert_same(sp_bf16_to_float(0x3eab), 0.333984375);
    /* spacing 2 in [256, 512): ties to even */
    assert_same(sp_bf16_to_float(sp_bf16_from_float(257.0f)), 256.0);
    assert_same(sp_bf16_to_float(sp_bf16_from_float(258.0f)), 258.0);
    assert_same(sp_bf16_to_float(sp_bf16_from_float(259.0f)), 260.0);
    assert_same(sp_bf16_to_float(sp_bf16_from_float(257.5f)), 258.0);
    assert_same(sp_bf16_to_float(sp_bf16_from_float(-257.0f)), -256.0);
    /* carry into the exponent: 511 -> 512 */
    assert_same(sp_bf16_to_float(sp_bf16_from_float(511.0f)), 512.0);
    assert_int_equal(sp_bf16_from_float(INFINITY), 0x7f80);
    assert_int_equal(sp_bf16_from_float(-INFINITY), 0xff80);
}

static void test_bf16_nan(void **state)
{
    uint32_t low_payload_bits = 0x7f800001u; /* truncating would give infinity */
    float low_payload;

    (void)state;
    memcpy(&low_payload, &low_payload_bits, sizeof(low_payload));
    assert_true(isnan(sp_bf16_to_float(sp_bf16_from_float(NAN))));
    assert_true(isnan(sp_bf16_to_float(sp_bf16_from_float(low_payload))));
    assert_true(isnan(sp_dtype_round(SP_DTYPE_BFLOAT16, NAN)));
}

/* ---- element access and rounding ---- */

static void test_get_set_every_type(void **state)
{
    unsigned char buf[8 * 4];

    (void)state;
    for (int d = 0; d < SP_DTYPE_COUNT; d++) {
        /* 127 needs 7 significant bits; fp8 has 4 (e4m3) or 3 (e5m2): 112 = 1.11b * 2^6 */
        double big = d == SP_DTYPE_F8E4M3 || d == SP_DTYPE_F8E5M2 ? 112.0 : 127.0;
        memset(buf, 0xA5, sizeof(buf));
        sp_dtype_set((sp_dtype_t)d, buf, 0, 0.0);
        sp_dtype_set((sp_dtype_t)d, buf, 1, 96.0);
        sp_dtype_set((sp_dtype_t)d, buf, 2, big);
        sp_dtype_set((sp_dtype_t)d, buf, 3, 1.0);
        assert_same(sp_dtype_get((sp_dtype_t)d, buf, 0), 0.0);
        assert_same(sp_dtype_get((sp_dtype_t)d, buf, 1), 96.0);
        assert_same(sp_dtype_get((sp_dtype_t)d, buf, 2), big);
        assert_same(sp_dtype_get((sp_dtype_t)d, buf, 3), 1.0);
        /* element i lies at byte i * size: element 3 ends the written region */
        for (size_t b = 4 * sp_dtype_size((sp_dtype_t)d); b < sizeof(buf); b++) {
            assert_int_equal(buf[b], 0xA5);
        }
    }
}

static void test_round(void **state)
{
    (void)state;
    /* integers truncate toward zero */
    assert_same(sp_dtype_round(SP_DTYPE_INT8, 3.7), 3.0);
    assert_same(sp_dtype_round(SP_DTYPE_INT8, -3.7), -3.0);
    assert_same(sp_dtype_round(SP_DTYPE_INT8, -128.0), -128.0);
    assert_same(sp_dtype_round(SP_DTYPE_UINT8, 255.9), 255.0);
    assert_same(sp_dtype_round(SP_DTYPE_INT32, -2147483648.0), -2147483648.0);
    assert_same(sp_dtype_round(SP_DTYPE_UINT32, 4294967295.0), 4294967295.0);
    assert_same(sp_dtype_round(SP_DTYPE_INT64, -9007199254740992.0), -9007199254740992.0);
    assert_same(sp_dtype_round(SP_DTYPE_UINT64, 9007199254740992.0), 9007199254740992.0);
    /* floating types round to nearest even */
    assert_same(sp_dtype_round(SP_DTYPE_FLOAT, 16777217.0), 16777216.0);
    assert_same(sp_dtype_round(SP_DTYPE_FLOAT, 16777219.0), 16777220.0);
    assert_same(sp_dtype_round(SP_DTYPE_FLOAT, 0.1), 0.100000001490116119384765625);
    assert_same(sp_dtype_round(SP_DTYPE_DOUBLE, 0.1), 0.1);
    assert_same(sp_dtype_round(SP_DTYPE_HALF, 2049.0), 2048.0);
    assert_same(sp_dtype_round(SP_DTYPE_HALF, 2051.0), 2052.0);
    assert_same(sp_dtype_round(SP_DTYPE_BFLOAT16, 257.0), 256.0);
    assert_same(sp_dtype_round(SP_DTYPE_BFLOAT16, 259.0), 260.0);
}

/* ---- reductions ---- */

static void test_redop_apply(void **state)
{
    (void)state;
    assert_same(sp_redop_apply(SP_REDOP_SUM, 3.0, 4.0), 7.0);
    assert_same(sp_redop_apply(SP_REDOP_AVG, 3.0, 4.0), 7.0); /* avg combines like sum */
    assert_same(sp_redop_apply(SP_REDOP_PROD, 3.0, 4.0), 12.0);
    assert_same(sp_redop_apply(SP_REDOP_MAX, 3.0, 4.0), 4.0);
    assert_same(sp_redop_apply(SP_REDOP_MAX, 4.0, 3.0), 4.0);
    assert_same(sp_redop_apply(SP_REDOP_MIN, 3.0, 4.0), 3.0);
    assert_same(sp_redop_apply(SP_REDOP_MIN, 4.0, -3.0), -3.0);
    assert_same(sp_redop_apply(SP_REDOP_SUM, -2.5, 2.5), 0.0);
}

static void test_avg_finish(void **state)
{
    (void)state;
    /* integers: the division truncates toward zero, as NCCL's integer avg does */
    assert_same(sp_redop_avg_finish(SP_DTYPE_INT32, 7.0, 2), 3.0);
    assert_same(sp_redop_avg_finish(SP_DTYPE_INT32, 8.0, 3), 2.0);
    assert_same(sp_redop_avg_finish(SP_DTYPE_INT8, -7.0, 2), -3.0);
    assert_same(sp_redop_avg_finish(SP_DTYPE_UINT8, 1.0, 300), 0.0);
    assert_same(sp_redop_avg_finish(SP_DTYPE_UINT64, 9.0, 3), 3.0);
    assert_same(sp_redop_avg_finish(SP_DTYPE_INT64, 5.0, 1), 5.0);
    /* floating types: the quotient rounded to the type */
    assert_same(sp_redop_avg_finish(SP_DTYPE_FLOAT, 7.0, 2), 3.5);
    assert_same(sp_redop_avg_finish(SP_DTYPE_DOUBLE, 1.0, 3), 1.0 / 3.0);
    assert_same(sp_redop_avg_finish(SP_DTYPE_FLOAT, 1.0, 3), 0.3333333432674407958984375);
    assert_same(sp_redop_avg_finish(SP_DTYPE_HALF, 1.0, 3), 0.333251953125);
    assert_same(sp_redop_avg_finish(SP_DTYPE_BFLOAT16, 1.0, 3), 0.333984375);
    assert_same(sp_redop_avg_finish(SP_DTYPE_HALF, 4098.0, 1), 4096.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nccl_enum_order),
        cmocka_unit_test(test_sizes_names_integer),
        cmocka_unit_test(test_dtype_aliases_and_unknown),
        cmocka_unit_test(test_redop_names),
        cmocka_unit_test(test_exact_limit),
        cmocka_unit_test(test_max_pow2_is_exact),
        cmocka_unit_test(test_half_small_integers_exact),
        cmocka_unit_test(test_half_known_encodings),
        cmocka_unit_test(test_half_round_to_nearest_even),
        cmocka_unit_test(test_half_overflow_and_infinity),
        cmocka_unit_test(test_half_nan),
        cmocka_unit_test(test_half_subnormals),
        cmocka_unit_test(test_half_every_finite_encoding_round_trips),
        cmocka_unit_test(test_bf16_small_integers_exact),
        cmocka_unit_test(test_bf16_known_values),
        cmocka_unit_test(test_bf16_nan),
        cmocka_unit_test(test_get_set_every_type),
        cmocka_unit_test(test_round),
        cmocka_unit_test(test_redop_apply),
        cmocka_unit_test(test_avg_finish),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
