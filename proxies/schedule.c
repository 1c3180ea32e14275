/* The schedule registry (the list in schedule.h), the two placements and the checks shared by
 * every schedule. Each schedule's order is in its own file, proxies/sched_<name>.c. */
#include "schedule.h"

#include <string.h>

#include "log.h"
#include "sched_hooks.h"

#define SP_SCHED_EXTERN_(kind, name, row) extern const sp_schedule_t row;
SP_SCHEDULE_LIST(SP_SCHED_EXTERN_)
#undef SP_SCHED_EXTERN_

#define SP_SCHED_ROW_(kind, name, row) [kind] = &row,
static const sp_schedule_t *const sched_table[SP_SCHED_COUNT] = {SP_SCHEDULE_LIST(SP_SCHED_ROW_)};
#undef SP_SCHED_ROW_

#define SP_SCHED_NAME_(kind, name, row) [kind] = name,
const char *const sp_schedule_names[SP_SCHED_COUNT] = {SP_SCHEDULE_LIST(SP_SCHED_NAME_)};
#undef SP_SCHED_NAME_

/* ---- placements ---- */

/* Megatron's: chunk c of stage r holds virtual stage c*p + r, so the model loops over the stages
 * v times and the forward crosses from stage p-1 back to stage 0 between chunks. */
static int loop_vstage(int p, int v, int stage, int chunk)
{
    (void)v;
    return chunk * p + stage;
}

static void loop_locate(int p, int v, int vstage, int *stage_p, int *chunk_p)
{
    (void)v;
    *stage_p = vstage % p;
    *chunk_p = vstage / p;
}

/* The V (ZB-V, DualPipe-V; v == 2): chunk 0 of stage r holds virtual stage r, chunk 1 holds
 * 2p-1-r, so the forward runs down the stages and back up, turning on stage p-1 without a
 * message, and stage 0 holds both the first and the last virtual stage. */
static int v_vstage(int p, int v, int stage, int chunk)
{
    (void)v;
    return chunk == 0 ? stage : 2 * p - 1 - stage;
}

static void v_locate(int p, int v, int vstage, int *stage_p, int *chunk_p)
{
    (void)v;
    *chunk_p = vstage < p ? 0 : 1;
    *stage_p = vstage < p ? vstage : 2 * p - 1 - vstage;
}

const sp_sched_placement_t sp_sched_place_loop = {"loop", loop_vstage, loop_locate};
const sp_sched_placement_t sp_sched_place_v = {"v", v_vstage, v_locate};

/* ---- helpers for the schedule files ---- */

void sp__sched_emit(sp_sched_op_t *ops, size_t *n, int type, int microbatch, int chunk)
{
    ops[(*n)++] = (sp_sched_op_t){
        .type = (int8_t)type, .microbatch = (int32_t)microbatch, .chunk = (int32_t)chunk};
}

const char *sp__sched_needs_v1(int p, int m, int v)
{
    (void)p, (void)m;
    return v == 1 ? NULL : "this schedule takes one chunk per stage (--chunks 1)";
}

const char *sp__sched_needs_v2(int p, int m, int v)
{
    (void)p, (void)m;
    return v == 2 ? NULL : "this schedule takes exactly two chunks per stage (--chunks 2)";
}

/* ---- the registry's interface ---- */

const sp_schedule_t *sp_schedule_get(sp_sched_kind_t kind)
{
    return (unsigned)kind < SP_SCHED_COUNT ? sched_table[kind] : NULL;
}

const char *sp_schedule_kind_name(sp_sched_kind_t kind)
{
    return (unsigned)kind < SP_SCHED_COUNT ? sp_schedule_names[kind] : "?";
}

sp_status_t sp_schedule_kind_from_name(const char *name, sp_sched_kind_t *kind_p)
{
    if (name == NULL || kind_p == NULL) {
        return SP_ERR_INVALID;
    }
    for (int k = 0; k < SP_SCHED_COUNT; k++) {
        if (strcmp(name, sp_schedule_names[k]) == 0) {
            *kind_p = (sp_sched_kind_t)k;
            return SP_OK;
        }
    }
    return SP_ERR_INVALID;
}

