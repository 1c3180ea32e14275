/* /coll in the result file: the rows of a collective sweep (results, samples, rank_times, wrong),
 * their HDF5 types, the writer (rank 0 only) and the reader of the same tables.
 * docs/SCHEMA.md is the contract. */
#ifndef SP_COLL_RESULT_H
#define SP_COLL_RESULT_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include "result.h"
#include "seqstats.h"
#include "stats.h"
#include "status.h"

#define SP_REDOP_NONE SP_RESULT_ENUM_NONE /* redop of collectives without a reduction */

/* Fewest samples with a p99 of their own: below, the nearest-rank p99 is the maximum, so the
 * row stores NaN and the maximum stays in max_us. */
#define SP_COLL_P99_MIN_SAMPLES 100

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
    int8_t converged;     /* 1 when the CI target was met (also reported with fixed -n);
                             never for a drifting point */
    double time_us;       /* median of the per-sample max-over-ranks times */
    double mean_us;
    double stddev_us;
    double min_us;
    double max_us;
    double p99_us;        /* nearest-rank; NaN below SP_COLL_P99_MIN_SAMPLES samples */
    double ci_lo_us;      /* dependence-aware 95% CI of the median (seqstats.h) */
    double ci_hi_us;
    double ci_rel;        /* relative half-width of the CI; inf when not defined */
    double algbw_gbps;
    double busbw_gbps;    /* NaN when the world has one rank */
    int64_t wrong;        /* wrong elements summed over ranks; -1 when not checked */
    int32_t wrong_ranks;  /* number of ranks with wrong elements (listed in /coll/wrong) */
    int32_t slowest_rank; /* rank with the highest own median time: in a synchronizing
                           * collective a victim of a late rank, not the culprit (late_rank) */
    double slowest_margin; /* its median over the median of all ranks' medians, minus 1 */
    uint64_t sample_offset; /* first sample of this row in /coll/samples */
    double elapsed_s;     /* wall time spent on the point (warm-up, calibration, samples, check) */
    int32_t late_rank;    /* the rank last to arrive most often, when later than the median
                           * arrival beyond the clock bound in a sign test (late_p < 0.05); -1:
                           * none (the table's `slow` column) */
    double late_margin_us; /* that candidate's mean arrival after the median arrival */
    double late_p;        /* the candidate's sign-test p-value, Bonferroni over ranks */
    double lag1;          /* lag-1 autocorrelation of the samples (from signs about the median) */
    double n_eff;         /* effective sample size of the median under that dependence */
    double trend_p;       /* two-sided p-value of the trend test over the samples */
    double trend_rel;     /* the trend's change over the samples, relative to the median */
    int8_t drift;         /* 1: trend_p < 0.05 and |trend_rel| >= the point's epsilon */
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

/*
 * The statistics columns of a row: mean, stddev, min, max and p99 (NaN below
 * SP_COLL_P99_MIN_SAMPLES samples) from s; the median, its CI, lag1, n_eff, the trend and the
 * drift flag from q, the dependence-aware statistics of the same samples in time order; converged
 * is the stop rule's verdict, cleared when q flags drift. Bandwidths are not touched.
 */
void sp_coll_row_set_stats(sp_coll_row_t *row, const sp_summary_t *s, const sp_seqstats_t *q,
                           int converged);

/* HDF5 types of the tables (caller closes them with H5Tclose). */
hid_t sp__coll_row_type(void);
hid_t sp__coll_sample_type(void);
hid_t sp__coll_wrong_type(void);

/* Create /coll and its tables (when not there yet) with the attributes `method`, the name of
 * the sampling method of every row (method.h), so that tools refuse to mix methods, and `issue`,
 * how each timed operation was issued ("blocking" or "stream"). Rank 0, before the first point. */
sp_status_t sp_coll_result_begin(sp_result_t *res, int nranks, const char *method,
                                 const char *issue);

/* The /coll attribute `issue` of an open file into out: "blocking" when /coll has none (files
 * written before the attribute, or without /coll). SP_OK. */
sp_status_t sp_coll_result_read_issue(hid_t file, char *out, size_t len);
/* The /coll attribute stream_wait_ns (coll --issue stream's cross-stream wait), 0 when absent. */
void sp_coll_result_read_stream_wait(hid_t file, int64_t *ns_p);

/* Append one sweep point: its row, its samples, the per-rank median times (nranks values, the
 * world) and the ranks with wrong data. Sets row->sample_offset and wrong[].row. /coll and its
 * tables are created with the first point. The point is flushed: the row goes last, so a reader
 * that sees a row also sees its samples and rank times. Not while the file is suspended. */
sp_status_t sp_coll_result_append(sp_result_t *res, sp_coll_row_t *row,
                                  const sp_coll_sample_t *samples, const double *rank_times_us,
                                  int nranks, sp_coll_wrong_t *wrong, size_t nwrong);

/* Read /coll/results and /coll/wrong of an open file (both NULL and 0 in a file without /coll;
 * the caller frees them, also on failure). SP_ERR_FORMAT, SP_ERR_NOMEM. */
sp_status_t sp_coll_result_read(hid_t file, sp_coll_row_t **rows_p, size_t *nrows_p,
                                sp_coll_wrong_t **wrong_p, size_t *nwrong_p);

/* The row->samples per-sample times of a row of the file at path (caller frees). */
sp_status_t sp_coll_result_read_samples(const char *path, const sp_coll_row_t *row,
                                        sp_coll_sample_t **samples_p);

/* Row i of /coll/rank_times of the file at path: world_size per-rank median times (caller
 * frees). */
sp_status_t sp_coll_result_read_rank_times(const char *path, size_t i, int world_size,
                                           double **times_p);

#endif
