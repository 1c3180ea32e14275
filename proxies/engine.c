/* Pipeline engine: one stage's op list on a compute stream and point-to-point streams. Each op
 * enqueues recv -> (event) -> compute between two records -> (event) -> send; the host thread
 * only enqueues, the streams run concurrently, so communication overlaps compute for real. */
#include "engine.h"

#include "timeutil.h"

#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "intervals.h"
#include "log.h"
#include "replay.h"

#define N_COLORS 3 /* edge colours of the stage ring: 0/1 by parity, 2 for the wrap of odd p */

struct sp_pp_engine {
    const sp_backend_t *be;
    MPI_Comm pp;
    int p, stage;
    sp_pp_config_t cfg;
    sp_sched_op_t *ops;
    size_t n_ops;
    sp_event_t **ev; /* 3 per op: recv done, compute start, compute end; then the reference */
    sp_stream_t *compute;
    sp_stream_t *fwd[N_COLORS];
    sp_stream_t *bwd[N_COLORS];
    char *send_buf;
    char *recv_buf[2 * N_COLORS]; /* one per receiving stream: contents are never read */
    sp_interval_t *iv;            /* compute intervals of the last step, ns from the reference */
    int64_t ref_host_ns;          /* the reference's time on this host's monotonic clock */
};

/* Colour of the forward edge from stage a to stage a+1 (mod p); the backward edge from a+1 to a
 * has the same colour. At every stage the incoming and outgoing edges differ in colour, so a
 * stream only sends or only receives and cannot block its own receives behind a send. */
static int edge_color(int p, int a)
{
    return (p % 2 == 1 && a == p - 1) ? 2 : a % 2;
}

static sp_event_t *ev_at(const sp_pp_engine_t *e, size_t k, int which)
{
    return e->ev[3 * k + (size_t)which];
}

static sp_status_t create_streams(sp_pp_engine_t *e)
{
    const sp_backend_ops_t *o = e->be->ops;
    sp_status_t st = o->stream_create(e->be->state, e->pp, &e->compute);

    for (int c = 0; c < N_COLORS && st == SP_OK; c++) {
        st = o->stream_create(e->be->state, e->pp, &e->fwd[c]);
        if (st == SP_OK) {
            st = o->stream_create(e->be->state, e->pp, &e->bwd[c]);
        }
    }
    return st;
}

static sp_status_t create_buffers(sp_pp_engine_t *e)
{
    size_t n_ev = 3 * e->n_ops + 1;
    size_t bytes = e->cfg.msg_bytes > 0 ? e->cfg.msg_bytes : 1;

    e->ev = calloc(n_ev, sizeof(*e->ev));
    e->iv = calloc(e->n_ops, sizeof(*e->iv));
    e->send_buf = calloc(1, bytes);
    if (e->ev == NULL || e->iv == NULL || e->send_buf == NULL) {
        return SP_ERR_NOMEM;
    }
    for (int i = 0; i < 2 * N_COLORS; i++) {
        e->recv_buf[i] = calloc(1, bytes);
        if (e->recv_buf[i] == NULL) {
            return SP_ERR_NOMEM;
        }
    }
    for (size_t i = 0; i < n_ev; i++) {
        sp_status_t st = e->be->ops->event_create(e->be->state, &e->ev[i]);
        if (st != SP_OK) {
            return st;
        }
    }
    return SP_OK;
}

static sp_status_t build_ops(sp_pp_engine_t *e)
{
    size_t max = sp_schedule_op_count(e->cfg.kind, e->p, e->cfg.m, e->cfg.v);

    if (e->cfg.kind == SP_SCHED_ZBH1) {
        sp_error("proxy engine: schedule zb-h1 is not supported yet");
        return SP_ERR_INVALID;
    }
    if (max == 0) {
        sp_error("proxy engine: invalid schedule %s with p=%d m=%d v=%d",
                 sp_schedule_kind_name(e->cfg.kind), e->p, e->cfg.m, e->cfg.v);
        return SP_ERR_INVALID;
    }
    e->ops = calloc(max, sizeof(*e->ops));
    if (e->ops == NULL) {
        return SP_ERR_NOMEM;
    }
    return sp_schedule_build(e->cfg.kind, e->p, e->cfg.m, e->cfg.v, e->stage, e->ops, max,
                             &e->n_ops);
}

