/* The nccl backend: NCCL over GPU memory. One GPU per rank (from the node-local rank), an NCCL
 * communicator from a unique id broadcast over MPI, one non-blocking stream, CUDA events for
 * timing, device kernels for fill and verification. NCCL is loaded at run time
 * (backend_nccl_api.h) and the CUDA runtime linked statically, so the binary runs the host
 * backend where neither is installed. Every wait for the device, the communicator's creation
 * included, is bounded by the configured timeout (backend_nccl_comm.c).
 * CUDA and NCCL headers are included in the backend's files only (backend_nccl*.c, its internal
 * header and the one .cu file); the proxy's streams are in backend_nccl_stream.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__has_include)
#if __has_include(<nvtx3/nvToolsExt.h>)
#include <nvtx3/nvToolsExt.h>
#define SP_HAVE_NVTX 1
#endif
#endif

#include "backend_nccl_impl.h"
#include "backend_nccl_kernels.h"
#include "gpu_policy.h"
#include "gpu_util.h"
#include "log.h"
#include "timeutil.h"

_Static_assert(cudaErrorNoDevice == SP_CUDA_ERROR_NO_DEVICE, "cudaErrorNoDevice");
_Static_assert(cudaErrorInsufficientDriver == SP_CUDA_ERROR_INSUFFICIENT_DRIVER,
               "cudaErrorInsufficientDriver");
_Static_assert(ncclInvalidArgument == SP_NCCL_INVALID_ARGUMENT, "ncclInvalidArgument");
_Static_assert(ncclInvalidUsage == SP_NCCL_INVALID_USAGE, "ncclInvalidUsage");
_Static_assert(ncclInProgress == SP_NCCL_IN_PROGRESS, "ncclInProgress");
_Static_assert(SP_DTYPE_BFLOAT16 == (int)ncclBfloat16 && SP_DTYPE_HALF == (int)ncclFloat16 &&
                   SP_DTYPE_DOUBLE == (int)ncclFloat64,
               "sp_dtype_t follows ncclDataType_t");
_Static_assert(SP_REDOP_AVG == (int)ncclAvg && SP_REDOP_MIN == (int)ncclMin,
               "sp_redop_t follows ncclRedOp_t");


int sp_backend_gpu_count(char *err, size_t errlen)
{
    int n = 0;
    cudaError_t rc = cudaGetDeviceCount(&n);

    if (rc != cudaSuccess) {
        snprintf(err, errlen, "cudaGetDeviceCount: %s", cudaGetErrorString(rc));
        return 0;
    }
    if (n == 0) {
        const char *vis = getenv("CUDA_VISIBLE_DEVICES");
        snprintf(err, errlen, "no CUDA device visible%s%s", vis ? " with CUDA_VISIBLE_DEVICES=" : "",
                 vis ? vis : "");
    }
    return n;
}

static sp_status_t bounded_wait(nccl_state_t *st, cudaError_t (*query)(void *), void *what_obj,
                                const char *what)
{
    return sp__nccl_bounded_wait_on(st, &st->nccl, query, what_obj, what);
}

static cudaError_t query_event(void *e)
{
    return cudaEventQuery((cudaEvent_t)e);
}

/* Quiescent: the work stream has nothing left and the communicator reports no error. Only
 * then may ncclCommDestroy run; anything else is aborted first. */
static int quiescent(const nccl_state_t *st)
{
    ncclResult_t async = ncclSuccess;
    cudaError_t rc = st->stream != NULL ? cudaStreamQuery(st->stream) : cudaSuccess;

    if (st->nccl != NULL && st->api.CommGetAsyncError(st->nccl, &async) != ncclSuccess) {
        async = ncclInternalError;
    }
    return rc == cudaSuccess && async == ncclSuccess;
}

/* The run failed (this rank's error or an agreed one): abort every communicator, so that the
 * cleanup after it cannot wait on kernels of a peer that is gone. */
static void nccl_abort(void *state)
{
    nccl_state_t *st = state;

    if (st != NULL && st->api.lib != NULL) {
        sp__nccl_abort_all(st);
    }
}

