/* The clock model: every rank's monotonic clock mapped to rank 0's by minimum-round-trip
 * ping-pong, at the start and at the end of a run, with a linear drift between the two. Node
 * leaders are measured and the ranks of a node take their leader's model (they read the same
 * clock); every rank can be measured instead. The error bound of a mapped time is half the
 * minimum round trip: analyses must not resolve differences finer than it. */
#ifndef SP_CLOCKSYNC_H
#define SP_CLOCKSYNC_H

#include <mpi.h>
#include <stdint.h>

#include "result.h"
#include "status.h"
#include "topo.h"

/* One synchronization: offset = local - reference, measured at local time at_ns. */
typedef struct {
    int64_t offset_ns;
    int64_t err_ns;
    int64_t rtt_ns;
    int64_t at_ns;
} sp_clock_point_t;

typedef struct {
    sp_clock_point_t start;
    sp_clock_point_t end;
    int have_end;
    int measured;        /* 1: this rank was measured itself; 0: took its leader's model */
    double drift;        /* d(offset)/d(local time), from start and end */
    int64_t shift_ns;    /* test-only: added to every reading of this rank's clock */
} sp_clock_t;

/* Set up the model (no synchronization yet). Reads the test-only SCALEPROBE_TEST_CLOCK_SHIFT
 * ("RANK:NS": that rank's clock reads NS nanoseconds ahead). */
void sp_clock_init(sp_clock_t *clk, int rank);

/* This rank's clock now (monotonic ns, plus the test shift). */
int64_t sp_clock_now(const sp_clock_t *clk);

/* The test shift applied to a time recorded with sp_time_ns(). */
static inline int64_t sp_clock_local(const sp_clock_t *clk, int64_t recorded_ns)
{
    return recorded_ns + clk->shift_ns;
}

/*
 * Synchronize with rank 0: pings round trips per measured rank, the minimum round trip kept.
 * all_ranks: measure every rank, else only node leaders (node-local rank 0), whose model their
 * node's ranks share. Sets the start point (end = 0) or the end point (end = 1) and, at the end,
 * the drift. Collective over comm.
 */
sp_status_t sp_clock_sync(sp_clock_t *clk, const sp_topo_t *topo, MPI_Comm comm, int all_ranks,
                          int pings, int end);

/* A local time (already shifted, see sp_clock_local) on rank 0's clock. */
int64_t sp_clock_to_global(const sp_clock_t *clk, int64_t local_ns);

/* The bound on the error of sp_clock_to_global (the worse of the two synchronizations). */
int64_t sp_clock_err_ns(const sp_clock_t *clk);

/* This rank's row of /clock/ranks. */
void sp_clock_row(const sp_clock_t *clk, int rank, int node, sp_clock_rank_t *row);

#endif
