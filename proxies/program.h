/* The program of one rank of the training proxy for one step: every compute and communication
 * task, the lane (stream) it runs on and the tasks it waits for. A pure function of the layout,
 * the schedule and the model's costs; no MPI, no backend. The engine (engine.h) runs a program
 * on a backend's streams; tests and `predict` can inspect or simulate the same program.
 *
 * What one schedule op (F, B or W of one microbatch on one model chunk) becomes, per layer of
 * the chunk, in Megatron-LM's order:
 *   forward:  attention, then the MLP; with tensor parallelism (tp > 1) each block ends in an
 *             all-reduce of b*s*h elements over the TP group; with sequence parallelism each
 *             block is all-gather -> compute -> reduce-scatter instead. The last virtual stage
 *             adds the logits (2bshV/tp) after its last layer: under sequence parallelism
 *             its input is all-gathered first; with tp > 1 the vocab-parallel cross-entropy's 3
 *             fp32 all-reduces of b*s follow. The first virtual stage starts with the
 *             embedding's all-reduce (reduce-scatter under SP).
 *   backward: the layers in reverse, MLP then attention, with the conjugate TP collectives; the
 *             logits' backward comes first. Under sequence parallelism a block's backward is
 *             all-gather (output gradient), all-gather (its input again, for the weight
 *             gradient; under the dgrad GEMMs), dgrad, reduce-scatter (under the wgrad), wgrad:
 *             4 all-gathers + 2 reduce-scatters per layer; a split W re-gathers the inputs.
 *             The output layer's backward: dgrad, all-reduce of the input gradient (under SP:
 *             re-gather, dgrad, reduce-scatter, wgrad); the embedding's under SP all-gathers
 *             its output gradient. For a schedule that splits the backward (ZB-H1,
 *             ZB-V) B carries only the input gradient (FLOPs: projections and MLP once,
 *             attention core twice) and W the weight gradient (projections and MLP once), W
 *             without communication; otherwise B is the whole backward (2x forward).
 * Pipeline: an F receives its input from the previous virtual stage and sends its output to the
 * next one; a B the reverse; the schedule's placement (sp_schedule_vstage, sp_schedule_locate)
 * says which stage holds a virtual stage, and an edge between two chunks of one stage (the V's
 * turn on stage p-1) is no message. A receive is posted when the previous compute task has
 * finished (as a CPU thread would post it), on one of 4 forward and 4 backward lanes chosen by
 * the edge's colour so that no lane both sends and receives on an odd ring and, with the V, a
 * stage's edges down and up the stages are on different lanes.
 * Data parallelism (dp > 1):
 *   DDP: the gradients of the chunk's last gradient op (microbatch m-1; earlier microbatches
 *        accumulate locally, Megatron's no_sync) fill buckets in reverse layer order; a bucket
 *        is all-reduced over the DP group as soon as its last layer's gradient is computed
 *        (overlap on) or after the step's last compute (overlap off, Megatron without
 *        overlap_grad_reduce). Buckets are per chunk; a chunk's last bucket may be smaller.
 *        The output layer (last stage) and the input embedding (first stage) are in it
 *        (a tied weight on one stage once, sp_program_shared_output_weight).
 *        Gradient reductions (DDP and FSDP) run in grad_dtype: fp32 by default, as Megatron.
 *        With dist_opt (Megatron's --use-distributed-optimizer) each bucket is reduce-scattered
 *        instead, padded to a multiple of lcm(dp, 128) elements, the embedding group's tied
 *        weight in a bucket of its own (sp_buckets_t); and each bucket's parameters are
 *        all-gathered (model dtype) once per step before its first forward: with overlap_param the
 *        chunk's first at the step's start, each next one when the forward of the bucket
 *        before it (forward order) begins; without it all before the first compute.
 *   FSDP (ZeRO-3): before each layer's compute in F and B, an all-gather of that layer's
 *        parameters over the DP group; with overlap_param it is prefetched (issued when the
 *        previous layer starts computing), without it the compute waits for a gather
 *        issued only when it is needed. After a layer's gradient in every gradient op (each
 *        microbatch's B, or W when the backward is split), a reduce-scatter of its gradients,
 *        which the next compute waits for when overlap is off; the output layer's and the
 *        embedding's gradients too: Megatron-FSDP with optim_grads_params (the proxy's
 *        FSDP; optim_grads too) reduces gradients after every backward, is_last_microbatch
 *        (no_sync) or not; only no_shard and optim defer to the last microbatch
 *        (megatron_fsdp.py, grad_reduce_every_bprop). The embedding (first virtual stage)
 *        and the output layer (last) are units of their own outside the layers
 *        (Megatron-FSDP's units are the transformer layers): each is all-gathered
 *        (vocab/tp x h) once per step, before its first forward, with the same prefetch
 *        rule, and stays gathered through the step (no re-gather in backward); the
 *        embedding's TP collective waits for its gather. With tied embeddings on one stage
 *        (sp_program_shared_output_weight) the two are one parameter: one gather (the
 *        embedding's), one gradient reduction per reducing op (after the embedding's
 *        backward), DDP too.
 * TP collectives are always on the critical path (Megatron's default without TP comm overlap).
 * After the step's last compute and its DP reductions (Megatron's finalize_model_grads, in its
 * order): with tp > 1 and sequence parallelism one all-reduce over the TP group of the gradients
 * of the sequence-parallel parameters of the stage's layers (and the final norm on the last
 * virtual stage), allreduce_layernorm_grads; then with tied embeddings and the embedding and the
 * output layer on two stages, one all-reduce of the word-embedding gradient (vocab/tp x h; with
 * FSDP the rank's DP shard of it) over the embedding group on those two stages,
 * allreduce_word_embedding_grads. Both in grad_dtype.
 */