static void nccl_fini(void *state)
{
    nccl_state_t *st = state;

    if (st == NULL) {
        return;
    }
    /* before cudaFree, whose implicit device synchronization would wait on hung kernels */
    if (st->streams != NULL || !quiescent(st)) {
        nccl_abort(st);
    }
    if (st->nccl != NULL) {
        sp__nccl_premul_release(st);
        sp__nccl_comm_close(st, st->nccl);
        st->nccl = NULL;
    }
    sp__nccl_gemm_release(st);
    if (st->graph != NULL) {
        cudaGraphExecDestroy(st->graph);
    }
    free(st->graph_v);
    if (st->counter != NULL) {
        cudaFree(st->counter);
    }
    if (st->stream != NULL) {
        cudaStreamDestroy(st->stream);
    }
    if (st->comm != MPI_COMM_NULL) {
        MPI_Comm_free(&st->comm);
    }
    sp__nccl_api_unload(&st->api);
    free(st);
}

/* Local set-up: device, stream, counter. Nothing here waits on other ranks. */
static sp_status_t nccl_local_init(nccl_state_t *st, const sp_backend_config_t *cfg, char *err,
                                   size_t errlen)
{
    struct cudaDeviceProp prop;
    int ndev = 0;
    sp_status_t status;

    if (cudaGetDeviceCount(&ndev) != cudaSuccess) {
        ndev = 0;
    }
    status = sp_gpu_select_device(cfg->local_rank, cfg->local_size, ndev, cfg->device,
                                  &st->device, err, errlen);
    if (status != SP_OK) {
        return status;
    }
    status = cuda_check(cudaSetDevice(st->device), "cudaSetDevice");
    if (status == SP_OK) {
        status = cuda_check(cudaGetDeviceProperties(&prop, st->device), "cudaGetDeviceProperties");
    }
    if (status == SP_OK) {
        snprintf(st->device_name, sizeof(st->device_name), "%.127s", prop.name);
        status = cuda_check(cudaDeviceGetPCIBusId(st->bus_id, (int)sizeof(st->bus_id), st->device),
                            "cudaDeviceGetPCIBusId");
    }
    if (status == SP_OK) {
        status = cuda_check(cudaStreamCreateWithFlags(&st->stream, cudaStreamNonBlocking),
                            "cudaStreamCreateWithFlags");
    }
    if (status == SP_OK) {
        status = cuda_check(cudaMalloc((void **)&st->counter, sizeof(*st->counter)),
                            "cudaMalloc");
    }
    if (status != SP_OK) {
        snprintf(err, errlen, "CUDA set-up of device %d failed", st->device);
    }
    return status;
}

static sp_status_t nccl_init(MPI_Comm comm, const sp_backend_config_t *cfg, void **state_p,
                             char *err, size_t errlen)
{
    nccl_state_t *st = calloc(1, sizeof(*st));
    sp_status_t status;

    if (st == NULL) {
        snprintf(err, errlen, "out of memory");
        return SP_ERR_NOMEM;
    }
    st->comm = MPI_COMM_NULL;
    st->timeout_s = cfg->timeout_s;
    st->cuda_graph = cfg->cuda_graph;
    st->blocking = cfg->blocking;
    st->premul_dtype = -1;
    if (MPI_Comm_dup(comm, &st->comm) != MPI_SUCCESS) {
        free(st);
        snprintf(err, errlen, "MPI_Comm_dup failed");
        return SP_ERR_MPI;
    }
    MPI_Comm_rank(st->comm, &st->rank);
    MPI_Comm_size(st->comm, &st->nranks);
    st->graph_v = calloc(4 * (size_t)st->nranks, sizeof(*st->graph_v));
    status = st->graph_v != NULL ? sp__nccl_api_load(&st->api, err, errlen) : SP_ERR_NOMEM;
    if (status == SP_OK) {
        status = nccl_local_init(st, cfg, err, errlen);
    }
    /* every rank must have its device before anyone enters NCCL's collective init, which is
     * non-blocking and bounded by --timeout */
    {
        sp_status_t mine = status;
        status = sp__nccl_comm_create(st, st->comm, mine == SP_OK, &st->nccl, "ncclCommInitRank");
        if (mine != SP_OK) {
            status = mine;
        } else if (status != SP_OK && status != SP_ERR_PEER) {
            snprintf(err, errlen, "ncclCommInitRankConfig failed on device %d (%s)", st->device,
                     st->bus_id);
        }
    }
    if (status != SP_OK) {
        st->nccl = NULL;
        nccl_fini(st);
        return status;
    }
    *state_p = st;
    return SP_OK;
}

