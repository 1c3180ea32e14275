/* Unit tests of src/runtime/gemm_call.h, with a fake GEMM in place of cuBLAS or CBLAS: the
 * column-major call of a row-major product (dimensions, leading dimensions, batch strides) checked
 * by computing it; a model's whole plan issued call by call (counts, order, FLOPs, operand sizes);
 * the refusals; the precision of each model dtype. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gemm_call.h"
#include "gemm_plan.h"
#include "model.h"

/* A fake strided-batched GEMM: column major, no transpose, on float operands in ctx. */
typedef struct {
    const float *a, *b;
    float *c;
    int calls;
    double flops;
    sp_gemm_call_t seen[64];
    int fail_at; /* the call that answers SP_ERR_DEVICE; -1: none */
} fake_t;

static sp_status_t fake_gemm(void *ctx, const sp_gemm_call_t *c)
{
    fake_t *f = ctx;

    if (f->calls == f->fail_at) {
        return SP_ERR_DEVICE;
    }
    if (f->calls < 64) {
        f->seen[f->calls] = *c;
    }
    f->calls++;
    f->flops += sp_gemm_call_flops(c);
    for (int j = 0; f->c != NULL && j < c->batch; j++) {
        const float *a = f->a + j * c->stride_a, *b = f->b + j * c->stride_b;
        float *out = f->c + j * c->stride_c;
        for (int col = 0; col < c->n; col++) {
            for (int row = 0; row < c->m; row++) {
                float s = 0.0f;
                for (int p = 0; p < c->k; p++) {
                    s += a[row + p * c->lda] * b[p + col * c->ldb];
                }
                out[row + col * c->ldc] = s;
            }
        }
    }
    return SP_OK;
}

/* batch 3 of row-major [5 x 7] = [5 x 4] * [4 x 7]: the call is C^T [7 x 5] = B^T A^T */
static void test_mapping(void **state)
{
    sp_gemm_t g = {.m = 5, .n = 7, .k = 4, .batch = 3, .count = 1};
    sp_gemm_call_t c;

    (void)state;
    assert_int_equal(sp_gemm_call_of(&g, &c), SP_OK);
    assert_int_equal(c.m, 7);
    assert_int_equal(c.n, 5);
    assert_int_equal(c.k, 4);
    assert_int_equal(c.lda, 7); /* row-major B [4 x 7]: rows 7 apart */
    assert_int_equal(c.ldb, 4); /* row-major A [5 x 4] */
    assert_int_equal(c.ldc, 7); /* row-major C [5 x 7] */
    assert_int_equal(c.stride_a, 28);
    assert_int_equal(c.stride_b, 20);
    assert_int_equal(c.stride_c, 35);
    assert_int_equal(c.batch, 3);
    assert_true(sp_gemm_call_flops(&c) == 2.0 * 5 * 7 * 4 * 3);
    assert_true(sp_gemm_call_flops(&c) == sp_gemm_flops(&g));
}

/* The call, computed by the fake, gives the row-major product of every batch member: the
 * call's A is the product's B and its B the product's A. */
static void test_mapping_computes_the_product(void **state)
{
    enum { B = 3, M = 5, N = 7, K = 4 };
    sp_gemm_t g = {.m = M, .n = N, .k = K, .batch = B, .count = 1};
    float a[B * M * K], b[B * K * N], c[B * M * N];
    fake_t f = {.a = b, .b = a, .c = c, .fail_at = -1};

    (void)state;
    for (int i = 0; i < B * M * K; i++) {
        a[i] = (float)(i % 7) - 3.0f;
    }
    for (int i = 0; i < B * K * N; i++) {
        b[i] = (float)(i % 5) - 2.0f;
    }
    assert_int_equal(sp_gemm_list_issue(&g, 1, fake_gemm, &f), SP_OK);
    assert_int_equal(f.calls, 1);
    for (int j = 0; j < B; j++) {
        for (int r = 0; r < M; r++) {
            for (int col = 0; col < N; col++) {
                float want = 0.0f;
                for (int p = 0; p < K; p++) {
                    want += a[j * M * K + r * K + p] * b[j * K * N + p * N + col];
                }
                assert_true(c[j * M * N + r * N + col] == want);
            }
        }
    }
}

/* tiny on tp 2, every part twice: one call per GEMM and repetition, in the plan's order, the
 * FLOPs of the plan, every call within the operands sized for the plan's shapes */
