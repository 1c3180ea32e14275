/* Unit tests of proxies/program.h against Megatron-LM's communication, counted by hand for three
 * layouts (bf16 model, 2 layers per chunk, b*s*h = 64 elements per TP collective, a layer's
 * parameters 1024 bytes = 512 elements on one TP rank, the embedding / output layer 512 bytes):
 *   A: 1F1B p=2 m=4, stage 0, tp 2 (all-reduce), DDP dp 2, one bucket for the whole chunk
 *   B: interleaved p=2 m=4 v=2, stage 1, tp 4 with sequence parallelism, FSDP dp 2
 *   C: ZB-H1 p=4 m=4, stage 3, tp 2 with sequence parallelism, DDP dp 2, 2048-byte buckets
 * and the gradient dtype: fp32 (Megatron's default with bf16) reduces twice bf16's bytes; the
 * step's closing all-reduces of the sequence-parallel parameters (TP) and of the tied embedding
 * (first and last stage); FSDP's gathers and reduce-scatters of the embedding and the output
 * layer (pp1 tied, pp2 untied, tp 2 and 4 vocab shards); FSDP's reduce-scatter after every
 * microbatch's backward, DDP's once per step; the distributed optimizer's buckets. */
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
        .overlap_param = 1,
        .layers_per_chunk = 2,
        .dtype = SP_DTYPE_BFLOAT16,
        .grad_dtype = grad,
        .flops_proj = 100,
        .flops_core = 50,
        .flops_mlp = 200,
        .flops_logits = 30,
        .flops_per_ns = 1.0,
        .tp_elements = 64,
        .tokens = 8,
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
 * elements; B (stage 1: virtual stages 1 and 3): per microbatch (Megatron-FSDP reduces after
 * every backward) a reduce-scatter of 512 elements per layer and chunk, 4, and the output
 * layer's 256 (FSDP reduces it too): 4 x 5 = 20, 4 x (4 x 512 + 256) = 9216 elements; C (last
 * stage): the output layer's 256 elements and layer 1's 512 fill a 2048-byte fp32 bucket (768
 * elements), layer 0's 512 the next. fp32: 4 bytes per element, bf16: 2. */
static void test_grad_dtype(void **state)
{
    static const struct {
        int layout;
        size_t n;
        uint64_t first, total;
    } want[] = {
        {LAYOUT_A, 1, 1280, 1280},
        {LAYOUT_B, 4 * 5, 0, 4 * (4 * 512 + 256)},
        {LAYOUT_C, 2, 768, 1280},
    };

    (void)state;
    for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
        uint64_t total[2] = {0, 0};
        for (int g = 0; g < 2; g++) {
            sp_dtype_t grad = g == 0 ? SP_DTYPE_FLOAT : SP_DTYPE_BFLOAT16;
            sp_program_config_t c = layout(want[k].layout, grad);
            sp_program_t pr;
            size_t seen = 0;
            uint64_t elements = 0;
            if (g == 1 && want[k].layout == LAYOUT_C) {
                c.bucket_bytes = 1024; /* the same buckets in bf16 */
            }
            build(&c, &pr);
            for (size_t i = 0; i < pr.n; i++) {
                const sp_task_t *t = &pr.tasks[i];
                if (t->lane == SP_LANE_DP) {
                    assert_int_equal(t->dtype, grad);
                    assert_int_equal(t->bytes, t->count * (g == 0 ? 4 : 2));
                    assert_true(seen > 0 || want[k].first == 0 || t->count == want[k].first);
                    elements += t->count;
                    total[g] += t->bytes;
                    seen++;
                } else if (t->kind == SP_TASK_COLL) {
                    /* TP and the FSDP gathers in the model's type, the cross-entropy's fp32 */
                    int ce = t->lane == SP_LANE_TP && t->count == c.tokens;
                    assert_int_equal(t->dtype, ce ? SP_DTYPE_FLOAT : SP_DTYPE_BFLOAT16);
                    assert_int_equal(t->bytes, t->count * (ce ? 4 : 2));
                }
            }
            assert_int_equal(seen, want[k].n);
            assert_int_equal(elements, want[k].total);
            sp_program_free(&pr);
        }
        assert_int_equal(total[0], 2 * total[1]);
    }
}