sp_status_t sp_pp_engine_create(const sp_backend_t *be, MPI_Comm pp, const sp_pp_config_t *cfg,
                                sp_pp_engine_t **eng_p)
{
    sp_pp_engine_t *e = calloc(1, sizeof(*e));
    sp_status_t st;

    if (e == NULL) {
        return sp_agree(pp, SP_ERR_NOMEM);
    }
    e->be = be;
    e->pp = pp;
    e->cfg = *cfg;
    MPI_Comm_size(pp, &e->p);
    MPI_Comm_rank(pp, &e->stage);
    st = sp_agree(pp, build_ops(e));
    if (st == SP_OK) {
        st = sp_agree(pp, create_buffers(e));
    }
    if (st == SP_OK) {
        st = sp_agree(pp, create_streams(e));
    }
    if (st != SP_OK) {
        sp_pp_engine_destroy(e);
        return st;
    }
    *eng_p = e;
    return SP_OK;
}

static void destroy_streams(sp_pp_engine_t *e)
{
    const sp_backend_ops_t *o = e->be->ops;

    /* reverse order of creation, the same on every rank (destroy is collective) */
    for (int c = N_COLORS - 1; c >= 0; c--) {
        if (e->bwd[c] != NULL) {
            o->stream_destroy(e->be->state, e->bwd[c]);
        }
        if (e->fwd[c] != NULL) {
            o->stream_destroy(e->be->state, e->fwd[c]);
        }
    }
    if (e->compute != NULL) {
        o->stream_destroy(e->be->state, e->compute);
    }
}

void sp_pp_engine_destroy(sp_pp_engine_t *eng)
{
    if (eng == NULL) {
        return;
    }
    destroy_streams(eng);
    if (eng->ev != NULL) {
        for (size_t i = 0; i < 3 * eng->n_ops + 1; i++) {
            if (eng->ev[i] != NULL) {
                eng->be->ops->event_destroy(eng->be->state, eng->ev[i]);
            }
        }
    }
    for (int i = 0; i < 2 * N_COLORS; i++) {
        free(eng->recv_buf[i]);
    }
    free(eng->send_buf);
    free(eng->iv);
    free(eng->ev);
    free(eng->ops);
    free(eng);
}

/* The neighbour of an op in the virtual pipeline (V = p*v stages, virtual stage chunk*p+stage):
 * a forward receives from s-1 and sends to s+1, a backward the reverse. -1: none. */
static int virtual_peer(const sp_pp_engine_t *e, const sp_sched_op_t *op, int dir)
{
    int s = op->chunk * e->p + e->stage;
    int step = op->type == SP_SCHED_OP_F ? 1 : -1;
    int t = s + dir * step;

    return (t >= 0 && t < e->p * e->cfg.v) ? t : -1;
}

/* Tag: microbatch and the virtual stage that consumes the message; both ends compute it. */
static int msg_tag(const sp_pp_engine_t *e, int mb, int consumer)
{
    return mb * e->p * e->cfg.v + consumer;
}

static sp_status_t enqueue_recv(sp_pp_engine_t *e, size_t k, int from)
{
    const sp_backend_ops_t *o = e->be->ops;
    const sp_sched_op_t *op = &e->ops[k];
    int peer = from % e->p;
    int fwd = op->type == SP_SCHED_OP_F;
    int color = fwd ? edge_color(e->p, peer) : edge_color(e->p, e->stage);
    sp_stream_t *s = fwd ? e->fwd[color] : e->bwd[color];
    int consumer = op->chunk * e->p + e->stage;
    sp_status_t st = SP_OK;

    /* Post the receive only once the compute stream is about to need it: a blocking receive
     * polls, and ranks sharing cores would lose the compute deadlines to polling threads. Small
     * messages have arrived eagerly by then, so this adds no wait on the critical path. */
    if (k > 0) {
        st = o->stream_wait(e->be->state, s, ev_at(e, k - 1, 2));
    }
    if (st == SP_OK) {
        st = o->stream_recv(e->be->state, s, e->recv_buf[fwd * N_COLORS + color], e->cfg.msg_bytes,
                            peer, msg_tag(e, op->microbatch, consumer));
    }

    if (st == SP_OK) {
        st = o->stream_record(e->be->state, s, ev_at(e, k, 0));
    }
    if (st == SP_OK) {
        st = o->stream_wait(e->be->state, e->compute, ev_at(e, k, 0));
    }
    return st;
}