static void test_plan_issued(void **state)
{
    sp_model_t m;
    sp_gemm_plan_t p;
    sp_gemm_t list[SP_PART_COUNT * SP_PART_MAX_GEMMS];
    size_t n = 0, elems[3];
    double want_flops = 0.0;
    fake_t f = {.fail_at = -1};
    int k = 0;

    (void)state;
    assert_int_equal(sp_model_preset("tiny", &m), SP_OK);
    assert_int_equal(sp_gemm_plan_build(&m, 2, &p), SP_OK);
    for (int part = 0; part < SP_PART_COUNT; part++) {
        for (int i = 0; i < p.n[part]; i++) {
            list[n] = p.gemm[part][i];
            list[n].count = 2;
            want_flops += sp_gemm_flops(&list[n++]);
        }
    }
    sp_gemm_operand_elems(list, n, elems);
    assert_int_equal(sp_gemm_list_issue(list, n, fake_gemm, &f), SP_OK);
    assert_int_equal(f.calls, 2 * (int)n);
    assert_true(fabs(f.flops - want_flops) <= 1e-9 * want_flops);
    for (size_t i = 0; i < n && 2 * i + 1 < 64; i++) {
        for (int rep = 0; rep < 2; rep++, k++) {
            const sp_gemm_call_t *c = &f.seen[k];
            assert_int_equal(c->m, list[i].n);
            assert_int_equal(c->n, list[i].m);
            assert_int_equal(c->k, list[i].k);
            assert_int_equal(c->batch, list[i].batch);
            assert_true((size_t)(c->batch * c->stride_a) <= elems[0]);
            assert_true((size_t)(c->batch * c->stride_b) <= elems[1]);
            assert_true((size_t)(c->batch * c->stride_c) <= elems[2]);
        }
    }
    /* the largest operands are those of the logits (V/tp = 2048 wide, T = 128): the forward's
     * B [256 x 2048] and C [128 x 2048], the weight gradient's C [256 x 2048] */
    assert_int_equal(elems[0], 256 * 2048);
    assert_int_equal(elems[2], 256 * 2048);
}

static void test_refusals(void **state)
{
    sp_gemm_t list[3] = {{.m = 2, .n = 2, .k = 2, .batch = 1, .count = 3},
                         {.m = (int64_t)INT_MAX + 1, .n = 2, .k = 2, .batch = 1, .count = 1},
                         {.m = 2, .n = 2, .k = 2, .batch = 1, .count = 1}};
    sp_gemm_t zero = {.m = 2, .n = 0, .k = 2, .batch = 1, .count = 1};
    sp_gemm_call_t c;
    fake_t f = {.fail_at = -1};

    (void)state;
    assert_int_equal(sp_gemm_call_of(&zero, &c), SP_ERR_INVALID);
    assert_int_equal(sp_gemm_call_of(&list[1], &c), SP_ERR_INVALID);
    /* the first entry's 3 calls, nothing of the second, nothing after it */
    assert_int_equal(sp_gemm_list_issue(list, 3, fake_gemm, &f), SP_ERR_INVALID);
    assert_int_equal(f.calls, 3);
    /* a failing call stops the list with its status */
    memset(&f, 0, sizeof(f));
    f.fail_at = 1;
    assert_int_equal(sp_gemm_list_issue(list, 1, fake_gemm, &f), SP_ERR_DEVICE);
    assert_int_equal(f.calls, 1);
}

static void test_precision(void **state)
{
    (void)state;
    assert_int_equal(sp_gemm_type_of(SP_DTYPE_BFLOAT16), SP_GEMM_BF16);
    assert_int_equal(sp_gemm_type_of(SP_DTYPE_HALF), SP_GEMM_F16);
    assert_int_equal(sp_gemm_type_of(SP_DTYPE_FLOAT), SP_GEMM_F32);
    assert_int_equal(sp_gemm_type_of(SP_DTYPE_DOUBLE), SP_GEMM_F32);
    assert_int_equal(sp_gemm_type_of(SP_DTYPE_F8E4M3), SP_GEMM_F32);
    assert_int_equal(sp_gemm_type_size(SP_GEMM_BF16), 2);
    assert_int_equal(sp_gemm_type_size(SP_GEMM_F16), 2);
    assert_int_equal(sp_gemm_type_size(SP_GEMM_F32), 4);
    assert_string_equal(sp_gemm_type_name(SP_GEMM_BF16), "bf16");
    assert_string_equal(sp_gemm_type_name(SP_GEMM_F16), "fp16");
    assert_string_equal(sp_gemm_type_name(SP_GEMM_F32), "fp32");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mapping),     cmocka_unit_test(test_mapping_computes_the_product),
        cmocka_unit_test(test_plan_issued), cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_precision),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
