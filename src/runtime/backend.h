/* The backend ops table: one table per backend (host: MPI over host memory; nccl: NCCL over GPU
 * memory), designated initializers, every entry present. Everything above the backend is written
 * once against this table. */
#ifndef SP_BACKEND_H
#define SP_BACKEND_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "comm_call.h"
#include "kv.h"
#include "status.h"

typedef enum { SP_BACKEND_AUTO = 0, SP_BACKEND_HOST, SP_BACKEND_NCCL, SP_BACKEND_COUNT } sp_backend_kind_t;

typedef struct sp_backend sp_backend_t;

/* One entry of a GEMM compute list: count times a batch of C[m x n] = A[m x k] * B[k x n]. */
typedef struct {
    int64_t m, n, k;
    int64_t batch; /* independent products of these dimensions (a batched GEMM) */
    int64_t count; /* times the entry runs */
} sp_gemm_t;

/* FLOPs of an entry: 2mnk * batch * count. */
double sp_gemm_flops(const sp_gemm_t *g);

/* An event marks a point in a backend's stream of operations; the elapsed time between two
 * recorded events is what a backend measures. Opaque; owned by the backend that created it. */
typedef struct sp_event sp_event_t;

/* A stream runs operations in order, concurrently with other streams (CUDA semantics). */
typedef struct sp_stream sp_stream_t;

/* What a backend needs to know to start. */
typedef struct {
    int local_rank;       /* node-local rank, for device selection */
    int local_size;
    int device;           /* device override, -1: from the node-local rank */
    double timeout_s;     /* bound on every wait for the device */
    int cuda_graph;       /* time batches as captured CUDA graphs (nccl) */
    int blocking;         /* wait for each collective of a batch before the next (nccl-tests -z;
                           * nccl only: the host backend refuses it, its calls block anyway) */
    int streams;          /* concurrent streams the workload will open (nccl: hardware queues) */
} sp_backend_config_t;

#define SP_BACKEND_MAX_KV 16

