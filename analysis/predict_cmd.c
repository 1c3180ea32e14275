/* `scaleprobe predict`: the proxy's options (one table with the proxy's step options and the
 * cost model's), one program per pipeline stage, the simulation (predict_sim.h), and a result
 * file with the schema of a proxy run, marked as predicted. A plain process: no MPI launch. */
#include "predict_cmd.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "launcher.h"
#include "predict_inputs.h"
#include "predict_sim.h"
#include "proxy_options.h"
#include "proxy_result.h"
#include "proxy_table.h"
#include "result.h"
#include "runopts.h"
#include "timeutil.h"
#include "topo.h"
#include "coll.h"

typedef struct {
    sp_proxy_opts_t proxy; /* first: the proxy's option definitions address it at offset 0 */
    char sweep[SP_OPT_STRLEN];
    char node[SP_OPT_STRLEN];
    double alpha_us;
    double beta_gbps;
    int free_comm;
    long ranks;
    sp_run_opts_t run; /* -O and --force only: predict runs no backend */
} predict_opts_t;

#define POFF(field) offsetof(predict_opts_t, field)

static const sp_opt_def_t predict_defs[] = {
    {"ranks", 0, SP_OPT_INT, POFF(ranks), "0", "N",
     "world size to predict; default: tp x pp x dp (with --pp given; dp 1 when not given)", 1, 1e8,
     NULL, 0},
    {"sweep", 0, SP_OPT_STRING, POFF(sweep), "", "FILE[,FILE...]",
     "collective times from `scaleprobe coll` result files (all_reduce, all_gather, "
     "reduce_scatter, sendrecv as the layout needs), one per communicator size: a group takes "
     "the file of its size, else the nearest, scaled by the bus factor",
     0, -1, NULL, 0},
    {"node", 0, SP_OPT_STRING, POFF(node), "", "FILE",
     "compute rate from a `scaleprobe node` result file instead of --tflops: the median over "
     "ranks of the GEMM rate of the proxy's type",
     0, -1, NULL, 0},
    {"alpha-us", 0, SP_OPT_DOUBLE, POFF(alpha_us), "0", "US",
     "alpha-beta model instead of --sweep: latency of every collective and message, us", 0, 1e9,
     NULL, 0},
    {"beta-gbps", 0, SP_OPT_DOUBLE, POFF(beta_gbps), "0", "GBPS",
     "alpha-beta model: bus bandwidth, GB/s (time = alpha + bytes x busbw factor / beta)", 1e-9,
     1e9, NULL, 0},
    {"free-comm", 0, SP_OPT_FLAG, POFF(free_comm), NULL, NULL,
     "communication costs nothing: the step from compute and the schedule alone (the bound "
     "that no network can beat)",
     0, -1, NULL, 0},
    SP_RUN_OUTPUT_ROWS(predict_opts_t, run, "results/predict-<UTC time>-<pid>.h5"),
};

/* The proxy's options that steer a measurement, not the step: not options of predict. */
static const char *const measurement_only[] = {
    "steps", "epsilon", "min-steps", "max-steps", "max-time", "warmup-steps",
    "backend", "device", "timeout", "output", "force", "quiet", "compute", "compute-threads",
    "max-inflight",
};

#define MAX_DEFS 80

/* The option table: the proxy's step options, then predict's own. Caller storage. */
typedef struct {
    sp_opt_def_t defs[MAX_DEFS];
    sp_opt_table_t table;
    int alpha, beta; /* indices of --alpha-us and --beta-gbps in defs */
} predict_table_t;

static void table_init(predict_table_t *t)
{
    int n = 0;

    for (int i = 0; i < sp_proxy_opt_table.ndefs && n < MAX_DEFS; i++) {
        const sp_opt_def_t *d = &sp_proxy_opt_table.defs[i];
        int skip = 0;
        for (size_t k = 0; k < sizeof(measurement_only) / sizeof(measurement_only[0]); k++) {
            skip |= strcmp(d->long_name, measurement_only[k]) == 0;
        }
        if (!skip) {
            t->defs[n++] = *d;
        }
    }
    for (size_t i = 0; i < sizeof(predict_defs) / sizeof(predict_defs[0]) && n < MAX_DEFS; i++) {
        if (strcmp(predict_defs[i].long_name, "alpha-us") == 0) {
            t->alpha = n;
        } else if (strcmp(predict_defs[i].long_name, "beta-gbps") == 0) {
            t->beta = n;
        }
        t->defs[n++] = predict_defs[i];
    }
    t->table.command = "predict";
    t->table.summary =
        "Predict the training proxy's step (the options of `proxy`) from measured parts: a "
        "discrete-event\nsimulation of every stage's task program with compute at --tflops and "
        "communication from\na sweep result file (--sweep) or an alpha-beta model (--alpha-us, "
        "--beta-gbps). Writes a\nresult file with the schema of a proxy run, marked as "
        "predicted. Needs no MPI launch.";
    t->table.defs = t->defs;
    t->table.ndefs = n;
}

