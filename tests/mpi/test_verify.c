/* Every collective x data type x reduction x placement (that the backend runs) verifies with
 * #wrong = 0, at sizes that exercise the per-rank rounding (odd counts, counts smaller than the
 * rank count), every root. */
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "mpitest.h"
#include "sweep.h"

int main(int argc, char **argv)
{
    static const size_t sizes[] = {0, 8, 100, 1000, 4096 + 24};
    sp_ctx_t ctx;
    sp_coll_opts_t opts;
    sp_sweep_bufs_t bufs;
    long points = 0;

    sp_test_ctx_init(&argc, &argv, &ctx);
    sp_test_fixed_opts(&opts);
    SP_TEST_EQ_INT(sp_sweep_bufs_init(&ctx, 8192, 4, &bufs), SP_OK);

    for (int c = 0; c < SP_COLL_COUNT; c++) {
        const sp_coll_t *coll = sp_coll_get((sp_coll_kind_t)c);
        for (int d = 0; d < SP_DTYPE_COUNT; d++) {
            for (int o = 0; o < SP_REDOP_COUNT; o++) {
                if (!coll->has_redop && o > 0) {
                    continue;
                }
                for (int root = 0; root < (coll->has_root ? ctx.nranks : 1); root++) {
                    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
                        for (int ip = 0; ip < 2; ip++) {
                            sp_coll_args_t args;
                            /* in-place alltoallv: not an operation of either backend */
                            if (!ctx.backend.ops->pattern_supported(ctx.backend.state,
                                                                    coll->pattern, ip)) {
                                SP_TEST_EQ_INT(c == SP_COLL_ALLTOALLV && ip, 1);
                                continue;
                            }
                            sp_coll_args_init(&args, (sp_coll_kind_t)c, ctx.rank, ctx.nranks,
                                              (sp_dtype_t)d, (sp_redop_t)o, root, ip, sizes[s]);
                            SP_TEST_EQ_INT(sp_sweep_measure(&ctx, &opts, coll, &args, &bufs),
                                           SP_OK);
                            if (ctx.rank == 0 && bufs.point.row.wrong != 0) {
                                SP_TEST_FAIL("%s %s %s root %d size %zu %s: %lld wrong on %d ranks",
                                             coll->name, sp_dtype_name((sp_dtype_t)d),
                                             sp_redop_name((sp_redop_t)o), root, sizes[s],
                                             ip ? "in-place" : "out-of-place",
                                             (long long)bufs.point.row.wrong,
                                             (int)bufs.point.row.wrong_ranks);
                            }
                            if (ctx.rank == 0) {
                                SP_TEST_EQ_INT(bufs.point.row.samples, 2);
                                SP_TEST_EQ_INT(bufs.point.row.batch, 2);
                            }
                            points++;
                        }
                    }
                }
            }
        }
    }
    if (ctx.rank == 0) {
        printf("verified %ld points on %d ranks, #wrong = 0 everywhere\n", points, ctx.nranks);
    }
    sp_sweep_bufs_cleanup(&ctx, &bufs);
    sp_test_ctx_fini(&ctx);
    return 0;
}
