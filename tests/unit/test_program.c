/* Unit tests of proxies/program.h: the task program of one pipeline stage checked against counts
 * worked out from the model (FLOPs, TP/DP collectives, pipeline messages), dependency order,
 * send/recv matching across stages, DDP buckets (with the distributed optimizer too, in the
 * grid), FSDP gathers, phases and argument checks. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "program.h"
#include "timeline.h"

#define MAX_P 4
#define FLOAT_BYTES 4     /* SP_DTYPE_FLOAT */
#define LAYER_FLOPS 350.0 /* 100 + 50 + 200: forward FLOPs of one layer and microbatch */

static sp_program_config_t cfg_make(sp_sched_kind_t kind, int p, int m, int v, int stage)
{
    return (sp_program_config_t){
        .kind = kind,
        .p = p,
        .m = m,
        .v = v,
        .stage = stage,
        .tp = 1,
        .dp = 1,
        .dp_mode = SP_DP_DDP,
        .overlap = 1,
        .overlap_param = 1,
        .layers_per_chunk = 2,
        .dtype = SP_DTYPE_FLOAT,
        .grad_dtype = SP_DTYPE_FLOAT,
        .flops_proj = 100,
        .flops_core = 50,
        .flops_mlp = 200,
        .flops_logits = 30,
        .flops_per_ns = 1.0,
        .tp_elements = 64,
        .tokens = 8,
        .p2p_bytes = 256,
        .layer_param_bytes = 1024,
        .bucket_bytes = 1024,
    };
}

/* Chunks per stage a kind takes in the grids: interleaved 2 or 3, ZB-V 2, the others 1. */
static int kind_v(int kind, int m)
{
    return kind == SP_SCHED_INTERLEAVED ? 2 + m % 2 : kind == SP_SCHED_ZBV ? 2 : 1;
}

static int is_pp_lane(int lane)
{
    return sp_lane_class(lane) == SP_LANE_CLASS_PP;
}

static int is_fwd_lane(int lane)
{
    return (lane >= SP_LANE_PP_FWD0 && lane <= SP_LANE_PP_FWD2) || lane == SP_LANE_PP_FWD3;
}

static void build(const sp_program_config_t *c, sp_program_t *prog)
{
    assert_int_equal(sp_program_build(c, prog), SP_OK);
    assert_non_null(prog->tasks);
    assert_true(prog->n > 0);
}

/* Tasks of kind `kind` on `lane` (-1: any) and, for COLL, of collective `coll` (-1: any). */
static size_t count_tasks(const sp_program_t *pr, int kind, int lane, int coll)
{
    size_t n = 0;

    for (size_t i = 0; i < pr->n; i++) {
        const sp_task_t *t = &pr->tasks[i];
        n += t->kind == kind && (lane < 0 || t->lane == lane) && (coll < 0 || t->coll == coll);
    }
    return n;
}

static int has_dep(const sp_task_t *t, int32_t dep)
{
    for (int d = 0; d < t->ndeps; d++) {
        if (t->deps[d] == dep) {
            return 1;
        }
    }
    return 0;
}

/* ---- per-program checks of the grid ---- */