int sp_backend_gpu_bus_id(int device, char *bus_id, size_t len)
{
    if (device < 0 || cudaDeviceGetPCIBusId(bus_id, (int)len, device) != cudaSuccess) {
        snprintf(bus_id, len, "-");
        return -1;
    }
    return 0;
}

static int nccl_versions(void *state, sp_kv_t *kv, int max)
{
    nccl_state_t *st = state;
    int n = 0;
    int v = 0;
    char buf[32];

    (void)v;

#define SP_KV(k, ...)                                                                              \
    do {                                                                                           \
        if (n < max) {                                                                             \
            snprintf(kv[n].key, sizeof(kv[n].key), "%s", k);                                      \
            snprintf(kv[n].value, sizeof(kv[n].value), __VA_ARGS__);                               \
            n++;                                                                                   \
        }                                                                                          \
    } while (0)
    SP_KV("nccl_version_header", "%d.%d.%d", NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH);
    sp_gpu_nccl_version_str(st->api.version, buf, sizeof(buf));
    SP_KV("nccl_version_library", "%s", buf);
    SP_KV("nccl_library", "%.200s", st->api.path);
    SP_KV("nccl_alltoall", "%s", sp_gpu_block_impl(st->api.AlltoAll != NULL));
    SP_KV("nccl_gather_scatter", "%s",
          sp_gpu_block_impl(st->api.Gather != NULL && st->api.Scatter != NULL));
    sp_gpu_cuda_version_str(CUDART_VERSION, buf, sizeof(buf));
    SP_KV("cuda_runtime_header", "%s", buf);
    if (cudaRuntimeGetVersion(&v) == cudaSuccess) {
        sp_gpu_cuda_version_str(v, buf, sizeof(buf));
        SP_KV("cuda_runtime", "%s", buf);
    }
    if (cudaDriverGetVersion(&v) == cudaSuccess) {
        sp_gpu_cuda_version_str(v, buf, sizeof(buf));
        SP_KV("cuda_driver", "%s", buf);
    }
    SP_KV("device_name", "%s", st->device_name);
    SP_KV("device_bus_id", "%s", st->bus_id);
#undef SP_KV
    return n;
}

static void nccl_device_info(void *state, char *name, size_t namelen, char *bus_id, size_t buslen)
{
    nccl_state_t *st = state;

    snprintf(name, namelen, "%s", st->device_name);
    snprintf(bus_id, buslen, "%s", st->bus_id);
}

static sp_status_t nccl_mem_alloc(void *state, size_t bytes, void **ptr_p)
{
    nccl_state_t *st = state;
    void *p = NULL;
    sp_status_t status;
    cudaError_t rc = cudaMalloc(&p, bytes > 0 ? bytes : 256);

    status = cuda_check(rc, "cudaMalloc");
    if (status == SP_OK) {
        /* on the work stream: the legacy stream does not order against a non-blocking stream,
         * so a cudaMemset there could land after the fill kernels (false wrong data) */
        status = cuda_check(cudaMemsetAsync(p, 0, bytes, st->stream), "cudaMemsetAsync");
    }
    if (status != SP_OK) {
        if (p != NULL) {
            cudaFree(p);
        }
        return rc == cudaErrorMemoryAllocation ? SP_ERR_NOMEM : status;
    }
    *ptr_p = p;
    return SP_OK;
}

static void nccl_mem_free(void *state, void *ptr)
{
    (void)state;
    cudaFree(ptr);
}

static sp_status_t nccl_mem_poison(void *state, void *ptr, size_t bytes)
{
    nccl_state_t *st = state;

    return cuda_check(cudaMemsetAsync(ptr, 0xA5, bytes, st->stream), "cudaMemsetAsync");
}

