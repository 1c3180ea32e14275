/* The predictor's discrete-event simulation of one step (one program per pipeline stage; see
 * predict_sim.h; the cost models are in predict_cost.c). */
#include "predict_sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "replay.h"
#include "stepmetrics.h"

/* ---- simulation ---- */

/* A receive, for matching sends to it: the stage it is on, its lane, the sending stage, tag. */
typedef struct {
    int32_t dst, lane, src, tag;
    size_t gid; /* global task id: base[stage] + index */
} recv_key_t;

typedef struct {
    const sp_program_t *progs;
    int p, tp, dp;
    sp_predict_cost_fn cost;
    void *cost_arg;
    size_t total;        /* tasks of all stages */
    size_t *base;        /* p + 1 prefix sums of the program sizes */
    sp_interval_t *iv;   /* total: start -1 = not reached, end -1 = not done */
    size_t *partner;     /* total: gid of the matching send or receive, SIZE_MAX: none */
    size_t *order;       /* total: per stage, task indices grouped by lane in program order */
    size_t *lane_first;  /* p * SP_LANE_COUNT: first entry of the lane in order (stage-local) */
    size_t *lane_len;    /* p * SP_LANE_COUNT */
    size_t *cursor;      /* p * SP_LANE_COUNT: next entry to run */
    int64_t *lane_free;  /* p * SP_LANE_COUNT: end of the lane's last task */
    int64_t wait_ns;     /* added to every dependency on a task of another lane */
} sim_t;

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

static int cmp_recv(const void *a, const void *b)
{
    const recv_key_t *x = a, *y = b;
    int32_t kx[4] = {x->dst, x->lane, x->src, x->tag}, ky[4] = {y->dst, y->lane, y->src, y->tag};

    for (int i = 0; i < 4; i++) {
        if (kx[i] != ky[i]) {
            return kx[i] < ky[i] ? -1 : 1;
        }
    }
    return 0;
}

/* Pair every SEND with the RECV of the same lane, stage pair and tag (each stream matches its
 * own messages, so lanes do not mix). */
static sp_status_t match_messages(sim_t *m)
{
    size_t nrecv = 0, k = 0;
    recv_key_t *keys;
    sp_status_t st = SP_OK;

    for (int s = 0; s < m->p; s++) {
        for (size_t i = 0; i < m->progs[s].n; i++) {
            nrecv += m->progs[s].tasks[i].kind == SP_TASK_RECV;
        }
    }
    keys = calloc(nrecv + 1, sizeof(*keys));
    if (keys == NULL) {
        return SP_ERR_NOMEM;
    }
    for (int s = 0; s < m->p; s++) {
        for (size_t i = 0; i < m->progs[s].n; i++) {
            const sp_task_t *t = &m->progs[s].tasks[i];
            if (t->kind == SP_TASK_RECV) {
                keys[k++] = (recv_key_t){s, t->lane, t->peer, t->tag, m->base[s] + i};
            }
        }
    }
    qsort(keys, nrecv, sizeof(*keys), cmp_recv);
    for (int s = 0; s < m->p && st == SP_OK; s++) {
        for (size_t i = 0; i < m->progs[s].n && st == SP_OK; i++) {
            const sp_task_t *t = &m->progs[s].tasks[i];
            recv_key_t key = {t->peer, t->lane, s, t->tag, 0};
            recv_key_t *r;
            if (t->kind != SP_TASK_SEND) {
                continue;
            }
            r = t->peer >= 0 && t->peer < m->p
                    ? bsearch(&key, keys, nrecv, sizeof(*keys), cmp_recv)
                    : NULL;
            if (r == NULL || m->partner[r->gid] != SIZE_MAX) {
                sp_error("predict: stage %d's send (lane %d, tag %d) to stage %d has no receive "
                         "of its own",
                         s, (int)t->lane, (int)t->tag, (int)t->peer);
                st = SP_ERR_INVALID;
                break;
            }
            m->partner[r->gid] = m->base[s] + i;
            m->partner[m->base[s] + i] = r->gid;
        }
    }
    for (size_t j = 0; j < nrecv && st == SP_OK; j++) {
        if (m->partner[keys[j].gid] == SIZE_MAX) {
            sp_error("predict: stage %d's receive (lane %d, tag %d) from stage %d has no send",
                     (int)keys[j].dst, (int)keys[j].lane, (int)keys[j].tag, (int)keys[j].src);
            st = SP_ERR_INVALID;
        }
    }
    free(keys);
    return st;
}

