/* The GEMM shapes of the proxy's compute per layer part (gemm_plan.h). */
#include "gemm_plan.h"

#include <string.h>

const char *const sp_part_names[SP_PART_COUNT] = {
    "attn_fwd", "attn_dgrad", "attn_wgrad", "mlp_fwd", "mlp_dgrad",
    "mlp_wgrad", "logits_fwd", "logits_dgrad", "logits_wgrad",
};

static void add(sp_gemm_plan_t *p, sp_part_t part, int64_t batch, int64_t m, int64_t n, int64_t k)
{
    sp_gemm_t *g = &p->gemm[part][p->n[part]++];

    g->m = m;
    g->n = n;
    g->k = k;
    g->batch = batch;
    g->count = 1;
}

/* A weight of [in x out] applied to T tokens: forward, input gradient, weight gradient. */
static void linear(sp_gemm_plan_t *p, sp_part_t fwd, int64_t tokens, int64_t in, int64_t out)
{
    add(p, fwd, 1, tokens, out, in);
    add(p, (sp_part_t)(fwd + 1), 1, tokens, in, out);
    add(p, (sp_part_t)(fwd + 2), 1, in, out, tokens);
}

static int64_t at_least_1(int64_t x)
{
    return x > 0 ? x : 1;
}

sp_status_t sp_gemm_plan_build(const sp_model_t *m, int tp, sp_gemm_plan_t *plan_p)
{
    sp_gemm_plan_t p;
    int64_t t = tp > 0 ? tp : 1, b = m->micro_batch, s = m->seq, h = m->hidden;
    int64_t tokens = b * s, d = h / m->heads;
    int64_t hkv = d * (m->kv_heads > 0 ? m->kv_heads : m->heads);
    int64_t heads = at_least_1(m->heads / t), half = m->causal ? (s + 1) / 2 : s;
    int64_t ffn = at_least_1(m->ffn / t), vocab = at_least_1(m->vocab / t);

    if (tp < 1) {
        return SP_ERR_INVALID;
    }
    memset(&p, 0, sizeof(p));
    /* column-parallel QKV, row-parallel output projection */
    linear(&p, SP_PART_ATTN_FWD, tokens, h, at_least_1((h + 2 * hkv) / t));
    /* the core: scores [s x d][d x s], context [s x s][s x d]; backward dP, dV, dQ, dK */
    add(&p, SP_PART_ATTN_FWD, b * heads, s, half, d);
    add(&p, SP_PART_ATTN_FWD, b * heads, s, d, half);
    add(&p, SP_PART_ATTN_DGRAD, b * heads, s, half, d);
    add(&p, SP_PART_ATTN_DGRAD, b * heads, half, d, s);
    add(&p, SP_PART_ATTN_DGRAD, b * heads, s, d, half);
    add(&p, SP_PART_ATTN_DGRAD, b * heads, half, d, s);
    linear(&p, SP_PART_ATTN_FWD, tokens, at_least_1(h / t), h);
    /* column-parallel up (gate and up as one GEMM when gated), row-parallel down */
    linear(&p, SP_PART_MLP_FWD, tokens, h, (m->gated_mlp ? 2 : 1) * ffn);
    linear(&p, SP_PART_MLP_FWD, tokens, ffn, h);
    linear(&p, SP_PART_LOGITS_FWD, tokens, h, vocab);
    *plan_p = p;
    return SP_OK;
}

double sp_gemm_plan_part_flops(const sp_gemm_plan_t *plan, sp_part_t part)
{
    double f = 0.0;

    for (int i = 0; i < plan->n[part]; i++) {
        f += sp_gemm_flops(&plan->gemm[part][i]);
    }
    return f;
}
