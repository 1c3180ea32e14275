/* Pipeline schedules of the training proxy as pure functions: the ordered op list (forward,
 * backward, weight-gradient) one pipeline stage runs for one step, and the placement of virtual
 * stages on stages. No MPI; the engine runs these lists and proxies/replay.h checks them. */
#ifndef SP_SCHEDULE_H
#define SP_SCHEDULE_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

/* The registry: one line per schedule, X(kind, name, row). The row, `const sp_schedule_t
 * row`, is defined in proxies/sched_<name>.c. Adding a schedule is that file and one line here;
 * the kind enum, the names (the --schedule choices) and the table all come from this list. */
#define SP_SCHEDULE_LIST(X)                                                                        \
    X(SP_SCHED_GPIPE, "gpipe", sp_sched_gpipe)                                                     \
    X(SP_SCHED_1F1B, "1f1b", sp_sched_1f1b)                                                        \
    X(SP_SCHED_INTERLEAVED, "interleaved", sp_sched_interleaved)                                   \
    X(SP_SCHED_ZBH1, "zb-h1", sp_sched_zbh1)                                                       \
    X(SP_SCHED_ZBV, "zb-v", sp_sched_zbv)

#define SP_SCHED_ENUM_(kind, name, row) kind,
typedef enum { SP_SCHEDULE_LIST(SP_SCHED_ENUM_) SP_SCHED_COUNT } sp_sched_kind_t;
#undef SP_SCHED_ENUM_

/* Op types. A schedule that splits the backward (split_bw) runs B (input gradient, the only part
 * the upstream virtual stage waits for) and W (weight gradient); the others have no W and B is
 * the whole backward. */
enum { SP_SCHED_OP_F = 0, SP_SCHED_OP_B = 1, SP_SCHED_OP_W = 2 };

typedef struct {
    int8_t type;        /* SP_SCHED_OP_F, _B or _W */
    int32_t microbatch; /* 0..m-1 */
    int32_t chunk;      /* model chunk on this stage, 0..v-1; its virtual stage is the
                         * placement's (sp_schedule_vstage) */
} sp_sched_op_t;

/* Where the p*v virtual stages (model chunks in model order) live: virtual stage of chunk c on
 * stage r, and the inverse. Both are bijections between [0, p*v) and [0, p) x [0, v). */
typedef struct {
    const char *name; /* "loop": chunk*p + stage; "v": stage, then 2p-1-stage */
    int (*vstage)(int p, int v, int stage, int chunk);
    void (*locate)(int p, int v, int vstage, int *stage_p, int *chunk_p);
} sp_sched_placement_t;

extern const sp_sched_placement_t sp_sched_place_loop, sp_sched_place_v;

/* One schedule: a row of the registry. */
typedef struct sp_schedule {
    /* why (p, m, v) cannot run, beyond p, m, v >= 1 and m*v small enough (checked first), as a
     * static string; NULL when it can */
    const char *(*invalid)(int p, int m, int v);
    /* 1: the backward is split into B and W (3*m*v ops per stage), 0: 2*m*v ops */
    int split_bw;
    const sp_sched_placement_t *placement;
    /* write stage's sp_schedule_op_count() ops to ops (room checked by the caller) after the
     * checks above passed; SP_ERR_NOMEM when scratch memory cannot be had, SP_ERR_INVALID
     * (logged) for an order it cannot build, else SP_OK */
    sp_status_t (*build)(int p, int m, int v, int stage, sp_sched_op_t *ops);
    /* optional (NULL: the schedule has no microbatch group size): why (p, m, v) with group size
     * n cannot run, replacing `invalid`; and the build with that group size */
    const char *(*invalid_grouped)(int p, int m, int v, int n);
    sp_status_t (*build_grouped)(int p, int m, int v, int n, int stage, sp_sched_op_t *ops);
} sp_schedule_t;

/* The row of a kind; NULL for anything else. Static. */
const sp_schedule_t *sp_schedule_get(sp_sched_kind_t kind);

/* Names in kind order ("gpipe", "1f1b", "interleaved", "zb-h1", "zb-v"), for option tables. */
extern const char *const sp_schedule_names[SP_SCHED_COUNT];

/* Name of a kind; "?" for anything else. Static. */
const char *sp_schedule_kind_name(sp_sched_kind_t kind);

/* Kind for a name (exact, as sp_schedule_kind_name spells it). SP_ERR_INVALID for an unknown
 * name or NULL; *kind_p is set only on success. */
sp_status_t sp_schedule_kind_from_name(const char *name, sp_sched_kind_t *kind_p);

/* Why kind cannot run with (p, m, v), as a static string for messages; NULL when it can. */
const char *sp_schedule_why_invalid(sp_sched_kind_t kind, int p, int m, int v);

/* Number of ops one stage runs: 2*m*v (one F and one B per microbatch and chunk), 3*m*v for a
 * schedule that splits B and W. The same on every stage. 0 when the arguments are out of range
 * (sp_schedule_why_invalid). */
size_t sp_schedule_op_count(sp_sched_kind_t kind, int p, int m, int v);

/* Placement of kind: the virtual stage chunk `chunk` of stage `stage` holds, and the stage and
 * chunk holding virtual stage `vstage`. Arguments must be in range (kind valid, 0 <= stage < p,
 * 0 <= chunk < v, 0 <= vstage < p*v); out of range gives -1 / -1, -1. */
int sp_schedule_vstage(sp_sched_kind_t kind, int p, int v, int stage, int chunk);
void sp_schedule_locate(sp_sched_kind_t kind, int p, int v, int vstage, int *stage_p, int *chunk_p);

/* 1 when kind splits the backward into B and W, else 0. */
int sp_schedule_splits_bw(sp_sched_kind_t kind);

/* Op list of pipeline stage `stage` (0..p-1) for p stages, m microbatches and v model chunks
 * per stage, written to ops[0..*n_p). Writes nothing else. Allocates nothing except zb-v,
 * which simulates all stages with O(p) scratch memory (SP_ERR_NOMEM).
 *
 * Validation (SP_ERR_INVALID, logged, nothing written to *n_p):
 *   p >= 1, m >= 1, 0 <= stage < p, ops and n_p not NULL, max >= sp_schedule_op_count();
 *   v == 1 for GPipe, 1F1B and ZB-H1; v == 2 for ZB-V;
 *   interleaved: p >= 2 (Megatron runs no pipelining at all for p == 1), v >= 2 and
 *   m % p == 0. Megatron requires the microbatch group size N to lie in [p, m] and m % N to be 0
 *   or >= p; with its default N = p both reduce to m % p == 0.
 *   Counts are limited so that 3*m*v fits in an int32.
 *
 * The orders are documented in each schedule's file (proxies/sched_<name>.c) and in
 * docs/METHODOLOGY.md; the closed forms the replay reproduces are in proxies/replay.h. */
sp_status_t sp_schedule_build(sp_sched_kind_t kind, int p, int m, int v, int stage,
                              sp_sched_op_t *ops, size_t max, size_t *n_p);

/* The same with microbatch group size `group` (Megatron-LM's
 * --microbatch-group-size-per-virtual-pipeline-stage; 0: the schedule's default, p), which only
 * the interleaved schedule has: N in [p, m] and m % N either 0 or >= p (replacing m % p == 0). */
const char *sp_schedule_why_invalid_grouped(sp_sched_kind_t kind, int p, int m, int v, int group);
sp_status_t sp_schedule_build_grouped(sp_sched_kind_t kind, int p, int m, int v, int group,
                                      int stage, sp_sched_op_t *ops, size_t max, size_t *n_p);

#endif
