/* Transformer cost model: presets, FLOPs per layer and per step, parameter, activation and
 * tensor-parallel message sizes. Formulas and their sources are in model.h. */
#include "model.h"

#include <stdio.h>
#include <string.h>

#include "log.h"

/* Shapes checked against public sources (numbers only):
 * - gpt3-175b: Brown et al. 2020 (arXiv 2005.14165), table 2.1: 96 layers, d_model 12288,
 *   96 heads, context 2048, ffn = 4 * d_model; vocabulary 50257, the GPT-2 BPE it reuses
 *   (Megatron pads it to 51200 for its benchmark table; override vocab to match that).
 * - llama3-8b / llama3-70b: the Meta-Llama-3 config.json on Hugging Face: hidden 4096 / 8192,
 *   intermediate 14336 / 28672, 32 / 80 layers, 32 / 64 heads, 8 key/value heads, vocabulary
 *   128256, SiLU-gated MLP, context 8192.
 * - llama3-405b: Llama 3.1 405B (Dubey et al. 2024, "The Llama 3 Herd of Models", table 3, and
 *   its config.json): hidden 16384, FFN 53248, 126 layers, 128 heads, 8 key/value heads,
 *   vocabulary 128256. Pre-training ran at 8192 tokens before the long-context stage. */
/* One row per preset; every preset has micro-batch 1, bfloat16 and the full-s² convention. */
#define SP_PRESET(n_, h_, l_, heads_, ffn_, s_, v_, kv_, gated_)                                  \
    {.name = n_, .hidden = h_, .layers = l_, .heads = heads_, .ffn = ffn_, .seq = s_,             \
     .micro_batch = 1, .vocab = v_, .kv_heads = kv_, .gated_mlp = gated_,                         \
     .dtype = SP_DTYPE_BFLOAT16, .causal = 0}
static const sp_model_t model_presets[] = {
    /*         name           hidden  layers heads  ffn        seq   vocab   kv  gated */
    SP_PRESET("gpt3-175b",   12288, 96,  96,  4 * 12288, 2048, 50257,  96, 0),
    SP_PRESET("llama3-8b",   4096,  32,  32,  14336,     8192, 128256, 8,  1),
    SP_PRESET("llama3-70b",  8192,  80,  64,  28672,     8192, 128256, 8,  1),
    SP_PRESET("llama3-405b", 16384, 126, 128, 53248,     8192, 128256, 8,  1),
    /* the host backend's default: a step well under a second at 0.5 TFLOP/s on one rank; the
     * Llama structure (gated MLP, 8 key/value heads), so overrides give what llama3-8b's do */
    SP_PRESET("tiny",        256,   8,   16,  1024,      128,  4096,   8,  1),
};
#undef SP_PRESET

#define MODEL_PRESET_COUNT ((int)(sizeof(model_presets) / sizeof(model_presets[0])))

int sp_model_preset_count(void)
{
    return MODEL_PRESET_COUNT;
}

const char *sp_model_preset_name(int i)
{
    if (i < 0 || i >= MODEL_PRESET_COUNT) {
        return NULL;
    }
    return model_presets[i].name;
}

sp_status_t sp_model_preset(const char *name, sp_model_t *model_p)
{
    if (model_p == NULL) {
        sp_error("sp_model_preset: no model to fill");
        return SP_ERR_INVALID;
    }
    for (int i = 0; name != NULL && i < MODEL_PRESET_COUNT; i++) {
        if (strcmp(name, model_presets[i].name) == 0) {
            *model_p = model_presets[i];
            return SP_OK;
        }
    }
    /* no message here: every rank parses its options, and the caller's one message (rank 0's)
     * names the presets */
    return SP_ERR_INVALID;
}

/* Key/value heads, with 0 standing for multi-head attention. */
static long model_kv_heads(const sp_model_t *m)
{
    return m->kv_heads > 0 ? m->kv_heads : m->heads;
}

