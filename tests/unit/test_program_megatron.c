/* Unit tests of proxies/program.h against Megatron-LM's communication, counted by hand for three
 * layouts (bf16 model, 2 layers per chunk, b*s*h = 64 elements per TP collective, a layer's
 * parameters 1024 bytes = 512 elements on one TP rank, the embedding / output layer 512 bytes):
 *   A: 1F1B p=2 m=4, stage 0, tp 2 (all-reduce), DDP dp 2, one bucket for the whole chunk
 *   B: interleaved p=2 m=4 v=2, stage 1, tp 4 with sequence parallelism, FSDP dp 2
 *   C: ZB-H1 p=4 m=4, stage 3, tp 2 with sequence parallelism, DDP dp 2, 2048-byte buckets
 * and the gradient dtype: fp32 (Megatron's default with bf16) reduces twice bf16's bytes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "program.h"

enum { LAYOUT_A, LAYOUT_B, LAYOUT_C };

static sp_program_config_t layout(int which, sp_dtype_t grad)
{
    sp_program_config_t c = {
        .kind = SP_SCHED_1F1B,
        .p = 2,
        .m = 4,
        .v = 1,
        .stage = 0,
        .tp = 2,
        .dp = 2,
        .dp_mode = SP_DP_DDP,
        .overlap = 1,
        .layers_per_chunk = 2,
        .dtype = SP_DTYPE_BFLOAT16,
        .grad_dtype = grad,
        .flops_proj = 100,
        .flops_core = 50,
        .flops_mlp = 200,
        .flops_logits = 30,
        .flops_per_ns = 1.0,
        .tp_elements = 64,
        .p2p_bytes = 256,
        .layer_param_bytes = 1024,
        .logits_param_bytes = 512,
        .bucket_bytes = UINT64_C(1) << 40,
    };
    if (which == LAYOUT_B) {
        c.kind = SP_SCHED_INTERLEAVED;
        c.v = 2;
        c.stage = 1;
        c.tp = 4;
        c.sequence_parallel = 1;
        c.dp_mode = SP_DP_FSDP;
    } else if (which == LAYOUT_C) {
        c.kind = SP_SCHED_ZBH1;
        c.p = 4;
        c.stage = 3;
        c.sequence_parallel = 1;
        c.bucket_bytes = 2048;
    }
    return c;
}

/* Collectives on lane (-1: any) of kind coll (-1: any) in ops of type (-1: any); layer_only:
 * only those of a transformer layer (layer >= 0). */
static size_t count(const sp_program_t *pr, int lane, int coll, int type, int layer_only)
{
    size_t n = 0;

    for (size_t i = 0; i < pr->n; i++) {
        const sp_task_t *t = &pr->tasks[i];
        n += t->kind == SP_TASK_COLL && (lane < 0 || t->lane == lane) &&
             (coll < 0 || t->coll == coll) && (type < 0 || t->sched_type == type) &&
             (!layer_only || t->layer >= 0);
    }
    return n;
}

static void build(const sp_program_config_t *c, sp_program_t *pr)
{
    assert_int_equal(sp_program_build(c, pr), SP_OK);
}

/* Per-layer TP collectives: A: 2 all-reduces per layer in F and 2 in B, m=4 x 2 layers: 16 + 16.
 * B (SP): per layer F 2 AG + 2 RS, B 4 AG + 2 RS; m=4 x v=2 x 2 layers = 16 layer passes: F 32
 * AG, 32 RS; B 64 AG, 32 RS. C (SP, split backward): 8 layer passes; F 16 AG + 16 RS; B 16 AG
 * (output gradient) + 16 RS; W 16 AG (the re-gathered inputs). */
static void test_tp_layers(void **state)
{
    sp_program_t pr;
    const int F = SP_SCHED_OP_F, B = SP_SCHED_OP_B, W = SP_SCHED_OP_W;
    const int AR = SP_COLL_ALL_REDUCE, AG = SP_COLL_ALL_GATHER, RS = SP_COLL_REDUCE_SCATTER;
    sp_program_config_t c;

    (void)state;
    c = layout(LAYOUT_A, SP_DTYPE_FLOAT);
    build(&c, &pr);
    assert_int_equal(count(&pr, SP_LANE_TP, AR, F, 1), 16);
    assert_int_equal(count(&pr, SP_LANE_TP, AR, B, 1), 16);
    assert_int_equal(count(&pr, SP_LANE_TP, -1, -1, 1), 32);
    sp_program_free(&pr);

    c = layout(LAYOUT_B, SP_DTYPE_FLOAT);
    build(&c, &pr);
    assert_int_equal(count(&pr, SP_LANE_TP, AG, F, 1), 32);
    assert_int_equal(count(&pr, SP_LANE_TP, RS, F, 1), 32);
    assert_int_equal(count(&pr, SP_LANE_TP, AG, B, 1), 64);
    assert_int_equal(count(&pr, SP_LANE_TP, RS, B, 1), 32);
    assert_int_equal(count(&pr, SP_LANE_TP, AR, -1, 1), 0);
    sp_program_free(&pr);

    c = layout(LAYOUT_C, SP_DTYPE_FLOAT);
    build(&c, &pr);
    assert_int_equal(count(&pr, SP_LANE_TP, AG, F, 1), 16);
    assert_int_equal(count(&pr, SP_LANE_TP, RS, F, 1), 16);
    assert_int_equal(count(&pr, SP_LANE_TP, AG, B, 1), 16);
    assert_int_equal(count(&pr, SP_LANE_TP, RS, B, 1), 16);
    assert_int_equal(count(&pr, SP_LANE_TP, AG, W, 1), 16);
    assert_int_equal(count(&pr, SP_LANE_TP, RS, W, 1), 0);
    sp_program_free(&pr);
}

