/* The host backend: collectives are MPI calls over host memory on the backend's own duplicated
 * communicator. MPI has no 16-bit or 8-bit floating types, so half and bfloat16 travel as
 * MPI_UINT16_T and f8e4m3/f8e5m2 as MPI_UINT8_T, with user-defined reduction operators that
 * widen, combine and round back; avg is a sum followed by a local division, and premulsum a
 * local scaling followed by a sum, as NCCL defines them. Operations are blocking, so an event
 * is the monotonic time when it is recorded. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend.h"
#include "host_gemm.h"
#include "host_stream.h"
#include "log.h"
#include "timeutil.h"

/* The floating types MPI lacks (half, bfloat16, f8e4m3, f8e5m2) and their operators (sum, prod,
 * max, min: avg and premulsum reduce as sum). */
#define SP_HOST_SOFT_TYPES 4
#define SP_HOST_SOFT_OPS 4

/* This rank on one communicator (the backend's or a stream's), with scratch for MPI's int
 * per-peer arrays: each place is used by one thread at a time. */
typedef struct {
    int rank;
    int nranks;
    int *vint; /* 4 * nranks */
} host_place_t;

typedef struct {
    MPI_Comm comm;
    int rank;
    int nranks;
    host_place_t place;
    sp_host_sync_t sync;
    MPI_Op soft_ops[SP_HOST_SOFT_TYPES][SP_HOST_SOFT_OPS];
    sp_host_gemm_t *gemm; /* GEMM compute, after gemm_setup */
} host_state_t;

struct sp_event {
    sp_host_event_t he;
};

struct sp_stream {
    sp_host_stream_t *hs;
    const host_state_t *st;
    host_place_t place;
};

static sp_status_t mpi_check(int rc, const char *what)
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

/* This rank's place on comm; place_cleanup frees it. */
static sp_status_t place_init(host_place_t *at, MPI_Comm comm)
{
    MPI_Comm_rank(comm, &at->rank);
    MPI_Comm_size(comm, &at->nranks);
    at->vint = calloc(4 * (size_t)at->nranks, sizeof(*at->vint));
    return at->vint != NULL ? SP_OK : SP_ERR_NOMEM;
}

static void place_cleanup(host_place_t *at)
{
    free(at->vint);
    at->vint = NULL;
}

static void free_soft_ops(host_state_t *st)
{
    for (int t = 0; t < SP_HOST_SOFT_TYPES; t++) {
        for (int i = 0; i < SP_HOST_SOFT_OPS; i++) {
            if (st->soft_ops[t][i] != MPI_OP_NULL) {
                MPI_Op_free(&st->soft_ops[t][i]);
            }
        }
    }
}

static sp_status_t host_init(MPI_Comm comm, const sp_backend_config_t *cfg, void **state_p,
                             char *err, size_t errlen)
{
    static MPI_User_function *const fns[SP_HOST_SOFT_TYPES][SP_HOST_SOFT_OPS] = {
        {half_sum, half_prod, half_max, half_min},
        {bf16_sum, bf16_prod, bf16_max, bf16_min},
        {e4m3_sum, e4m3_prod, e4m3_max, e4m3_min},
        {e5m2_sum, e5m2_prod, e5m2_max, e5m2_min},
    };
    host_state_t *st = calloc(1, sizeof(*st));
    sp_status_t status;

    if (cfg->blocking) {
        free(st);
        snprintf(err, errlen, "-z 1 (nccl-tests' blocking mode) applies to the nccl backend "
                 "only: a host collective is a blocking MPI call, complete before the next one");
        return SP_ERR_UNSUPPORTED;
    }
    if (st == NULL) {
        snprintf(err, errlen, "out of memory");
        return SP_ERR_NOMEM;
    }
    status = mpi_check(MPI_Comm_dup(comm, &st->comm), "MPI_Comm_dup");
    if (status != SP_OK) {
        goto err_free;
    }
    MPI_Comm_set_errhandler(st->comm, MPI_ERRORS_RETURN);
    sp_host_sync_init(&st->sync);
    MPI_Comm_rank(st->comm, &st->rank);
    MPI_Comm_size(st->comm, &st->nranks);
    for (int t = 0; t < SP_HOST_SOFT_TYPES; t++) {
        for (int i = 0; i < SP_HOST_SOFT_OPS; i++) {
            st->soft_ops[t][i] = MPI_OP_NULL;
        }
    }
    status = place_init(&st->place, st->comm);
    if (status != SP_OK) {
        snprintf(err, errlen, "out of memory");
        goto err_place;
    }
    for (int t = 0; t < SP_HOST_SOFT_TYPES; t++) {
        for (int i = 0; i < SP_HOST_SOFT_OPS; i++) {
            status = mpi_check(MPI_Op_create(fns[t][i], 1, &st->soft_ops[t][i]), "MPI_Op_create");
            if (status != SP_OK) {
                goto err_ops;
            }
        }
    }
    *state_p = st;
    return SP_OK;

err_ops:
    snprintf(err, errlen, "cannot create the MPI reduction operators for half, bfloat16 and fp8");
    free_soft_ops(st);
    place_cleanup(&st->place);
err_place:
    sp_host_sync_cleanup(&st->sync);
    MPI_Comm_free(&st->comm);
err_free:
    free(st);
    return status;
}

