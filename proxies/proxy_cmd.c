/* `scaleprobe proxy`: the training-step engine as a workload of the shared runner: layout and
 * communicators, warm-up steps, measured steps (fixed or until the CI target), a line per step
 * and the summary on rank 0, /proxy in the result file, every task on the timeline. */
#include "proxy_cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "context.h"
#include "engine.h"
#include "progress.h"
#include "proxy_table.h"
#include "log.h"
#include "proxy_options.h"
#include "proxy_result.h"
#include "runner.h"
#include "runstop.h"
#include "stats.h"
#include "timeutil.h"
#include "coll.h"

static sp_status_t proxy_parse(int argc, char **argv, int first, void *opts, int *help_p, char *err,
                               size_t errlen)
{
    return sp_proxy_opts_parse(argc, argv, first, opts, help_p, err, errlen);
}

static sp_status_t proxy_check_world(const void *opts, int nranks, char *err, size_t errlen)
{
    return sp_proxy_opts_check_world(opts, nranks, err, errlen);
}

typedef struct {
    sp_layout_t layout;
    sp_engine_comms_t comms;
    sp_program_config_t cfg;
    sp_proxy_info_t info;
    sp_engine_t *eng;
    sp_proxy_rank_row_t *rows; /* rank 0: every rank's row of every measured step */
    size_t nrows;
    long max_steps;
} proxy_run_t;

static void print_header(const sp_ctx_t *ctx, const proxy_run_t *r, const sp_proxy_opts_t *o)
{
    const sp_program_config_t *c = &r->cfg;
    sp_model_t model;

    sp_proxy_model(o, &model);
    printf("# proxy: %s (%ld layers, hidden %ld, ffn %ld, seq %ld, micro-batch %ld, %s), "
           "dp %d x pp %d x tp %d = %d ranks\n",
           model.name, model.layers, model.hidden, model.ffn, model.seq, model.micro_batch,
           sp_dtype_names[model.dtype], c->dp, c->p, c->tp, ctx->nranks);
    printf("# schedule %s, %d microbatches, %d chunk(s) of %d layer(s) per stage; tp %s; dp %s, "
           "overlap %s, gradients reduced in %s; %.3g TFLOP/s per device; %zu tasks per step on "
           "rank 0\n",
           sp_schedule_kind_name(c->kind), c->m, c->v, c->layers_per_chunk,
           c->tp > 1 ? (c->sequence_parallel ? "with sequence parallelism" : "all-reduce") : "-",
           c->dp > 1 ? sp_proxy_dp_mode_names[c->dp_mode] : "-", c->overlap ? "on" : "off",
           sp_proxy_grad_reduce_names[o->grad_reduce], o->tflops, sp_engine_program(r->eng)->n);
    if (o->steps > 0) {
        printf("# %ld warm-up step(s), %ld measured step(s)\n", o->warmup_steps, o->steps);
    } else {
        printf("# %ld warm-up step(s), then steps until the step time's 95%% CI is within "
               "%.3g%% (%ld to %ld steps, %.0f s at most)\n",
               o->warmup_steps, 100.0 * o->epsilon, o->min_steps, o->max_steps, o->max_time);
        if (o->max_steps < SP_STOP_RULE_MIN_CONVERGED) {
            printf("# (the dependence-aware CI needs %d steps: with --max-steps %ld the run stops "
                   "on the cap)\n",
                   SP_STOP_RULE_MIN_CONVERGED, o->max_steps);
        }
    }
    sp_proxy_table_header(stdout);
}

/* Split world into the TP, PP and DP groups of the layout. */
static void split_comms(sp_ctx_t *ctx, proxy_run_t *r)
{
    static const sp_layout_group_t fam[3] = {SP_LAYOUT_GROUP_TP, SP_LAYOUT_GROUP_PP,
                                             SP_LAYOUT_GROUP_DP};
    MPI_Comm *out[3] = {&r->comms.tp, &r->comms.pp, &r->comms.dp};
    int color[3] = {0, 0, 0};

    r->comms.world = ctx->world;
    for (int f = 0; f < 3; f++) {
        int key = 0;
        sp_layout_split(&r->layout, fam[f], ctx->rank, &color[f], &key);
        MPI_Comm_split(ctx->world, color[f], key, out[f]);
    }
    r->comms.tp_color = color[0];
    r->comms.dp_color = color[2];
}

