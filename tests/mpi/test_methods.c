/* The peer methods through sp_sweep_measure at 1, 2 and 4 ranks: what a row, its samples and
 * rank_times hold (docs/METHODOLOGY.md, "Peer methods"). nccl-tests: one sample, the max over
 * ranks of each rank's batch time / n, with the rank that had it; time_us = -a over rank_times.
 * osu: n samples, each the max over ranks of that operation's times; rank_times = each rank's
 * mean; time_us = the mean of rank_times. Data verifies. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "method.h"
#include "mpitest.h"
#include "sweep.h"

static void parse(const char *a, const char *b, const char *c, const char *d, const char *e,
                  const char *f, sp_coll_opts_t *opts)
{
    char err[256];
    int help = 0;
    char *argv[] = {"scaleprobe", "coll", (char *)a, (char *)b, (char *)c,
                    (char *)d,    (char *)e, (char *)f};

    if (sp_coll_opts_parse(8, argv, 2, opts, &help, err, sizeof(err)) != SP_OK) {
        SP_TEST_FAIL("option parsing: %s", err);
    }
}

/* Every rank's local times of the point to rank 0 (n per rank, rank-major); rank 0 frees. */
static double *gather_local(const sp_ctx_t *ctx, const sp_sweep_bufs_t *bufs, size_t n)
{
    double *all = ctx->rank == 0 ? malloc(n * (size_t)ctx->nranks * sizeof(double)) : NULL;

    SP_TEST_TRUE(ctx->rank != 0 || all != NULL);
    MPI_Gather(bufs->point.local_times_us, (int)n, MPI_DOUBLE, all, (int)n, MPI_DOUBLE, 0,
               ctx->world);
    return all;
}

/* Rank 0: samples[i] is the max over ranks of local time i, with the rank that had it. */
static void check_samples(const sp_ctx_t *ctx, const sp_sweep_point_t *p, const double *all,
                          size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int who = 0;
        for (int r = 1; r < ctx->nranks; r++) {
            who = all[(size_t)r * n + i] > all[(size_t)who * n + i] ? r : who;
        }
        SP_TEST_TRUE(p->samples[i].time_us == all[(size_t)who * n + i]);
        SP_TEST_EQ_INT(p->samples[i].slowest_rank, who);
    }
}

static void check_row(const sp_ctx_t *ctx, const sp_coll_opts_t *opts, const sp_sweep_bufs_t *bufs)
{
    const sp_sweep_point_t *p = &bufs->point;
    const sp_coll_row_t *row = &p->row;
    size_t n = opts->method == SP_METHOD_NCCL_TESTS ? 1 : (size_t)opts->iters;
    double *all = gather_local(ctx, bufs, n);

    if (ctx->rank != 0) {
        return;
    }
    SP_TEST_EQ_INT(row->wrong, 0);
    SP_TEST_EQ_INT(row->samples, n);
    check_samples(ctx, p, all, n);
    if (opts->method == SP_METHOD_NCCL_TESTS) {
        SP_TEST_EQ_INT(row->batch, opts->iters);
        SP_TEST_EQ_INT(row->converged, 0); /* one sample: no CI */
        for (int r = 0; r < ctx->nranks; r++) {
            SP_TEST_TRUE(p->rank_times_us[r] == all[r]);
        }
        SP_TEST_TRUE(row->time_us == sp_method_over_ranks(p->rank_times_us, ctx->nranks,
                                                          (sp_over_ranks_t)opts->average));
    } else {
        double avg;
        double lo;
        double hi;

        SP_TEST_EQ_INT(row->batch, 1);
        for (int r = 0; r < ctx->nranks; r++) {
            double mean = sp_osu_rank_us(all + (size_t)r * n, n);
            SP_TEST_TRUE(fabs(p->rank_times_us[r] - mean) <= 1e-12 * mean);
        }
        sp_osu_over_ranks(p->rank_times_us, ctx->nranks, &avg, &lo, &hi);
        SP_TEST_TRUE(row->time_us == avg);
        SP_TEST_TRUE(lo <= avg && avg <= hi);
    }
    SP_TEST_TRUE(row->time_us > 0.0);
    SP_TEST_TRUE(ctx->nranks > 1 || isnan(row->busbw_gbps));
    free(all);
}

int main(int argc, char **argv)
{
    static const sp_coll_kind_t colls[] = {SP_COLL_ALL_REDUCE, SP_COLL_ALL_GATHER,
                                           SP_COLL_BROADCAST};
    static const char *const averages[] = {"0", "1", "2", "3"};
    sp_ctx_t ctx;
    sp_coll_opts_t opts;
    sp_sweep_bufs_t bufs;
    long points = 0;

    sp_test_ctx_init(&argc, &argv, &ctx);
    for (int m = 0; m < 5; m++) {
        if (m < 4) {
            parse("--method", "nccl-tests", "-n", "7", "-a", averages[m], &opts);
        } else {
            parse("--method", "osu", "-n", "9", "-w", "2", &opts);
        }
        SP_TEST_EQ_INT(sp_sweep_bufs_init(&ctx, 8192, sp_method_max_samples(&opts), &bufs), SP_OK);
        for (size_t c = 0; c < sizeof(colls) / sizeof(colls[0]); c++) {
            for (int ip = 0; ip < 2; ip++) {
                sp_coll_args_t args;

                sp_coll_args_init(&args, colls[c], ctx.rank, ctx.nranks, SP_DTYPE_FLOAT,
                                  SP_REDOP_SUM, 0, ip, 4096);
                SP_TEST_EQ_INT(sp_sweep_measure(&ctx, &opts, sp_coll_get(colls[c]), &args, &bufs),
                               SP_OK);
                check_row(&ctx, &opts, &bufs);
                points++;
            }
        }
        sp_sweep_bufs_cleanup(&ctx, &bufs);
    }
    if (ctx.rank == 0) {
        printf("checked %ld points of the nccl-tests and osu methods on %d ranks\n", points,
               ctx.nranks);
    }
    sp_test_ctx_fini(&ctx);
    return 0;
}
