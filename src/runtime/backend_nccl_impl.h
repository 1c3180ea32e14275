/* Internal to the nccl backend (backend_nccl.c, backend_nccl_stream.c): its state, events,
 * streams and the helpers both files use. Included by the nccl backend's files only, like the
 * CUDA and NCCL headers it includes. */
#ifndef SP_BACKEND_NCCL_IMPL_H
#define SP_BACKEND_NCCL_IMPL_H

#include <cuda_runtime.h>
#include <nccl.h>

#include "backend.h"
#include "backend_nccl_api.h"
#include "gpu_policy.h"
#include "gpu_util.h"
#include "log.h"

typedef struct {
    sp_nccl_api_t api; /* NCCL, loaded at init */
    MPI_Comm comm;
    int rank;
    int nranks;
    int device;
    cudaStream_t stream;
    ncclComm_t nccl;             /* NULL after an abort */
    unsigned long long *counter; /* device memory, for verification */
    double timeout_s;
    int cuda_graph;
    int blocking; /* nccl-tests -z: stream synchronized and a barrier after each collective */
    /* premulsum's operator on the backend's communicator, for premul_dtype (-1: none yet) */
    ncclRedOp_t premul_op;
    int premul_dtype;
    /* the last captured batch, replayed while the same operation is timed */
    cudaGraphExec_t graph;
    sp_comm_call_t graph_call;
    size_t *graph_v; /* the captured call's per-peer arrays, 4 * nranks */
    const void *graph_send;
    void *graph_recv;
    long graph_k;
    char device_name[128];
    char bus_id[32];
    struct sp_stream *streams; /* the proxy's live streams, each with its own communicator */
    sp_gpu_deadline_t lanes_deadline; /* shared by the waits on the streams after an enqueue */
    struct sp_nccl_gemm *gemm;        /* GEMM compute, after gemm_setup (backend_nccl_gemm.c) */
} nccl_state_t;

struct sp_event {
    cudaEvent_t ev;
};

/* A proxy stream (see sp__nccl_stream_create). All of them are driven from the main thread. */
struct sp_stream {
    cudaStream_t stream;
    ncclComm_t nccl; /* NULL after an abort */
    int rank;
    int nranks;
    struct sp_stream *next; /* in nccl_state_t.streams */
};

/* Where a collective runs: the backend's own communicator and stream, or a proxy stream's. */
typedef struct {
    const sp_nccl_api_t *api;
    ncclComm_t comm;
    cudaStream_t stream;
    int rank;
    int nranks;
} nccl_place_t;

/* Log a failed CUDA call once, with CUDA's own message, and classify it. */
static inline sp_status_t cuda_check(cudaError_t rc, const char *what)
{
    if (rc == cudaSuccess) {
        return SP_OK;
    }
    sp_error("%s: %s", what, cudaGetErrorString(rc));
    return sp_gpu_classify_cuda((int)rc);
}

static inline sp_status_t nccl_check(const nccl_state_t *st, ncclResult_t rc, const char *what)
{
    if (rc == ncclSuccess) {
        return SP_OK;
    }
    if (sp_gpu_classify_nccl((int)rc) == SP_OK) {
        return SP_OK; /* in progress: only non-blocking communicators say so */
    }
    sp_error("%s: %s%s%s", what, st->api.GetErrorString(rc), st->nccl ? ": " : "",
             st->nccl ? st->api.GetLastError(st->nccl) : "");
    return sp_gpu_classify_nccl((int)rc);
}

static inline cudaError_t sp__nccl_query_stream(void *s)
{
    return cudaStreamQuery((cudaStream_t)s);
}

/* Abort every communicator of this rank: the backend's own and each proxy stream's (after one
 * has failed, kernels of the others may wait on the same lost peer). Operations on an aborted
 * communicator answer SP_ERR_TIMEOUT. Returns how many (backend_nccl_comm.c). */
int sp__nccl_abort_all(nccl_state_t *st);

