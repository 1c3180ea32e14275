/* The engine of the training proxy: runs one rank's step program (proxies/program.h) on a
 * backend's streams, one stream per lane (compute, tensor-parallel, 8 pipeline point-to-point,
 * 2 data-parallel, the embedding group's), ordered by events, so communication overlaps compute
 * for real; then measures every task's interval and derives the step's metrics. */
#ifndef SP_ENGINE_H
#define SP_ENGINE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "gemm_plan.h"
#include "program.h"
#include "proxy_result.h"
#include "status.h"
#include "timeline.h"
#include "watchdog.h"

/* The communicators of one rank (from sp_layout_split): world, and its TP, PP and DP groups,
 * whose rank is the rank's coordinate; colors number the groups of a family. emb: the embedding
 * group (sp_program_embedding_group; a stage outside it: a communicator of its own), needed only
 * when the configuration has the group, else MPI_COMM_NULL. */
typedef struct {
    MPI_Comm world, tp, pp, dp, emb;
    int tp_color, dp_color, emb_color;
} sp_engine_comms_t;

typedef struct sp_engine sp_engine_t;

/* Create the engine: builds the program of this rank (cfg->stage is taken from the PP group,
 * cfg->tp and cfg->dp must be the group sizes), its events, lane buffers in backend memory and
 * streams (created only for the lanes the layout uses, in one order on every rank). Collective
 * over world. SP_ERR_INVALID (logged) for a program sp_program_build rejects; SP_ERR_UNSUPPORTED
 * for a backend without event_query; SP_ERR_NOMEM. Tasks in flight are bounded by
 * SP_ENGINE_INFLIGHT_DEFAULT until sp_engine_set_inflight. Destroy with sp_engine_destroy
 * (collective over world; NULL is a no-op). */
sp_status_t sp_engine_create(const sp_backend_t *be, const sp_engine_comms_t *comms,
                             const sp_program_config_t *cfg, sp_engine_t **eng_p);
void sp_engine_destroy(sp_engine_t *eng);

/* Show every completed task of a step to wd as progress (sp_watchdog_alive), so a rank
 * computing is alive however long its step; NULL: none. Needs the backend's event_query. */
void sp_engine_set_watchdog(sp_engine_t *eng, sp_watchdog_t *wd);

/* --max-inflight: tasks enqueued and not yet complete on one lane (its stream). The bound keeps
 * the enqueuing thread out of a full stream queue (a CUDA launch queue, a host stream's ring),
 * where it would block while a peer waits for a task it has not enqueued on another lane; the
 * lane feeder (lanefeed.h) enqueues around a full lane instead, in an order that cannot
 * deadlock. A task is at most 3 + SP_TASK_MAX_DEPS stream entries: 256 x 9 fits a host stream's
 * 4096. All lanes together: SP_ENGINE_INFLIGHT_TOTAL_FACTOR x the bound, at least one per lane. */
#define SP_ENGINE_INFLIGHT_DEFAULT 16
#define SP_ENGINE_INFLIGHT_MAX 256
#define SP_ENGINE_INFLIGHT_TOTAL_FACTOR 4

/* The bound on tasks in flight on all lanes for a per-lane bound. */
int sp_engine_inflight_total(int max_inflight);

/* Set the per-lane bound (1 .. SP_ENGINE_INFLIGHT_MAX) and the deadline of the step's waits for
 * room or completion: no task completing for timeout_s (longer while a compute task predicted
 * longer runs, the watchdog's rule) ends the step with SP_ERR_TIMEOUT, logged by this rank;
 * <= 0: no deadline. Not collective; before the first step; SP_ERR_NOMEM. */
sp_status_t sp_engine_set_inflight(sp_engine_t *eng, int max_inflight, double timeout_s);

/* What the bound did over the steps run so far: the most tasks in flight on one lane and on
 * all lanes, and how many polls ended with tasks that had to wait for room. */
void sp_engine_inflight_stats(const sp_engine_t *eng, int *peak_lane_p, int *peak_total_p,
                              uint64_t *held_p);

/* Real GEMMs for the compute tasks (--compute gemm): each compute task runs the GEMMs of its
 * parts (program.h) in the shapes of plan, on the compute lane, with the math library's threads
 * pinned to `threads`. Sets up the backend (gemm_setup), then calibrates: one layer's forward,
 * input- and weight-gradient GEMMs timed on the compute lane of every rank at once (one
 * unmeasured run, then runs until 3 or 0.2 s), the rate the mean over ranks; every compute
 * task's nominal duration (dur_ns, the slowdown's denominator) becomes its FLOPs at that rate.
 * desc: what computes (or, on failure, this rank's reason; rank 0 logs it). *tflops_p: the
 * agreed rate, TFLOP/s. Collective over world; before the first step. */
sp_status_t sp_engine_set_gemm(sp_engine_t *eng, const sp_gemm_plan_t *plan, int threads,
                               char *desc, size_t desclen, double *tflops_p);

/* The program this rank runs. */
const sp_program_t *sp_engine_program(const sp_engine_t *eng);

/* Run one step: barrier over world, enqueue every task, wait for all streams, read the
 * intervals, then (outside the timed part) the metrics of this rank: the row's step, rank and
 * coordinates are filled too. Collective over world. *row_p set only on success. */
sp_status_t sp_engine_step(sp_engine_t *eng, int step, sp_proxy_rank_row_t *row_p);

/* Record the last step's tasks on the timeline on this host's clock: compute tasks as forward /
 * backward / wgrad, collectives as coll (seq unique per group instance and step), point-to-point
 * as send / recv; lane = the task's lane. Not collective. Returns how many it offered. */
size_t sp_engine_record(const sp_engine_t *eng, int step, sp_timeline_t *tl);

#endif
