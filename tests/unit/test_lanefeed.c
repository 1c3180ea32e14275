/* Unit tests of src/base/lanefeed.h, the proxy's bounded lane enqueue: on a simulated device
 * (ranks, in-order lanes, matched ops that run only when every member is at its lane's head) a
 * 2-rank, 2-lane program deadlocks when its ops are enqueued in program order into queues that
 * block when full, and completes through the feeder; over random programs the feeder never
 * exceeds its limits, never enqueues an op before its dependencies, and completes every program
 * that completes unbounded. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "lanefeed.h"

#define MAXR 3
#define MAXL 4
#define MAXN 64

typedef struct {
    int lane;
    int match; /* ops of several ranks with one id run together; -1: local */
    int ndeps;
    int32_t deps[3];
} sim_op_t;

typedef struct {
    int nops;
    sim_op_t op[MAXN];
    /* device state */
    int queue[MAXL][MAXN];
    int qhead[MAXL], qtail[MAXL];
    int done[MAXN], enq[MAXN];
    int next;        /* program-order mode: the next op to enqueue */
    int lane_cap;    /* the device's queue: ops a lane holds before an enqueue blocks; 0: none */
    int device_cap;  /* ops all lanes hold together before an enqueue blocks; 0: none */
    sp_lanefeed_t *feed;
    sp_lanefeed_limits_t lim;
    int fed_done;
} sim_rank_t;

typedef struct {
    int nranks, nlanes;
    sim_rank_t r[MAXR];
} sim_t;

static int in_queue(const sim_rank_t *r, int lane)
{
    return r->qtail[lane] - r->qhead[lane];
}

static int in_device(const sim_rank_t *r, int nlanes)
{
    int total = 0;

    for (int l = 0; l < nlanes; l++) {
        total += in_queue(r, l);
    }
    return total;
}

/* 1 when op is at its lane's head with its dependencies complete. */
static int ready(const sim_rank_t *r, int op)
{
    const sim_op_t *o = &r->op[op];

    if (r->qhead[o->lane] == r->qtail[o->lane] || r->queue[o->lane][r->qhead[o->lane]] != op) {
        return 0;
    }
    for (int d = 0; d < o->ndeps; d++) {
        if (!r->done[o->deps[d]]) {
            return 0;
        }
    }
    return 1;
}

/* One device tick: every ready local op completes; a matched op completes when all members
 * (one per rank that has the id) are ready. Returns how many completed. */
static int device_tick(sim_t *s)
{
    int heads[MAXR][MAXL];
    int completed = 0;

    for (int k = 0; k < s->nranks; k++) { /* the heads as the tick starts */
        for (int l = 0; l < s->nlanes; l++) {
            sim_rank_t *r = &s->r[k];
            heads[k][l] = r->qhead[l] < r->qtail[l] && ready(r, r->queue[l][r->qhead[l]])
                              ? r->queue[l][r->qhead[l]] : -1;
        }
    }
    for (int k = 0; k < s->nranks; k++) {
        for (int l = 0; l < s->nlanes; l++) {
            int op = heads[k][l], all = 1;
            if (op < 0) {
                continue;
            }
            for (int j = 0; j < s->nranks && s->r[k].op[op].match >= 0; j++) {
                int found = 0, has = 0;
                for (int i = 0; i < s->r[j].nops; i++) {
                    has |= s->r[j].op[i].match == s->r[k].op[op].match;
                }
                for (int m = 0; m < s->nlanes; m++) {
                    found |= heads[j][m] >= 0 &&
                             s->r[j].op[heads[j][m]].match == s->r[k].op[op].match;
                }
                all &= !has || found;
            }
            if (all) {
                s->r[k].done[op] = 1;
                s->r[k].qhead[l]++;
                completed++;
            }
        }
    }
    return completed;
}

