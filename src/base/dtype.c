/* Data type table, element access and the half/bfloat16/fp8 conversions the host backend needs
 * (MPI has no native 16-bit or 8-bit floating types). */
#include "dtype.h"

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
    /* 3 and 2 mantissa bits: integers exact up to 16 and 8; largest powers of two 2^8 < 448
     * and 2^15 < 57344 */
    [SP_DTYPE_F8E4M3] = {1, 0, 16.0, 8},
    [SP_DTYPE_F8E5M2] = {1, 0, 8.0, 15},
};

const char *const sp_dtype_names[SP_DTYPE_COUNT] = {
    "int8", "uint8", "int32", "uint32", "int64", "uint64", "half", "float", "double", "bfloat16",
    "f8e4m3", "f8e5m2",
};

const char *const sp_redop_names[SP_REDOP_COUNT] = {"sum", "prod", "max", "min", "avg",
                                                     "mulsum"};

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

double sp_redop_premul_scalar(int rank)
{
    return rank % 2 == 0 ? 1.0 : 2.0;
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
    case SP_REDOP_PREMULSUM:
    default:
        return a + b;
    }
}
