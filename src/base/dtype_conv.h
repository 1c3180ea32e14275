/* Element access, IEEE binary16 / bfloat16 / OCP FP8 conversions and avg's final division: inline, and
 * usable from CUDA device code (SP_HOSTDEV), so the host backend, the verification and the GPU
 * kernels share one definition of every value. Included through dtype.h. */
#ifndef SP_DTYPE_CONV_H
#define SP_DTYPE_CONV_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define SP_HOSTDEV __host__ __device__
#else
#define SP_HOSTDEV
#endif

/* IEEE binary16 from float, round to nearest even, NaN kept quiet and non-zero. */
static inline SP_HOSTDEV uint16_t sp_half_from_float(float f)
{
    uint32_t x;
    uint32_t sign;
    int32_t exp;
    uint32_t mant;

    memcpy(&x, &f, sizeof(x));
    sign = (x >> 16) & 0x8000u;
    exp = (int32_t)((x >> 23) & 0xff);
    mant = x & 0x7fffffu;
    if (exp == 0xff) {
        return (uint16_t)(sign | 0x7c00u | (mant != 0 ? 0x200u | (mant >> 13) : 0));
    }
    exp = exp - 127 + 15;
    if (exp >= 0x1f) {
        return (uint16_t)(sign | 0x7c00u);
    }
    if (exp <= 0) {
        /* subnormal half (or zero): shift the implicit bit in, round to nearest even */
        if (exp < -10) {
            return (uint16_t)sign;
        }
        mant |= 0x800000u;
        uint32_t shift = (uint32_t)(14 - exp);
        uint32_t half_mant = mant >> shift;
        uint32_t rem = mant & ((1u << shift) - 1);
        uint32_t halfway = 1u << (shift - 1);
        if (rem > halfway || (rem == halfway && (half_mant & 1u))) {
            half_mant++;
        }
        return (uint16_t)(sign | half_mant);
    }
    uint32_t h = sign | ((uint32_t)exp << 10) | (mant >> 13);
    uint32_t rem = mant & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) {
        h++; /* carries into the exponent correctly, up to infinity */
    }
    return (uint16_t)h;
}