/* TP collectives outside the layers (layer -1), per step:
 * A (stage 0 = first virtual stage, no SP): the embedding's all-reduce in each F: 4.
 * B (stage 1 holds the last virtual stage, SP): per F the output layer's input all-gather and
 *   the cross-entropy's 3 fp32 all-reduces of b*s = 8; per B the re-gather for the wgrad and the
 *   reduce-scatter of the input gradient: AG 4 + 4, AR 12, RS 4.
 * C (ZB-H1 last stage, SP): F as B's; the split B the reduce-scatter, W the re-gather: AG 8 (4 in
 *   W), AR 12, RS 4.
 * D (p = 1, m = 2, tp 2, no SP: first and last): per F the embedding all-reduce and the 3
 *   cross-entropy all-reduces, per B the output layer's dgrad all-reduce: 4 of b*s*h, 6 of b*s.
 * E (as D with SP): per F the embedding's reduce-scatter, the output layer's all-gather, the 3
 *   cross-entropy all-reduces; per B the re-gather, the reduce-scatter, and the embedding's
 *   output-gradient all-gather: AG 2 + 2 + 2, RS 2 + 2, AR 6. */
static void test_tp_outside_layers(void **state)
{
    static const struct {
        int layout, p, m, sp;
        size_t ag, rs, ar_h, ar_tokens, ag_w;
    } want[] = {
        {LAYOUT_A, 2, 4, 0, 0, 0, 4, 0, 0},  {LAYOUT_B, 2, 4, 1, 8, 4, 0, 12, 0},
        {LAYOUT_C, 4, 4, 1, 8, 4, 0, 12, 4}, {LAYOUT_A, 1, 2, 0, 0, 0, 4, 6, 0},
        {LAYOUT_A, 1, 2, 1, 6, 4, 0, 6, 0},
    };

    (void)state;
    for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
        sp_program_config_t c = layout(want[k].layout, SP_DTYPE_FLOAT);
        sp_program_t pr;
        size_t ag = 0, rs = 0, ar_h = 0, ar_tokens = 0, ag_w = 0;
        c.p = want[k].p;
        c.m = want[k].m;
        c.sequence_parallel = want[k].sp;
        build(&c, &pr);
        for (size_t i = 0; i < pr.n; i++) {
            const sp_task_t *t = &pr.tasks[i];
            if (t->lane != SP_LANE_TP || t->layer >= 0) {
                continue;
            }
            ag += t->coll == SP_COLL_ALL_GATHER;
            ag_w += t->coll == SP_COLL_ALL_GATHER && t->sched_type == SP_SCHED_OP_W;
            rs += t->coll == SP_COLL_REDUCE_SCATTER;
            ar_h += t->coll == SP_COLL_ALL_REDUCE && t->count == c.tp_elements;
            ar_tokens += t->coll == SP_COLL_ALL_REDUCE && t->count == c.tokens &&
                         t->sched_type == SP_SCHED_OP_F && t->dtype == SP_DTYPE_FLOAT;
        }
        assert_int_equal(ag, want[k].ag);
        assert_int_equal(rs, want[k].rs);
        assert_int_equal(ar_h, want[k].ar_h);
        assert_int_equal(ar_tokens, want[k].ar_tokens);
        assert_int_equal(ag_w, want[k].ag_w);
        assert_int_equal(count(&pr, SP_LANE_TP, -1, -1, 0) - count(&pr, SP_LANE_TP, -1, -1, 1),
                         want[k].ag + want[k].rs + want[k].ar_h + want[k].ar_tokens);
        sp_program_free(&pr);
    }
}

/* Row r of a table run in both gradient types: fp32 for an even r, bf16 for an odd one. */
static sp_program_config_t both_types(int which, size_t r, sp_dtype_t *grad_p)
{
    *grad_p = r % 2 ? SP_DTYPE_BFLOAT16 : SP_DTYPE_FLOAT;
    return layout(which, *grad_p);
}

/* The step's closing all-reduce on lane (a collective of no schedule op): checks that there are
 * `want` of them (0 or 1) and that the one is the step's last task, of `elements` in grad, and
 * waits for the task before it in Megatron's order (the previous closing all-reduce, else the
 * last DP reduction; the layouts have dp 2). */
