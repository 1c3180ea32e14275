/* The sweep's issue modes (sweep_issue.h). The stream mode reuses the backend's stream path, the
 * one the proxy's lanes use: on the host backend a worker thread per stream whose out-of-place
 * all-reduce, all-gather and reduce-scatter are non-blocking MPI calls completed by a polite wait
 * (backend_host_call.c), on the nccl backend NCCL calls on a stream with its own communicator. */
#include "sweep_issue.h"

#include "log.h"
#include "method.h"

sp_status_t sp__sweep_issue_open(sp_ctx_t *ctx, const sp_coll_opts_t *opts,
                                 sp_sweep_bufs_t *bufs)
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
    return sp_ctx_agree(ctx, status);
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
