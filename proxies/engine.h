/* The pipeline-parallel engine of the training proxy: runs one stage's schedule
 * (proxies/schedule.h) on a backend's streams, computes on a compute stream and
 * activations/gradients on dedicated point-to-point streams, ordered by events, and measures every
 * compute op's interval. */
#ifndef SP_ENGINE_H
#define SP_ENGINE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "schedule.h"
#include "status.h"
#include "timeline.h"

typedef struct {
    sp_sched_kind_t kind; /* GPipe, 1F1B or interleaved (ZB-H1 is not run yet) */
    int m;                /* microbatches */
    int v;                /* model chunks per stage */
    uint64_t t_f_ns;      /* forward of one chunk for one microbatch */
    uint64_t t_b_ns;      /* backward of one chunk for one microbatch */
    size_t msg_bytes;     /* activation (and gradient) bytes per microbatch, b*s*h*sizeof(dtype) */
} sp_pp_config_t;

/* What one step measured on one stage, and the schedule's prediction. */
typedef struct {
    double step_ms;        /* max over stages of the step's wall time */
    double busy_ms;        /* length of the union of this stage's compute intervals */
    double bubble_ms;      /* step - busy */
    double bubble_frac;    /* bubble / step */
    double predicted_frac; /* replay of all stages' op lists with the measured mean F and B
                            * durations (over all stages) and zero communication time */
} sp_pp_metrics_t;

typedef struct sp_pp_engine sp_pp_engine_t;

/* Create the engine of this rank: stage = rank in pp (p = size of pp), its op list, events,
 * buffers and 7 streams (compute plus 3 forward and 3 backward point-to-point streams, so no
 * stream both sends and receives in a ring of odd length). Collective over pp, which must be a
 * communicator the backend's streams accept (its own or a sub-communicator). SP_ERR_INVALID
 * (logged) for a schedule that sp_schedule_build rejects or ZB-H1; SP_ERR_NOMEM. The engine is
 * owned by the caller: sp_pp_engine_destroy (collective over pp; NULL is a no-op). */
sp_status_t sp_pp_engine_create(const sp_backend_t *be, MPI_Comm pp, const sp_pp_config_t *cfg,
                                sp_pp_engine_t **eng_p);
void sp_pp_engine_destroy(sp_pp_engine_t *eng);

/* Run one step: barrier over pp, enqueue every op, wait for all streams, read the compute
 * intervals, then (outside the timed part) the metrics: collective over pp. *metrics_p is set
 * only on success. */
sp_status_t sp_pp_engine_step(sp_pp_engine_t *eng, sp_pp_metrics_t *metrics_p);

/* Record the last step's compute ops of this stage on the timeline (kinds forward / backward,
 * lane 0, step, microbatch, chunk) on this host's clock. Not collective. Returns how many ops it offered (a full timeline counts the rest as dropped). */
size_t sp_pp_engine_record(const sp_pp_engine_t *eng, int step, int rank, sp_timeline_t *tl);

/* Mean measured durations of this stage's forward and backward computes in the last step. */
void sp_pp_engine_op_means(const sp_pp_engine_t *eng, double *t_f_ns_p, double *t_b_ns_p);

#endif
