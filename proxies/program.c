/* Building one rank's step program from its schedule (see program.h). */
#include "program.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "timeline.h"

typedef struct {
    const sp_program_config_t *c;
    sp_program_t *prog;
    sp_status_t st;
    int last_compute;                  /* latest compute task, -1: none yet */
    int32_t pending[SP_TASK_MAX_DEPS]; /* what the next compute task waits for */
    int npending;
    double acc_flops; /* compute accumulated since the last task boundary */
    uint32_t acc_parts[SP_PART_COUNT];
    int acc_open;
    int32_t acc_layer; /* its layer, -1 when it spans several */
    /* the schedule op being emitted */
    int32_t op, mb, chunk;
    int8_t type, phase;
    int anchor;          /* FSDP prefetch: the next gather waits for this compute task */
    int gathered[2];     /* FSDP: the embedding (0), the output layer (1) gathered this step */
    sp_buckets_t bk;     /* DDP: the step's gradient buckets */
    int32_t *gathers;    /* distributed optimizer: per bucket its gather task, -1: none yet */
    int32_t *ganchor;    /* per chunk: the next gather's dependency with overlap (as anchor) */
    int32_t *deferred;   /* overlap off: the buckets in the order they filled, run at the end */
    size_t ndeferred;
    int32_t *last_grad;  /* per chunk: index of its last gradient op */
    size_t first_b, last_f;
} builder_t;

static size_t elt_size(const builder_t *b)
{
    return sp_dtype_size(b->c->dtype);
}

static void task_init(const builder_t *b, sp_task_t *t, sp_task_kind_t kind, sp_lane_t lane)
{
    memset(t, 0, sizeof(*t));
    t->kind = (int8_t)kind;
    t->lane = (int8_t)lane;
    t->coll = -1;
    t->sched_type = b->type;
    t->phase = b->phase;
    t->sched_op = b->op;
    t->microbatch = b->mb;
    t->chunk = b->chunk;
    t->layer = -1;
    t->bucket = -1;
    t->peer = -1;
    t->tag = -1;
    t->dtype = (int8_t)b->c->dtype;
}

static void add_dep(sp_task_t *t, int32_t dep)
{
    if (dep < 0) {
        return;
    }
    for (int i = 0; i < t->ndeps; i++) {
        if (t->deps[i] == dep) {
            return;
        }
    }
    if (t->ndeps < SP_TASK_MAX_DEPS) {
        t->deps[t->ndeps++] = dep;
    }
}

static int32_t push(builder_t *b, const sp_task_t *t)
{
    sp_program_t *p = b->prog;

    if (b->st != SP_OK) {
        return -1;
    }
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 256;
        sp_task_t *grown = realloc(p->tasks, cap * sizeof(*grown));
        if (grown == NULL) {
            b->st = SP_ERR_NOMEM;
            return -1;
        }
        p->tasks = grown;
        p->cap = cap;
    }
    p->tasks[p->n] = *t;
    return (int32_t)p->n++;
}

static void wait_for(builder_t *b, int32_t task)
{
    if (task >= 0 && b->npending < SP_TASK_MAX_DEPS) {
        b->pending[b->npending++] = task;
    }
}

/* End the accumulated compute as one task (a task boundary: communication follows). */
static void flush(builder_t *b)
{
    sp_task_t t;
    int32_t at;

    if (!b->acc_open) {
        return;
    }
    task_init(b, &t, SP_TASK_COMPUTE, SP_LANE_COMPUTE);
    t.ev_kind = (int8_t)(b->type == SP_SCHED_OP_F   ? SP_EV_FORWARD
                         : b->type == SP_SCHED_OP_W ? SP_EV_WGRAD
                                                    : SP_EV_BACKWARD);
    t.layer = b->acc_layer;
    t.flops = b->acc_flops;
    memcpy(t.parts, b->acc_parts, sizeof(t.parts));
    t.dur_ns = (uint64_t)llround(b->acc_flops / b->c->flops_per_ns);
    for (int i = 0; i < b->npending; i++) {
        add_dep(&t, b->pending[i]);
    }
    at = push(b, &t);
    if (at >= 0) {
        b->last_compute = at;
    }
    b->npending = 0;
    b->acc_open = 0;
    b->acc_flops = 0.0;
    memset(b->acc_parts, 0, sizeof(b->acc_parts));
}

