/* A GEMM compute list (backend.h, sp_gemm_t) as math-library calls: each row-major product
 * C[m x n] = A[m x k] * B[k x n] becomes one column-major strided-batched call (cuBLAS's and
 * CBLAS's column-major convention) computing C^T = B^T * A^T; the element types a model dtype
 * computes in; the operand sizes to allocate. Pure arithmetic, shared by the host and GPU GEMMs. */
#ifndef SP_GEMM_CALL_H
#define SP_GEMM_CALL_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "dtype.h"
#include "status.h"

/* Element types of A, B and C; the accumulation is fp32 for every one of them. */
typedef enum { SP_GEMM_F32 = 0, SP_GEMM_F16, SP_GEMM_BF16, SP_GEMM_TYPE_COUNT } sp_gemm_type_t;

/* The GEMM precision of a model dtype: half and bfloat16 as themselves, everything else fp32. */
sp_gemm_type_t sp_gemm_type_of(sp_dtype_t model_dtype);
size_t sp_gemm_type_size(sp_gemm_type_t type);
const char *sp_gemm_type_name(sp_gemm_type_t type); /* "fp32", "fp16", "bf16" */

/* One column-major, no-transpose, strided-batched call: for j < batch,
 * C_j [m x n] = A_j [m x k] * B_j [k x n], A_j at a + j * stride_a (elements), etc. Its A is the
 * row-major product's B operand and its B the product's A (C^T = B^T * A^T). */
typedef struct {
    int m, n, k;
    int lda, ldb, ldc;
    int64_t stride_a, stride_b, stride_c;
    int batch;
} sp_gemm_call_t;

/* The call of one entry (its count ignored). SP_ERR_INVALID (not logged) for a dimension below
 * 1 or one a 32-bit int cannot hold. */
sp_status_t sp_gemm_call_of(const sp_gemm_t *g, sp_gemm_call_t *call_p);

/* FLOPs of one call: 2mnk * batch. */
double sp_gemm_call_flops(const sp_gemm_call_t *c);

/* Elements each of A, B and C must hold for every call of shapes[0..n) (at least 1 each). */
void sp_gemm_operand_elems(const sp_gemm_t *shapes, size_t n, size_t elems[3]);

/* Issue list[0..n): fn(ctx, call) once per entry and repetition (count), in order; stops at the
 * first status that is not SP_OK and returns it. SP_ERR_INVALID for an entry sp_gemm_call_of
 * rejects (nothing of that entry issued). */
typedef sp_status_t (*sp_gemm_call_fn)(void *ctx, const sp_gemm_call_t *call);
sp_status_t sp_gemm_list_issue(const sp_gemm_t *list, size_t n, sp_gemm_call_fn fn, void *ctx);

#endif
