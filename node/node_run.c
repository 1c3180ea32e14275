/* The node baselines: every rank measures its own device in lockstep with the others (a barrier
 * before each sample, so co-located ranks contend as a job's ranks do), rank 0 gathers the
 * samples, writes /node and names the ranks and nodes below the cohort; then the optional burn.
 * docs/METHODOLOGY.md ("Node baselines") states every rule used here. */
#include "node_cmd.h"
#include "node_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dtype.h"
#include "log.h"
#include "node_outliers.h"
#include "node_result.h"
#include "runstop.h"
#include "signals.h"
#include "stats.h"
#include "timeutil.h"

#define HOST_GEMM_N 1024
#define GPU_GEMM_N 8192
#define MAX_RANK_LINES 64 /* per-rank table lines; above, a summary line */


/* ---- test-only hooks (docs/METHODOLOGY.md, "Node baselines") ---- */

static void test_hooks_from_env(node_run_t *nr)
{
    const char *slow = getenv("SCALEPROBE_TEST_SLOW");
    const char *corrupt = getenv("SCALEPROBE_TEST_CORRUPT");

    nr->slow_rank = -1;
    nr->slow_factor = 1.0;
    if (slow != NULL && sscanf(slow, "%d:%lf", &nr->slow_rank, &nr->slow_factor) != 2) {
        nr->slow_rank = -1;
        nr->slow_factor = 1.0;
    }
    nr->corrupt_rank = corrupt != NULL && *corrupt != '\0' ? atoi(corrupt) : -1;
    nr->corrupt_always = corrupt != NULL && strstr(corrupt, ":always") != NULL;
}

/* ---- devices ---- */

const sp_node_dev_ops_t *sp__node_dev_for(const node_run_t *nr, sp_node_kind_t kind, void **st_p)
{
    if (nr->gpu != NULL && sp_node_gpu_ops.supported(kind)) {
        *st_p = nr->gpu;
        return &sp_node_gpu_ops;
    }
    if (kind == SP_NODE_TRIAD || (nr->gpu == NULL && sp_node_host_ops.supported(kind))) {
        *st_p = nr->host;
        return &sp_node_host_ops;
    }
    *st_p = NULL;
    return NULL;
}

static sp_node_kind_t gemm_kind_of(int dtype)
{
    switch (dtype) {
    case SP_DTYPE_DOUBLE:
        return SP_NODE_GEMM_F64;
    case SP_DTYPE_HALF:
        return SP_NODE_GEMM_F16;
    case SP_DTYPE_BFLOAT16:
        return SP_NODE_GEMM_BF16;
    default:
        return SP_NODE_GEMM_F32;
    }
}

/* The first selected GEMM kind: the one the burn runs. */
sp_node_kind_t sp__node_burn_kind(const sp_node_opts_t *o)
{
    static const int order[] = {SP_DTYPE_FLOAT, SP_DTYPE_DOUBLE, SP_DTYPE_HALF,
                                SP_DTYPE_BFLOAT16};

    for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
        if (o->dtypes & (1u << order[i])) {
            return gemm_kind_of(order[i]);
        }
    }
    return SP_NODE_GEMM_F32;
}

static size_t gemm_n(const node_run_t *nr)
{
    if (nr->o->gemm_n > 0) {
        return (size_t)nr->o->gemm_n;
    }
    return nr->ctx->backend.kind == SP_BACKEND_NCCL ? GPU_GEMM_N : HOST_GEMM_N;
}

/* Bytes counted (memory kinds) or FLOPs (GEMM) per call, and the size column. */
double sp__node_work_of(const node_run_t *nr, sp_node_kind_t kind, uint64_t *size_p)
{
    double n = (double)nr->cfg.gemm_n;
    size_t elems = nr->cfg.mem_bytes / sizeof(double);
    size_t dev = nr->cfg.dev_bytes - nr->cfg.dev_bytes % 16;

    switch (kind) {
    case SP_NODE_TRIAD:
        *size_p = elems * sizeof(double);
        return 3.0 * sizeof(double) * (double)elems; /* read b, read c, write a */
    case SP_NODE_D2D:
        *size_p = dev;
        return 2.0 * (double)dev; /* read and write */
    case SP_NODE_H2D:
    case SP_NODE_D2H:
        *size_p = dev;
        return (double)dev;
    default:
        *size_p = nr->cfg.gemm_n;
        return 2.0 * n * n * n;
    }
}

