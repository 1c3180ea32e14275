/* The host backend: collectives are MPI calls over host memory on the backend's own duplicated
 * communicator. MPI has no 16-bit or 8-bit floating types, so half and bfloat16 travel as
 * MPI_UINT16_T and f8e4m3/f8e5m2 as MPI_UINT8_T, with user-defined reduction operators that
 * widen, combine and round back; avg is a sum followed by a local division, and premulsum a
 * local scaling followed by a sum, as NCCL defines them. Operations are blocking, so an event
 * is the monotonic time when it is recorded. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend_host_impl.h"
#include "log.h"
#include "timeutil.h"

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

static sp_status_t host_init(MPI_Comm comm, const sp_backend_config_t *cfg, void **state_p,
                             char *err, size_t errlen)
{
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
    status = sp__host_mpi_check(MPI_Comm_dup(comm, &st->comm), "MPI_Comm_dup");
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
    status = sp__host_soft_ops_create(st);
    if (status != SP_OK) {
        goto err_ops;
    }
    *state_p = st;
    return SP_OK;

err_ops:
    snprintf(err, errlen, "cannot create the MPI reduction operators for half, bfloat16 and fp8");
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
    sp__host_soft_ops_free(st);
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

static sp_status_t host_event_record(void *state, sp_event_t *event);

static sp_status_t host_coll_run(void *state, const sp_comm_call_t *call, const void *send,
                                 void *recv)
{
    host_state_t *st = state;

    return sp__host_call_on(st, &st->place, st->comm, call, send, recv);
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
        status = sp_host_stream_create(&st->sync, comm, sp__host_coll_stream, s, &s->hs);
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