static sp_status_t enqueue_send(sp_pp_engine_t *e, size_t k, int to)
{
    const sp_backend_ops_t *o = e->be->ops;
    const sp_sched_op_t *op = &e->ops[k];
    int peer = to % e->p;
    int fwd = op->type == SP_SCHED_OP_F;
    int color = fwd ? edge_color(e->p, e->stage) : edge_color(e->p, peer);
    sp_stream_t *s = fwd ? e->fwd[color] : e->bwd[color];
    sp_status_t st = o->stream_wait(e->be->state, s, ev_at(e, k, 2));

    if (st == SP_OK) {
        st = o->stream_send(e->be->state, s, e->send_buf, e->cfg.msg_bytes, peer,
                            msg_tag(e, op->microbatch, to));
    }
    return st;
}

static sp_status_t enqueue_op(sp_pp_engine_t *e, size_t k)
{
    const sp_backend_ops_t *o = e->be->ops;
    const sp_sched_op_t *op = &e->ops[k];
    uint64_t dur = op->type == SP_SCHED_OP_F ? e->cfg.t_f_ns : e->cfg.t_b_ns;
    int from = virtual_peer(e, op, -1);
    int to = virtual_peer(e, op, 1);
    sp_status_t st = from >= 0 ? enqueue_recv(e, k, from) : SP_OK;

    if (st == SP_OK) {
        st = o->stream_record(e->be->state, e->compute, ev_at(e, k, 1));
    }
    if (st == SP_OK) {
        st = o->stream_compute(e->be->state, e->compute, dur);
    }
    if (st == SP_OK) {
        st = o->stream_record(e->be->state, e->compute, ev_at(e, k, 2));
    }
    if (st == SP_OK && to >= 0) {
        st = enqueue_send(e, k, to);
    }
    return st;
}

static sp_status_t sync_streams(sp_pp_engine_t *e)
{
    const sp_backend_ops_t *o = e->be->ops;
    sp_status_t st = o->stream_sync(e->be->state, e->compute);

    for (int c = 0; c < N_COLORS; c++) {
        sp_status_t a = o->stream_sync(e->be->state, e->fwd[c]);
        sp_status_t b = o->stream_sync(e->be->state, e->bwd[c]);
        st = st != SP_OK ? st : (a != SP_OK ? a : b);
    }
    return st;
}

static sp_status_t read_intervals(sp_pp_engine_t *e)
{
    const sp_backend_ops_t *o = e->be->ops;
    sp_event_t *ref = e->ev[3 * e->n_ops];

    for (size_t k = 0; k < e->n_ops; k++) {
        uint64_t a = 0, b = 0;
        sp_status_t st = o->event_elapsed_ns(e->be->state, ref, ev_at(e, k, 1), &a);
        if (st == SP_OK) {
            st = o->event_elapsed_ns(e->be->state, ref, ev_at(e, k, 2), &b);
        }
        if (st != SP_OK) {
            return st;
        }
        e->iv[k].start_ns = (int64_t)a;
        e->iv[k].end_ns = (int64_t)b;
    }
    return SP_OK;
}

/* The timed part: nothing is allocated or printed between the reference record and the sync. */
static sp_status_t run_step(sp_pp_engine_t *e)
{
    sp_status_t st;

    MPI_Barrier(e->pp);
    st = e->be->ops->event_record(e->be->state, e->ev[3 * e->n_ops]);
    /* a record by the calling thread completes at once: this is its time to within the clock
     * read, and places the step's intervals on the host clock for the timeline */
    e->ref_host_ns = (int64_t)sp_time_ns();
    for (size_t k = 0; k < e->n_ops && st == SP_OK; k++) {
        st = enqueue_op(e, k);
    }
    if (st == SP_OK) {
        st = sync_streams(e);
    }
    return st == SP_OK ? read_intervals(e) : st;
}

size_t sp_pp_engine_record(const sp_pp_engine_t *eng, int step, int rank, sp_timeline_t *tl)
{
    for (size_t k = 0; k < eng->n_ops; k++) {
        static const sp_ev_kind_t kinds[] = {
            [SP_SCHED_OP_F] = SP_EV_FORWARD, [SP_SCHED_OP_B] = SP_EV_BACKWARD,
            [SP_SCHED_OP_W] = SP_EV_WGRAD};
        sp_event_rec_t ev;
        sp_event_init(&ev, rank, kinds[eng->ops[k].type]);
        ev.step = step;
        ev.microbatch = eng->ops[k].microbatch;
        ev.chunk = eng->ops[k].chunk;
        ev.start_ns = eng->ref_host_ns + eng->iv[k].start_ns;
        ev.end_ns = eng->ref_host_ns + eng->iv[k].end_ns;
        sp_timeline_record(tl, &ev);
    }
    return eng->n_ops;
}

