/* Helpers shared by the schedule files (proxies/sched_*.c); internal to the schedules. */
#ifndef SP_SCHED_HOOKS_H
#define SP_SCHED_HOOKS_H

#include "schedule.h"

/* Append op (type, microbatch, chunk) at ops[*n] and advance *n. */
void sp__sched_emit(sp_sched_op_t *ops, size_t *n, int type, int microbatch, int chunk);

/* `invalid` hooks: v must be 1 / v must be 2. */
const char *sp__sched_needs_v1(int p, int m, int v);
const char *sp__sched_needs_v2(int p, int m, int v);

/* 1F1B's F/B order (Megatron's warm-up min(p-stage-1, m)). w_lag < 0: no W ops; otherwise W(j)
 * follows B(j + w_lag) and the W's left over follow the last B (ZB-H1). */
void sp__sched_1f1b_lagged_w(int p, int m, int stage, int w_lag, sp_sched_op_t *ops);

#endif