static sp_status_t nccl_fill(void *state, const sp_pattern_t *input, void *buf, size_t count)
{
    nccl_state_t *st = state;

    return cuda_check((cudaError_t)sp_cuda_pattern_fill(st->stream, input, buf, count),
                      "fill kernel");
}

/* NCCL's avg on floating types pre-multiplies by 1/n: exact with a power-of-two rank count,
 * within a stated bound otherwise (sp_gpu_avg_tolerance); everything else is compared exactly. */
static double check_tolerance(const sp_pattern_t *expected)
{
    if (!expected->is_red || expected->redop != SP_REDOP_AVG) {
        return 0.0;
    }
    return sp_gpu_avg_tolerance((sp_dtype_t)expected->dtype, expected->nranks);
}

static sp_status_t nccl_sync(void *state)
{
    nccl_state_t *st = state;

    return bounded_wait(st, sp__nccl_query_stream, st->stream, "waiting for the stream");
}

/* One check kernel per span, all adding to one counter, then one wait. */
static sp_status_t nccl_check_output(void *state, const sp_pattern_span_t *spans, size_t nspans,
                                     const void *output, uint64_t *wrong_p)
{
    nccl_state_t *st = state;
    unsigned long long wrong = 0;
    sp_status_t status;

    *wrong_p = 0;
    if (nspans == 0) {
        return SP_OK;
    }
    status = cuda_check(cudaMemsetAsync(st->counter, 0, sizeof(*st->counter), st->stream),
                        "cudaMemsetAsync");
    for (size_t i = 0; i < nspans && status == SP_OK; i++) {
        const sp_pattern_t *p = &spans[i].pattern;
        size_t esize = sp_dtype_size((sp_dtype_t)p->dtype);
        const char *at = (const char *)output + spans[i].offset * esize;
        if (spans[i].count == 0) {
            continue;
        }
        status = cuda_check((cudaError_t)sp_cuda_pattern_check(st->stream, p, at, spans[i].count,
                                                                 check_tolerance(p), st->counter),
                            "check kernel");
    }
    if (status == SP_OK) {
        status = cuda_check(cudaMemcpyAsync(&wrong, st->counter, sizeof(wrong),
                                            cudaMemcpyDeviceToHost, st->stream),
                            "cudaMemcpyAsync");
    }
    if (status == SP_OK) {
        status = nccl_sync(st);
    }
    if (status == SP_OK) {
        *wrong_p = wrong;
    }
    return status;
}

static int nccl_pattern_supported(void *state, sp_comm_pattern_t pattern, int in_place)
{
    (void)state;
    /* in-place all-to-alls and sendrecv would overwrite data still to be sent (nccl-tests skips
     * them too) */
    return (unsigned)pattern < SP_COMM_PATTERN_COUNT &&
           !(in_place && (pattern == SP_COMM_ALLTOALL || pattern == SP_COMM_ALLTOALLV ||
                          pattern == SP_COMM_SENDRECV));
}


static sp_status_t nccl_coll_run(void *state, const sp_comm_call_t *call, const void *send,
                                 void *recv)
{
    nccl_state_t *st = state;
    nccl_place_t at = {&st->api, st->nccl, st->stream, st->rank, st->nranks};
    sp_status_t status;

    if (st->nccl == NULL) {
        return SP_ERR_TIMEOUT; /* aborted earlier */
    }
    status = sp__nccl_call_prepare(st, call);
    return status == SP_OK ? sp__nccl_call_on(st, &at, call, send, recv) : status;
}

/* The four per-peer arrays of call (nranks entries each). */
static void vcounts_arrays(const sp_comm_call_t *call, const size_t *out[4])
{
    out[0] = call->v.send_counts;
    out[1] = call->v.send_displs;
    out[2] = call->v.recv_counts;
    out[3] = call->v.recv_displs;
}

/* The captured graph replays this call: same call, buffers and k, and for a per-peer pattern
 * the same counts (the arrays may be new storage at an old address). */