/* One timed call; the test slow-down stretches it inside the timed region. */
sp_status_t sp__node_timed_call(const node_run_t *nr, const sp_node_dev_ops_t *ops, void *st,
                              sp_node_kind_t kind, double *s_p)
{
    uint64_t ns = 0;
    sp_status_t status = ops->run(st, kind, &ns);

    if (status == SP_OK && nr->ctx->rank == nr->slow_rank && nr->slow_factor > 1.0) {
        uint64_t extra = (uint64_t)((nr->slow_factor - 1.0) * (double)ns);
        uint64_t t0 = sp_time_ns();
        struct timespec nap = {(time_t)(extra / 1000000000u), (long)(extra % 1000000000u)};
        nanosleep(&nap, NULL);
        ns += sp_time_ns() - t0;
    }
    *s_p = (double)ns * 1e-9;
    return status;
}

/* Agree on status, on whether every rank is done, and on a pending signal, in one all-reduce
 * (runstop.h). A failed rank keeps its own status (sp_ctx_agree's rule). */
sp_status_t sp__node_agree3(const node_run_t *nr, sp_status_t status, int *done_p)
{
    return sp_runstop_agree(nr->ctx->world, status, SP_RUNSTOP_ALL, *done_p, done_p);
}

/* ---- set-up ---- */

static sp_status_t node_init(node_run_t *nr, sp_ctx_t *ctx, const sp_node_opts_t *o)
{
    size_t nranks = (size_t)ctx->nranks;
    size_t nest = nranks > (size_t)ctx->topo.nnodes ? nranks : (size_t)ctx->topo.nnodes;
    char err[512] = "";
    sp_status_t status;

    memset(nr, 0, sizeof(*nr));
    nr->ctx = ctx;
    nr->o = o;
    test_hooks_from_env(nr);
    nr->max_samples = (size_t)(o->iters > 0 ? o->iters : o->max_samples);
    nr->cfg.mem_bytes = (size_t)o->mem_mib << 20;
    nr->cfg.dev_bytes = (size_t)o->dev_mib << 20;
    nr->cfg.gemm_n = gemm_n(nr);
    if (o->no_baseline) {
        nr->cfg.kinds = 1u << sp__node_burn_kind(o);
    } else {
        nr->cfg.kinds = 1u << SP_NODE_TRIAD;
        if (ctx->backend.kind == SP_BACKEND_NCCL) {
            nr->cfg.kinds |= (1u << SP_NODE_D2D) | (1u << SP_NODE_H2D) | (1u << SP_NODE_D2H);
        }
        for (int d = 0; d < SP_DTYPE_COUNT; d++) {
            if (o->dtypes & (1u << d)) {
                nr->cfg.kinds |= 1u << gemm_kind_of(d);
            }
        }
    }
    nr->times = calloc(nr->max_samples, sizeof(double));
    /* the stop rule's copy of the series, then its scratch (runstop.h) */
    nr->scratch =
        calloc(nr->max_samples + sp_stop_rule_scratch_len(nr->max_samples), sizeof(double));
    status = nr->times != NULL && nr->scratch != NULL ? SP_OK : SP_ERR_NOMEM;
    if (ctx->rank == 0 && status == SP_OK) {
        size_t all = nranks * nr->max_samples;
        nr->all_times = calloc(all, sizeof(double));
        nr->all_rates = calloc(all, sizeof(double));
        nr->pool = calloc(all, sizeof(double));
        nr->pool_scratch = calloc(all, sizeof(double));
        nr->sample_rows = calloc(all, sizeof(*nr->sample_rows));
        nr->rows = calloc(nranks, sizeof(*nr->rows));
        nr->est = calloc(nest, sizeof(*nr->est));
        nr->verdicts = calloc(nest, sizeof(*nr->verdicts));
        nr->outliers = calloc(nest, sizeof(*nr->outliers));
        if (nr->all_times == NULL || nr->all_rates == NULL || nr->pool == NULL ||
            nr->pool_scratch == NULL || nr->sample_rows == NULL || nr->rows == NULL ||
            nr->est == NULL || nr->verdicts == NULL || nr->outliers == NULL) {
            status = SP_ERR_NOMEM;
        }
    }
    if (status == SP_ERR_NOMEM) {
        sp_error("node: cannot allocate the sample buffers (%zu samples)", nr->max_samples);
    }
    /* the host always (the triad is host memory); the GPU with the nccl backend */
    if (status == SP_OK) {
        sp_node_dev_cfg_t host_cfg = nr->cfg;
        if (ctx->backend.kind == SP_BACKEND_NCCL) {
            host_cfg.kinds &= 1u << SP_NODE_TRIAD;
        }
        status = sp_node_host_ops.create(&host_cfg, &nr->host, err, sizeof(err));
    }
    if (status == SP_OK && ctx->backend.kind == SP_BACKEND_NCCL) {
        sp_node_dev_cfg_t gpu_cfg = nr->cfg;
        gpu_cfg.kinds &= ~(1u << SP_NODE_TRIAD);
        status = sp_node_gpu_ops.create(&gpu_cfg, &nr->gpu, err, sizeof(err));
    }
    if (status != SP_OK && err[0] != '\0') {
        sp_error("node: %s", err);
    }
    return sp_ctx_agree(ctx, status);
}

