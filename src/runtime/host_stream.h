/* Streams of the host backend: a stream is a worker thread that runs its queue in order, and an
 * event is the monotonic time at which a stream's queue reached it, the same semantics as CUDA
 * streams and events, so the proxy engine is written once for both backends. */
#ifndef SP_HOST_STREAM_H
#define SP_HOST_STREAM_H

#include <mpi.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "comm_call.h"
#include "status.h"

typedef struct sp_host_stream sp_host_stream_t;

/* The lock and condition shared by all streams and events of one backend (events cross
 * streams). Owned by the backend: sp_host_sync_init / sp_host_sync_cleanup. */
typedef struct {
    pthread_mutex_t mutex;
    pthread_cond_t changed;
} sp_host_sync_t;

void sp_host_sync_init(sp_host_sync_t *sync);
void sp_host_sync_cleanup(sp_host_sync_t *sync);

/* A host event: recorded by a stream, waited on by others. Generation counters give CUDA's rule
 * that a wait refers to the latest record enqueued before it. */
typedef struct {
    uint64_t enqueued;   /* records enqueued so far */
    uint64_t done;       /* records completed so far */
    uint64_t ns;         /* time of the latest completed record */
} sp_host_event_t;

/* Runs one call on comm (the stream's own communicator); provided by the backend. */
typedef sp_status_t (*sp_host_coll_fn)(void *ctx, MPI_Comm comm, const sp_comm_call_t *call,
                                       const void *send, void *recv);

/* Start a stream with its own duplicate of comm (collective over comm: every rank creates its
 * streams in the same order). coll runs the stream's calls. */
sp_status_t sp_host_stream_create(sp_host_sync_t *sync, MPI_Comm comm, sp_host_coll_fn coll,
                                  void *coll_ctx, sp_host_stream_t **stream_p);

/* Drain the queue, stop the thread, free the communicator (collective like creation). */
void sp_host_stream_destroy(sp_host_stream_t *stream);

/* Enqueue work; returns at once (blocks only while the queue is full). */
/* call is copied; per-peer arrays (call->v) must live until the stream has run it. */
sp_status_t sp_host_stream_coll(sp_host_stream_t *s, const sp_comm_call_t *call,
                                const void *send, void *recv);
/* Hold the stream until duration_ns after it reaches this op: a timed wait on the absolute
 * deadline (a busy loop would steal the core from ranks sharing it), finished by a short spin. */
sp_status_t sp_host_stream_compute(sp_host_stream_t *s, uint64_t duration_ns);
sp_status_t sp_host_stream_record(sp_host_stream_t *s, sp_host_event_t *ev);
/* Work of the caller's on the stream's thread, in queue order: fn(ctx, arg, n); arg must live
 * until the stream has run it (the host's GEMM compute). */
typedef void (*sp_host_work_fn)(void *ctx, const void *arg, size_t n);
sp_status_t sp_host_stream_work(sp_host_stream_t *s, sp_host_work_fn fn, void *ctx,
                                const void *arg, size_t n);
/* Point-to-point on the stream's communicator (blocking in the worker, in queue order). */
sp_status_t sp_host_stream_send(sp_host_stream_t *s, const void *buf, size_t bytes, int peer,
                                int tag);
sp_status_t sp_host_stream_recv(sp_host_stream_t *s, void *buf, size_t bytes, int peer,
                                int tag);
sp_status_t sp_host_stream_wait(sp_host_stream_t *s, sp_host_event_t *ev);

/* Wait until everything enqueued so far has run; returns the first error of the stream. */
sp_status_t sp_host_stream_sync(sp_host_stream_t *s);

/* Wait (from the calling thread) until ev's latest enqueued record has completed. */
void sp_host_event_sync(sp_host_sync_t *sync, sp_host_event_t *ev);

/* MPI_Wait without spinning: MPI_Test, then sleeps of 20 us between tests, so a stream thread
 * waiting for its peers leaves the core to the ranks sharing it. Returns MPI_Test's code. */
int sp_host_polite_wait(MPI_Request *req);

#endif
