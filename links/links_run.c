/* The link matrix: units (a node's lowest rank, or every rank) measured in rounds of disjoint
 * pairs (links_sched.h), every pair of a round at once; in each round one direction of every
 * pair, then the other, then the latency exchange, each sampled under the sweep's stop rule.
 * Rank 0 gathers the samples, writes /links, names the slow nodes and links and writes the
 * exclude list. docs/METHODOLOGY.md ("Link matrix") states every rule used here. */
#include "links_cmd.h"
#include "links_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "links_report.h"
#include "links_sched.h"
#include "links_verdict.h"
#include "log.h"
#include "runstop.h"
#include "signals.h"
#include "stats.h"
#include "timeutil.h"

#define PAIR_TAG 7301
#define MAX_BATCH 100000

enum { PHASE_FWD, PHASE_REV, PHASE_LAT, PHASE_COUNT };

/* The links' stop rule: -n fixed, else the order-statistic 95% CI of the median within
 * +-epsilon after min_samples (stats.h), or the sample or time cap. Not the sweep's
 * dependence-aware rule (runstop.h), which needs 100 samples per measurement: a link matrix
 * measures n(n-1) of them, and the confirmation passes (a link counts with its fastest pass)
 * guard the verdicts against the narrower interval (docs/METHODOLOGY.md, "Link matrix"). */
int sp__links_done(const links_run_t *lr, const double *x, size_t n, double elapsed_s,
                   size_t min_samples)
{
    const sp_links_opts_t *o = lr->o;
    size_t min = (size_t)o->min_samples > min_samples ? (size_t)o->min_samples : min_samples;
    sp_summary_t s;

    if (o->iters > 0) {
        return n >= (size_t)o->iters;
    }
    if (n >= lr->max_samples || elapsed_s >= o->max_time) {
        return 1;
    }
    if (n < min) {
        return 0;
    }
    sp_stats_summarize(x, n, lr->scratch, &s);
    return sp_stats_converged(&s, min, o->epsilon);
}

void sp__links_quiet_barrier(MPI_Comm comm, int nap)
{
    const struct timespec t = {0, 50000};
    MPI_Request req;
    int done = 0;

    MPI_Ibarrier(comm, &req);
    while (!done) {
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (!done && nap) {
            nanosleep(&t, NULL);
        }
    }
}

/* ---- set-up ---- */

/* The units: a node's lowest rank, every rank, or (per rail) every rank at rail-major place
 * local_rank * nodes + node, every node holding the same ranks (links_cmd.c checked it). */
static sp_status_t find_units(links_run_t *lr)
{
    sp_ctx_t *ctx = lr->ctx;
    int *where = calloc(2 * (size_t)ctx->nranks, sizeof(int));
    int mine[2] = {ctx->topo.local_rank, ctx->topo.node};
    int rail = lr->o->per == SP_LINKS_PER_RAIL;

    lr->unit_rank = calloc((size_t)ctx->nranks, sizeof(int));
    if (where == NULL || lr->unit_rank == NULL) {
        free(where);
        return SP_ERR_NOMEM;
    }
    MPI_Allgather(mine, 2, MPI_INT, where, 2, MPI_INT, ctx->world);
    lr->n = 0;
    lr->my_unit = -1;
    lr->nnodes = ctx->topo.nnodes;
    lr->nrails = rail ? ctx->topo.local_size : 1;
    for (int r = 0; r < ctx->nranks && rail; r++) {
        int u = where[2 * r] * lr->nnodes + where[2 * r + 1];
        lr->my_unit = r == ctx->rank ? u : lr->my_unit;
        lr->unit_rank[u] = r;
        lr->n++;
    }
    for (int r = 0; r < ctx->nranks && !rail; r++) {
        if (lr->o->per == SP_LINKS_PER_RANK || where[2 * r] == 0) {
            lr->my_unit = r == ctx->rank ? lr->n : lr->my_unit;
            lr->unit_rank[lr->n++] = r;
        }
    }
    free(where);
    return SP_OK;
}

