/* `scaleprobe proxy`: the pipeline engine as a workload of the shared runner: warm-up steps,
 * measured steps, the per-stage table on rank 0 and /proxy/stages in the result file. */
#include "proxy_cmd.h"

#include <stdio.h>
#include <stdlib.h>

#include "context.h"
#include "engine.h"
#include "proxy_table.h"
#include "log.h"
#include "proxy_options.h"
#include "runner.h"

static sp_status_t proxy_parse(int argc, char **argv, int first, void *opts, int *help_p, char *err,
                               size_t errlen)
{
    return sp_proxy_opts_parse(argc, argv, first, opts, help_p, err, errlen);
}

static sp_status_t proxy_check_world(const void *opts, int nranks, char *err, size_t errlen)
{
    return sp_proxy_opts_check_world(opts, nranks, err, errlen);
}

static char *proxy_output(void *opts)
{
    return ((sp_proxy_opts_t *)opts)->output;
}

static int proxy_force(const void *opts)
{
    return ((const sp_proxy_opts_t *)opts)->force;
}

static int proxy_backend(const void *opts)
{
    return ((const sp_proxy_opts_t *)opts)->backend;
}

static void proxy_backend_config(const void *opts, sp_backend_config_t *cfg)
{
    (void)opts;
    cfg->device = -1;
    cfg->timeout_s = 300.0;
    cfg->cuda_graph = 0;
}

static void proxy_timeline_config(const void *opts, size_t *events_p, int *clock_all_p,
                                  int *mpiio_p)
{
    const sp_proxy_opts_t *o = opts;

    /* every compute op of every measured step: 2 m v per stage and step */
    *events_p = (size_t)o->steps * 2u * (size_t)o->microbatches * (size_t)o->chunks;
    *clock_all_p = 0;
    *mpiio_p = 0;
}

static void print_header(const sp_pp_config_t *cfg, int p, const sp_proxy_opts_t *o)
{
    printf("# proxy: schedule %s, pp %d, microbatches %d, chunks %d, F %.3f ms, B %.3f ms per "
           "chunk, message %zu bytes\n",
           sp_schedule_kind_name(cfg->kind), p, cfg->m, cfg->v, (double)cfg->t_f_ns / 1e6,
           (double)cfg->t_b_ns / 1e6, cfg->msg_bytes);
    printf("# %ld warm-up step(s), %ld measured step(s); predicted: replay of the schedule with "
           "the measured mean op times, zero communication\n",
           o->warmup_steps, o->steps);
    sp_proxy_table_header(stdout);
}

/* Gather every stage's metrics of one step into rows[0..p) on rank 0. Collective. */
static void gather_rows(sp_ctx_t *ctx, int step, const sp_pp_metrics_t *m,
                        sp_proxy_stage_row_t *rows)
{
    sp_proxy_stage_row_t mine = {step,         ctx->rank,      m->step_ms,       m->busy_ms,
                                 m->bubble_ms, m->bubble_frac, m->predicted_frac};

    MPI_Gather(&mine, (int)sizeof(mine), MPI_BYTE, rows, (int)sizeof(mine), MPI_BYTE, 0,
               ctx->world);
}

static sp_status_t run_steps(sp_ctx_t *ctx, const sp_proxy_opts_t *o, sp_pp_engine_t *eng,
                             sp_proxy_stage_row_t *rows)
{
    sp_pp_metrics_t m;
    sp_status_t st = SP_OK;

    for (long i = 0; i < o->warmup_steps && st == SP_OK; i++) {
        st = sp_pp_engine_step(eng, &m);
    }
    for (long i = 0; i < o->steps && st == SP_OK; i++) {
        st = sp_pp_engine_step(eng, &m);
        if (st == SP_OK) {
            sp_pp_engine_record(eng, (int)i, ctx->rank, &ctx->timeline);
        }
        if (st == SP_OK) {
            sp_proxy_stage_row_t *at = rows + (size_t)i * (size_t)ctx->nranks;
            gather_rows(ctx, (int)i, &m, at);
            if (ctx->rank == 0) {
                sp_proxy_table_rows(stdout, at, (size_t)ctx->nranks);
            }
        }
    }
    return st;
}

static sp_status_t proxy_run(sp_ctx_t *ctx, const void *opts)
{
    const sp_proxy_opts_t *o = opts;
    sp_pp_config_t cfg;
    sp_pp_engine_t *eng = NULL;
    size_t n = (size_t)o->steps * (size_t)ctx->nranks;
    sp_proxy_stage_row_t *rows = calloc(n, sizeof(*rows));
    sp_status_t st = sp_ctx_agree(ctx, rows == NULL ? SP_ERR_NOMEM
                                                    : sp_proxy_engine_config(o, ctx->nranks, &cfg));

    if (st != SP_OK) {
        goto out_rows;
    }
    st = sp_pp_engine_create(&ctx->backend, ctx->world, &cfg, &eng);
    if (st != SP_OK) {
        goto out_rows;
    }
    if (ctx->rank == 0) {
        print_header(&cfg, ctx->nranks, o);
    }
    st = run_steps(ctx, o, eng, rows);
    if (st == SP_OK && ctx->rank == 0) {
        sp_proxy_table_summary(stdout, rows, n, ctx->nranks);
        st = sp_result_write_proxy_stages(ctx->result, rows, n, sp_schedule_kind_name(cfg.kind),
                                          ctx->nranks, cfg.m, cfg.v);
    }
    st = sp_ctx_agree(ctx, st);
    sp_pp_engine_destroy(eng);
out_rows:
    free(rows);
    return st;
}

static const sp_workload_t proxy_workload = {
    .name = "proxy",
    .table = &sp_proxy_opt_table,
    .opts_size = sizeof(sp_proxy_opts_t),
    .parse = proxy_parse,
    .check_world = proxy_check_world,
    .output = proxy_output,
    .force = proxy_force,
    .backend = proxy_backend,
    .backend_config = proxy_backend_config,
    .timeline_config = proxy_timeline_config,
    .run = proxy_run,
};

int sp_proxy_main(int argc, char **argv)
{
    return sp_runner_main(argc, argv, &proxy_workload);
}
