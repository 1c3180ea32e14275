/* The nccl backend's streams for the proxy engine: a CUDA stream each, with its own NCCL
 * communicator (backend_nccl_impl.h). CUDA and NCCL headers are included in the nccl backend's
 * files only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend_nccl_impl.h"
#include "backend_nccl_kernels.h"
#include "timeutil.h"

/* Streams of the proxy engine: a CUDA stream each, with its own NCCL communicator over the
 * stream's group (one communicator per stream, so operations of different streams never share a
 * communicator's ordering). Created with a unique id broadcast over the group, like the
 * backend's own; collective over the group only. */
sp_status_t sp__nccl_stream_create(void *state, MPI_Comm group, sp_stream_t **stream_p)
{
    nccl_state_t *st = state;
    MPI_Comm comm = group != MPI_COMM_NULL ? group : st->comm;
    sp_stream_t *s = calloc(1, sizeof(*s));
    sp_status_t status = s == NULL ? SP_ERR_NOMEM : SP_OK;

    if (s != NULL) {
        MPI_Comm_rank(comm, &s->rank);
        MPI_Comm_size(comm, &s->nranks);
        status = cuda_check(cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking),
                            "cudaStreamCreateWithFlags");
    }
    /* collective even when this rank failed, so the group's other members do not wait */
    {
        ncclComm_t nc = NULL;
        sp_status_t made = sp__nccl_comm_create(st, comm, status == SP_OK, &nc,
                                                "ncclCommInitRank (stream)");
        status = status != SP_OK ? status : made;
        if (s != NULL) {
            s->nccl = nc;
        }
    }
    if (status != SP_OK) {
        if (s != NULL) {
            if (s->stream != NULL) {
                cudaStreamDestroy(s->stream);
            }
            free(s);
        }
        return status;
    }
    s->next = st->streams;
    st->streams = s;
    *stream_p = s;
    return SP_OK;
}

void sp__nccl_stream_destroy(void *state, sp_stream_t *stream)
{
    nccl_state_t *st = state;

    for (struct sp_stream **p = &st->streams; *p != NULL; p = &(*p)->next) {
        if (*p == stream) {
            *p = stream->next;
            break;
        }
    }
    if (stream->nccl != NULL) {
        ncclResult_t async = ncclSuccess;
        if (st->api.CommGetAsyncError(stream->nccl, &async) != ncclSuccess) {
            async = ncclInternalError;
        }
        /* destroy waits for the communicator's work: only when there is none left */
        if (cudaStreamQuery(stream->stream) == cudaSuccess && async == ncclSuccess) {
            sp__nccl_comm_close(st, stream->nccl);
        } else {
            st->api.CommAbort(stream->nccl);
        }
    }
    cudaStreamDestroy(stream->stream);
    free(stream);
}

sp_status_t sp__nccl_stream_coll(void *state, sp_stream_t *stream, const sp_comm_call_t *call,
                                 const void *send, void *recv)
{
    nccl_state_t *st = state;
    nccl_place_t at = {&st->api, stream->nccl, stream->stream, stream->rank, stream->nranks};

    sp_gpu_group_reset(&st->lanes_deadline);

    if (stream->nccl == NULL) {
        return SP_ERR_TIMEOUT;
    }
    return sp__nccl_call_on(st, &at, call, send, recv);
}

sp_status_t sp__nccl_stream_compute(void *state, sp_stream_t *stream, uint64_t duration_ns)
{
    sp_gpu_group_reset(&((nccl_state_t *)state)->lanes_deadline);
    return cuda_check((cudaError_t)sp_cuda_spin(stream->stream, duration_ns), "spin kernel");
}

/* Point-to-point on the stream's communicator. NCCL matches a pair's messages in order, not by
 * tag: the engine's lanes carry each pair's messages in the same order on both ends (checked by
 * tests/unit/test_program.c), so the tag is not needed. */
static sp_status_t nccl_stream_p2p(nccl_state_t *st, sp_stream_t *stream, int send, void *buf,
                                   size_t bytes, int peer)
{
    ncclResult_t rc;

    sp_gpu_group_reset(&st->lanes_deadline);
    if (stream->nccl == NULL) {
        return SP_ERR_TIMEOUT;
    }
    rc = send ? st->api.Send(buf, bytes, ncclInt8, peer, stream->nccl, stream->stream)
              : st->api.Recv(buf, bytes, ncclInt8, peer, stream->nccl, stream->stream);
    if (rc == ncclInProgress) {
        return sp__nccl_settle(st, stream->nccl, rc, send ? "ncclSend" : "ncclRecv");
    }
    return nccl_check(st, rc, send ? "ncclSend" : "ncclRecv");
}

sp_status_t sp__nccl_stream_send(void *state, sp_stream_t *stream, const void *buf, size_t bytes,
                                 int peer, int tag)
{
    (void)tag;
    return nccl_stream_p2p(state, stream, 1, (void *)buf, bytes, peer);
}

sp_status_t sp__nccl_stream_recv(void *state, sp_stream_t *stream, void *buf, size_t bytes,
                                 int peer, int tag)
{
    (void)tag;
    return nccl_stream_p2p(state, stream, 0, buf, bytes, peer);
}

sp_status_t sp__nccl_stream_record(void *state, sp_stream_t *stream, sp_event_t *event)
{
    (void)state;
    return cuda_check(cudaEventRecord(event->ev, stream->stream), "cudaEventRecord");
}

sp_status_t sp__nccl_stream_wait(void *state, sp_stream_t *stream, sp_event_t *event)
{
    (void)state;
    return cuda_check(cudaStreamWaitEvent(stream->stream, event->ev, 0), "cudaStreamWaitEvent");
}

/* The engine waits on its lanes one after another: one deadline for all of them. */
sp_status_t sp__nccl_stream_sync(void *state, sp_stream_t *stream)
{
    nccl_state_t *st = state;
    uint64_t deadline = sp_gpu_group_deadline(&st->lanes_deadline, sp_time_ns(),
                                              (uint64_t)(st->timeout_s * 1e9));

    return sp__nccl_wait_until(st, &stream->nccl, sp__nccl_query_stream, stream->stream,
                               "waiting for a proxy stream", deadline);
}