static void check_deps(const sp_program_config_t *c, const sp_program_t *pr)
{
    int32_t last_compute = -1;

    for (size_t i = 0; i < pr->n; i++) {
        const sp_task_t *t = &pr->tasks[i];
        assert_in_range(t->ndeps, 0, SP_TASK_MAX_DEPS);
        for (int d = 0; d < t->ndeps; d++) {
            assert_true(t->deps[d] >= 0);
            assert_true((size_t)t->deps[d] < i); /* the list is a valid enqueue order */
        }
        if (t->kind == SP_TASK_COLL && t->lane == SP_LANE_TP && t->sched_type == SP_SCHED_OP_W &&
            t->ndeps == 0) {
            assert_int_equal(t->coll, SP_COLL_ALL_GATHER); /* W's re-gather: the lane orders it */
        } else if (t->kind == SP_TASK_COLL && !(t->lane == SP_LANE_DP_GATHER && c->overlap_param)) {
            /* a collective (other than a prefetched gather) waits for the compute before it;
             * the embedding's TP collective also for the FSDP gather of its weight */
            int extra = 0;
            /* the step's closing all-reduces wait for the reductions before them too */
            int closing = t->sched_type == -1 && t->lane != SP_LANE_DP;
            for (int d = 0; d < t->ndeps; d++) {
                const sp_task_t *u = &pr->tasks[t->deps[d]];
                if (closing && d > 0) {
                    assert_true(u->kind == SP_TASK_COLL && u->lane != SP_LANE_COMPUTE);
                    extra++;
                } else if (u->lane == SP_LANE_DP_GATHER && t->lane == SP_LANE_TP) {
                    assert_int_equal(u->layer, -1);
                    assert_int_equal(t->layer, -1);
                    assert_int_equal(t->chunk, u->chunk);
                    extra++;
                }
            }
            assert_int_equal(t->ndeps - extra, last_compute >= 0);
            assert_true(last_compute < 0 || t->deps[0] == last_compute);
        }
        if (t->kind == SP_TASK_COMPUTE) {
            assert_int_equal(t->lane, SP_LANE_COMPUTE);
            assert_int_equal(t->dur_ns, (uint64_t)llround(t->flops / c->flops_per_ns));
            last_compute = (int32_t)i;
        } else if (t->kind == SP_TASK_COLL) {
            assert_int_equal(t->bytes, t->count * FLOAT_BYTES);
        }
    }
}

/* Forward 1x, backward 2x (B + W for ZB-H1 and ZB-V): 3x per layer; the logits only on the
 * stage of the last virtual stage: p-1, but stage 0 with the V. */
static void check_flops(const sp_program_config_t *c, const sp_program_t *pr)
{
    double sum = 0.0, want = c->m * c->v * c->layers_per_chunk * 3 * LAYER_FLOPS;
    const int logits_stage = c->kind == SP_SCHED_ZBV ? 0 : c->p - 1;

    for (size_t i = 0; i < pr->n; i++) {
        sum += pr->tasks[i].kind == SP_TASK_COMPUTE ? pr->tasks[i].flops : 0.0;
    }
    want += c->stage == logits_stage ? c->m * 3 * 30.0 : 0.0;
    assert_int_equal(llround(sum), llround(want));
}

/* Two blocks per layer, each with one TP all-reduce in F and one in B (none in W): 4 per layer,
 * microbatch and chunk. With sequence parallelism (Megatron) F has an all-gather and a
 * reduce-scatter per block, the backward two all-gathers (output gradient, input re-gathered for
 * the weight gradient) and a reduce-scatter per block: 6 all-gathers and 4 reduce-scatters per
 * layer; a split backward's W holds the two re-gathers. */
static void check_tp(const sp_program_config_t *c, const sp_program_t *pr)
{
    size_t n = c->tp == 1 ? 0 : (size_t)(c->m * c->v * c->layers_per_chunk);
    int sp = c->sequence_parallel, zb = sp_schedule_splits_bw(c->kind);
    size_t in_w = 0;

    size_t per[SP_COLL_COUNT] = {0}, all = 0;

    for (size_t i = 0; i < pr->n; i++) {
        const sp_task_t *t = &pr->tasks[i];
        if (t->lane == SP_LANE_TP && t->layer >= 0) { /* the layers' (test_program_megatron: the rest) */
            per[t->coll]++;
            all++;
        }
    }
    assert_int_equal(per[SP_COLL_ALL_REDUCE], sp ? 0 : 4 * n);
    assert_int_equal(per[SP_COLL_ALL_GATHER], sp ? 6 * n : 0);
    assert_int_equal(per[SP_COLL_REDUCE_SCATTER], sp ? 4 * n : 0);
    assert_int_equal(all, sp ? 10 * n : 4 * n);
    for (size_t i = 0; i < pr->n; i++) {
        const sp_task_t *t = &pr->tasks[i];
        if (t->lane == SP_LANE_TP && t->layer >= 0) {
            assert_int_equal(t->count, c->tp_elements);
            in_w += t->sched_type == SP_SCHED_OP_W;
            if (t->sched_type == SP_SCHED_OP_W) {
                assert_int_equal(t->coll, SP_COLL_ALL_GATHER);
            }
        }
    }
    assert_int_equal(in_w, sp && zb ? 2 * n : 0);
}