static double part_flops(const sp_program_config_t *c, int part)
{
    switch (part) {
    case SP_PART_ATTN_FWD:
        return c->flops_proj + c->flops_core;
    case SP_PART_ATTN_DGRAD:
        return c->flops_proj + 2.0 * c->flops_core;
    case SP_PART_ATTN_WGRAD:
        return c->flops_proj;
    case SP_PART_MLP_FWD:
    case SP_PART_MLP_DGRAD:
    case SP_PART_MLP_WGRAD:
        return c->flops_mlp;
    default:
        return c->flops_logits;
    }
}

/* One part of a layer's (or the output layer's) compute joins the accumulated compute. */
static void compute(builder_t *b, int part, int32_t layer)
{
    double flops = part_flops(b->c, part);

    if (b->acc_open && b->acc_layer != layer) {
        b->acc_layer = -1;
    } else if (!b->acc_open) {
        b->acc_layer = layer;
    }
    b->acc_open = 1;
    b->acc_flops += flops;
    b->acc_parts[part]++;
}

/* dep of coll(): the compute task that ends the accumulated compute (flushed by coll itself) */
#define AFTER_COMPUTE (-2)

/* A collective on lane after the accumulated compute, waiting for task dep (-1: none;
 * AFTER_COMPUTE: the compute before it). */
static int32_t coll(builder_t *b, sp_lane_t lane, sp_coll_kind_t kind, uint64_t count,
                    int32_t dep, int32_t layer)
{
    sp_task_t t;

    flush(b);
    if (dep == AFTER_COMPUTE) {
        dep = b->last_compute;
    }
    task_init(b, &t, SP_TASK_COLL, lane);
    t.ev_kind = SP_EV_COLL;
    t.coll = (int8_t)kind;
    t.layer = layer;
    t.count = count;
    t.bytes = count * elt_size(b);
    add_dep(&t, dep);
    return push(b, &t);
}

/* A gradient reduction on lane of `elements` gradients, in the gradient dtype. */
static int32_t grad_coll(builder_t *b, sp_lane_t lane, sp_coll_kind_t kind, uint64_t elements,
                         int32_t dep, int32_t layer)
{
    int32_t t = coll(b, lane, kind, elements, dep, layer);

    if (t >= 0) {
        b->prog->tasks[t].dtype = (int8_t)b->c->grad_dtype;
        b->prog->tasks[t].bytes = elements * sp_dtype_size(b->c->grad_dtype);
    }
    return t;
}

/* The compute of a block: part, then part2 unless it is -1. */
static void compute2(builder_t *b, int part, int part2, int32_t layer)
{
    compute(b, part, layer);
    if (part2 >= 0) {
        compute(b, part2, layer);
    }
}

/* One attention or MLP block on the TP group: the block's compute (part, and part2 unless -1)
 * and its collectives. */
static void tp_block(builder_t *b, int part, int part2, int32_t layer)
{
    const sp_program_config_t *c = b->c;

    if (c->tp > 1 && c->sequence_parallel) {
        wait_for(b, coll(b, SP_LANE_TP, SP_COLL_ALL_GATHER, c->tp_elements, AFTER_COMPUTE,
                         layer));
        compute2(b, part, part2, layer);
        wait_for(b, coll(b, SP_LANE_TP, SP_COLL_REDUCE_SCATTER, c->tp_elements, AFTER_COMPUTE,
                         layer));
    } else if (c->tp > 1) {
        compute2(b, part, part2, layer);
        wait_for(b, coll(b, SP_LANE_TP, SP_COLL_ALL_REDUCE, c->tp_elements, AFTER_COMPUTE,
                         layer));
    } else {
        compute2(b, part, part2, layer);
    }
}

