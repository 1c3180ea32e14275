/* Performance gates: the node workload and one all_reduce point, re-run while a gate fails. */
#include "perf.h"

#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "coll_options.h"
#include "dtype.h"
#include "links_cmd.h"
#include "links_gate.h"
#include "method.h"
#include "perf_proxy.h"
#include "scratch.h"
#include "node_cmd.h"
#include "node_result.h"
#include "sweep.h"
#include "verdict.h"

typedef struct {
    int node; /* triad or GEMM gate */
    int busbw;
    uint64_t busbw_bytes;
    char busbw_size[32];
    char dtype[16];
    int links;
    char links_size[32];
    char links_per[8];
    double links_threshold; /* 1 - min_ratio: the links verdict's threshold */
} gates_t;

static const char *param_str(const sp_spec_check_t *c, int p, const char *def)
{
    return c->val[p].set ? c->val[p].str : def;
}

static void gates_of(const sp_spec_t *spec, gates_t *g)
{
    memset(g, 0, sizeof(*g));
    snprintf(g->dtype, sizeof(g->dtype), "float");
    snprintf(g->busbw_size, sizeof(g->busbw_size), "64M");
    snprintf(g->links_size, sizeof(g->links_size), "4M");
    snprintf(g->links_per, sizeof(g->links_per), "node");
    g->links_threshold = 0.2; /* the links workload's default */
    for (int t = 0; t < spec->ntypes; t++) {
        for (int c = 0; c < spec->types[t].nchecks; c++) {
            const sp_spec_check_t *sc = &spec->types[t].checks[c];
            const char *name = sp_check_defs[sc->def].name;
            if (strcmp(name, "stream_triad_gbps") == 0) {
                g->node = 1;
            } else if (strcmp(name, "gemm_tflops") == 0) {
                g->node = 1;
                snprintf(g->dtype, sizeof(g->dtype), "%s", param_str(sc, 2, "float"));
            } else if (strcmp(name, "allreduce_busbw_gbps") == 0) {
                g->busbw = 1;
                snprintf(g->busbw_size, sizeof(g->busbw_size), "%s", param_str(sc, 2, "64M"));
            } else if (strcmp(name, "links_matrix") == 0) {
                /* one matrix per job: the last links_matrix of the spec sets how it runs */
                g->links = 1;
                snprintf(g->links_size, sizeof(g->links_size), "%s", param_str(sc, 2, "4M"));
                snprintf(g->links_per, sizeof(g->links_per), "%s", param_str(sc, 3, "node"));
                g->links_threshold = sc->val[1].set ? 1.0 - sc->val[1].num : 0.2;
            }
        }
    }
    sp_parse_size(g->busbw_size, &g->busbw_bytes); /* validated with the spec */
}

int sp_accept_perf_wanted(const sp_spec_t *spec)
{
    gates_t g;

    gates_of(spec, &g);
    return g.node || g.busbw || g.links || sp__accept_proxy_check(spec) != NULL;
}

static sp_node_kind_t gemm_kind(const char *dtype)
{
    return strcmp(dtype, "double") == 0     ? SP_NODE_GEMM_F64
           : strcmp(dtype, "half") == 0     ? SP_NODE_GEMM_F16
           : strcmp(dtype, "bfloat16") == 0 ? SP_NODE_GEMM_BF16
                                            : SP_NODE_GEMM_F32;
}

