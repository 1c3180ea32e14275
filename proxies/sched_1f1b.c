/* 1F1B, Megatron-LM's forward_backward_pipelining_without_interleaving, and the F/B order that
 * ZB-H1 shares (sp__sched_1f1b_lagged_w).
 * Order on stage r, with W = min(p-r-1, m) warm-up forwards: F(0..W-1); then for
 * i = 0..m-W-1: F(W+i), B(i); then B(m-W..m-1). For p == 1 this is F0 B0 F1 B1 ...,
 * Megatron's forward_backward_no_pipelining order. */
#include "sched_hooks.h"

void sp__sched_1f1b_lagged_w(int p, int m, int stage, int w_lag, sp_sched_op_t *ops)
{
    const int warmup = p - stage - 1 < m ? p - stage - 1 : m;
    size_t n = 0;
    int next_w = 0;

    for (int i = 0; i < warmup; i++) {
        sp__sched_emit(ops, &n, SP_SCHED_OP_F, i, 0);
    }
    for (int b = 0; b < m; b++) {
        if (b < m - warmup) {
            sp__sched_emit(ops, &n, SP_SCHED_OP_F, warmup + b, 0);
        }
        sp__sched_emit(ops, &n, SP_SCHED_OP_B, b, 0);
        if (w_lag >= 0 && b - w_lag >= 0) {
            sp__sched_emit(ops, &n, SP_SCHED_OP_W, b - w_lag, 0);
            next_w = b - w_lag + 1;
        }
    }
    for (int mb = next_w; w_lag >= 0 && mb < m; mb++) {
        sp__sched_emit(ops, &n, SP_SCHED_OP_W, mb, 0);
    }
}

static sp_status_t build(int p, int m, int v, int stage, sp_sched_op_t *ops)
{
    (void)v;
    sp__sched_1f1b_lagged_w(p, m, stage, -1, ops);
    return SP_OK;
}

const sp_schedule_t sp_sched_1f1b = {
    .invalid = sp__sched_needs_v1,
    .split_bw = 0,
    .placement = &sp_sched_place_loop,
    .build = build,
};
