/* Transformer cost model of the training proxy: FLOPs, parameter and activation sizes and the
 * tensor-parallel traffic of one layer, from a model shape. Pure arithmetic; no MPI, no allocation.
 */
#ifndef SP_MODEL_H
#define SP_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "dtype.h"
#include "status.h"

/* A decoder-only transformer as the proxy runs it. Presets fill every field; any field may be
 * overridden afterwards (call sp_model_check again).
 *
 * Beyond the shape of DESIGN.md section 5 two fields describe modern models; left at 0 they give
 * exactly the GPT/Megatron formulas:
 *   kv_heads   key/value heads for grouped-query attention; 0 means = heads (multi-head).
 *   gated_mlp  0: MLP of two matrices h->ffn->h (GPT); 1: three (SwiGLU: gate, up, down; Llama). */
typedef struct {
    char name[32];
    long hidden;      /* h */
    long layers;      /* l */
    long heads;       /* attention (query) heads */
    long ffn;         /* MLP inner size */
    long seq;         /* s, tokens per sample */
    long micro_batch; /* b, samples per microbatch; presets: 1 */
    long vocab;       /* V */
    long kv_heads;    /* 0 = heads */
    int gated_mlp;    /* 0 or 1 */
    sp_dtype_t dtype; /* of parameters, activations and gradients; presets: bfloat16 */
    int causal;       /* 0: attention FLOPs count the full s^2 (Megatron); 1: half (masked) */
} sp_model_t;

/* FLOPs of one transformer layer and of the logits for one microbatch on one tensor-parallel
 * rank (every term divided by tp). Doubles: exact for every integer below 2^53. */
typedef struct {
    double attn_proj_fwd; /* Q,K,V,O projections: 4bsh^2 + 4bsh*hkv (8bsh^2 multi-head) */
    double attn_core_fwd; /* QK^T and scores*V: 4bs^2h, 2bs^2h when causal */
    double mlp_fwd;       /* 4bsh*ffn, 6bsh*ffn gated */
    double layer_fwd;     /* the sum of the three above */
    double layer_bwd;     /* 2 * layer_fwd (input and weight gradients) */
    double logits_fwd;    /* output projection forward: 2bshV */
    double logits;        /* forward + backward: 6bshV */
} sp_model_flops_t;

/* Tensor-parallel collectives of one layer for one microbatch (Megatron, Shoeybi et al. 2019;
 * sequence parallelism: Korthikanti et al. 2022). All counts are 0 for tp == 1. Without sequence
 * parallelism: 2 all-reduces forward (after attention and after the MLP) and 2 backward (the
 * conjugate operators in front of them). With sequence parallelism every all-reduce becomes a
 * reduce-scatter and an all-gather: forward 2 all-gathers + 2 reduce-scatters, backward the same;
 * the same bytes cross the links as with the all-reduces. */
typedef struct {
    int allreduce_fwd, allreduce_bwd;
    int allgather_fwd, allgather_bwd;
    int reducescatter_fwd, reducescatter_bwd;
    uint64_t elements; /* b*s*h: all-reduce buffer = all-gather output = reduce-scatter input */
    uint64_t bytes;    /* elements * sizeof(dtype) */
} sp_model_tp_comm_t;

/* Number of presets and the name of preset i (static storage; NULL when i is out of range). */
int sp_model_preset_count(void);
const char *sp_model_preset_name(int i);

/* Fill *model_p with the preset called `name` (micro_batch 1, bfloat16, causal 0).
 * SP_ERR_INVALID for an unknown name (not logged: the caller's message names the presets) or,
 * logged, a NULL model_p; *model_p is written only on success. */
sp_status_t sp_model_preset(const char *name, sp_model_t *model_p);

/* Check a model: every size >= 1, hidden % heads == 0, heads % kv_heads == 0, gated_mlp and
 * causal 0 or 1, a known dtype. SP_ERR_INVALID with the reason in err (not logged; the caller
 * logs); err may be NULL. The other functions assume a checked model. */
sp_status_t sp_model_check(const sp_model_t *model, char *err, size_t errlen);

