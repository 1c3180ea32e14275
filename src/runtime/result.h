/* The result file (HDF5, one per run, owned by rank 0). Results are written as they are
 * produced: every appended sweep point is flushed, and the root attribute `status` stays
 * "partial" until the run closes the file cleanly. docs/SCHEMA.md is the contract. */
#ifndef SP_RESULT_H
#define SP_RESULT_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include "fingerprint.h"
#include "kv.h"
#include "options.h"
#include "status.h"
#include "timeline.h"
#include "topo.h"

#define SP_SCHEMA_VERSION 1
#define SP_REDOP_NONE (-1) /* redop of collectives without a reduction */

/* One row of /coll/results. Times in microseconds, bandwidths in GB/s (1e9 B/s). */
typedef struct {
    int8_t op;            /* sp_coll_kind_t */
    int8_t dtype;         /* sp_dtype_t */
    int8_t redop;         /* sp_redop_t or SP_REDOP_NONE */
    int8_t in_place;
    int32_t root;         /* -1 for collectives without a root */
    uint64_t bytes;       /* the size column: max(send, recv) bytes per rank */
    uint64_t count;       /* the count column: elements passed to the call */
    uint32_t samples;
    uint32_t batch;       /* operations timed back to back per sample */
    int8_t converged;     /* 1 when the CI target was met (also reported with fixed -n) */
    double time_us;       /* median of the per-sample max-over-ranks times */
    double mean_us;
    double stddev_us;
    double min_us;
    double max_us;
    double p99_us;
    double ci_lo_us;      /* 95% CI of the median (order statistics) */
    double ci_hi_us;
    double ci_rel;        /* relative half-width of the CI; inf when not defined */
    double algbw_gbps;
    double busbw_gbps;    /* NaN when the world has one rank */
    int64_t wrong;        /* wrong elements summed over ranks; -1 when not checked */
    int32_t wrong_ranks;  /* number of ranks with wrong elements (listed in /coll/wrong) */
    int32_t slowest_rank; /* rank with the highest own median time */
    double slowest_margin; /* its median over the median of all ranks' medians, minus 1 */
    uint64_t sample_offset; /* first sample of this row in /coll/samples */
    double elapsed_s;     /* wall time spent on the point (warm-up, calibration, samples, check) */
} sp_coll_row_t;

/* One row of /coll/samples. */
typedef struct {
    double time_us;       /* max over ranks of the per-operation time of one batch */
    int32_t slowest_rank; /* the rank that had that max */
} sp_coll_sample_t;

/* One row of /coll/wrong. */
typedef struct {
    uint64_t row;
    int32_t rank;
    uint64_t wrong;
} sp_coll_wrong_t;

/* One row of /timeline/ranks: where a rank's events are in /timeline/events. */
typedef struct {
    int32_t rank;
    uint64_t offset;
    uint64_t count;
    uint64_t dropped;    /* events the rank's buffer could not hold */
} sp_tl_rank_t;

/* One row of /clock/ranks: the rank's clock against rank 0's, global = local - offset(t),
 * offset(t) = offset_ns + drift * (t - sync_start_ns), t local. */
typedef struct {
    int32_t rank;
    int32_t node;
    int32_t measured;        /* 1: measured itself; 0: took its node leader's model */
    int64_t offset_ns;       /* at the start synchronization */
    int64_t offset_end_ns;   /* at the end synchronization */
    double drift;            /* ns per ns of local time */
    int64_t err_ns;          /* bound on the error of a mapped time (half the min round trip) */
    int64_t rtt_ns;          /* minimum round trip seen */
    int64_t sync_start_ns;   /* local time of the start synchronization */
    int64_t sync_end_ns;
} sp_clock_rank_t;

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
} sp_proxy_rank_row_t;

/* The proxy's configuration, the one row of /proxy/info. */
typedef struct {
    int32_t pp, tp, dp, microbatches, chunks, sequence_parallel, overlap, causal;
    int64_t layers, hidden, heads, ffn, seq, micro_batch, vocab;
    double tflops;          /* the device rate compute ops run at */
    double peak_tflops;     /* the peak MFU is computed against */
    double tokens_per_step; /* micro_batch * seq * microbatches * dp */
    double flops_per_step;  /* model FLOPs of one step, all ranks (sp_model_flops_per_step) */
    double bucket_mib;
} sp_proxy_info_t;

typedef struct sp_result sp_result_t;

/* Root attributes written at creation. */
typedef struct {
    const char *command_line;
    const char *subcommand;
    const char *backend;
    int world_size;
    int node_count;
} sp_result_info_t;

/*
 * Create the file at path (rank 0 only). Fails with SP_ERR_EXISTS when it exists and !force.
 * Creates missing parent directories. The file starts with status="partial".
 */
sp_status_t sp_result_create(const char *path, int force, const sp_result_info_t *info,
                             sp_result_t **res_p);

/* Check that path can be created (does not exist, or force), without creating it. */
sp_status_t sp_result_check_path(const char *path, int force);

/* Write every option of table as a string attribute of /config. */
sp_status_t sp_result_write_config(sp_result_t *res, const sp_opt_table_t *table,
                                   const void *opts);

/* Write /topology/ranks from the gathered node map. */
sp_status_t sp_result_write_topology(sp_result_t *res, const sp_topo_t *topo);

/* /launch: how the job was launched (topo/launch.h), one string attribute per entry. */
sp_status_t sp_result_write_launch(sp_result_t *res, const sp_kv_t *kv, int n);

/* Write /fingerprint: versions and properties as attributes, the captured environment as the
 * attributes of /fingerprint/environment (already allow-listed and redacted), and when ranks is
 * not NULL /fingerprint/ranks (nranks rows, their flags set here by sp_fp_majority) and
 * /fingerprint/nodes (nnodes rows; attribute no_majority names the fields tied across nodes). */