/* Each chunk has an incoming and an outgoing edge per direction, except the first virtual
 * stage (no F input, no B output) and the last (no F output, no B input). With the V, stage 0
 * holds both ends and the turn on stage p-1 is no message: 4m messages each way on a middle
 * stage, 2m on the first and the last; chunk 0's forward goes to stage+1, chunk 1's to
 * stage-1. */
static void check_p2p_counts(const sp_program_config_t *c, const sp_program_t *pr)
{
    size_t m = (size_t)c->m, v = (size_t)c->v, n = 2 * m * v;
    const int zbv = c->kind == SP_SCHED_ZBV;

    if (c->p == 1) {
        n = 0;
    } else if (c->stage == 0 || c->stage == c->p - 1) {
        n -= zbv ? 2 * m : m;
    }
    assert_int_equal(count_tasks(pr, SP_TASK_SEND, -1, -1), n);
    assert_int_equal(count_tasks(pr, SP_TASK_RECV, -1, -1), n);
    for (int lane = 0; lane < SP_LANE_COUNT; lane++) {
        /* no PP lane of a stage both sends and receives */
        assert_false(count_tasks(pr, SP_TASK_SEND, lane, -1) > 0 &&
                     count_tasks(pr, SP_TASK_RECV, lane, -1) > 0);
    }
    for (size_t i = 0; i < pr->n; i++) {
        const sp_task_t *t = &pr->tasks[i];
        if (t->kind == SP_TASK_SEND || t->kind == SP_TASK_RECV) {
            assert_true(is_pp_lane(t->lane));
            assert_int_equal(is_fwd_lane(t->lane), t->sched_type == SP_SCHED_OP_F);
            assert_int_equal(t->bytes, c->p2p_bytes);
            assert_in_range(t->peer, 0, c->p - 1);
            assert_int_not_equal(t->peer, c->stage);
            /* the fourth colour only for the V's edges up the stages */
            assert_true(zbv || sp_lane_pp_colour(t->lane) < 3);
        }
        if (zbv && t->kind == SP_TASK_SEND && t->sched_type == SP_SCHED_OP_F) {
            assert_int_equal(t->peer, t->chunk == 0 ? c->stage + 1 : c->stage - 1);
        }
    }
}

static void test_grid(void **state)
{
    static const struct {
        int tp, sp;
    } tpv[] = {{1, 0}, {2, 0}, {2, 1}, {4, 0}, {4, 1}};
    static const struct {
        int dp, mode, overlap, dist; /* dist: --use-distributed-optimizer */
    } dpv[] = {{1, SP_DP_DDP, 1, 0},  {2, SP_DP_DDP, 1, 0},  {2, SP_DP_DDP, 0, 0},
               {2, SP_DP_FSDP, 1, 0}, {2, SP_DP_FSDP, 0, 0}, {2, SP_DP_DDP, 1, 1},
               {2, SP_DP_DDP, 0, 1}};
    size_t built = 0;

    (void)state;
    for (int kind = 0; kind < SP_SCHED_COUNT; kind++) {
        for (int p = 1; p <= MAX_P; p++) {
            for (int m = 1; m <= 8; m++) {
                int il = kind == SP_SCHED_INTERLEAVED;
                if (il && (p < 2 || m % p != 0)) {
                    continue;
                }
                for (size_t ti = 0; ti < 5; ti++) {
                    for (size_t di = 0; di < sizeof(dpv) / sizeof(dpv[0]); di++) {
                        for (int stage = 0; stage < p; stage++) {
                            sp_program_config_t c = cfg_make(kind, p, m, kind_v(kind, m), stage);
                            sp_program_t pr;
                            c.tp = tpv[ti].tp;
                            c.sequence_parallel = tpv[ti].sp;
                            c.dp = dpv[di].dp;
                            c.dp_mode = dpv[di].mode;
                            c.overlap = c.overlap_param = dpv[di].overlap;
                            c.dist_opt = dpv[di].dist;
                            c.layers_per_chunk = 1 + (m + stage) % 3;
                            c.flops_per_ns = 0.7; /* durations need rounding */
                            /* the vocabulary's parameters (FSDP gathers them), tied or not */
                            c.logits_param_bytes = m % 2 ? 512 : 0;
                            c.tied_embeddings = (m / 2) % 2;
                            build(&c, &pr);
                            check_deps(&c, &pr);
                            check_flops(&c, &pr);
                            check_tp(&c, &pr);
                            check_p2p_counts(&c, &pr);
                            sp_program_free(&pr);
                            assert_null(pr.tasks);
                            built++;
                        }
                    }
                }
            }
        }
    }
    assert_true(built > 5000);
}

