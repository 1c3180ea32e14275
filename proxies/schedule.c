/* Pipeline schedules as pure functions of (kind, p, m, v, stage): GPipe, Megatron's 1F1B and
 * interleaved 1F1B, and zero-bubble ZB-H1. The orders are documented in schedule.h. */
#include "schedule.h"

#include <string.h>

#include "log.h"

/* Per-call state of a builder: where ops go. Capacity was checked before building. */
typedef struct {
    sp_sched_op_t *ops;
    size_t n;
} sched_out_t;

typedef void (*sched_build_fn)(int p, int m, int v, int stage, sched_out_t *out);

static void emit(sched_out_t *out, int type, int microbatch, int chunk)
{
    out->ops[out->n++] = (sp_sched_op_t){
        .type = (int8_t)type, .microbatch = (int32_t)microbatch, .chunk = (int32_t)chunk};
}

static int min_int(int a, int b)
{
    return a < b ? a : b;
}

static void build_gpipe(int p, int m, int v, int stage, sched_out_t *out)
{
    (void)p, (void)v, (void)stage;
    for (int mb = 0; mb < m; mb++) {
        emit(out, SP_SCHED_OP_F, mb, 0);
    }
    for (int mb = 0; mb < m; mb++) {
        emit(out, SP_SCHED_OP_B, mb, 0);
    }
}

/* 1F1B and ZB-H1 share the F/B order. w_lag < 0: no W ops (plain 1F1B); otherwise W(j) follows
 * B(j + w_lag) and the W's left over follow the last B. */
static void build_1f1b_lagged_w(int p, int m, int stage, int w_lag, sched_out_t *out)
{
    const int warmup = min_int(p - stage - 1, m);
    int next_w = 0;

    for (int i = 0; i < warmup; i++) {
        emit(out, SP_SCHED_OP_F, i, 0);
    }
    for (int b = 0; b < m; b++) {
        if (b < m - warmup) {
            emit(out, SP_SCHED_OP_F, warmup + b, 0);
        }
        emit(out, SP_SCHED_OP_B, b, 0);
        if (w_lag >= 0 && b - w_lag >= 0) {
            emit(out, SP_SCHED_OP_W, b - w_lag, 0);
            next_w = b - w_lag + 1;
        }
    }
    for (int mb = next_w; w_lag >= 0 && mb < m; mb++) {
        emit(out, SP_SCHED_OP_W, mb, 0);
    }
}

static void build_1f1b(int p, int m, int v, int stage, sched_out_t *out)
{
    (void)v;
    build_1f1b_lagged_w(p, m, stage, -1, out);
}

static void build_zbh1(int p, int m, int v, int stage, sched_out_t *out)
{
    (void)v;
    build_1f1b_lagged_w(p, m, stage, stage, out);
}

/* Entry k of Megatron's interleaved schedule table with group size n, computed in place of
 * the table: groups of n microbatches (the last one holds the rest), each listed chunk by
 * chunk. */
static void interleaved_entry(int m, int v, int n, int k, int *mb_p, int *chunk_p)
{
    const int groups = (m + n - 1) / n;
    int group = k / (n * v);
    int size = n;

    if (group >= groups - 1) {
        group = groups - 1;
        size = m - group * n;
    }
    const int off = k - group * n * v;
    *chunk_p = off / size;
    *mb_p = group * n + off % size;
}

static void build_interleaved(int p, int m, int v, int stage, sched_out_t *out)
{
    const int n = p; /* Megatron's default microbatch_group_size_per_vp_stage */
    const int total = m * v;
    const int warmup = min_int((p - stage - 1) * 2 + (v - 1) * n, total);
    int mb, c;

    for (int k = 0; k < warmup; k++) {
        interleaved_entry(m, v, n, k, &mb, &c);
        emit(out, SP_SCHED_OP_F, mb, c);
    }
    /* steady: forward k+warmup then backward k; cool-down: the backwards left */
    for (int k = 0; k < total; k++) {
        if (k < total - warmup) {
            interleaved_entry(m, v, n, k + warmup, &mb, &c);
            emit(out, SP_SCHED_OP_F, mb, c);
        }
        interleaved_entry(m, v, n, k, &mb, &c);
        emit(out, SP_SCHED_OP_B, mb, v - 1 - c);
    }
}