static void check_closing(const sp_program_t *pr, int lane, size_t want, uint64_t elements,
                          sp_dtype_t grad)
{
    size_t n = 0, at = 0;
    const sp_task_t *t;

    for (size_t i = 0; i < pr->n; i++) {
        t = &pr->tasks[i];
        if (t->lane == lane && t->kind == SP_TASK_COLL && t->sched_type == -1) {
            n++;
            at = i;
        }
    }
    assert_int_equal(n, want);
    if (want == 0) {
        return;
    }
    t = &pr->tasks[at];
    assert_int_equal(t->coll, SP_COLL_ALL_REDUCE);
    assert_int_equal(t->layer, -1);
    assert_int_equal(t->count, elements);
    assert_int_equal(t->dtype, grad);
    assert_int_equal(t->bytes, elements * (grad == SP_DTYPE_FLOAT ? 4 : 2));
    assert_int_equal(at, pr->n - 1); /* nothing else in the step after it */
    for (size_t i = at; i-- > 0;) {
        const sp_task_t *u = &pr->tasks[i];
        if (u->lane == SP_LANE_DP || u->lane == SP_LANE_DP_GATHER ||
            (u->lane == SP_LANE_TP && u->sched_type == -1)) {
            assert_true(t->deps[0] == (int32_t)i || t->deps[1] == (int32_t)i);
            return;
        }
    }
    fail_msg("no DP reduction before the closing all-reduce");
}

/* The step's last TP all-reduce of the sequence-parallel parameters' gradients (Megatron's
 * allreduce_layernorm_grads), counted by hand with h = 8: the GPT structure's 6h = 48 elements per
 * layer, its final norm 2h = 16 on the last virtual stage:
 *   A with SP (stage 0 of 2: 2 layers, not the last stage): 2 x 48 = 96
 *   B (interleaved, stage 1: chunks 1 and 3, 4 layers, holds the last virtual stage): 208
 *   C (ZB-H1, stage 3 of 4: 2 layers, the last): 2 x 48 + 16 = 112
 * one per step, in the gradient dtype, after every DP reduction of the step; none without SP or
 * with tp = 1. */
static void test_layernorm_grads(void **state)
{
    static const struct {
        int layout, sp, tp;
        uint64_t elements;
    } want[] = {
        {LAYOUT_A, 1, 2, 96}, {LAYOUT_B, 1, 4, 208}, {LAYOUT_C, 1, 2, 112},
        {LAYOUT_A, 0, 2, 0},  {LAYOUT_C, 1, 1, 0},
    };

    (void)state;
    for (size_t r = 0; r < 2 * sizeof(want) / sizeof(want[0]); r++) {
        size_t k = r / 2;
        sp_dtype_t grad;
        sp_program_config_t c = both_types(want[k].layout, r, &grad);
        sp_program_t pr;
        c.sequence_parallel = want[k].sp;
        c.tp = want[k].tp;
        c.sp_layer_params = 48;
        c.sp_final_params = 16;
        build(&c, &pr);
        check_closing(&pr, SP_LANE_TP, want[k].elements > 0, want[k].elements, grad);
        sp_program_free(&pr);
    }
}

/* Tied embeddings: the word-embedding gradient, vocab/tp x h = 512/2 x 8 = 2048 elements
 * (logits_param_bytes 4096 in bf16), all-reduced once per step over the embedding group on the
 * first and the last stage, in the gradient dtype (fp32: 8192 bytes, bf16: 4096), after the DP
 * reductions and (SP: B, C) the layernorm all-reduce; nothing on a stage between, with p = 1,
 * untied, or with ZB-V (both ends on stage 0). With FSDP, Megatron-FSDP all-reduces the rank's
 * DP shard (the gradient's _local_tensor): B (dp 2) 2048 / 2 = 1024; C as FSDP with dp 3:
 * ceil(2048 / 3) = 683, dp 4: 512. */