/* Everything one prediction holds. */
typedef struct {
    predict_opts_t o;
    predict_table_t tab;
    int nranks;
    sp_layout_t layout;
    sp_program_config_t cfg;
    sp_proxy_info_t info;
    sp_model_t model;
    sp_predict_ab_t ab;
    sp_predict_comm_t comm; /* the sweeps, or the source text of another cost model */
    int use_sweep;
    int tflops_given; /* --tflops on the command line */
    char compute_source[SP_OPT_STRLEN + 256];
    sp_program_t *progs; /* p programs */
    sp_predict_result_t res;
    size_t ntasks;
    double sim_s;
} predict_t;

static int bad(const char *msg)
{
    sp_launcher_error("predict", msg);
    return 2;
}

/* Parse and check the options; 0 to go on, else the exit code (-1: --help shown). */
static int parse(predict_t *pr, int argc, char **argv)
{
    predict_opts_t *o = &pr->o;
    unsigned char seen[MAX_DEFS] = {0};
    char err[512] = "", why[256] = "";
    int help = 0, ab;
    long world;

    table_init(&pr->tab);
    if (sp_opts_parse(&pr->tab.table, argc, argv, 2, o, &help, seen, err, sizeof(err)) != SP_OK) {
        return bad(err);
    }
    if (help) {
        sp_opts_help(&pr->tab.table, stdout);
        return -1;
    }
    if (sp_proxy_opts_overlap(&o->proxy, &pr->tab.table, seen, err, sizeof(err)) != SP_OK) {
        return bad(err);
    }
    sp_proxy_resolve_model(&o->proxy, 1); /* a prediction is for GPUs: auto is llama3-8b */
    if (sp_proxy_model(&o->proxy, &pr->model) != SP_OK) {
        snprintf(err, sizeof(err), "unknown --model '%.64s'", o->proxy.model);
        return bad(err);
    }
    if (sp_model_check(&pr->model, why, sizeof(why)) != SP_OK) {
        snprintf(err, sizeof(err), "invalid model: %s", why);
        return bad(err);
    }
    for (int i = 0; i < pr->tab.table.ndefs; i++) {
        pr->tflops_given |= seen[i] && strcmp(pr->tab.defs[i].long_name, "tflops") == 0;
    }
    if (pr->tflops_given && o->node[0] != '\0') {
        return bad("give either --tflops or --node FILE for the compute rate, not both");
    }
    ab = seen[pr->tab.alpha] || seen[pr->tab.beta];
    pr->use_sweep = o->sweep[0] != '\0';
    if (pr->use_sweep + ab + o->free_comm > 1) {
        return bad("give one communication cost: --sweep FILE, --alpha-us and --beta-gbps, or "
                   "--free-comm");
    }
    if (!pr->use_sweep && !ab && !o->free_comm) {
        return bad("no communication cost: give --sweep FILE (a `scaleprobe coll` result), "
                   "--alpha-us A --beta-gbps B, or --free-comm");
    }
    if (ab && !(seen[pr->tab.alpha] && seen[pr->tab.beta] && o->beta_gbps > 0.0)) {
        return bad("the alpha-beta model needs both --alpha-us A and --beta-gbps B > 0");
    }
    world = o->ranks;
    if (world == 0) {
        if (o->proxy.pp == 0) {
            return bad("give the world size: --ranks N, or --pp (and --dp) with --tp");
        }
        world = o->proxy.tp * o->proxy.pp * (o->proxy.dp > 0 ? o->proxy.dp : 1);
        if (world > 100000000L) {
            return bad("tp x pp x dp is larger than 100,000,000 ranks");
        }
    }
    pr->nranks = (int)world;
    if (sp_proxy_opts_check_world(&o->proxy, pr->nranks, err, sizeof(err)) != SP_OK) {
        return bad(err);
    }
    return 0;
}

