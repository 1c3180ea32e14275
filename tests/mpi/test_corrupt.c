/* A deliberately corrupted receive buffer on one rank gives #wrong > 0 and names that rank, and
 * only that rank (the test-only SCALEPROBE_TEST_CORRUPT_RANK hook corrupts one element); also
 * for the fp8 types and premulsum. */
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "mpitest.h"
#include "sweep.h"

int main(int argc, char **argv)
{
    static const sp_coll_kind_t kinds[] = {SP_COLL_ALL_REDUCE, SP_COLL_ALL_GATHER,
                                           SP_COLL_ALLTOALL, SP_COLL_BROADCAST,
                                           SP_COLL_ALLTOALLV};
    sp_ctx_t ctx;
    sp_coll_opts_t opts;
    sp_sweep_bufs_t bufs;
    char err[256];
    int help = 0;
    char *av[] = {"scaleprobe", "coll", "-n", "3", "-w", "0", "-k", "1"};
    char value[16];
    int victim;

    sp_test_ctx_init(&argc, &argv, &ctx);
    victim = ctx.nranks - 1;
    snprintf(value, sizeof(value), "%d", victim);
    setenv("SCALEPROBE_TEST_CORRUPT_RANK", value, 1);
    SP_TEST_EQ_INT(sp_coll_opts_parse(8, av, 2, &opts, &help, err, sizeof(err)), SP_OK);
    SP_TEST_EQ_INT(sp_sweep_bufs_init(&ctx, 1 << 16, 3, &bufs), SP_OK);

    for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
        const sp_coll_t *coll = sp_coll_get(kinds[k]);
        for (int ip = 0; ip < 2; ip++) {
            sp_coll_args_t args;
            if (!ctx.backend.ops->pattern_supported(ctx.backend.state, coll->pattern, ip)) {
                continue; /* in-place alltoallv */
            }
            sp_coll_args_init(&args, kinds[k], ctx.rank, ctx.nranks, SP_DTYPE_FLOAT, SP_REDOP_SUM,
                              0, ip, 4096);
            SP_TEST_EQ_INT(sp_sweep_measure(&ctx, &opts, coll, &args, &bufs), SP_OK);
            if (ctx.rank != 0) {
                continue;
            }
            /* broadcast's root has no output out-of-place; with one rank that is the victim */
            if (!coll->has_output(&(sp_coll_args_t){.rank = victim, .root = 0, .in_place = ip})) {
                SP_TEST_EQ_INT(bufs.point.row.wrong, 0);
                continue;
            }
            SP_TEST_EQ_INT(bufs.point.row.wrong, 1);
            SP_TEST_EQ_INT(bufs.point.row.wrong_ranks, 1);
            SP_TEST_EQ_INT(bufs.point.nwrong, 1);
            SP_TEST_EQ_INT(bufs.point.wrong[0].rank, victim);
            SP_TEST_EQ_INT(bufs.point.wrong[0].wrong, 1);
        }
    }
    /* the fp8 types and premulsum: a reduction's corrupted element is caught as well */
    {
        static const struct {
            sp_coll_kind_t kind;
            sp_dtype_t dtype;
            sp_redop_t redop;
        } typed[] = {{SP_COLL_ALL_REDUCE, SP_DTYPE_F8E4M3, SP_REDOP_SUM},
                     {SP_COLL_ALL_REDUCE, SP_DTYPE_F8E5M2, SP_REDOP_MAX},
                     {SP_COLL_ALL_REDUCE, SP_DTYPE_FLOAT, SP_REDOP_PREMULSUM},
                     {SP_COLL_REDUCE_SCATTER, SP_DTYPE_F8E4M3, SP_REDOP_PREMULSUM}};
        for (size_t t = 0; t < sizeof(typed) / sizeof(typed[0]); t++) {
            const sp_coll_t *coll = sp_coll_get(typed[t].kind);
            sp_coll_args_t args;
            sp_coll_args_init(&args, typed[t].kind, ctx.rank, ctx.nranks, typed[t].dtype,
                              typed[t].redop, 0, 0, 4096);
            SP_TEST_EQ_INT(sp_sweep_measure(&ctx, &opts, coll, &args, &bufs), SP_OK);
            if (ctx.rank == 0) {
                SP_TEST_EQ_INT(bufs.point.row.wrong, 1);
                SP_TEST_EQ_INT(bufs.point.wrong[0].rank, victim);
            }
        }
    }
    /* and without the hook, the same points are clean again */
    unsetenv("SCALEPROBE_TEST_CORRUPT_RANK");
    {
        const sp_coll_t *coll = sp_coll_get(SP_COLL_ALL_REDUCE);
        sp_coll_args_t args;
        sp_coll_args_init(&args, SP_COLL_ALL_REDUCE, ctx.rank, ctx.nranks, SP_DTYPE_FLOAT,
                          SP_REDOP_SUM, 0, 0, 4096);
        SP_TEST_EQ_INT(sp_sweep_measure(&ctx, &opts, coll, &args, &bufs), SP_OK);
        if (ctx.rank == 0) {
            SP_TEST_EQ_INT(bufs.point.row.wrong, 0);
        }
        sp_coll_args_init(&args, SP_COLL_ALL_REDUCE, ctx.rank, ctx.nranks, SP_DTYPE_F8E4M3,
                          SP_REDOP_PREMULSUM, 0, 1, 4096);
        SP_TEST_EQ_INT(sp_sweep_measure(&ctx, &opts, coll, &args, &bufs), SP_OK);
        if (ctx.rank == 0) {
            SP_TEST_EQ_INT(bufs.point.row.wrong, 0);
            printf("corruption on rank %d detected and attributed\n", victim);
        }
    }
    sp_sweep_bufs_cleanup(&ctx, &bufs);
    sp_test_ctx_fini(&ctx);
    return 0;
}
