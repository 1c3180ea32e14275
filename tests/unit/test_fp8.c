/* Unit tests of the OCP FP8 conversions in src/base/dtype_conv.h (f8e4m3, f8e5m2): encodings
 * worked out by hand from the formats (sign, exponent with bias 7 or 15, 3 or 2 mantissa bits),
 * round to nearest even, saturation, subnormals, NaN, and every code's round trip; then fp8
 * through element access, avg and the premulsum scalar. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "dtype.h"

static void assert_same(double actual, double expected)
{
    if (!(actual == expected)) {
        print_error("expected %.17g, got %.17g\n", expected, actual);
        fail();
    }
}

typedef struct {
    double value;
    uint8_t code;
} f8_case_t;

/* e4m3: S.EEEE.MMM, bias 7 */
static const f8_case_t e4m3_cases[] = {
    {0.0, 0x00},
    {1.0, 0x38},             /* 0.0111.000: 2^(7-7) */
    {-2.0, 0xC0},            /* 1.1000.000 */
    {1.5, 0x3C},             /* 0.0111.100 */
    {16.0, 0x58},            /* 0.1011.000: the largest exact integer run ends here */
    {18.0, 0x59},            /* 0.1011.001 */
    {96.0, 0x6C},            /* 0.1101.100: 1.5 * 2^6 */
    {256.0, 0x78},           /* 0.1111.000: 2^8, exponent field 15 is finite in e4m3 */
    {448.0, 0x7E},           /* 0.1111.110: the largest finite value (1.75 * 2^8) */
    {-448.0, 0xFE},
    {0.015625, 0x08},        /* 0.0001.000: 2^-6, the smallest normal */
    {0.001953125, 0x01},     /* 0.0000.001: 2^-9, the smallest subnormal */
    {0.013671875, 0x07},     /* 0.0000.111: 7 * 2^-9, the largest subnormal */
};

/* e5m2: S.EEEEE.MM, bias 15 */
static const f8_case_t e5m2_cases[] = {
    {0.0, 0x00},
    {1.0, 0x3C},             /* 0.01111.00 */
    {-2.0, 0xC0},            /* 1.10000.00 */
    {1.5, 0x3E},             /* 0.01111.10 */
    {8.0, 0x48},             /* 0.10010.00 */
    {96.0, 0x56},            /* 0.10101.10 */
    {57344.0, 0x7B},         /* 0.11110.11: the largest finite value (1.75 * 2^15) */
    {-57344.0, 0xFB},
    {6.103515625e-05, 0x04}, /* 0.00001.00: 2^-14, the smallest normal */
    {1.52587890625e-05, 0x01}, /* 0.00000.01: 2^-16, the smallest subnormal */
    {4.57763671875e-05, 0x03}, /* 0.00000.11: 3 * 2^-16, the largest subnormal */
};

static void check_cases(int fmt, const f8_case_t *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (sp_f8_from_double(fmt, cases[i].value) != cases[i].code) {
            print_error("fmt %d: %.17g encoded as 0x%02x, want 0x%02x\n", fmt, cases[i].value,
                        sp_f8_from_double(fmt, cases[i].value), cases[i].code);
            fail();
        }
        assert_same(sp_f8_to_double(fmt, cases[i].code), cases[i].value);
    }
}

static void test_known_encodings(void **state)
{
    (void)state;
    check_cases(SP_F8_E4M3, e4m3_cases, sizeof(e4m3_cases) / sizeof(e4m3_cases[0]));
    check_cases(SP_F8_E5M2, e5m2_cases, sizeof(e5m2_cases) / sizeof(e5m2_cases[0]));
    assert_same(sp_f8_max(SP_F8_E4M3), 448.0);
    assert_same(sp_f8_max(SP_F8_E5M2), 57344.0);
    /* negative zero keeps its sign */
    assert_int_equal(sp_f8_from_double(SP_F8_E4M3, -0.0), 0x80);
    assert_int_equal(sp_f8_from_double(SP_F8_E5M2, -0.0), 0x80);
}

static void test_round_to_nearest_even(void **state)
{
    (void)state;
    /* e4m3 between 16 and 32 steps by 2: 17 ties to 16 (mantissa 000), 19 to 20 (010) */
    assert_int_equal(sp_f8_from_double(SP_F8_E4M3, 17.0), 0x58);
    assert_int_equal(sp_f8_from_double(SP_F8_E4M3, 19.0), 0x5A);
    assert_int_equal(sp_f8_from_double(SP_F8_E4M3, 17.0001), 0x59); /* above the tie: 18 */
    /* near 1 the step is 1/8: 1.0625 ties down to 1, 1.1875 up to 1.25 */
    assert_same(sp_dtype_round(SP_DTYPE_F8E4M3, 1.0625), 1.0);
    assert_same(sp_dtype_round(SP_DTYPE_F8E4M3, 1.1875), 1.25);
    /* a carry into the next binade: 1.9375 rounds to 2 */
    assert_same(sp_dtype_round(SP_DTYPE_F8E4M3, 1.9375), 2.0);
    /* e5m2 between 8 and 16 steps by 2: 9 ties to 8, 11 to 12; 127 rounds to 128 */
    assert_same(sp_dtype_round(SP_DTYPE_F8E5M2, 9.0), 8.0);
    assert_same(sp_dtype_round(SP_DTYPE_F8E5M2, 11.0), 12.0);
    assert_same(sp_dtype_round(SP_DTYPE_F8E5M2, 127.0), 128.0);
    assert_same(sp_dtype_round(SP_DTYPE_F8E4M3, 127.0), 128.0);
    /* ties below the smallest subnormal: 2^-10 (e4m3) rounds to 0, 3 * 2^-10 to 2 * 2^-9 */
    assert_int_equal(sp_f8_from_double(SP_F8_E4M3, ldexp(1.0, -10)), 0x00);
    assert_int_equal(sp_f8_from_double(SP_F8_E4M3, 3.0 * ldexp(1.0, -10)), 0x02);
    assert_int_equal(sp_f8_from_double(SP_F8_E5M2, ldexp(1.0, -17)), 0x00);
    assert_int_equal(sp_f8_from_double(SP_F8_E5M2, 3.0 * ldexp(1.0, -17)), 0x02);
    /* the largest subnormal rounding up into the smallest normal */
    assert_int_equal(sp_f8_from_double(SP_F8_E4M3, 7.5 * ldexp(1.0, -9)), 0x08);
}

