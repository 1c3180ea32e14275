/* The sweep driver. A sample: ranks synchronize, each times a batch of k back-to-back operations
 * with backend events, and the sample's value is the max over ranks of time/k. Rank 0 decides
 * when to stop (CI target, fixed count, time or sample cap) and broadcasts the decision outside
 * the timed region. docs/METHODOLOGY.md states these rules. */
#include "sweep.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_table.h"
#include "log.h"
#include "method_run.h"
#include "runstop.h"
#include "sweep_batch.h"
#include "sweep_issue.h"
#include "sweep_late.h"
#include "timeutil.h"


sp_status_t sp_sweep_bufs_init(sp_ctx_t *ctx, size_t bytes, size_t max_samples,
                               sp_sweep_bufs_t *bufs)
{
    const sp_backend_ops_t *ops = ctx->backend.ops;
    void *st = ctx->backend.state;
    sp_sweep_point_t *p = &bufs->point;
    /* the stop rule's copy of the series, then its scratch (runstop.h) */
    size_t nrule = max_samples + sp_stop_rule_scratch_len(max_samples);
    size_t nscratch = nrule > (size_t)ctx->nranks ? nrule : (size_t)ctx->nranks;
    sp_status_t status = SP_OK;

    memset(bufs, 0, sizeof(*bufs));
    bufs->bytes = bytes;
    bufs->max_samples = max_samples;
    sp__sweep_delay_from_env(bufs);
    status = sp__sweep_late_init(ctx, bufs);
    if (status == SP_OK) {
        status = ops->mem_alloc(st, bytes, &bufs->send);
    }
    if (status == SP_OK) {
        status = ops->mem_alloc(st, bytes, &bufs->recv);
    }
    if (status == SP_OK) {
        status = ops->event_create(st, &bufs->ev_start);
    }
    if (status == SP_OK) {
        status = ops->event_create(st, &bufs->ev_end);
    }
    p->local_times_us = calloc(max_samples, sizeof(double));
    p->scratch = calloc(nscratch, sizeof(double));
    if (ctx->rank == 0) {
        p->samples = calloc(max_samples, sizeof(*p->samples));
        p->rank_times_us = calloc((size_t)ctx->nranks, sizeof(double));
        p->rank_wrong = calloc((size_t)ctx->nranks, sizeof(uint64_t));
        p->wrong = calloc((size_t)ctx->nranks, sizeof(*p->wrong));
        if (p->samples == NULL || p->rank_times_us == NULL || p->rank_wrong == NULL ||
            p->wrong == NULL) {
            status = SP_ERR_NOMEM;
        }
    }
    if (p->local_times_us == NULL || p->scratch == NULL) {
        status = SP_ERR_NOMEM;
    }
    if (status == SP_ERR_NOMEM) {
        sp_error("cannot allocate sweep buffers of %zu bytes", bytes);
    }
    status = sp_ctx_agree(ctx, status);
    if (status != SP_OK) {
        sp_sweep_bufs_cleanup(ctx, bufs);
    }
    return status;
}

void sp_sweep_bufs_cleanup(sp_ctx_t *ctx, sp_sweep_bufs_t *bufs)
{
    const sp_backend_ops_t *ops = ctx->backend.ops;
    void *st = ctx->backend.state;
    sp_sweep_point_t *p = &bufs->point;

    sp__sweep_issue_close(ctx, bufs);
    sp__sweep_late_cleanup(bufs);
    free(p->wrong);
    free(p->rank_wrong);
    free(p->rank_times_us);
    free(p->samples);
    free(p->scratch);
    free(p->local_times_us);
    if (bufs->ev_end != NULL) {
        ops->event_destroy(st, bufs->ev_end);
    }
    if (bufs->ev_start != NULL) {
        ops->event_destroy(st, bufs->ev_start);
    }
    if (bufs->recv != NULL) {
        ops->mem_free(st, bufs->recv);
    }
    if (bufs->send != NULL) {
        ops->mem_free(st, bufs->send);
    }
    memset(bufs, 0, sizeof(*bufs));
}