/* ---- pipeline messages across stages ---- */

static int is_msg(const sp_task_t *t, int kind, int peer, int lane)
{
    return t->kind == kind && t->peer == peer && t->lane == lane;
}

/* Every lane is a stream on its own communicator (the same lane on every rank), so the sends
 * from s to r on a lane must be the receives of r from s on that lane, in the same order. */
static void check_pairs(int p, const sp_program_t *prog)
{
    for (int s = 0; s < p; s++) {
        for (int r = 0; r < p; r++) {
            for (int lane = 0; lane < SP_LANE_COUNT; lane++) {
                const sp_program_t *ps = &prog[s], *pr = &prog[r];
                size_t j = 0;
                for (size_t i = 0; i < ps->n; i++) {
                    const sp_task_t *snd = &ps->tasks[i];
                    if (!is_msg(snd, SP_TASK_SEND, r, lane)) {
                        continue;
                    }
                    while (j < pr->n && !is_msg(&pr->tasks[j], SP_TASK_RECV, s, lane)) {
                        j++;
                    }
                    assert_true(j < pr->n); /* a receive for every send */
                    assert_int_equal(pr->tasks[j].tag, snd->tag);
                    assert_int_equal(pr->tasks[j].bytes, snd->bytes);
                    assert_int_equal(pr->tasks[j].microbatch, snd->microbatch);
                    assert_int_equal(pr->tasks[j].sched_type, snd->sched_type);
                    j++;
                }
                for (; j < pr->n; j++) { /* and no receive left over */
                    assert_false(is_msg(&pr->tasks[j], SP_TASK_RECV, s, lane));
                }
            }
        }
    }
}

static void test_p2p_matching(void **state)
{
    sp_program_t prog[MAX_P];

    (void)state;
    for (int kind = 0; kind < SP_SCHED_COUNT; kind++) {
        for (int p = 2; p <= MAX_P; p++) {
            for (int m = 1; m <= 8; m++) {
                int il = kind == SP_SCHED_INTERLEAVED;
                if (il && m % p != 0) {
                    continue;
                }
                for (int s = 0; s < p; s++) {
                    sp_program_config_t c = cfg_make(kind, p, m, kind_v(kind, m), s);
                    c.tp = 2;
                    build(&c, &prog[s]);
                }
                check_pairs(p, prog);
                for (int s = 0; s < p; s++) {
                    sp_program_free(&prog[s]);
                }
            }
        }
    }
}

/* ---- ordering inside an op: happens-before = deps plus program order on each lane ---- */

static int happens_before(const sp_program_t *pr, size_t a, size_t b, char *seen, size_t *stack)
{
    size_t top = 0;

    memset(seen, 0, pr->n);
    stack[top++] = b;
    while (top > 0) {
        size_t x = stack[--top];
        const sp_task_t *t = &pr->tasks[x];
        if (x == a) {
            return 1;
        }
        for (int d = 0; d < t->ndeps; d++) {
            if (!seen[t->deps[d]]) {
                seen[t->deps[d]] = 1;
                stack[top++] = (size_t)t->deps[d];
            }
        }
        for (size_t y = x; y-- > 0;) { /* the previous task on the same stream */
            if (pr->tasks[y].lane == t->lane) {
                if (!seen[y]) {
                    seen[y] = 1;
                    stack[top++] = y;
                }
                break;
            }
        }
    }
    return 0;
}