static void node_cleanup(node_run_t *nr)
{
    sp_node_gpu_ops.destroy(nr->gpu);
    sp_node_host_ops.destroy(nr->host);
    free(nr->outliers);
    free(nr->verdicts);
    free(nr->est);
    free(nr->rows);
    free(nr->sample_rows);
    free(nr->pool_scratch);
    free(nr->pool);
    free(nr->all_rates);
    free(nr->all_times);
    free(nr->scratch);
    free(nr->times);
}

/* Rank 0: /node with its attributes, and the run's header on stdout. */
static sp_status_t node_begin(node_run_t *nr)
{
    sp_ctx_t *ctx = nr->ctx;
    char blas[512];
    char gpu[512];
    char threshold[32];
    char slow[64];
    const char *attrs[][2] = {
        {"blas", blas},
        {"gpu", gpu},
        {"threshold", threshold},
        {"triad_bytes", "3 x 8 B per element and call (STREAM: read b, read c, write a)"},
        {"copy_bytes", "d2d: 2 x buffer bytes (read and write); h2d, d2h: buffer bytes"},
        {"gemm_flops", "2 n^3 per call"},
        {"outlier_rule", "CI of the median entirely below (1 - threshold) x cohort median"},
        {"test_hooks", slow},
    };
    sp_status_t status = SP_OK;

    sp_node_host_ops.describe(nr->host, blas, sizeof(blas));
    if (nr->gpu != NULL) {
        sp_node_gpu_ops.describe(nr->gpu, gpu, sizeof(gpu));
    } else {
        snprintf(gpu, sizeof(gpu), "none (backend %s)", ctx->backend.ops->name);
    }
    snprintf(threshold, sizeof(threshold), "%g", nr->o->threshold);
    snprintf(slow, sizeof(slow), "slow %d:%g, corrupt %d%s", nr->slow_rank, nr->slow_factor,
             nr->corrupt_rank, nr->corrupt_always ? " (always)" : "");
    if (ctx->result != NULL) {
        status = sp_node_result_begin(ctx->result, attrs,
                                      (int)(sizeof(attrs) / sizeof(attrs[0])) -
                                          (nr->slow_rank < 0 && nr->corrupt_rank < 0));
    }
    fprintf(stdout, "# scaleprobe node: %d ranks on %d node(s), backend %s\n", ctx->nranks,
            ctx->topo.nnodes, ctx->backend.ops->name);
    fprintf(stdout, "# host GEMM: %s; GPU: %s\n", blas, gpu);
    if (nr->slow_rank >= 0 || nr->corrupt_rank >= 0) {
        fprintf(stdout, "# TEST HOOKS ACTIVE: %s\n", slow);
    }
    fflush(stdout);
    return status;
}

/* ---- one measurement ---- */

static void print_kind_header(const node_run_t *nr, sp_node_kind_t kind, const sp_node_row_t *r)
{
    char what[160];

    switch (kind) {
    case SP_NODE_TRIAD:
        snprintf(what, sizeof(what), "host memory, 3 arrays of %.1f MiB",
                 (double)r->size / 1048576.0);
        break;
    case SP_NODE_D2D:
    case SP_NODE_H2D:
    case SP_NODE_D2H:
        snprintf(what, sizeof(what), "%.1f MiB per call", (double)r->size / 1048576.0);
        break;
    default:
        snprintf(what, sizeof(what), "n %llu, computed as %s on %s", (unsigned long long)r->size,
                 sp_dtype_name((sp_dtype_t)r->dtype), nr->gpu != NULL ? "the GPU" : "the host");
        break;
    }
    fprintf(stdout, "#\n# %s: %s, %s\n", sp_node_kind_names[kind], what, r->units);
    if (nr->ctx->nranks <= MAX_RANK_LINES) {
        fprintf(stdout, "# %5s %5s %-20s %12s %12s %12s %7s %4s %6s\n", "rank", "node", "host",
                "median", "ci_lo", "ci_hi", "samples", "conv", "ratio");
    }
}

