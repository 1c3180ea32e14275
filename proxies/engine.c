/* The proxy engine: a program's tasks on one stream per lane. Each task enqueues, on its lane's
 * stream, a wait for every dependency on another lane, a start record, the task and an end
 * record; the host thread only enqueues, the streams run concurrently. The lane feeder
 * (lanefeed.h) bounds what is in flight (--max-inflight), so the thread never blocks in a full
 * stream queue while a peer waits for a task it has not enqueued on another lane. */
#include "engine.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "context.h"
#include "intervals.h"
#include "lanefeed.h"
#include "log.h"
#include "replay.h"
#include "stepmetrics.h"
#include "timeutil.h"
#include "watchdog.h"

/* The poll of a wait for room: from 10 us, doubling to 1 ms while nothing completes (a full
 * lane of short collectives drains in tens of microseconds); once every task is enqueued, the
 * wait for the rest polls every 5 ms (it only feeds the watchdog and the deadline). */
#define IDLE_FIRST_NS 10000L
#define IDLE_MAX_NS 1000000L
#define IDLE_DRAIN_NS 5000000L

struct sp_engine {
    const sp_backend_t *be;
    sp_engine_comms_t comms;
    sp_program_config_t cfg;
    sp_program_t prog;
    int rank, world, stage, dp_rank, tp_rank;
    uint64_t max_tasks;     /* over all ranks: sizes the timeline's seq space */
    sp_event_t **ev;        /* 2 per task (start, end), then the reference */
    sp_stream_t *lane[SP_LANE_COUNT];
    void *send_buf[SP_LANE_COUNT];
    void *recv_buf[SP_LANE_COUNT];
    sp_interval_t *iv;      /* per task, ns from the reference */
    sp_interval_t *scratch; /* 3 (n tasks + 1): sp_step_metrics */
    int64_t ref_host_ns;
    sp_watchdog_t *wd;      /* shown each completed task (sp_engine_set_watchdog); NULL: none */
    sp_gemm_t *gemms;       /* --compute gemm: every compute task's list, one after another */
    size_t *gemm_at;        /* per task: its list's first entry in gemms, n + 1 entries */
    sp_lanefeed_t *feed;    /* the bounded enqueue of a step's tasks */
    int max_inflight;       /* per lane (sp_engine_set_inflight) */
    double timeout_s;       /* a wait with no task completing; <= 0: none */
    int64_t progress_ns;    /* during a step: when a task last completed (or the step began) */
    size_t compute_at;      /* during a step: the first compute task not seen complete */
};

static int lane_used(const sp_engine_t *e, int lane)
{
    switch (sp_lane_class(lane)) {
    case SP_LANE_CLASS_TP:
        return e->cfg.tp > 1;
    case SP_LANE_CLASS_DP:
        /* the embedding group's lane on every rank when the layout has the group (a stage
         * between first and last creates it on its own communicator and leaves it idle) */
        return lane == SP_LANE_EMB ? sp_program_embedding_group(&e->cfg, 0) >= 0
                                   : e->cfg.dp > 1;
    case SP_LANE_CLASS_PP:
        /* the PP group creates them together: the colours of the placement, the same on all */
        return sp_lane_pp_colour(lane) < sp_program_pp_colours(&e->cfg);
    default:
        return 1; /* compute */
    }
}

static MPI_Comm lane_comm(const sp_engine_t *e, int lane)
{
    switch (sp_lane_group(lane)) {
    case SP_GROUP_TP:
        return e->comms.tp;
    case SP_GROUP_PP:
        return e->comms.pp;
    case SP_GROUP_DP:
        return e->comms.dp;
    case SP_GROUP_EMB:
        return e->comms.emb;
    default:
        return MPI_COMM_SELF; /* the compute lane communicates with nobody */
    }
}