/* A communicator over comm, created non-blocking and bounded by the configured timeout; ready
 * says whether this rank can take part. On any rank's failure every rank that has one aborts it
 * and all return an error (SP_ERR_PEER where another rank failed). Collective over comm. */
sp_status_t sp__nccl_comm_create(nccl_state_t *st, MPI_Comm comm, int ready, ncclComm_t *comm_p,
                                 const char *what);

/* Close a communicator whose work is done: ncclCommFinalize (non-blocking: polled until done,
 * at most the configured timeout), then ncclCommDestroy; ncclCommAbort instead when the
 * finalization fails or does not finish in time. */
void sp__nccl_comm_close(nccl_state_t *st, ncclComm_t comm);

/* After an enqueue on comm answered rc: wait (bounded) while a non-blocking communicator is
 * still in progress; on an error abort every communicator. */
sp_status_t sp__nccl_settle(nccl_state_t *st, ncclComm_t comm, ncclResult_t rc, const char *what);

/* Wait until query(obj) stops answering cudaErrorNotReady, at most the configured timeout; on
 * expiry, an NCCL asynchronous error of *comm or a sticky CUDA error abort every communicator
 * of the rank and return the error. */
sp_status_t sp__nccl_bounded_wait_on(nccl_state_t *st, ncclComm_t *comm,
                                     cudaError_t (*query)(void *), void *what_obj,
                                     const char *what);

/* The same, until an absolute deadline (sp_time_ns's clock). */
sp_status_t sp__nccl_wait_until(nccl_state_t *st, ncclComm_t *comm, cudaError_t (*query)(void *),
                                void *what_obj, const char *what, uint64_t deadline_ns);

/* Before a call on the backend's own communicator: the data type exists in this NCCL (fp8 needs
 * 2.24), and premulsum's operator exists for the call's type (created on first use, replacing
 * the previous type's). Not collective. backend_nccl_call.c. */
sp_status_t sp__nccl_call_prepare(nccl_state_t *st, const sp_comm_call_t *call);

/* Destroy premulsum's operator, if one exists; before the communicator closes. */
void sp__nccl_premul_release(nccl_state_t *st);

/* Enqueue one call at a place (the backend's communicator and stream, or a proxy stream's). */
sp_status_t sp__nccl_call_on(const nccl_state_t *st, const nccl_place_t *at,
                             const sp_comm_call_t *call, const void *send, void *recv);

/* The stream entries of the ops table (backend_nccl_stream.c). */
sp_status_t sp__nccl_stream_create(void *state, MPI_Comm group, sp_stream_t **stream_p);
void sp__nccl_stream_destroy(void *state, sp_stream_t *stream);
sp_status_t sp__nccl_stream_coll(void *state, sp_stream_t *stream, const sp_comm_call_t *call,
                                 const void *send, void *recv);
sp_status_t sp__nccl_stream_compute(void *state, sp_stream_t *stream, uint64_t duration_ns);
sp_status_t sp__nccl_stream_send(void *state, sp_stream_t *stream, const void *buf, size_t bytes,
                                 int peer, int tag);
sp_status_t sp__nccl_stream_recv(void *state, sp_stream_t *stream, void *buf, size_t bytes,
                                 int peer, int tag);
sp_status_t sp__nccl_stream_record(void *state, sp_stream_t *stream, sp_event_t *event);
sp_status_t sp__nccl_stream_wait(void *state, sp_stream_t *stream, sp_event_t *event);
sp_status_t sp__nccl_stream_sync(void *state, sp_stream_t *stream);
/* GEMM compute (backend_nccl_gemm.c): cuBLAS strided-batched GEMMs in the model's precision;
 * release frees the handle, workspace and operands (before the device is left). */
sp_status_t sp__nccl_gemm_setup(void *state, const sp_gemm_t *shapes, size_t n, sp_dtype_t dtype,
                                int threads, char *desc, size_t desclen);
sp_status_t sp__nccl_stream_gemm(void *state, sp_stream_t *stream, const sp_gemm_t *list,
                                 size_t n);
void sp__nccl_gemm_release(nccl_state_t *st);

#endif