static void push(sim_rank_t *r, int nlanes, int op)
{
    int l = r->op[op].lane;

    for (int d = 0; d < r->op[op].ndeps; d++) {
        assert_true(r->enq[r->op[op].deps[d]]); /* never before a dependency */
    }
    /* the feeder must never find a full device queue: it would block there */
    assert_true(r->lane_cap == 0 || in_queue(r, l) < r->lane_cap);
    assert_true(r->device_cap == 0 || in_device(r, nlanes) < r->device_cap);
    r->queue[l][r->qtail[l]++] = op;
    r->enq[op] = 1;
}

static sim_t *g_sim; /* the hooks' rank is ctx; the lane count comes from here */

static sp_status_t h_enqueue(void *ctx, size_t op)
{
    sim_rank_t *r = ctx;
    int total = 0;

    assert_false(sp_lanefeed_enqueued(r->feed, op));
    push(r, g_sim->nlanes, (int)op);
    for (int l = 0; l < g_sim->nlanes; l++) {
        int in = 0;
        for (int i = 0; i < r->nops; i++) {
            in += r->op[i].lane == l && r->enq[i] && !r->done[i];
        }
        assert_true(in <= r->lim.per_lane); /* the bound, counted independently */
        total += in;
    }
    assert_true(total <= r->lim.total);
    return SP_OK;
}

static sp_status_t h_query(void *ctx, size_t op, int *done_p)
{
    const sim_rank_t *r = ctx;

    assert_true(r->enq[op]);
    *done_p = r->done[op];
    return SP_OK;
}

static sp_status_t h_idle(void *ctx, unsigned rounds)
{
    (void)ctx;
    (void)rounds;
    return SP_OK;
}

static const sp_lanefeed_hooks_t hooks = {h_enqueue, h_query, h_idle};

static int describe(void *ctx, size_t op, const int32_t **deps_p, int *ndeps_p)
{
    const sim_rank_t *r = ctx;

    *deps_p = r->op[op].deps;
    *ndeps_p = r->op[op].ndeps;
    return r->op[op].lane;
}

static void reset(sim_t *s)
{
    for (int k = 0; k < s->nranks; k++) {
        sim_rank_t *r = &s->r[k];
        memset(r->qhead, 0, sizeof(r->qhead));
        memset(r->qtail, 0, sizeof(r->qtail));
        memset(r->done, 0, sizeof(r->done));
        memset(r->enq, 0, sizeof(r->enq));
        r->next = 0;
        r->fed_done = 0;
    }
}

static int all_done(const sim_t *s)
{
    for (int k = 0; k < s->nranks; k++) {
        for (int i = 0; i < s->r[k].nops; i++) {
            if (!s->r[k].done[i]) {
                return 0;
            }
        }
    }
    return 1;
}

/* Program order into blocking queues (lane_cap / device_cap; 0 each: unbounded). 1 when every
 * op completes, 0 on a deadlock (a tick where nothing is enqueued and nothing completes). */
static int run_in_order(sim_t *s, int lane_cap, int device_cap)
{
    reset(s);
    for (;;) {
        int moved = 0;
        for (int k = 0; k < s->nranks; k++) {
            sim_rank_t *r = &s->r[k];
            r->lane_cap = lane_cap;
            r->device_cap = device_cap;
            /* the host thread enqueues until the queue it needs is full (it blocks there) */
            while (r->next < r->nops &&
                   (lane_cap == 0 || in_queue(r, r->op[r->next].lane) < lane_cap) &&
                   (device_cap == 0 || in_device(r, s->nlanes) < device_cap)) {
                push(r, s->nlanes, r->next++);
                moved = 1;
            }
        }
        moved |= device_tick(s) > 0;
        if (all_done(s)) {
            return 1;
        }
        if (!moved) {
            return 0;
        }
    }
}

