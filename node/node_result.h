/* /node in the result file: the measurement kinds of `scaleprobe node`, the rows of its tables
 * (results, samples, burn, outliers), their HDF5 types, the writers (rank 0 only) and the reader
 * of the same group. docs/SCHEMA.md is the contract. */
#ifndef SP_NODE_RESULT_H
#define SP_NODE_RESULT_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include "node_kind.h"
#include "result.h"
#include "topo.h"

extern const char *const sp_node_kind_names[SP_NODE_KIND_COUNT];

/* 1 for the GEMM kinds. */
int sp_node_kind_is_gemm(sp_node_kind_t kind);

/* "GB/s" or "GFLOP/s" (static storage). */
const char *sp_node_kind_units(sp_node_kind_t kind);

/* One row of /node/results: one rank's measurement of one kind. Rates in the kind's units. */
typedef struct {
    int32_t rank;
    int32_t node;
    char host[SP_HOST_LEN];
    int8_t kind;          /* sp_node_kind_t */
    int8_t dtype;         /* sp_dtype_t the kernel computed in (float for half/bfloat16 on host) */
    int8_t converged;     /* 1 when the CI target was met */
    uint64_t size;        /* bytes per array (memory kinds) or n of the n x n x n GEMM */
    double work;          /* bytes counted or FLOPs per call (docs/METHODOLOGY.md) */
    char units[8];
    uint32_t samples;
    double median;        /* median rate over the samples */
    double ci_lo;         /* 95% CI of the median (order statistics) */
    double ci_hi;
    double ci_rel;        /* relative half-width of the CI; inf when not defined */
    double mean;
    double stddev;
    double min;
    double max;
    double time_s;        /* work / median: the median call's duration */
    uint64_t sample_offset; /* first sample of this row in /node/samples */
} sp_node_row_t;

/* One row of /node/samples: one timed call. */
typedef struct {
    int32_t rank;
    int8_t kind;
    double time_s;
    double rate;
} sp_node_sample_t;

/* One row of /node/burn: one rank in one interval of the burn. */
typedef struct {
    int32_t interval;
    int32_t rank;
    int32_t node;
    double t_s;           /* end of the interval, seconds since the burn started (rank's clock) */
    uint32_t gemms;       /* GEMMs completed in the interval */
    double rate;          /* GFLOP/s over the GEMMs' own time */
    uint32_t checks;      /* result checks in the interval */
    uint64_t wrong;       /* elements that differed from the reference, summed over the checks */
} sp_node_burn_row_t;

typedef enum { SP_NODE_SCOPE_RANK = 0, SP_NODE_SCOPE_NODE = 1 } sp_node_scope_t;

/* One row of /node/outliers: a rank or node whose CI lies below (1 - threshold) x the cohort. */
typedef struct {
    int8_t scope;         /* sp_node_scope_t */
    int8_t kind;          /* sp_node_kind_t */
    int32_t id;           /* rank or node */
    char host[SP_HOST_LEN];
    double median;        /* its median rate */
    double cohort;        /* median over the cohort's medians */
    double ratio;         /* median / cohort */
    double ratio_lo;      /* its CI / cohort */
    double ratio_hi;
} sp_node_outlier_row_t;

/* HDF5 types of the tables (caller closes them with H5Tclose). */
hid_t sp__node_row_type(void);
hid_t sp__node_sample_type(void);
hid_t sp__node_burn_type(void);
hid_t sp__node_outlier_type(void);

/* /node: the group, its attributes (name/value pairs, n of them) and its empty tables. */
sp_status_t sp_node_result_begin(sp_result_t *res, const char *const (*attrs)[2], int n);

/* Append rows (and flush). */
sp_status_t sp_node_result_rows(sp_result_t *res, const sp_node_row_t *rows, size_t n);
sp_status_t sp_node_result_samples(sp_result_t *res, const sp_node_sample_t *rows, size_t n);
sp_status_t sp_node_result_burn(sp_result_t *res, const sp_node_burn_row_t *rows, size_t n);
sp_status_t sp_node_result_outliers(sp_result_t *res, const sp_node_outlier_row_t *rows,
                                    size_t n);

/* Attribute of /node set during the run (e.g. the burn's settings). */
sp_status_t sp_node_result_attr(sp_result_t *res, const char *name, const char *value);

/* /node read back (what `report`, `compare` and `predict` use; /node/samples is not read). */
typedef struct {
    int present;         /* the file has /node and its tables were read */
    sp_node_row_t *rows; /* /node/results */
    size_t nrows;
    sp_node_burn_row_t *burn; /* /node/burn */
    size_t nburn;
    sp_node_outlier_row_t *outliers; /* /node/outliers */
    size_t noutliers;
    char blas[512]; /* attributes of /node: host BLAS, GPU, threshold */
    char gpu[512];
    char threshold[32];
} sp_node_result_data_t;

/* Read /node of an open file into d (zeroed first; nothing else when the file has none).
 * SP_ERR_FORMAT for unreadable tables, SP_ERR_NOMEM; free with sp_node_result_data_free, also
 * on failure. */
sp_status_t sp_node_result_read(hid_t file, sp_node_result_data_t *d);

/* Free what sp_node_result_read allocated and zero d. */
void sp_node_result_data_free(sp_node_result_data_t *d);

#endif