#ifndef SP_PROGRAM_H
#define SP_PROGRAM_H

#include <stddef.h>
#include <stdint.h>

#include "coll.h"
#include "dtype.h"
#include "schedule.h"
#include "status.h"

/* Lanes: one backend stream each. Adding one: a value here and a row in program.c's table. */
typedef enum {
    SP_LANE_COMPUTE = 0,
    SP_LANE_TP,
    SP_LANE_PP_FWD0,
    SP_LANE_PP_FWD1,
    SP_LANE_PP_FWD2,
    SP_LANE_PP_BWD0,
    SP_LANE_PP_BWD1,
    SP_LANE_PP_BWD2,
    SP_LANE_DP,        /* gradient all-reduce (DDP) or reduce-scatter (FSDP, dist_opt) */
    SP_LANE_DP_GATHER, /* FSDP or dist_opt parameter all-gather */
    SP_LANE_PP_FWD3,   /* the fourth pipeline colour (V placement), numbered after the rest */
    SP_LANE_PP_BWD3,
    SP_LANE_EMB,       /* tied embeddings: the word-embedding gradient, first + last stage */
    SP_LANE_COUNT
} sp_lane_t;

/* Pipeline lanes per direction (forward, backward): one per edge colour. */
#define SP_PP_COLOURS 4

/* What a lane's traffic is, for the overlap metrics. */
typedef enum {
    SP_LANE_CLASS_COMPUTE = 0,
    SP_LANE_CLASS_TP,
    SP_LANE_CLASS_PP,
    SP_LANE_CLASS_DP,
    SP_LANE_CLASS_COUNT
} sp_lane_class_t;

/* The communicator a lane's stream is created on. EMB: Megatron's embedding group, the first
 * and the last pipeline stage of one DP replica and TP rank (sp_program_embedding_group). */
typedef enum { SP_GROUP_WORLD = 0, SP_GROUP_TP, SP_GROUP_PP, SP_GROUP_DP, SP_GROUP_EMB } sp_group_t;

sp_lane_class_t sp_lane_class(int lane);
sp_group_t sp_lane_group(int lane);
const char *sp_lane_class_name(int cls); /* "compute", "tp", "pp", "dp"; "?" otherwise */
int sp_lane_pp_colour(int lane);         /* edge colour of a pipeline lane, else -1 */
sp_lane_t sp__lane_pp(int backward, int colour); /* the pipeline lane of a direction, colour */

typedef enum { SP_TASK_COMPUTE = 0, SP_TASK_COLL, SP_TASK_SEND, SP_TASK_RECV } sp_task_kind_t;

/* Phase of the schedule an op belongs to: warm-up = up to and including the stage's first
 * backward (the wait for it is the pipeline filling), cool-down = after its last forward,
 * steady = between. An idle gap is charged to the phase of the op after it, so in an ideal
 * GPipe or 1F1B step warm-up + cool-down idle = (p-1)(F+B) and steady-state stalls are 0. */
typedef enum { SP_PHASE_WARMUP = 0, SP_PHASE_STEADY, SP_PHASE_COOLDOWN, SP_PHASE_COUNT } sp_phase_t;

#define SP_TASK_MAX_DEPS 6

/* Parts of the compute a task holds, as real GEMMs would run them (gemm_plan.h gives their
 * shapes): forward, input gradient (dgrad) and weight gradient (wgrad) of the attention block,
 * the MLP and the output layer. A task's FLOPs are the sum of its parts' FLOPs. */