/* The backward of one block: its dgrad and wgrad parts (wgrad -1: a split backward's B). With
 * sequence parallelism, Megatron's order: all-gather of the output gradient (the conjugate of
 * the forward's reduce-scatter), the re-all-gather of the block's input for the weight gradient
 * (issued with it, overlapping the dgrad GEMMs), the dgrad, the reduce-scatter of the input
 * gradient (overlapping the wgrad GEMMs), the wgrad; what follows waits for the reduce-scatter. */
static void tp_block_bwd(builder_t *b, int dgrad, int wgrad, int32_t layer)
{
    const sp_program_config_t *c = b->c;
    int32_t ag_in, rs;

    if (!(c->tp > 1 && c->sequence_parallel) || wgrad < 0) {
        tp_block(b, dgrad, wgrad, layer);
        return;
    }
    wait_for(b, coll(b, SP_LANE_TP, SP_COLL_ALL_GATHER, c->tp_elements, AFTER_COMPUTE, layer));
    ag_in = coll(b, SP_LANE_TP, SP_COLL_ALL_GATHER, c->tp_elements, AFTER_COMPUTE, layer);
    compute(b, dgrad, layer);
    rs = coll(b, SP_LANE_TP, SP_COLL_REDUCE_SCATTER, c->tp_elements, AFTER_COMPUTE, layer);
    wait_for(b, ag_in);
    compute(b, wgrad, layer);
    flush(b);
    wait_for(b, rs);
}

/* A split backward's W under sequence parallelism: the block's input all-gathered again for its
 * weight gradient (issued at once: it overlaps the previous block's wgrad GEMMs). */
static void sp_wgrad_input(builder_t *b, int32_t layer)
{
    if (b->c->tp > 1 && b->c->sequence_parallel) {
        wait_for(b, coll(b, SP_LANE_TP, SP_COLL_ALL_GATHER, b->c->tp_elements, -1, layer));
    }
}

static int fsdp(const builder_t *b)
{
    return b->c->dp > 1 && b->c->dp_mode == SP_DP_FSDP;
}

static int ddp(const builder_t *b)
{
    return b->c->dp > 1 && b->c->dp_mode == SP_DP_DDP;
}

/* FSDP: the parameters of a unit (count elements over the DP group) gathered before its compute;
 * the gather task, -1: none. */
static int32_t fsdp_gather_n(builder_t *b, uint64_t count, int32_t layer)
{
    int32_t g;

    if (!fsdp(b) || count == 0) {
        return -1;
    }
    flush(b);
    g = coll(b, SP_LANE_DP_GATHER, SP_COLL_ALL_GATHER, count,
             b->c->overlap_param ? b->anchor : AFTER_COMPUTE, layer);
    wait_for(b, g);
    b->anchor = b->last_compute; /* the next gather starts when this unit starts */
    return g;
}

static void fsdp_gather(builder_t *b, int32_t layer)
{
    fsdp_gather_n(b, b->c->layer_param_bytes / elt_size(b), layer);
}

/* FSDP: the embedding (which 0) or the output layer (1), before its first forward of the step.
 * Megatron-FSDP's units are the transformer layers; a module outside them is gathered by its
 * pre-forward hook and not released after forward, so it stays gathered through the step's
 * microbatches and backwards: one gather per module and step. The tied weight on one stage is
 * one parameter, gathered with the embedding. The gather task, -1: none. */
static int32_t fsdp_module_gather(builder_t *b, int which)
{
    if (!fsdp(b) || b->gathered[which] ||
        (which == 1 && sp_program_shared_output_weight(b->c))) {
        return -1;
    }
    b->gathered[which] = 1;
    return fsdp_gather_n(b, b->c->logits_param_bytes / elt_size(b), -1);
}

