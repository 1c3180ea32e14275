/* The split sweep (`coll --split`): every group measures each point at once on a communicator
 * and backend of its own, through the same sp_sweep_measure as the whole world; rank 0 gathers
 * the groups' rows, writes /coll/results (the slowest group's figures) and /coll/groups, and
 * prints each group's busbw. docs/METHODOLOGY.md, "Split groups". */
#ifndef SP_SWEEP_SPLIT_H
#define SP_SWEEP_SPLIT_H

#include <stdio.h>

#include "coll_groups.h"
#include "coll_split.h"
#include "sweep.h"

typedef struct {
    sp_split_t spec;
    char name[32]; /* the spec in canonical spelling */
    MPI_Comm comm; /* this rank's group */
    sp_ctx_t sub;  /* the group's context: its communicator, ranks and backend; the
                    * run's watchdog and clock; the run's timeline, lent per point */
    int have_backend;
    sp_sweep_bufs_t bufs; /* the group's buffers */
    int have_bufs;
    int ngroups;
    int my_group; /* 0..ngroups-1, by color */
    int min_size; /* ranks in the smallest group */
    int max_size;
    long *colors; /* per group */
    int *gsize;   /* per group */
    int *gstart;  /* per group: its first entry in members */
    int *members; /* world ranks by group, ascending within each (group rank order) */
    /* rank 0: the last point's groups per placement, and the merged point as written */
    sp_coll_group_row_t *groups[2];
    sp_sweep_point_t merged; /* the point as written: row, wrong list and rank times in world
                              * ranks (for the WRONG DATA line); scratch of nranks doubles */
    sp_coll_sample_t *samples;
    sp_coll_sample_t *scratch;
} sp_sweep_split_t;

/* The groups of opts->split on this node map: every group of at least 2 ranks, at least 2
 * groups, --root a rank of each (SP_ERR_INVALID with one message in err, the same on every
 * rank). Collective over world; before anything is written. */
sp_status_t sp_sweep_split_check(const sp_coll_opts_t *opts, const sp_topo_t *topo, MPI_Comm world,
                                 char *err, size_t errlen);

/*
 * Form the groups of opts->split (NULL in *split_p when there is none): colors, the checks
 * (SP_ERR_INVALID with one message from rank 0), a communicator, backend and buffers per group,
 * and on rank 0 the /coll/groups tables. Collective over ctx->world.
 */
sp_status_t sp_sweep_split_open(sp_ctx_t *ctx, const sp_coll_opts_t *opts, size_t bytes,
                                size_t max_samples, sp_sweep_split_t **split_p);
void sp_sweep_split_close(sp_sweep_split_t *sp); /* NULL is a no-op */

/* Rank 0: the header lines naming the groups and their members. */
void sp_sweep_split_print_header(FILE *out, const sp_sweep_split_t *sp);

/*
 * One point in every group at once: wargs names the operation (its rank and counts are the
 * world's; each group builds its own for `bytes`, the size asked for). On rank 0 row_p gets the
 * row written (the slowest group's) and sp->groups[in_place] the groups' rows. Collective.
 */
sp_status_t sp_sweep_split_point(sp_sweep_split_t *sp, sp_ctx_t *ctx, const sp_coll_opts_t *opts,
                                 const sp_coll_t *coll, const sp_coll_args_t *wargs, uint64_t bytes,
                                 sp_coll_row_t *row_p);

#endif
