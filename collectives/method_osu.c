/* --method osu: the OSU Micro-Benchmarks' documented collective latency, reproduced. After the
 * warm-up and a barrier, each of -n iterations times one operation on the host clock (launch to
 * completion) and ends with a barrier. A rank's latency is the mean of its times; OSU prints the
 * average of that over ranks, and with its -f the minimum and maximum over ranks. */
#include "method_run.h"

#include <math.h>
#include <stdio.h>

#include "coll.h"
#include "timeutil.h"

double sp_osu_rank_us(const double *op_us, size_t n)
{
    double sum = 0.0;

    if (n == 0) {
        return NAN;
    }
    for (size_t i = 0; i < n; i++) {
        sum += op_us[i];
    }
    return sum / (double)n;
}

void sp_osu_over_ranks(const double *rank_us, int nranks, double *avg_p, double *min_p,
                       double *max_p)
{
    double sum = 0.0;
    double lo = nranks > 0 ? rank_us[0] : NAN;
    double hi = lo;

    for (int r = 0; r < nranks; r++) {
        sum += rank_us[r];
        lo = rank_us[r] < lo ? rank_us[r] : lo;
        hi = rank_us[r] > hi ? rank_us[r] : hi;
    }
    *avg_p = nranks > 0 ? sum / (double)nranks : NAN;
    *min_p = lo;
    *max_p = hi;
}

static sp_status_t osu_sample(sp_method_point_t *mp)
{
    sp_ctx_t *ctx = mp->ctx;
    const sp_backend_ops_t *ops = ctx->backend.ops;
    void *st = ctx->backend.state;
    const sp_coll_args_t *args = &mp->op->args;
    const char *name = sp_coll_names[args->kind];
    size_t bytes = (size_t)sp_coll_size_bytes(args);
    sp_sweep_bufs_t *bufs = mp->bufs;
    double *own_us = bufs->point.local_times_us;
    sp_status_t status = SP_OK;

    mp->batch = 1;
    mp->n = (size_t)mp->iters;
    sp_watchdog_beat(ctx->watchdog, "%s %zu B: barrier before %ld OSU iterations", name, bytes,
                     mp->iters);
    MPI_Barrier(ctx->world);
    for (long i = 0; i < mp->iters; i++) {
        /* a rank whose operation failed keeps meeting the others at the barriers, without
         * operations, so that no rank waits for it forever; all agree after the loop */
        if (status == SP_OK) {
            uint64_t t0;
            uint64_t t1;

            sp__method_test_delay(ctx, bufs, (int)args->kind);
            t0 = sp_time_ns();
            status = ops->coll_run(st, &mp->op->call, mp->send, bufs->recv);
            if (status == SP_OK) {
                status = ops->sync(st);
            }
            t1 = sp_time_ns();
            own_us[i] = (double)(t1 - t0) / 1e3;
            sp__method_record(mp, (size_t)i, 1, t0, t1);
        }
        sp_watchdog_beat(ctx->watchdog,
                         "%s %zu B: barrier after OSU iteration %ld of %ld "
                         "(collective %llu)",
                         name, bytes, i + 1, mp->iters, (unsigned long long)ctx->coll_seq);
        MPI_Barrier(ctx->world);
    }
    status = sp__sweep_agree(ctx, status, args, "OSU iterations", (size_t)mp->iters);
    if (status != SP_OK) {
        return status;
    }
    return sp__method_collect(mp, mp->n, sp_osu_rank_us(own_us, mp->n));
}

static void osu_report(const sp_method_point_t *mp, sp_coll_row_t *row)
{
    const sp_coll_args_t *args = &mp->op->args;
    double avg;
    double lo;
    double hi;

    sp_osu_over_ranks(mp->bufs->point.rank_times_us, mp->ctx->nranks, &avg, &lo, &hi);
    sp__method_set_time(mp, row, avg);
    if (mp->opts->osu_full) {
        /* OSU's -f columns, as a comment line before the point's table line */
        fprintf(stdout, "# osu %s %llu B %s %s: avg %.2f min %.2f max %.2f us, %ld iterations\n",
                sp_coll_names[args->kind], (unsigned long long)sp_coll_size_bytes(args),
                sp_dtype_name(args->dtype), args->in_place ? "in-place" : "out-of-place", avg, lo,
                hi, mp->iters);
    }
}

const sp_method_ops_t sp_method_osu = {
    .sample = osu_sample,
    .report = osu_report,
};