static int same_graph(const nccl_state_t *st, const sp_comm_call_t *call, const void *send,
                      void *recv, long k)
{
    const size_t *v[4];

    if (st->graph == NULL || st->graph_k != k || st->graph_send != send ||
        st->graph_recv != recv || memcmp(&st->graph_call, call, sizeof(*call)) != 0) {
        return 0;
    }
    if (!sp_comm_pattern_per_peer(call->pattern)) {
        return 1;
    }
    vcounts_arrays(call, v);
    for (int a = 0; a < 4; a++) {
        if (memcmp(st->graph_v + (size_t)a * (size_t)st->nranks, v[a],
                   (size_t)st->nranks * sizeof(size_t)) != 0) {
            return 0;
        }
    }
    return 1;
}

static void remember_graph(nccl_state_t *st, const sp_comm_call_t *call, const void *send,
                           void *recv, long k)
{
    const size_t *v[4];

    st->graph_call = *call;
    st->graph_send = send;
    st->graph_recv = recv;
    st->graph_k = k;
    if (sp_comm_pattern_per_peer(call->pattern)) {
        vcounts_arrays(call, v);
        for (int a = 0; a < 4; a++) {
            memcpy(st->graph_v + (size_t)a * (size_t)st->nranks, v[a],
                   (size_t)st->nranks * sizeof(size_t));
        }
    }
}

/* Capture k operations into a graph (replaced when the operation changes). */
static sp_status_t capture_batch(nccl_state_t *st, const sp_comm_call_t *call, const void *send,
                                 void *recv, long k)
{
    cudaGraph_t graph = NULL;
    sp_status_t status;

    if (st->graph != NULL) {
        cudaGraphExecDestroy(st->graph);
        st->graph = NULL;
    }
    status = cuda_check(cudaStreamBeginCapture(st->stream, cudaStreamCaptureModeThreadLocal),
                        "cudaStreamBeginCapture");
    for (long i = 0; i < k && status == SP_OK; i++) {
        status = nccl_coll_run(st, call, send, recv);
    }
    {
        sp_status_t end = cuda_check(cudaStreamEndCapture(st->stream, &graph),
                                     "cudaStreamEndCapture");
        status = status == SP_OK ? end : status;
    }
    if (status == SP_OK) {
        status = cuda_check(cudaGraphInstantiate(&st->graph, graph, 0), "cudaGraphInstantiate");
    }
    if (graph != NULL) {
        cudaGraphDestroy(graph);
    }
    if (status != SP_OK) {
        st->graph = NULL;
        return status;
    }
    remember_graph(st, call, send, recv, k);
    return SP_OK;
}

/* nccl-tests' -z: the collective complete (stream synchronized, bounded by --timeout), then a
 * barrier of all ranks, before the next one is launched. */
static sp_status_t blocking_wait(nccl_state_t *st)
{
    sp_status_t status = nccl_sync(st);

    if (status == SP_OK && MPI_Barrier(st->comm) != MPI_SUCCESS) {
        sp_error("MPI_Barrier after a blocking collective failed");
        status = SP_ERR_MPI;
    }
    return status;
}

static sp_status_t nccl_coll_batch(void *state, const sp_comm_call_t *call, const void *send,
                                   void *recv, long k, sp_event_t *start, sp_event_t *end)
{
    nccl_state_t *st = state;
    sp_status_t status = SP_OK;

    if (st->cuda_graph && !same_graph(st, call, send, recv, k)) {
        status = capture_batch(st, call, send, recv, k);
        /* the first launch of a new graph uploads it to the device: once, untimed, so no
         * sample pays for it (in-place data is verified on fresh input after the samples) */
        if (status == SP_OK) {
            status = cuda_check(cudaGraphLaunch(st->graph, st->stream), "cudaGraphLaunch");
        }
        if (status != SP_OK) {
            return status;
        }
    }
    status = cuda_check(cudaEventRecord(start->ev, st->stream), "cudaEventRecord");
    if (st->cuda_graph) {
        if (status == SP_OK) {
            status = cuda_check(cudaGraphLaunch(st->graph, st->stream), "cudaGraphLaunch");
        }
    } else {
        for (long i = 0; i < k && status == SP_OK; i++) {
            status = nccl_coll_run(st, call, send, recv);
            if (status == SP_OK && st->blocking) {
                status = blocking_wait(st);
            }
        }
    }
    if (status == SP_OK) {
        status = cuda_check(cudaEventRecord(end->ev, st->stream), "cudaEventRecord");
    }
    return status;
}