static void test_tied_embeddings(void **state)
{
    static const struct {
        int layout, p, v, stage, tied, group, fsdp_dp;
        sp_sched_kind_t kind;
        uint64_t elements;
    } want[] = {
        {LAYOUT_A, 2, 1, 0, 1, 1, 0, SP_SCHED_1F1B, 2048},
        {LAYOUT_A, 2, 1, 1, 1, 1, 0, SP_SCHED_1F1B, 2048},
        {LAYOUT_A, 2, 1, 0, 0, -1, 0, SP_SCHED_1F1B, 0},
        {LAYOUT_A, 1, 1, 0, 1, -1, 0, SP_SCHED_1F1B, 0},
        {LAYOUT_C, 4, 1, 0, 1, 1, 0, SP_SCHED_ZBH1, 2048},
        {LAYOUT_C, 4, 1, 1, 1, 0, 0, SP_SCHED_ZBH1, 0},
        {LAYOUT_C, 4, 1, 2, 1, 0, 0, SP_SCHED_ZBH1, 0},
        {LAYOUT_C, 4, 1, 3, 1, 1, 0, SP_SCHED_ZBH1, 2048},
        {LAYOUT_C, 4, 1, 0, 1, 1, 3, SP_SCHED_ZBH1, 683},
        {LAYOUT_C, 4, 1, 3, 1, 1, 4, SP_SCHED_ZBH1, 512},
        {LAYOUT_C, 4, 1, 2, 1, 0, 4, SP_SCHED_ZBH1, 0},
        {LAYOUT_B, 2, 2, 0, 1, 1, 0, SP_SCHED_INTERLEAVED, 1024},
        {LAYOUT_B, 2, 2, 1, 1, 1, 0, SP_SCHED_INTERLEAVED, 1024},
        {LAYOUT_A, 2, 2, 0, 1, -1, 0, SP_SCHED_ZBV, 0},
        {LAYOUT_A, 2, 2, 1, 1, -1, 0, SP_SCHED_ZBV, 0},
    };

    (void)state;
    for (size_t r = 0; r < 2 * sizeof(want) / sizeof(want[0]); r++) {
        size_t k = r / 2;
        sp_dtype_t grad;
        sp_program_config_t c = both_types(want[k].layout, r, &grad);
        sp_program_t pr;
        c.kind = want[k].kind;
        c.p = want[k].p;
        c.m = want[k].kind == SP_SCHED_ZBV ? 4 : c.m;
        c.v = want[k].v;
        c.stage = want[k].stage;
        c.tied_embeddings = want[k].tied;
        c.logits_param_bytes = 512 / 2 * 8 * 2;
        c.sp_layer_params = 48;
        if (want[k].fsdp_dp > 0) {
            c.dp_mode = SP_DP_FSDP;
            c.dp = want[k].fsdp_dp;
        }
        assert_int_equal(sp_program_embedding_group(&c, c.stage), want[k].group);
        assert_int_equal(sp_program_embedding_grad_elements(&c, c.stage), want[k].elements);
        build(&c, &pr);
        check_closing(&pr, SP_LANE_EMB, want[k].group == 1, want[k].elements, grad);
        if (c.sequence_parallel && want[k].group == 1) { /* right after the layernorm's */
            assert_int_equal(pr.tasks[pr.n - 2].lane, SP_LANE_TP);
            assert_int_equal(pr.tasks[pr.n - 2].sched_type, -1);
        }
        sp_program_free(&pr);
    }
}

/* Totals of the collectives on lane: tasks, elements, bytes. */
typedef struct {
    size_t n;
    uint64_t elements, bytes;
} lane_sum_t;

static lane_sum_t lane_sum(const sp_program_t *pr, int lane)
{
    lane_sum_t s = {0, 0, 0};

    for (size_t i = 0; i < pr->n; i++) {
        const sp_task_t *t = &pr->tasks[i];
        if (t->kind == SP_TASK_COLL && t->lane == lane) {
            s.n++;
            s.elements += t->count;
            s.bytes += t->bytes;
        }
    }
    return s;
}

/* FSDP's units outside the layers, per step, counted by hand (bf16 parameters: 2 bytes, fp32
 * gradient reductions: 4; a layer 1024 bytes = 512 elements per TP rank; 2 layers per stage; the
 * embedding / output layer vocab/tp x h elements, logits_param_bytes in bf16). Layer gathers: one
 * per layer in every F and B, m x 2 layers x 2; the embedding and the output layer: one gather
 * each per step (Megatron-FSDP keeps a module outside its layer units gathered), none in B;
 * reduce-scatters after every microbatch's backward (Megatron-FSDP, optim_grads_params): each
 * layer, the embedding, the output layer, m times per step.
 *   P1T (1F1B p 1, m 2, tp 2, tied, logits 512 B = 256 elements): the tied weight is one
 *     parameter: gathers 2 x 2 x 2 = 8 layers (8 x 512 = 4096 elements) + 1 (256) = 9, 4352
 *     elements, 8704 B; reduce-scatters per microbatch 2 x 512 + 256 = 1280 elements in 3,
 *     x m 2: 6, 2560 elements, 10240 B.
 *   P1U (as P1T, untied): gathers 8 + 2 = 10, 4096 + 512 = 4608 elements, 9216 B;
 *     reduce-scatters 4 per microbatch, 2 x 512 + 2 x 256 = 1536 elements; x 2: 8, 3072
 *     elements, 12288 B.
 *   P2U0 / P2U1 (1F1B p 2, m 4, tp 2, untied; stage 0 holds the embedding, stage 1 the output
 *     layer): gathers 4 x 2 x 2 = 16 layers (8192 elements) + 1 (256) = 17, 8448 elements,
 *     16896 B; reduce-scatters 3 per microbatch, 2 x 512 + 256 = 1280 elements; x m 4: 12,
 *     5120 elements, 20480 B. Tied (P2T1) the same:
 *     each end stage holds its own copy (the embedding group all-reduces their gradients).
 *   TP2 / TP4 (P2U1 with vocab 512, h 8: the vocab-parallel shard 512/tp x 8): tp 2: 2048
 *     elements (4096 B): gathers 8192 + 2048 = 10240 elements, 20480 B; reduce-scatters
 *     4 x 3 = 12, 4 x (2 x 512 + 2048) = 12288 elements, 49152 B. tp 4: 1024 elements: gathers
 *     9216 elements, 18432 B; reduce-scatters 12, 4 x 2048 = 8192 elements, 32768 B (the
 *     layers' 512 per TP rank held fixed). */
