/* ZB-V, the memory-efficient zero-bubble schedule of Qi et al. ("Zero Bubble Pipeline
 * Parallelism", ICLR 2024, arXiv 2401.10241, section 6): two chunks per stage in the V placement
 * (chunk 0 of stage r holds virtual stage r, chunk 1 holds 2p-1-r: the forward runs down the
 * stages, turns on stage p-1 without a message and comes back up), the backward split into B
 * and W, and every stage holding at most 2p chunk activations (F done, W not yet), i.e. p
 * microbatches of a whole stage: 1F1B's peak.
 *
 * The order is this file's own greedy, built to the paper's rules: all p stages are simulated
 * together with every op taking one time unit and free communication; in each time unit each
 * stage runs, of the ops whose inputs exist,
 *   1. a forward, while it holds fewer than 2p activations: chunk 1 first (the older microbatch,
 *      on its way back up), else chunk 0 (a new microbatch);
 *   2. else a B: chunk 0 first (it unblocks the stage above), else chunk 1;
 *   3. else a W (chunk 0's, then chunk 1's, each in microbatch order), which frees an
 *      activation;
 * and the order is the sequence of ops it ran. F and B of one chunk run in microbatch order.
 * With uniform op times t and m >= 2p, the replay of these lists gives every stage an idle time
 * of exactly (p-1)*t per step (tests/unit/test_schedule.c, p <= 8, m <= 4p): the start-up of
 * stage p-1, which waits for the first forward to cross p-1 stages. The paper's bubble,
 * (p-1)(T_F + T_B - 2T_W) = 0 at equal times, is per iteration of steps that overlap (its
 * optimizer post-validation lets the next step start while this one drains); a step that starts
 * on idle stages, as here, adds that start-up. Unequal times leave more idle: the order is fixed
 * by the unit-time simulation. */
#include <stdlib.h>

#include "log.h"
#include "sched_hooks.h"

/* Per-stage state of the simulation: next F, B and W microbatch per chunk, activations held,
 * and the op chosen in the current time unit (-1: none, else type * 2 + chunk). */
typedef struct {
    int next[3][2];
    int held;
    int chosen;
} zbv_stage_t;

typedef struct {
    int p, m;
    int *f_done; /* per virtual stage: forwards done (they finish in microbatch order) */
    int *b_done; /* per virtual stage: B's done */
    zbv_stage_t *st;
} zbv_sim_t;

static int vs_of(const zbv_sim_t *s, int stage, int chunk)
{
    return sp_sched_place_v.vstage(s->p, 2, stage, chunk);
}

/* The op stage r runs in this time unit, as type * 2 + chunk, or -1. */
static int zbv_choose(const zbv_sim_t *s, int r)
{
    const zbv_stage_t *st = &s->st[r];
    const int last = 2 * s->p - 1;

    for (int c = 1; c >= 0 && st->held < 2 * s->p; c--) {
        int mb = st->next[SP_SCHED_OP_F][c], vs = vs_of(s, r, c);
        if (mb < s->m && (vs == 0 || mb < s->f_done[vs - 1])) {
            return SP_SCHED_OP_F * 2 + c;
        }
    }
    for (int c = 0; c <= 1; c++) {
        int mb = st->next[SP_SCHED_OP_B][c], vs = vs_of(s, r, c);
        if (mb < s->m && mb < s->f_done[vs] && (vs == last || mb < s->b_done[vs + 1])) {
            return SP_SCHED_OP_B * 2 + c;
        }
    }
    for (int c = 0; c <= 1; c++) {
        if (st->next[SP_SCHED_OP_W][c] < st->next[SP_SCHED_OP_B][c]) {
            return SP_SCHED_OP_W * 2 + c;
        }
    }
    return -1;
}

/* One time unit: every stage chooses from the state at its start, then the state advances.
 * Appends the op of stage `stage` to ops. Returns 0 when no stage could run anything. */
static int zbv_step(zbv_sim_t *s, int stage, sp_sched_op_t *ops, size_t *n)
{
    int ran = 0;

    for (int r = 0; r < s->p; r++) {
        s->st[r].chosen = zbv_choose(s, r);
    }
    for (int r = 0; r < s->p; r++) {
        zbv_stage_t *st = &s->st[r];
        if (st->chosen < 0) {
            continue;
        }
        const int type = st->chosen / 2, c = st->chosen % 2, vs = vs_of(s, r, c);
        if (r == stage) {
            sp__sched_emit(ops, n, type, st->next[type][c], c);
        }
        st->next[type][c]++;
        st->held += type == SP_SCHED_OP_F ? 1 : type == SP_SCHED_OP_W ? -1 : 0;
        s->f_done[vs] += type == SP_SCHED_OP_F;
        s->b_done[vs] += type == SP_SCHED_OP_B;
        ran = 1;
    }
    return ran;
}

static sp_status_t build(int p, int m, int v, int stage, sp_sched_op_t *ops)
{
    const size_t want = (size_t)6 * (size_t)m;
    zbv_sim_t s = {.p = p, .m = m};
    sp_status_t st = SP_OK;
    size_t n = 0;

    (void)v;
    s.f_done = calloc((size_t)4 * (size_t)p, sizeof(*s.f_done));
    s.st = calloc((size_t)p, sizeof(*s.st));
    if (s.f_done == NULL || s.st == NULL) {
        st = SP_ERR_NOMEM;
        goto out_free;
    }
    s.b_done = s.f_done + 2 * (size_t)p;
    while (n < want) {
        if (!zbv_step(&s, stage, ops, &n)) {
            /* cannot happen: the tests replay every p <= 8, m <= 24 to the end */
            sp_error("schedule zb-v (p=%d, m=%d): the simulation stalled", p, m);
            st = SP_ERR_INVALID;
            break;
        }
    }
out_free:
    free(s.st);
    free(s.f_done);
    return st;
}

const sp_schedule_t sp_sched_zbv = {
    .invalid = sp__sched_needs_v2,
    .split_bw = 1,
    .placement = &sp_sched_place_v,
    .build = build,
};