/* Rank 0: the attempt's node file read back into cur (lowest rank per node, wrong results). */
static sp_status_t read_node_file(const char *path, const gates_t *g, int attempt, int nnodes,
                                  sp_perf_node_t *cur)
{
    sp_node_result_data_t d;
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    sp_status_t status;

    if (f < 0) {
        return SP_ERR_IO;
    }
    memset(&d, 0, sizeof(d));
    status = sp_node_result_read(f, &d);
    H5Fclose(f);
    for (size_t i = 0; status == SP_OK && i < d.nrows; i++) {
        const sp_node_row_t *r = &d.rows[i];
        sp_perf_node_t *p = r->node >= 0 && r->node < nnodes ? &cur[r->node] : NULL;
        int triad = r->kind == SP_NODE_TRIAD, gemm = r->kind == (int)gemm_kind(g->dtype);
        double v = triad ? r->median : r->median / 1000.0; /* GFLOP/s -> TFLOP/s */
        if (p == NULL || (!triad && !gemm)) {
            continue;
        }
        if (triad && (isnan(p->triad_gbps) || v < p->triad_gbps)) {
            p->triad_gbps = v;
            snprintf(p->triad_evidence, sizeof(p->triad_evidence),
                     "attempt %d: lowest rank %d %.4g GB/s (%.40s)", attempt, r->rank, v, path);
        }
        if (gemm && (isnan(p->gemm_tflops) || v < p->gemm_tflops)) {
            p->gemm_tflops = v;
            snprintf(p->gemm_evidence, sizeof(p->gemm_evidence),
                     "attempt %d: lowest rank %d %.4g TFLOP/s %s (%.40s)", attempt, r->rank, v,
                     g->dtype, path);
        }
    }
    for (size_t i = 0; status == SP_OK && i < d.nburn; i++) {
        const sp_node_burn_row_t *b = &d.burn[i];
        if (b->node >= 0 && b->node < nnodes && b->wrong > 0) {
            cur[b->node].gemm_wrong += (long long)b->wrong;
            snprintf(cur[b->node].gemm_evidence, sizeof(cur[b->node].gemm_evidence),
                     "attempt %d: rank %d computed %llu wrong GEMM element(s) (%.40s)", attempt,
                     b->rank, (unsigned long long)b->wrong, path);
        }
    }
    sp_node_result_data_free(&d);
    return status;
}

/* The node workload once, into OUTPUT.perfK.h5 (rank 0), read back into cur. Collective. */
static sp_status_t node_attempt(sp_ctx_t *ctx, const sp_accept_opts_t *o, const gates_t *g,
                                int attempt, sp_perf_node_t *cur)
{
    char dtype[16], path[SP_OPT_STRLEN + 16] = "", err[256] = "";
    char *argv[] = {"scaleprobe",      "node", "-d", dtype, "--max-time", "1", "--burn", "1",
                    "--burn-interval", "0.5",  NULL};
    sp_node_opts_t *nopts = calloc(1, sizeof(*nopts));
    sp_result_t *scratch = NULL;
    sp_ctx_t sub = *ctx;
    int help = 0;
    sp_status_t status = nopts != NULL ? SP_OK : SP_ERR_NOMEM;

    snprintf(dtype, sizeof(dtype), "%s", g->dtype);
    if (status == SP_OK) {
        status = sp_node_opts_parse(10, argv, 2, nopts, &help, err, sizeof(err));
    }
    if (status == SP_OK && ctx->rank == 0) {
        status = sp_accept_scratch_create(ctx, o, "perf", "node", attempt, path, sizeof(path), &scratch);
    }
    status = sp_ctx_agree(ctx, status);
    if (status == SP_OK) {
        sub.result = scratch;
        status = sp_node_run(&sub, nopts);
        /* a wrong GEMM is a finding of the gate, read from /node/burn below */
        status = status == SP_ERR_WRONG_DATA ? SP_OK : status;
    }
    if (scratch != NULL) {
        sp_status_t st = sp_result_close(scratch, status == SP_OK ? "complete" : "failed");
        status = status == SP_OK ? st : status;
        if (status == SP_OK) {
            status = read_node_file(path, g, attempt, ctx->topo.nnodes, cur);
        }
    }
    free(nopts);
    return sp_ctx_agree(ctx, status);
}

/* Rank 0: the attempt's /links read back and folded into cur. */
static sp_status_t read_links_file(const char *path, const gates_t *g, int attempt, int nnodes,
                                   sp_perf_node_t *cur)
{
    sp_links_result_data_t d;
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    sp_status_t status;

    if (f < 0) {
        return SP_ERR_IO;
    }
    status = sp_links_result_read(f, &d);
    H5Fclose(f);
    if (status == SP_OK) {
        status = sp_accept_links_fold(&d, nnodes, g->links_threshold, attempt, path, cur);
    }
    sp_links_result_data_free(&d);
    return status;
}

/* The links workload once (`scaleprobe links`' own run, its matrix and verdict printed), into
 * OUTPUT.linksK.h5 (rank 0), read back into cur. Collective. */