static sp_status_t create_streams(sp_engine_t *e)
{
    sp_status_t st = SP_OK;

    /* the same lanes in the same order on every rank: each creation is collective over its
     * group, and every member of a group uses the same lanes */
    for (int l = 0; l < SP_LANE_COUNT && st == SP_OK; l++) {
        if (lane_used(e, l)) {
            /* agreed over the world: a group that failed must not leave the others waiting in
             * the next lane's creation for its members */
            st = sp_agree(e->comms.world,
                          e->be->ops->stream_create(e->be->state, lane_comm(e, l), &e->lane[l]));
        }
    }
    return st;
}

static sp_status_t check_program(const sp_engine_t *e)
{
    if (e->be->ops->event_query == NULL) {
        sp_error("proxy: the %s backend cannot query events, which the bounded enqueue needs",
                 e->be->ops->name);
        return SP_ERR_UNSUPPORTED;
    }
    for (size_t i = 0; i < e->prog.n; i++) {
        int l = e->prog.tasks[i].lane;
        if (e->lane[l] == NULL && !lane_used(e, l)) {
            sp_error("proxy: program uses lane %d without its group", l);
            return SP_ERR_INVALID;
        }
    }
    return SP_OK;
}

static int describe_task(void *ctx, size_t i, const int32_t **deps_p, int *ndeps_p)
{
    const sp_task_t *t = &((const sp_engine_t *)ctx)->prog.tasks[i];

    *deps_p = t->deps;
    *ndeps_p = t->ndeps;
    return t->lane;
}

int sp_engine_inflight_total(int max_inflight)
{
    int total = SP_ENGINE_INFLIGHT_TOTAL_FACTOR * max_inflight;

    return total > SP_LANE_COUNT ? total : SP_LANE_COUNT;
}

/* (Re)make the feeder for the current limit: SP_ERR_NOMEM only (the total covers every lane). */
static sp_status_t create_feed(sp_engine_t *e)
{
    sp_lanefeed_limits_t lim = {e->max_inflight, sp_engine_inflight_total(e->max_inflight)};

    sp_lanefeed_destroy(e->feed);
    e->feed = NULL;
    return sp_lanefeed_create(e->prog.n, SP_LANE_COUNT, &lim, describe_task, e, &e->feed);
}

static sp_status_t create_buffers(sp_engine_t *e)
{
    const sp_backend_ops_t *o = e->be->ops;
    size_t n_ev = 2 * e->prog.n + 1;
    size_t need[SP_LANE_COUNT] = {0};
    sp_status_t st = SP_OK;

    e->ev = calloc(n_ev, sizeof(*e->ev));
    e->iv = calloc(e->prog.n + 1, sizeof(*e->iv));
    e->scratch = calloc(3 * e->prog.n + 3, sizeof(*e->scratch));
    if (e->ev == NULL || e->iv == NULL || e->scratch == NULL) {
        return SP_ERR_NOMEM;
    }
    for (size_t i = 0; i < e->prog.n; i++) {
        const sp_task_t *t = &e->prog.tasks[i];
        need[t->lane] = t->bytes > need[t->lane] ? t->bytes : need[t->lane];
    }
    for (int l = 0; l < SP_LANE_COUNT && st == SP_OK; l++) {
        if (l == SP_LANE_COMPUTE || !lane_used(e, l)) {
            continue;
        }
        st = o->mem_alloc(e->be->state, need[l] > 0 ? need[l] : 1, &e->send_buf[l]);
        if (st == SP_OK) {
            st = o->mem_alloc(e->be->state, need[l] > 0 ? need[l] : 1, &e->recv_buf[l]);
        }
    }
    for (size_t i = 0; i < n_ev && st == SP_OK; i++) {
        st = o->event_create(e->be->state, &e->ev[i]);
    }
    return st;
}

