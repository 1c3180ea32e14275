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
#include "gemm_plan.h"
#include "progress.h"
#include "proxy_table.h"
#include "log.h"
#include "proxy_estimate.h"
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

/* The layout and schedule checks, then the guard: a run that cannot finish its warm-up and
 * fewest steps within --max-time by the cost model is refused before any file is created. With
 * --compute gemm the rate is measured only once the run has started: no guard. */
static sp_status_t proxy_check_world(const void *opts, int nranks, char *err, size_t errlen)
{
    const sp_proxy_opts_t *o = opts;
    sp_status_t st = sp_proxy_opts_check_world(o, nranks, err, errlen);

    if (st != SP_OK || o->compute == SP_PROXY_COMPUTE_GEMM) {
        return st;
    }
    return sp_proxy_guard(o, nranks, err, errlen);
}

typedef struct {
    sp_layout_t layout;
    sp_engine_comms_t comms;
    sp_program_config_t cfg;
    sp_proxy_info_t info;
    sp_engine_t *eng;
    sp_proxy_estimate_t est; /* the cost model's step, each stage's parts */
    char sharing[SP_PROXY_NOTE_LEN]; /* rank 0: the oversubscription warning, "" when none */
    char compute[SP_PROXY_NOTE_LEN]; /* what runs the compute tasks (attribute compute) */
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
    printf("# schedule %s, %d microbatches, %d chunk(s) of %d layer(s) per stage; tp %s; dp %s%s, "
           "overlap %s, gradients reduced in %s; embeddings %s; %.3g TFLOP/s per device; %zu "
           "tasks per step on rank 0\n# compute: %s\n",
           sp_schedule_kind_name(c->kind), c->m, c->v, c->layers_per_chunk,
           c->tp > 1 ? (c->sequence_parallel ? "with sequence parallelism" : "all-reduce") : "-",
           c->dp > 1 ? sp_proxy_dp_mode_names[c->dp_mode] : "-",
           c->dp > 1 && c->dist_opt ? " with the distributed optimizer" : "",
           sp_proxy_overlap_desc(c->overlap, c->overlap_param,
                                 c->dist_opt || c->dp_mode == SP_DP_FSDP),
           sp_proxy_grad_reduce_names[o->grad_reduce], sp_proxy_embedding_desc(c),
           r->info.tflops, sp_engine_program(r->eng)->n, r->compute);
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
    if (r->sharing[0] != '\0') {
        printf("# warning: %s\n", r->sharing); /* report prints it from the file too */
    }
    sp_proxy_table_header(stdout);
}

/* Megatron's embedding group (program.h): the first and the last stage of one DP replica and
 * TP rank; a stage between them gets a communicator of its own (it creates the lane's stream
 * like every rank, and leaves it idle). None without the group. Collective over world. */
static void split_embedding(sp_ctx_t *ctx, proxy_run_t *r)
{
    sp_layout_coord_t at;
    int in;

    r->comms.emb = MPI_COMM_NULL;
    r->comms.emb_color = -1;
    if (sp_program_embedding_group(&r->cfg, 0) < 0 ||
        sp_layout_coord(&r->layout, ctx->rank, &at) != SP_OK) {
        return;
    }
    in = sp_program_embedding_group(&r->cfg, at.pp) == 1;
    r->comms.emb_color = in ? at.dp * r->layout.tp + at.tp : ctx->nranks + ctx->rank;
    MPI_Comm_split(ctx->world, r->comms.emb_color, at.pp, &r->comms.emb);
}

/* Split world into the TP, PP and DP groups of the layout, and the embedding group. */
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
    split_embedding(ctx, r);
}