static sp_status_t links_attempt(sp_ctx_t *ctx, const sp_accept_opts_t *o, const gates_t *g,
                                 int attempt, sp_perf_node_t *cur)
{
    char thr[32], path[SP_OPT_STRLEN + 16] = "", err[256] = "";
    /* a suspect pair is measured twice more (a link is slow only when every pass says so) */
    char *argv[] = {"scaleprobe", "links", "--per",      (char *)g->links_per,
                    "--size",     (char *)g->links_size, "--threshold", thr,
                    "--max-time", "0.5",  "--confirm",   "2", NULL};
    sp_links_opts_t *lopts = calloc(1, sizeof(*lopts));
    sp_result_t *scratch = NULL;
    sp_ctx_t sub = *ctx;
    int help = 0;
    sp_status_t status = lopts != NULL ? SP_OK : SP_ERR_NOMEM;

    snprintf(thr, sizeof(thr), "%.6g", g->links_threshold);
    if (status == SP_OK) {
        status = sp_links_opts_parse(12, argv, 2, lopts, &help, err, sizeof(err));
    }
    if (status == SP_OK && ctx->rank == 0) {
        status = sp_accept_scratch_create(ctx, o, "links", "links", attempt, path, sizeof(path), &scratch);
    }
    status = sp_ctx_agree(ctx, status);
    if (status == SP_OK) {
        sub.result = scratch;
        status = sp_links_run(&sub, lopts);
    }
    if (scratch != NULL) {
        sp_status_t st = sp_result_close(scratch, status == SP_OK ? "complete" : "failed");
        status = status == SP_OK ? st : status;
        if (status == SP_OK) {
            status = read_links_file(path, g, attempt, ctx->topo.nnodes, cur);
        }
    }
    free(lopts);
    return sp_ctx_agree(ctx, status);
}

/* Fewer than two units: no link to measure, said in every node's evidence. */
static int links_possible(const sp_ctx_t *ctx, const gates_t *g)
{
    return strcmp(g->links_per, "rank") == 0 ? ctx->nranks >= 2 : ctx->topo.nnodes >= 2;
}

/* One all_reduce point at the gate's size (the sweep's measurement); rank 0 fills cur. */
static sp_status_t busbw_attempt(sp_ctx_t *ctx, const gates_t *g, int attempt, sp_perf_node_t *cur)
{
    char *argv[] = {"scaleprobe",    "coll",
                    "--collectives", "all_reduce",
                    "-d",            "float",
                    "-b",            (char *)g->busbw_size,
                    "-e",            (char *)g->busbw_size,
                    "--max-time",    "2",
                    NULL};
    sp_coll_opts_t *copts = calloc(1, sizeof(*copts));
    sp_sweep_bufs_t bufs;
    sp_coll_args_t args;
    char err[256];
    int help = 0;
    sp_status_t status = copts != NULL ? SP_OK : SP_ERR_NOMEM;

    if (status == SP_OK) {
        status = sp_coll_opts_parse(12, argv, 2, copts, &help, err, sizeof(err));
    }
    status = sp_ctx_agree(ctx, status);
    if (status == SP_OK) {
        status = sp_sweep_bufs_init(ctx, g->busbw_bytes, sp_method_max_samples(copts), &bufs);
    }
    if (status != SP_OK) {
        free(copts);
        return status;
    }
    sp_coll_args_init(&args, SP_COLL_ALL_REDUCE, ctx->rank, ctx->nranks, SP_DTYPE_FLOAT,
                      SP_REDOP_SUM, 0, 0, g->busbw_bytes);
    status = sp_sweep_measure(ctx, copts, sp_coll_get(SP_COLL_ALL_REDUCE), &args, &bufs);
    if (status == SP_OK && ctx->rank == 0) {
        const sp_coll_row_t *row = &bufs.point.row;
        /* the culprit: the rank last to arrive (late_rank, a sign test on arrivals), else the
         * rank with the highest own time (in a synchronizing collective often a victim) */
        int late = row->late_rank >= 0 && row->late_rank < ctx->nranks;
        int culprit = late ? row->late_rank : row->slowest_rank;
        int slow_node = culprit >= 0 && culprit < ctx->nranks ? ctx->topo.ranks[culprit].node : -1;
        for (int n = 0; n < ctx->topo.nnodes; n++) {
            double v = row->wrong > 0 ? 0.0 : row->busbw_gbps;
            if (isnan(cur[n].busbw_gbps) || v > cur[n].busbw_gbps) {
                cur[n].busbw_gbps = v;
                cur[n].busbw_slowest = n == slow_node;
                snprintf(cur[n].busbw_evidence, sizeof(cur[n].busbw_evidence),
                         "attempt %d: all_reduce %s busbw %.4g GB/s, %.4g us; %s rank %d "
                         "(node %d)%s",
                         attempt, g->busbw_size, row->busbw_gbps, row->time_us,
                         late ? "late" : "slowest", culprit, slow_node,
                         row->wrong > 0 ? ", WRONG DATA" : "");
            }
        }
    }
    sp_sweep_bufs_cleanup(ctx, &bufs);
    free(copts);
    return sp_ctx_agree(ctx, status);
}