/* Round r's pairs of units into pairs (lr->n + 1 entries); returns how many. */
static int round_pairs(const links_run_t *lr, int r, int *pairs)
{
    if (lr->o->per == SP_LINKS_PER_RAIL) {
        return sp_links_rail_round(lr->nnodes, lr->nrails, r, pairs, NULL);
    }
    return sp_links_round(lr->n, r, pairs, NULL);
}

/* Rounds of the whole schedule: the node matrix's for every rail at once, per rail. */
static int schedule_rounds(const links_run_t *lr)
{
    return sp_links_nrounds(lr->o->per == SP_LINKS_PER_RAIL ? lr->nnodes : lr->n);
}

static sp_status_t links_init(links_run_t *lr, sp_ctx_t *ctx, const sp_links_opts_t *o)
{
    const sp_backend_ops_t *ops = ctx->backend.ops;
    void *st = ctx->backend.state;
    sp_status_t status;

    memset(lr, 0, sizeof(*lr));
    lr->ctx = ctx;
    lr->o = o;
    lr->max_samples = (size_t)(o->iters > o->max_samples ? o->iters : o->max_samples);
    lr->buf_bytes = (size_t)o->size;
    lr->buf_bytes = (size_t)o->lat_size > lr->buf_bytes ? (size_t)o->lat_size : lr->buf_bytes;
    lr->buf_bytes =
        (size_t)o->screen_size > lr->buf_bytes ? (size_t)o->screen_size : lr->buf_bytes;
    status = find_units(lr);
    lr->times = calloc(lr->max_samples, sizeof(double));
    lr->times_b = calloc(lr->max_samples, sizeof(double));
    lr->scratch = calloc(2 * lr->max_samples, sizeof(double));
    if (ctx->rank == 0) {
        lr->all = calloc((size_t)ctx->nranks * lr->max_samples, sizeof(double));
    }
    if (status == SP_OK && (lr->times == NULL || lr->times_b == NULL || lr->scratch == NULL ||
                            (ctx->rank == 0 && lr->all == NULL))) {
        status = SP_ERR_NOMEM;
    }
    if (status == SP_OK) {
        status = ops->mem_alloc(st, lr->buf_bytes, &lr->sbuf);
    }
    if (status == SP_OK) {
        status = ops->mem_alloc(st, lr->buf_bytes, &lr->rbuf);
    }
    if (status == SP_OK) {
        status = ops->mem_poison(st, lr->sbuf, lr->buf_bytes);
    }
    if (status == SP_OK) {
        status = ops->event_create(st, &lr->ev0);
    }
    if (status == SP_OK) {
        status = ops->event_create(st, &lr->ev1);
    }
    if (status != SP_OK) {
        sp_error("links: set-up failed: %s", sp_status_str(status));
    }
    return sp_ctx_agree(ctx, status);
}

static void links_cleanup(links_run_t *lr)
{
    const sp_backend_ops_t *ops = lr->ctx->backend.ops;
    void *st = lr->ctx->backend.state;

    if (lr->ev1 != NULL) {
        ops->event_destroy(st, lr->ev1);
    }
    if (lr->ev0 != NULL) {
        ops->event_destroy(st, lr->ev0);
    }
    if (lr->rbuf != NULL) {
        ops->mem_free(st, lr->rbuf);
    }
    if (lr->sbuf != NULL) {
        ops->mem_free(st, lr->sbuf);
    }
    sp_links_result_data_free(&lr->acc);
    free(lr->all);
    free(lr->scratch);
    free(lr->times_b);
    free(lr->times);
    free(lr->unit_rank);
}