/* The checks before a schedule's own rules. */
static const char *why_out_of_range(const sp_schedule_t *s, int p, int m, int v)
{
    if (s == NULL) {
        return "unknown schedule kind";
    }
    if (p < 1 || m < 1 || v < 1) {
        return "p, m and v must be at least 1";
    }
    /* every count the builders form (3*m*v ops, table indexes) stays inside int32 */
    if ((int64_t)m * v > INT32_MAX / 3) {
        return "m*v is too large";
    }
    if ((int64_t)p * v > INT32_MAX / 2) {
        return "p*v is too large";
    }
    return NULL;
}

const char *sp_schedule_why_invalid(sp_sched_kind_t kind, int p, int m, int v)
{
    const sp_schedule_t *s = sp_schedule_get(kind);
    const char *why = why_out_of_range(s, p, m, v);

    return why != NULL ? why : s->invalid(p, m, v);
}

size_t sp_schedule_op_count(sp_sched_kind_t kind, int p, int m, int v)
{
    if (sp_schedule_why_invalid(kind, p, m, v) != NULL) {
        return 0;
    }
    return (size_t)(sched_table[kind]->split_bw ? 3 : 2) * (size_t)m * (size_t)v;
}

int sp_schedule_vstage(sp_sched_kind_t kind, int p, int v, int stage, int chunk)
{
    const sp_schedule_t *s = sp_schedule_get(kind);

    if (s == NULL || p < 1 || v < 1 || stage < 0 || stage >= p || chunk < 0 || chunk >= v) {
        return -1;
    }
    return s->placement->vstage(p, v, stage, chunk);
}

void sp_schedule_locate(sp_sched_kind_t kind, int p, int v, int vstage, int *stage_p, int *chunk_p)
{
    const sp_schedule_t *s = sp_schedule_get(kind);

    *stage_p = -1;
    *chunk_p = -1;
    if (s != NULL && p >= 1 && v >= 1 && vstage >= 0 && (int64_t)vstage < (int64_t)p * v) {
        s->placement->locate(p, v, vstage, stage_p, chunk_p);
    }
}

int sp_schedule_splits_bw(sp_sched_kind_t kind)
{
    const sp_schedule_t *s = sp_schedule_get(kind);

    return s != NULL && s->split_bw;
}

const char *sp_schedule_why_invalid_grouped(sp_sched_kind_t kind, int p, int m, int v, int group)
{
    const sp_schedule_t *s = sp_schedule_get(kind);
    const char *why = why_out_of_range(s, p, m, v);

    if (why != NULL || group == 0) {
        return why != NULL ? why : s->invalid(p, m, v);
    }
    if (s->invalid_grouped == NULL) {
        return "only the interleaved schedule has a microbatch group size";
    }
    return s->invalid_grouped(p, m, v, group);
}

sp_status_t sp_schedule_build(sp_sched_kind_t kind, int p, int m, int v, int stage,
                              sp_sched_op_t *ops, size_t max, size_t *n_p)
{
    return sp_schedule_build_grouped(kind, p, m, v, 0, stage, ops, max, n_p);
}

sp_status_t sp_schedule_build_grouped(sp_sched_kind_t kind, int p, int m, int v, int group,
                                      int stage, sp_sched_op_t *ops, size_t max, size_t *n_p)
{
    const char *why = sp_schedule_why_invalid_grouped(kind, p, m, v, group);
    sp_status_t st;

    if (why != NULL) {
        sp_error("schedule %s (p=%d, m=%d, v=%d, group %d): %s", sp_schedule_kind_name(kind), p,
                 m, v, group, why);
        return SP_ERR_INVALID;
    }
    if (stage < 0 || stage >= p) {
        sp_error("schedule %s: stage %d outside [0, %d)", sp_schedule_kind_name(kind), stage, p);
        return SP_ERR_INVALID;
    }
    const size_t need = (size_t)(sched_table[kind]->split_bw ? 3 : 2) * (size_t)m * (size_t)v;
    if (ops == NULL || n_p == NULL || max < need) {
        sp_error("schedule %s: room for %zu ops, %zu needed", sp_schedule_kind_name(kind),
                 ops == NULL ? (size_t)0 : max, need);
        return SP_ERR_INVALID;
    }
    st = group == 0 ? sched_table[kind]->build(p, m, v, stage, ops)
                    : sched_table[kind]->build_grouped(p, m, v, group, stage, ops);
    if (st == SP_ERR_NOMEM) {
        sp_error("schedule %s: no memory for the order of p=%d, m=%d", sp_schedule_kind_name(kind),
                 p, m);
    }
    if (st == SP_OK) {
        *n_p = need;
    }
    return st;
}