/* Rank 0: outliers among the nodes (the pooled samples of their ranks), appended to
 * nr->outliers after *nout_p rows. */
static sp_status_t find_node_outliers(node_run_t *nr, sp_node_kind_t kind, size_t n,
                                      size_t *nout_p)
{
    const sp_topo_t *topo = &nr->ctx->topo;
    size_t nranks = (size_t)nr->ctx->nranks;
    size_t nnodes = (size_t)topo->nnodes;
    size_t nout = *nout_p;
    double node_cohort = NAN;
    size_t node_flag = 0;
    sp_status_t status;

    for (size_t d = 0; d < nnodes; d++) {
        size_t m = 0;
        for (size_t r = 0; r < nranks; r++) {
            if ((size_t)topo->ranks[r].node == d) {
                memcpy(nr->pool + m, nr->all_rates + r * n, n * sizeof(double));
                m += n;
            }
        }
        sp_node_estimate(nr->pool, m, nr->pool_scratch, &nr->est[d]);
    }
    status = sp_node_outliers(nr->est, nnodes, nr->o->threshold, nr->pool_scratch, nr->verdicts,
                              &node_cohort, &node_flag);
    for (size_t d = 0; d < nnodes && status == SP_OK; d++) {
        if (!nr->verdicts[d].flagged) {
            continue;
        }
        sp_node_outlier_row_t *o = &nr->outliers[nout++];
        memset(o, 0, sizeof(*o));
        o->scope = SP_NODE_SCOPE_NODE;
        o->kind = (int8_t)kind;
        o->id = (int32_t)d;
        for (size_t r = 0; r < nranks; r++) {
            if ((size_t)topo->ranks[r].node == d) {
                snprintf(o->host, sizeof(o->host), "%s", topo->ranks[r].host);
                break;
            }
        }
        o->median = nr->est[d].median;
        o->cohort = node_cohort;
        o->ratio = nr->verdicts[d].ratio;
        o->ratio_lo = nr->verdicts[d].ratio_lo;
        o->ratio_hi = nr->verdicts[d].ratio_hi;
    }
    *nout_p = nout;
    return status;
}

/* Rank 0: outliers among the ranks, then among the nodes (pooled samples of their ranks). */
static sp_status_t find_outliers(node_run_t *nr, sp_node_kind_t kind, size_t n, double *cohort_p)
{
    sp_ctx_t *ctx = nr->ctx;
    const sp_topo_t *topo = &ctx->topo;
    size_t nranks = (size_t)ctx->nranks;
    size_t nflag = 0;
    size_t nout = 0;
    double cohort = NAN;
    sp_status_t status;

    for (size_t r = 0; r < nranks; r++) {
        nr->est[r].median = nr->rows[r].median;
        nr->est[r].ci_lo = nr->rows[r].ci_lo;
        nr->est[r].ci_hi = nr->rows[r].ci_hi;
    }
    status = sp_node_outliers(nr->est, nranks, nr->o->threshold, nr->pool_scratch, nr->verdicts,
                              &cohort, &nflag);
    if (status != SP_OK) {
        return status;
    }
    *cohort_p = cohort;
    for (size_t r = 0; r < nranks; r++) {
        if (nr->verdicts[r].flagged) {
            sp_node_outlier_row_t *o = &nr->outliers[nout++];
            memset(o, 0, sizeof(*o));
            o->scope = SP_NODE_SCOPE_RANK;
            o->kind = (int8_t)kind;
            o->id = (int32_t)r;
            snprintf(o->host, sizeof(o->host), "%s", topo->ranks[r].host);
            o->median = nr->rows[r].median;
            o->cohort = cohort;
            o->ratio = nr->verdicts[r].ratio;
            o->ratio_lo = nr->verdicts[r].ratio_lo;
            o->ratio_hi = nr->verdicts[r].ratio_hi;
        }
    }
    if (nranks <= MAX_RANK_LINES) {
        for (size_t r = 0; r < nranks; r++) {
            const sp_node_row_t *row = &nr->rows[r];
            fprintf(stdout, "  %5d %5d %-20.20s %12.4f %12.4f %12.4f %7u %4s %6.3f%s\n",
                    row->rank, row->node, row->host, row->median, row->ci_lo, row->ci_hi,
                    row->samples, row->converged ? "yes" : "no", nr->verdicts[r].ratio,
                    nr->verdicts[r].flagged ? "  OUTLIER" : "");
        }
    }
    /* nodes: a node slow as a whole (shared memory, a throttled board) */
    if (topo->nnodes >= 2) {
        status = find_node_outliers(nr, kind, n, &nout);
    }
    if (status == SP_OK && nout > 0) {
        status = sp_node_result_outliers(ctx->result, nr->outliers, nout);
    }
    fprintf(stdout, "# %s: cohort median %.4f %s over %zu ranks; ", sp_node_kind_names[kind],
            cohort, sp_node_kind_units(kind), nranks);
    if (nout == 0) {
        fprintf(stdout, "no rank or node below %.0f%% of it\n", 100.0 * (1.0 - nr->o->threshold));
    } else {
        fprintf(stdout, "%zu outlier(s), CI entirely below %.0f%% of it:\n", nout,
                100.0 * (1.0 - nr->o->threshold));
    }
    for (size_t i = 0; i < nout; i++) {
        const sp_node_outlier_row_t *o = &nr->outliers[i];
        fprintf(stdout,
                "# OUTLIER %s: %s %d (%s) at %.3f of the cohort median (CI %.3f-%.3f), %.4f vs "
                "%.4f %s\n",
                sp_node_kind_names[kind], o->scope == SP_NODE_SCOPE_RANK ? "rank" : "node", o->id,
                o->host, o->ratio, o->ratio_lo, o->ratio_hi, o->median, o->cohort,
                sp_node_kind_units(kind));
    }
    nr->nflagged += nout;
    return status;
}