/* Rank 0: /links with its attributes and units, and the run's header. */
static sp_status_t links_begin(links_run_t *lr, int nrounds, int nmeasured)
{
    sp_ctx_t *ctx = lr->ctx;
    const sp_links_opts_t *o = lr->o;
    char threshold[32];
    char lat_threshold[32];
    char rounds[64];
    const char *attrs[][2] = {
        {"mode", sp_links_mode_names[o->mode]},
        {"per", sp_links_per_names[o->per]},
        {"threshold", threshold},
        {"lat_threshold", lat_threshold},
        {"rounds", rounds},
        {"sample_rule", "per message: the slower end's batch time / batch; bandwidth one "
                        "direction at a time, latency exchanged"},
        {"cohort_rule", "median over units of each unit's median link"},
    };
    sp_status_t status;

    snprintf(threshold, sizeof(threshold), "%g", o->threshold);
    snprintf(lat_threshold, sizeof(lat_threshold), "%g", o->lat_threshold);
    snprintf(rounds, sizeof(rounds), "%d of %d", nmeasured, nrounds);
    snprintf(lr->acc.mode, sizeof(lr->acc.mode), "%s", sp_links_mode_names[o->mode]);
    snprintf(lr->acc.per, sizeof(lr->acc.per), "%s", sp_links_per_names[o->per]);
    snprintf(lr->acc.threshold, sizeof(lr->acc.threshold), "%s", threshold);
    snprintf(lr->acc.rounds, sizeof(lr->acc.rounds), "%s", o->mode == SP_LINKS_MODE_SCREEN
                                                               ? "" : rounds);
    lr->acc.units = calloc((size_t)lr->n, sizeof(*lr->acc.units));
    if (lr->acc.units == NULL) {
        return SP_ERR_NOMEM;
    }
    lr->acc.nunits = (size_t)lr->n;
    for (int u = 0; u < lr->n; u++) {
        const sp_topo_rank_t *tr = &ctx->topo.ranks[lr->unit_rank[u]];
        lr->acc.units[u].unit = u;
        lr->acc.units[u].rank = tr->rank;
        lr->acc.units[u].node = tr->node;
        lr->acc.units[u].rail = tr->local_rank;
        snprintf(lr->acc.units[u].host, sizeof(lr->acc.units[u].host), "%s", tr->host);
    }
    status = sp_links_result_begin(ctx->result, attrs, (int)(sizeof(attrs) / sizeof(attrs[0])));
    if (status == SP_OK) {
        status = sp_links_result_units(ctx->result, lr->acc.units, lr->acc.nunits);
    }
    fprintf(stdout, "# scaleprobe links: %d units (per %s) of %d ranks on %d node(s), backend %s, "
                    "mode %s\n",
            lr->n, sp_links_per_names[o->per], ctx->nranks, ctx->topo.nnodes,
            ctx->backend.ops->name, sp_links_mode_names[o->mode]);
    if (o->per == SP_LINKS_PER_RAIL) {
        fprintf(stdout, "# rails: %d matrices of %d nodes (local rank r of every node with local "
                        "rank r of the others), all rails in each round\n",
                lr->nrails, lr->nnodes);
    }
    if (o->mode != SP_LINKS_MODE_SCREEN) {
        fprintf(stdout, "# matrix: %d of %d rounds of disjoint pairs, bandwidth %llu B one way, "
                        "latency %llu B exchanged\n",
                nmeasured, nrounds, (unsigned long long)o->size,
                (unsigned long long)o->lat_size);
    }
    fflush(stdout);
    return status;
}

/* ---- one measurement of one round ---- */

/* This rank's partner unit in the round and its call for the phase; -1: none. */
static int my_call(const links_run_t *lr, const int *pairs, int np, int phase,
                   sp_comm_call_t *call)
{
    int partner = -1;
    int lower = 0;

    for (int i = 0; i < np && lr->my_unit >= 0; i++) {
        if (pairs[2 * i] == lr->my_unit || pairs[2 * i + 1] == lr->my_unit) {
            lower = pairs[2 * i] == lr->my_unit;
            partner = lower ? pairs[2 * i + 1] : pairs[2 * i];
        }
    }
    memset(call, 0, sizeof(*call));
    call->pattern = SP_COMM_SENDRECV;
    call->dtype = SP_DTYPE_UINT8;
    call->count = phase == PHASE_LAT ? (size_t)lr->o->lat_size : (size_t)lr->o->size;
    if (partner < 0) {
        return -1;
    }
    call->send_peer = lr->unit_rank[partner];
    call->recv_peer = lr->unit_rank[partner];
    /* forward: the lower unit of each pair sends; reverse: the higher one */
    if (phase != PHASE_LAT && (phase == PHASE_FWD) != lower) {
        call->send_peer = SP_COMM_NO_PEER;
    } else if (phase != PHASE_LAT) {
        call->recv_peer = SP_COMM_NO_PEER;
    }
    return partner;
}