/* Nothing to drop: the host's streams run MPI calls that the watchdog bounds, and fini joins
 * them. */
static void host_abort(void *state)
{
    (void)state;
}

static void host_fini(void *state)
{
    host_state_t *st = state;

    if (st == NULL) {
        return;
    }
    free_soft_ops(st);
    sp_host_gemm_destroy(st->gemm);
    place_cleanup(&st->place);
    sp_host_sync_cleanup(&st->sync);
    MPI_Comm_free(&st->comm);
    free(st);
}

static sp_status_t host_mem_alloc(void *state, size_t bytes, void **ptr_p)
{
    void *p = NULL;

    (void)state;
    /* page-aligned, and never a zero-byte request, so every buffer has a distinct address */
    if (posix_memalign(&p, 4096, bytes > 0 ? bytes : 4096) != 0) {
        sp_error("cannot allocate %zu bytes of host memory", bytes);
        return SP_ERR_NOMEM;
    }
    /* touch every page now so first-touch faults stay out of the timed region */
    memset(p, 0, bytes);
    *ptr_p = p;
    return SP_OK;
}

static void host_mem_free(void *state, void *ptr)
{
    (void)state;
    free(ptr);
}

static sp_status_t host_mem_poison(void *state, void *ptr, size_t bytes)
{
    (void)state;
    memset(ptr, 0xA5, bytes);
    return SP_OK;
}

static sp_status_t host_fill(void *state, const sp_pattern_t *input, void *buf, size_t count)
{
    (void)state;
    sp_pattern_fill(input, buf, count);
    return SP_OK;
}

static sp_status_t host_check(void *state, const sp_pattern_span_t *spans, size_t nspans,
                              const void *output, uint64_t *wrong_p)
{
    (void)state;
    *wrong_p = sp_pattern_spans_check(spans, nspans, output);
    return SP_OK;
}

static void host_avg_finish(const sp_comm_call_t *call, int nranks, void *out, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        double sum = sp_dtype_get(call->dtype, out, i);
        sp_dtype_set(call->dtype, out, i, sp_redop_avg_finish(call->dtype, sum, nranks));
    }
}

static sp_status_t host_event_record(void *state, sp_event_t *event);

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
static sp_status_t host_call_on(const host_state_t *st, const host_place_t *at, MPI_Comm comm,
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
        return mpi_check(rc, sp_comm_pattern_name(call->pattern));
    }
    if (call->redop == SP_REDOP_AVG && avg_count > 0) {
        host_avg_finish(call, at->nranks, out, avg_count);
    }
    return SP_OK;
}

static sp_status_t host_coll_run(void *state, const sp_comm_call_t *call, const void *send,
                                 void *recv)
{
    host_state_t *st = state;

    return host_call_on(st, &st->place, st->comm, call, send, recv);
}

/* Calls on a stream: the proxy's all-reduce, all-gather and reduce-scatter (out of place) as
 * non-blocking calls completed by a polite wait, since a blocking MPI collective polls a core for
 * as long as it waits for its peers, which on a host shared by several ranks delays their compute
 * deadlines (the stream stands in for a device, which does not take a CPU core). Everything else
 * as host_call_on. ctx is the stream. */