static void free_comms(proxy_run_t *r)
{
    MPI_Comm *c[3] = {&r->comms.tp, &r->comms.pp, &r->comms.dp};

    for (int f = 0; f < 3; f++) {
        if (*c[f] != MPI_COMM_NULL) {
            MPI_Comm_free(c[f]);
        }
    }
}

/* Whether the measured steps stop after done steps: the stop rule on rank 0's step times,
 * decided by rank 0 and agreed with a signal on any rank (SP_ERR_INTERRUPTED). Collective. */
static sp_status_t should_stop(sp_ctx_t *ctx, const sp_proxy_opts_t *o, const proxy_run_t *r,
                               long done, double t0, int *stop_p)
{
    const sp_stop_rule_t rule = {
        .fixed = (size_t)o->steps,
        .min_samples = (size_t)o->min_steps,
        .max_samples = (size_t)r->max_steps,
        .max_time_s = o->max_time,
        .epsilon = o->epsilon,
    };
    sp_status_t st = SP_OK;
    int stop = 0;

    if (ctx->rank == 0) {
        /* the step times in order, then the rule's scratch */
        double *x = malloc(((size_t)done + sp_stop_rule_scratch_len((size_t)done)) * sizeof(*x));
        if (x == NULL) {
            st = SP_ERR_NOMEM;
        } else {
            for (long i = 0; i < done; i++) {
                x[i] = r->rows[(size_t)i * (size_t)ctx->nranks].step_ms;
            }
            stop = sp_stop_rule_check(&rule, x, (size_t)done, (sp_time_ns() - t0) / 1e9,
                                      x + done, NULL);
            free(x);
        }
    }
    return sp_runstop_agree(ctx->world, st, SP_RUNSTOP_RANK0, stop, stop_p);
}

/* Test-only straggler (SCALEPROBE_TEST_DELAY="RANK:US", as the sweep's): that rank sleeps US
 * microseconds before every measured step. */
static void test_delay(const sp_ctx_t *ctx, long step)
{
    const char *v = getenv("SCALEPROBE_TEST_DELAY");
    int rank = -1;
    long us = 0;

    (void)step;
    if (v != NULL && sscanf(v, "%d:%ld", &rank, &us) == 2 && rank == ctx->rank && us > 0) {
        struct timespec nap = {us / 1000000, (us % 1000000) * 1000};
        nanosleep(&nap, NULL);
    }
}

static sp_status_t run_steps(sp_ctx_t *ctx, const sp_proxy_opts_t *o, proxy_run_t *r)
{
    sp_proxy_rank_row_t mine;
    sp_status_t st = SP_OK;
    double t0;
    long done = 0;
    sp_progress_t progress;

    for (long i = 0; i < o->warmup_steps && st == SP_OK; i++) {
        if (sp_runstop_signal(ctx->world) != 0) {
            return SP_ERR_INTERRUPTED;
        }
        sp_watchdog_beat(ctx->watchdog, "proxy warm-up step %ld", i + 1);
        st = sp_engine_step(r->eng, -1, &mine);
    }
    t0 = sp_time_ns();
    sp_progress_init(&progress, ctx->rank, 0, (size_t)r->max_steps, "step");
    while (st == SP_OK) {
        int stop = 0;
        st = should_stop(ctx, o, r, done, t0, &stop);
        if (st != SP_OK || stop) {
            break;
        }
        sp_proxy_rank_row_t *at =
            r->rows != NULL ? r->rows + (size_t)done * (size_t)ctx->nranks : NULL;
        sp_watchdog_beat(ctx->watchdog, "proxy step %ld: before its start", done + 1);
        test_delay(ctx, done);
        sp_watchdog_beat(ctx->watchdog, "proxy step %ld", done + 1);
        st = sp_engine_step(r->eng, (int)done, &mine);
        if (st != SP_OK) {
            break;
        }
        sp_engine_record(r->eng, (int)done, &ctx->timeline);
        MPI_Gather(&mine, (int)sizeof(mine), MPI_BYTE, at, (int)sizeof(mine), MPI_BYTE, 0,
                   ctx->world);
        if (ctx->rank == 0) {
            sp_proxy_table_step(stdout, at, (size_t)ctx->nranks);
            st = sp_proxy_result_append(ctx->result, at, (size_t)ctx->nranks);
        }
        sp_progress_item_done(&progress);
        st = sp_ctx_agree(ctx, st);
        done++;
        r->nrows = (size_t)done * (size_t)ctx->nranks;
    }
    sp_progress_clear(&progress);
    return st;
}