/* One timed batch of k calls: seconds per call, the slower end of the pair (exchanged). */
static sp_status_t pair_batch(links_run_t *lr, const sp_comm_call_t *call, int peer, long k,
                              double *s_p)
{
    const sp_backend_ops_t *ops = lr->ctx->backend.ops;
    void *st = lr->ctx->backend.state;
    uint64_t ns = 0;
    double mine;
    double theirs = 0.0;
    sp_status_t status = ops->coll_batch(st, call, lr->sbuf, lr->rbuf, k, lr->ev0, lr->ev1);

    if (status == SP_OK) {
        status = ops->event_elapsed_ns(st, lr->ev0, lr->ev1, &ns);
    }
    /* outside the timed region: the pair's sample is its slower end */
    mine = status == SP_OK ? (double)ns * 1e-9 / (double)k : -1.0;
    MPI_Sendrecv(&mine, 1, MPI_DOUBLE, peer, PAIR_TAG, &theirs, 1, MPI_DOUBLE, peer, PAIR_TAG,
                 lr->ctx->world, MPI_STATUS_IGNORE);
    *s_p = mine > theirs ? mine : theirs;
    return status == SP_OK && theirs < 0.0 ? SP_ERR_PEER : status;
}

/* Warm-up and the batch size: calls until a batch lasts --batch-time (agreed in the pair). */
static sp_status_t pair_prepare(links_run_t *lr, const sp_comm_call_t *call, int peer,
                                long *k_p)
{
    const sp_backend_ops_t *ops = lr->ctx->backend.ops;
    void *st = lr->ctx->backend.state;
    double t1 = 0.0;
    sp_status_t status = SP_OK;

    for (long i = 0; i < lr->o->warmup && status == SP_OK; i++) {
        status = ops->coll_run(st, call, lr->sbuf, lr->rbuf);
        if (status == SP_OK) {
            status = ops->sync(st);
        }
    }
    if (status == SP_OK) {
        status = pair_batch(lr, call, peer, 1, &t1);
    }
    *k_p = 1;
    if (status == SP_OK && t1 > 0.0 && lr->o->batch_time > t1) {
        double k = ceil(lr->o->batch_time / t1);
        *k_p = k > MAX_BATCH ? MAX_BATCH : (long)k;
    }
    return status;
}

/* Every pair of the round in one phase, in lockstep: *n_p samples on every rank (this rank's
 * pair's in lr->times), the batch size of this rank's pair in *k_p. */
static sp_status_t measure_phase(links_run_t *lr, int round, const int *pairs, int np,
                                 int phase, size_t *n_p, long *k_p)
{
    static const char *const names[] = {"forward", "reverse", "latency"};
    sp_ctx_t *ctx = lr->ctx;
    sp_comm_call_t call;
    int partner = my_call(lr, pairs, np, phase, &call);
    int peer = partner >= 0 ? lr->unit_rank[partner] : -1;
    size_t n = 0;
    int done = partner < 0;
    uint64_t t0;
    sp_status_t status = SP_OK;

    *k_p = 0;
    if (partner >= 0) {
        status = pair_prepare(lr, &call, peer, k_p);
    }
    status = sp_runstop_agree(ctx->world, status, SP_RUNSTOP_ALL, done, &done);
    t0 = sp_time_ns();
    while (status == SP_OK && !done) {
        sp_watchdog_beat(ctx->watchdog, "links round %d %s: sample %zu", round, names[phase],
                         n + 1);
        MPI_Barrier(ctx->world);
        if (partner >= 0) {
            status = pair_batch(lr, &call, peer, *k_p, &lr->times[n]);
            n += status == SP_OK ? 1 : 0;
            done = status != SP_OK ||
                   sp__links_done(lr, lr->times, n, (double)(sp_time_ns() - t0) * 1e-9, 0);
        } else {
            n++; /* in step with the pairs: idle ranks count the same samples */
        }
        /* idle ranks wait asleep, so they take no core from the pairs being timed */
        sp__links_quiet_barrier(ctx->world, partner < 0);
        status = sp_runstop_agree(ctx->world, status, SP_RUNSTOP_ALL, done || partner < 0,
                                  &done);
    }
    *n_p = n;
    return status;
}

