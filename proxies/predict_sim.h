/* The predictor of `scaleprobe predict`: a discrete-event simulation of the training proxy's
 * step programs (program.h) with communication costs from a model, and the cost models it is
 * fed with (alpha-beta, or a measured sweep interpolated in size and scaled to a group size).
 * Pure C: no MPI, no HDF5, no clock.
 *
 * Symmetry: every TP rank and every DP replica of one pipeline stage runs the same program, and
 * their TP and DP collectives only involve each other, so with equal costs they reach every
 * collective together. One representative program per stage is simulated; a collective starts
 * when its lane and its dependencies allow (no wait for peers) and lasts the model's time for its
 * group size. Only the pipeline couples stages: a SEND and its matching RECV (same lane, pair of
 * stages and tag) start together, when both have been reached, and end together; so do the
 * k-th collectives of the embedding group's lane on its two stages (a group of 2). */
#ifndef SP_PREDICT_SIM_H
#define SP_PREDICT_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "coll.h"
#include "intervals.h"
#include "program.h"
#include "proxy_result.h"
#include "status.h"

/* op of the cost callback for a pipeline message (collectives pass their sp_coll_kind_t). */
#define SP_PREDICT_OP_P2P (-1)

/* Time in ns of one communication task: op = the sp_coll_kind_t of a collective or
 * SP_PREDICT_OP_P2P; bytes = the task's bytes (nccl-tests' size: the whole buffer of an
 * all-reduce, the gathered total of an all-gather or reduce-scatter, the message of a send);
 * nranks = the group size (2 for a message). A negative or non-finite result means "no cost
 * known" and makes the simulation fail. */
typedef double (*sp_predict_cost_fn)(void *arg, int op, uint64_t bytes, int nranks);

/* Metrics of one stage's representative rank, the same definitions as the engine's
 * sp_proxy_rank_row_t (docs/METHODOLOGY.md, "Training proxy"); times in ms, NaN where a ratio
 * has no data. */
typedef struct {
    int64_t step_ns; /* end of the last task of any stage (the step, every stage the same) */
    int64_t busy_ns; /* union of this stage's compute intervals */
    sp_proxy_rank_row_t m; /* the engine's metrics (stepmetrics.h); identity fields unset */
} sp_predict_stage_t;

typedef struct {
    int p;
    sp_predict_stage_t *stages; /* p entries */
    /* spans[s][i]: task i of stage s's program, from when it was reached (its lane free and its
     * dependencies done: the engine's start event) to its end; ns from the step's start */
    sp_interval_t **spans;
    int64_t step_ns;
} sp_predict_result_t;

/* Simulate one step of progs[0..p) (progs[s] built with stage s of one configuration; tp and dp
 * are the TP and DP group sizes the collectives are costed for). On success *res is filled and
 * owned by the caller (sp_predict_result_free). SP_ERR_INVALID (logged) for bad arguments, a
 * send without its receive, a cost the callback does not know, or a deadlock; SP_ERR_NOMEM. */
sp_status_t sp_predict_run(const sp_program_t *progs, int p, int tp, int dp,
                           sp_predict_cost_fn cost, void *cost_arg, sp_predict_result_t *res);
/* The same, with wait_ns (>= 0) added to every dependency of a task on a task of another lane of
 * its stage: the cross-stream wait latency the engine pays where one lane's stream waits on
 * another's event (coll --issue stream measures it: /coll attribute stream_wait_us). */
sp_status_t sp_predict_run_wait(const sp_program_t *progs, int p, int tp, int dp,
                                sp_predict_cost_fn cost, void *cost_arg, int64_t wait_ns,
                                sp_predict_result_t *res);
void sp_predict_result_free(sp_predict_result_t *res); /* NULL or zeroed: no-op */

/* The group a collective on `lane` is costed for: tp for the TP lanes, 2 for the embedding
 * group's, dp for the others. */
int sp_predict_group_size(int lane, int tp, int dp);

/* ---- cost models ---- */

/* alpha + bytes * busbw_factor(n) / beta: nccl-tests' bus factors (all-reduce 2(n-1)/n,
 * all-gather and reduce-scatter (n-1)/n, messages 1). */
typedef struct {
    double alpha_us;
    double beta_gbps; /* GB/s = 1e9 B/s, > 0 */
} sp_predict_ab_t;

double sp_predict_cost_ab(void *arg, int op, uint64_t bytes, int nranks); /* arg: sp_predict_ab_t */