/* A send carries the op's output, so it must follow all of the op's compute and TP collectives
 * (a block's output exists only after its all-reduce or reduce-scatter); the op's compute must
 * follow its receive. */
static void test_op_boundaries(void **state)
{
    (void)state;
    for (int kind = 0; kind < SP_SCHED_COUNT; kind++) {
        for (int tpv = 0; tpv < 3; tpv++) { /* tp 1, tp 2, tp 2 with sequence parallelism */
            for (int stage = 0; stage < 2; stage++) {
                sp_program_config_t c = cfg_make(kind, 2, 2, kind_v(kind, 2), stage);
                sp_program_t pr;
                c.tp = tpv == 0 ? 1 : 2;
                c.sequence_parallel = tpv == 2;
                build(&c, &pr);
                char *seen = malloc(pr.n);
                size_t *stack = malloc(pr.n * sizeof(*stack));
                assert_non_null(seen);
                assert_non_null(stack);
                for (size_t i = 0; i < pr.n; i++) {
                    const sp_task_t *x = &pr.tasks[i];
                    for (size_t j = 0; j < pr.n; j++) {
                        const sp_task_t *y = &pr.tasks[j];
                        if (y->sched_op != x->sched_op) {
                            continue;
                        }
                        if (x->kind == SP_TASK_SEND && j < i &&
                            (y->kind == SP_TASK_COMPUTE || y->lane == SP_LANE_TP)) {
                            assert_true(happens_before(&pr, j, i, seen, stack));
                        }
                        if (x->kind == SP_TASK_RECV && y->kind == SP_TASK_COMPUTE) {
                            assert_true(happens_before(&pr, i, j, seen, stack));
                        }
                    }
                }
                free(stack);
                free(seen);
                sp_program_free(&pr);
            }
        }
    }
}

/* ---- data parallelism: tp 2, dp 2, 3 layers per chunk ---- */

static const struct {
    sp_sched_kind_t kind;
    int p, m, v;
} shapes[] = {
    {SP_SCHED_GPIPE, 1, 2, 1},       {SP_SCHED_1F1B, 3, 4, 1},        {SP_SCHED_ZBH1, 4, 5, 1},
    {SP_SCHED_INTERLEAVED, 2, 4, 2}, {SP_SCHED_INTERLEAVED, 3, 3, 3}, {SP_SCHED_ZBV, 3, 4, 2},
};
#define N_SHAPES (sizeof(shapes) / sizeof(shapes[0]))

static sp_program_config_t dp_cfg(size_t k, int stage, int mode, int overlap)
{
    sp_program_config_t c = cfg_make(shapes[k].kind, shapes[k].p, shapes[k].m, shapes[k].v, stage);
    c.tp = 2;
    c.dp = 2;
    c.dp_mode = mode;
    c.overlap = c.overlap_param = overlap;
    c.layers_per_chunk = 3;
    return c;
}

static size_t last_compute_index(const sp_program_t *pr)
{
    size_t last = 0;

    for (size_t i = 0; i < pr->n; i++) {
        last = pr->tasks[i].kind == SP_TASK_COMPUTE ? i : last;
    }
    return last;
}