/* FLOPs of one layer and of the logits per microbatch on one of tp tensor-parallel ranks.
 * SP_ERR_INVALID (not logged) for NULL arguments or tp < 1; *flops_p set only on success. */
sp_status_t sp_model_flops(const sp_model_t *model, int tp, sp_model_flops_t *flops_p);

/* Forward FLOPs of one layer for one microbatch, all tensor-parallel ranks together. */
double sp_model_layer_fwd_flops(const sp_model_t *model);

/* Parameters of one layer, all tensor-parallel ranks together: Q and O 2h^2, K and V 2h*hkv
 * (hkv = h*kv_heads/heads), MLP 2h*ffn (3h*ffn gated); biases and norm weights are ignored
 * (< 0.1% for these shapes). For multi-head, non-gated layers: 4h^2 + 2h*ffn. */
uint64_t sp_model_layer_params(const sp_model_t *model);

/* Bytes of one layer's parameters (= its gradients) on one of tp tensor-parallel ranks, at the
 * model's dtype: the unit of DDP gradient buckets and FSDP gathers. Exact when heads % tp == 0
 * (h and hkv then split evenly; the MLP shards h*ffn along ffn, a multiple of h). */
uint64_t sp_model_layer_param_bytes(const sp_model_t *model, int tp);

/* Elements of the parameters Megatron-LM marks sequence-parallel, replicated on every TP rank:
 * per layer and of the final norm. The GPT structure (gated_mlp 0: LayerNorm with bias, linear
 * layers with bias): two norms' weights and biases (4h) and the row-parallel biases of the
 * attention output and the MLP's second linear (2h): 6h per layer, 2h for the final norm. The
 * Llama structure (gated_mlp 1: RMSNorm, no biases): 2h per layer, h for the final norm. */
void sp_model_sp_params(const sp_model_t *model, uint64_t *layer_p, uint64_t *final_p);

/* Parameters whose FLOPs the step counts: layers * layer params + the output projection V*h.
 * The input embedding is a lookup, not a GEMM, so it is not counted (Llama-3 8B: 7.50e9 here,
 * 8.03e9 with its untied input embedding). */
uint64_t sp_model_params(const sp_model_t *model);

/* Bytes of one layer-boundary activation, b*s*h*sizeof(dtype): what a pipeline stage sends to the
 * next per microbatch (and the gradient it gets back). */
uint64_t sp_model_activation_bytes(const sp_model_t *model);

/* Pipeline send/recv bytes per tensor-parallel rank: the full activation without sequence
 * parallelism (every TP rank holds the replicated tensor and sends it), activation/tp with it
 * (each rank holds a sequence shard). */
uint64_t sp_model_p2p_bytes(const sp_model_t *model, int tp, int sequence_parallel);

/* Tensor-parallel collectives of one layer per microbatch. SP_ERR_INVALID (not logged) for NULL
 * arguments or tp < 1; *comm_p set only on success. */
sp_status_t sp_model_tp_comm(const sp_model_t *model, int tp, int sequence_parallel,
                             sp_model_tp_comm_t *comm_p);

/* Tokens per step: micro_batch * seq * microbatches * dp. */
double sp_model_tokens_per_step(const sp_model_t *model, long microbatches, long dp);

/* Model FLOPs of one training step over all ranks, the numerator of MFU:
 *   microbatches * dp * (layers * 3 * layer_fwd + 6bshV)
 * which equals 6 * sp_model_params() * tokens + layers * 3 * attn_core_fwd * microbatches * dp,
 * the standard 6N per token plus attention. For ffn = 4h, multi-head, causal 0 and B = b*m*dp
 * this is 72Bslh^2 (1 + s/6h) + 6BshV: Narayanan et al. 2021 (arXiv 2104.04473, appendix) give
 * 96Bslh^2 (1 + s/6h + V/16lh), which adds one forward of every layer for activation
 * recomputation. Recomputation is not counted here (model FLOPs, not hardware FLOPs), and the
 * count does not depend on tp or pp.
 * MFU = this / (step seconds * world * peak FLOP/s per device). */
double sp_model_flops_per_step(const sp_model_t *model, long microbatches, long dp);

#endif