/* Every rank through its feeder, device queues of lane_cap / device_cap that must never fill. */
static int run_fed(sim_t *s, const sp_lanefeed_limits_t *lim, int lane_cap, int device_cap)
{
    g_sim = s;
    reset(s);
    for (int k = 0; k < s->nranks; k++) {
        sim_rank_t *r = &s->r[k];
        r->lim = *lim;
        r->lane_cap = lane_cap;
        r->device_cap = device_cap;
        assert_int_equal(sp_lanefeed_create((size_t)r->nops, s->nlanes, lim, describe, r,
                                            &r->feed), SP_OK);
        sp_lanefeed_begin(r->feed);
    }
    for (int stuck = 0; stuck < 3;) {
        int moved = 0, finished = 1;
        for (int k = 0; k < s->nranks; k++) {
            sim_rank_t *r = &s->r[k];
            int progress = 0;
            if (!r->fed_done) {
                assert_int_equal(sp_lanefeed_poll(r->feed, &hooks, r, &progress, &r->fed_done),
                                 SP_OK);
            }
            moved |= progress;
            finished &= r->fed_done;
        }
        if (finished) {
            break;
        }
        moved |= device_tick(s) > 0;
        stuck = moved ? 0 : stuck + 1;
    }
    for (int k = 0; k < s->nranks; k++) {
        sp_lanefeed_stats_t st;
        sp_lanefeed_stats(s->r[k].feed, &st);
        if (s->r[k].fed_done) {
            assert_int_equal(sp_lanefeed_unqueued(s->r[k].feed), 0);
        }
        assert_true(st.peak_lane <= lim->per_lane);
        assert_true(st.peak_total <= lim->total);
        sp_lanefeed_destroy(s->r[k].feed);
        s->r[k].feed = NULL;
    }
    return all_done(s);
}

static void add(sim_rank_t *r, int lane, int match, int dep)
{
    sim_op_t *o = &r->op[r->nops++];

    o->lane = lane;
    o->match = match;
    o->ndeps = dep >= 0;
    o->deps[0] = dep;
}

/* Rank 0 sends on lane A three times, then receives on lane B; rank 1 first sends on lane B,
 * then receives on lane A, its first receive posted after its send (a dependency). With a
 * 2-deep blocking queue, rank 0's third send blocks its thread before its receive is enqueued:
 * rank 1's send on B never matches, its receives on A never start. The feeder completes it. */
static void build_cross(sim_t *s)
{
    memset(s, 0, sizeof(*s));
    s->nranks = 2;
    s->nlanes = 2;
    for (int i = 0; i < 3; i++) {
        add(&s->r[0], 0, 10 + i, -1);
    }
    add(&s->r[0], 1, 20, -1);
    add(&s->r[1], 1, 20, -1);
    add(&s->r[1], 0, 10, 0);
    add(&s->r[1], 0, 11, -1);
    add(&s->r[1], 0, 12, -1);
}

static void test_blocking_queue_deadlocks_feeder_completes(void **state)
{
    sim_t s;

    (void)state;
    build_cross(&s);
    assert_int_equal(run_in_order(&s, 0, 0), 1);  /* the program is sound unbounded */
    assert_int_equal(run_in_order(&s, 2, 0), 0);  /* a full lane queue blocks: deadlock */
    assert_int_equal(run_in_order(&s, 0, 2), 0);  /* so does a full device-wide queue */
    for (int per = 1; per <= 2; per++) {
        for (int total = 2; total <= 4; total++) {
            sp_lanefeed_limits_t lim = {per, total};
            /* device queues of the feeder's limits: it never finds one full */
            build_cross(&s);
            assert_int_equal(run_fed(&s, &lim, per, total), 1);
        }
    }
}

/* A total without the lanes' reserved slots is a device-wide queue of that size: the same
 * deadlock. The feeder refuses a total below the lanes used instead. */
