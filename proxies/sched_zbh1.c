/* ZB-H1 (Qi et al., "Zero Bubble Pipeline Parallelism", ICLR 2024, handcrafted H1): the 1F1B
 * order of F and B (same warm-up min(p-stage-1, m), same steady F(W+i), B(i) pairs, same
 * cool-down B's), with W(j) placed right after B(j + stage); the W's that have no such B (the
 * last min(stage, m) microbatches) follow the final B in microbatch order. Delaying W by `stage`
 * keeps p microbatches in flight (F done, W not) on every stage, 1F1B's peak on stage 0, and
 * lets the delayed W's fill the cool-down bubble of the later stages. */
#include "sched_hooks.h"

static sp_status_t build(int p, int m, int v, int stage, sp_sched_op_t *ops)
{
    (void)v;
    sp__sched_1f1b_lagged_w(p, m, stage, stage, ops);
    return SP_OK;
}

const sp_schedule_t sp_sched_zbh1 = {
    .invalid = sp__sched_needs_v1,
    .split_bw = 1,
    .placement = &sp_sched_place_loop,
    .build = build,
};