static const struct {
    const char *name;
    sched_build_fn build;
} sched_table[SP_SCHED_COUNT] = {
    [SP_SCHED_GPIPE] = {"gpipe", build_gpipe},
    [SP_SCHED_1F1B] = {"1f1b", build_1f1b},
    [SP_SCHED_INTERLEAVED] = {"interleaved", build_interleaved},
    [SP_SCHED_ZBH1] = {"zb-h1", build_zbh1},
};

const char *sp_schedule_kind_name(sp_sched_kind_t kind)
{
    if ((int)kind < 0 || kind >= SP_SCHED_COUNT) {
        return "?";
    }
    return sched_table[kind].name;
}

sp_status_t sp_schedule_kind_from_name(const char *name, sp_sched_kind_t *kind_p)
{
    if (name == NULL || kind_p == NULL) {
        return SP_ERR_INVALID;
    }
    for (int k = 0; k < SP_SCHED_COUNT; k++) {
        if (strcmp(name, sched_table[k].name) == 0) {
            *kind_p = (sp_sched_kind_t)k;
            return SP_OK;
        }
    }
    return SP_ERR_INVALID;
}

/* Why (p, m, v) is not a valid configuration of kind, or NULL when it is. */
static const char *sched_invalid_why(sp_sched_kind_t kind, int p, int m, int v)
{
    if ((int)kind < 0 || kind >= SP_SCHED_COUNT) {
        return "unknown schedule kind";
    }
    if (p < 1 || m < 1 || v < 1) {
        return "p, m and v must be at least 1";
    }
    /* every count the builders form (3*m*v ops, table indexes) stays inside int32 */
    if ((int64_t)m * v > INT32_MAX / 3) {
        return "m*v is too large";
    }
    if (kind != SP_SCHED_INTERLEAVED) {
        return v == 1 ? NULL : "only the interleaved schedule takes v > 1";
    }
    if (p < 2) {
        return "the interleaved schedule needs p >= 2";
    }
    if (v < 2) {
        return "the interleaved schedule needs v >= 2";
    }
    if (m % p != 0) {
        return "the interleaved schedule needs m to be a multiple of p (Megatron's rule)";
    }
    return NULL;
}

size_t sp_schedule_op_count(sp_sched_kind_t kind, int p, int m, int v)
{
    if (sched_invalid_why(kind, p, m, v) != NULL) {
        return 0;
    }
    return kind == SP_SCHED_ZBH1 ? (size_t)3 * (size_t)m : (size_t)2 * (size_t)m * (size_t)v;
}

sp_status_t sp_schedule_build(sp_sched_kind_t kind, int p, int m, int v, int stage,
                              sp_sched_op_t *ops, size_t max, size_t *n_p)
{
    const char *why = sched_invalid_why(kind, p, m, v);

    if (why != NULL) {
        sp_error("schedule %s (p=%d, m=%d, v=%d): %s", sp_schedule_kind_name(kind), p, m, v, why);
        return SP_ERR_INVALID;
    }
    if (stage < 0 || stage >= p) {
        sp_error("schedule %s: stage %d outside [0, %d)", sp_schedule_kind_name(kind), stage, p);
        return SP_ERR_INVALID;
    }
    const size_t need = sp_schedule_op_count(kind, p, m, v);
    if (ops == NULL || n_p == NULL || max < need) {
        sp_error("schedule %s: room for %zu ops, %zu needed", sp_schedule_kind_name(kind),
                 ops == NULL ? (size_t)0 : max, need);
        return SP_ERR_INVALID;
    }

    sched_out_t out = {.ops = ops, .n = 0};
    sched_table[kind].build(p, m, v, stage, &out);
    *n_p = out.n;
    return SP_OK;
}