static void test_total_below_lanes_refused(void **state)
{
    sim_t s;
    sp_lanefeed_limits_t lim = {4, 1};
    sp_lanefeed_t *f = NULL;

    (void)state;
    build_cross(&s);
    assert_int_equal(sp_lanefeed_create(4, 2, &lim, describe, &s.r[0], &f), SP_ERR_INVALID);
    assert_null(f);
    lim.per_lane = 0;
    lim.total = 4;
    assert_int_equal(sp_lanefeed_create(4, 2, &lim, describe, &s.r[0], &f), SP_ERR_INVALID);
    s.r[0].op[1].ndeps = 1;
    s.r[0].op[1].deps[0] = 3; /* a later op */
    lim.per_lane = 1;
    assert_int_equal(sp_lanefeed_create(4, 2, &lim, describe, &s.r[0], &f), SP_ERR_INVALID);
    s.r[0].op[1].deps[0] = 0;
    assert_int_equal(sp_lanefeed_create(4, 2, &lim, describe, &s.r[0], &f), SP_OK);
    assert_int_equal(sp_lanefeed_lanes_used(f), 2);
    sp_lanefeed_destroy(f);
    sp_lanefeed_destroy(NULL);
}

static uint32_t lcg(uint32_t *x)
{
    *x = *x * 1664525u + 1013904223u;
    return *x >> 8;
}

/* Random programs: per lane, a sequence of matched ops between random members (the same order
 * on every member, as the engine's lanes carry them) and local ops; each rank interleaves its
 * lanes at random (the ranks disagree on the order across lanes) and adds random dependencies
 * on its earlier ops. Kept when the unbounded run completes. */
static int build_random(sim_t *s, uint32_t *seed)
{
    int match = 0;

    memset(s, 0, sizeof(*s));
    s->nranks = 2 + (int)(lcg(seed) % 2);
    s->nlanes = 2 + (int)(lcg(seed) % 3);
    for (int l = 0; l < s->nlanes; l++) {
        int len = 3 + (int)(lcg(seed) % 6);
        for (int i = 0; i < len; i++) {
            int members = (int)(lcg(seed) % (1u << s->nranks));
            int id = lcg(seed) % 4 == 0 ? -1 : match++;
            for (int k = 0; k < s->nranks; k++) {
                if (id < 0 ? k == (int)(lcg(seed) % (unsigned)s->nranks) : (members >> k) & 1) {
                    /* queued per lane; the interleave below makes them a program */
                    s->r[k].queue[l][s->r[k].qtail[l]++] = id;
                }
            }
        }
    }
    for (int k = 0; k < s->nranks; k++) {
        sim_rank_t *r = &s->r[k];
        int left = 0;
        for (int l = 0; l < s->nlanes; l++) {
            left += r->qtail[l];
        }
        while (left-- > 0) {
            int l;
            do {
                l = (int)(lcg(seed) % (unsigned)s->nlanes);
            } while (r->qhead[l] == r->qtail[l]);
            add(r, l, r->queue[l][r->qhead[l]++],
                r->nops > 0 && lcg(seed) % 3 == 0 ? (int)(lcg(seed) % (unsigned)r->nops) : -1);
        }
    }
    return run_in_order(s, 0, 0);
}

static void test_random_programs(void **state)
{
    uint32_t seed = 2026;
    int kept = 0, blocked = 0;

    (void)state;
    for (int trial = 0; trial < 400; trial++) {
        sim_t s;
        sp_lanefeed_limits_t lim;
        if (!build_random(&s, &seed)) {
            continue; /* deadlocks even unbounded: not a program the engine would build */
        }
        kept++;
        lim.per_lane = 1 + (int)(lcg(&seed) % 3);
        lim.total = s.nlanes + (int)(lcg(&seed) % 3);
        /* device queues of exactly the feeder's limits: in program order they fill and block */
        blocked += !run_in_order(&s, lim.per_lane, lim.total);
        assert_int_equal(run_fed(&s, &lim, lim.per_lane, lim.total), 1);
    }
    print_message("random programs: %d sound unbounded, %d of them deadlock in program order "
                  "into blocking queues of the feeder's limits, 0 through the feeder\n", kept,
                  blocked);
    assert_true(kept >= 100);
    assert_true(blocked > 0); /* the random programs do exercise the hazard */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blocking_queue_deadlocks_feeder_completes),
        cmocka_unit_test(test_total_below_lanes_refused),
        cmocka_unit_test(test_random_programs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
