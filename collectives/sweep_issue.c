/* The sweep's issue modes (sweep_issue.h). The stream mode reuses the backend's stream path, the
 * one the proxy's lanes use: on the host backend a worker thread per stream whose out-of-place
 * all-reduce, all-gather and reduce-scatter are non-blocking MPI calls completed by a polite wait
 * (backend_host_call.c), on the nccl backend NCCL calls on a stream with its own communicator. */
#include "sweep_issue.h"

#include <stdio.h>
#include <stdlib.h>

#include "log.h"
#include "method.h"
#include "result.h"

#define WAIT_TRIALS 50
#define WAIT_BUSY_NS 200000 /* stream A's compute before its record: B is parked in its wait */

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* One trial: A computes WAIT_BUSY_NS then records ea; B waits on ea and records eb; the
 * latency is eb - ea, what a lane pays when it waits on another lane's event (engine.c). */
static sp_status_t wait_trial(const sp_backend_ops_t *ops, void *st, sp_stream_t *a, sp_stream_t *b,
                              sp_event_t *ea, sp_event_t *eb, int64_t *ns_p)
{
    uint64_t ns = 0;
    sp_status_t status = ops->stream_compute(st, a, WAIT_BUSY_NS);

    if (status == SP_OK) {
        status = ops->stream_record(st, a, ea);
    }
    if (status == SP_OK) {
        status = ops->stream_wait(st, b, ea);
    }
    if (status == SP_OK) {
        status = ops->stream_record(st, b, eb);
    }
    if (status == SP_OK) {
        status = ops->event_elapsed_ns(st, ea, eb, &ns);
    }
    *ns_p = (int64_t)ns;
    return status;
}

/* The cross-stream dependency latency of the backend (docs/METHODOLOGY.md, "Issue mode"): the
 * median and 90th percentile of WAIT_TRIALS trials on each rank, the max over ranks into bufs. */
static sp_status_t measure_stream_wait(sp_ctx_t *ctx, sp_sweep_bufs_t *bufs)
{
    const sp_backend_ops_t *ops = ctx->backend.ops;
    void *st = ctx->backend.state;
    sp_stream_t *b = NULL;
    sp_event_t *ea = NULL, *eb = NULL;
    int64_t ns[WAIT_TRIALS], mine[2] = {0, 0}, most[2];
    sp_status_t status = ops->stream_create(st, MPI_COMM_NULL, &b);

    if (status == SP_OK) {
        status = ops->event_create(st, &ea);
    }
    if (status == SP_OK) {
        status = ops->event_create(st, &eb);
    }
    for (int i = 0; i < WAIT_TRIALS && status == SP_OK; i++) {
        status = wait_trial(ops, st, bufs->stream, b, ea, eb, &ns[i]);
    }
    if (status == SP_OK) {
        qsort(ns, WAIT_TRIALS, sizeof(ns[0]), cmp_i64);
        mine[0] = ns[WAIT_TRIALS / 2];
        mine[1] = ns[WAIT_TRIALS * 9 / 10];
    }
    if (ea != NULL) {
        ops->event_destroy(st, ea);
    }
    if (eb != NULL) {
        ops->event_destroy(st, eb);
    }
    if (b != NULL) {
        ops->stream_destroy(st, b);
    }
    status = sp_ctx_agree(ctx, status);
    MPI_Allreduce(mine, most, 2, MPI_INT64_T, MPI_MAX, ctx->world);
    bufs->stream_wait_ns = status == SP_OK ? most[0] : 0;
    bufs->stream_wait_p90_ns = status == SP_OK ? most[1] : 0;
    return status;
}

sp_status_t sp__sweep_issue_open(sp_ctx_t *ctx, const sp_coll_opts_t *opts, sp_sweep_bufs_t *bufs)
{
    const sp_backend_ops_t *ops = ctx->backend.ops;
    sp_status_t status = SP_OK;

    if (opts->issue != SP_ISSUE_STREAM || bufs->stream != NULL) {
        return SP_OK;
    }
    if (ctx->mpi_thread < MPI_THREAD_MULTIPLE && ctx->backend.kind == SP_BACKEND_HOST) {
        /* sp_issue_stream_asked chose the level before MPI started; a spelling it missed */
        sp_error("--issue stream on the host backend needs MPI_THREAD_MULTIPLE (spell it "
                 "`--issue stream`)");
        status = SP_ERR_UNSUPPORTED;
    } else {
        status = ops->stream_create(ctx->backend.state, MPI_COMM_NULL, &bufs->stream);
    }
    status = sp_ctx_agree(ctx, status);
    if (status == SP_OK) {
        status = measure_stream_wait(ctx, bufs);
    }
    return status;
}