/* Where input and output of args lie in the sweep buffers. */
typedef struct {
    void *send;      /* argument to coll_run */
    void *input;     /* this rank's input */
    void *output;    /* this rank's output */
    size_t region;   /* bytes of recv that the operation may touch */
} layout_t;

static void get_layout(const sp_coll_args_t *args, const sp_sweep_bufs_t *bufs, layout_t *l)
{
    size_t esize = sp_dtype_size(args->dtype);
    const sp_coll_counts_t *c = &args->counts;
    size_t n = c->send_count > c->recv_count ? c->send_count : c->recv_count;

    if (args->in_place) {
        l->input = (char *)bufs->recv + c->send_inplace_offset * (size_t)args->rank * esize;
        l->output = (char *)bufs->recv + c->recv_inplace_offset * (size_t)args->rank * esize;
        l->send = l->input;
        l->region = n * esize;
    } else {
        l->input = l->send = bufs->send;
        l->output = bufs->recv;
        l->region = c->recv_count * esize;
    }
}

/* Poison the output region and write the input: stale data can never pass verification. */
static sp_status_t prepare(sp_ctx_t *ctx, const sp_coll_op_t *op, const sp_sweep_bufs_t *bufs,
                           const layout_t *l)
{
    const sp_backend_ops_t *ops = ctx->backend.ops;
    sp_status_t status = ops->mem_poison(ctx->backend.state, bufs->recv, l->region);

    if (status == SP_OK) {
        status = ops->fill(ctx->backend.state, &op->input, l->input, op->args.counts.send_count);
    }
    return status;
}

/* Time k operations on this rank, in microseconds per operation. */
static sp_status_t time_batch(sp_ctx_t *ctx, const sp_comm_call_t *call, sp_sweep_bufs_t *bufs,
                              const layout_t *l, long k, double *us_p)
{
    const sp_backend_ops_t *ops = ctx->backend.ops;
    void *st = ctx->backend.state;
    sp_status_t status;
    uint64_t ns = 0;

    status = sp__sweep_issue_batch(ctx, bufs, call, l->send, k);
    if (status == SP_OK) {
        status = sp__sweep_issue_sync(ctx, bufs);
    }
    if (status == SP_OK) {
        status = ops->event_elapsed_ns(st, bufs->ev_start, bufs->ev_end, &ns);
    }
    *us_p = (double)ns / 1000.0 / (double)k;
    return status;
}


/* Agree on status after a phase of a point; when any rank failed, rank 0 names the operation,
 * size, phase and iteration, and the ranks that did not finish it (e.g. timed out waiting for a
 * peer that never came). */
static sp_status_t agree_point(sp_ctx_t *ctx, sp_status_t status, const sp_coll_args_t *args,
                               const char *phase, size_t iteration)
{
    sp_status_t agreed = sp_ctx_agree(ctx, status);
    int mine = (int)status;
    int *all = NULL;

    if (agreed == SP_OK) {
        return SP_OK;
    }
    if (ctx->rank == 0) {
        all = calloc((size_t)ctx->nranks, sizeof(*all));
    }
    MPI_Gather(&mine, 1, MPI_INT, all != NULL ? all : &mine, 1, MPI_INT, 0, ctx->world);
    if (all != NULL) {
        char list[256];
        size_t used = 0;
        int nfail = 0;
        list[0] = '\0';
        for (int r = 0; r < ctx->nranks; r++) {
            if (all[r] != SP_OK) {
                if (used < sizeof(list) - 48) {
                    used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%d(%s)",
                                             nfail ? " " : "", r, sp_status_name(all[r]));
                }
                nfail++;
            }
        }
        fprintf(stderr,
                "scaleprobe coll: error: %s %llu B %s %s, %s %zu: %d rank(s) did not finish: "
                "%s\n",
                sp_coll_names[args->kind], (unsigned long long)sp_coll_size_bytes(args),
                sp_dtype_name(args->dtype), args->in_place ? "in-place" : "out-of-place", phase,
                iteration, nfail, list);
        free(all);
    }
    return agreed;
}