/* Width of the K and V projections: kv_heads heads of hidden/heads each. */
static double model_kv_width(const sp_model_t *m)
{
    return (double)m->hidden / (double)m->heads * (double)model_kv_heads(m);
}

static void model_err(char *err, size_t errlen, const char *what, long value)
{
    if (err != NULL && errlen > 0) {
        snprintf(err, errlen, "model %s must be >= 1 (got %ld)", what, value);
    }
}

sp_status_t sp_model_check(const sp_model_t *m, char *err, size_t errlen)
{
    const struct {
        const char *what;
        long value;
    } sizes[] = {
        {"hidden", m ? m->hidden : 0}, {"layers", m ? m->layers : 0},
        {"heads", m ? m->heads : 0},   {"ffn", m ? m->ffn : 0},
        {"seq", m ? m->seq : 0},       {"micro_batch", m ? m->micro_batch : 0},
        {"vocab", m ? m->vocab : 0},
    };

    if (m == NULL) {
        if (err != NULL && errlen > 0) {
            snprintf(err, errlen, "no model");
        }
        return SP_ERR_INVALID;
    }
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        if (sizes[i].value < 1) {
            model_err(err, errlen, sizes[i].what, sizes[i].value);
            return SP_ERR_INVALID;
        }
    }
    if (m->hidden % m->heads != 0) {
        if (err != NULL && errlen > 0) {
            snprintf(err, errlen, "model hidden %ld is not a multiple of heads %ld", m->hidden,
                     m->heads);
        }
        return SP_ERR_INVALID;
    }
    if (m->kv_heads < 0 || m->heads % model_kv_heads(m) != 0) {
        if (err != NULL && errlen > 0) {
            snprintf(err, errlen, "model heads %ld is not a multiple of kv_heads %ld", m->heads,
                     m->kv_heads);
        }
        return SP_ERR_INVALID;
    }
    if ((m->gated_mlp != 0 && m->gated_mlp != 1) || (m->causal != 0 && m->causal != 1)) {
        if (err != NULL && errlen > 0) {
            snprintf(err, errlen, "model gated_mlp and causal must be 0 or 1 (got %d, %d)",
                     m->gated_mlp, m->causal);
        }
        return SP_ERR_INVALID;
    }
    if ((int)m->dtype < 0 || m->dtype >= SP_DTYPE_COUNT) {
        if (err != NULL && errlen > 0) {
            snprintf(err, errlen, "model dtype %d is unknown", (int)m->dtype);
        }
        return SP_ERR_INVALID;
    }
    return SP_OK;
}

sp_status_t sp_model_flops(const sp_model_t *m, int tp, sp_model_flops_t *flops_p)
{
    sp_model_flops_t f;
    double b, s, h, ffn, v, t;

    if (m == NULL || flops_p == NULL || tp < 1) {
        return SP_ERR_INVALID;
    }
    b = (double)m->micro_batch;
    s = (double)m->seq;
    h = (double)m->hidden;
    ffn = (double)m->ffn;
    v = (double)m->vocab;
    t = (double)tp;

    /* 2 FLOPs per multiply-add. Q and O are h x h, K and V h x hkv: 2bs(2h^2 + 2h*hkv). */
    f.attn_proj_fwd = 4.0 * b * s * h * (h + model_kv_width(m)) / t;
    /* QK^T and scores*V, each 2bs^2h over all heads; GQA shares K and V but not this work.
     * A causal mask leaves half the score matrix to compute (flash-attention kernels skip the
     * rest); Megatron's formula counts all of it, hence the default causal = 0. */
    f.attn_core_fwd = (m->causal ? 2.0 : 4.0) * b * s * s * h / t;
    /* Two (or, gated, three) h x ffn GEMMs: 4bsh*ffn or 6bsh*ffn; 16bsh^2 for ffn = 4h, so the
     * layer is Megatron's 24bsh^2 + 4bs^2h in that case. */
    f.mlp_fwd = (m->gated_mlp ? 6.0 : 4.0) * b * s * h * ffn / t;
    f.layer_fwd = f.attn_proj_fwd + f.attn_core_fwd + f.mlp_fwd;
    /* Backward computes the input gradient and the weight gradient, each a forward's worth. */
    f.layer_bwd = 2.0 * f.layer_fwd;
    /* The output layer is vocabulary-parallel over tp in Megatron. */
    f.logits_fwd = 2.0 * b * s * h * v / t;
    f.logits = 3.0 * f.logits_fwd;
    *flops_p = f;
    return SP_OK;
}