/* ---- rank 0: rows of a phase ---- */

static sp_status_t grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap) {
        return SP_OK;
    }
    size_t c = *cap > 0 ? *cap : 64;
    while (c < need) {
        c *= 2;
    }
    void *q = realloc(*p, c * size);
    if (q == NULL) {
        return SP_ERR_NOMEM;
    }
    *p = q;
    *cap = c;
    return SP_OK;
}

/* One row from a pair's n samples (seconds per message) gathered at src's rank. */
static void fill_row(links_run_t *lr, sp_links_pair_row_t *row, const double *t, size_t n,
                     int phase, int src, int dst, int round)
{
    sp_links_sample_row_t *srow = lr->acc.samples + lr->acc.nsamples;
    double bytes = (double)(phase == PHASE_LAT ? lr->o->lat_size : lr->o->size);
    sp_summary_t s;

    for (size_t i = 0; i < n; i++) {
        srow[i].time_us = t[i] * 1e6;
        lr->scratch[i] = t[i] * 1e6;
    }
    sp_stats_summarize(lr->scratch, n, lr->scratch + lr->max_samples, &s);
    memset(row, 0, sizeof(*row));
    row->metric = (int8_t)(phase == PHASE_LAT ? SP_LINKS_LAT : SP_LINKS_BW);
    row->converged = (int8_t)sp_stats_converged(&s, lr->o->iters > 0 ? 1
                                                                     : (size_t)lr->o->min_samples,
                                                lr->o->epsilon);
    row->src = src;
    row->dst = dst;
    row->round = round;
    row->pass = (int8_t)lr->pass;
    row->bytes = (uint64_t)bytes;
    row->samples = (uint32_t)n;
    row->median_us = s.median;
    row->ci_lo_us = s.ci_lo;
    row->ci_hi_us = s.ci_hi;
    row->min_us = s.min;
    row->max_us = s.max;
    if (phase == PHASE_LAT) {
        row->value = s.median;
        row->value_lo = s.ci_lo;
        row->value_hi = s.ci_hi;
    } else {
        /* GB/s = 1e9 B/s; the CI's ends swap under 1 / time */
        row->value = bytes / s.median * 1e-3;
        row->value_lo = bytes / s.ci_hi * 1e-3;
        row->value_hi = bytes / s.ci_lo * 1e-3;
    }
    row->sample_offset = lr->acc.nsamples;
    lr->acc.nsamples += n;
}

/* Gather a phase's samples and batch sizes; rank 0 appends its rows and writes them. */
static sp_status_t publish_phase(links_run_t *lr, int round, const int *pairs, int np,
                                 int phase, size_t n, long k)
{
    sp_ctx_t *ctx = lr->ctx;
    long *ks = NULL;
    size_t first = lr->acc.npairs;
    size_t first_sample = lr->acc.nsamples;
    sp_status_t status = SP_OK;

    if (ctx->rank == 0) {
        ks = calloc((size_t)ctx->nranks, sizeof(long));
        status = ks != NULL ? SP_OK : SP_ERR_NOMEM;
        if (status == SP_OK) {
            status = grow((void **)&lr->acc.pairs, &lr->cap_pairs, first + (size_t)np,
                          sizeof(*lr->acc.pairs));
        }
        if (status == SP_OK) {
            status = grow((void **)&lr->acc.samples, &lr->cap_samples,
                          first_sample + (size_t)np * n, sizeof(*lr->acc.samples));
        }
    }
    status = sp_ctx_agree(ctx, status);
    if (status != SP_OK) {
        free(ks);
        return status;
    }
    MPI_Gather(lr->times, (int)n, MPI_DOUBLE, lr->all, (int)n, MPI_DOUBLE, 0, ctx->world);
    MPI_Gather(&k, 1, MPI_LONG, ks, 1, MPI_LONG, 0, ctx->world);
    if (ctx->rank == 0) {
        for (int i = 0; i < np; i++) {
            int lo = pairs[2 * i];
            int hi = pairs[2 * i + 1];
            int src = phase == PHASE_REV ? hi : lo;
            int dst = phase == PHASE_REV ? lo : hi;
            sp_links_pair_row_t *row = &lr->acc.pairs[lr->acc.npairs++];
            fill_row(lr, row, lr->all + (size_t)lr->unit_rank[lo] * n, n, phase, src, dst,
                     round);
            row->batch = (uint32_t)ks[lr->unit_rank[lo]];
        }
        status = sp_links_result_pairs(ctx->result, lr->acc.pairs + first, (size_t)np,
                                       lr->acc.samples + first_sample,
                                       lr->acc.nsamples - first_sample);
    }
    free(ks);
    return sp_ctx_agree(ctx, status);
}