static void test_fsdp_ends(void **state)
{
    static const struct {
        int p, m, stage, tied, tp;
        uint64_t logits_bytes;
        size_t ag;
        uint64_t ag_elements, ag_bytes;
        size_t rs;
        uint64_t rs_elements, rs_bytes;
    } want[] = {
        {1, 2, 0, 1, 2, 512, 9, 4352, 8704, 6, 2560, 10240},      /* P1T */
        {1, 2, 0, 0, 2, 512, 10, 4608, 9216, 8, 3072, 12288},     /* P1U */
        {2, 4, 0, 0, 2, 512, 17, 8448, 16896, 12, 5120, 20480},   /* P2U0 */
        {2, 4, 1, 0, 2, 512, 17, 8448, 16896, 12, 5120, 20480},   /* P2U1 */
        {2, 4, 1, 1, 2, 512, 17, 8448, 16896, 12, 5120, 20480},   /* P2T1 */
        {2, 4, 1, 0, 2, 4096, 17, 10240, 20480, 12, 12288, 49152}, /* TP2 */
        {2, 4, 1, 0, 4, 2048, 17, 9216, 18432, 12, 8192, 32768},   /* TP4 */
    };

    (void)state;
    for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
        for (int overlap = 0; overlap <= 1; overlap++) {
            sp_program_config_t c = layout(LAYOUT_A, SP_DTYPE_FLOAT);
            sp_program_t pr;
            lane_sum_t ag, rs;
            c.p = want[k].p;
            c.m = want[k].m;
            c.stage = want[k].stage;
            c.tied_embeddings = want[k].tied;
            c.tp = want[k].tp;
            c.logits_param_bytes = want[k].logits_bytes;
            c.dp_mode = SP_DP_FSDP;
            c.overlap = c.overlap_param = overlap;
            build(&c, &pr);
            ag = lane_sum(&pr, SP_LANE_DP_GATHER);
            rs = lane_sum(&pr, SP_LANE_DP);
            assert_int_equal(ag.n, want[k].ag);
            assert_int_equal(ag.elements, want[k].ag_elements);
            assert_int_equal(ag.bytes, want[k].ag_bytes);
            assert_int_equal(rs.n, want[k].rs);
            assert_int_equal(rs.elements, want[k].rs_elements);
            assert_int_equal(rs.bytes, want[k].rs_bytes);
            assert_int_equal(count(&pr, SP_LANE_DP_GATHER, SP_COLL_ALL_GATHER, -1, 0), ag.n);
            assert_int_equal(count(&pr, SP_LANE_DP, SP_COLL_REDUCE_SCATTER, -1, 0), rs.n);
            /* the modules' gathers: layer -1, in the forward of microbatch 0, none in B */
            assert_int_equal(count(&pr, SP_LANE_DP_GATHER, -1, SP_SCHED_OP_F, 0) -
                                 count(&pr, SP_LANE_DP_GATHER, -1, SP_SCHED_OP_F, 1),
                             want[k].ag - (size_t)(want[k].m * 2 * 2));
            assert_int_equal(count(&pr, SP_LANE_DP_GATHER, -1, SP_SCHED_OP_B, 0),
                             (size_t)(want[k].m * 2));
            for (size_t i = 0; i < pr.n; i++) {
                const sp_task_t *t = &pr.tasks[i];
                if (t->lane == SP_LANE_DP_GATHER && t->layer < 0) {
                    assert_int_equal(t->microbatch, 0);
                    assert_int_equal(t->count * 2, want[k].logits_bytes);
                }
            }
            sp_program_free(&pr);
        }
    }
}