sp_status_t sp_engine_create(const sp_backend_t *be, const sp_engine_comms_t *comms,
                             const sp_program_config_t *cfg, sp_engine_t **eng_p)
{
    sp_engine_t *e = calloc(1, sizeof(*e));
    uint64_t n;
    sp_status_t st;

    if (e == NULL) {
        return sp_agree(comms->world, SP_ERR_NOMEM);
    }
    e->be = be;
    e->comms = *comms;
    e->cfg = *cfg;
    MPI_Comm_rank(comms->world, &e->rank);
    MPI_Comm_size(comms->world, &e->world);
    MPI_Comm_rank(comms->pp, &e->stage);
    MPI_Comm_rank(comms->dp, &e->dp_rank);
    MPI_Comm_rank(comms->tp, &e->tp_rank);
    e->cfg.stage = e->stage;
    st = sp_agree(comms->world, sp_program_build(&e->cfg, &e->prog));
    n = e->prog.n;
    MPI_Allreduce(&n, &e->max_tasks, 1, MPI_UINT64_T, MPI_MAX, comms->world);
    if (st == SP_OK) {
        st = sp_agree(comms->world, create_buffers(e));
    }
    if (st == SP_OK) {
        st = sp_agree(comms->world, create_streams(e));
    }
    if (st == SP_OK) {
        st = sp_agree(comms->world, check_program(e));
    }
    if (st == SP_OK) {
        e->max_inflight = SP_ENGINE_INFLIGHT_DEFAULT;
        st = sp_agree(comms->world, create_feed(e));
    }
    if (st != SP_OK) {
        sp_engine_destroy(e);
        return st;
    }
    *eng_p = e;
    return SP_OK;
}

void sp_engine_destroy(sp_engine_t *eng)
{
    const sp_backend_ops_t *o;

    if (eng == NULL) {
        return;
    }
    o = eng->be->ops;
    for (int l = SP_LANE_COUNT - 1; l >= 0; l--) { /* the same order on every rank */
        if (eng->lane[l] != NULL) {
            o->stream_destroy(eng->be->state, eng->lane[l]);
        }
        if (eng->send_buf[l] != NULL) {
            o->mem_free(eng->be->state, eng->send_buf[l]);
        }
        if (eng->recv_buf[l] != NULL) {
            o->mem_free(eng->be->state, eng->recv_buf[l]);
        }
    }
    if (eng->ev != NULL) {
        for (size_t i = 0; i < 2 * eng->prog.n + 1; i++) {
            if (eng->ev[i] != NULL) {
                o->event_destroy(eng->be->state, eng->ev[i]);
            }
        }
    }
    sp_lanefeed_destroy(eng->feed);
    sp_program_free(&eng->prog);
    free(eng->gemms);
    free(eng->gemm_at);
    free(eng->scratch);
    free(eng->iv);
    free(eng->ev);
    free(eng);
}

/* The GEMM list of every compute task from its parts: one entry per GEMM of each part it holds,
 * count = how many of that part. Fills e->gemms and e->gemm_at. */
static sp_status_t build_gemm_lists(sp_engine_t *e, const sp_gemm_plan_t *plan)
{
    size_t total = 0;

    for (size_t i = 0; i < e->prog.n; i++) {
        for (int p = 0; p < SP_PART_COUNT; p++) {
            total += e->prog.tasks[i].parts[p] > 0 ? (size_t)plan->n[p] : 0;
        }
    }
    e->gemms = calloc(total > 0 ? total : 1, sizeof(*e->gemms));
    e->gemm_at = calloc(e->prog.n + 1, sizeof(*e->gemm_at));
    if (e->gemms == NULL || e->gemm_at == NULL) {
        return SP_ERR_NOMEM;
    }
    total = 0;
    for (size_t i = 0; i < e->prog.n; i++) {
        const sp_task_t *t = &e->prog.tasks[i];
        e->gemm_at[i] = total;
        for (int p = 0; p < SP_PART_COUNT && t->kind == SP_TASK_COMPUTE; p++) {
            for (int g = 0; g < plan->n[p] && t->parts[p] > 0; g++) {
                e->gemms[total] = plan->gemm[p][g];
                e->gemms[total++].count = (int64_t)t->parts[p];
            }
        }
    }
    e->gemm_at[e->prog.n] = total;
    return SP_OK;
}