/* The stop rule of every measurement (runstop.h). */
static sp_stop_rule_t node_rule(const node_run_t *nr)
{
    const sp_node_opts_t *o = nr->o;
    const sp_stop_rule_t rule = {
        .fixed = (size_t)o->iters,
        .min_samples = (size_t)o->min_samples,
        .max_samples = nr->max_samples,
        .max_time_s = o->max_time,
        .epsilon = o->epsilon,
    };

    return rule;
}

/* Rank 0: rows and samples of one kind from every rank's n samples, written and printed. */
static sp_status_t publish(node_run_t *nr, sp_node_kind_t kind, size_t n, double work,
                           uint64_t size, int dtype)
{
    sp_ctx_t *ctx = nr->ctx;
    size_t nranks = (size_t)ctx->nranks;
    const sp_stop_rule_t rule = node_rule(nr);
    double cohort = NAN;
    sp_status_t status;

    for (size_t r = 0; r < nranks; r++) {
        sp_node_row_t *row = &nr->rows[r];
        double *rates = nr->all_rates + r * n;
        sp_summary_t s;
        sp_seqstats_t q;
        for (size_t i = 0; i < n; i++) {
            sp_node_sample_t *sr = &nr->sample_rows[r * n + i];
            double t = nr->all_times[r * n + i];
            rates[i] = t > 0.0 ? work / t * 1e-9 : NAN;
            sr->rank = (int32_t)r;
            sr->kind = (int8_t)kind;
            sr->time_s = t;
            sr->rate = rates[i];
        }
        sp_stats_summarize(rates, n, nr->pool_scratch, &s);
        memset(row, 0, sizeof(*row));
        row->rank = (int32_t)r;
        row->node = ctx->topo.ranks[r].node;
        snprintf(row->host, sizeof(row->host), "%s", ctx->topo.ranks[r].host);
        row->kind = (int8_t)kind;
        row->dtype = (int8_t)dtype;
        /* the stop rule's verdict on this rank's series (its own loop stopped on it) */
        sp_stop_rule_stats(&rule, rates, n, nr->scratch, &q);
        row->converged = (int8_t)sp_stop_rule_converged(&rule, &q);
        row->size = size;
        row->work = work;
        snprintf(row->units, sizeof(row->units), "%s", sp_node_kind_units(kind));
        row->samples = (uint32_t)n;
        row->median = s.median;
        row->ci_lo = s.ci_lo;
        row->ci_hi = s.ci_hi;
        row->ci_rel = sp_stats_rel_halfwidth(&s);
        row->mean = s.mean;
        row->stddev = s.stddev;
        row->min = s.min;
        row->max = s.max;
        row->time_s = s.median > 0.0 ? work / s.median * 1e-9 : NAN;
        row->sample_offset = nr->sample_offset + r * n;
    }
    /* samples first: a reader that sees a row also sees its samples */
    status = sp_node_result_samples(ctx->result, nr->sample_rows, n * nranks);
    if (status == SP_OK) {
        status = sp_node_result_rows(ctx->result, nr->rows, nranks);
    }
    nr->sample_offset += n * nranks;
    print_kind_header(nr, kind, &nr->rows[0]);
    if (status == SP_OK) {
        status = find_outliers(nr, kind, n, &cohort);
    }
    fflush(stdout);
    return status;
}