/* Where the modules' gathers sit (P1U, tp 2): the embedding's TP all-reduce of the first F
 * waits for the embedding's gather; the output layer's first compute waits for its gather,
 * which with overlap on is prefetched (it waits for a compute before the last layer's, as a
 * layer's gather does) and with overlap off is issued after the compute before it. */
static void test_fsdp_ends_order(void **state)
{
    (void)state;
    for (int overlap = 0; overlap <= 1; overlap++) {
        sp_program_config_t c = layout(LAYOUT_A, SP_DTYPE_FLOAT);
        sp_program_t pr;
        int32_t g[2] = {-1, -1}, last_layer_gather = -1, compute = -1;
        int emb_checked = 0, out_checked = 0;
        c.p = 1;
        c.m = 2;
        c.dp_mode = SP_DP_FSDP;
        c.overlap = c.overlap_param = overlap;
        build(&c, &pr);
        for (size_t i = 0; i < pr.n; i++) {
            const sp_task_t *t = &pr.tasks[i];
            if (t->lane == SP_LANE_DP_GATHER && t->layer < 0) {
                g[g[0] < 0 ? 0 : 1] = (int32_t)i;
                if (g[1] == (int32_t)i) {
                    assert_int_equal(t->ndeps, 1);
                    assert_true(overlap ? t->deps[0] < last_layer_gather
                                        : t->deps[0] == compute);
                }
            } else if (t->lane == SP_LANE_DP_GATHER) {
                last_layer_gather = (int32_t)i;
            } else if (t->lane == SP_LANE_TP && t->layer < 0 && g[0] >= 0 && !emb_checked) {
                int dep = 0;
                for (int d = 0; d < t->ndeps; d++) {
                    dep |= t->deps[d] == g[0];
                }
                assert_true(dep);
                emb_checked = 1;
            } else if (t->kind == SP_TASK_COMPUTE) {
                if (t->parts[SP_PART_LOGITS_FWD] > 0 && !out_checked) {
                    int dep = 0;
                    for (int d = 0; d < t->ndeps; d++) {
                        dep |= t->deps[d] == g[1];
                    }
                    assert_true(g[1] >= 0 && dep);
                    out_checked = 1;
                }
                compute = (int32_t)i;
            }
        }
        assert_true(emb_checked && out_checked);
        sp_program_free(&pr);
    }
}

/* DDP, tied on one stage (p 1, m 2, A's one bucket): the shared weight is one parameter, in the
 * bucket once: (2 x 1024 + 512) / 2 = 1280 elements; untied 1536. */
static void test_ddp_shared_weight(void **state)
{
    (void)state;
    for (int tied = 0; tied <= 1; tied++) {
        sp_program_config_t c = layout(LAYOUT_A, SP_DTYPE_FLOAT);
        sp_program_t pr;
        lane_sum_t dp;
        c.p = 1;
        c.m = 2;
        c.tied_embeddings = tied;
        build(&c, &pr);
        dp = lane_sum(&pr, SP_LANE_DP);
        assert_int_equal(dp.n, 1);
        assert_int_equal(dp.elements, tied ? 1280 : 1536);
        assert_int_equal(sp_program_shared_output_weight(&c), tied);
        sp_program_free(&pr);
    }
}

/* Megatron-FSDP (optim_grads_params) reduce-scatters after every microbatch's backward; DDP
 * once, on the last (no_sync before it). Per microbatch, by hand (A's sizes: a layer 512
 * elements, the embedding / output layer 256, fp32 gradients: 4 bytes; 2 layers per stage):
 *   pp1 m2 untied (1F1B p 1, stage 0 holds both ends): per microbatch 2 x 512 + 256 + 256 =
 *     1536 elements in 4 reduce-scatters, 6144 B; per step 2 x 4 = 8, 2 x 6144 = 12288 B.
 *   pp2 m4 stage 0 (the embedding): 2 x 512 + 256 = 1280 elements in 3, 5120 B per
 *     microbatch; per step 4 x 3 = 12, 4 x 5120 = 20480 B. Stage 1 (the output layer) the same.
 *   ZB-H1 pp2 m4 stage 1: the same 3 per microbatch, in the W ops (the weight gradients).
 * Each reduce-scatter follows the compute of its own op (same microbatch, a gradient op).
 * DDP with the same shapes: one bucket (A's unbounded bucket size), on microbatch m - 1:
 *   pp1 m2 1536 elements, pp2 m4 stage 0 1280. */