typedef enum {
    SP_PART_ATTN_FWD = 0, /* attn_proj + attn_core */
    SP_PART_ATTN_DGRAD,   /* attn_proj + 2 attn_core (the core's backward is input gradients) */
    SP_PART_ATTN_WGRAD,   /* attn_proj */
    SP_PART_MLP_FWD,      /* mlp, each of the three */
    SP_PART_MLP_DGRAD,
    SP_PART_MLP_WGRAD,
    SP_PART_LOGITS_FWD,   /* logits, each of the three */
    SP_PART_LOGITS_DGRAD,
    SP_PART_LOGITS_WGRAD,
    SP_PART_COUNT
} sp_part_t;

typedef struct {
    int8_t kind;       /* sp_task_kind_t */
    int8_t lane;       /* sp_lane_t */
    int8_t ev_kind;    /* sp_ev_kind_t it is recorded as on the timeline */
    int8_t coll;       /* sp_coll_kind_t of a COLL task, else -1 */
    int8_t sched_type; /* SP_SCHED_OP_F/B/W of the schedule op it belongs to, -1: none */
    int8_t phase;      /* sp_phase_t of that op (cool-down for tasks after the last op) */
    int8_t dtype;      /* COLL: the sp_dtype_t it runs in (gradient reductions: grad_dtype) */
    int32_t sched_op;  /* index of that op in the stage's op list, -1: none */
    int32_t microbatch, chunk, layer, bucket; /* -1: not applicable; layer is global */
    int32_t peer, tag;                        /* SEND / RECV: rank in the PP group, tag */
    uint64_t count;    /* COLL: element count as nccl-tests' size (total over the group for
                        * all-gather and reduce-scatter, the buffer for all-reduce) */
    uint64_t bytes;    /* COLL: count * element size; SEND/RECV: message bytes */
    uint64_t dur_ns;   /* COMPUTE: duration at the configured rate */
    double flops;      /* COMPUTE */
    uint32_t parts[SP_PART_COUNT]; /* COMPUTE: how many of each part (a task may span layers) */
    int32_t ndeps;
    int32_t deps[SP_TASK_MAX_DEPS]; /* earlier tasks on other lanes it waits for */
} sp_task_t;

typedef enum { SP_DP_DDP = 0, SP_DP_FSDP = 1 } sp_dp_mode_t;

typedef struct {
    sp_sched_kind_t kind;
    int p, m, v, stage; /* pipeline: stages, microbatches, chunks per stage, this stage */
    int mb_group;       /* interleaved: microbatch group size N; 0: Megatron's default, p */
    int tp, dp;
    int sequence_parallel;
    int dp_mode; /* sp_dp_mode_t, used when dp > 1 */
    int dist_opt; /* DDP: Megatron's --use-distributed-optimizer (reduce-scatter + gathers) */
    int overlap;       /* gradient reductions overlap compute (Megatron's overlap_grad_reduce) */
    int overlap_param; /* parameter gathers (dist_opt, FSDP) overlap compute (its
                        * overlap_param_gather); 0: before the compute that needs them */
    int layers_per_chunk;
    sp_dtype_t dtype;      /* the model's: activations, parameters, TP and PP traffic */
    sp_dtype_t grad_dtype; /* the DP gradient reduction's (a floating type): Megatron with bf16
                            * reduces in fp32 unless --grad-reduce-in-bf16 */
    /* forward FLOPs on one TP rank per layer and microbatch, and of the logits */
    double flops_proj, flops_core, flops_mlp, flops_logits;
    double flops_per_ns; /* the device rate */
    uint64_t tp_elements;      /* b*s*h */
    uint64_t tokens;           /* b*s: the cross-entropy's all-reduces (fp32) */
    uint64_t p2p_bytes;        /* pipeline message per microbatch */
    uint64_t layer_param_bytes; /* one layer's parameters on one TP rank */
    uint64_t logits_param_bytes; /* output layer and (first stage) input embedding, per TP rank */
    uint64_t bucket_bytes;     /* DDP bucket size, bytes of gradients in grad_dtype */
    /* 1: the input embedding and the output layer share their weight (Megatron's default; 0:
     * --untie-embeddings-and-output-weights): with the two on different stages, their gradient
     * (logits_param_bytes) is all-reduced over the embedding group after the DP reduction */
    int tied_embeddings;
    /* elements of the parameters Megatron marks sequence-parallel (norm weights and biases,
     * row-parallel biases; replicated on the TP ranks) per layer, and of the final norm on the
     * last virtual stage: with tp > 1 and sequence parallelism their gradients are all-reduced
     * over the TP group once per step, in grad_dtype (Megatron's allreduce_layernorm_grads) */
    uint64_t sp_layer_params, sp_final_params;
} sp_program_config_t;

