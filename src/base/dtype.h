/* Data types and reduction operators of a sweep, named as nccl-tests names them, with element
 * access through doubles (every value scaleprobe writes is exactly representable). */
#ifndef SP_DTYPE_H
#define SP_DTYPE_H

#include <stddef.h>
#include <stdint.h>

/* Same order as ncclDataType_t, so the nccl backend maps by a table. */
typedef enum {
    SP_DTYPE_INT8 = 0,
    SP_DTYPE_UINT8,
    SP_DTYPE_INT32,
    SP_DTYPE_UINT32,
    SP_DTYPE_INT64,
    SP_DTYPE_UINT64,
    SP_DTYPE_HALF,
    SP_DTYPE_FLOAT,
    SP_DTYPE_DOUBLE,
    SP_DTYPE_BFLOAT16,
    SP_DTYPE_F8E4M3, /* OCP FP8 E4M3 (ncclFloat8e4m3, NCCL >= 2.24) */
    SP_DTYPE_F8E5M2, /* OCP FP8 E5M2 (ncclFloat8e5m2) */
    SP_DTYPE_COUNT
} sp_dtype_t;

/* Same order as ncclRedOp_t; PREMULSUM is nccl-tests' "mulsum": a sum of inputs each first
 * multiplied by its rank's scalar (sp_redop_premul_scalar), an operator NCCL creates per
 * communicator (ncclRedOpCreatePreMulSum). */
typedef enum {
    SP_REDOP_SUM = 0,
    SP_REDOP_PROD,
    SP_REDOP_MAX,
    SP_REDOP_MIN,
    SP_REDOP_AVG,
    SP_REDOP_PREMULSUM,
    SP_REDOP_COUNT
} sp_redop_t;

/* Names as nccl-tests prints them, indexed by the enums. */
extern const char *const sp_dtype_names[SP_DTYPE_COUNT];
extern const char *const sp_redop_names[SP_REDOP_COUNT];

size_t sp_dtype_size(sp_dtype_t dtype);
const char *sp_dtype_name(sp_dtype_t dtype);
const char *sp_redop_name(sp_redop_t redop);

/* Look up by name; returns -1 when unknown. */
int sp_dtype_from_name(const char *name);
int sp_redop_from_name(const char *name);

/* The scalar rank r multiplies its input by under PREMULSUM: nccl-tests' choice, 1 on even
 * ranks and 2 on odd ones (a power of two, so the products stay exact in every type). */
double sp_redop_premul_scalar(int rank);

/* 1 for int/uint types. */
int sp_dtype_is_integer(sp_dtype_t dtype);

/* Largest integer L such that every integer in [0, L] is stored exactly and without overflow. */
double sp_dtype_exact_limit(sp_dtype_t dtype);

/* An exponent e such that 2^e is stored exactly and without overflow: the largest one for the
 * 8-, 16- and 32-bit integer types and half; 52 for 64-bit integers (values travel through
 * doubles) and 60 for the wider floating types (more than any product the patterns build). */
int sp_dtype_max_pow2(sp_dtype_t dtype);

/* Element access (sp_dtype_get/set/round), the half/bfloat16/fp8 conversions and avg's final
 * division are inline in dtype_conv.h, so CUDA kernels use the very same code. */
#include "dtype_conv.h"

/* Reduce two values of a reduction as the type would: used to define avg and for the host
 * backend's half/bfloat16/fp8 reductions. avg and premulsum combine like sum (premulsum's
 * scaling happens before); sp_redop_avg_finish divides. */
double sp_redop_apply(sp_redop_t redop, double a, double b);

#endif
