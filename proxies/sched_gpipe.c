/* GPipe: every forward, then every backward.
 * Order on every stage: F(0..m-1) then B(0..m-1). Backwards run in forward (FIFO) order, the
 * order in which Megatron consumes microbatches everywhere; with uniform op times the makespan is
 * the same as for the reverse order. */
#include "sched_hooks.h"

static sp_status_t build(int p, int m, int v, int stage, sp_sched_op_t *ops)
{
    size_t n = 0;

    (void)p, (void)v, (void)stage;
    for (int mb = 0; mb < m; mb++) {
        sp__sched_emit(ops, &n, SP_SCHED_OP_F, mb, 0);
    }
    for (int mb = 0; mb < m; mb++) {
        sp__sched_emit(ops, &n, SP_SCHED_OP_B, mb, 0);
    }
    return SP_OK;
}

const sp_schedule_t sp_sched_gpipe = {
    .invalid = sp__sched_needs_v1,
    .split_bw = 0,
    .placement = &sp_sched_place_loop,
    .build = build,
};