sp_status_t sp__sweep_agree(sp_ctx_t *ctx, sp_status_t status, const sp_coll_args_t *args,
                            const char *phase, size_t iteration)
{
    return agree_point(ctx, status, args, phase, iteration);
}

/* The stopping rule of a point of opts at epsilon (runstop.h). */
static sp_stop_rule_t stop_rule(const sp_coll_opts_t *opts, double epsilon)
{
    const sp_stop_rule_t rule = {
        .fixed = (size_t)opts->iters,
        .min_samples = (size_t)opts->min_samples,
        .max_samples = (size_t)opts->max_samples,
        .max_time_s = opts->max_time,
        .epsilon = epsilon,
    };

    return rule;
}

/* The point's n sample times in time order, copied to the front of p->scratch; the rest of it
 * is the rule's scratch (sp_sweep_bufs_init sizes it). Returns that rest. */
static double *series_of(const sp_sweep_point_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        p->scratch[i] = p->samples[i].time_us;
    }
    return p->scratch + n;
}

/* Rank 0's stopping rule after n samples (runstop.h). converged_p says whether the CI target is
 * met; with fixed -n it is reported too, but does not stop the point. */
static int should_stop(const sp_coll_opts_t *opts, const sp_sweep_point_t *p, size_t n,
                       double elapsed_s, double epsilon, int *converged_p)
{
    const sp_stop_rule_t rule = stop_rule(opts, epsilon);
    double *rest = series_of(p, n);

    return sp_stop_rule_check(&rule, p->scratch, n, elapsed_s, rest, converged_p);
}

/* One point being measured on this rank. */
typedef struct {
    sp_ctx_t *ctx;
    const sp_coll_opts_t *opts;
    const sp_coll_op_t *op;
    sp_sweep_bufs_t *bufs;
    layout_t l;
    uint64_t t_start;
    long k;         /* operations per timed batch */
    size_t n;       /* samples taken */
    int converged;
    int64_t arrival_ns; /* start of this rank's current timed batch, its host clock */
} point_run_t;

static void beat(const point_run_t *pr, const char *phase)
{
    const sp_coll_args_t *args = &pr->op->args;

    sp_watchdog_beat(pr->ctx->watchdog, "%s %zu B: %s", sp_coll_names[args->kind],
                     (size_t)sp_coll_size_bytes(args), phase);
}

/* Untimed operations on freshly written input, then every rank agrees. */
static sp_status_t warm_up(point_run_t *pr)
{
    sp_ctx_t *ctx = pr->ctx;
    long warmup = sp_method_warmup(pr->opts, sp_coll_size_bytes(&pr->op->args));
    sp_status_t status;

    beat(pr, "warm-up");
    status = prepare(ctx, pr->op, pr->bufs, &pr->l);
    for (long i = 0; i < warmup && status == SP_OK; i++) {
        status = sp__sweep_issue_run(ctx, pr->bufs, &pr->op->call, pr->l.send);
        ctx->coll_seq++;
        sp_progress_tick(ctx->progress);
    }
    if (status == SP_OK) {
        status = sp__sweep_issue_sync(ctx, pr->bufs);
    }
    return agree_point(ctx, status, &pr->op->args, "warm-up of", (size_t)warmup);
}

/* Calibration: the median of SP_CALIBRATION_OPS single operations, max over ranks, decides k for
 * every sample of this point; with -k the operations are not run (their k would be discarded:
 * at 128 MiB on 2 ranks here, 5 all-reduces of about 2 s each per placement). */
