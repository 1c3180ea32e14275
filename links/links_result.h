/* /links in the result file: the units, the measured pairs (one row per direction and metric)
 * with their samples, the matrices, the outliers and the screening steps; their HDF5 types,
 * the writers (rank 0 only) and the reader of the same group. docs/SCHEMA.md is the contract. */
#ifndef SP_LINKS_RESULT_H
#define SP_LINKS_RESULT_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include "links_bisect.h"
#include "result.h"
#include "topo.h"

typedef enum { SP_LINKS_BW = 0, SP_LINKS_LAT, SP_LINKS_METRIC_COUNT } sp_links_metric_t;
extern const char *const sp_links_metric_names[SP_LINKS_METRIC_COUNT];
/* "GB/s" or "us" */
const char *sp_links_metric_units(sp_links_metric_t m);

/* One row of /links/units: a unit of the matrix (a node's lowest rank, or a rank). With
 * --per rail the units are rail-major (unit = rail * nodes + node). */
typedef struct {
    int32_t unit;
    int32_t rank;
    int32_t node;
    int32_t rail;         /* the rank's local rank (its GPU/NIC rail) */
    char host[SP_HOST_LEN];
} sp_links_unit_row_t;

/* One row of /links/pairs: one direction of one link (bandwidth), or one pair (latency, src <
 * dst, the same value both ways), in one round of one pass. Times per message in microseconds.
 * A link measured in several passes counts with its fastest (sp_links_row_better). */
typedef struct {
    int8_t metric;        /* sp_links_metric_t */
    int8_t converged;
    int32_t src;          /* units */
    int32_t dst;
    int32_t round;
    int8_t pass;          /* 0: the matrix; 1..: a confirmation of a suspect pair */
    uint64_t bytes;
    uint32_t batch;       /* calls per timed batch */
    uint32_t samples;
    double median_us;     /* per message; a sample is the slower end's batch time / batch */
    double ci_lo_us;      /* 95% CI of the median (order statistics) */
    double ci_hi_us;
    double min_us;
    double max_us;
    double value;         /* bandwidth GB/s (bytes / median), latency us (the median) */
    double value_lo;      /* the CI in the same units */
    double value_hi;
    uint64_t sample_offset; /* first sample of this row in /links/samples */
} sp_links_pair_row_t;

/* 1 when row a of a link is the one that counts over row b of the same link: the lower median
 * time (a link is slow only when every pass found it slow). */
int sp_links_row_better(const sp_links_pair_row_t *a, const sp_links_pair_row_t *b);

/* One row of /links/samples. */
typedef struct {
    double time_us;
} sp_links_sample_row_t;

/* One row of /links/outliers: a node or a link named slow. ratio is value / cohort in the
 * metric's units (bandwidth: below 1 is slow; latency: above 1 is slow). */
typedef struct {
    int8_t metric;        /* sp_links_metric_t */
    int8_t kind;          /* sp_links_find_kind_t: node, link */
    int8_t side;          /* sp_links_side_t: both, send, recv */
    int32_t a;            /* unit (node) or the link's lower unit */
    int32_t b;            /* the link's higher unit, -1 for a node */
    char host_a[SP_HOST_LEN];
    char host_b[SP_HOST_LEN];
    double ratio;
    double ratio_lo;      /* 95% CI */
    double ratio_hi;
    double cohort;        /* the cohort's value (GB/s or us) */
    int32_t nslow;
    int32_t nlinks;
    int32_t rail;         /* --per rail: the rail whose matrix names it; else -1 */
} sp_links_outlier_row_t;

/* /links/screen rows are sp_links_bisect_step_t (links_bisect.h); times in seconds. */

/* HDF5 types of the tables (caller closes them with H5Tclose). */
hid_t sp__links_unit_type(void);
hid_t sp__links_pair_type(void);
hid_t sp__links_sample_type(void);
hid_t sp__links_outlier_type(void);
hid_t sp__links_screen_type(void);

/* /links: the group, its attributes (n name/value pairs) and its empty tables. */
sp_status_t sp_links_result_begin(sp_result_t *res, const char *const (*attrs)[2], int n);

/* Append rows (and flush). */
sp_status_t sp_links_result_units(sp_result_t *res, const sp_links_unit_row_t *rows, size_t n);
sp_status_t sp_links_result_pairs(sp_result_t *res, const sp_links_pair_row_t *rows, size_t n,
                                  const sp_links_sample_row_t *samples, size_t nsamples);
sp_status_t sp_links_result_outliers(sp_result_t *res, const sp_links_outlier_row_t *rows,
                                     size_t n);
sp_status_t sp_links_result_screen(sp_result_t *res, const sp_links_bisect_step_t *rows,
                                   size_t n);
/* /links/<name>: an n x n matrix of doubles (row i: from unit i), NaN where not measured. */
sp_status_t sp_links_result_matrix(sp_result_t *res, const char *name, const double *m, int n);
sp_status_t sp_links_result_attr(sp_result_t *res, const char *name, const char *value);

/* /links read back (report, compare, export); /links/samples is read too (compare). */
typedef struct {
    int present;
    sp_links_unit_row_t *units;
    size_t nunits;
    sp_links_pair_row_t *pairs;
    size_t npairs;
    sp_links_sample_row_t *samples;
    size_t nsamples;
    sp_links_outlier_row_t *outliers;
    size_t noutliers;
    sp_links_bisect_step_t *screen;
    size_t nscreen;
    char mode[32];        /* attributes of /links */
    char per[32];
    char threshold[32];
    char rounds[64];      /* "measured of total" */
    char screen_verdict[512];
} sp_links_result_data_t;

/* Read /links of an open file into d (zeroed first; nothing else when the file has none).
 * SP_ERR_FORMAT for unreadable tables, SP_ERR_NOMEM; free with sp_links_result_data_free, also
 * on failure. */
sp_status_t sp_links_result_read(hid_t file, sp_links_result_data_t *d);
void sp_links_result_data_free(sp_links_result_data_t *d);

#endif