#define CALIB_RUNS 3
#define CALIB_MIN_NS 200000000LL

/* This rank's GEMM rate (FLOP/ns) on one layer's GEMMs of every part but the logits. */
static sp_status_t calibrate(sp_engine_t *e, const sp_gemm_plan_t *plan, double *rate_p)
{
    const sp_backend_ops_t *o = e->be->ops;
    sp_gemm_t layer[SP_PART_COUNT * SP_PART_MAX_GEMMS];
    sp_stream_t *s = e->lane[SP_LANE_COMPUTE];
    size_t n = 0;
    double flops = 0.0, ns = 0.0;
    int timed = 0;
    sp_status_t st = SP_OK;

    for (int p = SP_PART_ATTN_FWD; p <= SP_PART_MLP_WGRAD; p++) {
        for (int g = 0; g < plan->n[p]; g++) {
            layer[n] = plan->gemm[p][g];
            flops += sp_gemm_flops(&layer[n++]);
        }
    }
    /* the first run warms the library and the caches; then until CALIB_RUNS or CALIB_MIN_NS */
    for (int run = 0; st == SP_OK && timed < CALIB_RUNS && !(timed > 0 && ns >= CALIB_MIN_NS);
         run++) {
        uint64_t dt = 0;
        st = o->stream_record(e->be->state, s, e->ev[0]);
        if (st == SP_OK) {
            st = o->stream_gemm(e->be->state, s, layer, n);
        }
        if (st == SP_OK) {
            st = o->stream_record(e->be->state, s, e->ev[1]);
        }
        if (st == SP_OK) {
            st = o->stream_sync(e->be->state, s);
        }
        if (st == SP_OK) {
            st = o->event_elapsed_ns(e->be->state, e->ev[0], e->ev[1], &dt);
        }
        if (run > 0) {
            ns += (double)dt;
            timed++;
        }
    }
    *rate_p = ns > 0.0 ? flops * (double)timed / ns : 0.0;
    return st;
}

sp_status_t sp_engine_set_gemm(sp_engine_t *eng, const sp_gemm_plan_t *plan, int threads,
                               char *desc, size_t desclen, double *tflops_p)
{
    sp_gemm_t shapes[SP_PART_COUNT * SP_PART_MAX_GEMMS];
    size_t n = 0;
    double rate = 0.0, sum = 0.0;
    int who, first;
    sp_status_t st;

    for (int p = 0; p < SP_PART_COUNT; p++) {
        for (int g = 0; g < plan->n[p]; g++) {
            shapes[n++] = plan->gemm[p][g];
        }
    }
    st = eng->be->ops->gemm_setup(eng->be->state, shapes, n, eng->cfg.dtype, threads, desc,
                                  desclen);
    if (st == SP_OK) {
        st = build_gemm_lists(eng, plan);
    }
    who = st != SP_OK ? eng->rank : INT_MAX;
    MPI_Allreduce(&who, &first, 1, MPI_INT, MPI_MIN, eng->comms.world);
    if (first == eng->rank) { /* one message: the lowest rank that failed */
        sp_error("proxy --compute gemm: %s", st == SP_ERR_NOMEM && desc[0] == '\0'
                                                 ? "out of memory" : desc);
    }
    st = sp_agree(eng->comms.world, st);
    if (st == SP_OK) {
        st = sp_agree(eng->comms.world, calibrate(eng, plan, &rate));
    }
    if (st != SP_OK) {
        free(eng->gemms);
        eng->gemms = NULL;
        return st;
    }
    MPI_Allreduce(&rate, &sum, 1, MPI_DOUBLE, MPI_SUM, eng->comms.world);
    rate = sum / eng->world;
    if (!(rate > 0.0)) { /* the same sum on every rank */
        snprintf(desc, desclen, "the GEMM calibration measured no time");
        if (eng->rank == 0) {
            sp_error("proxy --compute gemm: %s", desc);
        }
        return SP_ERR_DEVICE;
    }
    eng->cfg.flops_per_ns = rate;
    for (size_t i = 0; i < eng->prog.n; i++) {
        sp_task_t *t = &eng->prog.tasks[i];
        if (t->kind == SP_TASK_COMPUTE) {
            t->dur_ns = (uint64_t)llround(t->flops / rate);
        }
    }
    *tflops_p = rate / 1e3;
    return SP_OK;
}

