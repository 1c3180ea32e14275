/* The screen: bisection over the units with an all_reduce timed in each half at once
 * (links_bisect.h holds the search; this file measures a split). Each group runs on a stream
 * of its own sub-communicator, so both halves share the fabric as a job's groups would. */
#include "links_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "links_bisect.h"
#include "links_result.h"
#include "log.h"
#include "runstop.h"
#include "timeutil.h"

#define MAX_BATCH 100000
#define SCREEN_ALPHA 0.05

typedef struct {
    links_run_t *lr;
    MPI_Comm comm;
    sp_stream_t *stream;
    sp_comm_call_t call;
    int group;          /* 0: a, 1: b, -1: none */
} screen_t;

static int member(const int *g, int n, int unit)
{
    for (int i = 0; i < n; i++) {
        if (g[i] == unit) {
            return 1;
        }
    }
    return 0;
}

/* One timed batch of k all_reduces on the group's stream: seconds per call, the group's max. */
static sp_status_t group_batch(screen_t *sc, long k, double *s_p)
{
    links_run_t *lr = sc->lr;
    const sp_backend_ops_t *ops = lr->ctx->backend.ops;
    void *st = lr->ctx->backend.state;
    uint64_t ns = 0;
    double mine;
    sp_status_t status = ops->stream_record(st, sc->stream, lr->ev0);

    for (long i = 0; i < k && status == SP_OK; i++) {
        status = ops->stream_coll(st, sc->stream, &sc->call, lr->sbuf, lr->rbuf);
    }
    if (status == SP_OK) {
        status = ops->stream_record(st, sc->stream, lr->ev1);
    }
    if (status == SP_OK) {
        status = ops->stream_sync(st, sc->stream);
    }
    if (status == SP_OK) {
        status = ops->event_elapsed_ns(st, lr->ev0, lr->ev1, &ns);
    }
    mine = status == SP_OK ? (double)ns * 1e-9 / (double)k : INFINITY;
    MPI_Allreduce(&mine, s_p, 1, MPI_DOUBLE, MPI_MAX, sc->comm);
    return isinf(*s_p) && status == SP_OK ? SP_ERR_PEER : status;
}

/* Join the group's communicator and stream; warm up and size a batch (agreed in the group). */
static sp_status_t group_open(screen_t *sc, long *k_p)
{
    links_run_t *lr = sc->lr;
    const sp_backend_ops_t *ops = lr->ctx->backend.ops;
    void *st = lr->ctx->backend.state;
    double t1 = 0.0;
    sp_status_t status;

    MPI_Comm_split(lr->ctx->world, sc->group >= 0 ? sc->group : MPI_UNDEFINED, lr->ctx->rank,
                   &sc->comm);
    *k_p = 1;
    if (sc->group < 0) {
        return SP_OK;
    }
    status = ops->stream_create(st, sc->comm, &sc->stream);
    for (long i = 0; i < lr->o->warmup && status == SP_OK; i++) {
        status = ops->stream_coll(st, sc->stream, &sc->call, lr->sbuf, lr->rbuf);
    }
    if (status == SP_OK) {
        status = ops->stream_sync(st, sc->stream);
    }
    if (status == SP_OK) {
        status = group_batch(sc, 1, &t1);
    }
    if (status == SP_OK && t1 > 0.0 && lr->o->batch_time > t1) {
        double k = ceil(lr->o->batch_time / t1);
        *k_p = k > MAX_BATCH ? MAX_BATCH : (long)k;
    }
    return status;
}

static void group_close(screen_t *sc)
{
    links_run_t *lr = sc->lr;

    if (sc->stream != NULL) {
        lr->ctx->backend.ops->stream_destroy(lr->ctx->backend.state, sc->stream);
        sc->stream = NULL;
    }
    if (sc->comm != MPI_COMM_NULL) {
        MPI_Comm_free(&sc->comm);
    }
}

