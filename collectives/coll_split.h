/* Split groups of `coll --split` (nccl-tests' NCCL_TESTS_SPLIT): the spec's grammar, the color
 * of a rank, the groups' checks, and the verdict on one point's groups. Pure C, no MPI, so every
 * rule is unit tested. docs/METHODOLOGY.md, "Split groups". */
#ifndef SP_COLL_SPLIT_H
#define SP_COLL_SPLIT_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "status.h"

typedef enum {
    SP_SPLIT_NONE = 0, /* no split: the whole world is one group */
    SP_SPLIT_AND,      /* color = rank & value (a bare integer is a mask, as nccl-tests) */
    SP_SPLIT_OR,       /* color = rank | value */
    SP_SPLIT_MOD,      /* color = rank % value (MOD 8 on 8 ranks a node: one group per rail) */
    SP_SPLIT_DIV,      /* color = rank / value (DIV 8 on 8 ranks a node: one group per node) */
    SP_SPLIT_NODE,     /* color = the rank's node: the ranks of a node together */
    SP_SPLIT_RAIL,     /* color = the rank's node-local rank: one group per rail across nodes */
} sp_split_kind_t;

typedef struct {
    sp_split_kind_t kind;
    unsigned long value; /* AND, OR, MOD, DIV */
} sp_split_t;

/*
 * Parse a split spec: `AND n`, `OR n`, `MOD n`, `DIV n` (words in any case, or the symbols
 * & | % /; n decimal, 0x hex or 0 octal, as nccl-tests reads it), a bare integer (a mask, as
 * AND), `node` or `rail`; "" and "none" mean no split. On error returns SP_ERR_INVALID with one
 * message in err (what was wrong and the accepted forms).
 */
sp_status_t sp_split_parse(const char *spec, sp_split_t *split_p, char *err, size_t errlen);

/* The spec in its canonical spelling ("MOD 2", "node", "none"). */
void sp_split_format(const sp_split_t *split, char *buf, size_t len);

/* Whether the groups depend on the node map (node, rail) rather than on ranks alone. */
int sp_split_needs_topology(const sp_split_t *split);

/* The color (group key) of a world rank on node `node` with node-local rank `local_rank`. */
long sp_split_color(const sp_split_t *split, int rank, int node, int local_rank);

/*
 * Check the groups of colors[0..nranks): every group needs 2 ranks (a collective over one rank
 * moves nothing), and a split must make at least 2 groups. On error returns SP_ERR_INVALID with
 * one message in err naming the group and why. ngroups_p receives the number of groups, and
 * sizes_p[0] and [1] the ranks in the smallest and the largest (groups of unequal size are
 * allowed; the header reports them).
 */
sp_status_t sp_split_check(const sp_split_t *split, const long *colors, int nranks, int *ngroups_p,
                           int sizes_p[2], char *err, size_t errlen);

/* A --root (-1: every root) must be a rank of every group: below min_size, the smallest's rank
 * count. SP_ERR_INVALID with one message otherwise. */
sp_status_t sp_split_check_root(const sp_split_t *split, long root, int min_size, char *err,
                                size_t errlen);

/* One group's result at one point (a row of /coll/groups; docs/SCHEMA.md). */
typedef struct {
    uint64_t row;       /* the /coll/results row of the point */
    int64_t group;      /* the group's color */
    int32_t nranks;     /* ranks in the group */
    int32_t first_rank; /* its lowest world rank */
    uint32_t samples;
    int8_t converged;
    double time_us;  /* median of the group's per-sample max-over-its-ranks times */
    double ci_lo_us; /* 95% CI of that median */
    double ci_hi_us;
    double algbw_gbps;
    double busbw_gbps;    /* with the group's own rank count in the bus factor */
    int64_t wrong;        /* wrong elements in the group; -1 when not checked */
    int32_t slowest_rank; /* world rank with the highest own median in the group */
    int32_t late_rank;    /* world rank the group waited for (sign test), -1: none */
} sp_coll_group_row_t;

/* The slowest group of one point and how it compares (sp_split_verdict). */
typedef struct {
    int slowest;     /* index of the group with the highest median time */
    int reference;   /* index of the median group among the others */
    double ratio;    /* slowest busbw over the reference's (its time ratio inverted), <= 1 */
    int significant; /* slower by at least the threshold, and the two CIs do not overlap */
} sp_split_verdict_t;

#define SP_SPLIT_THRESHOLD 0.10 /* a group 10% slower than the median of the others */

/*
 * The slowest of n >= 2 groups (highest median time) against the median group of the others
 * (the lower median, by time): the busbw ratio, and whether the difference is significant
 * (time >= (1 + threshold) x the reference's and the slowest's CI lies above the reference's).
 */
void sp_split_verdict(const sp_coll_group_row_t *groups, int n, double threshold,
                      sp_split_verdict_t *v_p);

/*
 * One line for one point's groups: each group's busbw (GB/s), then the slowest group, its busbw
 * ratio to the median group of the others and whether that is significant ("slow") or "within
 * noise". place names the column ("out-of-place", "in-place"). Used by the live run and report.
 */
void sp_split_print_point(FILE *out, const char *place, const sp_coll_group_row_t *groups, int n);

/* The verdict over a whole run: the group that is the significantly slowest group in more than
 * half of the points, or -1 (no culprit). */
typedef struct {
    int64_t group; /* its color; meaningful when found */
    int found;
    size_t points;      /* points with at least 2 groups */
    size_t slow_points; /* points where that group (or, when none, the most often) was slow */
    double ratio;       /* the median of its busbw ratios over those points; 1 when none */
    int32_t first_rank; /* its lowest world rank */
    int32_t nranks;
} sp_split_summary_t;

/* Summarize rows[0..n): point by point (rows of one point adjacent, same `row`), the verdict of
 * sp_split_verdict; the group slow in the most points, named when that is more than half. */
void sp_split_summarize(const sp_coll_group_row_t *rows, size_t n, double threshold,
                        sp_split_summary_t *s_p);

#endif