static sp_status_t host_coll_stream(void *ctx, MPI_Comm comm, const sp_comm_call_t *call,
                                    const void *send, void *recv)
{
    struct sp_stream *s = ctx;
    const host_state_t *st = s->st;
    MPI_Datatype dt = host_mpi_type(call->dtype);
    int count = (int)call->count;
    MPI_Request req = MPI_REQUEST_NULL;
    int rc;

    if (call->in_place || call->redop == SP_REDOP_AVG || call->redop == SP_REDOP_PREMULSUM) {
        return host_call_on(st, &s->place, comm, call, send, recv);
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
    default:
        return host_call_on(st, &s->place, comm, call, send, recv);
    }
    if (rc == MPI_SUCCESS) {
        rc = sp_host_polite_wait(&req);
    }
    return rc == MPI_SUCCESS ? SP_OK : mpi_check(rc, sp_comm_pattern_name(call->pattern));
}

static int host_versions(void *state, sp_kv_t *kv, int max)
{
    (void)state;
    (void)kv;
    (void)max;
    return 0; /* the MPI library's version is recorded for every backend */
}

static void host_device_info(void *state, char *name, size_t namelen, char *bus_id,
                             size_t buslen)
{
    (void)state;
    snprintf(name, namelen, "cpu");
    snprintf(bus_id, buslen, "-");
}

static int host_pattern_supported(void *state, sp_comm_pattern_t pattern, int in_place)
{
    (void)state;
    /* MPI has an in-place form of every pattern, but in-place MPI_Alltoallv sends what it
     * receives (recv counts both ways), which is another operation unless the matrix is
     * symmetric */
    return (unsigned)pattern < SP_COMM_PATTERN_COUNT &&
           !(in_place && pattern == SP_COMM_ALLTOALLV);
}

static sp_status_t host_coll_batch(void *state, const sp_comm_call_t *call, const void *send,
                                   void *recv, long k, sp_event_t *start, sp_event_t *end)
{
    sp_status_t status = SP_OK;

    host_event_record(state, start);
    for (long i = 0; i < k && status == SP_OK; i++) {
        status = host_coll_run(state, call, send, recv);
    }
    host_event_record(state, end);
    return status;
}

static void host_range_push(void *state, const char *name)
{
    (void)state;
    (void)name;
}

static void host_range_pop(void *state)
{
    (void)state;
}

static sp_status_t host_event_create(void *state, sp_event_t **event_p)
{
    sp_event_t *ev = calloc(1, sizeof(*ev));

    (void)state;
    if (ev == NULL) {
        return SP_ERR_NOMEM;
    }
    *event_p = ev;
    return SP_OK;
}

static void host_event_destroy(void *state, sp_event_t *event)
{
    (void)state;
    free(event);
}

/* A record by the calling thread (the backend's default stream): complete at once. */
static sp_status_t host_event_record(void *state, sp_event_t *event)
{
    host_state_t *st = state;

    pthread_mutex_lock(&st->sync.mutex);
    event->he.ns = sp_time_ns();
    event->he.done = ++event->he.enqueued;
    pthread_cond_broadcast(&st->sync.changed);
    pthread_mutex_unlock(&st->sync.mutex);
    return SP_OK;
}

static sp_status_t host_event_query(void *state, sp_event_t *event, int *done_p)
{
    host_state_t *st = state;

    pthread_mutex_lock(&st->sync.mutex);
    *done_p = event->he.done >= event->he.enqueued;
    pthread_mutex_unlock(&st->sync.mutex);
    return SP_OK;
}

static sp_status_t host_event_elapsed_ns(void *state, sp_event_t *start, sp_event_t *end,
                                         uint64_t *ns_p)
{
    host_state_t *st = state;

    sp_host_event_sync(&st->sync, &start->he);
    sp_host_event_sync(&st->sync, &end->he);
    *ns_p = end->he.ns >= start->he.ns ? end->he.ns - start->he.ns : 0;
    return SP_OK;
}

static sp_status_t host_stream_create(void *state, MPI_Comm group, sp_stream_t **stream_p)
{
    host_state_t *st = state;
    MPI_Comm comm = group != MPI_COMM_NULL ? group : st->comm;
    sp_stream_t *s = calloc(1, sizeof(*s));
    sp_status_t status;

    if (s == NULL) {
        return SP_ERR_NOMEM;
    }
    s->st = st;
    status = place_init(&s->place, comm);
    if (status == SP_OK) {
        status = sp_host_stream_create(&st->sync, comm, host_coll_stream, s, &s->hs);
    }
    if (status != SP_OK) {
        place_cleanup(&s->place);
        free(s);
        return status;
    }
    *stream_p = s;
    return SP_OK;
}