/* sp_links_group_fn: both groups at once, in lockstep; every rank gets both series. */
static sp_status_t group_measure(void *arg, const int *a, int na, const int *b, int nb,
                                 size_t min_samples, double *ta, double *tb, size_t cap,
                                 size_t *n_p)
{
    screen_t *sc = arg;
    links_run_t *lr = sc->lr;
    sp_ctx_t *ctx = lr->ctx;
    size_t n = 0;
    long k = 1;
    int done = 0;
    uint64_t t0;
    sp_status_t status;

    sc->group = member(a, na, lr->my_unit) ? 0 : (member(b, nb, lr->my_unit) ? 1 : -1);
    status = group_open(sc, &k);
    status = sp_runstop_agree(ctx->world, status, SP_RUNSTOP_ALL, 0, &done);
    t0 = sp_time_ns();
    while (status == SP_OK && !done && n < cap) {
        double mine[2] = {0.0, 0.0};
        double both[2];
        sp_watchdog_beat(ctx->watchdog, "links screen: sample %zu", n + 1);
        MPI_Barrier(ctx->world);
        if (sc->group >= 0) {
            status = group_batch(sc, k, &mine[sc->group]);
        }
        sp__links_quiet_barrier(ctx->world, sc->group < 0);
        /* outside the timed region: every rank learns both groups' times */
        MPI_Allreduce(mine, both, 2, MPI_DOUBLE, MPI_MAX, ctx->world);
        ta[n] = both[0];
        tb[n] = both[1];
        n++;
        if (ctx->rank == 0) {
            double el = (double)(sp_time_ns() - t0) * 1e-9;
            /* the time cap never cuts below the samples the split's confidence needs */
            done = n >= min_samples && sp__links_done(lr, ta, n, el, min_samples) &&
                   sp__links_done(lr, tb, n, el, min_samples);
        }
        status = sp_runstop_agree(ctx->world, status, SP_RUNSTOP_RANK0, done, &done);
    }
    group_close(sc);
    *n_p = n;
    return status;
}

/* The verdict line (also the /links attribute screen_verdict). */
static void verdict_text(const links_run_t *lr, const sp_links_bisect_result_t *r, char *buf,
                         size_t len)
{
    const sp_links_unit_row_t *u = lr->acc.units;
    int pairwise = lr->n % 2 == 0 ? lr->n - 1 : lr->n;

    if (r->verdict >= 0) {
        snprintf(buf, len, "slow node %s (unit %d) found in %d round(s) of group all_reduce "
                 "(%d split(s); the pairwise matrix needs %d rounds), confidence >= %.0f%% "
                 "(each split at %.2f%%)",
                 u[r->verdict].host, r->verdict, r->rounds, r->levels, pairwise,
                 100.0 * r->conf, 100.0 * r->conf_step);
    } else if (r->verdict == -1) {
        snprintf(buf, len, "no slow node: no half slower by more than %g%% in %d round(s) "
                 "(each split at %.2f%%)",
                 100.0 * lr->o->threshold, r->rounds, 100.0 * r->conf_step);
    } else {
        snprintf(buf, len, "inconclusive: the slow node is among units %d-%d (%s..%s) after %d "
                 "round(s); no half of them was slower",
                 r->cand_lo, r->cand_hi - 1, u[r->cand_lo].host, u[r->cand_hi - 1].host,
                 r->rounds);
    }
}

sp_status_t sp__links_screen(links_run_t *lr)
{
    sp_ctx_t *ctx = lr->ctx;
    int cap = sp_links_bisect_max_levels(lr->n) * (int)lr->o->screen_repeats * 2 + 2;
    sp_links_bisect_step_t *steps = calloc((size_t)cap, sizeof(*steps));
    sp_links_bisect_params_t p = {
        .alpha = SCREEN_ALPHA,
        .threshold = lr->o->threshold,
        .repeats = (int)lr->o->screen_repeats,
        .max_samples = lr->max_samples,
    };
    sp_links_bisect_result_t r;
    screen_t sc = {.lr = lr, .comm = MPI_COMM_NULL};
    int nsteps = 0;
    sp_status_t status = sp_ctx_agree(ctx, steps != NULL ? SP_OK : SP_ERR_NOMEM);

    sc.call.pattern = SP_COMM_ALLREDUCE;
    sc.call.dtype = SP_DTYPE_FLOAT;
    sc.call.redop = SP_REDOP_SUM;
    sc.call.count = (size_t)lr->o->screen_size / 4;
    if (status == SP_OK) {
        status = sp_links_bisect(lr->n, &p, group_measure, &sc, steps, cap, &nsteps, &r);
    }
    status = sp_ctx_agree(ctx, status);
    if (status == SP_OK && ctx->rank == 0) {
        verdict_text(lr, &r, lr->acc.screen_verdict, sizeof(lr->acc.screen_verdict));
        lr->acc.screen = steps;
        lr->acc.nscreen = (size_t)nsteps;
        steps = NULL;
        status = sp_links_result_screen(ctx->result, lr->acc.screen, lr->acc.nscreen);
        if (status == SP_OK) {
            status = sp_links_result_attr(ctx->result, "screen_verdict",
                                          lr->acc.screen_verdict);
        }
    }
    free(steps);
    return sp_ctx_agree(ctx, status);
}