static sp_status_t build_programs(predict_t *pr)
{
    int p = pr->layout.pp;
    sp_status_t st = SP_OK;

    pr->progs = calloc((size_t)p, sizeof(*pr->progs));
    if (pr->progs == NULL) {
        return SP_ERR_NOMEM;
    }
    for (int s = 0; s < p && st == SP_OK; s++) {
        sp_program_config_t c = pr->cfg;
        c.stage = s;
        st = sp_program_build(&c, &pr->progs[s]);
        pr->ntasks += pr->progs[s].n;
    }
    return st;
}

/* Every rank's row: its stage's representative, with its own coordinates. */
static sp_proxy_rank_row_t *expand_rows(const predict_t *pr)
{
    sp_proxy_rank_row_t *rows = calloc((size_t)pr->nranks, sizeof(*rows));

    for (int r = 0; rows != NULL && r < pr->nranks; r++) {
        sp_layout_coord_t c;
        const sp_predict_stage_t *s;
        sp_proxy_rank_row_t *w = &rows[r];
        sp_layout_coord(&pr->layout, r, &c);
        s = &pr->res.stages[c.pp];
        *w = s->m;
        w->step = 0;
        w->rank = r;
        w->stage = c.pp;
        w->dp = c.dp;
        w->tp = c.tp;
    }
    return rows;
}

/* A nominal node map: the prediction has none, so one node per TP group, the layout the proxy
 * stands for. */
static sp_status_t write_topology(sp_result_t *res, const predict_t *pr)
{
    sp_topo_t topo;
    sp_status_t st;

    memset(&topo, 0, sizeof(topo));
    topo.nranks = pr->nranks;
    topo.nnodes = pr->nranks / pr->layout.tp;
    topo.local_size = pr->layout.tp;
    snprintf(topo.host, sizeof(topo.host), "predicted");
    topo.ranks = calloc((size_t)pr->nranks, sizeof(*topo.ranks));
    if (topo.ranks == NULL) {
        return SP_ERR_NOMEM;
    }
    for (int r = 0; r < pr->nranks; r++) {
        sp_topo_rank_t *t = &topo.ranks[r];
        t->rank = r;
        t->node = r / pr->layout.tp;
        t->local_rank = r % pr->layout.tp;
        t->local_size = pr->layout.tp;
        snprintf(t->host, sizeof(t->host), "predicted");
        snprintf(t->device, sizeof(t->device), "-");
        snprintf(t->bus_id, sizeof(t->bus_id), "-");
    }
    st = sp_result_write_topology(res, &topo);
    free(topo.ranks);
    return st;
}

/* The representative rank of each stage (dp 0, tp 0) on the timeline, as the engine records a
 * rank's tasks (sp_engine_record), times from the step's start. */
static sp_status_t write_timeline(sp_result_t *res, const predict_t *pr, double seconds)
{
    size_t most = 0, events = 0;
    sp_status_t st = sp_result_timeline_open(res, 0);

    for (int s = 0; s < pr->layout.pp; s++) {
        most = pr->progs[s].n > most ? pr->progs[s].n : most;
    }
    for (int s = 0; s < pr->layout.pp && st == SP_OK; s++) {
        const sp_program_t *g = &pr->progs[s];
        sp_layout_coord_t c = {.dp = 0, .pp = s, .tp = 0};
        int rank = sp_layout_rank(&pr->layout, &c), tp_color = 0, dp_color = 0, key = 0;
        sp_event_rec_t *ev = calloc(g->n + 1, sizeof(*ev));
        sp_tl_rank_t row = {.rank = rank, .offset = sp_result_timeline_count(res),
                            .count = g->n, .dropped = 0};
        if (ev == NULL) {
            st = SP_ERR_NOMEM;
            break;
        }
        sp_layout_split(&pr->layout, SP_LAYOUT_GROUP_TP, rank, &tp_color, &key);
        sp_layout_split(&pr->layout, SP_LAYOUT_GROUP_DP, rank, &dp_color, &key);
        for (size_t i = 0; i < g->n; i++) {
            const sp_task_t *t = &g->tasks[i];
            sp_event_rec_t *e = &ev[i];
            sp_event_init(e, rank, (sp_ev_kind_t)t->ev_kind);
            e->lane = t->lane;
            e->op = t->coll;
            e->dtype = t->kind == SP_TASK_COLL ? (int16_t)t->dtype : -1;
            e->step = 0;
            e->microbatch = t->microbatch;
            e->chunk = t->chunk;
            e->layer = t->layer;
            e->bucket = t->bucket;
            e->peer = t->peer;
            e->bytes = t->bytes;
            e->flops = t->flops;
            if (t->kind == SP_TASK_COLL) {
                int colors[3] = {tp_color, dp_color, 0}; /* as the engine numbers them */
                e->seq = sp_lane_seq(t->lane, 0, pr->nranks, colors, most, i);
            }
            e->start_ns = pr->res.spans[s][i].start_ns;
            e->end_ns = pr->res.spans[s][i].end_ns;
        }
        st = sp_result_timeline_append(res, ev, g->n);
        if (st == SP_OK) {
            st = sp_result_timeline_rank(res, &row);
        }
        events += g->n;
        free(ev);
    }
    if (st == SP_OK) {
        st = sp_result_timeline_close(res);
    }
    if (st == SP_OK) {
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        st = sp_result_timeline_stats(res, events, 0, seconds, ru.ru_maxrss, 0, "predicted");
    }
    return st;
}