static void test_fsdp_rs_per_microbatch(void **state)
{
    static const struct {
        sp_sched_kind_t kind;
        int p, m, stage, fsdp;
        size_t per_mb;
        uint64_t per_mb_bytes;
    } want[] = {
        {SP_SCHED_1F1B, 1, 2, 0, 1, 4, 6144}, {SP_SCHED_1F1B, 2, 4, 0, 1, 3, 5120},
        {SP_SCHED_1F1B, 2, 4, 1, 1, 3, 5120}, {SP_SCHED_ZBH1, 2, 4, 1, 1, 3, 5120},
        {SP_SCHED_1F1B, 1, 2, 0, 0, 0, 0},    {SP_SCHED_1F1B, 2, 4, 0, 0, 0, 0},
    };

    (void)state;
    for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
        sp_program_config_t c = layout(LAYOUT_A, SP_DTYPE_FLOAT);
        sp_program_t pr;
        size_t n[4] = {0};
        uint64_t bytes[4] = {0};
        lane_sum_t dp;
        c.kind = want[k].kind;
        c.p = want[k].p;
        c.m = want[k].m;
        c.stage = want[k].stage;
        c.dp_mode = want[k].fsdp ? SP_DP_FSDP : SP_DP_DDP;
        build(&c, &pr);
        for (size_t i = 0; i < pr.n; i++) {
            const sp_task_t *t = &pr.tasks[i];
            if (t->lane != SP_LANE_DP) {
                continue;
            }
            assert_true(t->microbatch >= 0 && t->microbatch < c.m);
            assert_int_equal(t->coll, want[k].fsdp ? SP_COLL_REDUCE_SCATTER : SP_COLL_ALL_REDUCE);
            assert_int_equal(t->sched_type,
                             c.kind == SP_SCHED_ZBH1 ? SP_SCHED_OP_W : SP_SCHED_OP_B);
            assert_true(t->ndeps >= 1 && pr.tasks[t->deps[0]].kind == SP_TASK_COMPUTE &&
                        pr.tasks[t->deps[0]].microbatch == t->microbatch &&
                        pr.tasks[t->deps[0]].sched_op == t->sched_op);
            n[t->microbatch]++;
            bytes[t->microbatch] += t->bytes;
        }
        dp = lane_sum(&pr, SP_LANE_DP);
        if (want[k].fsdp) {
            for (int mb = 0; mb < c.m; mb++) {
                assert_int_equal(n[mb], want[k].per_mb);
                assert_int_equal(bytes[mb], want[k].per_mb_bytes);
            }
            assert_int_equal(dp.n, (size_t)c.m * want[k].per_mb);
            assert_int_equal(dp.bytes, (uint64_t)c.m * want[k].per_mb_bytes);
        } else {
            assert_int_equal(dp.n, 1);
            assert_int_equal(n[c.m - 1], 1);
            assert_int_equal(dp.elements, c.p == 1 ? 1536 : 1280);
        }
        sp_program_free(&pr);
    }
}

/* Megatron's distributed optimizer (DDP with --use-distributed-optimizer): each gradient bucket
 * reduce-scattered once per step (fp32: 4 B) and all-gathered as parameters (bf16: 2 B) before
 * its first forward; a bucket padded to a multiple of lcm(dp 2, 128) = 128 elements; the tied
 * weight of the embedding group a bucket of its own. A's sizes (layer 512 elements, 2 per
 * stage), the embedding / output layer 200 B = 100 elements, m 4, one step:
 *   pp1 tied, unbounded buckets: 2 x 512 + 100 = 1124 -> 9 x 128 = 1152 elements in 1 RS
 *     (4608 B) and 1 AG (2304 B); DDP without the flag: 1 all-reduce of 1124 (4496 B), no AG.
 *   pp1 tied, 2048 B buckets (512 fp32): layer 1 (512) fills bucket 0, layer 0 bucket 1, the
 *     embedding (100 -> 128) bucket 2: 3 RS, 512 + 512 + 128 = 1152 elements; 3 AG in forward
 *     order: buckets 2, 1, 0.
 *   pp2 tied, stage 0: layers 1024 (bucket 0), the shared embedding 100 -> 128 (bucket 1): 2 RS
 *     and 2 AG of 1152 elements, gathered 1 then 0; stage 1: the output layer 128 (bucket 0),
 *     the layers 1024 (bucket 1), gathered 1 then 0. Untied, stage 0: one bucket, 1124 -> 1152.
 * Overlap off: every gather before the first compute, in bucket order, and the reduce-scatters
 * after the last compute; with Megatron's --overlap-grad-reduce without --overlap-param-gather
 * (the last case: the third with the parameter gathers serialized) the gathers as with overlap
 * off, the reduce-scatters during the backward. */
