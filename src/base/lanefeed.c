/* The lane feeder (lanefeed.h): bounded, dependency-ordered enqueue of a program's ops onto
 * in-order lanes.
 *
 * Why the bound cannot deadlock. Assume the ranks' programs complete when every op is enqueued
 * at once with no limit (the program builder's contract, what the unbounded engine relied on),
 * and that ops at the heads of different lanes progress concurrently (CUDA streams on separate
 * hardware queues: CUDA_DEVICE_MAX_CONNECTIONS >= lanes). Suppose the feeders of some ranks
 * stop with ops left. Among the ops not complete, take x with the earliest completion time t in
 * the unbounded execution. Everything that completes before t there is complete now: so are
 * x's predecessors on its lane and its dependencies (they completed before x started). If x
 * needs peers (a collective, a send or a receive), each matched op y on another rank had
 * started before t in the unbounded execution, so y's lane predecessors and dependencies are
 * complete now too. On each of these ranks the lane of x (of y) then has nothing in flight and
 * the op's dependencies are enqueued; an empty lane may always take its next op (its reserved
 * slot, whatever the total), so the feeder would enqueue x (y) rather than idle. All of them
 * are then enqueued at their lanes' heads with their dependencies done, and run as in the
 * unbounded execution: x completes, a contradiction. The argument needs no agreement between
 * ranks on an order across lanes (1F1B's stages interleave their sends and receives
 * differently), only each lane's own order, which the unbounded programs already had to match.
 *
 * What the rules prevent: enqueuing in program order into a queue that blocks when full (a
 * CUDA launch queue, NCCL's enqueue) holds every later op of this rank, on every lane, behind
 * the full one; a peer waiting for one of those later ops on another lane never gets it
 * (tests/unit/test_lanefeed.c simulates this). A total without reserved slots deadlocks the
 * same way. */
#include "lanefeed.h"

#include <stdlib.h>

struct sp_lanefeed {
    size_t n;
    int nlanes, used;
    sp_lanefeed_limits_t lim;
    int *lane_of;      /* n */
    size_t *pos;       /* n: the op's place in its lane's list */
    size_t *dep_at;    /* n + 1: op i's dependencies are dep[dep_at[i] .. dep_at[i + 1]) */
    size_t *dep;
    size_t *lane_at;   /* nlanes + 1: lane l's ops are list[lane_at[l] .. lane_at[l + 1]) */
    size_t *list;
    size_t *head;      /* nlanes: oldest op in flight, as a place in the lane's list */
    size_t *tail;      /* nlanes: next op to enqueue */
    int extra;         /* ops in flight beyond the first of each lane (the shared slots) */
    size_t retired;
    sp_lanefeed_stats_t stats;
};

void sp_lanefeed_destroy(sp_lanefeed_t *f)
{
    if (f == NULL) {
        return;
    }
    free(f->lane_of);
    free(f->pos);
    free(f->dep_at);
    free(f->dep);
    free(f->lane_at);
    free(f->list);
    free(f->head);
    free(f->tail);
    free(f);
}

/* Lanes and dependency counts; SP_ERR_INVALID for a lane or dependency out of range. */
static sp_status_t describe_all(sp_lanefeed_t *f, sp_lanefeed_describe_fn describe, void *ctx)
{
    size_t ndep = 0;

    for (size_t i = 0; i < f->n; i++) {
        const int32_t *deps = NULL;
        int nd = 0;
        int lane = describe(ctx, i, &deps, &nd);
        if (lane < 0 || lane >= f->nlanes || nd < 0) {
            return SP_ERR_INVALID;
        }
        for (int d = 0; d < nd; d++) {
            if (deps[d] < 0 || (size_t)deps[d] >= i) {
                return SP_ERR_INVALID; /* a later op: the program would not be acyclic */
            }
        }
        f->lane_of[i] = lane;
        f->lane_at[lane + 1]++;
        f->dep_at[i] = ndep;
        ndep += (size_t)nd;
    }
    f->dep_at[f->n] = ndep;
    f->dep = calloc(ndep > 0 ? ndep : 1, sizeof(*f->dep));
    if (f->dep == NULL) {
        return SP_ERR_NOMEM;
    }
    for (size_t i = 0; i < f->n; i++) {
        const int32_t *deps = NULL;
        int nd = 0;
        describe(ctx, i, &deps, &nd);
        for (int d = 0; d < nd; d++) {
            f->dep[f->dep_at[i] + (size_t)d] = (size_t)deps[d];
        }
    }
    return SP_OK;
}