static inline SP_HOSTDEV float sp_half_to_float(uint16_t h)
{
    uint32_t sign = ((uint32_t)h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    uint32_t x;
    float f;

    if (exp == 0) {
        /* zero or subnormal: value = mant * 2^-24, exact in float */
        f = (float)mant * 5.9604644775390625e-08f;
        return sign ? -f : f;
    }
    if (exp == 0x1f) {
        x = sign | 0x7f800000u | (mant << 13);
    } else {
        x = sign | ((exp - 15 + 127) << 23) | (mant << 13);
    }
    memcpy(&f, &x, sizeof(f));
    return f;
}

static inline SP_HOSTDEV uint16_t sp_bf16_from_float(float f)
{
    uint32_t x;

    memcpy(&x, &f, sizeof(x));
    if ((x & 0x7fffffffu) > 0x7f800000u) {
        return (uint16_t)((x >> 16) | 0x40u); /* quiet NaN */
    }
    x += 0x7fffu + ((x >> 16) & 1u);
    return (uint16_t)(x >> 16);
}

static inline SP_HOSTDEV float sp_bf16_to_float(uint16_t b)
{
    uint32_t x = (uint32_t)b << 16;
    float f;

    memcpy(&f, &x, sizeof(f));
    return f;
}

/* OCP FP8 (E4M3 as NVIDIA's and NCCL's e4m3 "fn": no infinities, one NaN pattern per sign;
 * E5M2 with IEEE-style infinities and NaNs). A format: exponent bias, mantissa bits, the
 * largest finite value and whether the all-ones exponent is reserved (E5M2) or holds finite
 * values (E4M3, whose only NaN is S.1111.111). */
#define SP_F8_E4M3 0
#define SP_F8_E5M2 1

static inline SP_HOSTDEV int sp__f8_bias(int fmt)
{
    return fmt == SP_F8_E4M3 ? 7 : 15;
}

static inline SP_HOSTDEV int sp__f8_mbits(int fmt)
{
    return fmt == SP_F8_E4M3 ? 3 : 2;
}

/* 448 = 1.75 * 2^8 (e4m3), 57344 = 1.75 * 2^15 (e5m2) */
static inline SP_HOSTDEV double sp_f8_max(int fmt)
{
    return fmt == SP_F8_E4M3 ? 448.0 : 57344.0;
}

/* The value of an 8-bit code. */
static inline SP_HOSTDEV double sp_f8_to_double(int fmt, uint8_t code)
{
    int mbits = sp__f8_mbits(fmt);
    int bias = sp__f8_bias(fmt);
    int efield = (code & 0x7f) >> mbits;
    int mant = code & ((1 << mbits) - 1);
    int emax = fmt == SP_F8_E4M3 ? 15 : 31;
    double v;

    if (fmt == SP_F8_E4M3 && (code & 0x7f) == 0x7f) {
        return NAN;
    }
    if (fmt == SP_F8_E5M2 && efield == emax) {
        v = mant == 0 ? INFINITY : NAN;
    } else if (efield == 0) {
        v = ldexp((double)mant, 1 - bias - mbits); /* subnormal */
    } else {
        v = ldexp((double)((1 << mbits) | mant), efield - bias - mbits);
    }
    return (code & 0x80) ? -v : v;
}

/* The code nearest to x, ties to even, saturating: finite values beyond the largest finite
 * one and infinities become +-max (the OCP spec's saturation mode, the default of CUDA's
 * __nv_fp8 conversions); NaN becomes S.1111.111. Computed on doubles, so values given as
 * doubles are rounded once. */
static inline SP_HOSTDEV uint8_t sp_f8_from_double(int fmt, double x)
{
    int mbits = sp__f8_mbits(fmt);
    int bias = sp__f8_bias(fmt);
    uint8_t sign = signbit(x) ? 0x80 : 0;
    double a = fabs(x);
    double maxv = sp_f8_max(fmt);
    int e;
    double q;
    double r;

    if (isnan(x)) {
        return (uint8_t)(sign | 0x7f);
    }
    if (a == 0.0) {
        return sign;
    }
    if (a >= maxv) {
        a = maxv; /* saturate (inf included) before rounding, which then stays exact */
    }
    frexp(a, &e);
    e -= 1; /* a = 1.f * 2^e */
    if (e < 1 - bias) {
        e = 1 - bias; /* subnormal: the quantum of the smallest binade */
    }
    q = ldexp(1.0, e - mbits);
    r = rint(a / q) * q; /* a / q is exact (a power-of-two scale); rint rounds ties to even */
    if (r > maxv) {
        r = maxv;
    }
    if (r < ldexp(1.0, 1 - bias)) {
        return (uint8_t)(sign | (uint8_t)(r / ldexp(1.0, 1 - bias - mbits)));
    }
    frexp(r, &e);
    e -= 1;
    return (uint8_t)(sign | (uint8_t)((e + bias) << mbits) |
                     (uint8_t)(r / ldexp(1.0, e - mbits) - (double)(1 << mbits)));
}

/* Read element i of a buffer of type dtype (an sp_dtype_t) as a double. */
static inline SP_HOSTDEV double sp_dtype_get(int dtype, const void *buf, size_t i)
{
    switch (dtype) {
    case 0: /* SP_DTYPE_INT8 */
        return ((const int8_t *)buf)[i];
    case 1: /* SP_DTYPE_UINT8 */
        return ((const uint8_t *)buf)[i];
    case 2: /* SP_DTYPE_INT32 */
        return ((const int32_t *)buf)[i];
    case 3: /* SP_DTYPE_UINT32 */
        return ((const uint32_t *)buf)[i];
    case 4: /* SP_DTYPE_INT64 */
        return (double)((const int64_t *)buf)[i];
    case 5: /* SP_DTYPE_UINT64 */
        return (double)((const uint64_t *)buf)[i];
    case 6: /* SP_DTYPE_HALF */
        return sp_half_to_float(((const uint16_t *)buf)[i]);
    case 7: /* SP_DTYPE_FLOAT */
        return ((const float *)buf)[i];
    case 8: /* SP_DTYPE_DOUBLE */
        return ((const double *)buf)[i];
    case 9: /* SP_DTYPE_BFLOAT16 */
        return sp_bf16_to_float(((const uint16_t *)buf)[i]);
    case 10: /* SP_DTYPE_F8E4M3 */
        return sp_f8_to_double(SP_F8_E4M3, ((const uint8_t *)buf)[i]);
    case 11: /* SP_DTYPE_F8E5M2 */
        return sp_f8_to_double(SP_F8_E5M2, ((const uint8_t *)buf)[i]);
    default:
        return NAN;
    }
}

/* value truncated toward zero to a 64-bit integer (0 outside its range), whose low bits the
 * narrower integer types keep: they wrap as the device's integer arithmetic does (premulsum's
 * int8 product of 2 x -121 is 14), where a direct cast of an out-of-range double is undefined. */
static inline SP_HOSTDEV int64_t sp__dtype_trunc64(double value)
{
    return value > -9.2e18 && value < 9.2e18 ? (int64_t)value : 0;
}

/* Store value into element i, rounded to the type: nearest even for floating types, truncation
 * toward zero for integers (wrapping modulo the type's range). */
static inline SP_HOSTDEV void sp_dtype_set(int dtype, void *buf, size_t i, double value)
{
    switch (dtype) {
    case 0:
        ((int8_t *)buf)[i] = (int8_t)(uint8_t)sp__dtype_trunc64(value);
        break;
    case 1:
        ((uint8_t *)buf)[i] = (uint8_t)sp__dtype_trunc64(value);
        break;
    case 2:
        ((int32_t *)buf)[i] = (int32_t)(uint32_t)sp__dtype_trunc64(value);
        break;
    case 3:
        ((uint32_t *)buf)[i] = (uint32_t)sp__dtype_trunc64(value);
        break;
    case 4:
        ((int64_t *)buf)[i] = (int64_t)value;
        break;
    case 5:
        ((uint64_t *)buf)[i] = (uint64_t)value;
        break;
    case 6:
        ((uint16_t *)buf)[i] = sp_half_from_float((float)value);
        break;
    case 7:
        ((float *)buf)[i] = (float)value;
        break;
    case 8:
        ((double *)buf)[i] = value;
        break;
    case 9:
        ((uint16_t *)buf)[i] = sp_bf16_from_float((float)value);
        break;
    case 10:
        ((uint8_t *)buf)[i] = sp_f8_from_double(SP_F8_E4M3, value);
        break;
    case 11:
        ((uint8_t *)buf)[i] = sp_f8_from_double(SP_F8_E5M2, value);
        break;
    default:
        break;
    }
}

/* The value element access gives back after storing value: the type's rounding. */
static inline SP_HOSTDEV double sp_dtype_round(int dtype, double value)
{
    unsigned char tmp[8];

    sp_dtype_set(dtype, tmp, 0, value);
    return sp_dtype_get(dtype, tmp, 0);
}

/* avg's final step: the sum of nranks contributions divided by nranks, rounded to the type
 * (integer types, 0..5, truncate as NCCL does). */
static inline SP_HOSTDEV double sp_redop_avg_finish(int dtype, double sum, int nranks)
{
    if (dtype <= 5) {
        return trunc(sum / nranks);
    }
    return sp_dtype_round(dtype, sum / nranks);
}

#endif