static void test_saturation_and_nan(void **state)
{
    (void)state;
    /* beyond the largest finite value, infinities included: saturate (OCP saturation mode) */
    assert_int_equal(sp_f8_from_double(SP_F8_E4M3, 464.0), 0x7E);
    assert_int_equal(sp_f8_from_double(SP_F8_E4M3, 1e6), 0x7E);
    assert_int_equal(sp_f8_from_double(SP_F8_E4M3, -1e6), 0xFE);
    assert_int_equal(sp_f8_from_double(SP_F8_E4M3, INFINITY), 0x7E);
    assert_int_equal(sp_f8_from_double(SP_F8_E5M2, 61440.0), 0x7B);
    assert_int_equal(sp_f8_from_double(SP_F8_E5M2, -INFINITY), 0xFB);
    /* NaN: S.1111.111 in e4m3, S.11111.11 in e5m2 */
    assert_int_equal(sp_f8_from_double(SP_F8_E4M3, NAN), 0x7F);
    assert_int_equal(sp_f8_from_double(SP_F8_E5M2, NAN), 0x7F);
    assert_true(isnan(sp_f8_to_double(SP_F8_E4M3, 0x7F)));
    assert_true(isnan(sp_f8_to_double(SP_F8_E4M3, 0xFF)));
    assert_true(isnan(sp_f8_to_double(SP_F8_E5M2, 0x7D)));
    assert_true(isnan(sp_f8_to_double(SP_F8_E5M2, 0xFE)));
    /* e5m2 keeps IEEE infinities as codes; e4m3 has none (0x78 is 256) */
    assert_true(isinf(sp_f8_to_double(SP_F8_E5M2, 0x7C)) && sp_f8_to_double(SP_F8_E5M2, 0x7C) > 0);
    assert_true(isinf(sp_f8_to_double(SP_F8_E5M2, 0xFC)) && sp_f8_to_double(SP_F8_E5M2, 0xFC) < 0);
    assert_true(isnan(sp_dtype_round(SP_DTYPE_F8E4M3, NAN)));
}

/* Every code that is a number decodes to a value that encodes back to the same code, and the
 * values increase with the code (the codes of one sign are ordered). */
static void test_every_code_round_trips(void **state)
{
    (void)state;
    for (int fmt = SP_F8_E4M3; fmt <= SP_F8_E5M2; fmt++) {
        double prev = -1.0;
        int finite = 0;
        for (int c = 0; c < 0x80; c++) {
            double v = sp_f8_to_double(fmt, (uint8_t)c);
            if (isnan(v) || isinf(v)) {
                continue;
            }
            finite++;
            assert_int_equal(sp_f8_from_double(fmt, v), c);
            assert_int_equal(sp_f8_from_double(fmt, -v), c | 0x80);
            assert_true(v > prev);
            prev = v;
        }
        /* e4m3: 127 non-negative finite codes (only 0x7F is NaN); e5m2: 124 (0x7C-0x7F) */
        assert_int_equal(finite, fmt == SP_F8_E4M3 ? 127 : 124);
        assert_same(prev, sp_f8_max(fmt));
    }
}

static void test_element_access_and_avg(void **state)
{
    uint8_t buf[4];

    (void)state;
    memset(buf, 0xA5, sizeof(buf));
    sp_dtype_set(SP_DTYPE_F8E4M3, buf, 1, 448.0);
    sp_dtype_set(SP_DTYPE_F8E5M2, buf, 2, 57344.0);
    assert_int_equal(buf[0], 0xA5);
    assert_int_equal(buf[1], 0x7E);
    assert_int_equal(buf[2], 0x7B);
    assert_int_equal(buf[3], 0xA5);
    assert_same(sp_dtype_get(SP_DTYPE_F8E4M3, buf, 1), 448.0);
    assert_same(sp_dtype_get(SP_DTYPE_F8E5M2, buf, 2), 57344.0);
    /* avg: the quotient rounded to the type (7/3 = 2.33 -> 2.25 in e4m3, 2.5 in e5m2's
     * steps of 0.5 between 2 and 4 -> 2.5) */
    assert_same(sp_redop_avg_finish(SP_DTYPE_F8E4M3, 7.0, 3), 2.25);
    assert_same(sp_redop_avg_finish(SP_DTYPE_F8E5M2, 7.0, 3), 2.5);
    /* premulsum's scalar, as nccl-tests sets it: 1 on even ranks, 2 on odd ones */
    assert_same(sp_redop_premul_scalar(0), 1.0);
    assert_same(sp_redop_premul_scalar(1), 2.0);
    assert_same(sp_redop_premul_scalar(6), 1.0);
    assert_same(sp_redop_apply(SP_REDOP_PREMULSUM, 2.0, 4.0), 6.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_encodings),
        cmocka_unit_test(test_round_to_nearest_even),
        cmocka_unit_test(test_saturation_and_nan),
        cmocka_unit_test(test_every_code_round_trips),
        cmocka_unit_test(test_element_access_and_avg),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