void sp_pp_engine_op_means(const sp_pp_engine_t *eng, double *t_f_ns_p, double *t_b_ns_p)
{
    double sum[2] = {0.0, 0.0};
    double cnt[2] = {0.0, 0.0};

    for (size_t k = 0; k < eng->n_ops; k++) {
        int b = eng->ops[k].type != SP_SCHED_OP_F;
        sum[b] += (double)(eng->iv[k].end_ns - eng->iv[k].start_ns);
        cnt[b] += 1.0;
    }
    *t_f_ns_p = cnt[0] > 0 ? sum[0] / cnt[0] : 0.0;
    *t_b_ns_p = cnt[1] > 0 ? sum[1] / cnt[1] : 0.0;
}

/* Replay every stage's op list with the given durations; this stage's idle / makespan. */
static sp_status_t predict(const sp_pp_engine_t *e, double t_f_ns, double t_b_ns, double *frac_p)
{
    int p = e->p;
    size_t n = e->n_ops;
    sp_sched_op_t *all = calloc((size_t)p * n, sizeof(*all));
    const sp_sched_op_t **lists = calloc((size_t)p, sizeof(*lists));
    size_t *counts = calloc((size_t)p, sizeof(*counts));
    int64_t *idle = calloc((size_t)p, sizeof(*idle));
    sp_replay_cost_t cost = {(int64_t)(t_f_ns + 0.5), (int64_t)(t_b_ns + 0.5), 0};
    int64_t makespan = 0;
    sp_status_t st = (all && lists && counts && idle) ? SP_OK : SP_ERR_NOMEM;

    for (int r = 0; r < p && st == SP_OK; r++) {
        lists[r] = all + (size_t)r * n;
        st = sp_schedule_build(e->cfg.kind, p, e->cfg.m, e->cfg.v, r, all + (size_t)r * n, n,
                               &counts[r]);
    }
    if (st == SP_OK) {
        st = sp_replay_run(p, e->cfg.m, e->cfg.v, lists, counts, &cost, NULL, idle, &makespan);
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

static sp_status_t compute_metrics(sp_pp_engine_t *e, sp_pp_metrics_t *m)
{
    sp_interval_t *u = malloc(e->n_ops * sizeof(*u));
    int64_t end = 0, step = 0;
    size_t nu = 0;
    double mine[4], all[4];
    sp_status_t st = u == NULL ? SP_ERR_NOMEM : SP_OK;

    for (size_t k = 0; k < e->n_ops; k++) {
        end = e->iv[k].end_ns > end ? e->iv[k].end_ns : end;
    }
    MPI_Allreduce(&end, &step, 1, MPI_INT64_T, MPI_MAX, e->pp);
    sp_pp_engine_op_means(e, &mine[0], &mine[2]);
    mine[1] = 1.0;
    mine[3] = 1.0;
    MPI_Allreduce(mine, all, 4, MPI_DOUBLE, MPI_SUM, e->pp);
    if (st == SP_OK) {
        st = sp_intervals_union(e->iv, e->n_ops, u, &nu);
    }
    if (st == SP_OK) {
        st = predict(e, all[0] / all[1], all[2] / all[3], &m->predicted_frac);
    }
    if (st == SP_OK) {
        m->step_ms = (double)step / 1e6;
        m->busy_ms = (double)sp_intervals_length(u, nu) / 1e6;
        m->bubble_ms = m->step_ms - m->busy_ms;
        m->bubble_frac = m->step_ms > 0 ? m->bubble_ms / m->step_ms : 0.0;
    }
    free(u);
    return st;
}

sp_status_t sp_pp_engine_step(sp_pp_engine_t *eng, sp_pp_metrics_t *metrics_p)
{
    sp_pp_metrics_t m;
    sp_status_t st = sp_agree(eng->pp, run_step(eng));

    if (st == SP_OK) {
        st = sp_agree(eng->pp, compute_metrics(eng, &m));
    }
    if (st == SP_OK) {
        *metrics_p = m;
    }
    return st;
}
