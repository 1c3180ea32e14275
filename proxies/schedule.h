/* Pipeline schedules of the training proxy as pure functions: the ordered op list (forward,
 * backward, weight-gradient) one pipeline stage runs for one step. No MPI, no allocation; the
 * engine runs these lists and proxies/replay.h checks them. */
#ifndef SP_SCHEDULE_H
#define SP_SCHEDULE_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

/* Adding a schedule: one enum value here, one row in the table in schedule.c. */
typedef enum {
    SP_SCHED_GPIPE = 0,
    SP_SCHED_1F1B = 1,
    SP_SCHED_INTERLEAVED = 2,
    SP_SCHED_ZBH1 = 3,
    SP_SCHED_COUNT
} sp_sched_kind_t;

/* Op types. For SP_SCHED_ZBH1 a backward is split into B (input gradient, the only part the
 * upstream stage waits for) and W (weight gradient); the other schedules have no W and B is the
 * whole backward. */
enum { SP_SCHED_OP_F = 0, SP_SCHED_OP_B = 1, SP_SCHED_OP_W = 2 };

typedef struct {
    int8_t type;        /* SP_SCHED_OP_F, _B or _W */
    int32_t microbatch; /* 0..m-1 */
    int32_t chunk;      /* model chunk on this stage, 0..v-1; virtual stage chunk*p + stage */
} sp_sched_op_t;

/* Name of a kind ("gpipe", "1f1b", "interleaved", "zb-h1"); "?" for anything else. Static. */
const char *sp_schedule_kind_name(sp_sched_kind_t kind);

/* Kind for a name (exact, as sp_schedule_kind_name spells it). SP_ERR_INVALID for an unknown
 * name or NULL; *kind_p is set only on success. */
sp_status_t sp_schedule_kind_from_name(const char *name, sp_sched_kind_t *kind_p);

/* Number of ops one stage runs: 2*m*v for GPipe, 1F1B and interleaved (one F and one B per
 * microbatch and chunk), 3*m for ZB-H1 (F, B and W per microbatch). The same on every stage.
 * Returns 0 when the arguments are out of range (see sp_schedule_build). */
size_t sp_schedule_op_count(sp_sched_kind_t kind, int p, int m, int v);

/* Op list of pipeline stage `stage` (0..p-1) for p stages, m microbatches and v model chunks
 * per stage, written to ops[0..*n_p). Writes nothing else; allocates nothing.
 *
 * Validation (SP_ERR_INVALID, logged, nothing written to *n_p):
 *   p >= 1, m >= 1, 0 <= stage < p, ops and n_p not NULL, max >= sp_schedule_op_count();
 *   v == 1 for GPipe, 1F1B and ZB-H1;
 *   interleaved: p >= 2 (Megatron runs no pipelining at all for p == 1), v >= 2 and
 *   m % p == 0. Megatron requires the microbatch group size N to lie in [p, m] and m % N to be 0
 *   or >= p; with its default N = p both reduce to m % p == 0.
 *   Counts are limited so that 3*m*v fits in an int32.
 *
 * Orders, with W = the stage's warm-up count:
 *   GPipe: F(0..m-1) then B(0..m-1). Backwards run in forward (FIFO) order, the order in which
 *     Megatron consumes microbatches everywhere; with uniform op times the makespan is the same
 *     as for the reverse order.
 *   1F1B (Megatron forward_backward_pipelining_without_interleaving): W = min(p-stage-1, m)
 *     forwards F(0..W-1); then for i = 0..m-W-1: F(W+i), B(i); then B(m-W..m-1). For p == 1
 *     this is F0 B0 F1 B1 ..., Megatron's forward_backward_no_pipelining order.
 *   Interleaved 1F1B (Megatron forward_backward_pipelining_with_interleaving, N = p): the
 *     schedule table takes microbatches in groups of N (the last group takes what is left) and,
 *     per group, for chunk c = 0..v-1, for each microbatch mb of the group, appends (mb, c).
 *     Forward k runs entry k; backward k runs entry k's microbatch on chunk v-1-c.
 *     W = min((p-stage-1)*2 + (v-1)*N, m*v) forwards; then for k = 0..m*v-W-1: forward W+k,
 *     backward k; then backwards m*v-W..m*v-1.
 *   ZB-H1 (Qi et al. 2023, "Zero Bubble Pipeline Parallelism", handcrafted H1): the 1F1B order
 *     of F and B (same warm-up min(p-stage-1, m), same steady F(W+i), B(i) pairs, same
 *     cool-down B's), with W(j) placed right after B(j + stage); the W's that have no such B
 *     (the last min(stage, m) microbatches) follow the final B in microbatch order. Delaying W
 *     by `stage` keeps p microbatches in flight (F done, W not) on every stage, 1F1B's peak on
 *     stage 0, and lets the delayed W's fill the cool-down bubble of the later stages.
 */
sp_status_t sp_schedule_build(sp_sched_kind_t kind, int p, int m, int v, int stage,
                              sp_sched_op_t *ops, size_t max, size_t *n_p);

#endif
