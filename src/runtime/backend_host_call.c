/* The host backend's MPI calls: each collective pattern as MPI over host memory, the user-defined
 * reductions for the floating types MPI lacks, and a stream's non-blocking form with a polite wait
 * (backend_host.c holds the backend table, its events and streams). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend_host_impl.h"
#include "log.h"

sp_status_t sp__host_mpi_check(int rc, const char *what)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;

    if (rc == MPI_SUCCESS) {
        return SP_OK;
    }
    MPI_Error_string(rc, msg, &len);
    sp_error("%s failed: %s", what, msg);
    return SP_ERR_MPI;
}

/* ---- half / bfloat16 / fp8 reductions: each pair widened to double, combined, rounded back
 * to the type (round to nearest even; fp8 saturates, dtype_conv.h) ---- */

static void reduce_soft(sp_dtype_t dtype, sp_redop_t redop, const void *in, void *inout, int len)
{
    for (int i = 0; i < len; i++) {
        double a = sp_dtype_get(dtype, in, (size_t)i);
        double b = sp_dtype_get(dtype, inout, (size_t)i);
        sp_dtype_set(dtype, inout, (size_t)i, sp_redop_apply(redop, a, b));
    }
}

/* One function per (type, op): MPI passes no user context to an operator. */
#define SP_HOST_SOFT_OP(fname, dtype, redop)                                                       \
    static void fname(void *in, void *inout, int *len, MPI_Datatype *dt)                           \
    {                                                                                              \
        (void)dt;                                                                                  \
        reduce_soft(dtype, redop, in, inout, *len);                                                \
    }
