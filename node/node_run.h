/* Shared by the two halves of `scaleprobe node` (not a public API): the measurements
 * (node_run.c) and the burn (node_burn.c). */
#ifndef SP_NODE_RUN_H
#define SP_NODE_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "context.h"
#include "node_dev.h"
#include "node_options.h"
#include "node_outliers.h"
#include "node_result.h"

typedef struct {
    sp_ctx_t *ctx;
    const sp_node_opts_t *o;
    void *host;           /* sp_node_host_ops state */
    void *gpu;            /* sp_node_gpu_ops state; NULL on the host backend */
    sp_node_dev_cfg_t cfg;
    int slow_rank;        /* SCALEPROBE_TEST_SLOW=RANK:FACTOR, -1: none */
    double slow_factor;
    int corrupt_rank;     /* SCALEPROBE_TEST_CORRUPT=RANK[:always], -1: none */
    int corrupt_always;   /* ":always": every result of that rank, the reference too (a
                           * deterministic fault, which only the cross-rank check can see) */
    size_t max_samples;
    double *times;        /* this rank's samples (s), max_samples */
    double *scratch;      /* max_samples + sp_stop_rule_scratch_len(max_samples) doubles */
    /* rank 0 only: every rank's samples and the tables built from them */
    double *all_times;    /* nranks * max_samples */
    double *all_rates;
    double *pool;
    double *pool_scratch;
    sp_node_sample_t *sample_rows;
    sp_node_row_t *rows;  /* nranks */
    sp_node_est_t *est;   /* max(nranks, nnodes) */
    sp_node_verdict_t *verdicts;
    sp_node_outlier_row_t *outliers;
    uint64_t sample_offset;
    size_t nflagged;      /* outliers over all kinds (rank 0) */
} node_run_t;

/* The device ops (and their state in *st_p) that measure kind; NULL when none does. */
const sp_node_dev_ops_t *sp__node_dev_for(const node_run_t *nr, sp_node_kind_t kind, void **st_p);

/* The first selected GEMM kind: the one the burn runs. */
sp_node_kind_t sp__node_burn_kind(const sp_node_opts_t *o);

/* Bytes counted (memory kinds) or FLOPs (GEMM) per call, and the size column. */
double sp__node_work_of(const node_run_t *nr, sp_node_kind_t kind, uint64_t *size_p);

/* One timed call in seconds; the test slow-down stretches it inside the timed region. */
sp_status_t sp__node_timed_call(const node_run_t *nr, const sp_node_dev_ops_t *ops, void *st,
                                sp_node_kind_t kind, double *s_p);

/* Agree on status, on whether every rank is done, and on a pending signal (runstop.h).
 * Collective over nr->ctx->world. */
sp_status_t sp__node_agree3(const node_run_t *nr, sp_status_t status, int *done_p);

/* The burn after the measurements (--burn): sustained GEMM with exact result checks against
 * each rank's first result and across ranks of one device. SP_ERR_WRONG_DATA when a check
 * failed. Collective. */
sp_status_t sp__node_burn(node_run_t *nr);

#endif