sp_status_t sp_lanefeed_create(size_t n, int nlanes, const sp_lanefeed_limits_t *limits,
                               sp_lanefeed_describe_fn describe, void *ctx, sp_lanefeed_t **f_p)
{
    sp_lanefeed_t *f = calloc(1, sizeof(*f));
    sp_status_t st = SP_OK;

    if (f == NULL) {
        return SP_ERR_NOMEM;
    }
    f->n = n;
    f->nlanes = nlanes;
    f->lim = *limits;
    f->lane_of = calloc(n + 1, sizeof(*f->lane_of));
    f->pos = calloc(n + 1, sizeof(*f->pos));
    f->dep_at = calloc(n + 1, sizeof(*f->dep_at));
    f->list = calloc(n + 1, sizeof(*f->list));
    f->lane_at = calloc((size_t)nlanes + 1, sizeof(*f->lane_at));
    f->head = calloc((size_t)nlanes + 1, sizeof(*f->head));
    f->tail = calloc((size_t)nlanes + 1, sizeof(*f->tail));
    if (!f->lane_of || !f->pos || !f->dep_at || !f->list || !f->lane_at || !f->head || !f->tail) {
        st = SP_ERR_NOMEM;
    } else if (nlanes < 1 || limits->per_lane < 1) {
        st = SP_ERR_INVALID;
    } else {
        st = describe_all(f, describe, ctx);
    }
    for (int l = 0; l < nlanes && st == SP_OK; l++) {
        f->used += f->lane_at[l + 1] > 0;
        f->lane_at[l + 1] += f->lane_at[l];
    }
    if (st == SP_OK && limits->total < f->used) {
        st = SP_ERR_INVALID; /* the reserved slots need one per lane used */
    }
    if (st != SP_OK) {
        sp_lanefeed_destroy(f);
        return st;
    }
    for (size_t i = 0; i < n; i++) { /* each lane's list in program order */
        int l = f->lane_of[i];
        f->pos[i] = f->tail[l];
        f->list[f->lane_at[l] + f->tail[l]++] = i;
    }
    sp_lanefeed_begin(f);
    *f_p = f;
    return SP_OK;
}

int sp_lanefeed_lanes_used(const sp_lanefeed_t *f)
{
    return f->used;
}

void sp_lanefeed_begin(sp_lanefeed_t *f)
{
    for (int l = 0; l < f->nlanes; l++) {
        f->head[l] = f->tail[l] = 0;
    }
    f->extra = 0;
    f->retired = 0;
}

int sp_lanefeed_inflight(const sp_lanefeed_t *f, int lane)
{
    return (int)(f->tail[lane] - f->head[lane]);
}

size_t sp_lanefeed_unqueued(const sp_lanefeed_t *f)
{
    size_t queued = 0;

    for (int l = 0; l < f->nlanes; l++) {
        queued += f->tail[l];
    }
    return f->n - queued;
}

static size_t lane_len(const sp_lanefeed_t *f, int l)
{
    return f->lane_at[l + 1] - f->lane_at[l];
}

int sp_lanefeed_enqueued(const sp_lanefeed_t *f, size_t op)
{
    return f->pos[op] < f->tail[f->lane_of[op]];
}

/* Room on lane l for one more op: below per_lane, and either the lane's reserved slot (nothing
 * in flight) or a shared slot (total - used of them). */
