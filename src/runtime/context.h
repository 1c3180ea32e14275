/* All state of a run in one object: communicators, node map, backend, result file. */
#ifndef SP_CONTEXT_H
#define SP_CONTEXT_H

#include <mpi.h>

#include "backend.h"
#include "clocksync.h"
#include "progress.h"
#include "result.h"
#include "status.h"
#include "timeline.h"
#include "topo.h"
#include "watchdog.h"

typedef struct sp_ctx {
    MPI_Comm world;          /* duplicate of MPI_COMM_WORLD for scaleprobe's control traffic */
    int rank;
    int nranks;
    int mpi_thread;          /* the thread level MPI provided (MPI_THREAD_*) */
    sp_topo_t topo;
    sp_backend_t backend;
    sp_result_t *result;     /* rank 0 only; NULL elsewhere */
    sp_clock_t clock;        /* this rank's clock against rank 0's */
    sp_timeline_t timeline;  /* this rank's recorded events */
    uint64_t coll_seq;       /* collective operations started on the backend so far: the same
                              * count on every rank, so it names one instance everywhere */
    const char *command_line;
    sp_watchdog_t *watchdog; /* bounds every wait by --timeout; NULL: none */
    sp_progress_t *progress; /* rank 0's progress of the running command, ticked between the
                              * operations of a long item (progress.h); NULL: none */
} sp_ctx_t;

/*
 * Agree on a status across ranks (a MIN all-reduce): every rank returns the same error when any
 * rank failed, so no rank goes on to wait for a failed peer. A failed rank returns its own
 * status; the others return the lowest status of all ranks. Collective over ctx->world.
 */
sp_status_t sp_ctx_agree(const sp_ctx_t *ctx, sp_status_t status);

/* Same, over any communicator. */
sp_status_t sp_agree(MPI_Comm comm, sp_status_t status);

#endif