const sp_program_t *sp_engine_program(const sp_engine_t *eng)
{
    return &eng->prog;
}

static sp_status_t enqueue_coll(sp_engine_t *e, const sp_task_t *t, sp_stream_t *s)
{
    int tp = sp_lane_group(t->lane) == SP_GROUP_TP;
    sp_coll_args_t a;
    sp_comm_call_t call;
    sp_status_t st;

    memset(&a, 0, sizeof(a));
    a.kind = (sp_coll_kind_t)t->coll;
    a.rank = tp ? e->tp_rank : e->dp_rank;
    a.nranks = tp ? e->cfg.tp : e->cfg.dp;
    a.dtype = (sp_dtype_t)t->dtype;
    a.redop = SP_REDOP_SUM;
    sp_coll_get(a.kind)->get_counts(t->count, sp_dtype_size(a.dtype), a.nranks, &a.counts);
    st = sp_coll_call(&a, &call);
    if (st != SP_OK) {
        return st;
    }
    return e->be->ops->stream_coll(e->be->state, s, &call, e->send_buf[t->lane],
                                   e->recv_buf[t->lane]);
}

static sp_status_t enqueue_task(sp_engine_t *e, size_t i)
{
    const sp_backend_ops_t *o = e->be->ops;
    void *bs = e->be->state;
    const sp_task_t *t = &e->prog.tasks[i];
    sp_stream_t *s = e->lane[t->lane];
    sp_status_t st = SP_OK;

    for (int d = 0; d < t->ndeps && st == SP_OK; d++) {
        if (e->prog.tasks[t->deps[d]].lane != t->lane) {
            st = o->stream_wait(bs, s, e->ev[2 * (size_t)t->deps[d] + 1]);
        }
    }
    if (st == SP_OK) {
        st = o->stream_record(bs, s, e->ev[2 * i]);
    }
    if (st == SP_OK) {
        switch (t->kind) {
        case SP_TASK_COMPUTE:
            st = e->gemms != NULL
                     ? o->stream_gemm(bs, s, e->gemms + e->gemm_at[i],
                                      e->gemm_at[i + 1] - e->gemm_at[i])
                     : o->stream_compute(bs, s, t->dur_ns);
            break;
        case SP_TASK_COLL:
            st = enqueue_coll(e, t, s);
            break;
        case SP_TASK_SEND:
            st = o->stream_send(bs, s, e->send_buf[t->lane], t->bytes, t->peer, t->tag);
            break;
        default:
            st = o->stream_recv(bs, s, e->recv_buf[t->lane], t->bytes, t->peer, t->tag);
            break;
        }
    }
    if (st == SP_OK) {
        st = o->stream_record(bs, s, e->ev[2 * i + 1]);
    }
    return st;
}

static sp_status_t sync_streams(sp_engine_t *e)
{
    sp_status_t st = SP_OK;

    for (int l = 0; l < SP_LANE_COUNT; l++) {
        if (e->lane[l] != NULL) {
            sp_status_t s = e->be->ops->stream_sync(e->be->state, e->lane[l]);
            st = st != SP_OK ? st : s;
        }
    }
    return st;
}