static sp_status_t setup(sp_ctx_t *ctx, const sp_proxy_opts_t *o, proxy_run_t *r)
{
    char err[256] = "";
    sp_status_t st = sp_proxy_layout(o, ctx->nranks, &r->layout, err, sizeof(err));

    if (st == SP_OK) {
        st = sp_proxy_program_config(o, &r->layout, &r->cfg);
    }
    if (st == SP_OK) {
        st = sp_proxy_info(o, &r->layout, &r->info);
    }
    r->max_steps = o->steps > 0 ? o->steps : o->max_steps;
    if (st == SP_OK && ctx->rank == 0) {
        r->rows = calloc((size_t)r->max_steps * (size_t)ctx->nranks, sizeof(*r->rows));
        st = r->rows == NULL ? SP_ERR_NOMEM : SP_OK;
    }
    if (ctx->rank == 0 && r->layout.tp > ctx->topo.local_size && st == SP_OK) {
        fprintf(stderr, "scaleprobe: warning: tp %d is larger than the %d ranks on a node: tensor "
                        "parallelism crosses the network\n",
                r->layout.tp, ctx->topo.local_size);
    }
    return sp_ctx_agree(ctx, st);
}

/* The timeline holds every task of every measured step (the program is known only now). */
static sp_status_t size_timeline(sp_ctx_t *ctx, const proxy_run_t *r)
{
    size_t events = (size_t)r->max_steps * sp_engine_program(r->eng)->n;

    sp_timeline_cleanup(&ctx->timeline);
    return sp_ctx_agree(ctx, sp_timeline_init(&ctx->timeline, ctx->rank, events));
}

static sp_status_t proxy_run(sp_ctx_t *ctx, const void *opts)
{
    const sp_proxy_opts_t *o = opts;
    sp_model_t model;
    proxy_run_t r;
    sp_status_t st;

    memset(&r, 0, sizeof(r));
    r.comms.tp = r.comms.pp = r.comms.dp = MPI_COMM_NULL;
    st = setup(ctx, o, &r);
    if (st != SP_OK) {
        goto out;
    }
    split_comms(ctx, &r);
    st = sp_engine_create(&ctx->backend, &r.comms, &r.cfg, &r.eng);
    if (st == SP_OK) {
        sp_engine_set_watchdog(r.eng, ctx->watchdog); /* a completed task is progress */
    }
    if (st == SP_OK) {
        st = size_timeline(ctx, &r);
    }
    if (st == SP_OK && ctx->rank == 0) {
        sp_proxy_model(o, &model);
        print_header(ctx, &r, o);
        st = sp_proxy_result_begin(ctx->result, &r.info, sp_schedule_kind_name(r.cfg.kind),
                                   model.name, sp_proxy_dp_mode_names[r.cfg.dp_mode],
                                   sp_dtype_names[model.dtype], sp_dtype_names[r.cfg.grad_dtype]);
    }
    st = sp_ctx_agree(ctx, st);
    if (st == SP_OK) {
        st = run_steps(ctx, o, &r);
    }
    if (st == SP_OK && ctx->rank == 0) {
        sp_proxy_table_summary(stdout, &r.info, r.rows, r.nrows);
    }
    sp_engine_destroy(r.eng);
out:
    free_comms(&r);
    free(r.rows);
    return st;
}

/* The lanes are streams of their own: the nccl backend gives the device enough hardware queues
 * for them before its first CUDA call. The timeline is sized by proxy_run once the program is
 * known. */
static void proxy_extras(const void *opts, sp_run_extras_t *x)
{
    (void)opts;
    x->streams = SP_LANE_COUNT;
}

static const sp_workload_t proxy_workload = {
    .name = "proxy",
    .table = &sp_proxy_opt_table,
    .opts_size = sizeof(sp_proxy_opts_t),
    .event_ops = sp_coll_names,
    .nevent_ops = SP_COLL_COUNT,
    .run_opts_offset = offsetof(sp_proxy_opts_t, run),
    .parse = proxy_parse,
    .check_world = proxy_check_world,
    .extras = proxy_extras,
    .run = proxy_run,
};

int sp_proxy_main(int argc, char **argv)
{
    return sp_runner_main(argc, argv, &proxy_workload);
}
