/* The nccl backend's calls (backend_nccl_impl.h): NCCL's types and operators for a call, the
 * premulsum operator's lifetime, and every pattern enqueued at a place (the backend's own
 * communicator and stream, or a proxy stream's). */
#include <stdint.h>
#include <string.h>

#include "backend_nccl_impl.h"

/* fp8 exists in NCCL from 2.24 (ncclFloat8e4m3 = 10, ncclFloat8e5m2 = 11); built against older
 * headers, the fp8 types are refused at run time (type_ok) */
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 24, 0)
#define SP_NCCL_HAVE_FP8 1
_Static_assert(SP_DTYPE_F8E4M3 == (int)ncclFloat8e4m3 && SP_DTYPE_F8E5M2 == (int)ncclFloat8e5m2,
               "sp_dtype_t follows ncclDataType_t");
#else
#define SP_NCCL_HAVE_FP8 0
#endif

void sp__nccl_premul_release(nccl_state_t *st)
{
    if (st->premul_dtype >= 0 && st->nccl != NULL) {
        st->api.RedOpDestroy(st->premul_op, st->nccl);
    }
    st->premul_dtype = -1;
}

static ncclDataType_t nccl_type(sp_dtype_t dtype)
{
    return (ncclDataType_t)dtype;
}

static ncclRedOp_t nccl_op(const nccl_state_t *st, sp_redop_t redop)
{
    return redop == SP_REDOP_PREMULSUM ? st->premul_op : (ncclRedOp_t)redop;
}

/* Whether NCCL (headers and library) has dtype: fp8 needs 2.24 in both. */
static sp_status_t type_ok(const nccl_state_t *st, sp_dtype_t dtype)
{
    if (dtype != SP_DTYPE_F8E4M3 && dtype != SP_DTYPE_F8E5M2) {
        return SP_OK;
    }
    if (!SP_NCCL_HAVE_FP8 || st->api.version < NCCL_VERSION(2, 24, 0)) {
        sp_error("%s needs NCCL 2.24 or later (built with %d.%d, running %d)",
                 sp_dtype_name(dtype), NCCL_MAJOR, NCCL_MINOR, st->api.version);
        return SP_ERR_UNSUPPORTED;
    }
    return SP_OK;
}

/* premulsum's operator on the backend's communicator for dtype, created on first use with this
 * rank's scalar (sp_redop_premul_scalar) and kept while the type stays the same: NCCL binds an
 * operator to one communicator and one type. Outside any timed region (warm-up comes first). */
static sp_status_t premul_prepare(nccl_state_t *st, sp_dtype_t dtype)
{
    uint64_t scalar = 0;
    ncclResult_t rc;

    if (st->premul_dtype == (int)dtype) {
        return SP_OK;
    }
    sp__nccl_premul_release(st);
    /* the type's own bytes of the scalar, as the type stores it */
    sp_dtype_set((int)dtype, &scalar, 0, sp_redop_premul_scalar(st->rank));
    rc = st->api.RedOpCreatePreMulSum(&st->premul_op, &scalar, nccl_type(dtype),
                                      ncclScalarHostImmediate, st->nccl);
    if (rc != ncclSuccess) {
        return nccl_check(st, rc, "ncclRedOpCreatePreMulSum");
    }
    st->premul_dtype = (int)dtype;
    return SP_OK;
}

/* Block exchanges (alltoall, gather, scatter) as grouped point-to-point, as nccl-tests does
 * before NCCL 2.28; the caller holds the group open. */
static ncclResult_t group_blocks(const nccl_place_t *at, const sp_comm_call_t *call,
                                 const void *send, void *recv)
{
    ncclDataType_t dt = nccl_type(call->dtype);
    size_t block = call->count * sp_dtype_size(call->dtype);
    int is_root = at->rank == call->root;
    int ip = call->in_place;
    const char *s = (const char *)send;
    char *d = (char *)recv;
    ncclResult_t rc = ncclSuccess;

    for (int r = 0; r < at->nranks && rc == ncclSuccess; r++) {
        if (call->pattern == SP_COMM_ALLTOALL) {
            rc = at->api->Send(s + (size_t)r * block, call->count, dt, r, at->comm, at->stream);
            if (rc == ncclSuccess) {
                rc = at->api->Recv(d + (size_t)r * block, call->count, dt, r, at->comm, at->stream);
            }
        } else if (is_root && !(ip && r == at->rank)) {
            /* in place, the root's own block is already where it belongs */
            rc = call->pattern == SP_COMM_GATHER
                     ? at->api->Recv(d + (size_t)r * block, call->count, dt, r, at->comm, at->stream)
                     : at->api->Send(s + (size_t)r * block, call->count, dt, r, at->comm, at->stream);
        }
    }
    if (rc != ncclSuccess || call->pattern == SP_COMM_ALLTOALL || (ip && is_root)) {
        return rc;
    }
    if (call->pattern == SP_COMM_GATHER) {
        return at->api->Send(send, call->count, dt, call->root, at->comm, at->stream);
    }
    /* scatter: NCCL's in-place output is block `rank` of the buffer */
    return at->api->Recv(ip ? d + (size_t)at->rank * block : d, call->count, dt, call->root, at->comm,
                    at->stream);
}

/* alltoallv as grouped point-to-point, every peer on both sides (an empty flow is a zero count
 * on both, as alltoall's at small sizes). The caller holds the group open. */