static sp_status_t write_file(const predict_t *pr, const char *cmdline, double seconds)
{
    sp_result_info_t info = {
        .command_line = cmdline,
        .subcommand = "predict",
        .backend = "predicted",
        .world_size = pr->nranks,
        .node_count = pr->nranks / pr->layout.tp,
        .event_ops = sp_coll_names,
        .nevent_ops = SP_COLL_COUNT,
    };
    sp_result_t *res = NULL;
    sp_proxy_rank_row_t *rows = expand_rows(pr);
    sp_status_t st = rows != NULL ? SP_OK : SP_ERR_NOMEM;

    if (st == SP_OK) {
        st = sp_result_create(pr->o.run.output, pr->o.run.force, &info, &res);
    }
    if (st == SP_OK) {
        st = sp_result_write_config(res, &pr->tab.table, &pr->o);
    }
    if (st == SP_OK) {
        st = write_topology(res, pr);
    }
    if (st == SP_OK) {
        st = sp_proxy_result_begin(res, &pr->info, sp_schedule_kind_name(pr->cfg.kind),
                                   pr->model.name, sp_proxy_dp_mode_names[pr->cfg.dp_mode],
                                   sp_dtype_names[pr->model.dtype],
                                   sp_dtype_names[pr->cfg.grad_dtype]);
    }
    if (st == SP_OK) {
        st = sp_proxy_result_mark_predicted(res, pr->comm.source);
    }
    if (st == SP_OK) {
        st = sp_proxy_result_append(res, rows, (size_t)pr->nranks);
    }
    if (st == SP_OK) {
        st = write_timeline(res, pr, seconds);
    }
    if (res != NULL) {
        sp_status_t cs = sp_result_close(res, st == SP_OK ? "complete" : "failed");
        st = st == SP_OK ? cs : st;
    }
    free(rows);
    return st;
}

static void print_result(const predict_t *pr)
{
    const sp_program_config_t *c = &pr->cfg;
    sp_proxy_rank_row_t *rows = expand_rows(pr);

    printf("# predict: %s (%ld layers, hidden %ld, ffn %ld, seq %ld, micro-batch %ld, %s), "
           "dp %d x pp %d x tp %d = %d ranks (PREDICTED, not measured)\n",
           pr->model.name, pr->model.layers, pr->model.hidden, pr->model.ffn, pr->model.seq,
           pr->model.micro_batch, sp_dtype_names[pr->model.dtype], c->dp, c->p, c->tp,
           pr->nranks);
    printf("# schedule %s, %d microbatches, %d chunk(s) of %d layer(s) per stage; tp %s; dp %s%s, "
           "overlap %s, gradients reduced in %s; embeddings %s; %.3g TFLOP/s per device\n",
           sp_schedule_kind_name(c->kind), c->m, c->v, c->layers_per_chunk,
           c->tp > 1 ? (c->sequence_parallel ? "with sequence parallelism" : "all-reduce") : "-",
           c->dp > 1 ? sp_proxy_dp_mode_names[c->dp_mode] : "-",
           c->dp > 1 && c->dist_opt ? " with the distributed optimizer" : "",
           sp_proxy_overlap_desc(c->overlap, c->overlap_param,
                                 c->dist_opt || c->dp_mode == SP_DP_FSDP),
           sp_proxy_grad_reduce_names[pr->o.proxy.grad_reduce], sp_proxy_embedding_desc(c),
           pr->o.proxy.tflops);
    printf("# communication: %s\n", pr->comm.source);
    if (rows == NULL) {
        return;
    }
    sp_proxy_table_header(stdout);
    sp_proxy_table_step(stdout, rows, (size_t)pr->nranks);
    sp_proxy_table_summary(stdout, &pr->info, rows, (size_t)pr->nranks);
    free(rows);
}