/* Pair the embedding group's collectives: the k-th on the lane of one of its two stages with
 * the k-th of the other, so each starts when both stages have reached it, as a message does. */
static sp_status_t match_embedding(sim_t *m)
{
    int st[2] = {-1, -1}, n = 0;

    for (int s = 0; s < m->p; s++) {
        if (m->lane_len[(size_t)s * SP_LANE_COUNT + SP_LANE_EMB] > 0) {
            if (n == 2) {
                n++;
                break;
            }
            st[n++] = s;
        }
    }
    if (n == 0) {
        return SP_OK;
    }
    size_t a = (size_t)st[0] * SP_LANE_COUNT + SP_LANE_EMB;
    size_t b = (size_t)(n == 2 ? st[1] : st[0]) * SP_LANE_COUNT + SP_LANE_EMB;
    if (n != 2 || m->lane_len[a] != m->lane_len[b]) {
        sp_error("predict: the embedding group's collectives are on %d stages, not 2 of one count",
                 n);
        return SP_ERR_INVALID;
    }
    for (size_t k = 0; k < m->lane_len[a]; k++) {
        size_t ga = m->base[st[0]] + m->order[m->base[st[0]] + m->lane_first[a] + k];
        size_t gb = m->base[st[1]] + m->order[m->base[st[1]] + m->lane_first[b] + k];
        m->partner[ga] = gb;
        m->partner[gb] = ga;
    }
    return SP_OK;
}

static sp_status_t sim_init(sim_t *m)
{
    size_t nl = (size_t)m->p * SP_LANE_COUNT;

    m->base = calloc((size_t)m->p + 1, sizeof(*m->base));
    if (m->base == NULL) {
        return SP_ERR_NOMEM;
    }
    for (int s = 0; s < m->p; s++) {
        m->base[s + 1] = m->base[s] + m->progs[s].n;
    }
    m->total = m->base[m->p];
    m->iv = malloc((m->total + 1) * sizeof(*m->iv));
    m->partner = malloc((m->total + 1) * sizeof(*m->partner));
    m->order = malloc((m->total + 1) * sizeof(*m->order));
    m->lane_first = calloc(nl, sizeof(*m->lane_first));
    m->lane_len = calloc(nl, sizeof(*m->lane_len));
    m->cursor = calloc(nl, sizeof(*m->cursor));
    m->lane_free = calloc(nl, sizeof(*m->lane_free));
    if (m->iv == NULL || m->partner == NULL || m->order == NULL || m->lane_first == NULL ||
        m->lane_len == NULL || m->cursor == NULL || m->lane_free == NULL) {
        return SP_ERR_NOMEM;
    }
    for (size_t g = 0; g < m->total; g++) {
        m->iv[g].start_ns = -1;
        m->iv[g].end_ns = -1;
        m->partner[g] = SIZE_MAX;
    }
    for (int s = 0; s < m->p; s++) {
        const sp_program_t *pr = &m->progs[s];
        size_t *len = m->lane_len + (size_t)s * SP_LANE_COUNT;
        size_t *first = m->lane_first + (size_t)s * SP_LANE_COUNT;
        size_t *fill = m->cursor + (size_t)s * SP_LANE_COUNT; /* borrowed, reset below */
        for (size_t i = 0; i < pr->n; i++) {
            int l = pr->tasks[i].lane;
            if (l < 0 || l >= SP_LANE_COUNT) {
                sp_error("predict: stage %d task %zu has lane %d", s, i, l);
                return SP_ERR_INVALID;
            }
            for (int d = 0; d < pr->tasks[i].ndeps; d++) {
                if (pr->tasks[i].deps[d] < 0 || (size_t)pr->tasks[i].deps[d] >= i) {
                    sp_error("predict: stage %d task %zu depends on task %d, not an earlier one",
                             s, i, (int)pr->tasks[i].deps[d]);
                    return SP_ERR_INVALID;
                }
            }
            len[l]++;
        }
        for (int l = 1; l < SP_LANE_COUNT; l++) {
            first[l] = first[l - 1] + len[l - 1];
        }
        for (size_t i = 0; i < pr->n; i++) {
            int l = pr->tasks[i].lane;
            m->order[m->base[s] + first[l] + fill[l]++] = i;
        }
        memset(fill, 0, SP_LANE_COUNT * sizeof(*fill));
    }
    sp_status_t st = match_messages(m);
    return st == SP_OK ? match_embedding(m) : st;
}

