/* /proxy in the result file: the rows of a training-proxy run (info, ranks), their HDF5 types,
 * the writer (rank 0 only; also `scaleprobe predict`) and the reader of the same group.
 * docs/SCHEMA.md is the contract. */
#ifndef SP_PROXY_RESULT_H
#define SP_PROXY_RESULT_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include "result.h"
#include "status.h"

/* One row of /proxy/ranks: one rank in one measured step (docs/METHODOLOGY.md, "Training
 * proxy"). Times in milliseconds; a fraction or ratio that has no data (no traffic on a lane) is
 * NaN. */
typedef struct {
    int32_t step;  /* measured step, 0.. (warm-up steps excluded) */
    int32_t rank;  /* world rank */
    int32_t stage; /* its pipeline stage, data-parallel and tensor-parallel coordinates */
    int32_t dp;
    int32_t tp;
    double step_ms;        /* the step's wall time: max over ranks of the last task's end */
    double busy_ms;        /* length of the union of the rank's compute intervals */
    double bubble_ms;      /* step_ms - busy_ms */
    double bubble_frac;    /* bubble_ms / step_ms */
    double predicted_frac; /* the schedule's replay with the measured mean op times */
    double warmup_ms;      /* the bubble split by the phase of the op each idle gap precedes */
    double steady_ms;
    double cooldown_ms;
    double tp_ms;          /* per lane class: length of the union of its intervals, */
    double tp_overlap;     /* |comm and compute| / |comm|, */
    double tp_exposed_ms;  /* |comm| - |comm and compute| */
    double pp_ms;
    double pp_overlap;
    double pp_exposed_ms;
    double dp_ms;
    double dp_overlap;
    double dp_exposed_ms;
    double exposed_ms;     /* communication of any lane not under compute */
    double slowdown;       /* compute time / nominal with concurrent communication, over the
                            * same without */
    /* step_ms = busy_ms + idle_ms + tp_excl_ms + dp_excl_ms + pp_excl_ms: the time without
     * compute, each instant charged to one cause, in this order: a TP collective in flight, a DP
     * one, a pipeline send; idle_ms, the rest (nothing in flight, or only pipeline receives
     * waiting for the neighbour stage), is the pipeline bubble proper */
    double idle_ms;
    double tp_excl_ms;
    double dp_excl_ms;
    double pp_excl_ms;
    /* the same split for this rank's stage as the proxy's cost model predicts it before the
     * first step (proxy_estimate.h: compute at --tflops, communication free); NaN in files of
     * `predict` and of older versions */
    double pred_step_ms;
    double pred_busy_ms;
    double pred_idle_ms;
    double pred_tp_excl_ms;
    double pred_dp_excl_ms;
    double pred_pp_excl_ms;
} sp_proxy_rank_row_t;

/* The proxy's configuration, the one row of /proxy/info. */
typedef struct {
    int32_t pp, tp, dp, microbatches, chunks, sequence_parallel, overlap, causal;
    int32_t compute;         /* 0: timed (FLOPs / tflops), 1: gemm (real GEMMs); 0 in older files */
    int32_t compute_threads; /* gemm: the BLAS threads per rank; 0 otherwise */
    int32_t max_inflight;    /* --max-inflight: tasks in flight per lane; 0 in older files */
    int32_t max_inflight_total; /* on all lanes together; 0 in older files */
    int32_t dist_opt; /* 1: --use-distributed-optimizer; 0 in older files */
    int32_t overlap_param_gather; /* 1: parameter gathers overlap; older files: overlap */
    int64_t layers, hidden, heads, ffn, seq, micro_batch, vocab;
    double tflops;          /* the device rate compute ops run at: --tflops, or with gemm the
                             * GEMM rate measured at start-up */
    double peak_tflops;     /* the hardware peak MFU is computed against; 0: not given */
    double tokens_per_step; /* micro_batch * seq * microbatches * dp */
    double flops_per_step;  /* model FLOPs of one step, all ranks (sp_model_flops_per_step) */
    double bucket_mib;
} sp_proxy_info_t;

#define SP_PROXY_NOTE_LEN 320

/* /proxy read back: everything empty / 0 in a file without /proxy. */
typedef struct {
    int has_info; /* /proxy/info had its one row */
    sp_proxy_info_t info;
    sp_proxy_rank_row_t *rows; /* /proxy/ranks (caller frees) */
    size_t nrows;
    char schedule[32]; /* attributes of /proxy */
    char model[32];
    char dp_mode[16];
    char grad_reduce_dtype[16]; /* "float" or "bfloat16"; "" in older files */
    int predicted;               /* attribute predicted: written by `predict` */
    char predicted_source[1100]; /* its cost model (predicted_source) */
    char sharing_warning[SP_PROXY_NOTE_LEN]; /* attribute sharing_warning; "" when absent */
    char compute[SP_PROXY_NOTE_LEN]; /* attribute compute: what ran the compute; "" when absent */
} sp_proxy_result_data_t;

/* HDF5 types of the tables (caller closes them with H5Tclose). */
hid_t sp__proxy_rank_type(void); /* /proxy/ranks rows: sp_proxy_rank_row_t */
hid_t sp__proxy_info_type(void); /* /proxy/info: sp_proxy_info_t */

/* /proxy: the info row, the names (schedule, model, dp_mode, dtype, grad_reduce_dtype) as
 * attributes, and an empty
 * /proxy/ranks table, flushed; then sp_proxy_result_append adds one step's rows at a time and
 * flushes, so a stopped run keeps every finished step. */
sp_status_t sp_proxy_result_begin(sp_result_t *res, const sp_proxy_info_t *info,
                                  const char *schedule, const char *model, const char *dp_mode,
                                  const char *dtype, const char *grad_reduce_dtype);
sp_status_t sp_proxy_result_append(sp_result_t *res, const sp_proxy_rank_row_t *rows, size_t n);

/* Mark /proxy (after sp_proxy_result_begin) as predicted by `scaleprobe predict`, not measured:
 * attributes predicted = 1 and predicted_source (the cost model: sweep file or alpha-beta). */
sp_status_t sp_proxy_result_mark_predicted(sp_result_t *res, const char *source);

/* The run shared processors (ranks x lanes above the cores, or a GPU): attribute
 * sharing_warning of /proxy (after sp_proxy_result_begin) holds the warning it printed. */
sp_status_t sp_proxy_result_note_sharing(sp_result_t *res, const char *warning);

/* Attribute compute of /proxy (after sp_proxy_result_begin): what ran the compute tasks, as
 * the run printed it (the timed wait and its rate, or the GEMM library, precision, threads and
 * measured rate). */
sp_status_t sp_proxy_result_note_compute(sp_result_t *res, const char *desc);

/* After the steps: attributes inflight_peak_lane and inflight_peak_total (the most tasks in
 * flight on one lane and on all lanes of any rank) and inflight_held (polls, summed over ranks,
 * that ended with tasks waiting for room under --max-inflight). */
sp_status_t sp_proxy_result_note_inflight(sp_result_t *res, int peak_lane, int peak_total,
                                          int64_t held);

/* Read /proxy of an open file into d (zeroed first; nothing else when the file has none).
 * SP_ERR_FORMAT for unreadable tables, SP_ERR_NOMEM; d->rows is the caller's even then. */
sp_status_t sp_proxy_result_read(hid_t file, sp_proxy_result_data_t *d);

#endif