/* bucket_bytes == one layer's parameters: one bucket per layer of each chunk */
static void test_ddp_buckets(void **state)
{
    (void)state;
    for (size_t k = 0; k < N_SHAPES; k++) {
        int grad_type = sp_schedule_splits_bw(shapes[k].kind) ? SP_SCHED_OP_W : SP_SCHED_OP_B;
        size_t want = (size_t)(3 * shapes[k].v);
        for (int stage = 0; stage < shapes[k].p; stage++) {
            sp_program_config_t on = dp_cfg(k, stage, SP_DP_DDP, 1);
            sp_program_config_t off = dp_cfg(k, stage, SP_DP_DDP, 0);
            sp_program_t pon, poff;
            size_t first = 0, seen = 0, j = 0;
            build(&on, &pon);
            build(&off, &poff);

            assert_int_equal(count_tasks(&pon, SP_TASK_COLL, SP_LANE_DP, SP_COLL_ALL_REDUCE), want);
            assert_int_equal(count_tasks(&pon, SP_TASK_COLL, SP_LANE_DP, -1), want);
            assert_int_equal(count_tasks(&pon, SP_TASK_COLL, SP_LANE_DP_GATHER, -1), 0);
            for (size_t i = 0; i < pon.n; i++) {
                const sp_task_t *t = &pon.tasks[i];
                if (t->lane == SP_LANE_DP) {
                    first = seen++ == 0 ? i : first;
                    assert_int_equal(t->count * FLOAT_BYTES, 1024);
                    /* the last microbatch's gradient op fills the buckets (no_sync before) */
                    assert_int_equal(t->microbatch, shapes[k].m - 1);
                    assert_int_equal(t->sched_type, grad_type);
                    assert_true(t->ndeps >= 1);
                    assert_int_equal(pon.tasks[t->deps[0]].kind, SP_TASK_COMPUTE);
                    assert_int_equal(pon.tasks[t->deps[0]].sched_type, grad_type);
                }
            }
            /* overlapped: backward compute goes on after the first bucket is issued */
            assert_true(last_compute_index(&pon) > first);

            /* not overlapped: the same buckets in the same order, all after the last compute */
            assert_int_equal(count_tasks(&poff, SP_TASK_COLL, SP_LANE_DP, SP_COLL_ALL_REDUCE),
                             want);
            for (size_t i = 0; i < poff.n; i++) {
                const sp_task_t *t = &poff.tasks[i];
                if (t->lane == SP_LANE_DP) {
                    assert_true(i > last_compute_index(&poff));
                    assert_int_equal(t->phase, SP_PHASE_COOLDOWN);
                    while (pon.tasks[j].lane != SP_LANE_DP) {
                        j++;
                    }
                    assert_int_equal(t->count, pon.tasks[j].count);
                    assert_int_equal(t->chunk, pon.tasks[j].chunk);
                    assert_int_equal(t->bucket, pon.tasks[j].bucket);
                    j++;
                }
            }
            sp_program_free(&pon);
            sp_program_free(&poff);
        }
    }
}

/* A bucket larger than a chunk: one per chunk with all its layers, plus the output layer on the
 * last virtual stage and the input embedding on the first. */
static void test_ddp_big_bucket(void **state)
{
    (void)state;
    for (size_t k = 0; k < N_SHAPES; k++) {
        int p = shapes[k].p, v = shapes[k].v;
        for (int stage = 0; stage < p; stage++) {
            for (uint64_t logits = 0; logits <= 512; logits += 512) {
                sp_program_config_t c = dp_cfg(k, stage, SP_DP_DDP, stage % 2);
                sp_program_t pr;
                int chunk_seen[4] = {0};
                c.bucket_bytes = UINT64_C(1) << 40;
                c.logits_param_bytes = logits;
                build(&c, &pr);
                assert_int_equal(count_tasks(&pr, SP_TASK_COLL, SP_LANE_DP, -1), (size_t)v);
                for (size_t i = 0; i < pr.n; i++) {
                    const sp_task_t *t = &pr.tasks[i];
                    if (t->lane == SP_LANE_DP) {
                        int vs = sp_schedule_vstage(c.kind, p, v, stage, t->chunk);
                        uint64_t ends = (uint64_t)(vs == 0) + (uint64_t)(vs == p * v - 1);
                        assert_int_equal(t->count * FLOAT_BYTES, 3 * 1024 + logits * ends);
                        assert_in_range(t->chunk, 0, v - 1);
                        chunk_seen[t->chunk]++;
                    }
                }
                for (int ch = 0; ch < v; ch++) {
                    assert_int_equal(chunk_seen[ch], 1);
                }
                sp_program_free(&pr);
            }
        }
    }
}

/* FSDP's order: grad, Megatron's overlap_grad_reduce (the next compute does not wait for a
 * reduce-scatter); param, its overlap_param_gather (a gather is prefetched) */