/* Rank 0: 1 when some node still fails a performance gate that a re-run could change. */
static int any_perf_fail(const sp_spec_t *spec, const sp_health_node_t *nodes, int nnodes,
                         const sp_perf_node_t *perf)
{
    for (int n = 0; n < nnodes; n++) {
        int t = sp_spec_match(spec, nodes[n].host, nodes[n].ngpus);
        sp_check_input_t in = {.h = &nodes[n], .perf = &perf[n]};
        for (int c = 0; t >= 0 && c < spec->types[t].nchecks; c++) {
            const sp_spec_check_t *sc = &spec->types[t].checks[c];
            sp_check_result_t r;
            if (strcmp(sp_check_defs[sc->def].group, "perf") != 0) {
                continue;
            }
            sp_check_eval(sc, &in, &r);
            /* a wrong GEMM result is never re-run away */
            if (r.verdict == SP_VERDICT_FAIL &&
                !(perf[n].gemm_wrong > 0 &&
                  strcmp(sp_check_defs[sc->def].name, "gemm_tflops") == 0)) {
                return 1;
            }
        }
    }
    return 0;
}

sp_status_t sp_accept_perf_run(sp_ctx_t *ctx, const sp_accept_opts_t *o,
                               const sp_health_node_t *nodes, sp_perf_node_t *perf)
{
    gates_t g;
    int again = 1;
    sp_status_t status = SP_OK;

    gates_of(&o->spec, &g);
    for (int n = 0; ctx->rank == 0 && n < ctx->topo.nnodes; n++) {
        memset(&perf[n], 0, sizeof(perf[n]));
        perf[n].triad_gbps = perf[n].gemm_tflops = perf[n].busbw_gbps = NAN;
        perf[n].links_gbps = perf[n].links_ratio = perf[n].links_worst_gbps = NAN;
    }
    for (int k = 1; k <= o->spec.repeats && again && status == SP_OK; k++) {
        if (ctx->rank == 0) {
            fprintf(stdout, "# accept: performance gates, attempt %d of at most %d\n", k,
                    o->spec.repeats);
            fflush(stdout);
            for (int n = 0; n < ctx->topo.nnodes; n++) {
                perf[n].attempts = k;
            }
        }
        if (g.node) {
            status = node_attempt(ctx, o, &g, k, perf);
        }
        if (status == SP_OK && g.busbw && ctx->nranks > 1) {
            status = busbw_attempt(ctx, &g, k, perf);
        }
        if (status == SP_OK && g.links && links_possible(ctx, &g)) {
            status = links_attempt(ctx, o, &g, k, perf);
        }
        if (status == SP_OK && sp__accept_proxy_check(&o->spec) != NULL) {
            status = sp__accept_proxy_attempt(ctx, o, k, perf);
        }
        if (ctx->rank == 0) {
            again = any_perf_fail(&o->spec, nodes, ctx->topo.nnodes, perf);
        }
        MPI_Bcast(&again, 1, MPI_INT, 0, ctx->world);
    }
    for (int n = 0; ctx->rank == 0 && g.busbw && ctx->nranks == 1 && n < ctx->topo.nnodes; n++) {
        snprintf(perf[n].busbw_evidence, sizeof(perf[n].busbw_evidence),
                 "one rank: an all_reduce moves nothing");
    }
    for (int n = 0; ctx->rank == 0 && g.links && !links_possible(ctx, &g) && n < ctx->topo.nnodes;
         n++) {
        snprintf(perf[n].links_evidence, sizeof(perf[n].links_evidence),
                 "fewer than 2 units (per %s): no link to measure", g.links_per);
    }
    return status;
}