static void free_comms(proxy_run_t *r)
{
    MPI_Comm *c[4] = {&r->comms.tp, &r->comms.pp, &r->comms.dp, &r->comms.emb};

    for (int f = 0; f < 4; f++) {
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
    sp_progress_init(&progress, ctx->rank, o->quiet, (size_t)r->max_steps, "step");
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
        sp_proxy_estimate_apply(&r->est, &mine);
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
        /* the engine's bound: set here, not in sp_proxy_info, so predict's files keep 0 */
        r->info.max_inflight = (int32_t)o->max_inflight;
        r->info.max_inflight_total = sp_engine_inflight_total((int)o->max_inflight);
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

/* Rank 0: the first pair of ranks on one node with the same GPU (bus id), 0 when none. */
static int shared_gpu(const sp_topo_t *topo, int *a_p, int *b_p)
{
    for (int a = 0; topo->ranks != NULL && a < topo->nranks; a++) {
        for (int b = a + 1; b < topo->nranks; b++) {
            const sp_topo_rank_t *x = &topo->ranks[a], *y = &topo->ranks[b];
            if (x->node == y->node && strcmp(x->bus_id, "-") != 0 &&
                strcmp(x->bus_id, y->bus_id) == 0) {
                *a_p = a;
                *b_p = b;
                return 1;
            }
        }
    }
    return 0;
}

/* Lanes that time-share one processor distort every overlap and exposed-communication figure:
 * on the host, a node's ranks x their busy lanes (one stream thread each) against its online
 * cores; on GPUs, two ranks on one device. Rank 0 prints one warning (stderr) and keeps it in
 * note. Collective. */
static void warn_sharing(sp_ctx_t *ctx, const sp_program_t *prog, int extra_threads, char *note,
                         size_t len)
{
    int used[SP_LANE_COUNT] = {0}, lanes = 0, a = 0, b = 0;
    sp_topo_busiest_t busy;

    for (size_t i = 0; i < prog->n; i++) {
        lanes += used[prog->tasks[i].lane]++ == 0;
    }
    lanes += extra_threads; /* the BLAS's own threads beside the compute lane's */
    busy = sp_topo_busiest_node(&ctx->topo, ctx->world, lanes);
    note[0] = '\0';
    if (ctx->rank != 0) {
        return;
    }
    if (ctx->backend.kind == SP_BACKEND_NCCL && shared_gpu(&ctx->topo, &a, &b)) {
        snprintf(note, len, "ranks %d and %d share the GPU %s on %s: their lanes time-share it, "
                 "so overlap and exposed communication are distorted", a, b,
                 ctx->topo.ranks[a].bus_id, ctx->topo.ranks[a].host);
    } else if (ctx->backend.kind != SP_BACKEND_NCCL && busy.threads > busy.cores) {
        const char *host = ctx->topo.ranks != NULL ? ctx->topo.ranks[busy.rank].host : "?";
        snprintf(note, len, "oversubscribed: %d stream threads (ranks on the node x their busy "
                 "lanes) on %d online cores of %s: lanes time-share cores, so overlap and "
                 "exposed communication are distorted", busy.threads, busy.cores, host);
    }
    if (note[0] != '\0') {
        fprintf(stderr, "scaleprobe proxy: warning: %s\n", note);
    }
}

/* The timeline holds every task of every measured step (the program is known only now). */
static sp_status_t size_timeline(sp_ctx_t *ctx, const proxy_run_t *r)
{
    size_t events = (size_t)r->max_steps * sp_engine_program(r->eng)->n;

    sp_timeline_cleanup(&ctx->timeline);
    return sp_ctx_agree(ctx, sp_timeline_init(&ctx->timeline, ctx->rank, events));
}

/* What computes: the timed stand-in at --tflops, or the GEMMs (set up and calibrated here: the
 * rate becomes the program's and the estimate's). Then the cost model's estimate. Collective. */
static sp_status_t setup_compute(sp_ctx_t *ctx, const sp_proxy_opts_t *o, proxy_run_t *r)
{
    sp_model_t model;
    sp_gemm_plan_t plan;
    char desc[SP_PROXY_NOTE_LEN - 64] = "";
    double tflops = 0.0;
    sp_status_t st = SP_OK;

    sp_proxy_model(o, &model);
    if (o->compute == SP_PROXY_COMPUTE_GEMM) {
        st = sp_gemm_plan_build(&model, r->layout.tp, &plan);
        st = st == SP_OK ? sp_engine_set_gemm(r->eng, &plan, (int)o->compute_threads, desc,
                                              sizeof(desc), &tflops)
                         : st;
        /* no math library, or a type or shape the device cannot run: a setting to change, so
         * exit 2 as for bad input (the lowest failing rank has said why) */
        st = st == SP_ERR_UNSUPPORTED ? SP_ERR_INVALID : st;
        if (st == SP_OK) {
            r->cfg.flops_per_ns = tflops * 1e3;
            r->info.tflops = tflops;
            snprintf(r->compute, sizeof(r->compute),
                     "gemm: %s on the compute lane, model dtype %s; measured "
                     "%.4g TFLOP/s per rank (one layer's GEMMs at start-up, mean over ranks)",
                     desc, sp_dtype_names[model.dtype], tflops);
        }
    } else {
        snprintf(r->compute, sizeof(r->compute), "timed: %s of each task's FLOPs at --tflops %.3g "
                 "(no arithmetic)",
                 ctx->backend.kind == SP_BACKEND_NCCL ? "a spin kernel" : "a wait", o->tflops);
    }
    if (st == SP_OK) {
        st = sp_proxy_estimate(&r->cfg, &r->est);
    }
    return sp_ctx_agree(ctx, st);
}

/* What the bound on tasks in flight did, over all ranks: printed and kept as /proxy attributes
 * by rank 0. Collective over the world. */
static sp_status_t note_inflight(sp_ctx_t *ctx, const proxy_run_t *r)
{
    int mine[2], peak[2] = {0, 0};
    uint64_t held = 0, sum = 0;
    sp_status_t st = SP_OK;

    sp_engine_inflight_stats(r->eng, &mine[0], &mine[1], &held);
    MPI_Reduce(mine, peak, 2, MPI_INT, MPI_MAX, 0, ctx->world);
    MPI_Reduce(&held, &sum, 1, MPI_UINT64_T, MPI_SUM, 0, ctx->world);
    if (ctx->rank == 0) {
        printf("# in flight: at most %d tasks on one lane (--max-inflight %d) and %d on all lanes "
               "(bound %d) of any rank; %llu polls ended with tasks waiting for room\n",
               peak[0], r->info.max_inflight, peak[1], r->info.max_inflight_total,
               (unsigned long long)sum);
        st = sp_proxy_result_note_inflight(ctx->result, peak[0], peak[1], (int64_t)sum);
    }
    return sp_ctx_agree(ctx, st);
}

sp_status_t sp_proxy_run(sp_ctx_t *ctx, const sp_proxy_opts_t *o)
{
    sp_model_t model;
    proxy_run_t r;
    sp_status_t st;

    memset(&r, 0, sizeof(r));
    r.comms.tp = r.comms.pp = r.comms.dp = r.comms.emb = MPI_COMM_NULL;
    st = setup(ctx, o, &r);
    if (st != SP_OK) {
        goto out;
    }
    split_comms(ctx, &r);
    st = sp_engine_create(&ctx->backend, &r.comms, &r.cfg, &r.eng);
    if (st == SP_OK) {
        sp_engine_set_watchdog(r.eng, ctx->watchdog); /* a completed task is progress */
        /* the nccl backend bounds its device waits by --timeout itself (and aborts its
         * communicators), the watchdog 30 s behind: so does the engine's wait for room; on the
         * host the watchdog bounds it and names the stalled ranks */
        st = sp_ctx_agree(ctx, sp_engine_set_inflight(
                                   r.eng, (int)o->max_inflight,
                                   ctx->backend.kind == SP_BACKEND_NCCL ? o->run.timeout : 0.0));
    }
    if (st == SP_OK) {
        st = setup_compute(ctx, o, &r);
    }
    if (st == SP_OK) {
        st = size_timeline(ctx, &r);
    }
    if (st == SP_OK) {
        warn_sharing(ctx, sp_engine_program(r.eng),
                     o->compute == SP_PROXY_COMPUTE_GEMM ? (int)o->compute_threads - 1 : 0,
                     r.sharing, sizeof(r.sharing));
    }
    if (st == SP_OK && ctx->rank == 0) {
        sp_proxy_model(o, &model);
        print_header(ctx, &r, o);
        st = sp_proxy_result_begin(ctx->result, &r.info, sp_schedule_kind_name(r.cfg.kind),
                                   model.name, sp_proxy_dp_mode_names[r.cfg.dp_mode],
                                   sp_dtype_names[model.dtype], sp_dtype_names[r.cfg.grad_dtype]);
        if (st == SP_OK && r.sharing[0] != '\0') {
            st = sp_proxy_result_note_sharing(ctx->result, r.sharing);
        }
        if (st == SP_OK) {
            st = sp_proxy_result_note_compute(ctx->result, r.compute);
        }
    }
    st = sp_ctx_agree(ctx, st);
    if (st == SP_OK) {
        st = run_steps(ctx, o, &r);
    }
    if (st == SP_OK && ctx->rank == 0) {
        sp_proxy_table_summary(stdout, &r.info, r.rows, r.nrows);
    }
    if (st == SP_OK) {
        st = note_inflight(ctx, &r);
    }
    sp_engine_destroy(r.eng);
out:
    sp_proxy_estimate_free(&r.est);
    free_comms(&r);
    free(r.rows);
    return st;
}

static sp_status_t proxy_run(sp_ctx_t *ctx, const void *opts)
{
    return sp_proxy_run(ctx, opts);
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
    .thread_multiple = 1, /* the host backend's lanes are threads that call MPI */
    .parse = proxy_parse,
    .check_world = proxy_check_world,
    .extras = proxy_extras,
    .run = proxy_run,
};

int sp_proxy_main(int argc, char **argv)
{
    return sp_runner_main(argc, argv, &proxy_workload);
}