static void check_fsdp_order(const sp_program_t *pr, int grad, int param, int m)
{
    int32_t gather = -1, rs = -1, compute = -1;
    size_t per_mb[16] = {0}, total = 0;

    for (size_t i = 0; i < pr->n; i++) {
        const sp_task_t *t = &pr->tasks[i];
        if (t->kind == SP_TASK_COMPUTE) {
            if (gather > compute) {
                assert_true(has_dep(t, gather)); /* a layer computes once it is gathered */
            }
            if (rs > compute) {
                assert_int_equal(has_dep(t, rs), !grad); /* waits for it only if serialized */
            }
            compute = (int32_t)i;
        } else if (t->lane == SP_LANE_DP_GATHER) {
            assert_int_equal(t->count * FLOAT_BYTES, 1024);
            assert_int_not_equal(t->sched_type, SP_SCHED_OP_W);
            if (!param && compute >= 0) { /* issued when needed: after the compute before it */
                assert_int_equal(t->ndeps, 1);
                assert_int_equal(t->deps[0], compute);
            } else if (param && gather >= 0 && t->ndeps > 0) {
                assert_true(t->deps[0] < gather); /* prefetched: before the previous gather */
            }
            gather = (int32_t)i;
        } else if (t->lane == SP_LANE_DP) {
            assert_int_equal(t->count * FLOAT_BYTES, 1024);
            assert_true(t->microbatch >= 0 && t->microbatch < m && m <= 16);
            assert_int_not_equal(t->sched_type, SP_SCHED_OP_F); /* after a gradient op */
            assert_true(t->layer >= 0);
            per_mb[t->microbatch]++;
            total++;
            rs = (int32_t)i;
        }
    }
    for (int mb = 0; mb < m; mb++) { /* every microbatch reduces as many as the others */
        assert_int_equal(per_mb[mb] * (size_t)m, total);
    }
}

static void test_fsdp(void **state)
{
    (void)state;
    for (size_t k = 0; k < N_SHAPES; k++) {
        /* a gather per layer in every F and B (not W); a reduce-scatter per layer, chunk and
         * microbatch (Megatron-FSDP reduces after every backward) */
        size_t gathers = (size_t)(2 * shapes[k].m * shapes[k].v * 3),
               rs = (size_t)(3 * shapes[k].v * shapes[k].m);
        for (int stage = 0; stage < shapes[k].p; stage++) {
            for (int overlap = 0; overlap <= 3; overlap++) { /* bit 0: grad, bit 1: param */
                sp_program_config_t c = dp_cfg(k, stage, SP_DP_FSDP, overlap & 1);
                sp_program_t pr;
                c.overlap_param = overlap >> 1;
                build(&c, &pr);
                assert_int_equal(
                    count_tasks(&pr, SP_TASK_COLL, SP_LANE_DP_GATHER, SP_COLL_ALL_GATHER), gathers);
                assert_int_equal(count_tasks(&pr, SP_TASK_COLL, SP_LANE_DP_GATHER, -1), gathers);
                assert_int_equal(count_tasks(&pr, SP_TASK_COLL, SP_LANE_DP, SP_COLL_REDUCE_SCATTER),
                                 rs);
                assert_int_equal(count_tasks(&pr, SP_TASK_COLL, SP_LANE_DP, -1), rs);
                check_fsdp_order(&pr, overlap & 1, overlap >> 1, shapes[k].m);
                sp_program_free(&pr);
            }
        }
    }
}

/* ---- phases ---- */