static void test_dist_opt(void **state)
{
    static const struct {
        int p, stage, tied, dist, overlap;
        uint64_t bucket;
        size_t rs, ag;
        uint64_t elements;
        int32_t first; /* the bucket gathered first */
        int param_off; /* 1: overlap_grad_reduce on, overlap_param_gather off */
    } cases[] = {
        {1, 0, 1, 1, 1, 0, 1, 1, 1152, 0, 0},    {1, 0, 1, 0, 1, 0, 0, 0, 1124, -1, 0},
        {1, 0, 1, 1, 1, 2048, 3, 3, 1152, 2, 0}, {2, 0, 1, 1, 1, 0, 2, 2, 1152, 1, 0},
        {2, 1, 1, 1, 1, 0, 2, 2, 1152, 1, 0},    {2, 0, 0, 1, 1, 0, 1, 1, 1152, 0, 0},
        {2, 0, 1, 1, 0, 0, 2, 2, 1152, 0, 0},    {1, 0, 1, 1, 0, 2048, 3, 3, 1152, 0, 0},
        {1, 0, 1, 1, 1, 2048, 3, 3, 1152, 0, 1},
    };
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        sp_program_config_t c = layout(LAYOUT_A, SP_DTYPE_FLOAT);
        sp_program_t pr;
        lane_sum_t dp, ag;
        size_t first_compute = 0, last_compute = 0, last_ag = 0, first_rs = 0;
        int32_t first = -1;
        c.p = cases[i].p;
        c.stage = cases[i].stage;
        c.tied_embeddings = cases[i].tied;
        c.dist_opt = cases[i].dist;
        c.overlap = cases[i].overlap;
        c.overlap_param = cases[i].overlap && !cases[i].param_off;
        c.logits_param_bytes = 200;
        if (cases[i].bucket > 0) {
            c.bucket_bytes = cases[i].bucket;
        }
        build(&c, &pr);
        dp = lane_sum(&pr, SP_LANE_DP);
        ag = lane_sum(&pr, SP_LANE_DP_GATHER);
        assert_int_equal(count(&pr, SP_LANE_DP, SP_COLL_REDUCE_SCATTER, -1, 0), cases[i].rs);
        assert_int_equal(dp.n, cases[i].dist ? cases[i].rs : 1);
        assert_int_equal(dp.elements, cases[i].elements);
        assert_int_equal(dp.bytes, 4 * cases[i].elements);
        assert_int_equal(ag.n, cases[i].ag);
        assert_int_equal(ag.elements, cases[i].ag ? cases[i].elements : 0);
        assert_int_equal(ag.bytes, cases[i].ag ? 2 * cases[i].elements : 0);
        for (size_t k = pr.n; k > 0; k--) {
            const sp_task_t *t = &pr.tasks[k - 1];
            first_compute = t->kind == SP_TASK_COMPUTE ? k - 1 : first_compute;
            last_compute = t->kind == SP_TASK_COMPUTE && !last_compute ? k - 1 : last_compute;
            first_rs = t->lane == SP_LANE_DP ? k - 1 : first_rs;
            if (t->lane == SP_LANE_DP_GATHER) {
                first = t->bucket;
                last_ag = last_ag ? last_ag : k - 1;
            }
        }
        assert_int_equal(first, cases[i].first);
        if (!c.overlap_param) { /* the gathers before the first compute, in bucket order */
            assert_true(last_ag < first_compute);
        }
        /* bounded buckets at pp 1: the first reduced during the backward, or after it */
        if (cases[i].bucket > 0) {
            assert_true(c.overlap ? first_rs < last_compute : first_rs > last_compute);
        }
        sp_program_free(&pr);
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
        cmocka_unit_test(test_tp_outside_layers),
        cmocka_unit_test(test_layernorm_grads),
        cmocka_unit_test(test_tied_embeddings),
        cmocka_unit_test(test_fsdp_ends),
        cmocka_unit_test(test_fsdp_ends_order),
        cmocka_unit_test(test_ddp_shared_weight),
        cmocka_unit_test(test_fsdp_rs_per_microbatch),
        cmocka_unit_test(test_dist_opt),
        cmocka_unit_test(test_grad_dtype_invalid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