static sp_status_t calibrate(point_run_t *pr)
{
    sp_ctx_t *ctx = pr->ctx;
    double us[SP_CALIBRATION_OPS];
    double mine;
    double max_us = 0.0;
    sp_status_t status = SP_OK;

    if (pr->opts->batch > 0) {
        pr->k = pr->opts->batch;
        /* the warm-up's in-place operations overwrote their input */
        return pr->op->args.in_place ? sp_ctx_agree(ctx, prepare(ctx, pr->op, pr->bufs, &pr->l))
                                     : SP_OK;
    }
    beat(pr, "calibration");
    MPI_Barrier(ctx->world);
    for (int i = 0; i < SP_CALIBRATION_OPS && status == SP_OK; i++) {
        status = time_batch(ctx, &pr->op->call, pr->bufs, &pr->l, 1, &us[i]);
        ctx->coll_seq++;
    }
    status = agree_point(ctx, status, &pr->op->args, "calibration", SP_CALIBRATION_OPS);
    if (status != SP_OK) {
        return status;
    }
    mine = sp_stats_median(us, SP_CALIBRATION_OPS, us);
    MPI_Allreduce(&mine, &max_us, 1, MPI_DOUBLE, MPI_MAX, ctx->world);
    pr->k = sp_sweep_batch_k(max_us, pr->opts->batch_us, pr->opts->min_batch);

    /* in-place operations overwrite their input: start the samples from fresh data */
    if (pr->op->args.in_place) {
        status = sp_ctx_agree(ctx, prepare(ctx, pr->op, pr->bufs, &pr->l));
    }
    return status;
}

/* One timed batch after a barrier, recorded in the timeline; this rank's time per operation. */
static sp_status_t time_sample(point_run_t *pr, double *us_p)
{
    sp_ctx_t *ctx = pr->ctx;
    const sp_coll_args_t *args = &pr->op->args;
    sp_sweep_bufs_t *bufs = pr->bufs;
    sp_event_rec_t ev;
    sp_status_t status;

    sp_watchdog_beat(ctx->watchdog, "%s %zu B: barrier before sample %zu",
                     sp_coll_names[args->kind], (size_t)sp_coll_size_bytes(args), pr->n + 1);
    MPI_Barrier(ctx->world);
    sp_event_init(&ev, ctx->rank, SP_EV_COLL);
    sp__method_test_delay(ctx, bufs, (int)args->kind);
    /* the event is the rank's own view on its host clock: when it started the batch (its
     * arrival) and when the batch was complete */
    sp_watchdog_beat(ctx->watchdog, "%s %zu B: sample %zu (a batch of %ld, collective %llu)",
                     sp_coll_names[args->kind], (size_t)sp_coll_size_bytes(args), pr->n + 1, pr->k,
                     (unsigned long long)ctx->coll_seq);
    ev.start_ns = (int64_t)sp_time_ns();
    pr->arrival_ns = ev.start_ns;
    status = time_batch(ctx, &pr->op->call, bufs, &pr->l, pr->k, us_p);
    ev.end_ns = (int64_t)sp_time_ns();
    ev.op = (int16_t)args->kind;
    ev.dtype = (int16_t)args->dtype;
    ev.step = (int32_t)pr->n;
    ev.nops = (int32_t)pr->k;
    ev.bytes = sp_coll_size_bytes(args);
    ev.seq = ctx->coll_seq;
    ctx->coll_seq += (uint64_t)pr->k;
    sp_timeline_record(&ctx->timeline, &ev);
    return status;
}

/* Samples until rank 0's stopping rule says stop; then every rank's own median to rank 0. */
static sp_status_t sample(point_run_t *pr)
{
    sp_ctx_t *ctx = pr->ctx;
    const sp_coll_opts_t *opts = pr->opts;
    const sp_coll_args_t *args = &pr->op->args;
    sp_sweep_bufs_t *bufs = pr->bufs;
    sp_sweep_point_t *p = &bufs->point;
    double epsilon = sp_coll_epsilon(opts, sp_coll_size_bytes(args));
    uint64_t t_start = pr->t_start;
    size_t n = 0;
    int stop = 0;
    sp_status_t status;

    if (ctx->rank == 0) {
        sp_late_reset(&p->late);
    }
    while (!stop) {
        struct sp_sweep_arrival mine;
        double us = 0.0;

        pr->n = n;
        status = time_sample(pr, &us);
        /* outside the timed region from here on */
        status = agree_point(ctx, status, args, "sample", n + 1);
        if (status != SP_OK) {
            return status;
        }
        p->local_times_us[n] = us;
        mine.us = us;
        mine.arrival_ns = sp_clock_to_global(&ctx->clock,
                                             sp_clock_local(&ctx->clock, pr->arrival_ns));
        MPI_Gather(&mine, 1, bufs->arrival_type, p->gathered, 1, bufs->arrival_type, 0,
                   ctx->world);
        if (ctx->rank == 0) {
            sp__sweep_late_record(ctx, p, n, pr->k);
        }
        n++;
        if (ctx->rank == 0) {
            stop = should_stop(opts, p, n, (double)(sp_time_ns() - t_start) * 1e-9, epsilon,
                               &pr->converged);
            stop = stop || n >= bufs->max_samples;
            sp_progress_tick(ctx->progress);
        }
        status = sp_runstop_agree(ctx->world, SP_OK, SP_RUNSTOP_RANK0, stop, &stop);
        if (status != SP_OK) {
            return status; /* a signal: the point is abandoned, nothing of it is written */
        }
    }
    pr->n = n;

    /* every rank's own median time, for per-rank analysis */
    {
        double my_median = sp_stats_median(p->local_times_us, n, p->scratch);
        MPI_Gather(&my_median, 1, MPI_DOUBLE, p->rank_times_us, 1, MPI_DOUBLE, 0, ctx->world);
    }
    return SP_OK;
}

