/* Data type table, element access and the half/bfloat16 conversions the host backend needs
 * (MPI has no native 16-bit floating types). */
#include "dtype.h"

#include <math.h>
#include <string.h>

typedef struct {
    size_t size;
    int is_integer;
    double exact_limit;
    int max_pow2;
} dtype_info_t;

/* Indexed by sp_dtype_t; names are in sp_dtype_names.
 * exact_limit: integers 0..L exact and no overflow. For 64-bit integers the limit is the double
 * mantissa, since values travel through doubles. max_pow2 is capped at 60: enough for any
 * product the verification builds. */
static const dtype_info_t dtype_table[SP_DTYPE_COUNT] = {
    [SP_DTYPE_INT8] = {1, 1, 127.0, 6},
    [SP_DTYPE_UINT8] = {1, 1, 255.0, 7},
    [SP_DTYPE_INT32] = {4, 1, 2147483647.0, 30},
    [SP_DTYPE_UINT32] = {4, 1, 4294967295.0, 31},
    [SP_DTYPE_INT64] = {8, 1, 9007199254740992.0, 52},
    [SP_DTYPE_UINT64] = {8, 1, 9007199254740992.0, 52},
    [SP_DTYPE_HALF] = {2, 0, 2048.0, 15},
    [SP_DTYPE_FLOAT] = {4, 0, 16777216.0, 60},
    [SP_DTYPE_DOUBLE] = {8, 0, 9007199254740992.0, 60},
    [SP_DTYPE_BFLOAT16] = {2, 0, 256.0, 60},
};

const char *const sp_dtype_names[SP_DTYPE_COUNT] = {
    "int8", "uint8", "int32", "uint32", "int64", "uint64", "half", "float", "double", "bfloat16",
};

const char *const sp_redop_names[SP_REDOP_COUNT] = {"sum", "prod", "max", "min", "avg"};

size_t sp_dtype_size(sp_dtype_t dtype)
{
    return dtype_table[dtype].size;
}

const char *sp_dtype_name(sp_dtype_t dtype)
{
    return (unsigned)dtype < SP_DTYPE_COUNT ? sp_dtype_names[dtype] : "?";
}

const char *sp_redop_name(sp_redop_t redop)
{
    return (unsigned)redop < SP_REDOP_COUNT ? sp_redop_names[redop] : "?";
}

int sp_dtype_from_name(const char *name)
{
    for (int i = 0; i < SP_DTYPE_COUNT; i++) {
        if (strcmp(name, sp_dtype_names[i]) == 0) {
            return i;
        }
    }
    return -1;
}

int sp_redop_from_name(const char *name)
{
    for (int i = 0; i < SP_REDOP_COUNT; i++) {
        if (strcmp(name, sp_redop_names[i]) == 0) {
            return i;
        }
    }
    return -1;
}

int sp_dtype_is_integer(sp_dtype_t dtype)
{
    return dtype_table[dtype].is_integer;
}

double sp_dtype_exact_limit(sp_dtype_t dtype)
{
    return dtype_table[dtype].exact_limit;
}

int sp_dtype_max_pow2(sp_dtype_t dtype)
{
    return dtype_table[dtype].max_pow2;
}

uint16_t sp_half_from_float(float f)
{
    uint32_t x;
    uint32_t sign;
    int32_t exp;
    uint32_t mant;

    memcpy(&x, &f, sizeof(x));
    sign = (x >> 16) & 0x8000u;
    exp = (int32_t)((x >> 23) & 0xff);
    mant = x & 0x7fffffu;
    if (exp == 0xff) { /* inf or NaN: keep NaN quiet and non-zero */
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

float sp_half_to_float(uint16_t h)
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

uint16_t sp_bf16_from_float(float f)
{
    uint32_t x;

    memcpy(&x, &f, sizeof(x));
    if ((x & 0x7fffffffu) > 0x7f800000u) {
        return (uint16_t)((x >> 16) | 0x40u); /* quiet NaN */
    }
    x += 0x7fffu + ((x >> 16) & 1u);
    return (uint16_t)(x >> 16);
}

float sp_bf16_to_float(uint16_t b)
{
    uint32_t x = (uint32_t)b << 16;
    float f;

    memcpy(&f, &x, sizeof(f));
    return f;
}

double sp_dtype_get(sp_dtype_t dtype, const void *buf, size_t i)
{
    switch (dtype) {
    case SP_DTYPE_INT8:
        return ((const int8_t *)buf)[i];
    case SP_DTYPE_UINT8:
        return ((const uint8_t *)buf)[i];
    case SP_DTYPE_INT32:
        return ((const int32_t *)buf)[i];
    case SP_DTYPE_UINT32:
        return ((const uint32_t *)buf)[i];
    case SP_DTYPE_INT64:
        return (double)((const int64_t *)buf)[i];
    case SP_DTYPE_UINT64:
        return (double)((const uint64_t *)buf)[i];
    case SP_DTYPE_HALF:
        return sp_half_to_float(((const uint16_t *)buf)[i]);
    case SP_DTYPE_FLOAT:
        return ((const float *)buf)[i];
    case SP_DTYPE_DOUBLE:
        return ((const double *)buf)[i];
    case SP_DTYPE_BFLOAT16:
        return sp_bf16_to_float(((const uint16_t *)buf)[i]);
    default:
        return NAN;
    }
}

void sp_dtype_set(sp_dtype_t dtype, void *buf, size_t i, double value)
{
    switch (dtype) {
    case SP_DTYPE_INT8:
        ((int8_t *)buf)[i] = (int8_t)value;
        break;
    case SP_DTYPE_UINT8:
        ((uint8_t *)buf)[i] = (uint8_t)value;
        break;
    case SP_DTYPE_INT32:
        ((int32_t *)buf)[i] = (int32_t)value;
        break;
    case SP_DTYPE_UINT32:
        ((uint32_t *)buf)[i] = (uint32_t)value;
        break;
    case SP_DTYPE_INT64:
        ((int64_t *)buf)[i] = (int64_t)value;
        break;
    case SP_DTYPE_UINT64:
        ((uint64_t *)buf)[i] = (uint64_t)value;
        break;
    case SP_DTYPE_HALF:
        ((uint16_t *)buf)[i] = sp_half_from_float((float)value);
        break;
    case SP_DTYPE_FLOAT:
        ((float *)buf)[i] = (float)value;
        break;
    case SP_DTYPE_DOUBLE:
        ((double *)buf)[i] = value;
        break;
    case SP_DTYPE_BFLOAT16:
        ((uint16_t *)buf)[i] = sp_bf16_from_float((float)value);
        break;
    default:
        break;
    }
}

double sp_dtype_round(sp_dtype_t dtype, double value)
{
    unsigned char tmp[8];

    sp_dtype_set(dtype, tmp, 0, value);
    return sp_dtype_get(dtype, tmp, 0);
}

double sp_redop_apply(sp_redop_t redop, double a, double b)
{
    switch (redop) {
    case SP_REDOP_PROD:
        return a * b;
    case SP_REDOP_MAX:
        return a > b ? a : b;
    case SP_REDOP_MIN:
        return a < b ? a : b;
    case SP_REDOP_SUM:
    case SP_REDOP_AVG:
    default:
        return a + b;
    }
}

double sp_redop_avg_finish(sp_dtype_t dtype, double sum, int nranks)
{
    if (sp_dtype_is_integer(dtype)) {
        return trunc(sum / nranks);
    }
    return sp_dtype_round(dtype, sum / nranks);
}