double sp_model_layer_fwd_flops(const sp_model_t *m)
{
    sp_model_flops_t f;

    if (sp_model_flops(m, 1, &f) != SP_OK) {
        return 0.0;
    }
    return f.layer_fwd;
}

uint64_t sp_model_layer_params(const sp_model_t *m)
{
    uint64_t h = (uint64_t)m->hidden;
    uint64_t hkv = h / (uint64_t)m->heads * (uint64_t)model_kv_heads(m);
    uint64_t mlp = (m->gated_mlp ? 3u : 2u) * h * (uint64_t)m->ffn;

    return 2u * h * h + 2u * h * hkv + mlp;
}

void sp_model_sp_params(const sp_model_t *m, uint64_t *layer_p, uint64_t *final_p)
{
    uint64_t h = (uint64_t)m->hidden;

    *layer_p = m->gated_mlp ? 2 * h : 6 * h;
    *final_p = m->gated_mlp ? h : 2 * h;
}

uint64_t sp_model_layer_param_bytes(const sp_model_t *m, int tp)
{
    if (tp < 1) {
        return 0;
    }
    return sp_model_layer_params(m) / (uint64_t)tp * sp_dtype_size(m->dtype);
}

uint64_t sp_model_params(const sp_model_t *m)
{
    return (uint64_t)m->layers * sp_model_layer_params(m) +
           (uint64_t)m->vocab * (uint64_t)m->hidden;
}

uint64_t sp_model_activation_bytes(const sp_model_t *m)
{
    return (uint64_t)m->micro_batch * (uint64_t)m->seq * (uint64_t)m->hidden *
           sp_dtype_size(m->dtype);
}

uint64_t sp_model_p2p_bytes(const sp_model_t *m, int tp, int sequence_parallel)
{
    if (tp < 1) {
        return 0;
    }
    return sequence_parallel ? sp_model_activation_bytes(m) / (uint64_t)tp
                             : sp_model_activation_bytes(m);
}

sp_status_t sp_model_tp_comm(const sp_model_t *m, int tp, int sequence_parallel,
                             sp_model_tp_comm_t *comm_p)
{
    sp_model_tp_comm_t c;

    if (m == NULL || comm_p == NULL || tp < 1) {
        return SP_ERR_INVALID;
    }
    memset(&c, 0, sizeof(c));
    c.elements = (uint64_t)m->micro_batch * (uint64_t)m->seq * (uint64_t)m->hidden;
    c.bytes = c.elements * sp_dtype_size(m->dtype);
    if (tp > 1) {
        /* Forward: one collective after attention's row-parallel output projection and one
         * after the MLP's; backward: the conjugates in front of the column-parallel inputs. */
        if (sequence_parallel) {
            c.allgather_fwd = 2;
            c.reducescatter_fwd = 2;
            c.allgather_bwd = 2;
            c.reducescatter_bwd = 2;
        } else {
            c.allreduce_fwd = 2;
            c.allreduce_bwd = 2;
        }
    }
    *comm_p = c;
    return SP_OK;
}

double sp_model_tokens_per_step(const sp_model_t *m, long microbatches, long dp)
{
    return (double)m->micro_batch * (double)m->seq * (double)microbatches * (double)dp;
}

double sp_model_flops_per_step(const sp_model_t *m, long microbatches, long dp)
{
    sp_model_flops_t f;

    if (sp_model_flops(m, 1, &f) != SP_OK) {
        return 0.0;
    }
    return (double)microbatches * (double)dp *
           ((double)m->layers * (f.layer_fwd + f.layer_bwd) + f.logits);
}