static sp_status_t read_intervals(sp_engine_t *e)
{
    sp_event_t *ref = e->ev[2 * e->prog.n];

    for (size_t i = 0; i < e->prog.n; i++) {
        uint64_t a = 0, b = 0;
        sp_status_t st = e->be->ops->event_elapsed_ns(e->be->state, ref, e->ev[2 * i], &a);
        if (st == SP_OK) {
            st = e->be->ops->event_elapsed_ns(e->be->state, ref, e->ev[2 * i + 1], &b);
        }
        if (st != SP_OK) {
            return st;
        }
        e->iv[i].start_ns = (int64_t)a;
        e->iv[i].end_ns = (int64_t)b;
    }
    return SP_OK;
}

/* The predicted length (s) of the compute task running now, 0 when none runs: the first compute
 * task not seen complete, once enqueued (its events hold the last step's records before) and its
 * start recorded. */
static double running_compute_s(const sp_engine_t *e)
{
    size_t at = e->compute_at;
    int started = 0;

    if (at >= e->prog.n || !sp_lanefeed_enqueued(e->feed, at) ||
        e->be->ops->event_query(e->be->state, e->ev[2 * at], &started) != SP_OK || !started) {
        return 0.0;
    }
    return (double)e->prog.tasks[at].dur_ns / 1e9;
}

/* The first compute task at or after i; n when none. */
static size_t next_compute(const sp_engine_t *e, size_t i)
{
    while (i < e->prog.n && e->prog.tasks[i].lane != SP_LANE_COMPUTE) {
        i++;
    }
    return i;
}

static sp_status_t feed_enqueue(void *ctx, size_t i)
{
    return enqueue_task(ctx, i);
}

/* A completed task is progress: for the watchdog (so a step longer than --timeout runs on
 * while a stalled rank is still caught) and for the engine's own deadline. */
static sp_status_t feed_query(void *ctx, size_t i, int *done_p)
{
    sp_engine_t *e = ctx;
    sp_status_t st = e->be->ops->event_query(e->be->state, e->ev[2 * i + 1], done_p);

    if (st == SP_OK && *done_p) {
        e->progress_ns = (int64_t)sp_time_ns();
        sp_watchdog_alive(e->wd);
        if (e->prog.tasks[i].lane == SP_LANE_COMPUTE) {
            e->compute_at = next_compute(e, i + 1);
        }
    }
    return st;
}

/* Nothing completed and nothing could be enqueued: wait a little. While a compute task runs the
 * watchdog is told its predicted length (sp_watchdog_expect), and the engine's deadline follows
 * the same rule: no task completing for max(--timeout, factor x predicted + margin) is a hang
 * (a peer behind), reported here while every lane is still only polled, never waited on. */
static sp_status_t feed_idle(void *ctx, unsigned rounds)
{
    sp_engine_t *e = ctx;
    double predicted = running_compute_s(e);
    double limit = SP_WATCHDOG_PREDICT_FACTOR * predicted + SP_WATCHDOG_PREDICT_MARGIN_S;
    long ns = rounds >= 8 ? IDLE_MAX_NS : IDLE_FIRST_NS << (rounds - 1);
    struct timespec ts = {0, sp_lanefeed_unqueued(e->feed) == 0 ? IDLE_DRAIN_NS
                             : ns < IDLE_MAX_NS ? ns : IDLE_MAX_NS};
    double quiet_s = (double)((int64_t)sp_time_ns() - e->progress_ns) / 1e9;

    sp_watchdog_expect(e->wd, predicted);
    limit = predicted > 0.0 && limit > e->timeout_s ? limit : e->timeout_s;
    if (e->timeout_s > 0.0 && quiet_s > limit) {
        int busy = 0;
        for (int l = 0; l < SP_LANE_COUNT; l++) {
            busy += sp_lanefeed_inflight(e->feed, l) > 0;
        }
        sp_error("proxy: rank %d: no task completed for %.1f s (--timeout %.1f s) with tasks in "
                 "flight on %d lanes; a peer has not reached the matching operation",
                 e->rank, quiet_s, e->timeout_s, busy);
        return SP_ERR_TIMEOUT;
    }
    nanosleep(&ts, NULL);
    return SP_OK;
}