#define SP_HOST_SOFT_TYPE(prefix, dtype)                                                           \
    SP_HOST_SOFT_OP(prefix##_sum, dtype, SP_REDOP_SUM)                                             \
    SP_HOST_SOFT_OP(prefix##_prod, dtype, SP_REDOP_PROD)                                           \
    SP_HOST_SOFT_OP(prefix##_max, dtype, SP_REDOP_MAX)                                             \
    SP_HOST_SOFT_OP(prefix##_min, dtype, SP_REDOP_MIN)
SP_HOST_SOFT_TYPE(half, SP_DTYPE_HALF)
SP_HOST_SOFT_TYPE(bf16, SP_DTYPE_BFLOAT16)
SP_HOST_SOFT_TYPE(e4m3, SP_DTYPE_F8E4M3)
SP_HOST_SOFT_TYPE(e5m2, SP_DTYPE_F8E5M2)
#undef SP_HOST_SOFT_TYPE
#undef SP_HOST_SOFT_OP

/* Row of soft_ops for dtype, or -1 for a type MPI reduces itself. */
static int soft_type(sp_dtype_t dtype)
{
    switch (dtype) {
    case SP_DTYPE_HALF:
        return 0;
    case SP_DTYPE_BFLOAT16:
        return 1;
    case SP_DTYPE_F8E4M3:
        return 2;
    case SP_DTYPE_F8E5M2:
        return 3;
    default:
        return -1;
    }
}

static MPI_Datatype host_mpi_type(sp_dtype_t dtype)
{
    switch (dtype) {
    case SP_DTYPE_INT8:
        return MPI_INT8_T;
    case SP_DTYPE_UINT8:
        return MPI_UINT8_T;
    case SP_DTYPE_INT32:
        return MPI_INT32_T;
    case SP_DTYPE_UINT32:
        return MPI_UINT32_T;
    case SP_DTYPE_INT64:
        return MPI_INT64_T;
    case SP_DTYPE_UINT64:
        return MPI_UINT64_T;
    case SP_DTYPE_FLOAT:
        return MPI_FLOAT;
    case SP_DTYPE_DOUBLE:
        return MPI_DOUBLE;
    case SP_DTYPE_F8E4M3:
    case SP_DTYPE_F8E5M2:
        return MPI_UINT8_T;
    case SP_DTYPE_HALF:
    case SP_DTYPE_BFLOAT16:
    default:
        return MPI_UINT16_T;
    }
}

static MPI_Op host_mpi_op(const host_state_t *st, sp_dtype_t dtype, sp_redop_t redop)
{
    sp_redop_t base = redop == SP_REDOP_AVG || redop == SP_REDOP_PREMULSUM ? SP_REDOP_SUM : redop;
    int soft = soft_type(dtype);

    if (soft >= 0) {
        return st->soft_ops[soft][base];
    }
    switch (base) {
    case SP_REDOP_PROD:
        return MPI_PROD;
    case SP_REDOP_MAX:
        return MPI_MAX;
    case SP_REDOP_MIN:
        return MPI_MIN;
    case SP_REDOP_SUM:
    default:
        return MPI_SUM;
    }
}

sp_status_t sp__host_soft_ops_create(host_state_t *st)
{
    static MPI_User_function *const fns[SP_HOST_SOFT_TYPES][SP_HOST_SOFT_OPS] = {
        {half_sum, half_prod, half_max, half_min},
        {bf16_sum, bf16_prod, bf16_max, bf16_min},
        {e4m3_sum, e4m3_prod, e4m3_max, e4m3_min},
        {e5m2_sum, e5m2_prod, e5m2_max, e5m2_min},
    };

    for (int t = 0; t < SP_HOST_SOFT_TYPES; t++) {
        for (int i = 0; i < SP_HOST_SOFT_OPS; i++) {
            sp_status_t status = sp__host_mpi_check(
                MPI_Op_create(fns[t][i], 1, &st->soft_ops[t][i]), "MPI_Op_create");
            if (status != SP_OK) {
                sp__host_soft_ops_free(st);
                return status;
            }
        }
    }
    return SP_OK;
}

void sp__host_soft_ops_free(host_state_t *st)
{
    for (int t = 0; t < SP_HOST_SOFT_TYPES; t++) {
        for (int i = 0; i < SP_HOST_SOFT_OPS; i++) {
            if (st->soft_ops[t][i] != MPI_OP_NULL) {
                MPI_Op_free(&st->soft_ops[t][i]);
            }
        }
    }
}

static void host_avg_finish(const sp_comm_call_t *call, int nranks, void *out, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        double sum = sp_dtype_get(call->dtype, out, i);
        sp_dtype_set(call->dtype, out, i, sp_redop_avg_finish(call->dtype, sum, nranks));
    }
}

/* MPI's int counts and displacements of an ALLTOALLV, in the place's scratch. */
static sp_status_t host_vcounts(const host_place_t *at, const sp_comm_vcounts_t *v)
{
    const size_t *src[4] = {v->send_counts, v->send_displs, v->recv_counts, v->recv_displs};

    for (int a = 0; a < 4; a++) {
        for (int p = 0; p < at->nranks; p++) {
            if (src[a][p] > (size_t)INT_MAX) {
                sp_error("alltoallv: %zu elements exceed MPI's int counts", src[a][p]);
                return SP_ERR_UNSUPPORTED;
            }
            at->vint[a * at->nranks + p] = (int)src[a][p];
        }
    }
    return SP_OK;
}

/* premulsum: this rank's input times its scalar (sp_redop_premul_scalar), rounded to the type
 * as NCCL's pre-op does, written into recv (which the sweep sizes for the in-place layouts, so
 * it holds a reduce-scatter's whole input), then summed in place there. */
static int host_premulsum(const host_place_t *at, MPI_Comm comm, const sp_comm_call_t *call,
                          MPI_Datatype dt, MPI_Op sum, const void *send, void *recv,
                          void **out_p)
{
    const void *in = call->in_place ? recv : send;
    size_t n = call->pattern == SP_COMM_REDUCE_SCATTER ? call->count * (size_t)at->nranks
                                                       : call->count;
    double scalar = sp_redop_premul_scalar(at->rank);
    size_t esize = sp_dtype_size(call->dtype);
    int count = (int)call->count;
    int rc;

    for (size_t i = 0; i < n; i++) {
        sp_dtype_set(call->dtype, recv, i, scalar * sp_dtype_get(call->dtype, in, i));
    }
    switch (call->pattern) {
    case SP_COMM_ALLREDUCE:
        return MPI_Allreduce(MPI_IN_PLACE, recv, count, dt, sum, comm);
    case SP_COMM_REDUCE:
        if (at->rank == call->root) {
            return MPI_Reduce(MPI_IN_PLACE, recv, count, dt, sum, call->root, comm);
        }
        return MPI_Reduce(recv, NULL, count, dt, sum, call->root, comm);
    default: /* SP_COMM_REDUCE_SCATTER: the result at the start, or at block rank in place */
        rc = MPI_Reduce_scatter_block(MPI_IN_PLACE, recv, count, dt, sum, comm);
        if (call->in_place) {
            *out_p = (char *)recv + call->count * (size_t)at->rank * esize;
            if (rc == MPI_SUCCESS && at->rank != 0) {
                memmove(*out_p, recv, call->count * esize);
            }
        }
        return rc;
    }
}

/* The reductions: all-reduce, reduce and reduce-scatter. *out_p and *avg_p say where the result
 * lies and how many elements of it avg must still divide. */
static int host_reduction(const host_state_t *st, const host_place_t *at, MPI_Comm comm,
                          const sp_comm_call_t *call, const void *send, void *recv,
                          void **out_p, size_t *avg_p)
{
    MPI_Datatype dt = host_mpi_type(call->dtype);
    MPI_Op op = host_mpi_op(st, call->dtype, call->redop);
    size_t esize = sp_dtype_size(call->dtype);
    int ip = call->in_place;
    int is_root = at->rank == call->root;
    int count = (int)call->count;
    int rc;

    *out_p = recv;
    *avg_p = call->count;
    if (call->redop == SP_REDOP_PREMULSUM) {
        return host_premulsum(at, comm, call, dt, op, send, recv, out_p);
    }
    switch (call->pattern) {
    case SP_COMM_ALLREDUCE:
        return MPI_Allreduce(ip ? MPI_IN_PLACE : send, recv, count, dt, op, comm);
    case SP_COMM_REDUCE:
        *avg_p = is_root ? call->count : 0;
        if (ip && is_root) {
            return MPI_Reduce(MPI_IN_PLACE, recv, count, dt, op, call->root, comm);
        }
        return MPI_Reduce(ip ? recv : send, recv, count, dt, op, call->root, comm);
    default: /* SP_COMM_REDUCE_SCATTER */
        if (!ip) {
            return MPI_Reduce_scatter_block(send, recv, count, dt, op, comm);
        }
        /* MPI leaves the result at the start of the buffer; NCCL's in-place layout (and
         * therefore the verification) has it at block `rank`. */
        rc = MPI_Reduce_scatter_block(MPI_IN_PLACE, recv, count, dt, op, comm);
        *out_p = (char *)recv + call->count * (size_t)at->rank * esize;
        if (rc == MPI_SUCCESS && at->rank != 0) {
            memmove(*out_p, recv, call->count * esize);
        }
        return rc;
    }
}

/* The data movements. */
static int host_movement(const host_place_t *at, MPI_Comm comm, const sp_comm_call_t *call,
                         const void *send, void *recv)
{
    MPI_Datatype dt = host_mpi_type(call->dtype);
    size_t esize = sp_dtype_size(call->dtype);
    int ip = call->in_place;
    int is_root = at->rank == call->root;
    int count = (int)call->count;
    const int *v = at->vint;
    int n = at->nranks;

    switch (call->pattern) {
    case SP_COMM_ALLGATHER:
        return MPI_Allgather(ip ? MPI_IN_PLACE : send, count, dt, recv, count, dt, comm);
    case SP_COMM_BCAST:
        return MPI_Bcast(ip || !is_root ? recv : (void *)send, count, dt, call->root, comm);
    case SP_COMM_ALLTOALL:
        return MPI_Alltoall(ip ? MPI_IN_PLACE : send, count, dt, recv, count, dt, comm);
    case SP_COMM_ALLTOALLV:
        return MPI_Alltoallv(send, v, v + n, dt, recv, v + 2 * n, v + 3 * n, dt, comm);
    case SP_COMM_SENDRECV:
        if (call->send_peer == SP_COMM_NO_PEER || call->recv_peer == SP_COMM_NO_PEER) {
            /* one direction only (comm_call.h); MPI_PROC_NULL makes the other half a no-op */
            return MPI_Sendrecv(send, count, dt,
                                call->send_peer == SP_COMM_NO_PEER ? MPI_PROC_NULL
                                                                   : call->send_peer,
                                0, recv, count, dt,
                                call->recv_peer == SP_COMM_NO_PEER ? MPI_PROC_NULL
                                                                   : call->recv_peer,
                                0, comm, MPI_STATUS_IGNORE);
        }
        if (ip) {
            return MPI_Sendrecv_replace(recv, count, dt, call->send_peer, 0, call->recv_peer, 0,
                                        comm, MPI_STATUS_IGNORE);
        }
        return MPI_Sendrecv(send, count, dt, call->send_peer, 0, recv, count, dt,
                            call->recv_peer, 0, comm, MPI_STATUS_IGNORE);
    case SP_COMM_GATHER:
        return MPI_Gather(ip && is_root ? MPI_IN_PLACE : send, count, dt, recv, count, dt,
                          call->root, comm);
    default: /* SP_COMM_SCATTER */
        if (ip && is_root) {
            return MPI_Scatter(recv, count, dt, MPI_IN_PLACE, count, dt, call->root, comm);
        }
        return MPI_Scatter(send, count, dt,
                           ip ? (char *)recv + call->count * (size_t)at->rank * esize : recv,
                           count, dt, call->root, comm);
    }
}

/* One call on comm: the backend's own, or a stream's (at: this rank's place on it). */
sp_status_t sp__host_call_on(const host_state_t *st, const host_place_t *at, MPI_Comm comm,
                             const sp_comm_call_t *call, const void *send, void *recv)
{
    void *out = recv;
    size_t avg_count = 0;
    int rc;

    if ((unsigned)call->pattern >= SP_COMM_PATTERN_COUNT ||
        (call->pattern == SP_COMM_ALLTOALLV && call->in_place)) {
        return SP_ERR_UNSUPPORTED;
    }
    if (call->pattern == SP_COMM_ALLTOALLV) {
        sp_status_t status = host_vcounts(at, &call->v);
        if (status != SP_OK) {
            return status;
        }
    }
    if (call->pattern == SP_COMM_ALLREDUCE || call->pattern == SP_COMM_REDUCE ||
        call->pattern == SP_COMM_REDUCE_SCATTER) {
        rc = host_reduction(st, at, comm, call, send, recv, &out, &avg_count);
    } else {
        rc = host_movement(at, comm, call, send, recv);
    }
    if (rc != MPI_SUCCESS) {
        return sp__host_mpi_check(rc, sp_comm_pattern_name(call->pattern));
    }
    if (call->redop == SP_REDOP_AVG && avg_count > 0) {
        host_avg_finish(call, at->nranks, out, avg_count);
    }
    return SP_OK;
}

/* An out-of-place sendrecv on a stream as the stream's own send and receive are (host_stream.c):
 * MPI_Irecv and MPI_Isend completed by polite waits. The proxy moves its pipeline messages with
 * stream sends and receives; `coll --issue stream` times its sendrecv this way to price them. */
static int polite_sendrecv(MPI_Comm comm, const sp_comm_call_t *call, const void *send,
                           void *recv, MPI_Datatype dt, int count)
{
    MPI_Request req[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    int rc = MPI_SUCCESS;

    if (call->recv_peer != SP_COMM_NO_PEER) {
        rc = MPI_Irecv(recv, count, dt, call->recv_peer, 0, comm, &req[0]);
    }
    if (rc == MPI_SUCCESS && call->send_peer != SP_COMM_NO_PEER) {
        rc = MPI_Isend(send, count, dt, call->send_peer, 0, comm, &req[1]);
    }
    for (int i = 0; i < 2 && rc == MPI_SUCCESS; i++) {
        if (req[i] != MPI_REQUEST_NULL) {
            rc = sp_host_polite_wait(&req[i]);
        }
    }
    return rc;
}

/* Calls on a stream: the proxy's all-reduce, all-gather and reduce-scatter (out of place) as
 * non-blocking calls completed by a polite wait, since a blocking MPI collective polls a core for
 * as long as it waits for its peers, which on a host shared by several ranks delays their compute
 * deadlines (the stream stands in for a device, which does not take a CPU core); an out-of-place
 * sendrecv likewise (polite_sendrecv). Everything else as sp__host_call_on. ctx is the stream. */
sp_status_t sp__host_coll_stream(void *ctx, MPI_Comm comm, const sp_comm_call_t *call,
                                 const void *send, void *recv)
{
    struct sp_stream *s = ctx;
    const host_state_t *st = s->st;
    MPI_Datatype dt = host_mpi_type(call->dtype);
    int count = (int)call->count;
    MPI_Request req = MPI_REQUEST_NULL;
    int rc;

    if (call->in_place || call->redop == SP_REDOP_AVG || call->redop == SP_REDOP_PREMULSUM) {
        return sp__host_call_on(st, &s->place, comm, call, send, recv);
    }
    switch (call->pattern) {
    case SP_COMM_ALLREDUCE:
        rc = MPI_Iallreduce(send, recv, count, dt, host_mpi_op(st, call->dtype, call->redop),
                            comm, &req);
        break;
    case SP_COMM_REDUCE_SCATTER:
        rc = MPI_Ireduce_scatter_block(send, recv, count, dt,
                                       host_mpi_op(st, call->dtype, call->redop), comm, &req);
        break;
    case SP_COMM_ALLGATHER:
        rc = MPI_Iallgather(send, count, dt, recv, count, dt, comm, &req);
        break;
    case SP_COMM_SENDRECV:
        rc = polite_sendrecv(comm, call, send, recv, dt, count);
        return rc == MPI_SUCCESS ? SP_OK : sp__host_mpi_check(rc, "sendrecv");
    default:
        return sp__host_call_on(st, &s->place, comm, call, send, recv);
    }
    if (rc == MPI_SUCCESS) {
        rc = sp_host_polite_wait(&req);
    }
    return rc == MPI_SUCCESS ? SP_OK : sp__host_mpi_check(rc, sp_comm_pattern_name(call->pattern));
}
