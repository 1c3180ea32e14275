/* Interleaved 1F1B, Megatron-LM's forward_backward_pipelining_with_interleaving (group size
 * N: its microbatch_group_size_per_vp_stage, default p; --microbatch-group-size).
 * The schedule table takes microbatches in groups of N (the last group takes what is left) and,
 * per group, for chunk c = 0..v-1, for each microbatch mb of the group, appends (mb, c). Forward
 * k runs entry k; backward k runs entry k's microbatch on chunk v-1-c. Stage r does
 * W = min((p-r-1)*2 + (v-1)*N, m*v) forwards of warm-up; then for k = 0..m*v-W-1: forward W+k,
 * backward k; then backwards m*v-W..m*v-1. Chunk c of stage r holds virtual stage c*p + r. */
#include "sched_hooks.h"

/* Entry k of Megatron's interleaved schedule table with group size n, computed in place of
 * the table: groups of n microbatches (the last one holds the rest), each listed chunk by
 * chunk. */
static void table_entry(int m, int v, int n, int k, int *mb_p, int *chunk_p)
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

static sp_status_t build_grouped(int p, int m, int v, int n, int stage, sp_sched_op_t *ops)
{
    const int total = m * v;
    const int want = (p - stage - 1) * 2 + (v - 1) * n;
    const int warmup = want < total ? want : total;
    size_t at = 0;
    int mb, c;

    for (int k = 0; k < warmup; k++) {
        table_entry(m, v, n, k, &mb, &c);
        sp__sched_emit(ops, &at, SP_SCHED_OP_F, mb, c);
    }
    /* steady: forward k+warmup then backward k; cool-down: the backwards left */
    for (int k = 0; k < total; k++) {
        if (k < total - warmup) {
            table_entry(m, v, n, k + warmup, &mb, &c);
            sp__sched_emit(ops, &at, SP_SCHED_OP_F, mb, c);
        }
        table_entry(m, v, n, k, &mb, &c);
        sp__sched_emit(ops, &at, SP_SCHED_OP_B, mb, v - 1 - c);
    }
    return SP_OK;
}

static sp_status_t build(int p, int m, int v, int stage, sp_sched_op_t *ops)
{
    return build_grouped(p, m, v, p, stage, ops);
}

/* Megatron's checks of the group size N (schedules.py), whose messages these follow. */
static const char *invalid_grouped(int p, int m, int v, int n)
{
    if (p < 2) {
        return "the interleaved schedule needs p >= 2";
    }
    if (v < 2) {
        return "the interleaved schedule needs v >= 2";
    }
    if (n < p || n > m) {
        return "the number of contiguous microbatches in a virtual pipeline stage (the group "
               "size N) should range in [p, m]";
    }
    if (m % n != 0 && m % n < p) {
        return "the remainder of m divided by the group size N should be 0 or at least p";
    }
    return NULL;
}

static const char *invalid(int p, int m, int v)
{
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

const sp_schedule_t sp_sched_interleaved = {
    .invalid = invalid,
    .split_bw = 0,
    .placement = &sp_sched_place_loop,
    .build = build,
    .invalid_grouped = invalid_grouped,
    .build_grouped = build_grouped,
};
