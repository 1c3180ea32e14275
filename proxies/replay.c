/* Discrete-event replay of per-stage op lists with fixed durations and zero communication:
 * makespan, busy and bubble per stage, and deadlock detection. */
#include "replay.h"

#include <stdlib.h>

#include "log.h"

/* Finish times of every (op type, microbatch, virtual stage); -1 = not run yet. */
typedef struct {
    int m;
    int nvs; /* virtual stages, p*v */
    int64_t *end;
} replay_done_t;

static int64_t *done_slot(const replay_done_t *d, int type, int mb, int vs)
{
    return &d->end[((size_t)type * (size_t)d->m + (size_t)mb) * (size_t)d->nvs + (size_t)vs];
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* Earliest start of op at virtual stage vs given what has run, or -1 when a dependency has not
 * run yet. */
static int64_t ready_at(const replay_done_t *d, const sp_sched_op_t *op, int vs)
{
    int64_t t = 0;
    int64_t dep;

    switch (op->type) {
    case SP_SCHED_OP_F:
        if (vs > 0) {
            dep = *done_slot(d, SP_SCHED_OP_F, op->microbatch, vs - 1);
            if (dep < 0) {
                return -1;
            }
            t = dep;
        }
        return t;
    case SP_SCHED_OP_B:
        dep = *done_slot(d, SP_SCHED_OP_F, op->microbatch, vs);
        if (dep < 0) {
            return -1;
        }
        t = dep;
        if (vs < d->nvs - 1) {
            dep = *done_slot(d, SP_SCHED_OP_B, op->microbatch, vs + 1);
            if (dep < 0) {
                return -1;
            }
            t = max64(t, dep);
        }
        return t;
    default: /* SP_SCHED_OP_W, checked before the replay */
        return *done_slot(d, SP_SCHED_OP_B, op->microbatch, vs);
    }
}

static int64_t op_duration(const sp_replay_cost_t *cost, int type)
{
    return type == SP_SCHED_OP_F ? cost->t_f : type == SP_SCHED_OP_B ? cost->t_b : cost->t_w;
}

static sp_status_t check_args(int p, int m, int v, const sp_sched_op_t *const *ops,
                              const size_t *n_ops, const sp_replay_cost_t *cost, size_t stride)
{
    if (p < 1 || m < 1 || v < 1 || ops == NULL || n_ops == NULL || cost == NULL) {
        sp_error("replay: bad arguments (p=%d, m=%d, v=%d)", p, m, v);
        return SP_ERR_INVALID;
    }
    if ((int64_t)p * v > INT32_MAX) {
        sp_error("replay: p*v too large");
        return SP_ERR_INVALID;
    }
    for (int r = 0; r < p; r++) {
        const sp_replay_cost_t *c = &cost[(size_t)r * stride];
        if (c->t_f < 0 || c->t_b < 0 || c->t_w < 0) {
            sp_error("replay: a negative duration on stage %d", r);
            return SP_ERR_INVALID;
        }
        if (n_ops[r] > 0 && ops[r] == NULL) {
            sp_error("replay: stage %d has %zu ops but no list", r, n_ops[r]);
            return SP_ERR_INVALID;
        }
        for (size_t i = 0; i < n_ops[r]; i++) {
            const sp_sched_op_t *op = &ops[r][i];
            if (op->type < SP_SCHED_OP_F || op->type > SP_SCHED_OP_W || op->microbatch < 0 ||
                op->microbatch >= m || op->chunk < 0 || op->chunk >= v) {
                sp_error("replay: stage %d op %zu (type %d, microbatch %d, chunk %d) is out of "
                         "range",
                         r, i, (int)op->type, (int)op->microbatch, (int)op->chunk);
                return SP_ERR_INVALID;
            }
        }
    }
    return SP_OK;
}

/* cost[r * stride] is stage r's: stride 0 for one cost on every stage, 1 for one per stage. */
static sp_status_t replay(int p, int m, int v, const sp_sched_op_t *const *ops, const size_t *n_ops,
                          const sp_replay_cost_t *cost, size_t stride, int64_t *busy,
                          int64_t *idle, int64_t *makespan_p)
{
    sp_status_t st = check_args(p, m, v, ops, n_ops, cost, stride);
    if (st != SP_OK) {
        return st;
    }
    if (makespan_p == NULL) {
        return SP_ERR_INVALID;
    }

    replay_done_t done = {.m = m, .nvs = p * v, .end = NULL};
    const size_t slots = (size_t)3 * (size_t)m * (size_t)done.nvs;
    size_t *pos = NULL;
    int64_t *clock = NULL;
    int64_t *work = NULL;

    done.end = malloc(slots * sizeof(*done.end));
    pos = calloc((size_t)p, sizeof(*pos));
    clock = calloc((size_t)p, sizeof(*clock));
    work = calloc((size_t)p, sizeof(*work));
    if (done.end == NULL || pos == NULL || clock == NULL || work == NULL) {
        sp_error("replay: no memory for %zu op slots", slots);
        st = SP_ERR_NOMEM;
        goto out_free;
    }
    for (size_t i = 0; i < slots; i++) {
        done.end[i] = -1;
    }

    /* Run every stage as far as its dependencies allow, pass after pass. An op's start depends
     * only on finish times already fixed, so the pass order does not change the result. A pass
     * that runs nothing while ops remain is a deadlock; each pass runs at least one op
     * otherwise, so this ends after at most (total ops + 1) passes. */
    for (;;) {
        int progressed = 0;
        int remaining = 0;
        for (int r = 0; r < p; r++) {
            while (pos[r] < n_ops[r]) {
                const sp_sched_op_t *op = &ops[r][pos[r]];
                const int vs = op->chunk * p + r;
                int64_t *slot = done_slot(&done, op->type, op->microbatch, vs);
                if (*slot >= 0) {
                    sp_error("replay: stage %d lists op type %d of microbatch %d, chunk %d twice",
                             r, (int)op->type, (int)op->microbatch, (int)op->chunk);
                    st = SP_ERR_INVALID;
                    goto out_free;
                }
                const int64_t ready = ready_at(&done, op, vs);
                if (ready < 0) {
                    break;
                }
                const int64_t dur = op_duration(&cost[(size_t)r * stride], op->type);
                clock[r] = max64(clock[r], ready) + dur;
                work[r] += dur;
                *slot = clock[r];
                pos[r]++;
                progressed = 1;
            }
            remaining |= pos[r] < n_ops[r];
        }
        if (!remaining) {
            break;
        }
        if (!progressed) {
            for (int r = 0; r < p; r++) {
                if (pos[r] < n_ops[r]) {
                    const sp_sched_op_t *op = &ops[r][pos[r]];
                    sp_error("replay: deadlock; stage %d waits at op %zu (type %d, microbatch "
                             "%d, chunk %d)",
                             r, pos[r], (int)op->type, (int)op->microbatch, (int)op->chunk);
                    break;
                }
            }
            st = SP_ERR_INVALID;
            goto out_free;
        }
    }

    int64_t makespan = 0;
    for (int r = 0; r < p; r++) {
        makespan = max64(makespan, clock[r]);
    }
    for (int r = 0; r < p; r++) {
        if (busy != NULL) {
            busy[r] = work[r];
        }
        if (idle != NULL) {
            idle[r] = makespan - work[r];
        }
    }
    *makespan_p = makespan;
    st = SP_OK;

out_free:
    free(work);
    free(clock);
    free(pos);
    free(done.end);
    return st;
}

sp_status_t sp_replay_run(int p, int m, int v, const sp_sched_op_t *const *ops, const size_t *n_ops,
                          const sp_replay_cost_t *cost, int64_t *busy, int64_t *idle,
                          int64_t *makespan_p)
{
    return replay(p, m, v, ops, n_ops, cost, 0, busy, idle, makespan_p);
}

sp_status_t sp_replay_run_staged(int p, int m, int v, const sp_sched_op_t *const *ops,
                                 const size_t *n_ops, const sp_replay_cost_t *costs, int64_t *busy,
                                 int64_t *idle, int64_t *makespan_p)
{
    return replay(p, m, v, ops, n_ops, costs, 1, busy, idle, makespan_p);
}