sp_status_t sp__sweep_issue_begin(sp_ctx_t *ctx, sp_ctx_t *group, const sp_coll_opts_t *opts,
                                  sp_sweep_bufs_t *bufs)
{
    int64_t mine[2], most[2];
    sp_status_t status = sp_ctx_agree(ctx, sp__sweep_issue_open(group, opts, bufs));

    if (status != SP_OK) {
        return status;
    }
    mine[0] = bufs->stream_wait_ns; /* the group's largest; with groups, the world's */
    mine[1] = bufs->stream_wait_p90_ns;
    MPI_Allreduce(mine, most, 2, MPI_INT64_T, MPI_MAX, ctx->world);
    bufs->stream_wait_ns = most[0];
    bufs->stream_wait_p90_ns = most[1];
    if (bufs->stream_wait_ns <= 0 || ctx->rank != 0) {
        return status;
    }
    if (ctx->result != NULL) {
        status = sp_result_attr_int(ctx->result, "/coll", "stream_wait_ns", bufs->stream_wait_ns);
    }
    if (status == SP_OK && ctx->result != NULL) {
        status = sp_result_attr_int(ctx->result, "/coll", "stream_wait_p90_ns",
                                    bufs->stream_wait_p90_ns);
    }
    return status;
}

void sp__sweep_issue_print(FILE *out, const sp_sweep_bufs_t *bufs)
{
    if (bufs->stream_wait_ns > 0) {
        fprintf(out,
                "# cross-stream wait: median %.1f us, p90 %.1f us (a stream waiting on another's "
                "event, %d trials, max over ranks)\n",
                (double)bufs->stream_wait_ns / 1e3, (double)bufs->stream_wait_p90_ns / 1e3,
                WAIT_TRIALS);
    }
}

sp_status_t sp__sweep_issue_run(sp_ctx_t *ctx, sp_sweep_bufs_t *bufs, const sp_comm_call_t *call,
                                const void *send)
{
    const sp_backend_ops_t *ops = ctx->backend.ops;

    if (bufs->stream == NULL) {
        return ops->coll_run(ctx->backend.state, call, send, bufs->recv);
    }
    return ops->stream_coll(ctx->backend.state, bufs->stream, call, send, bufs->recv);
}

sp_status_t sp__sweep_issue_batch(sp_ctx_t *ctx, sp_sweep_bufs_t *bufs, const sp_comm_call_t *call,
                                  const void *send, long k)
{
    const sp_backend_ops_t *ops = ctx->backend.ops;
    void *st = ctx->backend.state;
    sp_status_t status;

    if (bufs->stream == NULL) {
        return ops->coll_batch(st, call, send, bufs->recv, k, bufs->ev_start, bufs->ev_end);
    }
    status = ops->stream_record(st, bufs->stream, bufs->ev_start);
    for (long i = 0; i < k && status == SP_OK; i++) {
        status = ops->stream_coll(st, bufs->stream, call, send, bufs->recv);
    }
    if (status == SP_OK) {
        status = ops->stream_record(st, bufs->stream, bufs->ev_end);
    }
    return status;
}

sp_status_t sp__sweep_issue_sync(sp_ctx_t *ctx, sp_sweep_bufs_t *bufs)
{
    const sp_backend_ops_t *ops = ctx->backend.ops;

    if (bufs->stream == NULL) {
        return ops->sync(ctx->backend.state);
    }
    return ops->stream_sync(ctx->backend.state, bufs->stream);
}

void sp__sweep_issue_close(sp_ctx_t *ctx, sp_sweep_bufs_t *bufs)
{
    if (bufs->stream != NULL) {
        ctx->backend.ops->stream_destroy(ctx->backend.state, bufs->stream);
        bufs->stream = NULL;
    }
}