/* Verification on the buffers of the timed operations: out-of-place the last batch's output
 * (its input never changes); in-place one more operation on freshly written input. Rank 0 gets
 * the wrong counts of every rank. */
static sp_status_t verify(point_run_t *pr)
{
    sp_ctx_t *ctx = pr->ctx;
    const sp_backend_ops_t *ops = ctx->backend.ops;
    void *st = ctx->backend.state;
    const sp_coll_op_t *op = pr->op;
    const sp_coll_args_t *args = &op->args;
    sp_sweep_point_t *p = &pr->bufs->point;
    sp_coll_row_t *row = &p->row;
    uint64_t wrong_local = 0;
    sp_status_t status = SP_OK;

    row->wrong = -1;
    beat(pr, "verification");
    if (pr->opts->no_check) {
        return SP_OK;
    }
    if (args->in_place) {
        status = prepare(ctx, op, pr->bufs, &pr->l);
        if (status == SP_OK) {
            status = sp__sweep_issue_run(ctx, pr->bufs, &op->call, pr->l.send);
            ctx->coll_seq++;
        }
        if (status == SP_OK) {
            status = sp__sweep_issue_sync(ctx, pr->bufs);
        }
    }
    if (status == SP_OK && ctx->rank == sp__sweep_corrupt_rank_from_env() && op->coll->has_output(args) &&
        args->counts.recv_count > 0) {
        status = ops->mem_poison(st, pr->l.output, sp_dtype_size(args->dtype));
    }
    if (status == SP_OK) {
        status = ops->check(st, op->spans, op->nspans, pr->l.output, &wrong_local);
    }
    status = agree_point(ctx, status, args, "verification", 1);
    if (status != SP_OK) {
        return status;
    }
    MPI_Gather(&wrong_local, 1, MPI_UINT64_T, p->rank_wrong, 1, MPI_UINT64_T, 0, ctx->world);
    if (ctx->rank == 0) {
        row->wrong = 0;
        for (int r = 0; r < ctx->nranks; r++) {
            if (p->rank_wrong[r] > 0) {
                p->wrong[p->nwrong].rank = r;
                p->wrong[p->nwrong].wrong = p->rank_wrong[r];
                p->nwrong++;
                row->wrong += (int64_t)p->rank_wrong[r];
            }
        }
        row->wrong_ranks = (int32_t)p->nwrong;
    }
    return SP_OK;
}

/* The late rank by arrival (named only when the sign test says the lateness is beyond the clock
 * bound), and separately the rank with the highest own median, which in a synchronizing
 * collective is a victim of the late rank rather than the culprit. */