/* This rank's stopping rule after n samples of kind (runstop.h), on its rates. */
static int rank_done(const node_run_t *nr, size_t n, double work, double elapsed_s)
{
    const sp_stop_rule_t rule = node_rule(nr);

    for (size_t i = 0; i < n; i++) {
        nr->scratch[i] = work / nr->times[i];
    }
    return sp_stop_rule_check(&rule, nr->scratch, n, elapsed_s, nr->scratch + n, NULL);
}

static sp_status_t measure_kind(node_run_t *nr, sp_node_kind_t kind)
{
    sp_ctx_t *ctx = nr->ctx;
    void *st = NULL;
    const sp_node_dev_ops_t *ops = sp__node_dev_for(nr, kind, &st);
    uint64_t size = 0;
    double work = sp__node_work_of(nr, kind, &size);
    double s = 0.0;
    uint64_t t_start;
    size_t n = 0;
    int done = 0;
    sp_status_t status = SP_OK;

    for (long i = 0; i < nr->o->warmup && status == SP_OK && !sp_signal_pending(); i++) {
        sp_watchdog_beat(ctx->watchdog, "node %s: warm-up %ld", sp_node_kind_names[kind], i + 1);
        status = sp__node_timed_call(nr, ops, st, kind, &s);
    }
    status = sp__node_agree3(nr, status, &done);
    if (status != SP_OK) {
        return status;
    }
    t_start = sp_time_ns();
    while (!done) {
        sp_watchdog_beat(ctx->watchdog, "node %s: sample %zu", sp_node_kind_names[kind], n + 1);
        MPI_Barrier(ctx->world);
        status = sp__node_timed_call(nr, ops, st, kind, &nr->times[n]);
        /* outside the timed region from here on */
        n += status == SP_OK ? 1 : 0;
        done = status != SP_OK || rank_done(nr, n, work, (double)(sp_time_ns() - t_start) * 1e-9);
        status = sp__node_agree3(nr, status, &done);
        if (status != SP_OK) {
            return status;
        }
    }
    /* lockstep: every rank took the same n samples */
    MPI_Gather(nr->times, (int)n, MPI_DOUBLE, nr->all_times, (int)n, MPI_DOUBLE, 0, ctx->world);
    if (ctx->rank == 0) {
        status = publish(nr, kind, n, work, size,
                         sp_node_kind_is_gemm(kind) ? ops->gemm_dtype(kind) : SP_DTYPE_DOUBLE);
    }
    return sp_ctx_agree(ctx, status);
}

sp_status_t sp_node_run(sp_ctx_t *ctx, const sp_node_opts_t *opts)
{
    node_run_t nr;
    sp_status_t status = node_init(&nr, ctx, opts);

    if (status == SP_OK && ctx->rank == 0) {
        status = node_begin(&nr);
    }
    status = sp_ctx_agree(ctx, status);
    for (int k = 0; k < SP_NODE_KIND_COUNT && status == SP_OK && !opts->no_baseline; k++) {
        void *st = NULL;
        if (!(nr.cfg.kinds & (1u << k)) || sp__node_dev_for(&nr, (sp_node_kind_t)k, &st) == NULL) {
            continue;
        }
        status = measure_kind(&nr, (sp_node_kind_t)k);
    }
    if (status == SP_OK && ctx->rank == 0 && !opts->no_baseline) {
        fprintf(stdout, "#\n# %zu outlier(s) in all (threshold %.0f%%)\n", nr.nflagged,
                100.0 * opts->threshold);
        fflush(stdout);
    }
    if (status == SP_OK && opts->burn > 0.0) {
        status = sp__node_burn(&nr);
    }
    node_cleanup(&nr);
    return status;
}