void sp_engine_set_watchdog(sp_engine_t *eng, sp_watchdog_t *wd)
{
    eng->wd = wd;
}

sp_status_t sp_engine_set_inflight(sp_engine_t *eng, int max_inflight, double timeout_s)
{
    eng->timeout_s = timeout_s;
    if (max_inflight == eng->max_inflight) {
        return SP_OK;
    }
    eng->max_inflight = max_inflight;
    return create_feed(eng);
}

void sp_engine_inflight_stats(const sp_engine_t *eng, int *peak_lane_p, int *peak_total_p,
                              uint64_t *held_p)
{
    sp_lanefeed_stats_t s;

    sp_lanefeed_stats(eng->feed, &s);
    *peak_lane_p = s.peak_lane;
    *peak_total_p = s.peak_total;
    *held_p = s.held;
}

/* The timed part: nothing is allocated or printed between the reference record and the sync. */
static sp_status_t run_step(sp_engine_t *e)
{
    static const sp_lanefeed_hooks_t hooks = {feed_enqueue, feed_query, feed_idle};
    sp_status_t st;

    MPI_Barrier(e->comms.world);
    st = e->be->ops->event_record(e->be->state, e->ev[2 * e->prog.n]);
    /* a record by the calling thread completes at once: this is its time to within the clock
     * read, and places the step's intervals on the host clock for the timeline */
    e->ref_host_ns = (int64_t)sp_time_ns();
    e->progress_ns = e->ref_host_ns;
    e->compute_at = next_compute(e, 0);
    if (st == SP_OK) {
        /* every task enqueued within the bound, and seen complete */
        st = sp_lanefeed_run(e->feed, &hooks, e);
        sp_watchdog_expect(e->wd, 0.0);
    }
    if (st == SP_OK) {
        st = sync_streams(e);
    }
    return st == SP_OK ? read_intervals(e) : st;
}

size_t sp_engine_record(const sp_engine_t *eng, int step, sp_timeline_t *tl)
{
    for (size_t i = 0; i < eng->prog.n; i++) {
        const sp_task_t *t = &eng->prog.tasks[i];
        sp_event_rec_t ev;
        sp_event_init(&ev, eng->rank, (sp_ev_kind_t)t->ev_kind);
        ev.lane = t->lane;
        ev.op = t->coll;
        ev.dtype = t->kind == SP_TASK_COLL ? (int16_t)t->dtype : -1;
        ev.step = step;
        ev.microbatch = t->microbatch;
        ev.chunk = t->chunk;
        ev.layer = t->layer;
        ev.bucket = t->bucket;
        ev.peer = t->peer;
        ev.bytes = t->bytes;
        ev.flops = t->flops;
        if (t->kind == SP_TASK_COLL) {
            int colors[3] = {eng->comms.tp_color, eng->comms.dp_color, eng->comms.emb_color};
            ev.seq = sp_lane_seq(t->lane, step, eng->world, colors, eng->max_tasks, i);
        }
        ev.start_ns = eng->ref_host_ns + eng->iv[i].start_ns;
        ev.end_ns = eng->ref_host_ns + eng->iv[i].end_ns;
        sp_timeline_record(tl, &ev);
    }
    return eng->prog.n;
}

/* Replay every stage's op list with its stage's durations; this stage's idle / makespan. */
static sp_status_t predict(const sp_engine_t *e, const sp_replay_cost_t *costs, double *frac_p)
{
    const sp_program_config_t *c = &e->cfg;
    size_t n = e->prog.n_sched_ops;
    sp_sched_op_t *all = calloc((size_t)c->p * n, sizeof(*all));
    const sp_sched_op_t **lists = calloc((size_t)c->p, sizeof(*lists));
    size_t *counts = calloc((size_t)c->p, sizeof(*counts));
    int64_t *idle = calloc((size_t)c->p, sizeof(*idle));
    int64_t makespan = 0;
    sp_status_t st = (all && lists && counts && idle) ? SP_OK : SP_ERR_NOMEM;

    for (int r = 0; r < c->p && st == SP_OK; r++) {
        lists[r] = all + (size_t)r * n;
        st = sp_schedule_build_grouped(c->kind, c->p, c->m, c->v, c->mb_group, r,
                                       all + (size_t)r * n, n, &counts[r]);
    }
    if (st == SP_OK) {
        st = sp_replay_run_staged(c->kind, c->p, c->m, c->v, lists, counts, costs, NULL, idle,
                                  &makespan);
    }
    if (st == SP_OK) {
        *frac_p = makespan > 0 ? (double)idle[e->stage] / (double)makespan : 0.0;
    }
    free(idle);
    free(counts);
    free(lists);
    free(all);
    return st;
}

