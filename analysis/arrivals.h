/* Arrival analysis of a result file's timeline in one streaming pass and bounded memory: one
 * cursor per rank reads that rank's events chunk by chunk (sp_tlread_rank) and a k-way merge by
 * seq completes one collective instance at a time, so memory grows with the rank count (times a
 * chunk), not with the event count. It gathers, in that one pass, what report prints from the
 * timeline: the late rank of every sweep point (the rule of lateness.h, as
 * sp_skew_point_lateness), the last arrivers of the instances (as sp_skew_match and
 * sp_skew_summary) and the late nodes (as sp_skew_node_lateness). docs/METHODOLOGY.md
 * ("Reading the timeline in bounded memory") states the window and the medians' precision. */
#ifndef SP_ARRIVALS_H
#define SP_ARRIVALS_H

#include <stddef.h>
#include <stdint.h>

#include "result.h"
#include "sketch.h"
#include "status.h"
#include "timeline.h"

typedef struct {
    int present;    /* 1 when the file has a timeline (with or without coll events) */
    int64_t err_ns; /* the clock model's error bound (/timeline clock_err_ns) */
    int streamed;   /* 1: the merge ran in bounded memory; 0: a rank's seq order was out of
                     * order beyond the window and every coll event was loaded and sorted */

    /* sweep points: per point the late rank (lateness.h); per rank the points it was named
     * in and the sum of its margins, microseconds */
    size_t npoints;
    size_t named;
    int *point_count;
    double *point_sum_us;

    /* instances with a byte moved (a zero-byte operation does not synchronize) */
    size_t ninst;
    size_t resolved;         /* instances whose last arriver is later than the next by > err */
    int64_t median_skew_ns;  /* over the instances; exact up to SP_ARRIVALS_EXACT of them */
    int median_skew_exact;
    uint64_t *last_count;    /* per rank: resolved instances it was last in */
    int64_t *late_ns;        /* per rank: sum of its margins over those */
    sp_sketch_t *margin;     /* per rank: those margins, for their median */

    /* nodes (only with nnodes >= 2) */
    size_t node_resolved;
    uint64_t *node_count;
    int64_t *node_late_ns;

    int nranks;
    int nnodes;
} sp_arrivals_t;

/* Exact values a median keeps before it becomes a histogram (sketch.h). */
#define SP_ARRIVALS_EXACT_SKEW ((size_t)1 << 20)
#define SP_ARRIVALS_EXACT_MARGIN ((size_t)4096)

/*
 * Scan path's timeline. nranks (>= 1): the job's ranks (a coll event of another rank is
 * damage); node_of: rank -> node in [0, nnodes), or NULL / nnodes < 2 for no node figures.
 * On SP_OK *a is filled and owned by the caller (sp_arrivals_free), present 0 for a file
 * without a timeline. Errors (nothing to free): SP_ERR_IO / SP_ERR_FORMAT when the timeline
 * cannot be read (a warning says why), SP_ERR_INVALID for events that break the matching (a
 * rank out of range, two coll events of one rank with one seq; a warning), SP_ERR_NOMEM.
 */
sp_status_t sp_arrivals_scan(const char *path, int nranks, const int *node_of, int nnodes,
                             sp_arrivals_t *a);

/* The columns of an event the pass reads (the others are not read from the file). */
typedef struct {
    uint64_t seq;
    int64_t start_ns;
    int64_t end_ns;
    uint64_t bytes;
    int32_t rank;
    int32_t step;
    int16_t kind; /* sp_ev_kind_t */
} sp_arrival_ev_t;

/* Where the events come from: a result file (sp_arrivals_scan), or memory (tests). */
typedef struct {
    const sp_tl_rank_t *ranks; /* one row per rank of the timeline: its events are rows
                                * [offset, offset + count) of one table */
    size_t nranks;
    uint64_t chunk_rows; /* rows per stored chunk (reads are aligned to it); 0: 8192 */
    int64_t err_ns;      /* the clock model's error bound */
    /* rank's events [from, from + max) into buf, *n_p read (as sp_tlread_rank); a failing
     * read has said why (a warning) */
    sp_status_t (*read)(void *ctx, int rank, sp_arrival_ev_t *buf, size_t max, uint64_t from,
                        size_t *n_p);
    void *ctx;
    size_t ring_budget; /* bytes for all the cursors' rings; 0: the default (64 MiB) */
} sp_arrivals_source_t;

/* The pass over any source, with the contract of sp_arrivals_scan (present is set to 1). */
sp_status_t sp_arrivals_run(const sp_arrivals_source_t *src, int nranks, const int *node_of,
                            int nnodes, sp_arrivals_t *a);

/* Median margin of rank's resolved last arrivals, ns (mean of the two middle ones); NaN when
 * it has none. *exact_p (may be NULL) says whether the figure is exact. */
double sp_arrivals_margin_median(sp_arrivals_t *a, int rank, int *exact_p);

void sp_arrivals_free(sp_arrivals_t *a);

#endif
