/* The host backend: collectives are MPI calls over host memory on the backend's own duplicated
 * communicator. MPI has no 16-bit floating types, so half and bfloat16 travel as MPI_UINT16_T
 * with user-defined reduction operators; avg is a sum followed by a local division, as NCCL
 * defines it. Operations are blocking, so an event is the monotonic time when it is recorded. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend.h"
#include "host_stream.h"
#include "log.h"
#include "timeutil.h"

typedef struct {
    MPI_Comm comm;
    int rank;
    int nranks;
    sp_host_sync_t sync;
    MPI_Op half_ops[SP_REDOP_COUNT];
    MPI_Op bf16_ops[SP_REDOP_COUNT];
} host_state_t;

struct sp_event {
    sp_host_event_t he;
};

struct sp_stream {
    sp_host_stream_t *hs;
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

/* ---- half / bfloat16 reductions ---- */

static void reduce16(sp_dtype_t dtype, sp_redop_t redop, const void *in, void *inout, int len)
{
    for (int i = 0; i < len; i++) {
        double a = sp_dtype_get(dtype, in, (size_t)i);
        double b = sp_dtype_get(dtype, inout, (size_t)i);
        sp_dtype_set(dtype, inout, (size_t)i, sp_redop_apply(redop, a, b));
    }
}

/* One function per (type, op): MPI passes no user context to an operator. */
#define SP_HOST_OP16(fname, dtype, redop)                                                          \
    static void fname(void *in, void *inout, int *len, MPI_Datatype *dt)                           \
    {                                                                                              \
        (void)dt;                                                                                  \
        reduce16(dtype, redop, in, inout, *len);                                                   \
    }
SP_HOST_OP16(half_sum, SP_DTYPE_HALF, SP_REDOP_SUM)
SP_HOST_OP16(half_prod, SP_DTYPE_HALF, SP_REDOP_PROD)
SP_HOST_OP16(half_max, SP_DTYPE_HALF, SP_REDOP_MAX)
SP_HOST_OP16(half_min, SP_DTYPE_HALF, SP_REDOP_MIN)
SP_HOST_OP16(bf16_sum, SP_DTYPE_BFLOAT16, SP_REDOP_SUM)
SP_HOST_OP16(bf16_prod, SP_DTYPE_BFLOAT16, SP_REDOP_PROD)
SP_HOST_OP16(bf16_max, SP_DTYPE_BFLOAT16, SP_REDOP_MAX)
SP_HOST_OP16(bf16_min, SP_DTYPE_BFLOAT16, SP_REDOP_MIN)
#undef SP_HOST_OP16

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
    case SP_DTYPE_HALF:
    case SP_DTYPE_BFLOAT16:
    default:
        return MPI_UINT16_T;
    }
}