static void find_slowest(const sp_ctx_t *ctx, sp_sweep_point_t *p)
{
    int slowest = 0;
    double typical;
    sp_late_t late;

    sp_late_result(&p->late, &late);
    p->row.late_rank = late.significant ? late.rank : -1;
    p->row.late_margin_us = late.margin_us;
    p->row.late_p = late.p;

    for (int r = 1; r < ctx->nranks; r++) {
        if (p->rank_times_us[r] > p->rank_times_us[slowest]) {
            slowest = r;
        }
    }
    typical = sp_stats_median(p->rank_times_us, (size_t)ctx->nranks, p->scratch);
    p->row.slowest_rank = slowest;
    p->row.slowest_margin = typical > 0.0 ? p->rank_times_us[slowest] / typical - 1.0 : 0.0;
}

/* Rank 0: the row of the point from its samples. */
static void fill_row(const point_run_t *pr)
{
    const sp_coll_t *coll = pr->op->coll;
    const sp_coll_args_t *args = &pr->op->args;
    sp_sweep_point_t *p = &pr->bufs->point;
    sp_coll_row_t *row = &p->row;
    size_t n = pr->n;
    const sp_stop_rule_t rule =
        stop_rule(pr->opts, sp_coll_epsilon(pr->opts, sp_coll_size_bytes(args)));
    double *rest;
    sp_seqstats_t q;
    sp_summary_t s;

    row->op = (int8_t)args->kind;
    row->dtype = (int8_t)args->dtype;
    row->redop = (int8_t)(coll->has_redop ? (int)args->redop : SP_REDOP_NONE);
    row->in_place = (int8_t)args->in_place;
    row->root = coll->has_root ? args->root : -1;
    row->bytes = sp_coll_size_bytes(args);
    row->count = args->counts.param_count;
    row->samples = (uint32_t)n;
    row->batch = (uint32_t)pr->k;
    /* the same statistics the rule stopped on (the samples are the same) */
    rest = series_of(p, n);
    sp_stop_rule_stats(&rule, p->scratch, n, rest, &q);
    sp_stats_summarize(p->scratch, n, p->scratch, &s);
    sp_coll_row_set_stats(row, &s, &q, pr->converged);
    sp_coll_bandwidth(coll, args, row->time_us, &row->algbw_gbps, &row->busbw_gbps);
    find_slowest(pr->ctx, p);
    row->elapsed_s = (double)(sp_time_ns() - pr->t_start) * 1e-9;
}

/* A peer method's fixed-count samples in place of calibration and the stopping rule
 * (method_run.h); `converged` is reported as for a fixed -n. */
static sp_status_t sample_peer(point_run_t *pr, const sp_method_ops_t *m, sp_method_point_t *mp)
{
    sp_status_t status;

    memset(mp, 0, sizeof(*mp));
    mp->ctx = pr->ctx;
    mp->opts = pr->opts;
    mp->op = pr->op;
    mp->bufs = pr->bufs;
    mp->send = pr->l.send;
    mp->iters = sp_method_iters(pr->opts, sp_coll_size_bytes(&pr->op->args));
    status = m->sample(mp);
    pr->k = mp->batch;
    pr->n = mp->n;
    if (status == SP_OK && pr->ctx->rank == 0) {
        double epsilon = sp_coll_epsilon(pr->opts, sp_coll_size_bytes(&pr->op->args));
        (void)should_stop(pr->opts, &pr->bufs->point, pr->n, 0.0, epsilon, &pr->converged);
    }
    return status;
}

static sp_status_t measure_op(sp_ctx_t *ctx, const sp_coll_opts_t *opts, const sp_coll_op_t *op,
                              sp_sweep_bufs_t *bufs)
{
    const sp_method_ops_t *method = sp_method_ops(opts->method);
    sp_method_point_t mp;
    point_run_t pr;
    sp_status_t status;

    memset(&pr, 0, sizeof(pr));
    pr.ctx = ctx;
    pr.opts = opts;
    pr.op = op;
    pr.bufs = bufs;
    pr.t_start = sp_time_ns();
    get_layout(&op->args, bufs, &pr.l);
    memset(&bufs->point.row, 0, sizeof(bufs->point.row));
    bufs->point.nwrong = 0;

    status = sp__sweep_issue_open(ctx, opts, bufs);
    if (status == SP_OK) {
        status = warm_up(&pr);
    }
    if (status == SP_OK && method != NULL) {
        status = sample_peer(&pr, method, &mp);
    } else if (status == SP_OK) {
        status = calibrate(&pr);
        if (status == SP_OK) {
            status = sample(&pr);
        }
    }
    if (status == SP_OK) {
        status = verify(&pr);
    }
    if (status == SP_OK && ctx->rank == 0) {
        fill_row(&pr);
        if (method != NULL) {
            method->report(&mp, &bufs->point.row);
        } else if (opts->average_given) {
            /* -a: nccl-tests' figure over ranks, of every rank's own median; the CI and the
             * other statistics stay those of the per-sample max (docs/METHODOLOGY.md) */
            sp_coll_row_t *row = &bufs->point.row;
            row->time_us = sp_method_over_ranks(bufs->point.rank_times_us, ctx->nranks,
                                                (sp_over_ranks_t)opts->average);
            sp_coll_bandwidth(op->coll, &op->args, row->time_us, &row->algbw_gbps,
                              &row->busbw_gbps);
        }
    }
    return status;
}

