/* The proxy's GPU GEMM compute (--compute gemm on the nccl backend), shape by shape: every GEMM
 * of one layer and of the output layer of a model preset on one GPU (tp 1), in the model's dtype,
 * through the backend's gemm_setup and stream_gemm, timed by CUDA events on a proxy stream.
 * Prints the achieved TFLOP/s per shape (and its share of PEAK when given) and the range; fails
 * on a set-up error or a rate that is not positive. Exits 77 (skipped) without a GPU.
 *   gpu_test_gemm_rate [PRESET [PEAK_TFLOPS]]      default llama3-8b, no peak */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "gemm_plan.h"
#include "model.h"
#include "mpitest.h"

#define SKIP_EXIT_CODE 77
#define MIN_TIMED_NS 20000000.0 /* each shape repeated until its batch lasts at least 20 ms */

/* Nanoseconds of list[0] repeated `count` times on s, between two events. */
static double timed_ns(sp_ctx_t *ctx, sp_stream_t *s, sp_event_t *ev[2], sp_gemm_t g, int64_t count)
{
    const sp_backend_ops_t *o = ctx->backend.ops;
    void *bs = ctx->backend.state;
    uint64_t ns = 0;

    g.count = count;
    SP_TEST_EQ_INT(o->stream_record(bs, s, ev[0]), SP_OK);
    SP_TEST_EQ_INT(o->stream_gemm(bs, s, &g, 1), SP_OK);
    SP_TEST_EQ_INT(o->stream_record(bs, s, ev[1]), SP_OK);
    SP_TEST_EQ_INT(o->stream_sync(bs, s), SP_OK);
    SP_TEST_EQ_INT(o->event_elapsed_ns(bs, ev[0], ev[1], &ns), SP_OK);
    return (double)ns;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    const char *preset = argc > 1 ? argv[1] : "llama3-8b";
    double peak = argc > 2 ? atof(argv[2]) : 0.0, rates[SP_PART_COUNT * SP_PART_MAX_GEMMS];
    sp_gemm_t shapes[SP_PART_COUNT * SP_PART_MAX_GEMMS];
    const char *part_of[SP_PART_COUNT * SP_PART_MAX_GEMMS];
    char desc[512] = "";
    sp_ctx_t ctx;
    sp_model_t model;
    sp_gemm_plan_t plan;
    sp_stream_t *s = NULL;
    sp_event_t *ev[2] = {NULL, NULL};
    size_t n = 0;

    sp_test_ctx_init(&argc, &argv, &ctx);
    if (!sp_test_open_nccl(&ctx, 0)) {
        sp_test_ctx_fini(&ctx);
        return SKIP_EXIT_CODE;
    }
    SP_TEST_EQ_INT(sp_model_preset(preset, &model), SP_OK);
    SP_TEST_EQ_INT(sp_gemm_plan_build(&model, 1, &plan), SP_OK);
    for (int p = 0; p < SP_PART_COUNT; p++) {
        for (int g = 0; g < plan.n[p]; g++) {
            part_of[n] = sp_part_names[p];
            shapes[n++] = plan.gemm[p][g];
        }
    }
    if (ctx.backend.ops->gemm_setup(ctx.backend.state, shapes, n, model.dtype, 1, desc,
                                    sizeof(desc)) != SP_OK) {
        SP_TEST_FAIL("gemm_setup: %s", desc);
    }
    SP_TEST_EQ_INT(ctx.backend.ops->stream_create(ctx.backend.state, MPI_COMM_NULL, &s), SP_OK);
    SP_TEST_EQ_INT(ctx.backend.ops->event_create(ctx.backend.state, &ev[0]), SP_OK);
    SP_TEST_EQ_INT(ctx.backend.ops->event_create(ctx.backend.state, &ev[1]), SP_OK);
    if (ctx.rank == 0) {
        printf("# %s (tp 1, %s): %s\n", preset, sp_dtype_name(model.dtype), desc);
    }
    for (size_t i = 0; i < n; i++) {
        double once = timed_ns(&ctx, s, ev, shapes[i], 1); /* also warms this shape */
        int64_t reps = once > 0.0 ? (int64_t)ceil(MIN_TIMED_NS / once) : 1;
        reps = reps < 3 ? 3 : reps > 100000 ? 100000 : reps;
        double ns = timed_ns(&ctx, s, ev, shapes[i], reps);
        rates[i] = ns > 0.0 ? sp_gemm_flops(&shapes[i]) * (double)reps / ns / 1e3 : 0.0;
        if (ctx.rank == 0) {
            printf("gemm %-12s batch %6lld m %6lld n %6lld k %6lld  %8.1f TFLOP/s", part_of[i],
                   (long long)shapes[i].batch, (long long)shapes[i].m, (long long)shapes[i].n,
                   (long long)shapes[i].k, rates[i]);
            printf(peak > 0.0 ? "  %5.1f%% of %.0f\n" : "\n", 100.0 * rates[i] / peak, peak);
        }
        if (!(rates[i] > 0.0 && isfinite(rates[i]))) {
            SP_TEST_FAIL("%s shape %zu: rate %g TFLOP/s", part_of[i], i, rates[i]);
        }
    }
    qsort(rates, n, sizeof(rates[0]), by_value);
    if (ctx.rank == 0) {
        printf("gemm_shapes %zu %.1f %.1f %.1f\n", n, rates[0], rates[n / 2], rates[n - 1]);
    }
    ctx.backend.ops->event_destroy(ctx.backend.state, ev[0]);
    ctx.backend.ops->event_destroy(ctx.backend.state, ev[1]);
    ctx.backend.ops->stream_destroy(ctx.backend.state, s);
    sp_test_ctx_fini(&ctx);
    return 0;
}
