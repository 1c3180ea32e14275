/* /coll/groups and /coll/group_ranks: the per-group results of a split sweep (`coll --split`),
 * one row per group and point, and which rank is in which group. Writer (rank 0) and reader.
 * docs/SCHEMA.md is the contract. */
#ifndef SP_COLL_GROUPS_H
#define SP_COLL_GROUPS_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include "coll_split.h"
#include "result.h"
#include "status.h"

/* One row of /coll/group_ranks. */
typedef struct {
    int32_t rank;  /* world rank */
    int64_t group; /* its group's color */
} sp_coll_group_rank_t;

hid_t sp__coll_group_type(void);
hid_t sp__coll_group_rank_type(void);

/* Create /coll/groups and /coll/group_ranks (the world's nranks members), and the /coll
 * attributes `split` (the spec as run) and `groups` (their number). Rank 0, after
 * sp_coll_result_begin. */
sp_status_t sp_coll_groups_begin(sp_result_t *res, const char *split, int ngroups,
                                 const sp_coll_group_rank_t *members, int nranks);

/* Append the n group rows of one point (flushed). */
sp_status_t sp_coll_groups_append(sp_result_t *res, const sp_coll_group_row_t *rows, int n);

/* Read /coll/groups of an open file into *rows_p (caller frees; NULL and 0 in a file without
 * it) and the split spec into split (""). SP_ERR_FORMAT, SP_ERR_NOMEM. */
sp_status_t sp_coll_groups_read(hid_t file, sp_coll_group_row_t **rows_p, size_t *n_p, char *split,
                                size_t len);

/* The groups' rows of result row `row` within rows[0..n) (rows of one point are adjacent, in
 * group order): *first_p and the count, 0 when none. */
int sp_coll_groups_of_row(const sp_coll_group_row_t *rows, size_t n, uint64_t row, size_t *first_p);

#endif