sp_status_t sp_sweep_measure(sp_ctx_t *ctx, const sp_coll_opts_t *opts, const sp_coll_t *coll,
                             const sp_coll_args_t *args, sp_sweep_bufs_t *bufs)
{
    sp_coll_op_t op;
    sp_status_t built;
    sp_status_t status;

    (void)coll; /* args->kind names it */
    built = sp_coll_op_init(&op, args);
    status = sp_ctx_agree(ctx, built);
    if (status == SP_OK) {
        status = measure_op(ctx, opts, &op, bufs);
    }
    if (built == SP_OK) {
        sp_coll_op_cleanup(&op);
    }
    return status;
}

void sp__sweep_print_wrong(const sp_ctx_t *ctx, const sp_coll_row_t *row,
                           const sp_sweep_point_t *p)
{
    char list[512];
    size_t used = 0;

    list[0] = '\0';
    for (size_t i = 0; i < p->nwrong && used < sizeof(list) - 32; i++) {
        int r = p->wrong[i].rank;
        used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%d(%s):%llu",
                                 i ? " " : "", r, ctx->topo.ranks[r].host,
                                 (unsigned long long)p->wrong[i].wrong);
    }
    fprintf(stdout, "# WRONG DATA: %s %s %s %s: %lld wrong elements on %d rank(s): %s\n",
            sp_coll_names[row->op], sp_dtype_name((sp_dtype_t)row->dtype),
            row->redop < 0 ? "none" : sp_redop_name((sp_redop_t)row->redop),
            row->in_place ? "in-place" : "out-of-place", (long long)row->wrong,
            (int)row->wrong_ranks, list);
}

sp_status_t sp__sweep_point(sp_ctx_t *ctx, const sp_coll_opts_t *opts, const sp_coll_t *coll,
                            sp_coll_args_t *args, sp_sweep_bufs_t *bufs, sp_coll_row_t *row_p)
{
    char name[128];
    sp_status_t status;

    /* a named range per point, so Nsight Systems shows the sweep's structure */
    snprintf(name, sizeof(name), "%s %llu B %s %s%s", coll->name,
             (unsigned long long)sp_coll_size_bytes(args), sp_dtype_name(args->dtype),
             coll->has_redop ? sp_redop_name(args->redop) : "", args->in_place ? " in-place" : "");
    /* a signal anywhere stops the sweep before the next point (the ranks agree) */
    if (sp_runstop_signal(ctx->world) != 0) {
        return SP_ERR_INTERRUPTED;
    }
    ctx->backend.ops->range_push(ctx->backend.state, name);
    status = sp_sweep_measure(ctx, opts, coll, args, bufs);
    ctx->backend.ops->range_pop(ctx->backend.state);

    if (status != SP_OK) {
        return status;
    }
    if (ctx->rank == 0) {
        sp_sweep_point_t *p = &bufs->point;
        if (ctx->result != NULL) {
            status = sp_coll_result_append(ctx->result, &p->row, p->samples, p->rank_times_us,
                                           ctx->nranks, p->wrong, p->nwrong);
        }
        *row_p = p->row;
    }
    return sp_ctx_agree(ctx, status);
}