static void nccl_range_push(void *state, const char *name)
{
    (void)state;
#ifdef SP_HAVE_NVTX
    nvtxRangePushA(name);
#else
    (void)name;
#endif
}

static void nccl_range_pop(void *state)
{
    (void)state;
#ifdef SP_HAVE_NVTX
    nvtxRangePop();
#endif
}

static sp_status_t nccl_event_create(void *state, sp_event_t **event_p)
{
    sp_event_t *ev = calloc(1, sizeof(*ev));
    sp_status_t status;

    (void)state;
    if (ev == NULL) {
        return SP_ERR_NOMEM;
    }
    status = cuda_check(cudaEventCreate(&ev->ev), "cudaEventCreate");
    if (status != SP_OK) {
        free(ev);
        return status;
    }
    *event_p = ev;
    return SP_OK;
}

static void nccl_event_destroy(void *state, sp_event_t *event)
{
    (void)state;
    cudaEventDestroy(event->ev);
    free(event);
}

static sp_status_t nccl_event_record(void *state, sp_event_t *event)
{
    nccl_state_t *st = state;

    return cuda_check(cudaEventRecord(event->ev, st->stream), "cudaEventRecord");
}

static sp_status_t nccl_event_query(void *state, sp_event_t *event, int *done_p)
{
    cudaError_t e = cudaEventQuery(event->ev);

    (void)state;
    *done_p = e == cudaSuccess;
    return e == cudaSuccess || e == cudaErrorNotReady ? SP_OK
                                                       : cuda_check(e, "cudaEventQuery");
}

static sp_status_t nccl_event_elapsed_ns(void *state, sp_event_t *start, sp_event_t *end,
                                         uint64_t *ns_p)
{
    nccl_state_t *st = state;
    float ms = 0.0f;
    sp_status_t status = bounded_wait(st, query_event, end->ev, "waiting for an event");

    if (status == SP_OK) {
        status = cuda_check(cudaEventElapsedTime(&ms, start->ev, end->ev), "cudaEventElapsedTime");
    }
    if (status == SP_OK) {
        /* events on different streams: a hair negative is possible; clamp before the cast */
        *ns_p = ms > 0.0f ? (uint64_t)((double)ms * 1e6) : 0;
    }
    return status;
}

const sp_backend_ops_t sp_backend_nccl_ops = {
    .name = "nccl",
    .init = nccl_init,
    .fini = nccl_fini,
    .abort = nccl_abort,
    .versions = nccl_versions,
    .device_info = nccl_device_info,
    .mem_alloc = nccl_mem_alloc,
    .mem_free = nccl_mem_free,
    .mem_poison = nccl_mem_poison,
    .fill = nccl_fill,
    .check = nccl_check_output,
    .pattern_supported = nccl_pattern_supported,
    .coll_run = nccl_coll_run,
    .coll_batch = nccl_coll_batch,
    .range_push = nccl_range_push,
    .range_pop = nccl_range_pop,
    .event_create = nccl_event_create,
    .event_destroy = nccl_event_destroy,
    .event_record = nccl_event_record,
    .event_elapsed_ns = nccl_event_elapsed_ns,
    .event_query = nccl_event_query,
    .sync = nccl_sync,
    .stream_create = sp__nccl_stream_create,
    .stream_destroy = sp__nccl_stream_destroy,
    .stream_coll = sp__nccl_stream_coll,
    .stream_compute = sp__nccl_stream_compute,
    .gemm_setup = sp__nccl_gemm_setup,
    .stream_gemm = sp__nccl_stream_gemm,
    .stream_send = sp__nccl_stream_send,
    .stream_recv = sp__nccl_stream_recv,
    .stream_record = sp__nccl_stream_record,
    .stream_wait = sp__nccl_stream_wait,
    .stream_sync = sp__nccl_stream_sync,
};