/* DDP: bucket k's gradients are ready: all-reduced, with the distributed optimizer
 * reduce-scattered (Megatron's start_grad_sync), now (overlap) or after the step's compute. */
static void ddp_bucket(builder_t *b, int32_t k)
{
    if (b->c->overlap) {
        int32_t t = grad_coll(b, SP_LANE_DP,
                              b->c->dist_opt ? SP_COLL_REDUCE_SCATTER : SP_COLL_ALL_REDUCE,
                              b->bk.elements[k], AFTER_COMPUTE, -1);
        if (t >= 0) {
            b->prog->tasks[t].bucket = k;
        }
    } else {
        b->deferred[b->ndeferred++] = k;
    }
}

/* The distributed optimizer: the gather of bucket k's parameters (model dtype) from the previous
 * step's optimizer, dep: the task it waits for. */
static int32_t dist_gather_task(builder_t *b, int32_t k, int32_t dep)
{
    int32_t g = coll(b, SP_LANE_DP_GATHER, SP_COLL_ALL_GATHER, b->bk.elements[k], dep, -1);

    if (g >= 0) {
        b->prog->tasks[g].bucket = k;
    }
    b->gathers[k] = g;
    return g;
}

/* Before the step's first forward of an item's parameters (item: sp_buckets_t) with the
 * distributed optimizer and overlap_param, its bucket's gather, issued when the chunk's previous
 * bucket (forward order) begins its forward (Megatron's finish_param_sync dispatching the next
 * bucket group's); the chunk's first at the step's start. The gather task, -1: none. */
static int32_t dist_gather(builder_t *b, int item)
{
    int32_t k, g;

    if (!ddp(b) || !b->c->dist_opt) {
        return -1;
    }
    k = b->bk.item_bucket[(size_t)b->chunk * (size_t)SP_BUCKET_ITEMS(b->c) + (size_t)item];
    if (k < 0 || b->gathers[k] != -1) {
        return -1; /* none, or gathered (and waited for) already */
    }
    flush(b);
    g = dist_gather_task(b, k, b->ganchor[b->chunk]);
    wait_for(b, g);
    b->ganchor[b->chunk] = b->last_compute;
    return g;
}

/* Without overlap_param every gather runs before the step's first compute, in bucket order
 * (Megatron's synchronous start_param_sync after the optimizer step). */
static void dist_gather_all(builder_t *b)
{
    int32_t g = -1;

    if (!ddp(b) || !b->c->dist_opt || b->c->overlap_param) {
        return;
    }
    b->op = b->mb = -1;
    b->type = -1;
    b->phase = SP_PHASE_WARMUP;
    for (int32_t k = 0; k < b->bk.n; k++) {
        b->chunk = b->bk.chunk[k];
        g = dist_gather_task(b, k, -1);
    }
    wait_for(b, g); /* one lane: the last is after the others */
}

/* Gradients of item (sp_buckets_t) of `bytes` parameters (model dtype) are ready to reduce, in
 * the gradient dtype: DDP on a chunk's last gradient op only, FSDP on every gradient op. */
static void grad_ready(builder_t *b, uint64_t bytes, int32_t layer, int item)
{
    uint64_t elements = bytes / elt_size(b);

    if (ddp(b)) {
        int32_t k =
            b->bk.closes[(size_t)b->chunk * (size_t)SP_BUCKET_ITEMS(b->c) + (size_t)item];
        if (k >= 0) {
            ddp_bucket(b, k);
        }
    } else if (fsdp(b) && elements > 0) {
        int32_t rs =
            grad_coll(b, SP_LANE_DP, SP_COLL_REDUCE_SCATTER, elements, AFTER_COMPUTE, layer);
        if (!b->c->overlap) {
            wait_for(b, rs);
        }
    }
}