static ncclResult_t group_alltoallv(const nccl_place_t *at, const sp_comm_call_t *call,
                                    const void *send, void *recv)
{
    const sp_comm_vcounts_t *v = &call->v;
    ncclDataType_t dt = nccl_type(call->dtype);
    size_t esize = sp_dtype_size(call->dtype);
    ncclResult_t rc = ncclSuccess;

    for (int r = 0; r < at->nranks && rc == ncclSuccess; r++) {
        rc = at->api->Send((const char *)send + v->send_displs[r] * esize, v->send_counts[r], dt, r,
                      at->comm, at->stream);
        if (rc == ncclSuccess) {
            rc = at->api->Recv((char *)recv + v->recv_displs[r] * esize, v->recv_counts[r], dt, r,
                          at->comm, at->stream);
        }
    }
    return rc;
}

/* The point-to-point patterns, in one NCCL group. */
static ncclResult_t grouped(const nccl_place_t *at, const sp_comm_call_t *call, const void *send,
                            void *recv)
{
    ncclDataType_t dt = nccl_type(call->dtype);
    ncclResult_t rc = at->api->GroupStart();
    ncclResult_t end;

    if (rc == ncclSuccess && call->pattern == SP_COMM_ALLTOALLV) {
        rc = group_alltoallv(at, call, send, recv);
    } else if (rc == ncclSuccess && call->pattern == SP_COMM_SENDRECV) {
        /* SP_COMM_NO_PEER: that direction is skipped (comm_call.h) */
        if (call->send_peer != SP_COMM_NO_PEER) {
            rc = at->api->Send(send, call->count, dt, call->send_peer, at->comm, at->stream);
        }
        if (rc == ncclSuccess && call->recv_peer != SP_COMM_NO_PEER) {
            rc = at->api->Recv(recv, call->count, dt, call->recv_peer, at->comm, at->stream);
        }
    } else if (rc == ncclSuccess) {
        rc = group_blocks(at, call, send, recv);
    }
    end = at->api->GroupEnd();
    return rc == ncclSuccess ? end : rc;
}

/* alltoall, gather, scatter: NCCL's own calls where the library has them (2.28+), grouped
 * send/recv otherwise (the fingerprint says which). NCCL's in-place forms match this
 * program's: the root's own block of the buffer. */
static ncclResult_t native_blocks(const nccl_place_t *at, const sp_comm_call_t *call,
                                  const void *send, void *recv)
{
    ncclDataType_t dt = nccl_type(call->dtype);
    const sp_nccl_api_t *api = at->api;

    if (call->pattern == SP_COMM_ALLTOALL && api->AlltoAll != NULL) {
        return api->AlltoAll(send, recv, call->count, dt, at->comm, at->stream);
    }
    if (call->pattern == SP_COMM_GATHER && api->Gather != NULL) {
        return api->Gather(send, recv, call->count, dt, call->root, at->comm, at->stream);
    }
    if (call->pattern == SP_COMM_SCATTER && api->Scatter != NULL) {
        return api->Scatter(send, recv, call->count, dt, call->root, at->comm, at->stream);
    }
    return grouped(at, call, send, recv);
}

sp_status_t sp__nccl_call_on(const nccl_state_t *st, const nccl_place_t *at,
                             const sp_comm_call_t *call, const void *send, void *recv)
{
    ncclDataType_t dt = nccl_type(call->dtype);
    ncclRedOp_t op = nccl_op(st, call->redop);
    size_t count = call->count;
    /* NCCL's in-place output of reduce_scatter is block `rank` of the buffer */
    void *out = call->in_place
                    ? (char *)recv + count * (size_t)at->rank * sp_dtype_size(call->dtype)
                    : recv;
    ncclResult_t rc;

    if (call->redop == SP_REDOP_PREMULSUM && at->comm != st->nccl) {
        return SP_ERR_UNSUPPORTED; /* the operator exists on the backend's communicator only */
    }
    switch (call->pattern) {
    case SP_COMM_ALLREDUCE:
        rc = at->api->AllReduce(send, recv, count, dt, op, at->comm, at->stream);
        break;
    case SP_COMM_ALLGATHER:
        rc = at->api->AllGather(send, recv, count, dt, at->comm, at->stream);
        break;
    case SP_COMM_REDUCE_SCATTER:
        rc = at->api->ReduceScatter(send, out, count, dt, op, at->comm, at->stream);
        break;
    case SP_COMM_BCAST:
        rc = at->api->Broadcast(send, recv, count, dt, call->root, at->comm, at->stream);
        break;
    case SP_COMM_REDUCE:
        rc = at->api->Reduce(send, recv, count, dt, op, call->root, at->comm, at->stream);
        break;
    case SP_COMM_ALLTOALL:
    case SP_COMM_GATHER:
    case SP_COMM_SCATTER:
        rc = native_blocks(at, call, send, recv);
        break;
    case SP_COMM_ALLTOALLV:
    case SP_COMM_SENDRECV:
        rc = grouped(at, call, send, recv);
        break;
    default:
        return SP_ERR_UNSUPPORTED;
    }
    if (rc == ncclInProgress) {
        return sp__nccl_settle((nccl_state_t *)st, at->comm, rc,
                               sp_comm_pattern_name(call->pattern));
    }
    return nccl_check(st, rc, sp_comm_pattern_name(call->pattern));
}

sp_status_t sp__nccl_call_prepare(nccl_state_t *st, const sp_comm_call_t *call)
{
    sp_status_t status = type_ok(st, call->dtype);

    if (status == SP_OK && call->redop == SP_REDOP_PREMULSUM) {
        status = premul_prepare(st, call->dtype);
    }
    return status;
}