/* ---- the matrix ---- */

static sp_status_t run_matrix(links_run_t *lr, const int *rounds, int nmeasured)
{
    sp_ctx_t *ctx = lr->ctx;
    int *pairs = calloc((size_t)lr->n + 1, sizeof(int));
    sp_status_t status = sp_ctx_agree(ctx, pairs != NULL ? SP_OK : SP_ERR_NOMEM);

    for (int i = 0; i < nmeasured && status == SP_OK; i++) {
        int np = round_pairs(lr, rounds[i], pairs);
        for (int phase = 0; phase < PHASE_COUNT && status == SP_OK; phase++) {
            size_t n = 0;
            long k = 0;
            status = measure_phase(lr, rounds[i], pairs, np, phase, &n, &k);
            if (status == SP_OK) {
                status = publish_phase(lr, rounds[i], pairs, np, phase, n, k);
            }
        }
        if (status == SP_OK && ctx->rank == 0 && isatty(2)) {
            fprintf(stderr, "\r# links: round %d of %d done", i + 1, nmeasured);
        }
    }
    if (ctx->rank == 0 && isatty(2)) {
        fprintf(stderr, "\n");
    }
    free(pairs);
    return status;
}

/* Rank 0: the suspect pairs (a < b): every pair of a slow node, every slow link; into sus
 * (n * n entries), returns how many pairs. */
static int find_suspects(links_run_t *lr, int *sus)
{
    int n = lr->n;
    size_t nn = (size_t)n * (size_t)n;
    double cohort[SP_LINKS_METRIC_COUNT];
    sp_links_outlier_row_t *o = calloc(2 * ((size_t)n + nn), sizeof(*o));
    unsigned char *mark = calloc(nn, 1);
    const double thr[SP_LINKS_METRIC_COUNT] = {lr->o->threshold, lr->o->lat_threshold};
    size_t nout = 0;
    int ns = 0;
    int k = lr->o->per == SP_LINKS_PER_RAIL ? lr->nnodes : n;

    if (o != NULL && mark != NULL &&
        sp_links_analyze(&lr->acc, thr, o, &nout, cohort) == SP_OK) {
        for (size_t i = 0; i < nout; i++) {
            if (lr->pass > 1 && o[i].kind == SP_LINKS_FIND_NODE) {
                continue; /* a node's pairs are confirmed once; a lone link every pass */
            }
            for (int j = 0; j < n; j++) {
                int a = o[i].kind == SP_LINKS_FIND_NODE ? (o[i].a < j ? o[i].a : j) : o[i].a;
                int b = o[i].kind == SP_LINKS_FIND_NODE ? (o[i].a < j ? j : o[i].a) : o[i].b;
                /* per rail, a node's pairs are those of its rail */
                if (a != b && a / k == b / k && !mark[(size_t)a * (size_t)n + (size_t)b]) {
                    mark[(size_t)a * (size_t)n + (size_t)b] = 1;
                    sus[2 * ns] = a;
                    sus[2 * ns + 1] = b;
                    ns++;
                }
                if (o[i].kind != SP_LINKS_FIND_NODE) {
                    break;
                }
            }
        }
    }
    free(mark);
    free(o);
    return ns;
}

