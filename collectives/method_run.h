/* The peer methods' side of a sweep point (method.h names them): a table keyed by sp_method_t
 * of hooks that take a point's samples in place of the sweep's calibration and stopping rule, and
 * set the row's reported time. The default method has no entry: sweep.c samples it. */
#ifndef SP_METHOD_RUN_H
#define SP_METHOD_RUN_H

#include <stddef.h>
#include <stdio.h>

#include "method.h"
#include "sweep.h"

/* One point as a peer method sees it; the sweep fills the inputs after the warm-up. */
typedef struct {
    sp_ctx_t *ctx;
    const sp_coll_opts_t *opts;
    const sp_coll_op_t *op;
    sp_sweep_bufs_t *bufs; /* events; bufs->point receives samples, local and rank times */
    const void *send;      /* the operation's send argument (in-place: inside bufs->recv) */
    long iters;            /* timed operations (sp_method_iters) */
    /* set by the method's sample hook */
    long batch; /* operations per timed region: the row's `batch` */
    size_t n;   /* samples written: the row's `samples` */
} sp_method_point_t;

typedef struct {
    /* Take the point's samples, collective over ctx->world: bufs->point.local_times_us[0..n)
     * this rank's own times, and on rank 0 samples[0..n) (max over ranks and its rank) and
     * rank_times_us (each rank's own number). Ranks agree on the status. */
    sp_status_t (*sample)(sp_method_point_t *mp);
    /* Rank 0, after the sweep filled the row from the samples: the method's reported time in
     * row->time_us, and algbw and busbw from it. */
    void (*report)(const sp_method_point_t *mp, sp_coll_row_t *row);
} sp_method_ops_t;

extern const sp_method_ops_t sp_method_nccltests;
extern const sp_method_ops_t sp_method_osu;

/* The hooks of a method; NULL for the default method (and an unknown one). */
const sp_method_ops_t *sp_method_ops(int method);

/* Rank 0: a comment line under the table's first line naming a peer method and its counts;
 * nothing for the default method. */
void sp_method_print_header(FILE *out, const sp_coll_opts_t *opts);

/* After a peer's timed loop, collective over ctx->world: rank 0 gets the max over ranks of
 * each of the n samples in local_times_us (with its rank) and every rank's `mine` in
 * rank_times_us. Allocates n pairs outside any timed region; SP_ERR_NOMEM agreed by all. */
sp_status_t sp__method_collect(sp_method_point_t *mp, size_t n, double mine_us);

/* The test-only straggler (SCALEPROBE_TEST_DELAY, sweep.h): sleep when this rank is the one
 * named for this collective. Called just before a timed region. */
void sp__method_test_delay(const sp_ctx_t *ctx, const sp_sweep_bufs_t *bufs, int kind);

/* Record one timed region of this rank in the timeline: sample `step`, nops operations from
 * collective ctx->coll_seq on, host clock start_ns..end_ns; advances ctx->coll_seq by nops. */
void sp__method_record(const sp_method_point_t *mp, size_t step, long nops, uint64_t start_ns,
                       uint64_t end_ns);

/* The row's time and bandwidths set to time_us (rank 0). */
void sp__method_set_time(const sp_method_point_t *mp, sp_coll_row_t *row, double time_us);

#endif
