/* Harness set-up shared by the MPI tests. */
#include "mpitest.h"

#include <string.h>

void sp_test_fixed_opts(sp_coll_opts_t *opts)
{
    char err[256];
    int help = 0;
    char *argv[] = {"scaleprobe", "coll", "-n", "2", "-w", "1", "-k", "2"};

    if (sp_coll_opts_parse(8, argv, 2, opts, &help, err, sizeof(err)) != SP_OK) {
        SP_TEST_FAIL("option parsing: %s", err);
    }
}

void sp_test_ctx_init(int *argc, char ***argv, sp_ctx_t *ctx)
{
    int provided;

    memset(ctx, 0, sizeof(*ctx));
    MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_dup(MPI_COMM_WORLD, &ctx->world);
    MPI_Comm_rank(ctx->world, &ctx->rank);
    MPI_Comm_size(ctx->world, &ctx->nranks);
    SP_TEST_EQ_INT(sp_topo_init(ctx->world, &ctx->topo), SP_OK);
    sp_backend_config_t cfg = {.local_rank = ctx->topo.local_rank,
                               .local_size = ctx->topo.local_size,
                               .device = -1,
                               .timeout_s = 60.0};
    char err[256];
    SP_TEST_EQ_INT(sp_backend_open(SP_BACKEND_HOST, ctx->world, &cfg, &ctx->backend, err,
                                   sizeof(err)),
                   SP_OK);
}

void sp_test_ctx_fini(sp_ctx_t *ctx)
{
    sp_backend_close(&ctx->backend);
    sp_topo_cleanup(&ctx->topo);
    MPI_Comm_free(&ctx->world);
    MPI_Finalize();
}