/* Measured times of one collective at one communicator size, by size. */
typedef struct {
    size_t n;
    uint64_t *bytes; /* increasing, distinct */
    double *time_ns;
} sp_predict_curve_t;

/* Time at `bytes` on a curve: linear in bytes between the two measured sizes around it (the
 * alpha-beta line through them: flat in the latency regime, the measured bandwidth in the
 * bandwidth regime);
 * beyond the largest, the line through the two largest points (time = alpha + bytes / bw; a
 * non-increasing pair scales the largest time by bytes instead); below the smallest, the line
 * through the two smallest, kept in [0, time of the smallest]. One point: that time below it,
 * scaled by bytes above. NAN for an empty curve. */
double sp_predict_curve_eval(const sp_predict_curve_t *c, uint64_t bytes);

/* A sweep's curves: one per collective, measured on `nranks` ranks. Messages (SP_PREDICT_OP_P2P)
 * use the sendrecv curve. */
typedef struct {
    int nranks;
    sp_predict_curve_t curve[SP_COLL_COUNT];
    size_t cap[SP_COLL_COUNT];
} sp_predict_sweep_t;

/* init: empty curves for a sweep over nranks ranks; add one measurement (several at one size
 * are averaged by finish); finish sorts every curve and makes it non-decreasing: each size's
 * time is the least of its own and every larger size's (a suffix minimum). add: SP_ERR_INVALID for a bad op or a
 * time that is not finite and > 0, SP_ERR_NOMEM. */
void sp_predict_sweep_init(sp_predict_sweep_t *sw, int nranks);
sp_status_t sp_predict_sweep_add(sp_predict_sweep_t *sw, int op, uint64_t bytes, double time_us);
void sp_predict_sweep_finish(sp_predict_sweep_t *sw);
void sp_predict_sweep_cleanup(sp_predict_sweep_t *sw);

/* 1 when the sweep has points for op (a collective or SP_PREDICT_OP_P2P). */
int sp_predict_sweep_has(const sp_predict_sweep_t *sw, int op);

/* The sweep's curve of op at bytes; for a group of nranks other than the sweep's, scaled by
 * busbw_factor(nranks) / busbw_factor(sweep's nranks): the same bus bandwidth, as a ring
 * algorithm would keep. Messages are not scaled. NAN when op has no curve or the factor at the
 * sweep's size is 0 (a one-rank sweep). arg: sp_predict_sweep_t. */
double sp_predict_cost_sweep(void *arg, int op, uint64_t bytes, int nranks);

/* Free communication (predict --free-comm): every message and collective costs 0, so the
 * prediction is compute and schedule alone. arg unused. */
double sp_predict_cost_free(void *arg, int op, uint64_t bytes, int nranks);

/* Several sweeps, one per communicator size (files measured on different rank counts). A call
 * on a group of n ranks takes the sweep measured on n ranks when it has the op, else the one
 * whose size is nearest to n in log scale, scaled by the bus factor (sp_predict_cost_sweep). */
#define SP_PREDICT_MAX_SWEEPS 16
typedef struct {
    int n;
    sp_predict_sweep_t set[SP_PREDICT_MAX_SWEEPS];
} sp_predict_sweeps_t;

/* The sweep of nranks ranks, added (empty) when there is none; NULL when all are taken. */
sp_predict_sweep_t *sp_predict_sweeps_at(sp_predict_sweeps_t *s, int nranks);
/* The sweep used for op on a group of nranks (above), NULL when no sweep has op. */
const sp_predict_sweep_t *sp_predict_sweeps_pick(const sp_predict_sweeps_t *s, int op,
                                                 int nranks);
double sp_predict_cost_sweeps(void *arg, int op, uint64_t bytes, int nranks); /* arg: sweeps */
void sp_predict_sweeps_cleanup(sp_predict_sweeps_t *s);

/* How far a prediction from sweeps rests on extrapolation: over every communication task of
 * the programs, how many (and how much of their predicted time) lie beyond the measured sizes
 * of the sweep they were priced from, and how many were on a group size no sweep measured
 * (scaled by the bus factor). Messages are never scaled. */
typedef struct {
    size_t calls, beyond, scaled;
    double time_ns, beyond_ns, scaled_ns;
    uint64_t min_bytes, max_bytes;   /* the task sizes seen */
    int scaled_from[4], scaled_to[4]; /* a few (sweep size -> group size) pairs, 0: unused */
} sp_predict_coverage_t;

void sp_predict_coverage(const sp_program_t *progs, int p, int tp, int dp,
                         const sp_predict_sweeps_t *s, sp_predict_coverage_t *cov);

#endif
