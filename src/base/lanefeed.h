/* The lane feeder: enqueues a program's ops onto in-order lanes (streams) with a bounded number
 * in flight per lane and in all, so the enqueuing thread never blocks inside a stream's launch
 * queue, and never in an order that can deadlock against a peer. No CUDA, no MPI: the backend
 * is reached through hooks, so the same logic runs under a unit test's simulated device.
 *
 * Rules (lanefeed.c proves that they cannot add a deadlock):
 *   - a lane's ops are enqueued in program order; an op only after its dependencies;
 *   - among the lanes whose next op may be enqueued, the lowest program index goes first (with
 *     room everywhere this is the program order itself);
 *   - a lane holds at most per_lane ops in flight (enqueued, not known complete); all lanes
 *     together at most total, of which one slot per used lane is reserved for that lane: a lane
 *     with nothing in flight may always take its next op;
 *   - when nothing can be enqueued and nothing has completed, the caller's idle hook waits (and
 *     bounds the wait by its deadline); the feeder never waits inside an enqueue. */
#ifndef SP_LANEFEED_H
#define SP_LANEFEED_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

typedef struct sp_lanefeed sp_lanefeed_t;

typedef struct {
    int per_lane; /* ops in flight on one lane, >= 1 */
    int total;    /* ops in flight on all lanes, >= the number of lanes the program uses */
} sp_lanefeed_limits_t;

/* One op of the program: its lane (0 .. nlanes-1) and the earlier ops it waits for (indices
 * below its own; same-lane ones are implied by the lane's order). Called at create only. */
typedef int (*sp_lanefeed_describe_fn)(void *ctx, size_t op, const int32_t **deps_p,
                                       int *ndeps_p);

typedef struct {
    /* Enqueue op on its lane; every dependency has been enqueued before. Must not wait. */
    sp_status_t (*enqueue)(void *ctx, size_t op);
    /* *done_p = 1 when op has completed; never waits. Asked only of the oldest op in flight
     * of a lane (a lane completes in its order). */
    sp_status_t (*query)(void *ctx, size_t op, int *done_p);
    /* A round enqueued nothing and saw nothing complete: wait a little. rounds counts such
     * rounds in a row (1 first). A status other than SP_OK ends the run with it (a deadline). */
    sp_status_t (*idle)(void *ctx, unsigned rounds);
} sp_lanefeed_hooks_t;

typedef struct {
    int peak_lane;      /* most ops in flight on one lane, over all runs */
    int peak_total;     /* most ops in flight on all lanes */
    uint64_t held;      /* polls that ended with ops left that could not go yet */
} sp_lanefeed_stats_t;

/* A feeder for a program of n ops on nlanes lanes; describe gives each op. SP_ERR_INVALID (with
 * nothing allocated) when a lane or dependency is out of range, or the limits cannot hold the
 * lanes used; SP_ERR_NOMEM. Destroy with sp_lanefeed_destroy (NULL: no-op). */
sp_status_t sp_lanefeed_create(size_t n, int nlanes, const sp_lanefeed_limits_t *limits,
                               sp_lanefeed_describe_fn describe, void *ctx, sp_lanefeed_t **f_p);
void sp_lanefeed_destroy(sp_lanefeed_t *f);

/* Lanes with at least one op: the least `total` a program needs. */
int sp_lanefeed_lanes_used(const sp_lanefeed_t *f);

/* A run in steps, for callers that interleave several feeders (the unit test's simulated
 * ranks): begin, then poll until *finished_p; each poll retires what completed and enqueues
 * what may be; *progress_p = 1 when it did either. Allocates nothing. */
void sp_lanefeed_begin(sp_lanefeed_t *f);
sp_status_t sp_lanefeed_poll(sp_lanefeed_t *f, const sp_lanefeed_hooks_t *h, void *ctx,
                             int *progress_p, int *finished_p);

/* One whole run: every op enqueued and seen complete, calling idle between rounds without
 * progress. Returns the first hook status other than SP_OK. Allocates nothing. */
sp_status_t sp_lanefeed_run(sp_lanefeed_t *f, const sp_lanefeed_hooks_t *h, void *ctx);

/* Ops in flight on one lane now (between polls). */
int sp_lanefeed_inflight(const sp_lanefeed_t *f, int lane);

/* 1 when op has been enqueued in the current run. */
int sp_lanefeed_enqueued(const sp_lanefeed_t *f, size_t op);

/* Ops of the current run not yet enqueued (0: the run only waits for completions). */
size_t sp_lanefeed_unqueued(const sp_lanefeed_t *f);

void sp_lanefeed_stats(const sp_lanefeed_t *f, sp_lanefeed_stats_t *stats_p);

#endif
