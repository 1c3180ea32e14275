/* Rank 0 gathers timelines into /timeline/events in bounded batches: it asks one source for one
 * batch at a time and writes it as a hyperslab, so its memory holds one batch whatever the
 * number of ranks. Sources are "virtual ranks" owned by processes, so the same path serves a
 * real run (one source per rank) and a synthetic generator standing in for thousands of ranks. */
#ifndef SP_AGGREGATE_H
#define SP_AGGREGATE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "clocksync.h"
#include "result.h"
#include "timeline.h"

typedef struct {
    void *arg;
    /* events held for virtual rank vrank (owned by this process) and how many it dropped */
    uint64_t (*count)(void *arg, int vrank);
    uint64_t (*dropped)(void *arg, int vrank);
    /* up to max events of vrank from index `from`, on rank 0's clock, into out; returns how many */
    size_t (*produce)(void *arg, int vrank, uint64_t from, sp_event_rec_t *out, size_t max);
} sp_tl_source_t;

typedef struct {
    uint64_t events;
    uint64_t dropped;
    double seconds;
    long peak_rss_kib;   /* rank 0's peak resident set after the aggregation */
    uint64_t chunks;       /* chunks of /timeline/events compressed by their producers */
    uint64_t rank0_chunks; /* chunks that went through HDF5's filter pipeline on rank 0 */
    uint64_t ahead_chunks; /* of `chunks`, those their owner had compressed before rank 0 asked */
} sp_aggregate_stats_t;

/*
 * Gather nvranks virtual ranks (vrank v is owned by process v % nprocs) into res (rank 0's;
 * NULL elsewhere), batch_events events per message. Collective over comm. On rank 0 stats_p
 * (may be NULL) receives the totals.
 */
sp_status_t sp_aggregate(MPI_Comm comm, sp_result_t *res, int nvranks, const sp_tl_source_t *src,
                         size_t batch_events, int64_t clock_err_ns, sp_aggregate_stats_t *stats_p);

/*
 * The alternative for large runs with a parallel HDF5 build: every process writes its own
 * virtual rank (vrank = process rank) into /timeline/events with one collective MPI-IO write at
 * an offset from an exclusive scan of the counts. Rank 0's handle is suspended meanwhile.
 * ops/nops: the names of the events' op enum, the same on every rank (sp_result_info_t).
 * SP_ERR_UNSUPPORTED without parallel HDF5. Collective over comm.
 */
sp_status_t sp_aggregate_mpiio(MPI_Comm comm, sp_result_t *res, const sp_tl_source_t *src,
                               const char *const *ops, int nops, sp_aggregate_stats_t *stats_p);

/* Wait for req to complete without holding a core: a short spin, then MPI_Test between sleeps
 * growing from 50 us to max_nap_ns (the most it adds to the wait). For processes idle while rank 0
 * writes (they may share its cores). Not collective. */
void sp_aggregate_wait(MPI_Request *req, long max_nap_ns);

/* A source for this process's own timeline (one virtual rank per process), mapped with clk. */
typedef struct {
    const sp_timeline_t *tl;
    const sp_clock_t *clk;
} sp_tl_own_t;

void sp_tl_own_source(sp_tl_own_t *own, sp_tl_source_t *src);

#endif
