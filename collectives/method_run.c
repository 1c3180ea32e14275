/* The peer methods' table and what they share: collecting a point's samples after the timed
 * loop, the test-only straggler, and setting the row's reported time. */
#include "method_run.h"

#include <stdlib.h>
#include <time.h>

#include "coll.h"
#include "log.h"

/* One line per method; the default method is sampled by sweep.c itself. */
static const sp_method_ops_t *const methods[SP_METHOD_COUNT] = {
    [SP_METHOD_DEFAULT] = NULL,
    [SP_METHOD_NCCL_TESTS] = &sp_method_nccltests,
    [SP_METHOD_OSU] = &sp_method_osu,
};

const sp_method_ops_t *sp_method_ops(int method)
{
    return method >= 0 && method < SP_METHOD_COUNT ? methods[method] : NULL;
}

void sp_method_print_header(FILE *out, const sp_coll_opts_t *opts)
{
    static const char *const over_ranks[] = {"rank 0's", "the mean over ranks of the",
                                             "the minimum over ranks of the",
                                             "the maximum over ranks of the"};
    char n[64];

    if (opts->iters > 0) {
        snprintf(n, sizeof(n), "%ld", opts->iters);
    }
    if (opts->method == SP_METHOD_NCCL_TESTS) {
        if (opts->iters <= 0) {
            snprintf(n, sizeof(n), "%d", SP_NCCLTESTS_ITERS);
        }
        fprintf(out,
                "# method nccl-tests: one host-timed batch of %s operations per point; "
                "time = %s time per operation (-a %ld)\n",
                n, over_ranks[opts->average >= 0 && opts->average <= 3 ? opts->average : 1],
                opts->average);
    } else if (opts->method == SP_METHOD_OSU) {
        if (opts->iters <= 0) {
            snprintf(n, sizeof(n), "%d (<= %d B) or %d", SP_OSU_ITERS, SP_OSU_LARGE_BYTES,
                     SP_OSU_ITERS_LARGE);
        }
        fprintf(out,
                "# method osu: %s barrier-separated operations per point, each timed; "
                "time = the mean over ranks of each rank's mean\n",
                n);
    }
}

sp_status_t sp__method_collect(sp_method_point_t *mp, size_t n, double mine_us)
{
    sp_ctx_t *ctx = mp->ctx;
    sp_sweep_point_t *p = &mp->bufs->point;
    struct pair {
        double us;
        int rank;
    } *mine = malloc((n > 0 ? n : 1) * sizeof(*mine));
    struct pair *worst = NULL;
    sp_status_t status;

    if (ctx->rank == 0) {
        worst = malloc((n > 0 ? n : 1) * sizeof(*worst));
    }
    status = mine == NULL || (ctx->rank == 0 && worst == NULL) ? SP_ERR_NOMEM : SP_OK;
    if (status != SP_OK) {
        sp_error("cannot allocate %zu samples", n);
    }
    status = sp__sweep_agree(ctx, status, &mp->op->args, "collecting samples of", n);
    if (status == SP_OK) {
        for (size_t i = 0; i < n; i++) {
            mine[i].us = p->local_times_us[i];
            mine[i].rank = ctx->rank;
        }
        MPI_Reduce(mine, worst, (int)n, MPI_DOUBLE_INT, MPI_MAXLOC, 0, ctx->world);
        MPI_Gather(&mine_us, 1, MPI_DOUBLE, p->rank_times_us, 1, MPI_DOUBLE, 0, ctx->world);
        for (size_t i = 0; ctx->rank == 0 && i < n; i++) {
            p->samples[i].time_us = worst[i].us;
            p->samples[i].slowest_rank = worst[i].rank;
        }
    }
    free(worst);
    free(mine);
    return status;
}

void sp__method_test_delay(const sp_ctx_t *ctx, const sp_sweep_bufs_t *bufs, int kind)
{
    if (ctx->rank == bufs->delay_rank && (bufs->delay_coll < 0 || bufs->delay_coll == kind)) {
        struct timespec nap = {bufs->delay_us / 1000000, (bufs->delay_us % 1000000) * 1000};
        nanosleep(&nap, NULL);
    }
}

void sp__method_record(const sp_method_point_t *mp, size_t step, long nops, uint64_t start_ns,
                       uint64_t end_ns)
{
    sp_ctx_t *ctx = mp->ctx;
    const sp_coll_args_t *args = &mp->op->args;
    sp_event_rec_t ev;

    sp_event_init(&ev, ctx->rank, SP_EV_COLL);
    ev.start_ns = (int64_t)start_ns;
    ev.end_ns = (int64_t)end_ns;
    ev.op = (int16_t)args->kind;
    ev.dtype = (int16_t)args->dtype;
    ev.step = (int32_t)step;
    ev.nops = (int32_t)nops;
    ev.bytes = sp_coll_size_bytes(args);
    ev.seq = ctx->coll_seq;
    ctx->coll_seq += (uint64_t)nops;
    sp_timeline_record(&ctx->timeline, &ev);
}

void sp__method_set_time(const sp_method_point_t *mp, sp_coll_row_t *row, double time_us)
{
    row->time_us = time_us;
    sp_coll_bandwidth(mp->op->coll, &mp->op->args, time_us, &row->algbw_gbps, &row->busbw_gbps);
}