static void sim_free(sim_t *m)
{
    free(m->base);
    free(m->partner);
    free(m->order);
    free(m->lane_first);
    free(m->lane_len);
    free(m->cursor);
    free(m->lane_free);
    /* iv is handed to the result on success, freed by the caller otherwise */
}

int sp_predict_group_size(int lane, int tp, int dp)
{
    sp_group_t g = sp_lane_group(lane);

    return g == SP_GROUP_TP ? tp : g == SP_GROUP_EMB ? 2 : dp;
}

static sp_status_t comm_cost(const sim_t *m, int op, uint64_t bytes, int nranks, int64_t *ns_p)
{
    double c = m->cost(m->cost_arg, op, bytes, nranks);

    if (!(c >= 0.0) || !isfinite(c)) {
        sp_error("predict: no communication cost for %s of %llu bytes on %d ranks",
                 op == SP_PREDICT_OP_P2P ? "a pipeline message" : sp_coll_names[op],
                 (unsigned long long)bytes, nranks);
        return SP_ERR_INVALID;
    }
    *ns_p = llround(c);
    return SP_OK;
}

/* Run the tasks at the head of stage s's lane l as far as they can go. *progress_p is set when
 * something changed (a task ran or a message was posted). */
static sp_status_t advance_lane(sim_t *m, int s, int l, int *progress_p)
{
    const sp_program_t *pr = &m->progs[s];
    size_t li = (size_t)s * SP_LANE_COUNT + (size_t)l;

    while (m->cursor[li] < m->lane_len[li]) {
        size_t i = m->order[m->base[s] + m->lane_first[li] + m->cursor[li]];
        size_t g = m->base[s] + i;
        const sp_task_t *t = &pr->tasks[i];
        int64_t ready = m->lane_free[li], dur = 0;
        sp_status_t st = SP_OK;

        for (int d = 0; d < t->ndeps; d++) {
            int64_t e = m->iv[m->base[s] + (size_t)t->deps[d]].end_ns;
            if (e < 0) {
                return SP_OK;
            }
            if (pr->tasks[t->deps[d]].lane != t->lane) {
                e += m->wait_ns; /* the engine's stream_wait on the other lane's event */
            }
            ready = max64(ready, e);
        }
        if (t->kind == SP_TASK_COMPUTE) {
            dur = (int64_t)t->dur_ns;
        } else if (t->kind == SP_TASK_COLL && m->partner[g] == SIZE_MAX) {
            st = comm_cost(m, t->coll, t->bytes, sp_predict_group_size(l, m->tp, m->dp), &dur);
        } else {
            /* a message or a collective of two stages: posted now; it runs when its partner
             * has been posted too */
            size_t pg = m->partner[g];
            int ps = 0;
            int64_t begin;
            if (m->iv[g].start_ns < 0) {
                m->iv[g].start_ns = ready;
                *progress_p = 1;
            }
            if (m->iv[pg].start_ns < 0) {
                return SP_OK;
            }
            st = comm_cost(m, t->kind == SP_TASK_COLL ? t->coll : SP_PREDICT_OP_P2P, t->bytes, 2,
                           &dur);
            if (st != SP_OK) {
                return st;
            }
            begin = max64(m->iv[g].start_ns, m->iv[pg].start_ns);
            m->iv[g].end_ns = m->iv[pg].end_ns = begin + dur;
            while (m->base[ps + 1] <= pg) {
                ps++;
            }
            /* the partner is at the head of its lane (it was posted from there) */
            size_t pl = (size_t)ps * SP_LANE_COUNT +
                        (size_t)m->progs[ps].tasks[pg - m->base[ps]].lane;
            m->cursor[pl]++;
            m->lane_free[pl] = begin + dur;
            m->cursor[li]++;
            m->lane_free[li] = begin + dur;
            *progress_p = 1;
            continue;
        }
        if (st != SP_OK) {
            return st;
        }
        m->iv[g].start_ns = ready;
        m->iv[g].end_ns = ready + dur;
        m->lane_free[li] = ready + dur;
        m->cursor[li]++;
        *progress_p = 1;
    }
    return SP_OK;
}