/* A TP collective outside the layers (layer -1), waiting for the compute before it; the next
 * compute waits for it. */
static void tp_coll(builder_t *b, sp_coll_kind_t kind, uint64_t count, sp_dtype_t dtype)
{
    int32_t t = coll(b, SP_LANE_TP, kind, count, AFTER_COMPUTE, -1);

    if (t >= 0) {
        b->prog->tasks[t].dtype = (int8_t)dtype;
        b->prog->tasks[t].bytes = count * sp_dtype_size(dtype);
    }
    wait_for(b, t);
}

/* First virtual stage, F: the vocab-parallel embedding's partial outputs summed over the TP
 * group (all-reduce; reduce-scatter to the sequence shards under sequence parallelism), after
 * the FSDP gather of its weight (task gather, -1: none). */
static void embedding_fwd(builder_t *b, int32_t gather)
{
    int32_t t;

    if (b->c->tp > 1) {
        t = coll(b, SP_LANE_TP,
                 b->c->sequence_parallel ? SP_COLL_REDUCE_SCATTER : SP_COLL_ALL_REDUCE,
                 b->c->tp_elements, AFTER_COMPUTE, -1);
        if (t >= 0) {
            add_dep(&b->prog->tasks[t], gather);
        }
        wait_for(b, t);
    }
}

/* First virtual stage, the op with weight gradients: under sequence parallelism the output
 * gradient all-gathered (the conjugate of the forward's reduce-scatter; an all-reduce's is
 * the identity); when reduce is set the embedding's gradient is reduced. */
static void embedding_bwd(builder_t *b, int reduce)
{
    if (b->c->tp > 1 && b->c->sequence_parallel) {
        tp_coll(b, SP_COLL_ALL_GATHER, b->c->tp_elements, b->c->dtype);
    }
    if (reduce) {
        flush(b);
        grad_ready(b, b->c->logits_param_bytes, -1, 0);
    }
}

/* Last virtual stage, F: the output layer (a column-parallel linear: under sequence parallelism
 * its input all-gathered first), then the vocab-parallel cross-entropy's three fp32 all-reduces
 * of b*s elements (the logits' maximum, the target's logit, the sum of exponentials). */
static void logits_fwd(builder_t *b)
{
    const sp_program_config_t *c = b->c;

    if (c->tp > 1 && c->sequence_parallel) {
        tp_coll(b, SP_COLL_ALL_GATHER, c->tp_elements, c->dtype);
    }
    compute(b, SP_PART_LOGITS_FWD, -1);
    for (int i = 0; i < 3 && c->tp > 1; i++) {
        tp_coll(b, SP_COLL_ALL_REDUCE, c->tokens, SP_DTYPE_FLOAT);
    }
}

/* Last virtual stage, backward of the output layer: dgrad then the all-reduce of the input
 * gradient over the TP group; under sequence parallelism the input re-gathered for the wgrad
 * (under the dgrad), the input gradient reduce-scattered (under the wgrad). A split B has only
 * the dgrad and its collective, the W only the wgrad and (SP) the re-gather. */
static void logits_bwd(builder_t *b, int grads, int input)
{
    const sp_program_config_t *c = b->c;
    int sp = c->tp > 1 && c->sequence_parallel;
    int32_t ag_in = -1, red;

    if (sp && grads) {
        ag_in = coll(b, SP_LANE_TP, SP_COLL_ALL_GATHER, c->tp_elements,
                     input ? AFTER_COMPUTE : -1, -1);
        if (!input) {
            wait_for(b, ag_in);
        }
    }
    if (input) {
        compute(b, SP_PART_LOGITS_DGRAD, -1);
        red = c->tp > 1 ? coll(b, SP_LANE_TP, sp ? SP_COLL_REDUCE_SCATTER : SP_COLL_ALL_REDUCE,
                               c->tp_elements, AFTER_COMPUTE, -1)
                        : -1;
        if (!sp) {
            wait_for(b, red); /* the wgrad follows in the same GEMM stream */
        }
        wait_for(b, ag_in);
        if (grads) {
            compute(b, SP_PART_LOGITS_WGRAD, -1);
            flush(b);
        }
        if (sp) {
            wait_for(b, red);
        }
    } else {
        compute(b, SP_PART_LOGITS_WGRAD, -1);
    }
}

