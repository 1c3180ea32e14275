/* On the nccl backend, every collective x data type x reduction x placement it supports verifies
 * with #wrong = 0 and a positive time, with plain launches and with CUDA graphs (-G). Exits 77
 * (skipped) when no rank can use a GPU. */
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "coll.h"
#include "mpitest.h"
#include "sweep.h"

#define SKIP_EXIT_CODE 77
#define MAX_BYTES (1u << 20)

/* Rank 0: the point just measured has no wrong values, the fixed sample count and a time. */
static void check_row(const sp_coll_t *coll, const sp_coll_args_t *args, size_t bytes,
                      int cuda_graph, const sp_coll_row_t *row)
{
    char what[160];

    snprintf(what, sizeof(what), "%s %s %s root %d size %zu %s%s", coll->name,
             sp_dtype_name(args->dtype), sp_redop_name(args->redop), args->root, bytes,
             args->in_place ? "in-place" : "out-of-place", cuda_graph ? " (CUDA graph)" : "");
    if (row->wrong != 0) {
        SP_TEST_FAIL("%s: %lld wrong on %d ranks", what, (long long)row->wrong,
                     (int)row->wrong_ranks);
    }
    SP_TEST_EQ_INT(row->samples, 2);
    SP_TEST_EQ_INT(row->batch, 2);
    /* a zero-byte operation may enqueue no work at all, so its two events can lie 0 us apart;
     * any real transfer takes time */
    if (!(row->time_us > 0.0 || (bytes == 0 && row->time_us == 0.0))) {
        SP_TEST_FAIL("%s: time %g us", what, row->time_us);
    }
}

/* Measure and check every supported point; returns how many were measured. */
static long verify_all(sp_ctx_t *ctx, const sp_coll_opts_t *opts, sp_sweep_bufs_t *bufs,
                       int cuda_graph)
{
    static const size_t sizes[] = {0, 8, 100, 4096 + 24, MAX_BYTES};
    const size_t nsizes = sizeof(sizes) / sizeof(sizes[0]);
    const sp_backend_ops_t *ops = ctx->backend.ops;
    long points = 0;

    for (int c = 0; c < SP_COLL_COUNT; c++) {
        const sp_coll_t *coll = sp_coll_get((sp_coll_kind_t)c);
        int nredops = coll->has_redop ? SP_REDOP_COUNT : 1;
        int nroots = coll->has_root ? ctx->nranks : 1;

        for (int ip = 0; ip < 2; ip++) {
            if (!ops->pattern_supported(ctx->backend.state, coll->pattern, ip)) {
                continue;
            }
            for (int d = 0; d < SP_DTYPE_COUNT; d++) {
                for (int o = 0; o < nredops; o++) {
                    for (int root = 0; root < nroots; root++) {
                        for (size_t s = 0; s < nsizes; s++) {
                            sp_coll_args_t args;

                            sp_coll_args_init(&args, (sp_coll_kind_t)c, ctx->rank, ctx->nranks,
                                              (sp_dtype_t)d, (sp_redop_t)o, root, ip, sizes[s]);
                            SP_TEST_EQ_INT(sp_sweep_measure(ctx, opts, coll, &args, bufs), SP_OK);
                            if (ctx->rank == 0) {
                                check_row(coll, &args, sizes[s], cuda_graph, &bufs->point.row);
                            }
                            points++;
                        }
                    }
                }
            }
        }
    }
    return points;
}

int main(int argc, char **argv)
{
    sp_ctx_t ctx;
    sp_coll_opts_t opts;
    sp_sweep_bufs_t bufs;

    sp_test_ctx_init(&argc, &argv, &ctx);
    sp_test_fixed_opts(&opts);
    for (int graph = 0; graph < 2; graph++) {
        long points;

        if (!sp_test_open_nccl(&ctx, graph)) {
            SP_TEST_EQ_INT(graph, 0); /* the GPU does not vanish between the two passes */
            sp_test_ctx_fini(&ctx);
            return SKIP_EXIT_CODE;
        }
        SP_TEST_EQ_INT(sp_sweep_bufs_init(&ctx, MAX_BYTES, 4, &bufs), SP_OK);
        points = verify_all(&ctx, &opts, &bufs, graph);
        SP_TEST_TRUE(points > 0);
        if (ctx.rank == 0) {
            printf("verified %ld nccl points%s on %d ranks, #wrong = 0 everywhere\n", points,
                   graph ? " with CUDA graphs" : "", ctx.nranks);
        }
        sp_sweep_bufs_cleanup(&ctx, &bufs);
    }
    sp_test_ctx_fini(&ctx);
    return 0;
}