static int room(const sp_lanefeed_t *f, int l)
{
    int in = sp_lanefeed_inflight(f, l);

    return in < f->lim.per_lane && (in == 0 || f->extra < f->lim.total - f->used);
}

static int deps_enqueued(const sp_lanefeed_t *f, size_t op)
{
    for (size_t d = f->dep_at[op]; d < f->dep_at[op + 1]; d++) {
        if (!sp_lanefeed_enqueued(f, f->dep[d])) {
            return 0;
        }
    }
    return 1;
}

/* Retire the completed ops at the lanes' heads. */
static sp_status_t retire(sp_lanefeed_t *f, const sp_lanefeed_hooks_t *h, void *ctx, int *prog_p)
{
    for (int l = 0; l < f->nlanes; l++) {
        while (f->head[l] < f->tail[l]) {
            int done = 0;
            sp_status_t st = h->query(ctx, f->list[f->lane_at[l] + f->head[l]], &done);
            if (st != SP_OK) {
                return st;
            }
            if (!done) {
                break;
            }
            f->extra -= f->tail[l] - f->head[l] > 1;
            f->head[l]++;
            f->retired++;
            *prog_p = 1;
        }
    }
    return SP_OK;
}

static void note_peaks(sp_lanefeed_t *f, int l)
{
    int total = 0;

    for (int k = 0; k < f->nlanes; k++) {
        total += sp_lanefeed_inflight(f, k);
    }
    if (sp_lanefeed_inflight(f, l) > f->stats.peak_lane) {
        f->stats.peak_lane = sp_lanefeed_inflight(f, l);
    }
    if (total > f->stats.peak_total) {
        f->stats.peak_total = total;
    }
}

/* Enqueue while some lane's next op may go: the lowest program index first. */
static sp_status_t feed(sp_lanefeed_t *f, const sp_lanefeed_hooks_t *h, void *ctx, int *prog_p)
{
    for (;;) {
        size_t best = f->n, first = f->n;
        int best_lane = -1;
        for (int l = 0; l < f->nlanes; l++) {
            size_t op;
            if (f->tail[l] >= lane_len(f, l)) {
                continue;
            }
            op = f->list[f->lane_at[l] + f->tail[l]];
            first = op < first ? op : first;
            if (op < best && room(f, l) && deps_enqueued(f, op)) {
                best = op;
                best_lane = l;
            }
        }
        if (best_lane < 0) {
            f->stats.held += first < f->n; /* ops are left and none may go now */
            return SP_OK;
        }
        {
            sp_status_t st = h->enqueue(ctx, best);
            if (st != SP_OK) {
                return st;
            }
        }
        f->extra += f->tail[best_lane] > f->head[best_lane];
        f->tail[best_lane]++;
        note_peaks(f, best_lane);
        *prog_p = 1;
    }
}

sp_status_t sp_lanefeed_poll(sp_lanefeed_t *f, const sp_lanefeed_hooks_t *h, void *ctx,
                             int *progress_p, int *finished_p)
{
    int progress = 0;
    sp_status_t st = retire(f, h, ctx, &progress);

    if (st == SP_OK) {
        st = feed(f, h, ctx, &progress);
    }
    *progress_p = progress;
    *finished_p = st == SP_OK && f->retired == f->n;
    return st;
}

sp_status_t sp_lanefeed_run(sp_lanefeed_t *f, const sp_lanefeed_hooks_t *h, void *ctx)
{
    unsigned rounds = 0;
    int progress = 0, finished = 0;
    sp_status_t st;

    sp_lanefeed_begin(f);
    for (;;) {
        st = sp_lanefeed_poll(f, h, ctx, &progress, &finished);
        if (st != SP_OK || finished) {
            return st;
        }
        rounds = progress ? 0 : rounds + 1;
        if (rounds > 0) {
            st = h->idle(ctx, rounds);
            if (st != SP_OK) {
                return st;
            }
        }
    }
}

void sp_lanefeed_stats(const sp_lanefeed_t *f, sp_lanefeed_stats_t *stats_p)
{
    *stats_p = f->stats;
}
