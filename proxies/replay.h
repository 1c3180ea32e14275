/* Discrete-event replay of a pipeline schedule: every stage runs its op list in order with
 * fixed op durations and zero communication time, giving the makespan and per-stage busy and
 * idle (bubble) time. Used to check schedules and to predict the bubble the engine measures. */
#ifndef SP_REPLAY_H
#define SP_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "schedule.h"
#include "status.h"

/* Durations of one op on one chunk, in any integer unit (ns in the engine). t_w is used only
 * by W ops (ZB-H1, ZB-V); for the other schedules B is the whole backward and takes t_b. */
typedef struct {
    int64_t t_f;
    int64_t t_b;
    int64_t t_w;
} sp_replay_cost_t;

/* Replay p stages' op lists of schedule `kind`: ops[r][0..n_ops[r]) is stage r's list (as
 * sp_schedule_build makes it) for m microbatches and v chunks per stage. Each stage runs its
 * list in order, an op starting when the previous op of the stage has finished and its
 * dependencies are met, with V = p*v virtual stages placed by the schedule's placement
 * (sp_schedule_vstage: chunk*p + r for Megatron's, r and 2p-1-r for ZB-V's V):
 *   F(mb, s) needs F(mb, s-1) (none for s = 0);
 *   B(mb, s) needs F(mb, s) and, for s < V-1, B(mb, s+1);
 *   W(mb, s) needs B(mb, s).
 * Only the kind's placement is used, so any lists can be replayed under a kind whose (p, m, v)
 * is valid. Outputs: *makespan_p, the end of the last op; busy[r], the summed durations of stage
 * r's ops; idle[r] = makespan - busy[r], the stage's bubble. busy and idle have p entries each
 * and may be NULL. Outputs are written only on success.
 * Returns SP_ERR_INVALID (logged) for bad arguments (an unknown kind or one that cannot run with
 * (p, m, v), a negative duration, an op with an unknown type or a microbatch or chunk out of
 * range, an op listed twice on a stage) and when the lists deadlock: some stage waits for an op
 * that never runs. Always terminates. SP_ERR_NOMEM when the O(m*p*v) bookkeeping cannot be
 * allocated; nothing is kept.
 *
 * Closed forms the replay reproduces exactly (tests/unit/test_schedule.c), idle being the same
 * on every stage:
 *   GPipe, 1F1B (any m):        makespan (m + p - 1)(t_f + t_b),   idle (p-1)(t_f + t_b);
 *   interleaved (m % p == 0):   makespan (m*v + p - 1)(t_f + t_b), idle (p-1)(t_f + t_b),
 *                               with per-chunk t_f, t_b: bubble fraction (p-1)/(v*m);
 *   ZB-H1 (m >= p and t_w <= min(t_f, t_b)):
 *                               makespan m(t_f + t_b + t_w) + (p-1)(t_f + t_b - t_w),
 *                               idle (p-1)(t_f + t_b - t_w); outside these conditions it
 *                               was larger in every case tried (p <= 8, m <= 24);
 *   ZB-V (m >= 2p, t_f = t_b = t_w = t per chunk):
 *                               makespan (6m + p - 1)t, idle (p-1)t: bubble fraction
 *                               (p-1)/(6m + p - 1), the start-up of stage p-1 only. */
sp_status_t sp_replay_run(sp_sched_kind_t kind, int p, int m, int v,
                          const sp_sched_op_t *const *ops, const size_t *n_ops,
                          const sp_replay_cost_t *cost, int64_t *busy, int64_t *idle,
                          int64_t *makespan_p);

/* The same with costs[r] the durations of stage r's ops (p entries): stages of unequal work,
 * e.g. the last one also computing the logits. */
sp_status_t sp_replay_run_staged(sp_sched_kind_t kind, int p, int m, int v,
                                 const sp_sched_op_t *const *ops, const size_t *n_ops,
                                 const sp_replay_cost_t *costs, int64_t *busy, int64_t *idle,
                                 int64_t *makespan_p);

#endif
