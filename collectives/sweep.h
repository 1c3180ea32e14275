/* The collective sweep: every selected collective x type x op x root x size, out-of-place and
 * in-place, measured to a CI target, verified, printed and appended to the result file. */
#ifndef SP_SWEEP_H
#define SP_SWEEP_H

#include "coll.h"
#include "coll_options.h"
#include "context.h"
#include "coll_result.h"
#include "lateness.h"
#include "stats.h"

/* Measurement of one point on this rank; row, samples and rank times are valid on rank 0. */
typedef struct {
    sp_coll_row_t row;
    sp_coll_sample_t *samples;   /* max_samples entries, rank 0 */
    double *rank_times_us;       /* nranks entries, rank 0 */
    uint64_t *rank_wrong;        /* nranks entries, rank 0 */
    sp_coll_wrong_t *wrong;      /* ranks with wrong data, rank 0 */
    size_t nwrong;
    double *local_times_us;      /* this rank's own per-sample times */
    double *scratch;             /* max(max_samples + sp_stop_rule_scratch_len(max_samples),
                                    nranks) doubles */
    /* arrivals: every rank's time and arrival of the current sample, gathered on rank 0, and the
     * per-rank lateness counts of the point (rank 0; docs/METHODOLOGY.md, "The late rank") */
    struct sp_sweep_arrival {
        double us;               /* the rank's own time per operation */
        int64_t arrival_ns;      /* when it started the batch, on rank 0's clock */
    } *gathered;                 /* nranks entries, rank 0 */
    int64_t *arrival_ns;         /* nranks entries, rank 0 */
    sp_late_acc_t late;          /* rank 0 */
} sp_sweep_point_t;

/* Buffers and scratch for measuring points. Collective over ctx->world (agrees on status). */
typedef struct {
    void *send;
    void *recv;
    size_t bytes;               /* size of each of send and recv */
    sp_event_t *ev_start;
    sp_event_t *ev_end;
    sp_stream_t *stream;        /* --issue stream: the stream every operation is enqueued on
                                 * (sweep_issue.h), created at the first point; NULL */
    int64_t stream_wait_ns;     /* --issue stream: the cross-stream wait latency measured when
                                 * the stream opened (the max over ranks of each one's median),
                                 * 0: not measured */
    int64_t stream_wait_p90_ns; /* its 90th percentile likewise */
    sp_sweep_point_t point;
    size_t max_samples;
    /* test-only straggler (SCALEPROBE_TEST_DELAY="RANK:US[:COLLECTIVE]"): this rank sleeps
     * delay_us before every timed batch of delay_coll (-1: every collective) */
    int delay_rank;
    long delay_us;
    int delay_coll;
    MPI_Datatype arrival_type;  /* struct sp_sweep_arrival */
    int have_arrival_type;
} sp_sweep_bufs_t;

sp_status_t sp_sweep_bufs_init(sp_ctx_t *ctx, size_t bytes, size_t max_samples,
                               sp_sweep_bufs_t *bufs);
void sp_sweep_bufs_cleanup(sp_ctx_t *ctx, sp_sweep_bufs_t *bufs);

/*
 * Measure one point: warm-up, batch calibration, samples until the stopping rule, per-rank times,
 * verification. args describes the operation (kind, dtype, redop, root, in_place, counts). On
 * rank 0 bufs->point holds the row (without sample_offset) and its samples. Collective over
 * ctx->world and the backend's communicator.
 */
sp_status_t sp_sweep_measure(sp_ctx_t *ctx, const sp_coll_opts_t *opts, const sp_coll_t *coll,
                             const sp_coll_args_t *args, sp_sweep_bufs_t *bufs);

/* Agree on status after a phase of a point (collective over ctx->world); when any rank failed,
 * rank 0 names the operation, its size, the phase and iteration, and the ranks that failed.
 * For the sampling methods (method_run.h). */
sp_status_t sp__sweep_agree(sp_ctx_t *ctx, sp_status_t status, const sp_coll_args_t *args,
                            const char *phase, size_t iteration);

/* Run the whole sweep of opts: table on rank 0's stdout, rows to ctx->result. Collective. */
sp_status_t sp_sweep_run(sp_ctx_t *ctx, const sp_coll_opts_t *opts);

/* Measure one point (collective) and, on rank 0, append it to the result file; the row is
 * copied to row_p on rank 0. */
sp_status_t sp__sweep_point(sp_ctx_t *ctx, const sp_coll_opts_t *opts, const sp_coll_t *coll,
                            sp_coll_args_t *args, sp_sweep_bufs_t *bufs, sp_coll_row_t *row_p);

/* Rank 0: the "# WRONG DATA" line of a row with wrong elements (ranks and hosts). */
void sp__sweep_print_wrong(const sp_ctx_t *ctx, const sp_coll_row_t *row,
                           const sp_sweep_point_t *p);

/* Test-only fault injection (collectives/sweep_hooks.c): the rank named by
 * SCALEPROBE_TEST_CORRUPT_RANK (-1: none), and the delay of SCALEPROBE_TEST_DELAY
 * ("RANK:US[:COLLECTIVE]") into bufs. */
int sp__sweep_corrupt_rank_from_env(void);
void sp__sweep_delay_from_env(sp_sweep_bufs_t *bufs);

#endif