static void default_output(predict_opts_t *o)
{
    char stamp[32];

    if (o->run.output[0] == '\0') {
        sp_time_stamp(time(NULL), stamp, sizeof(stamp));
        snprintf(o->run.output, sizeof(o->run.output), "results/predict-%s-%ld.h5", stamp,
                 (long)getpid());
    }
}

static int check_output(const predict_opts_t *o)
{
    char msg[SP_OPT_STRLEN + 128];
    sp_status_t st = sp_result_check_path(o->run.output, o->run.force);

    if (st == SP_ERR_EXISTS) {
        snprintf(msg, sizeof(msg),
                 "output file %s exists; choose another -O or add --force to overwrite it",
                 o->run.output);
        return bad(msg);
    }
    if (st != SP_OK) {
        snprintf(msg, sizeof(msg),
                 "cannot write the output file %s (not a regular file, or its directory is not "
                 "writable)",
                 o->run.output);
        return bad(msg);
    }
    return 0;
}

static void join_argv(int argc, char **argv, char *out, size_t outlen)
{
    size_t used = 0;

    out[0] = '\0';
    for (int i = 0; i < argc && used < outlen; i++) {
        used += (size_t)snprintf(out + used, outlen - used, "%s%s", i ? " " : "", argv[i]);
    }
}

static void predict_free(predict_t *pr)
{
    for (int s = 0; pr->progs != NULL && s < pr->layout.pp; s++) {
        sp_program_free(&pr->progs[s]);
    }
    free(pr->progs);
    sp_predict_result_free(&pr->res);
    sp_predict_sweeps_cleanup(&pr->comm.sweeps);
}

/* What of the sweep-priced communication is extrapolated, appended to the cost model's line
 * (printed, and kept in the file's /proxy/predicted source). */
static void state_coverage(predict_t *pr)
{
    sp_predict_coverage_t cv;
    size_t len = strlen(pr->comm.source);
    char *at = pr->comm.source + len;
    size_t room = sizeof(pr->comm.source) - len;
    int n = 0;

    sp_predict_coverage(pr->progs, pr->layout.pp, pr->layout.tp, pr->layout.dp, &pr->comm.sweeps,
                        &cv);
    if (cv.calls == 0) {
        return;
    }
    n = snprintf(at, room, "; extrapolated: %zu of %zu communication tasks (%.1f%% of their "
                 "time) beyond the sizes measured",
                 cv.beyond, cv.calls, cv.time_ns > 0 ? 100.0 * cv.beyond_ns / cv.time_ns : 0.0);
    for (int i = 0; i < 4 && cv.scaled_from[i] != 0 && n > 0 && (size_t)n < room; i++) {
        n += snprintf(at + n, room - (size_t)n, "%s %d-rank groups scaled from the %d-rank sweep",
                      i ? "," : ";", cv.scaled_to[i], cv.scaled_from[i]);
    }
    if (cv.scaled > 0 && n > 0 && (size_t)n < room) {
        snprintf(at + n, room - (size_t)n, " (%zu tasks, %.1f%% of the time)", cv.scaled,
                 cv.time_ns > 0 ? 100.0 * cv.scaled_ns / cv.time_ns : 0.0);
    }
}