sp_status_t sp_result_write_fingerprint(sp_result_t *res, const sp_kv_t *versions, int nversions,
                                        const sp_kv_t *env, int nenv, sp_fp_rank_t *ranks,
                                        int nranks, int nnodes);

/* Append one sweep point: its row, its samples, the per-rank median times (nranks values) and
 * the ranks with wrong data. Sets row->sample_offset and wrong[].row. Flushes the file. */
sp_status_t sp_result_coll_append(sp_result_t *res, sp_coll_row_t *row,
                                  const sp_coll_sample_t *samples, const double *rank_times_us,
                                  int nranks, sp_coll_wrong_t *wrong, size_t nwrong);

/* /timeline: open the events and ranks tables (rank 0, once); append events (already on rank 0's
 * clock) and per-rank rows; close. err_ns is the clock model's worst error bound. */
sp_status_t sp_result_timeline_open(sp_result_t *res, int64_t err_ns);
sp_status_t sp_result_timeline_append(sp_result_t *res, const sp_event_rec_t *events, size_t n);
sp_status_t sp_result_timeline_rank(sp_result_t *res, const sp_tl_rank_t *row);
uint64_t sp_result_timeline_count(const sp_result_t *res);
sp_status_t sp_result_timeline_close(sp_result_t *res);

/* Attributes of /timeline about its aggregation: totals, rate, rank 0's peak memory, the clock
 * error bound and how it was written (io). */
sp_status_t sp_result_timeline_stats(sp_result_t *res, uint64_t events, uint64_t dropped,
                                     double seconds, long peak_rss_kib, int64_t err_ns,
                                     const char *io);

/* The file's path; and closing / reopening rank 0's handle around a collective (MPI-IO) write
 * by every rank (aggregate.c). Only /coll appends must not happen while suspended. */
const char *sp_result_path(const sp_result_t *res);
sp_status_t sp_result_suspend(sp_result_t *res);
sp_status_t sp_result_resume(sp_result_t *res);

/* /clock: one row per rank, the method and the pings per measurement. */
sp_status_t sp_result_write_clock(sp_result_t *res, const sp_clock_rank_t *rows, size_t n,
                                  const char *method, int pings);

/* /proxy: the info row, the names (schedule, model, dp_mode, dtype) as attributes, and an empty
 * /proxy/ranks table, flushed; then sp_result_proxy_append adds one step's rows at a time and
 * flushes, so a stopped run keeps every finished step. */
sp_status_t sp_result_proxy_begin(sp_result_t *res, const sp_proxy_info_t *info,
                                  const char *schedule, const char *model, const char *dp_mode,
                                  const char *dtype);
sp_status_t sp_result_proxy_append(sp_result_t *res, const sp_proxy_rank_row_t *rows, size_t n);

/* Mark /proxy (after sp_result_proxy_begin) as predicted by `scaleprobe predict`, not measured:
 * attributes predicted = 1 and predicted_source (the cost model: sweep file or alpha-beta). */
sp_status_t sp_result_proxy_mark_predicted(sp_result_t *res, const char *source);

/* Tables a workload owns the types of (src/node/node_result.c): create the group at path (and
 * its parents) when missing; create an empty 1-D chunked, compressed table at path; append n rows
 * of type at the table's end and flush, so a stopped run keeps every appended row; write a string
 * attribute of the object at path. */
sp_status_t sp_result_group_create(sp_result_t *res, const char *path);
sp_status_t sp_result_table_create(sp_result_t *res, const char *path, hid_t type,
                                   size_t chunk_rows);
sp_status_t sp_result_table_append(sp_result_t *res, const char *path, hid_t type,
                                   const void *rows, size_t n);
sp_status_t sp_result_attr_str(sp_result_t *res, const char *path, const char *name,
                               const char *value);

/* Set the root attribute status ("complete", "partial" or "failed") and close. NULL is a no-op. */
sp_status_t sp_result_close(sp_result_t *res, const char *status);

/* ---- shared with the readers in src/analysis ---- */

/* HDF5 types of the tables (caller closes them with H5Tclose). */
hid_t sp__result_row_type(void);
/* Building blocks of compound types: an 8-bit enum of n names (values 0..n-1, plus "none" =
 * SP_REDOP_NONE when with_none), and a fixed-length NUL-terminated string member of n bytes. */
hid_t sp__result_enum8(const char *const *names, int n, int with_none);
void sp__result_insert_str(hid_t t, const char *name, size_t offset, size_t n);
hid_t sp__result_sample_type(void);
hid_t sp__result_wrong_type(void);
hid_t sp__result_topo_type(void);
hid_t sp__result_event_type(void);     /* /timeline/events rows: sp_event_rec_t */
hid_t sp__result_tl_rank_type(void);   /* /timeline/ranks rows: sp_tl_rank_t */
hid_t sp__result_clock_type(void);     /* /clock/ranks rows: sp_clock_rank_t */
hid_t sp__result_proxy_rank_type(void); /* /proxy/ranks rows: sp_proxy_rank_row_t */
hid_t sp__result_proxy_info_type(void); /* /proxy/info: sp_proxy_info_t */
hid_t sp__result_fp_rank_type(void);   /* /fingerprint/ranks rows: sp_fp_rank_t */
hid_t sp__result_fp_node_type(void);   /* /fingerprint/nodes rows: sp_fp_node_t */

/* Read a string attribute of obj into out; SP_ERR_FORMAT when missing. */
sp_status_t sp__result_read_attr(hid_t obj, const char *name, char *out, size_t outlen);

/* The HDF5 error stack's innermost message (for logging once); static storage. */
const char *sp__result_h5_error(void);

#endif
