/* The proxy engine on host streams: with fixed compute times (F = 25 ms, B = 50 ms per chunk)
 * and tiny messages, every stage's measured bubble / step is within 10% (relative) of
 *   1F1B, p stages, m microbatches:          (p-1) / (m + p - 1)
 *   interleaved 1F1B, v chunks (m % p == 0): (p-1) / (v*m + p - 1)
 *   ZB-H1 (B = W = F = 25 ms):               (p-1)(F+B-W) / (m(F+B+W) + (p-1)(F+B-W))
 * (equal op times on every stage; step = makespan, bubble = idle time of the stage), the
 * replay's prediction from the measured op times agrees with the formula, and the bubble's
 * split into warm-up, steady and cool-down adds up to it, for 1F1B with under 10% of it in the
 * steady state (ideally none: its idle time is all pipeline fill and drain). p = world size; registered at 4
 * ranks (1F1B and interleaved within 10%, ZB-H1 within 20%, see below). The host adds a wake-up latency of 0.3-1 ms per stage-to-stage hop (2 cores, 4 ranks);
 * the long op times keep that below the 10% on the critical path. */
#include <math.h>
#include <string.h>

#include "mpitest.h"

#define STEPS 3 /* measured; the median resists one disturbed step */
#define F_NS 25e6

static double median_bubble(sp_ctx_t *ctx, sp_sched_kind_t kind, int m, int v, double *pred_p,
                            double *steady_p)
{
    sp_layout_t l = {1, ctx->nranks, 1, v};
    sp_engine_comms_t comms;
    sp_program_config_t cfg;
    sp_engine_t *eng = NULL;
    sp_proxy_rank_row_t row;
    double f[STEPS], steady[STEPS];

    sp_test_comms(ctx, &l, &comms);
    sp_test_program_config(&cfg, kind, &l, m, 1, F_NS);
    SP_TEST_EQ_INT(sp_engine_create(&ctx->backend, &comms, &cfg, &eng), SP_OK);
    SP_TEST_EQ_INT(sp_engine_step(eng, -1, &row), SP_OK); /* warm-up */
    for (int i = 0; i < STEPS; i++) {
        SP_TEST_EQ_INT(sp_engine_step(eng, i, &row), SP_OK);
        f[i] = row.bubble_frac;
        /* the split is of the same idle time */
        SP_TEST_TRUE(fabs(row.warmup_ms + row.steady_ms + row.cooldown_ms - row.bubble_ms) <
                     1e-6 * row.step_ms + 1e-9);
        SP_TEST_EQ_INT(row.stage, ctx->rank);
        steady[i] = row.steady_ms / row.bubble_ms;
    }
    *pred_p = row.predicted_frac;
    *steady_p = sp_test_median3(steady);
    sp_engine_destroy(eng);
    sp_test_comms_free(&comms);
    return sp_test_median3(f);
}

static void check(sp_ctx_t *ctx, const char *name, double measured, double pred, double formula,
                  double tol, double steady)
{
    fprintf(stderr,
            "rank %d %s: bubble/step measured %.4f predicted %.4f formula %.4f; steady-state "
            "share of the bubble %.3f\n",
            ctx->rank, name, measured, pred, formula, steady);
    if (formula == 0.0) {
        SP_TEST_TRUE(measured < 0.02); /* one stage: only start-up latency */
        return;
    }
    SP_TEST_TRUE(measured > (1.0 - tol) * formula && measured < (1.0 + tol) * formula);
    SP_TEST_TRUE(pred > 0.95 * formula && pred < 1.05 * formula);
    /* 1F1B's idle time is all pipeline fill and drain: steady-state stalls are only the host's
     * hop latencies (the interleaved and ZB-H1 orders also idle in their steady state) */
    if (strcmp(name, "1f1b") == 0) {
        SP_TEST_TRUE(steady < 0.1);
    }
}

int main(int argc, char **argv)
{
    sp_ctx_t ctx;
    int p, m = 8;
    double meas, pred, steady;

    sp_test_ctx_init(&argc, &argv, &ctx);
    p = ctx.nranks;
    meas = median_bubble(&ctx, SP_SCHED_1F1B, m, 1, &pred, &steady);
    check(&ctx, "1f1b", meas, pred, (double)(p - 1) / (double)(m + p - 1), 0.1, steady);
    if (p >= 2) { /* Megatron's interleaving needs a pipeline */
        meas = median_bubble(&ctx, SP_SCHED_INTERLEAVED, m, 2, &pred, &steady);
        check(&ctx, "interleaved v=2", meas, pred, (double)(p - 1) / (double)(2 * m + p - 1), 0.1, steady);
    }
    /* ZB-H1's bubble is a third of 1F1B's while the host's hop latency (about 8 ms per step
     * here, measured as the excess over the formula for all three) is the same: 20% */
    meas = median_bubble(&ctx, SP_SCHED_ZBH1, m, 1, &pred, &steady);
    check(&ctx, "zb-h1", meas, pred, (double)(p - 1) / (double)(3 * m + p - 1), 0.2, steady);
    if (ctx.rank == 0) {
        printf("proxy bubbles within 10%% of the formulas on %d stages\n", p);
    }
    sp_test_ctx_fini(&ctx);
    return 0;
}
