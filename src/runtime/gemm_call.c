/* GEMM compute lists as column-major strided-batched calls (gemm_call.h). */
#include "gemm_call.h"

#include <limits.h>

static const char *const type_names[SP_GEMM_TYPE_COUNT] = {"fp32", "fp16", "bf16"};

sp_gemm_type_t sp_gemm_type_of(sp_dtype_t model_dtype)
{
    switch (model_dtype) {
    case SP_DTYPE_HALF:
        return SP_GEMM_F16;
    case SP_DTYPE_BFLOAT16:
        return SP_GEMM_BF16;
    default:
        return SP_GEMM_F32;
    }
}

size_t sp_gemm_type_size(sp_gemm_type_t type)
{
    return type == SP_GEMM_F32 ? 4 : 2;
}

const char *sp_gemm_type_name(sp_gemm_type_t type)
{
    return type >= 0 && type < SP_GEMM_TYPE_COUNT ? type_names[type] : "?";
}

static int fits_int(int64_t x)
{
    return x >= 1 && x <= INT_MAX;
}

sp_status_t sp_gemm_call_of(const sp_gemm_t *g, sp_gemm_call_t *call_p)
{
    sp_gemm_call_t c;

    if (!(fits_int(g->m) && fits_int(g->n) && fits_int(g->k) && fits_int(g->batch))) {
        return SP_ERR_INVALID;
    }
    /* row-major C = A B is column-major C^T = B^T A^T: B's rows (n wide) are the first operand */
    c.m = (int)g->n;
    c.n = (int)g->m;
    c.k = (int)g->k;
    c.lda = (int)g->n;
    c.ldb = (int)g->k;
    c.ldc = (int)g->n;
    c.stride_a = g->k * g->n;
    c.stride_b = g->m * g->k;
    c.stride_c = g->m * g->n;
    c.batch = (int)g->batch;
    *call_p = c;
    return SP_OK;
}

double sp_gemm_call_flops(const sp_gemm_call_t *c)
{
    return 2.0 * c->m * (double)c->n * c->k * c->batch;
}

void sp_gemm_operand_elems(const sp_gemm_t *shapes, size_t n, size_t elems[3])
{
    elems[0] = elems[1] = elems[2] = 1;
    for (size_t i = 0; i < n; i++) {
        sp_gemm_call_t c;
        size_t need[3];
        if (sp_gemm_call_of(&shapes[i], &c) != SP_OK) {
            continue;
        }
        need[0] = (size_t)(c.batch * c.stride_a);
        need[1] = (size_t)(c.batch * c.stride_b);
        need[2] = (size_t)(c.batch * c.stride_c);
        for (int j = 0; j < 3; j++) {
            elems[j] = need[j] > elems[j] ? need[j] : elems[j];
        }
    }
}

sp_status_t sp_gemm_list_issue(const sp_gemm_t *list, size_t n, sp_gemm_call_fn fn, void *ctx)
{
    sp_status_t st = SP_OK;

    for (size_t i = 0; i < n && st == SP_OK; i++) {
        sp_gemm_call_t c;
        st = sp_gemm_call_of(&list[i], &c);
        for (int64_t rep = 0; st == SP_OK && rep < list[i].count; rep++) {
            st = fn(ctx, &c);
        }
    }
    return st;
}