/* The message of the current op to (recv 0) or from (recv 1) virtual stage vpeer; vs is the
 * op's own. Nothing when vpeer is on this stage too (the V's turn): the compute lane's order
 * carries the activation. */
static void emit_recv_send(builder_t *b, int recv, int vs, int vpeer)
{
    const sp_program_config_t *c = b->c;
    int peer, peer_chunk;
    int fwd = b->type == SP_SCHED_OP_F;
    int colour = sp__program_edge_colour(c, vs < vpeer ? vs : vpeer);
    int consumer = recv ? vs : vpeer;
    sp_task_t t;
    int32_t at;

    sp_schedule_locate(c->kind, c->p, c->v, vpeer, &peer, &peer_chunk);
    if (peer == c->stage) {
        return;
    }
    task_init(b, &t, recv ? SP_TASK_RECV : SP_TASK_SEND, sp__lane_pp(!fwd, colour));
    t.ev_kind = (int8_t)(recv ? SP_EV_RECV : SP_EV_SEND);
    t.peer = peer;
    t.tag = b->mb * c->p * c->v + consumer;
    t.bytes = c->p2p_bytes;
    add_dep(&t, b->last_compute);
    if (!recv) {
        /* the op's output exists once its last TP collective has run (still pending for the
         * next compute, which waits for it too) */
        for (int i = 0; i < b->npending; i++) {
            add_dep(&t, b->pending[i]);
        }
    }
    at = push(b, &t);
    if (recv) {
        wait_for(b, at);
    }
}

static void emit_op(builder_t *b, size_t k)
{
    const sp_program_config_t *c = b->c;
    const sp_sched_op_t *op = &b->prog->sched[k];
    int V = c->p * c->v;
    int vs = sp_schedule_vstage(c->kind, c->p, c->v, c->stage, op->chunk);
    int L = c->layers_per_chunk;
    int zb = sp_schedule_splits_bw(c->kind);
    int last_grad = b->last_grad[op->chunk] == (int32_t)k;
    int reduce = last_grad || fsdp(b); /* this op's weight gradients are reduced */
    int from = -1, to = -1;

    b->op = (int32_t)k;
    b->mb = op->microbatch;
    b->chunk = op->chunk;
    b->type = op->type;
    b->phase = (int8_t)(k <= b->first_b ? SP_PHASE_WARMUP
                                       : (k > b->last_f ? SP_PHASE_COOLDOWN : SP_PHASE_STEADY));
    if (op->type == SP_SCHED_OP_F) {
        from = vs - 1;
        to = vs + 1 < V ? vs + 1 : -1;
    } else if (op->type == SP_SCHED_OP_B) {
        from = vs + 1 < V ? vs + 1 : -1;
        to = vs - 1;
    }
    if (from >= 0) {
        emit_recv_send(b, 1, vs, from);
    }
    if (op->type == SP_SCHED_OP_F) {
        if (vs == 0) {
            int32_t g = dist_gather(b, 0);
            embedding_fwd(b, g >= 0 ? g : fsdp_module_gather(b, 0));
        }
        for (int j = 0; j < L; j++) {
            int32_t layer = vs * L + j;
            dist_gather(b, j + 1);
            fsdp_gather(b, layer);
            tp_block(b, SP_PART_ATTN_FWD, -1, layer);
            tp_block(b, SP_PART_MLP_FWD, -1, layer);
        }
        if (vs == V - 1) {
            dist_gather(b, L + 1);
            fsdp_module_gather(b, 1);
            logits_fwd(b);
        }
    } else {
        int grads = op->type == SP_SCHED_OP_W || !zb; /* this op computes weight gradients */
        int input = op->type == SP_SCHED_OP_B;       /* and input gradients */
        if (vs == V - 1) {
            logits_bwd(b, grads, input);
            if (grads && reduce && !sp_program_shared_output_weight(c)) {
                grad_ready(b, c->logits_param_bytes, -1, L + 1); /* shared: the embedding's */
            }
        }
        for (int j = L - 1; j >= 0; j--) {
            int32_t layer = vs * L + j;
            if (input) {
                fsdp_gather(b, layer);
                tp_block_bwd(b, SP_PART_MLP_DGRAD, grads ? SP_PART_MLP_WGRAD : -1, layer);
                tp_block_bwd(b, SP_PART_ATTN_DGRAD, grads ? SP_PART_ATTN_WGRAD : -1, layer);
            } else {
                /* W: weight-gradient GEMMs; under SP on the re-gathered input */
                sp_wgrad_input(b, layer);
                compute(b, SP_PART_MLP_WGRAD, layer);
                sp_wgrad_input(b, layer);
                compute(b, SP_PART_ATTN_WGRAD, layer);
            }
            if (grads && reduce && c->dp > 1) {
                flush(b);
                grad_ready(b, c->layer_param_bytes, layer, j + 1);
            }
        }
        if (grads && vs == 0) {
            embedding_bwd(b, reduce);
        }
    }
    flush(b);
    if (to >= 0) {
        emit_recv_send(b, 0, vs, to);
    }
}

