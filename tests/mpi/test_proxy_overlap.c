/* DDP in the proxy engine, all ranks data-parallel (pp = tp = 1): 4 layers of 10 ms forward and
 * 20 ms backward, 2 microbatches, one 2 MiB gradient bucket per layer. With --overlap on the
 * first three buckets' all-reduces run under the backward of the layers below them, so less
 * communication is exposed than with overlap off (every all-reduce after the backward): on every
 * rank, in the median of 3 steps. With one rank there is no data-parallel traffic: nothing is
 * exposed and the DP lane is idle (overlap n/a). Also: FSDP runs, with gathers overlapped. */
#include <math.h>

#include "mpitest.h"

#define STEPS 3

static void run(sp_ctx_t *ctx, int mode, int overlap, double *exposed_p, double *dp_overlap_p)
{
    sp_layout_t l = {ctx->nranks, 1, 1, 1};
    sp_engine_comms_t comms;
    sp_program_config_t cfg;
    sp_engine_t *eng = NULL;
    sp_proxy_rank_row_t row;
    double e[STEPS], o[STEPS];

    sp_test_comms(ctx, &l, &comms);
    sp_test_program_config(&cfg, SP_SCHED_1F1B, &l, 2, 4, 10e6);
    cfg.dp_mode = mode;
    cfg.overlap = cfg.overlap_param = overlap;
    cfg.layer_param_bytes = 2u << 20;
    cfg.bucket_bytes = 2u << 20;
    SP_TEST_EQ_INT(sp_engine_create(&ctx->backend, &comms, &cfg, &eng), SP_OK);
    SP_TEST_EQ_INT(sp_engine_step(eng, -1, &row), SP_OK);
    for (int i = 0; i < STEPS; i++) {
        SP_TEST_EQ_INT(sp_engine_step(eng, i, &row), SP_OK);
        e[i] = row.dp_exposed_ms;
        o[i] = row.dp_overlap;
        /* DP is the only communication here */
        SP_TEST_TRUE(fabs(row.exposed_ms - row.dp_exposed_ms) < 1e-6);
    }
    sp_engine_destroy(eng);
    sp_test_comms_free(&comms);
    *exposed_p = sp_test_median3(e);
    *dp_overlap_p = sp_test_median3(o);
}

int main(int argc, char **argv)
{
    sp_ctx_t ctx;
    double on, off, ovl_on, ovl_off, fsdp, fsdp_ovl;

    sp_test_ctx_init(&argc, &argv, &ctx);
    run(&ctx, SP_DP_DDP, 1, &on, &ovl_on);
    run(&ctx, SP_DP_DDP, 0, &off, &ovl_off);
    run(&ctx, SP_DP_FSDP, 1, &fsdp, &fsdp_ovl);
    fprintf(stderr,
            "rank %d: DDP exposed communication %.3f ms with overlap on (overlap %.3f), %.3f ms "
            "off (%.3f); FSDP exposed %.3f ms (overlap %.3f)\n",
            ctx.rank, on, ovl_on, off, ovl_off, fsdp, fsdp_ovl);
    if (ctx.nranks == 1) {
        SP_TEST_TRUE(on == 0.0 && off == 0.0 && isnan(ovl_on));
    } else {
        double mine[2] = {on, off}, sum[2];
        MPI_Allreduce(mine, sum, 2, MPI_DOUBLE, MPI_SUM, ctx.world);
        if (ctx.rank == 0) {
            fprintf(stderr, "mean exposed: overlap on %.3f ms, off %.3f ms\n", sum[0] / ctx.nranks,
                    sum[1] / ctx.nranks);
        }
        SP_TEST_TRUE(sum[0] < sum[1]);
        SP_TEST_TRUE(ovl_on > ovl_off);
        SP_TEST_TRUE(fsdp_ovl > 0.0);
    }
    if (ctx.rank == 0) {
        printf("DDP overlap on exposes less communication than off at %d ranks\n", ctx.nranks);
    }
    sp_test_ctx_fini(&ctx);
    return 0;
}
