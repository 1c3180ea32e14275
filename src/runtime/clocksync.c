/* Minimum-round-trip ping-pong against rank 0 (Cristian's method): rank 0 sends, the peer
 * answers with its clock reading, rank 0 timestamps the answer; the sample with the smallest
 * round trip bounds the offset error by half that round trip. Peers are measured one at a time,
 * so no measurement shares the network or rank 0's attention with another. */
#include "clocksync.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timeutil.h"

#define TAG_PING 7101
#define TAG_PONG 7102
#define TAG_RESULT 7103

void sp_clock_init(sp_clock_t *clk, int rank)
{
    const char *v = getenv("SCALEPROBE_TEST_CLOCK_SHIFT");
    int shift_rank = -1;
    long long shift = 0;

    memset(clk, 0, sizeof(*clk));
    if (v != NULL && sscanf(v, "%d:%lld", &shift_rank, &shift) == 2 && shift_rank == rank) {
        clk->shift_ns = (int64_t)shift;
    }
}

int64_t sp_clock_now(const sp_clock_t *clk)
{
    return (int64_t)sp_time_ns() + clk->shift_ns;
}

/* Rank 0's side of the measurement of one peer. */
static void measure_peer(const sp_clock_t *clk, MPI_Comm comm, int peer, int pings,
                         sp_clock_point_t *best)
{
    best->rtt_ns = INT64_MAX;
    /* the first exchange only warms the path up */
    for (int i = 0; i <= pings; i++) {
        int64_t t0 = sp_clock_now(clk);
        int64_t tp = 0;
        int64_t t1;
        MPI_Send(&t0, 1, MPI_INT64_T, peer, TAG_PING, comm);
        MPI_Recv(&tp, 1, MPI_INT64_T, peer, TAG_PONG, comm, MPI_STATUS_IGNORE);
        t1 = sp_clock_now(clk);
        if (i > 0 && t1 - t0 < best->rtt_ns) {
            best->rtt_ns = t1 - t0;
            /* the peer read tp at the midpoint of the round trip, to within rtt/2 */
            best->offset_ns = tp - (t0 + (t1 - t0) / 2);
            best->at_ns = tp;
        }
    }
    best->err_ns = (best->rtt_ns + 1) / 2;
}

/* The peer's side: answer every ping with a clock reading, then take the result. */
static void answer_pings(const sp_clock_t *clk, MPI_Comm comm, int pings, sp_clock_point_t *out)
{
    for (int i = 0; i <= pings; i++) {
        int64_t t0;
        int64_t tp;
        MPI_Recv(&t0, 1, MPI_INT64_T, 0, TAG_PING, comm, MPI_STATUS_IGNORE);
        tp = sp_clock_now(clk);
        MPI_Send(&tp, 1, MPI_INT64_T, 0, TAG_PONG, comm);
        (void)t0;
    }
    MPI_Recv(out, (int)sizeof(*out), MPI_BYTE, 0, TAG_RESULT, comm, MPI_STATUS_IGNORE);
}

sp_status_t sp_clock_sync(sp_clock_t *clk, const sp_topo_t *topo, MPI_Comm comm, int all_ranks,
                          int pings, int end)
{
    sp_clock_point_t point;
    int rank;
    int nranks;
    int measured;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    memset(&point, 0, sizeof(point));
    measured = all_ranks || topo->local_rank == 0;

    if (rank == 0) {
        point.at_ns = sp_clock_now(clk); /* the reference: offset 0, no error */
        for (int peer = 1; peer < nranks; peer++) {
            sp_clock_point_t p;
            /* rank 0 has the node map: measure leaders only, unless every rank is asked for */
            if (!all_ranks && topo->ranks != NULL && topo->ranks[peer].local_rank != 0) {
                continue;
            }
            measure_peer(clk, comm, peer, pings, &p);
            MPI_Send(&p, (int)sizeof(p), MPI_BYTE, peer, TAG_RESULT, comm);
        }
    } else if (measured) {
        answer_pings(clk, comm, pings, &point);
    }
    if (!all_ranks) {
        /* ranks of a node read the same clock: they take the leader's offset and error, at
         * their own reading time */
        int64_t at = sp_clock_now(clk);
        MPI_Bcast(&point, (int)sizeof(point), MPI_BYTE, 0, topo->node_comm);
        if (!measured) {
            point.at_ns = at;
        }
    }
    MPI_Barrier(comm);
    if (end) {
        clk->end = point;
        clk->have_end = 1;
        clk->drift = clk->end.at_ns != clk->start.at_ns
                         ? (double)(clk->end.offset_ns - clk->start.offset_ns) /
                               (double)(clk->end.at_ns - clk->start.at_ns)
                         : 0.0;
    } else {
        clk->start = point;
        clk->have_end = 0;
        clk->drift = 0.0;
    }
    clk->measured = measured;
    return SP_OK;
}

int64_t sp_clock_to_global(const sp_clock_t *clk, int64_t local_ns)
{
    double offset = (double)clk->start.offset_ns + clk->drift * (double)(local_ns - clk->start.at_ns);

    return local_ns - (int64_t)offset;
}

int64_t sp_clock_err_ns(const sp_clock_t *clk)
{
    int64_t e = clk->start.err_ns;

    if (clk->have_end && clk->end.err_ns > e) {
        e = clk->end.err_ns;
    }
    return e;
}

void sp_clock_row(const sp_clock_t *clk, int rank, int node, sp_clock_rank_t *row)
{
    memset(row, 0, sizeof(*row));
    row->rank = rank;
    row->node = node;
    row->measured = clk->measured;
    row->offset_ns = clk->start.offset_ns;
    row->offset_end_ns = clk->have_end ? clk->end.offset_ns : clk->start.offset_ns;
    row->drift = clk->drift;
    row->err_ns = sp_clock_err_ns(clk);
    row->rtt_ns = clk->start.rtt_ns > clk->end.rtt_ns ? clk->start.rtt_ns : clk->end.rtt_ns;
    row->sync_start_ns = clk->start.at_ns;
    row->sync_end_ns = clk->have_end ? clk->end.at_ns : clk->start.at_ns;
}