/* Each stage's mean F, B and W span over all its ranks (every rank gets all stages'):
 * *costs_p, p entries, owned by the caller. Collective over world. */
static sp_status_t stage_costs(sp_engine_t *e, double *mine, sp_replay_cost_t **costs_p)
{
    int p = e->cfg.p;
    double *all = calloc((size_t)p * 6, sizeof(*all));
    double *sums = calloc((size_t)p * 6, sizeof(*sums));
    sp_replay_cost_t *costs = calloc((size_t)p, sizeof(*costs));
    /* agreed first, so every rank takes part in the same reduction or none does */
    sp_status_t st = sp_agree(e->comms.world, all && sums && costs ? SP_OK : SP_ERR_NOMEM);

    sp_step_op_spans(&e->prog, e->iv, e->scratch, mine, mine + 3);
    if (st == SP_OK) {
        memcpy(all + (size_t)e->stage * 6, mine, 6 * sizeof(*mine));
        MPI_Allreduce(all, sums, p * 6, MPI_DOUBLE, MPI_SUM, e->comms.world);
    }
    for (int r = 0; r < p && st == SP_OK; r++) {
        const double *x = sums + (size_t)r * 6;
        costs[r].t_f = x[3] > 0 ? (int64_t)(x[0] / x[3] + 0.5) : 0;
        costs[r].t_b = x[4] > 0 ? (int64_t)(x[1] / x[4] + 0.5) : 0;
        costs[r].t_w = x[5] > 0 ? (int64_t)(x[2] / x[5] + 0.5) : 0;
    }
    free(all);
    free(sums);
    if (st != SP_OK) {
        free(costs);
        costs = NULL;
    }
    *costs_p = costs;
    return st;
}

static sp_status_t compute_metrics(sp_engine_t *e, sp_proxy_rank_row_t *r)
{
    double mine[6] = {0};
    sp_replay_cost_t *costs = NULL;
    int64_t end = 0, step = 0;
    sp_status_t st;

    for (size_t i = 0; i < e->prog.n; i++) {
        end = e->iv[i].end_ns > end ? e->iv[i].end_ns : end;
    }
    MPI_Allreduce(&end, &step, 1, MPI_INT64_T, MPI_MAX, e->comms.world);
    st = stage_costs(e, mine, &costs);
    if (st == SP_OK) {
        st = predict(e, costs, &r->predicted_frac);
    }
    free(costs);
    if (st != SP_OK) {
        return st;
    }
    r->rank = e->rank;
    r->stage = e->stage;
    r->dp = e->dp_rank;
    r->tp = e->tp_rank;
    sp_step_metrics(&e->prog, e->iv, step, e->scratch, r, NULL);
    return SP_OK;
}

sp_status_t sp_engine_step(sp_engine_t *eng, int step, sp_proxy_rank_row_t *row_p)
{
    sp_proxy_rank_row_t r;
    sp_status_t st = sp_agree(eng->comms.world, run_step(eng));

    memset(&r, 0, sizeof(r));
    r.step = step;
    if (st == SP_OK) {
        st = sp_agree(eng->comms.world, compute_metrics(eng, &r));
    }
    if (st == SP_OK) {
        *row_p = r;
    }
    return st;
}
