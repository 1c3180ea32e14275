/* Element access, IEEE binary16 / bfloat16 conversions and avg's final division: inline, and
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
    default:
        return NAN;
    }
}

/* Store value into element i, rounded to the type: nearest even for floating types, truncation
 * toward zero for integers. */
static inline SP_HOSTDEV void sp_dtype_set(int dtype, void *buf, size_t i, double value)
{
    switch (dtype) {
    case 0:
        ((int8_t *)buf)[i] = (int8_t)value;
        break;
    case 1:
        ((uint8_t *)buf)[i] = (uint8_t)value;
        break;
    case 2:
        ((int32_t *)buf)[i] = (int32_t)value;
        break;
    case 3:
        ((uint32_t *)buf)[i] = (uint32_t)value;
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
