/* --method nccl-tests: nccl-tests' documented timing, reproduced. After the warm-up, ranks meet
 * at a barrier; each starts a host timer, launches -n operations back to back, waits for their
 * completion and stops the timer: its time per operation is that time / n. The reported time is
 * -a's value over ranks (rank 0, mean, min, max); algbw and busbw follow from it. */
#include "method_run.h"

#include <math.h>

#include "coll.h"
#include "timeutil.h"

double sp_nccltests_op_us(uint64_t batch_ns, long iters)
{
    return iters < 1 ? NAN : (double)batch_ns / 1e3 / (double)iters;
}

double sp_method_over_ranks(const double *t_us, int nranks, sp_over_ranks_t how)
{
    double v;

    if (nranks < 1 || (int)how < (int)SP_OVER_RANKS_RANK0 || (int)how > (int)SP_OVER_RANKS_MAX) {
        return NAN;
    }
    v = t_us[0];
    for (int r = 1; r < nranks; r++) {
        if (how == SP_OVER_RANKS_MEAN) {
            v += t_us[r];
        } else if (how == SP_OVER_RANKS_MIN) {
            v = t_us[r] < v ? t_us[r] : v;
        } else if (how == SP_OVER_RANKS_MAX) {
            v = t_us[r] > v ? t_us[r] : v;
        }
    }
    /* nccl-tests sums over ranks, then divides by their number */
    return how == SP_OVER_RANKS_MEAN ? v / (double)nranks : v;
}

/* One batch of iters operations, untimed; with -G it captures the CUDA graph, which nccl-tests
 * also does before it starts its timer. */
static sp_status_t capture(sp_method_point_t *mp)
{
    sp_ctx_t *ctx = mp->ctx;
    const sp_backend_ops_t *ops = ctx->backend.ops;
    sp_sweep_bufs_t *bufs = mp->bufs;
    sp_status_t status;

    sp_watchdog_beat(ctx->watchdog, "%s %zu B: graph capture of %ld",
                     sp_coll_names[mp->op->args.kind], (size_t)sp_coll_size_bytes(&mp->op->args),
                     mp->iters);
    status = ops->coll_batch(ctx->backend.state, &mp->op->call, mp->send, bufs->recv, mp->iters,
                             bufs->ev_start, bufs->ev_end);
    if (status == SP_OK) {
        status = ops->sync(ctx->backend.state);
    }
    ctx->coll_seq += (uint64_t)mp->iters;
    return sp__sweep_agree(ctx, status, &mp->op->args, "graph capture of", (size_t)mp->iters);
}

static sp_status_t nccltests_sample(sp_method_point_t *mp)
{
    sp_ctx_t *ctx = mp->ctx;
    const sp_backend_ops_t *ops = ctx->backend.ops;
    const sp_coll_args_t *args = &mp->op->args;
    sp_sweep_bufs_t *bufs = mp->bufs;
    uint64_t t0;
    uint64_t t1;
    double us;
    sp_status_t status = SP_OK;

    mp->batch = mp->iters;
    mp->n = 1;
    if (mp->opts->cuda_graph) {
        status = capture(mp);
        if (status != SP_OK) {
            return status;
        }
    }
    sp_watchdog_beat(ctx->watchdog, "%s %zu B: barrier before the batch", sp_coll_names[args->kind],
                     (size_t)sp_coll_size_bytes(args));
    MPI_Barrier(ctx->world);
    sp__method_test_delay(ctx, bufs, (int)args->kind);
    sp_watchdog_beat(ctx->watchdog, "%s %zu B: a batch of %ld (collective %llu)",
                     sp_coll_names[args->kind], (size_t)sp_coll_size_bytes(args), mp->iters,
                     (unsigned long long)ctx->coll_seq);
    /* the timed region: launch, wait for completion; nothing else */
    t0 = sp_time_ns();
    status = ops->coll_batch(ctx->backend.state, &mp->op->call, mp->send, bufs->recv, mp->iters,
                             bufs->ev_start, bufs->ev_end);
    if (status == SP_OK) {
        status = ops->sync(ctx->backend.state);
    }
    t1 = sp_time_ns();
    sp__method_record(mp, 0, mp->iters, t0, t1);
    status = sp__sweep_agree(ctx, status, args, "batch", 1);
    if (status != SP_OK) {
        return status;
    }
    us = sp_nccltests_op_us(t1 - t0, mp->iters);
    bufs->point.local_times_us[0] = us;
    return sp__method_collect(mp, 1, us);
}

static void nccltests_report(const sp_method_point_t *mp, sp_coll_row_t *row)
{
    const double *t_us = mp->bufs->point.rank_times_us;

    sp__method_set_time(
        mp, row, sp_method_over_ranks(t_us, mp->ctx->nranks, (sp_over_ranks_t)mp->opts->average));
}

const sp_method_ops_t sp_method_nccltests = {
    .sample = nccltests_sample,
    .report = nccltests_report,
};