/* The backward of a block under SP runs AG(output grad), AG(input), dgrad, RS, wgrad: the wgrad
 * compute waits for the re-gather, and the RS for the dgrad compute, not for the wgrad. */
static void test_sp_backward_order(void **state)
{
    sp_program_config_t c = layout(LAYOUT_B, SP_DTYPE_FLOAT);
    sp_program_t pr;
    size_t checked = 0;

    (void)state;
    build(&c, &pr);
    for (size_t i = 0; i + 4 < pr.n; i++) {
        const sp_task_t *t = &pr.tasks[i];
        if (t->sched_type == SP_SCHED_OP_B && t->lane == SP_LANE_TP &&
            t->coll == SP_COLL_ALL_GATHER && pr.tasks[i + 1].coll == SP_COLL_ALL_GATHER) {
            const sp_task_t *dgrad = &pr.tasks[i + 2], *rs = &pr.tasks[i + 3],
                            *wgrad = &pr.tasks[i + 4];
            assert_int_equal(dgrad->kind, SP_TASK_COMPUTE);
            assert_int_equal(rs->coll, SP_COLL_REDUCE_SCATTER);
            assert_int_equal(wgrad->kind, SP_TASK_COMPUTE);
            assert_int_equal(rs->ndeps, 1);
            assert_int_equal(rs->deps[0], (int32_t)(i + 2));
            assert_int_equal(wgrad->ndeps, 1);
            assert_int_equal(wgrad->deps[0], (int32_t)(i + 1));
            /* dgrad + wgrad = the block's backward, 2x forward */
            assert_true(dgrad->flops + wgrad->flops == 400.0 ||
                        dgrad->flops + wgrad->flops == 2 * 100.0 + 2 * 50.0);
            checked++;
        }
    }
    assert_int_equal(checked, 32); /* two blocks per backward layer pass */
    sp_program_free(&pr);
}

/* DP gradient bytes: A: one bucket, 2 layers + the input embedding = (2 x 1024 + 512) / 2 = 1280
 * elements; B (stage 1: virtual stages 1 and 3): a reduce-scatter of 512 elements per layer and
 * chunk, 4; C (last stage): the output layer's 256 elements and layer 1's 512 fill a 2048-byte
 * fp32 bucket (768 elements), layer 0's 512 the next. fp32: 4 bytes per element, bf16: 2. */
static void test_grad_dtype(void **state)
{
    static const struct {
        int layout;
        size_t n;
        uint64_t elements[2];
    } want[] = {
        {LAYOUT_A, 1, {1280, 0}},
        {LAYOUT_B, 4, {512, 512}},
        {LAYOUT_C, 2, {768, 512}},
    };

    (void)state;
    for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
        uint64_t total[2] = {0, 0};
        for (int g = 0; g < 2; g++) {
            sp_dtype_t grad = g == 0 ? SP_DTYPE_FLOAT : SP_DTYPE_BFLOAT16;
            sp_program_config_t c = layout(want[k].layout, grad);
            sp_program_t pr;
            size_t seen = 0;
            if (g == 1 && want[k].layout == LAYOUT_C) {
                c.bucket_bytes = 1024; /* the same buckets in bf16 */
            }
            build(&c, &pr);
            for (size_t i = 0; i < pr.n; i++) {
                const sp_task_t *t = &pr.tasks[i];
                if (t->lane == SP_LANE_DP) {
                    assert_int_equal(t->dtype, grad);
                    assert_int_equal(t->bytes, t->count * (g == 0 ? 4 : 2));
                    if (seen < 2) {
                        assert_int_equal(t->count, want[k].elements[seen]);
                    }
                    total[g] += t->bytes;
                    seen++;
                } else if (t->kind == SP_TASK_COLL) {
                    assert_int_equal(t->dtype, SP_DTYPE_BFLOAT16); /* TP, FSDP gathers */
                }
            }
            assert_int_equal(seen, want[k].n);
            sp_program_free(&pr);
        }
        assert_int_equal(total[0], 2 * total[1]);
    }
}

static void test_grad_dtype_invalid(void **state)
{
    sp_program_config_t c = layout(LAYOUT_A, SP_DTYPE_INT32);
    sp_program_t pr;

    (void)state;
    assert_int_equal(sp_program_build(&c, &pr), SP_ERR_INVALID);
    assert_null(pr.tasks);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tp_layers),
        cmocka_unit_test(test_sp_backward_order),
        cmocka_unit_test(test_grad_dtype),
        cmocka_unit_test(test_grad_dtype_invalid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
