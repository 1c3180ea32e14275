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

int sp_test_open_nccl(sp_ctx_t *ctx, int cuda_graph)
{
    sp_backend_config_t cfg = {.local_rank = ctx->topo.local_rank,
                               .local_size = ctx->topo.local_size,
                               .device = -1,
                               .timeout_s = 60.0,
                               .cuda_graph = cuda_graph};
    char err[512] = "";
    sp_status_t status;

    sp_backend_close(&ctx->backend);
    status = sp_backend_open(SP_BACKEND_NCCL, ctx->world, &cfg, &ctx->backend, err, sizeof(err));
    if (status == SP_ERR_UNSUPPORTED) {
        if (ctx->rank == 0) {
            printf("skipped: no GPU (%s)\n", err);
        }
        return 0;
    }
    if (status != SP_OK) {
        SP_TEST_FAIL("sp_backend_open(nccl): %s: %s", sp_status_name(status), err);
    }
    SP_TEST_TRUE(strcmp(ctx->backend.ops->name, "nccl") == 0);
    return 1;
}

void sp_test_ctx_fini(sp_ctx_t *ctx)
{
    sp_backend_close(&ctx->backend);
    sp_topo_cleanup(&ctx->topo);
    MPI_Comm_free(&ctx->world);
    MPI_Finalize();
}

void sp_test_comms(sp_ctx_t *ctx, const sp_layout_t *layout, sp_engine_comms_t *comms)
{
    int color, key;

    comms->world = ctx->world;
    SP_TEST_EQ_INT(sp_layout_split(layout, SP_LAYOUT_GROUP_TP, ctx->rank, &color, &key), SP_OK);
    MPI_Comm_split(ctx->world, color, key, &comms->tp);
    comms->tp_color = color;
    SP_TEST_EQ_INT(sp_layout_split(layout, SP_LAYOUT_GROUP_PP, ctx->rank, &color, &key), SP_OK);
    MPI_Comm_split(ctx->world, color, key, &comms->pp);
    SP_TEST_EQ_INT(sp_layout_split(layout, SP_LAYOUT_GROUP_DP, ctx->rank, &color, &key), SP_OK);
    MPI_Comm_split(ctx->world, color, key, &comms->dp);
    comms->dp_color = color;
    comms->emb = MPI_COMM_NULL; /* the tests' programs have untied embeddings: no group */
    comms->emb_color = -1;
}

void sp_test_comms_free(sp_engine_comms_t *comms)
{
    MPI_Comm_free(&comms->tp);
    MPI_Comm_free(&comms->pp);
    MPI_Comm_free(&comms->dp);
}

void sp_test_program_config(sp_program_config_t *cfg, sp_sched_kind_t kind, const sp_layout_t *l,
                            int m, int layers_per_chunk, double fwd_ns)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->kind = kind;
    cfg->p = l->pp;
    cfg->m = m;
    cfg->v = l->v;
    cfg->tp = l->tp;
    cfg->dp = l->dp;
    cfg->overlap = 1;
    cfg->overlap_param = 1;
    cfg->layers_per_chunk = layers_per_chunk;
    cfg->dtype = SP_DTYPE_FLOAT;
    cfg->grad_dtype = SP_DTYPE_FLOAT;
    cfg->flops_proj = fwd_ns;
    cfg->flops_per_ns = 1.0;
    cfg->tp_elements = 16;
    cfg->tokens = 4;
    cfg->p2p_bytes = 64;
    cfg->layer_param_bytes = 64;
    cfg->logits_param_bytes = 0;
    cfg->bucket_bytes = 25u << 20;
}

double sp_test_median3(const double *x)
{
    double lo = x[0] < x[1] ? x[0] : x[1];
    double hi = x[0] < x[1] ? x[1] : x[0];

    return x[2] < lo ? lo : (x[2] > hi ? hi : x[2]);
}