/* Pass after pass, every lane of every stage as far as it goes. A start depends only on ends
 * already fixed, so the pass order does not change the result; a pass that changes nothing
 * while tasks remain is a deadlock. */
static sp_status_t simulate(sim_t *m)
{
    for (;;) {
        int progress = 0, remaining = 0;
        for (int s = 0; s < m->p; s++) {
            for (int l = 0; l < SP_LANE_COUNT; l++) {
                size_t li = (size_t)s * SP_LANE_COUNT + (size_t)l;
                sp_status_t st = advance_lane(m, s, l, &progress);
                if (st != SP_OK) {
                    return st;
                }
                remaining |= m->cursor[li] < m->lane_len[li];
            }
        }
        if (!remaining) {
            return SP_OK;
        }
        if (!progress) {
            for (int s = 0; s < m->p; s++) {
                for (int l = 0; l < SP_LANE_COUNT; l++) {
                    size_t li = (size_t)s * SP_LANE_COUNT + (size_t)l;
                    if (m->cursor[li] < m->lane_len[li]) {
                        sp_error("predict: deadlock; stage %d lane %d waits at task %zu", s, l,
                                 m->order[m->base[s] + m->lane_first[li] + m->cursor[li]]);
                        return SP_ERR_INVALID;
                    }
                }
            }
            return SP_ERR_INVALID;
        }
    }
}

/* ---- metrics: the engine's definitions (engine.c) on simulated intervals ---- */

/* Mean span of the stage's F, B and W ops (the engine's stage costs, sp_step_op_spans). */
static void op_costs(const sp_program_t *pr, const sp_interval_t *iv, sp_interval_t *span,
                     sp_replay_cost_t *cost)
{
    double sums[3] = {0}, counts[3] = {0};

    sp_step_op_spans(pr, iv, span, sums, counts);
    cost->t_f = counts[0] > 0 ? (int64_t)(sums[0] / counts[0] + 0.5) : 0;
    cost->t_b = counts[1] > 0 ? (int64_t)(sums[1] / counts[1] + 0.5) : 0;
    cost->t_w = counts[2] > 0 ? (int64_t)(sums[2] / counts[2] + 0.5) : 0;
}

/* The schedule's own bubble per stage: the replay with the simulated mean op spans. */
/* A prediction has no prediction of its own to compare with. */
static void set_pred_nan(sp_proxy_rank_row_t *r)
{
    r->pred_step_ms = r->pred_busy_ms = r->pred_idle_ms = NAN;
    r->pred_tp_excl_ms = r->pred_dp_excl_ms = r->pred_pp_excl_ms = NAN;
}

static sp_status_t replay_fracs(const sim_t *m, sp_interval_t *scratch, double *frac)
{
    sp_replay_cost_t *costs = calloc((size_t)m->p, sizeof(*costs));
    const sp_sched_op_t **lists = calloc((size_t)m->p, sizeof(*lists));
    size_t *counts = calloc((size_t)m->p, sizeof(*counts));
    int64_t *idle = calloc((size_t)m->p, sizeof(*idle));
    int64_t makespan = 0;
    sp_status_t st = costs && lists && counts && idle ? SP_OK : SP_ERR_NOMEM;
    int v = 1, mb = 1; /* chunks and microbatches, from the op lists */

    for (int s = 0; s < m->p && st == SP_OK; s++) {
        const sp_program_t *pr = &m->progs[s];
        op_costs(pr, m->iv + m->base[s], scratch, &costs[s]);
        lists[s] = pr->sched;
        counts[s] = pr->n_sched_ops;
        for (size_t k = 0; k < pr->n_sched_ops; k++) {
            v = pr->sched[k].chunk + 1 > v ? pr->sched[k].chunk + 1 : v;
            mb = pr->sched[k].microbatch + 1 > mb ? pr->sched[k].microbatch + 1 : mb;
        }
    }
    if (st == SP_OK) {
        st = sp_replay_run_staged(m->progs[0].kind, m->p, mb, v, lists, counts, costs, NULL,
                                  idle, &makespan);
    }
    for (int s = 0; s < m->p && st == SP_OK; s++) {
        frac[s] = makespan > 0 ? (double)idle[s] / (double)makespan : 0.0;
    }
    free(idle);
    free(counts);
    free(lists);
    free(costs);
    return st;
}