/* Confirmation passes: each suspect pair measured again, alone (no other pair in its round),
 * so that neither a passing disturbance nor the load of a slow pair in the same round (a shared
 * switch, shared cores) names a link that is fine on its own. */
static sp_status_t confirm(links_run_t *lr)
{
    sp_ctx_t *ctx = lr->ctx;
    size_t nn = (size_t)lr->n * (size_t)lr->n;
    int *sus = calloc(2 * nn, sizeof(int));
    sp_status_t status = sp_ctx_agree(ctx, sus != NULL ? SP_OK : SP_ERR_NOMEM);

    for (lr->pass = 1; lr->pass <= lr->o->confirm && status == SP_OK; lr->pass++) {
        int ns = ctx->rank == 0 ? find_suspects(lr, sus) : 0;
        MPI_Bcast(&ns, 1, MPI_INT, 0, ctx->world);
        MPI_Bcast(sus, 2 * ns, MPI_INT, 0, ctx->world);
        if (ctx->rank == 0 && ns > 0) {
            fprintf(stdout, "# confirmation %d: %d suspect pair(s) measured again, one at a time\n", lr->pass,
                    ns);
        }
        for (int r = 0; r < ns && status == SP_OK; r++) {
            for (int phase = 0; phase < PHASE_COUNT && status == SP_OK; phase++) {
                size_t n = 0;
                long k = 0;
                status = measure_phase(lr, r, sus + 2 * r, 1, phase, &n, &k);
                if (status == SP_OK) {
                    status = publish_phase(lr, r, sus + 2 * r, 1, phase, n, k);
                }
            }
        }
    }
    free(sus);
    return status;
}

/* The cohort attribute: the matrix's, or per rail each rail's (its verdicts are judged on it). */
static sp_status_t cohort_text(links_run_t *lr, const double *cohort, char *c, size_t len)
{
    const double thr[SP_LINKS_METRIC_COUNT] = {lr->o->threshold, lr->o->lat_threshold};
    size_t k = (size_t)lr->nnodes;
    sp_links_outlier_row_t *o = NULL;
    size_t at = 0;
    sp_status_t status = SP_OK;

    if (lr->o->per != SP_LINKS_PER_RAIL) {
        snprintf(c, len, "bandwidth %.4g GB/s, latency %.4g us", cohort[SP_LINKS_BW],
                 cohort[SP_LINKS_LAT]);
        return SP_OK;
    }
    o = calloc(2 * (k + k * k), sizeof(*o));
    status = o != NULL ? SP_OK : SP_ERR_NOMEM;
    c[0] = '\0';
    for (int q = 0; q < lr->nrails && status == SP_OK && at < len; q++) {
        double rc[SP_LINKS_METRIC_COUNT];
        size_t nout = 0;
        status = sp_links_analyze_rail(&lr->acc, thr, q, o, &nout, rc);
        at += (size_t)snprintf(c + at, len - at, "%srail %d: bandwidth %.4g GB/s, latency %.4g us",
                               q > 0 ? "; " : "", q, rc[SP_LINKS_BW], rc[SP_LINKS_LAT]);
    }
    free(o);
    return status;
}