/* Per chunk the last op computing weight gradients; the first B and last F of the stage. */
static void mark_ops(builder_t *b)
{
    const sp_program_t *p = b->prog;
    int grad_type = sp_schedule_splits_bw(b->c->kind) ? SP_SCHED_OP_W : SP_SCHED_OP_B;

    b->first_b = p->n_sched_ops;
    b->last_f = 0;
    for (int c = 0; c < b->c->v; c++) {
        b->last_grad[c] = -1;
    }
    for (size_t k = 0; k < p->n_sched_ops; k++) {
        const sp_sched_op_t *op = &p->sched[k];
        if (op->type == grad_type) {
            b->last_grad[op->chunk] = (int32_t)k;
        }
        if (op->type == SP_SCHED_OP_B && k < b->first_b) {
            b->first_b = k;
        }
        if (op->type == SP_SCHED_OP_F) {
            b->last_f = k;
        }
    }
}

/* Overlap off: the step's buckets after its last compute, in the order they filled. */
static void emit_deferred(builder_t *b)
{
    b->op = -1;
    b->mb = -1;
    b->type = -1;
    b->phase = SP_PHASE_COOLDOWN;
    for (size_t i = 0; i < b->ndeferred; i++) {
        int32_t k = b->deferred[i], t;
        b->chunk = b->bk.chunk[k];
        t = grad_coll(b, SP_LANE_DP, b->c->dist_opt ? SP_COLL_REDUCE_SCATTER : SP_COLL_ALL_REDUCE,
                      b->bk.elements[k], AFTER_COMPUTE, -1);
        if (t >= 0) {
            b->prog->tasks[t].bucket = k;
        }
    }
}

/* The last task on lane so far, -1: none. */
static int32_t last_on(const builder_t *b, sp_lane_t lane)
{
    for (size_t i = b->prog->n; i > 0; i--) {
        if ((int)b->prog->tasks[i - 1].lane == (int)lane) {
            return (int32_t)(i - 1);
        }
    }
    return -1;
}

/* After the step's compute and DP reductions, in the order of Megatron's finalize_model_grads:
 * the sequence-parallel parameters' gradients all-reduced over the TP group, then the tied word
 * embedding's over the embedding group; each waits for everything before it in that order. */
