/* The nccl backend's communicators: creation bounded by --timeout (a non-blocking
 * ncclCommInitRankConfig polled until its deadline), and the one abort path every error takes:
 * an NCCL asynchronous error, a sticky CUDA error or an expired wait aborts every communicator
 * of the rank, so that neither cudaFree nor ncclCommDestroy waits for ever on kernels that
 * cannot finish. CUDA and NCCL headers stay in the nccl backend's files. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "backend_nccl_impl.h"
#include "gpu_policy.h"
#include "timeutil.h"

int sp__nccl_abort_all(nccl_state_t *st)
{
    int n = 0;

    if (st->nccl != NULL) {
        st->api.CommAbort(st->nccl);
        st->nccl = NULL;
        n++;
    }
    for (struct sp_stream *s = st->streams; s != NULL; s = s->next) {
        if (s->nccl != NULL) {
            st->api.CommAbort(s->nccl);
            s->nccl = NULL;
            n++;
        }
    }
    return n;
}

static void nap_20us(void)
{
    struct timespec nap = {0, 20000};

    nanosleep(&nap, NULL);
}

sp_status_t sp__nccl_bounded_wait_on(nccl_state_t *st, ncclComm_t *comm,
                                     cudaError_t (*query)(void *), void *what_obj, const char *what)
{
    return sp__nccl_wait_until(st, comm, query, what_obj, what,
                               sp_time_ns() + (uint64_t)(st->timeout_s * 1e9));
}

sp_status_t sp__nccl_wait_until(nccl_state_t *st, ncclComm_t *comm, cudaError_t (*query)(void *),
                                void *what_obj, const char *what, uint64_t deadline)
{
    for (;;) {
        cudaError_t rc = query(what_obj);
        ncclResult_t async = ncclSuccess;
        if (*comm != NULL && st->api.CommGetAsyncError(*comm, &async) != ncclSuccess) {
            async = ncclSuccess;
        }
        if (sp_gpu_must_abort((int)rc, (int)async)) {
            sp_status_t status = rc != cudaSuccess && rc != cudaErrorNotReady
                                     ? cuda_check(rc, what)
                                     : nccl_check(st, async, what);
            sp_error("%s: aborted %d NCCL communicator(s) after the error", what,
                     sp__nccl_abort_all(st));
            return status;
        }
        if (rc != cudaErrorNotReady) {
            return SP_OK;
        }
        if (sp_time_ns() > deadline) {
            sp_error("%s: no completion after %.1f s (--timeout); aborted %d NCCL communicator(s)",
                     what, st->timeout_s, sp__nccl_abort_all(st));
            return SP_ERR_TIMEOUT;
        }
        nap_20us();
    }
}

sp_status_t sp__nccl_settle(nccl_state_t *st, ncclComm_t comm, ncclResult_t rc, const char *what)
{
    uint64_t deadline = sp_time_ns() + (uint64_t)(st->timeout_s * 1e9);
    ncclResult_t async = rc;

    /* a non-blocking communicator may answer "in progress" (a lazy connection set-up); the
     * next call on it must wait until that is done */
    while (async == ncclInProgress && comm != NULL) {
        if (st->api.CommGetAsyncError(comm, &async) != ncclSuccess) {
            break;
        }
        if (async == ncclInProgress && sp_time_ns() > deadline) {
            sp_error("%s: still in progress after %.1f s (--timeout); aborted %d NCCL "
                     "communicator(s)",
                     what, st->timeout_s, sp__nccl_abort_all(st));
            return SP_ERR_TIMEOUT;
        }
        if (async == ncclInProgress) {
            nap_20us();
        }
    }
    if (async != ncclSuccess && async != ncclInProgress) {
        sp_status_t status = nccl_check(st, async, what);
        sp_error("%s: aborted %d NCCL communicator(s) after the error", what,
                 sp__nccl_abort_all(st));
        return status;
    }
    return SP_OK;
}

void sp__nccl_comm_close(nccl_state_t *st, ncclComm_t comm)
{
    uint64_t deadline = sp_time_ns() + (uint64_t)(st->timeout_s * 1e9);
    ncclResult_t rc = st->api.CommFinalize(comm);

    while (rc == ncclInProgress && sp_time_ns() < deadline) {
        nap_20us();
        if (st->api.CommGetAsyncError(comm, &rc) != ncclSuccess) {
            rc = ncclInternalError;
        }
    }
    if (rc == ncclSuccess) {
        st->api.CommDestroy(comm);
    } else {
        st->api.CommAbort(comm);
    }
}

/* Poll a non-blocking communicator's creation until done, failed or past the deadline; aborts
 * it unless it is done. */
static sp_status_t init_wait(nccl_state_t *st, ncclComm_t comm, ncclResult_t rc, const char *what)
{
    uint64_t deadline = sp_time_ns() + (uint64_t)(st->timeout_s * 1e9);
    ncclResult_t async = rc;

    for (;;) {
        if (async == ncclInProgress && st->api.CommGetAsyncError(comm, &async) != ncclSuccess) {
            async = ncclInternalError;
        }
        switch (sp_gpu_init_progress((int)async, sp_time_ns(), deadline)) {
        case SP_GPU_INIT_DONE:
            return SP_OK;
        case SP_GPU_INIT_FAILED: {
            sp_status_t status = nccl_check(st, async, what);
            st->api.CommAbort(comm);
            return status;
        }
        case SP_GPU_INIT_EXPIRED:
            sp_error("%s: communicator not ready after %.1f s (--timeout); aborted", what,
                     st->timeout_s);
            st->api.CommAbort(comm);
            return SP_ERR_TIMEOUT;
        case SP_GPU_INIT_WAIT:
            nap_20us();
            break;
        }
    }
}

sp_status_t sp__nccl_comm_create(nccl_state_t *st, MPI_Comm comm, int ready, ncclComm_t *comm_p,
                                 const char *what)
{
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    ncclComm_t nc = NULL;
    struct {
        int ok;
        ncclUniqueId id;
    } boot;
    sp_status_t status = ready ? SP_OK : SP_ERR_PEER;
    int rank, nranks, mine, all = 0;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    memset(&boot, 0, sizeof(boot));
    if (status == SP_OK && rank == 0) {
        status = nccl_check(st, st->api.GetUniqueId(&boot.id), "ncclGetUniqueId");
    }
    /* nobody enters the init unless every member is ready and the id is good */
    mine = status == SP_OK;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm);
    boot.ok = all;
    MPI_Bcast(&boot, (int)sizeof(boot), MPI_BYTE, 0, comm);
    if (!boot.ok) {
        return status != SP_OK ? status : SP_ERR_PEER;
    }
    config.blocking = 0;
    {
        ncclResult_t rc = st->api.CommInitRankConfig(&nc, nranks, boot.id, rank, &config);
        if (rc != ncclSuccess && rc != ncclInProgress) {
            status = nccl_check(st, rc, what);
            if (nc != NULL) {
                st->api.CommAbort(nc);
            }
            nc = NULL;
        }
        if (status == SP_OK) {
            status = nc != NULL ? init_wait(st, nc, rc, what) : SP_ERR_DEVICE;
        }
    }
    /* an agreed failure: whoever has a communicator aborts it, nobody destroys */
    mine = status == SP_OK;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm);
    if (!all) {
        if (status == SP_OK) {
            st->api.CommAbort(nc);
        }
        return status != SP_OK ? status : SP_ERR_PEER;
    }
    *comm_p = nc;
    return SP_OK;
}