/* Rank 0: the matrices, the outliers and the report of the matrix. */
static sp_status_t finish_matrix(links_run_t *lr)
{
    sp_result_t *res = lr->ctx->result;
    int n = lr->n;
    size_t nn = (size_t)n * (size_t)n;
    double cohort[SP_LINKS_METRIC_COUNT];
    double *m = calloc(3 * nn, sizeof(double));
    const double thr[SP_LINKS_METRIC_COUNT] = {lr->o->threshold, lr->o->lat_threshold};
    size_t nout = 0;
    sp_status_t status;

    lr->acc.outliers = calloc(2 * ((size_t)n + nn), sizeof(*lr->acc.outliers));
    if (m == NULL || lr->acc.outliers == NULL) {
        free(m);
        return SP_ERR_NOMEM;
    }
    status = sp_links_analyze(&lr->acc, thr, lr->acc.outliers, &nout, cohort);
    lr->acc.noutliers = nout;
    for (int metric = 0; metric < SP_LINKS_METRIC_COUNT && status == SP_OK; metric++) {
        static const char *const names[][3] = {
            {"bandwidth_gbps", "bandwidth_ci_lo", "bandwidth_ci_hi"},
            {"latency_us", "latency_ci_lo", "latency_ci_hi"},
        };
        const sp_links_pair_row_t **best = sp_links_best_rows(&lr->acc, metric, n);
        if (best == NULL) {
            status = SP_ERR_NOMEM;
            break;
        }
        for (size_t i = 0; i < nn; i++) {
            m[i] = best[i] != NULL ? best[i]->value : NAN;
            m[nn + i] = best[i] != NULL ? best[i]->value_lo : NAN;
            m[2 * nn + i] = best[i] != NULL ? best[i]->value_hi : NAN;
        }
        free(best);
        for (int j = 0; j < 3 && status == SP_OK; j++) {
            status = sp_links_result_matrix(res, names[metric][j], m + (size_t)j * nn, n);
        }
    }
    if (status == SP_OK && nout > 0) {
        status = sp_links_result_outliers(res, lr->acc.outliers, nout);
    }
    if (status == SP_OK) {
        char c[1024];
        status = cohort_text(lr, cohort, c, sizeof(c));
        if (status == SP_OK) {
            status = sp_links_result_attr(res, "cohort", c);
        }
        fprintf(stdout, "# cohort (median over units of each unit's median link%s): %s\n",
                lr->nrails > 1 ? ", each rail's own" : "", c);
    }
    free(m);
    return status;
}

sp_status_t sp_links_run(sp_ctx_t *ctx, const sp_links_opts_t *opts)
{
    links_run_t lr;
    int nrounds = 0;
    int nmeasured = 0;
    int *rounds = NULL;
    sp_status_t status = links_init(&lr, ctx, opts);

    if (status == SP_OK) {
        nrounds = schedule_rounds(&lr);
        rounds = calloc((size_t)nrounds + 1, sizeof(int));
        nmeasured = rounds != NULL ? sp_links_pick_rounds(nrounds, (int)opts->rounds, rounds) : 0;
        status = rounds != NULL ? SP_OK : SP_ERR_NOMEM;
        if (status == SP_OK && lr.n < 2) {
            if (ctx->rank == 0) {
                fprintf(stderr, "scaleprobe links: error: %d unit(s): launch on at least 2 nodes "
                                "or use --per rank\n", lr.n);
            }
            status = SP_ERR_INVALID;
        }
        if (status == SP_OK && opts->mode != SP_LINKS_MODE_MATRIX && lr.n < 4) {
            if (ctx->rank == 0) {
                fprintf(stderr, "scaleprobe links: error: --mode %s: screening needs at least 4 "
                                "units (%d here)\n", sp_links_mode_names[opts->mode], lr.n);
            }
            status = SP_ERR_INVALID;
        }
    }
    if (status == SP_OK && ctx->rank == 0) {
        status = links_begin(&lr, nrounds, nmeasured);
    }
    status = sp_ctx_agree(ctx, status);
    if (status == SP_OK && opts->mode != SP_LINKS_MODE_MATRIX) {
        status = sp__links_screen(&lr);
    }
    if (status == SP_OK && opts->mode != SP_LINKS_MODE_SCREEN) {
        status = run_matrix(&lr, rounds, nmeasured);
        if (status == SP_OK) {
            status = confirm(&lr);
        }
        if (status == SP_OK && ctx->rank == 0) {
            status = finish_matrix(&lr);
        }
        status = sp_ctx_agree(ctx, status);
    }
    if (status == SP_OK && ctx->rank == 0) {
        sp_links_report_print(&lr.acc, stdout);
        if (opts->exclude[0] != '\0') {
            status = sp_links_exclude_write(&lr.acc, opts->exclude,
                                            sp_result_path(ctx->result));
        }
        fflush(stdout);
    }
    status = sp_ctx_agree(ctx, status);
    free(rounds);
    links_cleanup(&lr);
    return status;
}
