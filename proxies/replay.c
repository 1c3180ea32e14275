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

static sp_status_t check_args(sp_sched_kind_t kind, int p, int m, int v,
                              const sp_sched_op_t *const *ops, const size_t *n_ops,
                              const sp_replay_cost_t *cost, size_t stride)
{
    if (sp_schedule_get(kind) == NULL || p < 1 || m < 1 || v < 1 || ops == NULL || n_ops == NULL ||
        cost == NULL) {
        sp_error("replay: bad arguments (kind %d, p=%d, m=%d, v=%d)", (int)kind, p, m, v);
        return SP_ERR_INVALID;
    }
    /* the lists are given: (p, m, v) must suit the schedule with some group size (the
     * interleaved schedule's m % p rule is its default group size's, m itself always fits) */
    if (sp_schedule_why_invalid(kind, p, m, v) != NULL &&
        sp_schedule_why_invalid_grouped(kind, p, m, v, m) != NULL) {
        sp_error("replay: schedule %s cannot run with p=%d, m=%d, v=%d: %s",
                 sp_schedule_kind_name(kind), p, m, v, sp_schedule_why_invalid(kind, p, m, v));
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

/* Replay state: finish times, each stage's next op, clock and summed durations. */
typedef struct {
    sp_sched_kind_t kind;
    int p, v;
    const sp_sched_op_t *const *ops;
    const size_t *n_ops;
    const sp_replay_cost_t *cost;
    size_t stride; /* cost[r * stride] is stage r's: 0 for one cost on every stage, 1 per stage */
    replay_done_t done;
    size_t *pos;
    int64_t *clock;
    int64_t *work;
} replay_t;

/* Run stage r's ops as far as their dependencies allow. *progressed_p is set when one ran.
 * SP_ERR_INVALID (logged) for an op listed twice. */
static sp_status_t run_stage(replay_t *rp, int r, int *progressed_p)
{
    while (rp->pos[r] < rp->n_ops[r]) {
        const sp_sched_op_t *op = &rp->ops[r][rp->pos[r]];
        const int vs = sp_schedule_vstage(rp->kind, rp->p, rp->v, r, op->chunk);
        int64_t *slot = done_slot(&rp->done, op->type, op->microbatch, vs);
        if (*slot >= 0) {
            sp_error("replay: stage %d lists op type %d of microbatch %d, chunk %d twice", r,
                     (int)op->type, (int)op->microbatch, (int)op->chunk);
            return SP_ERR_INVALID;
        }
        const int64_t ready = ready_at(&rp->done, op, vs);
        if (ready < 0) {
            return SP_OK;
        }
        const int64_t dur = op_duration(&rp->cost[(size_t)r * rp->stride], op->type);
        rp->clock[r] = max64(rp->clock[r], ready) + dur;
        rp->work[r] += dur;
        *slot = rp->clock[r];
        rp->pos[r]++;
        *progressed_p = 1;
    }
    return SP_OK;
}

static void log_deadlock(const replay_t *rp)
{
    for (int r = 0; r < rp->p; r++) {
        if (rp->pos[r] < rp->n_ops[r]) {
            const sp_sched_op_t *op = &rp->ops[r][rp->pos[r]];
            sp_error("replay: deadlock; stage %d waits at op %zu (type %d, microbatch %d, "
                     "chunk %d)",
                     r, rp->pos[r], (int)op->type, (int)op->microbatch, (int)op->chunk);
            return;
        }
    }
}

/* Run every stage as far as its dependencies allow, pass after pass. An op's start depends only
 * on finish times already fixed, so the pass order does not change the result. A pass that runs
 * nothing while ops remain is a deadlock; each pass runs at least one op otherwise, so this ends
 * after at most (total ops + 1) passes. */
static sp_status_t run_passes(replay_t *rp)
{
    for (;;) {
        int progressed = 0;
        int remaining = 0;
        for (int r = 0; r < rp->p; r++) {
            sp_status_t st = run_stage(rp, r, &progressed);
            if (st != SP_OK) {
                return st;
            }
            remaining |= rp->pos[r] < rp->n_ops[r];
        }
        if (!remaining) {
            return SP_OK;
        }
        if (!progressed) {
            log_deadlock(rp);
            return SP_ERR_INVALID;
        }
    }
}

static sp_status_t replay(replay_t *rp, int m, int64_t *busy, int64_t *idle, int64_t *makespan_p)
{
    const int p = rp->p;
    sp_status_t st = check_args(rp->kind, p, m, rp->v, rp->ops, rp->n_ops, rp->cost, rp->stride);
    if (st != SP_OK) {
        return st;
    }
    if (makespan_p == NULL) {
        return SP_ERR_INVALID;
    }

    rp->done = (replay_done_t){.m = m, .nvs = p * rp->v, .end = NULL};
    const size_t slots = (size_t)3 * (size_t)m * (size_t)rp->done.nvs;
    rp->done.end = malloc(slots * sizeof(*rp->done.end));
    rp->pos = calloc((size_t)p, sizeof(*rp->pos));
    rp->clock = calloc((size_t)p, sizeof(*rp->clock));
    rp->work = calloc((size_t)p, sizeof(*rp->work));
    if (rp->done.end == NULL || rp->pos == NULL || rp->clock == NULL || rp->work == NULL) {
        sp_error("replay: no memory for %zu op slots", slots);
        st = SP_ERR_NOMEM;
        goto out_free;
    }
    for (size_t i = 0; i < slots; i++) {
        rp->done.end[i] = -1;
    }
    st = run_passes(rp);
    if (st != SP_OK) {
        goto out_free;
    }

    int64_t makespan = 0;
    for (int r = 0; r < p; r++) {
        makespan = max64(makespan, rp->clock[r]);
    }
    for (int r = 0; r < p; r++) {
        if (busy != NULL) {
            busy[r] = rp->work[r];
        }
        if (idle != NULL) {
            idle[r] = makespan - rp->work[r];
        }
    }
    *makespan_p = makespan;

out_free:
    free(rp->work);
    free(rp->clock);
    free(rp->pos);
    free(rp->done.end);
    return st;
}

sp_status_t sp_replay_run(sp_sched_kind_t kind, int p, int m, int v,
                          const sp_sched_op_t *const *ops, const size_t *n_ops,
                          const sp_replay_cost_t *cost, int64_t *busy, int64_t *idle,
                          int64_t *makespan_p)
{
    replay_t rp = {.kind = kind, .p = p, .v = v, .ops = ops, .n_ops = n_ops, .cost = cost};

    rp.stride = 0;
    return replay(&rp, m, busy, idle, makespan_p);
}

sp_status_t sp_replay_run_staged(sp_sched_kind_t kind, int p, int m, int v,
                                 const sp_sched_op_t *const *ops, const size_t *n_ops,
                                 const sp_replay_cost_t *costs, int64_t *busy, int64_t *idle,
                                 int64_t *makespan_p)
{
    replay_t rp = {.kind = kind, .p = p, .v = v, .ops = ops, .n_ops = n_ops, .cost = costs};

    rp.stride = 1;
    return replay(&rp, m, busy, idle, makespan_p);
}