static void emit_finalize(builder_t *b)
{
    const sp_program_config_t *c = b->c;
    int last_stage, chunk;
    uint64_t n;
    int32_t before[2] = {last_on(b, SP_LANE_DP), last_on(b, SP_LANE_DP_GATHER)};
    sp_lane_t lanes[2] = {SP_LANE_TP, SP_LANE_EMB};

    b->op = b->mb = b->chunk = -1;
    b->type = -1;
    b->phase = SP_PHASE_COOLDOWN;
    sp_schedule_locate(c->kind, c->p, c->v, c->p * c->v - 1, &last_stage, &chunk);
    n = (uint64_t)c->layers_per_chunk * (uint64_t)c->v * c->sp_layer_params +
        (last_stage == c->stage ? c->sp_final_params : 0);
    if (!(c->tp > 1 && c->sequence_parallel)) {
        n = 0;
    }
    for (int k = 0; k < 2; k++) {
        uint64_t count = k == 0 ? n : sp_program_embedding_grad_elements(c, c->stage);
        int32_t t;
        if (count == 0) {
            continue;
        }
        t = grad_coll(b, lanes[k], SP_COLL_ALL_REDUCE, count, AFTER_COMPUTE, -1);
        if (t < 0) {
            return;
        }
        add_dep(&b->prog->tasks[t], before[0]);
        add_dep(&b->prog->tasks[t], before[1]);
        before[0] = t;
        before[1] = -1;
    }
}

/* The per-step state after the schedule: the last gradient ops, the buckets and their lists. */
static sp_status_t builder_alloc(builder_t *b)
{
    const sp_program_config_t *c = b->c;
    sp_status_t st;

    b->last_grad = calloc((size_t)c->v, sizeof(*b->last_grad));
    b->ganchor = malloc((size_t)c->v * sizeof(*b->ganchor));
    if (b->last_grad == NULL || b->ganchor == NULL) {
        return SP_ERR_NOMEM;
    }
    mark_ops(b);
    st = sp__program_buckets(c, b->last_grad, &b->bk);
    if (st != SP_OK) {
        return st;
    }
    b->deferred = calloc((size_t)b->bk.n + 1, sizeof(*b->deferred));
    b->gathers = malloc(((size_t)b->bk.n + 1) * sizeof(*b->gathers));
    if (b->deferred == NULL || b->gathers == NULL) {
        return SP_ERR_NOMEM;
    }
    for (int i = 0; i < c->v; i++) {
        b->ganchor[i] = -1;
    }
    for (int32_t k = 0; k < b->bk.n; k++) {
        b->gathers[k] = -1;
    }
    return SP_OK;
}

sp_status_t sp_program_build(const sp_program_config_t *cfg, sp_program_t *prog)
{
    builder_t b;

    memset(prog, 0, sizeof(*prog));
    memset(&b, 0, sizeof(b));
    b.c = cfg;
    b.prog = prog;
    b.last_compute = -1;
    b.anchor = -1;
    b.st = sp__program_check_config(cfg);
    if (b.st == SP_OK) {
        b.st = sp__program_build_schedule(cfg, prog);
    }
    if (b.st == SP_OK) {
        b.st = builder_alloc(&b);
    }
    if (b.st == SP_OK) {
        prog->kind = cfg->kind;
        dist_gather_all(&b);
        for (size_t k = 0; k < prog->n_sched_ops && b.st == SP_OK; k++) {
            emit_op(&b, k);
        }
        emit_deferred(&b);
        emit_finalize(&b);
    }
    free(b.deferred);
    free(b.last_grad);
    free(b.ganchor);
    free(b.gathers);
    sp__program_buckets_free(&b.bk);
    if (b.st != SP_OK) {
        sp_program_free(prog);
    }
    return b.st;
}

void sp_program_free(sp_program_t *prog)
{
    if (prog == NULL) {
        return;
    }
    free(prog->tasks);
    free(prog->sched);
    memset(prog, 0, sizeof(*prog));
}
