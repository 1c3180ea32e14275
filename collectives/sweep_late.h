/* The sweep's late rank, by arrival: each sample's times and arrivals (on rank 0's clock) gathered
 * to rank 0 in one message, and the point's lateness counts (lateness.h). Internal to sweep.c;
 * docs/METHODOLOGY.md ("The late rank") states the rule. */
#ifndef SP_SWEEP_LATE_H
#define SP_SWEEP_LATE_H

#include "sweep.h"

/* The gather's MPI type in bufs, and on rank 0 the gather buffers and the lateness counts with
 * the clock model's error bound (the largest over ranks). Collective over ctx->world; the caller
 * agrees on the status. On failure what was set up is undone by sp__sweep_late_cleanup. */
sp_status_t sp__sweep_late_init(sp_ctx_t *ctx, sp_sweep_bufs_t *bufs);

/* Undo sp__sweep_late_init (also after a partial one, or none on a zeroed bufs). */
void sp__sweep_late_cleanup(sp_sweep_bufs_t *bufs);

/* Rank 0: sample n from the gathered times and arrivals: the max over ranks (lowest rank on ties,
 * as MPI_MAXLOC) into p->samples[n], and the arrivals into the point's counts; k is the batch. */
void sp__sweep_late_record(const sp_ctx_t *ctx, sp_sweep_point_t *p, size_t n, long k);

#endif