static int run(predict_t *pr, int argc, char **argv, uint64_t t0)
{
    char err[256] = "", cmdline[4096];
    sp_status_t st;
    int rc = parse(pr, argc, argv);
    uint64_t ts;

    if (rc != 0) {
        return rc < 0 ? 0 : rc;
    }
    if (sp_proxy_layout(&pr->o.proxy, pr->nranks, &pr->layout, err, sizeof(err)) != SP_OK) {
        return bad(err);
    }
    st = sp_proxy_program_config(&pr->o.proxy, &pr->layout, &pr->cfg);
    if (st == SP_OK) {
        st = sp_proxy_info(&pr->o.proxy, &pr->layout, &pr->info);
    }
    if (st == SP_OK && pr->o.node[0] != '\0') {
        if ((rc = sp_predict_load_node_rate(pr->o.node, pr->cfg.dtype, &pr->o.proxy.tflops,
                                              pr->compute_source,
                                              sizeof(pr->compute_source))) != 0) {
            return rc;
        }
        st = sp_proxy_program_config(&pr->o.proxy, &pr->layout, &pr->cfg); /* at that rate */
        if (st == SP_OK) {
            st = sp_proxy_info(&pr->o.proxy, &pr->layout, &pr->info);
        }
    }
    if (st != SP_OK) {
        return bad("the model and layout give no valid program configuration");
    }
    if (pr->use_sweep) {
        rc = sp_predict_load_sweeps(pr->o.sweep, pr->cfg.dtype, &pr->comm);
    } else if (pr->o.free_comm) {
        snprintf(pr->comm.source, sizeof(pr->comm.source),
                 "free communication (--free-comm): compute and the schedule alone");
    } else {
        pr->ab.alpha_us = pr->o.alpha_us;
        pr->ab.beta_gbps = pr->o.beta_gbps;
        snprintf(pr->comm.source, sizeof(pr->comm.source),
                 "alpha-beta: alpha %.6g us, beta %.6g GB/s (nccl-tests bus factors)",
                 pr->o.alpha_us, pr->o.beta_gbps);
    }
    {
        size_t len = strlen(pr->comm.source);
        snprintf(pr->comm.source + len, sizeof(pr->comm.source) - len, "%s", pr->compute_source);
    }
    default_output(&pr->o);
    if (rc == 0) {
        rc = check_output(&pr->o);
    }
    if (rc != 0) {
        return rc;
    }
    st = build_programs(pr);
    if (st != SP_OK) {
        sp_launcher_error("predict", sp_status_str(st));
        return sp_status_exit_code(st);
    }
    if (pr->use_sweep && (rc = sp_predict_check_covers(&pr->comm.sweeps, pr->o.sweep, pr->progs,
                                                     pr->layout.pp)) != 0) {
        return rc;
    }
    ts = sp_time_ns();
    st = sp_predict_run_wait(pr->progs, pr->layout.pp, pr->layout.tp, pr->layout.dp,
                             pr->use_sweep      ? sp_predict_cost_sweeps
                             : pr->o.free_comm ? sp_predict_cost_free
                                               : sp_predict_cost_ab,
                             pr->use_sweep ? (void *)&pr->comm.sweeps : (void *)&pr->ab, pr->comm.wait_ns,
                             &pr->res);
    if (st == SP_OK && pr->use_sweep) {
        state_coverage(pr);
    }
    pr->sim_s = (double)(sp_time_ns() - ts) / 1e9;
    if (st == SP_OK) {
        join_argv(argc, argv, cmdline, sizeof(cmdline));
        st = write_file(pr, cmdline, (double)(sp_time_ns() - t0) / 1e9);
    }
    if (st != SP_OK) {
        sp_launcher_error("predict", sp_status_str(st));
        return sp_status_exit_code(st);
    }
    print_result(pr);
    printf("# Result file: %s (status complete, predicted)\n", pr->o.run.output);
    return 0;
}

int sp_predict_main(int argc, char **argv)
{
    uint64_t t0 = sp_time_ns();
    predict_t *pr = calloc(1, sizeof(*pr));
    struct rusage ru;
    int rc;

    if (pr == NULL) {
        sp_launcher_error("predict", "out of memory");
        return 1;
    }
    rc = run(pr, argc, argv, t0);
    if (rc == 0 && pr->progs != NULL) {
        getrusage(RUSAGE_SELF, &ru);
        printf("# predictor: %.3f s in all (simulation %.3f s: %d stage programs, %zu tasks, "
               "for %d ranks), peak RSS %.1f MiB\n",
               (double)(sp_time_ns() - t0) / 1e9, pr->sim_s, pr->layout.pp, pr->ntasks,
               pr->nranks, (double)ru.ru_maxrss / 1024.0);
    }
    predict_free(pr);
    free(pr);
    return rc;
}