static void host_stream_destroy(void *state, sp_stream_t *stream)
{
    (void)state;
    if (stream != NULL) {
        sp_host_stream_destroy(stream->hs);
        place_cleanup(&stream->place);
        free(stream);
    }
}

static sp_status_t host_stream_coll(void *state, sp_stream_t *stream, const sp_comm_call_t *call,
                                    const void *send, void *recv)
{
    (void)state;
    return sp_host_stream_coll(stream->hs, call, send, recv);
}

static sp_status_t host_stream_compute(void *state, sp_stream_t *stream, uint64_t duration_ns)
{
    (void)state;
    return sp_host_stream_compute(stream->hs, duration_ns);
}

static sp_status_t host_gemm_setup(void *state, const sp_gemm_t *shapes, size_t n,
                                   sp_dtype_t dtype, int threads, char *desc, size_t desclen)
{
    host_state_t *st = state;

    (void)dtype; /* CBLAS has no 16-bit GEMM: every model dtype computes in fp32 */
    sp_host_gemm_destroy(st->gemm);
    st->gemm = NULL;
    return sp_host_gemm_create(shapes, n, threads, desc, desclen, &st->gemm);
}

static sp_status_t host_stream_gemm(void *state, sp_stream_t *stream, const sp_gemm_t *list,
                                    size_t n)
{
    host_state_t *st = state;

    if (st->gemm == NULL) {
        return SP_ERR_INVALID; /* gemm_setup first */
    }
    return sp_host_stream_work(stream->hs, sp_host_gemm_run, st->gemm, list, n);
}

static sp_status_t host_stream_send(void *state, sp_stream_t *stream, const void *buf,
                                    size_t bytes, int peer, int tag)
{
    (void)state;
    return sp_host_stream_send(stream->hs, buf, bytes, peer, tag);
}

static sp_status_t host_stream_recv(void *state, sp_stream_t *stream, void *buf, size_t bytes,
                                    int peer, int tag)
{
    (void)state;
    return sp_host_stream_recv(stream->hs, buf, bytes, peer, tag);
}

static sp_status_t host_stream_record(void *state, sp_stream_t *stream, sp_event_t *event)
{
    (void)state;
    return sp_host_stream_record(stream->hs, &event->he);
}

static sp_status_t host_stream_wait(void *state, sp_stream_t *stream, sp_event_t *event)
{
    (void)state;
    return sp_host_stream_wait(stream->hs, &event->he);
}

static sp_status_t host_stream_sync(void *state, sp_stream_t *stream)
{
    (void)state;
    return sp_host_stream_sync(stream->hs);
}

static sp_status_t host_sync(void *state)
{
    (void)state;
    return SP_OK; /* every host operation is complete when its call returns */
}

const sp_backend_ops_t sp_backend_host_ops = {
    .name = "host",
    .init = host_init,
    .fini = host_fini,
    .abort = host_abort,
    .versions = host_versions,
    .device_info = host_device_info,
    .mem_alloc = host_mem_alloc,
    .mem_free = host_mem_free,
    .mem_poison = host_mem_poison,
    .fill = host_fill,
    .check = host_check,
    .pattern_supported = host_pattern_supported,
    .coll_run = host_coll_run,
    .coll_batch = host_coll_batch,
    .range_push = host_range_push,
    .range_pop = host_range_pop,
    .event_create = host_event_create,
    .event_destroy = host_event_destroy,
    .event_record = host_event_record,
    .event_elapsed_ns = host_event_elapsed_ns,
    .event_query = host_event_query,
    .sync = host_sync,
    .stream_create = host_stream_create,
    .stream_destroy = host_stream_destroy,
    .stream_coll = host_stream_coll,
    .stream_compute = host_stream_compute,
    .stream_send = host_stream_send,
    .stream_recv = host_stream_recv,
    .stream_record = host_stream_record,
    .stream_wait = host_stream_wait,
    .stream_sync = host_stream_sync,
    .gemm_setup = host_gemm_setup,
    .stream_gemm = host_stream_gemm,
};