static sp_status_t check_args(const sp_program_t *progs, int p, int tp, int dp,
                              sp_predict_cost_fn cost, const sp_predict_result_t *res)
{
    if (progs == NULL || p < 1 || tp < 1 || dp < 1 || cost == NULL || res == NULL) {
        sp_error("predict: bad arguments (p=%d, tp=%d, dp=%d)", p, tp, dp);
        return SP_ERR_INVALID;
    }
    for (int s = 0; s < p; s++) {
        if (progs[s].n > 0 && progs[s].tasks == NULL) {
            sp_error("predict: stage %d has %zu tasks but no list", s, progs[s].n);
            return SP_ERR_INVALID;
        }
    }
    return SP_OK;
}

sp_status_t sp_predict_run(const sp_program_t *progs, int p, int tp, int dp,
                           sp_predict_cost_fn cost, void *cost_arg, sp_predict_result_t *res)
{
    return sp_predict_run_wait(progs, p, tp, dp, cost, cost_arg, 0, res);
}

sp_status_t sp_predict_run_wait(const sp_program_t *progs, int p, int tp, int dp,
                                sp_predict_cost_fn cost, void *cost_arg, int64_t wait_ns,
                                sp_predict_result_t *res)
{
    sim_t m = {.progs = progs, .p = p, .tp = tp, .dp = dp, .cost = cost, .cost_arg = cost_arg,
               .wait_ns = wait_ns > 0 ? wait_ns : 0};
    sp_predict_result_t out = {.p = p};
    sp_interval_t *u = NULL;
    size_t most = 1;
    double *frac = NULL;
    sp_status_t st = check_args(progs, p, tp, dp, cost, res);

    if (st == SP_OK) {
        st = sim_init(&m);
    }
    if (st == SP_OK) {
        st = simulate(&m);
    }
    for (int s = 0; s < p && st == SP_OK; s++) {
        most = progs[s].n + 1 > most ? progs[s].n + 1 : most;
    }
    if (st == SP_OK) {
        u = malloc(3 * most * sizeof(*u)); /* sp_step_metrics' scratch */
        frac = calloc((size_t)p, sizeof(*frac));
        out.stages = calloc((size_t)p, sizeof(*out.stages));
        out.spans = calloc((size_t)p, sizeof(*out.spans));
        st = u && frac && out.stages && out.spans ? SP_OK : SP_ERR_NOMEM;
    }
    if (st == SP_OK) {
        st = replay_fracs(&m, u, frac);
    }
    if (st == SP_OK) {
        for (size_t g = 0; g < m.total; g++) {
            out.step_ns = max64(out.step_ns, m.iv[g].end_ns);
        }
        for (int s = 0; s < p; s++) {
            out.spans[s] = m.iv + m.base[s];
            out.stages[s].step_ns = out.step_ns;
            sp_step_metrics(&progs[s], out.spans[s], out.step_ns, u, &out.stages[s].m,
                            &out.stages[s].busy_ns);
            out.stages[s].m.predicted_frac = frac[s];
            set_pred_nan(&out.stages[s].m);
        }
        *res = out;
        m.iv = NULL; /* owned by the result now, through spans[0] */
    } else {
        free(out.stages);
        free(out.spans);
    }
    free(m.iv);
    free(frac);
    free(u);
    sim_free(&m);
    return st;
}

void sp_predict_result_free(sp_predict_result_t *res)
{
    if (res == NULL) {
        return;
    }
    if (res->spans != NULL) {
        free(res->spans[0]);
    }
    free(res->spans);
    free(res->stages);
    memset(res, 0, sizeof(*res));
}