static MPI_Op host_mpi_op(const host_state_t *st, sp_dtype_t dtype, sp_redop_t redop)
{
    sp_redop_t base = redop == SP_REDOP_AVG ? SP_REDOP_SUM : redop;

    if (dtype == SP_DTYPE_HALF) {
        return st->half_ops[base];
    }
    if (dtype == SP_DTYPE_BFLOAT16) {
        return st->bf16_ops[base];
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

static sp_status_t host_init(MPI_Comm comm, const sp_backend_config_t *cfg, void **state_p,
                             char *err, size_t errlen)
{
    static MPI_User_function *const half_fns[] = {half_sum, half_prod, half_max, half_min};
    static MPI_User_function *const bf16_fns[] = {bf16_sum, bf16_prod, bf16_max, bf16_min};
    host_state_t *st = calloc(1, sizeof(*st));
    sp_status_t status;

    (void)cfg;
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
    for (int i = 0; i < SP_REDOP_AVG; i++) {
        st->half_ops[i] = st->bf16_ops[i] = MPI_OP_NULL;
    }
    for (int i = 0; i < SP_REDOP_AVG; i++) {
        status = mpi_check(MPI_Op_create(half_fns[i], 1, &st->half_ops[i]), "MPI_Op_create");
        if (status == SP_OK) {
            status = mpi_check(MPI_Op_create(bf16_fns[i], 1, &st->bf16_ops[i]), "MPI_Op_create");
        }
        if (status != SP_OK) {
            goto err_ops;
        }
    }
    *state_p = st;
    return SP_OK;

err_ops:
    snprintf(err, errlen, "cannot create the MPI reduction operators for half and bfloat16");
    for (int i = 0; i < SP_REDOP_AVG; i++) {
        if (st->half_ops[i] != MPI_OP_NULL) {
            MPI_Op_free(&st->half_ops[i]);
        }
        if (st->bf16_ops[i] != MPI_OP_NULL) {
            MPI_Op_free(&st->bf16_ops[i]);
        }
    }
    sp_host_sync_cleanup(&st->sync);
    MPI_Comm_free(&st->comm);
err_free:
    free(st);
    return status;
}

static void host_fini(void *state)
{
    host_state_t *st = state;

    if (st == NULL) {
        return;
    }
    for (int i = 0; i < SP_REDOP_AVG; i++) {
        MPI_Op_free(&st->half_ops[i]);
        MPI_Op_free(&st->bf16_ops[i]);
    }
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

static sp_status_t host_fill(void *state, const sp_coll_t *coll, const sp_coll_args_t *args,
                             void *input)
{
    (void)state;
    sp_coll_fill(coll, args, input);
    return SP_OK;
}

static sp_status_t host_check(void *state, const sp_coll_t *coll, const sp_coll_args_t *args,
                              const void *output, uint64_t *wrong_p)
{
    (void)state;
    *wrong_p = sp_coll_check(coll, args, output);
    return SP_OK;
}

static void host_avg_finish(const sp_coll_args_t *args, void *out, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        double sum = sp_dtype_get(args->dtype, out, i);
        sp_dtype_set(args->dtype, out, i, sp_redop_avg_finish(args->dtype, sum, args->nranks));
    }
}

static sp_status_t host_coll_on(void *state, MPI_Comm comm, const sp_coll_args_t *args,
                                const void *send, void *recv);
static sp_status_t host_event_record(void *state, sp_event_t *event);

static sp_status_t host_coll_run(void *state, const sp_coll_args_t *args, const void *send,
                                 void *recv)
{
    return host_coll_on(state, ((host_state_t *)state)->comm, args, send, recv);
}

/* One collective on comm: the backend's own, or a stream's. */
static sp_status_t host_coll_on(void *state, MPI_Comm comm, const sp_coll_args_t *args,
                                const void *send, void *recv)
{
    host_state_t *st = state;
    MPI_Datatype dt = host_mpi_type(args->dtype);
    MPI_Op op = host_mpi_op(st, args->dtype, args->redop);
    const sp_coll_counts_t *c = &args->counts;
    size_t esize = sp_dtype_size(args->dtype);
    int ip = args->in_place;
    int is_root = st->rank == args->root;
    int param = (int)c->param_count;
    int next = (st->rank + 1) % st->nranks;
    int prev = (st->rank - 1 + st->nranks) % st->nranks;
    void *out = recv;
    size_t avg_count = 0;
    int rc = MPI_SUCCESS;

    switch (args->kind) {
    case SP_COLL_ALL_REDUCE:
        rc = MPI_Allreduce(ip ? MPI_IN_PLACE : send, recv, param, dt, op, comm);
        avg_count = c->param_count;
        break;
    case SP_COLL_REDUCE:
        if (ip && is_root) {
            rc = MPI_Reduce(MPI_IN_PLACE, recv, param, dt, op, args->root, comm);
        } else {
            rc = MPI_Reduce(ip ? recv : send, recv, param, dt, op, args->root, comm);
        }
        avg_count = is_root ? c->param_count : 0;
        break;
    case SP_COLL_REDUCE_SCATTER:
        if (ip) {
            /* MPI leaves the result at the start of the buffer; NCCL's in-place layout (and
             * therefore the verification) has it at block `rank`. */
            rc = MPI_Reduce_scatter_block(MPI_IN_PLACE, recv, param, dt, op, comm);
            out = (char *)recv + c->recv_inplace_offset * (size_t)st->rank * esize;
            if (rc == MPI_SUCCESS && st->rank != 0) {
                memmove(out, recv, c->param_count * esize);
            }
        } else {
            rc = MPI_Reduce_scatter_block(send, recv, param, dt, op, comm);
        }
        avg_count = c->param_count;
        break;
    case SP_COLL_ALL_GATHER:
        rc = MPI_Allgather(ip ? MPI_IN_PLACE : send, param, dt, recv, param, dt, comm);
        break;
    case SP_COLL_BROADCAST:
        rc = MPI_Bcast(ip || !is_root ? recv : (void *)send, param, dt, args->root, comm);
        break;
    case SP_COLL_ALLTOALL:
        rc = MPI_Alltoall(ip ? MPI_IN_PLACE : send, param, dt, recv, param, dt, comm);
        break;
    case SP_COLL_SENDRECV:
        if (ip) {
            rc = MPI_Sendrecv_replace(recv, param, dt, next, 0, prev, 0, comm,
                                      MPI_STATUS_IGNORE);
        } else {
            rc = MPI_Sendrecv(send, param, dt, next, 0, recv, param, dt, prev, 0, comm,
                              MPI_STATUS_IGNORE);
        }
        break;
    case SP_COLL_GATHER:
        rc = MPI_Gather(ip && is_root ? MPI_IN_PLACE : send, param, dt, recv, param, dt,
                        args->root, comm);
        break;
    case SP_COLL_SCATTER:
        if (ip && is_root) {
            rc = MPI_Scatter(recv, param, dt, MPI_IN_PLACE, param, dt, args->root, comm);
        } else {
            void *dst = ip ? (char *)recv + c->recv_inplace_offset * (size_t)st->rank * esize
                           : recv;
            rc = MPI_Scatter(send, param, dt, dst, param, dt, args->root, comm);
        }
        break;
    default:
        return SP_ERR_UNSUPPORTED;
    }
    if (rc != MPI_SUCCESS) {
        return mpi_check(rc, sp_coll_names[args->kind]);
    }
    if (args->redop == SP_REDOP_AVG && avg_count > 0) {
        host_avg_finish(args, out, avg_count);
    }
    return SP_OK;
}

/* Collectives on a stream: the proxy's all-reduce, all-gather and reduce-scatter (out of
 * place) as non-blocking calls completed by a polite wait, since a blocking MPI collective polls
 * a core for as long as it waits for its peers, which on a host shared by several ranks delays
 * their compute deadlines (the stream stands in for a device, which does not take a CPU core).
 * Everything else as host_coll_on. */
static sp_status_t host_coll_stream(void *state, MPI_Comm comm, const sp_coll_args_t *args,
                                    const void *send, void *recv)
{
    host_state_t *st = state;
    MPI_Datatype dt = host_mpi_type(args->dtype);
    int param = (int)args->counts.param_count;
    MPI_Request req = MPI_REQUEST_NULL;
    int rc;

    if (args->in_place || args->redop == SP_REDOP_AVG) {
        return host_coll_on(state, comm, args, send, recv);
    }
    switch (args->kind) {
    case SP_COLL_ALL_REDUCE:
        rc = MPI_Iallreduce(send, recv, param, dt, host_mpi_op(st, args->dtype, args->redop),
                            comm, &req);
        break;
    case SP_COLL_REDUCE_SCATTER:
        rc = MPI_Ireduce_scatter_block(send, recv, param, dt,
                                       host_mpi_op(st, args->dtype, args->redop), comm, &req);
        break;
    case SP_COLL_ALL_GATHER:
        rc = MPI_Iallgather(send, param, dt, recv, param, dt, comm, &req);
        break;
    default:
        return host_coll_on(state, comm, args, send, recv);
    }
    if (rc == MPI_SUCCESS) {
        rc = sp_host_polite_wait(&req);
    }
    return rc == MPI_SUCCESS ? SP_OK : mpi_check(rc, sp_coll_names[args->kind]);
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

static int host_coll_supported(void *state, sp_coll_kind_t kind, int in_place)
{
    (void)state;
    (void)in_place;
    return kind < SP_COLL_COUNT; /* MPI has an in-place form of every collective */
}

static sp_status_t host_coll_batch(void *state, const sp_coll_args_t *args, const void *send,
                                   void *recv, long k, sp_event_t *start, sp_event_t *end)
{
    sp_status_t status = SP_OK;

    host_event_record(state, start);
    for (long i = 0; i < k && status == SP_OK; i++) {
        status = host_coll_run(state, args, send, recv);
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
    sp_stream_t *s = calloc(1, sizeof(*s));
    sp_status_t status;

    if (s == NULL) {
        return SP_ERR_NOMEM;
    }
    status = sp_host_stream_create(&st->sync, group != MPI_COMM_NULL ? group : st->comm,
                                   host_coll_stream, st, &s->hs);
    if (status != SP_OK) {
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
        free(stream);
    }
}

static sp_status_t host_stream_coll(void *state, sp_stream_t *stream, const sp_coll_args_t *args,
                                    const void *send, void *recv)
{
    (void)state;
    return sp_host_stream_coll(stream->hs, args, send, recv);
}

static sp_status_t host_stream_compute(void *state, sp_stream_t *stream, uint64_t duration_ns)
{
    (void)state;
    return sp_host_stream_compute(stream->hs, duration_ns);
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
    .versions = host_versions,
    .device_info = host_device_info,
    .mem_alloc = host_mem_alloc,
    .mem_free = host_mem_free,
    .mem_poison = host_mem_poison,
    .fill = host_fill,
    .check = host_check,
    .coll_supported = host_coll_supported,
    .coll_run = host_coll_run,
    .coll_batch = host_coll_batch,
    .range_push = host_range_push,
    .range_pop = host_range_pop,
    .event_create = host_event_create,
    .event_destroy = host_event_destroy,
    .event_record = host_event_record,
    .event_elapsed_ns = host_event_elapsed_ns,
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
};