static void test_phases_1f1b(void **state)
{
    /* p=4 m=8 stage 0: F0 F1 F2 F3 B0 F4 B1 F5 B2 F6 B3 F7 B4 B5 B6 B7. Warm-up is "up to and
     * including the first backward" (ops 0..4), cool-down "after the last forward" (12..15). */
    static const int8_t want[16] = {0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2};
    sp_program_config_t c = cfg_make(SP_SCHED_1F1B, 4, 8, 1, 0);
    sp_program_t pr;
    size_t nc = 0, idx[64];

    (void)state;
    build(&c, &pr);
    assert_int_equal(pr.n_sched_ops, 16);
    assert_int_equal(pr.sched[3].type, SP_SCHED_OP_F);
    assert_int_equal(pr.sched[4].type, SP_SCHED_OP_B);
    assert_int_equal(pr.sched[11].type, SP_SCHED_OP_F);
    assert_int_equal(pr.sched[12].type, SP_SCHED_OP_B);
    for (size_t i = 0; i < pr.n; i++) {
        const sp_task_t *t = &pr.tasks[i];
        assert_in_range(t->sched_op, 0, 15);
        assert_int_equal(t->phase, want[t->sched_op]);
        assert_int_equal(t->sched_type, pr.sched[t->sched_op].type);
        if (t->kind == SP_TASK_COMPUTE && nc < 64) {
            idx[nc++] = i;
        }
    }
    assert_true(nc >= 16); /* at least one compute task per op */
    for (size_t k = 0; k < 3; k++) {
        assert_int_equal(pr.tasks[idx[k]].phase, SP_PHASE_WARMUP);
        assert_int_equal(pr.tasks[idx[k]].ev_kind, SP_EV_FORWARD);
        assert_int_equal(pr.tasks[idx[nc - 1 - k]].phase, SP_PHASE_COOLDOWN);
        assert_int_equal(pr.tasks[idx[nc - 1 - k]].ev_kind, SP_EV_BACKWARD);
    }
    assert_int_equal(pr.tasks[idx[5]].phase, SP_PHASE_STEADY);
    sp_program_free(&pr);
}

/* ---- invalid configurations ---- */

static void test_invalid(void **state)
{
    static const struct {
        sp_sched_kind_t kind;
        int p, m, v, stage, layers;
        double flops_per_ns;
    } bad[] = {
        {SP_SCHED_1F1B, 0, 4, 1, 0, 2, 1.0},        /* no stages */
        {SP_SCHED_1F1B, 2, 4, 1, 2, 2, 1.0},        /* stage >= p */
        {SP_SCHED_GPIPE, 2, 4, 1, -1, 2, 1.0},      /* stage < 0 */
        {SP_SCHED_1F1B, 2, 4, 1, 0, 2, 0.0},        /* no device rate */
        {SP_SCHED_1F1B, 2, 4, 1, 0, 2, NAN},        /* nor a NaN one */
        {SP_SCHED_INTERLEAVED, 2, 3, 2, 0, 2, 1.0}, /* m % p != 0 */
        {SP_SCHED_INTERLEAVED, 1, 2, 2, 0, 2, 1.0}, /* interleaved without pipelining */
        {SP_SCHED_GPIPE, 2, 4, 2, 0, 2, 1.0},       /* chunks without interleaving */
        {SP_SCHED_ZBH1, 2, 0, 1, 0, 2, 1.0},        /* no microbatches */
        {SP_SCHED_1F1B, 2, 2, 1, 0, 0, 1.0},        /* no layers */
    };

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        sp_program_config_t c = cfg_make(bad[i].kind, bad[i].p, bad[i].m, bad[i].v, bad[i].stage);
        sp_program_t pr;
        c.layers_per_chunk = bad[i].layers;
        c.flops_per_ns = bad[i].flops_per_ns;
        memset(&pr, 0xab, sizeof(pr));
        assert_int_equal(sp_program_build(&c, &pr), SP_ERR_INVALID);
        assert_null(pr.tasks);
        assert_null(pr.sched);
        assert_int_equal(pr.n, 0);
        assert_int_equal(pr.cap, 0);
        assert_int_equal(pr.n_sched_ops, 0);
        sp_program_free(&pr); /* zeroed: a no-op */
    }
    sp_program_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grid),           cmocka_unit_test(test_p2p_matching),
        cmocka_unit_test(test_op_boundaries),  cmocka_unit_test(test_ddp_buckets),
        cmocka_unit_test(test_ddp_big_bucket), cmocka_unit_test(test_fsdp),
        cmocka_unit_test(test_phases_1f1b),    cmocka_unit_test(test_invalid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