typedef struct {
    sp_task_t *tasks;
    size_t n;
    size_t cap;
    sp_sched_kind_t kind;    /* the schedule (its placement: sp_schedule_vstage) */
    size_t n_sched_ops;      /* ops of the stage's schedule */
    sp_sched_op_t *sched;    /* the schedule op list, n_sched_ops entries */
} sp_program_t;

/* Build the program. SP_ERR_INVALID (logged) for a configuration sp_schedule_build rejects or
 * a size < 1; SP_ERR_NOMEM. On success *prog is owned by the caller (sp_program_free). */
sp_status_t sp_program_build(const sp_program_config_t *cfg, sp_program_t *prog);
void sp_program_free(sp_program_t *prog); /* NULL or zeroed: no-op */

/* Pipeline edge colours the configuration's placement uses, at least 3 (the lanes every run
 * creates): 4 for the V placement. The same on every stage; lanes of colour >= this are unused. */
int sp_program_pp_colours(const sp_program_config_t *c);

/* 1 when the output layer uses the input embedding's weight on one rank: tied embeddings with the
 * first and the last virtual stage on one stage (p = 1, or the V). One parameter: its gradient is
 * reduced once per gradient op that reduces (DDP bucket, on the last; FSDP reduce-scatter, on
 * each; after the embedding's backward) and FSDP
 * gathers it once per step, before the embedding. */
int sp_program_shared_output_weight(const sp_program_config_t *c);

/* Internal (program_setup.c): SP_ERR_INVALID (logged) for a configuration the builder cannot
 * take; the stage's schedule into prog->sched (SP_ERR_INVALID logged, SP_ERR_NOMEM). */
sp_status_t sp__program_check_config(const sp_program_config_t *c);
sp_status_t sp__program_build_schedule(const sp_program_config_t *c, sp_program_t *prog);

/* Internal (program_buckets.c): the DP gradient buckets of the stage's step (DDP; with dist_opt
 * too). Per chunk, items in backward order fill a bucket: the output layer (last virtual stage,
 * not the shared weight on one stage), the layers from the last, the embedding (first virtual
 * stage); a bucket closes when its gradients reach bucket_bytes (in grad_dtype) and at the
 * chunk's end. With dist_opt a bucket is padded to a multiple of lcm(dp, 128) elements and the
 * tied embedding or output weight of the embedding group (Megatron's shared_embedding) is a
 * bucket of its own. Buckets are numbered in the order the chunks' last gradient ops run. Item
 * index: 0 the embedding, 1 + j layer j of the chunk, L + 1 the output layer. */
#define SP_BUCKET_ITEMS(c) ((c)->layers_per_chunk + 2)
typedef struct {
    int32_t n;             /* buckets */
    uint64_t *elements;    /* per bucket: elements (padded with dist_opt) */
    int32_t *chunk;        /* per bucket: its chunk */
    int32_t *item_bucket;  /* per chunk x item: the bucket holding it, -1: none */
    int32_t *closes;       /* per chunk x item: the bucket ready once its gradient is, -1 */
} sp_buckets_t;
sp_status_t sp__program_buckets(const sp_program_config_t *c, const int32_t *last_grad,
                                sp_buckets_t *bk);
void sp__program_buckets_free(sp_buckets_t *bk);

/* Internal (program.c): the pipeline edge colour from virtual stage e to e + 1 (program_lanes.c
 * says how it is chosen). */
int sp__program_edge_colour(const sp_program_config_t *c, int e);

/* Megatron's embedding group for stage: -1 when the configuration has none (untied, p = 1, or
 * the first and the last virtual stage on one stage, as the V places them), 1 when stage is the
 * first or the last stage, 0 for a stage between them. */
int sp_program_embedding_group(const sp_program_config_t *c, int stage);

/* Elements of the tied word-embedding gradient stage all-reduces over the embedding group once
 * per step: vocab/tp x h (logits_param_bytes in dtype) on the first and the last stage; with FSDP
 * (dp > 1) the stage's DP shard of it, ceil(vocab/tp x h / dp), as Megatron-FSDP; 0 on a stage
 * outside the group or without one. */
uint64_t sp_program_embedding_grad_elements(const sp_program_config_t *c, int stage);

/* The timeline's `seq` of the collective that is task `index` of a rank's program on lane, in
 * step (docs/SCHEMA.md): one instance per group, task and step, by family (TP 0, DP 1, the
 * embedding group 2) and the group's colour in its family (colors: tp, dp, emb); the embedding
 * group's two stages run different programs, so its instance is numbered by its order on the
 * lane (one per step). max_tasks: the most tasks per step of any rank. */
uint64_t sp_lane_seq(int lane, int step, int world, const int colors[3], uint64_t max_tasks,
                     size_t index);

#endif