typedef struct sp_backend_ops {
    const char *name;

    /* Collective over comm (the backend duplicates it). state_p receives the backend's state.
     * On failure err holds this rank's reason (one line). */
    sp_status_t (*init)(MPI_Comm comm, const sp_backend_config_t *cfg, void **state_p,
                        char *err, size_t errlen);
    void (*fini)(void *state);

    /* The run failed (on this rank or by agreement): drop every communicator without waiting
     * for its work, so that fini cannot block on a peer that is gone. fini still follows. */
    void (*abort)(void *state);

    /* Versions and properties for /fingerprint (this rank's view); returns how many. */
    int (*versions)(void *state, sp_kv_t *kv, int max);

    /* This rank's device: a name and a bus id ("cpu", "-" on the host). */
    void (*device_info)(void *state, char *name, size_t namelen, char *bus_id, size_t buslen);

    /* Buffers in the backend's memory (host memory or device memory). */
    sp_status_t (*mem_alloc)(void *state, size_t bytes, void **ptr_p);
    void (*mem_free)(void *state, void *ptr);

    /* Fill bytes with a poison pattern, so stale output is never mistaken for a result. */
    sp_status_t (*mem_poison)(void *state, void *ptr, size_t bytes);

    /* Write an input pattern into buf[0..count) (backend memory). */
    sp_status_t (*fill)(void *state, const sp_pattern_t *input, void *buf, size_t count);

    /* Count the elements of output (backend memory) that differ from the expected spans (none:
     * nothing to check, 0 wrong). */
    sp_status_t (*check)(void *state, const sp_pattern_span_t *spans, size_t nspans,
                         const void *output, uint64_t *wrong_p);

    /* 1 when the backend can run this pattern in this placement. */
    int (*pattern_supported)(void *state, sp_comm_pattern_t pattern, int in_place);

    /* Start one call. Out-of-place: send and recv are distinct buffers; in-place: recv is the one
     * buffer and send points into it (comm_call.h). Collective over the backend's communicator. */
    sp_status_t (*coll_run)(void *state, const sp_comm_call_t *call, const void *send,
                            void *recv);

    /* A timed batch: record start, k operations back to back, record end (the nccl backend may
     * replay them as one captured CUDA graph). Does not wait for completion. */
    sp_status_t (*coll_batch)(void *state, const sp_comm_call_t *call, const void *send,
                              void *recv, long k, sp_event_t *start, sp_event_t *end);

    /* Named ranges around sweep points, for profilers (NVTX on the nccl backend). */
    void (*range_push)(void *state, const char *name);
    void (*range_pop)(void *state);

    /* Events: create/destroy, record at the current point of the operation stream, elapsed
     * nanoseconds between two recorded events (waits for the later one to complete). */
    sp_status_t (*event_create)(void *state, sp_event_t **event_p);
    void (*event_destroy)(void *state, sp_event_t *event);
    sp_status_t (*event_record)(void *state, sp_event_t *event);
    sp_status_t (*event_elapsed_ns)(void *state, sp_event_t *start, sp_event_t *end,
                                    uint64_t *ns_p);
    /* Optional (NULL: not offered): *done_p = 1 when the event's latest record has completed,
     * without waiting (cudaEventQuery); the proxy polls it to show progress to the watchdog. */
    sp_status_t (*event_query)(void *state, sp_event_t *event, int *done_p);

    /* Wait until every started operation has completed. */
    sp_status_t (*sync)(void *state);

    /* Streams: create/destroy are collective over `group` (a sub-communicator of the backend's,
     * e.g. a TP or PP group; MPI_COMM_NULL: the backend's own), each stream with its own
     * duplicate, created in the same order on every rank of the group. Collectives and
     * point-to-point ranks on a stream are those of its group. Work is enqueued and runs in order on the
     * stream; record marks a point of the stream, wait holds the stream until the event's latest
     * record has run; compute holds the stream for a duration (the host's stand-in for a
     * kernel). stream_sync waits for everything enqueued. Elapsed times between events recorded
     * on any streams come from event_elapsed_ns. */
    sp_status_t (*stream_create)(void *state, MPI_Comm group, sp_stream_t **stream_p);
    void (*stream_destroy)(void *state, sp_stream_t *stream);
    sp_status_t (*stream_coll)(void *state, sp_stream_t *stream, const sp_comm_call_t *call,
                               const void *send, void *recv);
    sp_status_t (*stream_compute)(void *state, sp_stream_t *stream, uint64_t duration_ns);
    sp_status_t (*stream_send)(void *state, sp_stream_t *stream, const void *buf, size_t bytes,
                               int peer, int tag);
    sp_status_t (*stream_recv)(void *state, sp_stream_t *stream, void *buf, size_t bytes,
                               int peer, int tag);
    sp_status_t (*stream_record)(void *state, sp_stream_t *stream, sp_event_t *event);
    sp_status_t (*stream_wait)(void *state, sp_stream_t *stream, sp_event_t *event);
    sp_status_t (*stream_sync)(void *state, sp_stream_t *stream);

    /* GEMM compute. gemm_setup, outside any timed region and before any stream_gemm: loads
     * the math library, pins its threads (threads >= 1) and allocates operands for the largest
     * of shapes[0..n) in the precision of the model's dtype (gemm_call.h; a backend may compute
     * in fp32 instead: the host does); desc then says what computes (library, precision,
     * threads). Not collective. SP_ERR_UNSUPPORTED, or SP_ERR_NOMEM, with the reason in desc;
     * a backend that checks the shapes by running them says so here, not later. stream_gemm
     * enqueues the entries of list[0..n) in order on the stream (each no larger than a shape
     * given to gemm_setup); list must live until the stream has run it. */
    sp_status_t (*gemm_setup)(void *state, const sp_gemm_t *shapes, size_t n, sp_dtype_t dtype,
                              int threads, char *desc, size_t desclen);
    sp_status_t (*stream_gemm)(void *state, sp_stream_t *stream, const sp_gemm_t *list,
                               size_t n);
} sp_backend_ops_t;

struct sp_backend {
    const sp_backend_ops_t *ops;
    void *state;
    sp_backend_kind_t kind;
};

extern const sp_backend_ops_t sp_backend_host_ops;
extern const sp_backend_ops_t sp_backend_nccl_ops; /* present when built with NCCL */

/* 1 when this build has the nccl backend. */
int sp_backend_have_nccl(void);

/* This rank's GPU count for backend selection; 0 with a reason in err when there is none (no
 * device, no driver, or a build without NCCL). Never blocks on other ranks. */
int sp_backend_gpu_count(char *err, size_t errlen);

/* The PCI bus id of this rank's CUDA device `device` (as CUDA numbers them for this process);
 * 0 on success, -1 with "-" in bus_id when there is none or the build has no CUDA. */
int sp_backend_gpu_bus_id(int device, char *bus_id, size_t len);

/* Names for --backend, indexed by sp_backend_kind_t. */
extern const char *const sp_backend_names[SP_BACKEND_COUNT];

/*
 * Choose and initialize a backend. Collective over comm. AUTO picks nccl when every rank sees a
 * GPU and the build has it, else host; the choice is the same on every rank. On failure every
 * rank returns the same status and rank 0's err holds one message for the whole job (which
 * ranks failed and why). SP_ERR_UNSUPPORTED: nccl asked for where it cannot run.
 */
sp_status_t sp_backend_open(sp_backend_kind_t requested, MPI_Comm comm,
                            const sp_backend_config_t *cfg, sp_backend_t *be_p, char *err,
                            size_t errlen);
void sp_backend_close(sp_backend_t *be);

/* After a failed run, before sp_backend_close: the backend's abort (no-op when not open). */
void sp_backend_abort(sp_backend_t *be);

#endif
