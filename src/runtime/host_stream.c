/* Host streams: one worker thread per stream with a bounded ring of operations. One mutex and
 * condition variable per backend guard every queue and event: streams are few and operations
 * coarse (a collective, a compute of microseconds or more), so contention does not matter and
 * cross-stream waits need no lock ordering. */
#define _GNU_SOURCE
#include "host_stream.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "log.h"
#include "timeutil.h"

#define QUEUE_LEN 4096
#define SPIN_NS 100000 /* the last 100 us of a compute spin: sleep wake-ups overshoot (bench_compute) */

typedef enum {
    OP_COLL,
    OP_COMPUTE,
    OP_RECORD,
    OP_WAIT,
    OP_SEND,
    OP_RECV,
    OP_WORK,
    OP_STOP
} op_kind_t;

typedef struct {
    op_kind_t kind;
    sp_comm_call_t call;
    const void *send;
    void *recv;
    uint64_t duration_ns;
    sp_host_event_t *ev;
    size_t bytes;      /* OP_SEND, OP_RECV */
    int peer;
    int tag;
    uint64_t target;   /* OP_WAIT: generation to wait for; OP_RECORD: generation it completes */
    uint64_t enq_ns;   /* OP_COMPUTE: when it was enqueued */
    sp_host_work_fn fn; /* OP_WORK: fn(ctx, send, bytes) */
    void *ctx;
} op_t;

struct sp_host_stream {
    sp_host_sync_t *sync;
    MPI_Comm comm;
    sp_host_coll_fn coll;
    void *coll_ctx;
    pthread_t thread;
    op_t ring[QUEUE_LEN];
    uint64_t head;     /* next op to run */
    uint64_t tail;     /* next free slot */
    sp_status_t error; /* first failure; later ops are skipped */
};

void sp_host_sync_init(sp_host_sync_t *sync)
{
    pthread_mutex_init(&sync->mutex, NULL);
    pthread_cond_init(&sync->changed, NULL);
}

void sp_host_sync_cleanup(sp_host_sync_t *sync)
{
    pthread_cond_destroy(&sync->changed);
    pthread_mutex_destroy(&sync->mutex);
}

static void compute_until(uint64_t deadline)
{
    uint64_t now = sp_time_ns();

    if (deadline > now + SPIN_NS) {
        struct timespec ts;
        uint64_t wake = deadline - SPIN_NS;
        ts.tv_sec = (time_t)(wake / 1000000000ull);
        ts.tv_nsec = (long)(wake % 1000000000ull);
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
        }
    }
    while (sp_time_ns() < deadline) {
    }
}

/* Wait for a request without spinning: MPI_Wait polls, and a receive posted long before its
 * message (a pipeline stage in its bubble) would take a core from the ranks sharing it, delaying
 * their compute deadlines and wake-ups by scheduler time slices. Sleeping POLL_NS between tests
 * bounds the added latency instead. */
#define POLL_NS 20000L

int sp_host_polite_wait(MPI_Request *req)
{
    int done = 0;
    int rc = MPI_Test(req, &done, MPI_STATUS_IGNORE);

    while (rc == MPI_SUCCESS && !done) {
        struct timespec ts = {0, POLL_NS};
        nanosleep(&ts, NULL);
        rc = MPI_Test(req, &done, MPI_STATUS_IGNORE);
    }
    return rc;
}

/* Messages above INT_MAX bytes go as several, in order. */
static sp_status_t p2p(sp_host_stream_t *s, const op_t *op)
{
    size_t done = 0;

    /* do-while: a zero-byte message is still one message */
    do {
        size_t n = op->bytes - done > (size_t)1 << 30 ? (size_t)1 << 30 : op->bytes - done;
        MPI_Request req;
        int rc;
        if (op->kind == OP_SEND) {
            rc = MPI_Isend((const char *)op->send + done, (int)n, MPI_BYTE, op->peer, op->tag,
                           s->comm, &req);
        } else {
            rc = MPI_Irecv((char *)op->recv + done, (int)n, MPI_BYTE, op->peer, op->tag, s->comm,
                           &req);
        }
        if (rc == MPI_SUCCESS) {
            rc = sp_host_polite_wait(&req);
        }
        if (rc != MPI_SUCCESS) {
            sp_error("stream %s with rank %d failed", op->kind == OP_SEND ? "send" : "recv",
                     op->peer);
            return SP_ERR_MPI;
        }
        done += n;
    } while (done < op->bytes);
    return SP_OK;
}

static void *worker(void *arg)
{
    sp_host_stream_t *s = arg;
    pthread_mutex_t *lock = &s->sync->mutex;
    pthread_cond_t *changed = &s->sync->changed;
    uint64_t done_ns = 0; /* when the stream's previous op completed (a record: its time) */

    /* tighter timer wake-ups for the compute waits */
    prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
    for (;;) {
        op_t op;
        pthread_mutex_lock(lock);
        while (s->head == s->tail) {
            pthread_cond_wait(changed, lock);
        }
        op = s->ring[s->head % QUEUE_LEN];
        if (op.kind == OP_WAIT) {
            while (op.ev->done < op.target) {
                pthread_cond_wait(changed, lock);
            }
        }
        pthread_mutex_unlock(lock);

        if (op.kind == OP_STOP) {
            pthread_mutex_lock(lock);
            s->head++;
            pthread_cond_broadcast(changed);
            pthread_mutex_unlock(lock);
            return NULL;
        }
        if (op.kind == OP_COLL && s->error == SP_OK) {
            s->error = s->coll(s->coll_ctx, s->comm, &op.call, op.send, op.recv);
        } else if (op.kind == OP_COMPUTE) {
            /* a compute starts when its stream reaches it: when the previous op completed (the
             * proxy's start record), or when it was enqueued onto an idle stream; not when this
             * thread gets the lock back after waking the others, which on shared cores took
             * tens of microseconds per task (docs/METHODOLOGY.md, "Host compute") */
            compute_until((done_ns > op.enq_ns ? done_ns : op.enq_ns) + op.duration_ns);
        } else if (op.kind == OP_WORK) {
            op.fn(op.ctx, op.send, op.bytes);
        } else if ((op.kind == OP_SEND || op.kind == OP_RECV) && s->error == SP_OK) {
            s->error = p2p(s, &op);
        }

        pthread_mutex_lock(lock);
        done_ns = sp_time_ns();
        if (op.kind == OP_RECORD) {
            op.ev->ns = done_ns;
            if (op.ev->done < op.target) {
                op.ev->done = op.target;
            }
        }
        s->head++;
        pthread_cond_broadcast(changed);
        pthread_mutex_unlock(lock);
    }
}

static sp_status_t enqueue(sp_host_stream_t *s, op_t *op)
{
    pthread_mutex_t *lock = &s->sync->mutex;
    pthread_cond_t *changed = &s->sync->changed;

    pthread_mutex_lock(lock);
    while (s->tail - s->head >= QUEUE_LEN) {
        pthread_cond_wait(changed, lock);
    }
    if (op->kind == OP_RECORD) {
        op->target = ++op->ev->enqueued;
    } else if (op->kind == OP_WAIT) {
        op->target = op->ev->enqueued; /* the latest record enqueued so far */
    }
    s->ring[s->tail % QUEUE_LEN] = *op;
    s->tail++;
    pthread_cond_broadcast(changed);
    pthread_mutex_unlock(lock);
    return SP_OK;
}

sp_status_t sp_host_stream_create(sp_host_sync_t *sync, MPI_Comm comm, sp_host_coll_fn coll,
                                  void *coll_ctx, sp_host_stream_t **stream_p)
{
    sp_host_stream_t *s = calloc(1, sizeof(*s));

    if (s == NULL) {
        return SP_ERR_NOMEM;
    }
    s->sync = sync;
    if (MPI_Comm_dup(comm, &s->comm) != MPI_SUCCESS) {
        free(s);
        return SP_ERR_MPI;
    }
    MPI_Comm_set_errhandler(s->comm, MPI_ERRORS_RETURN);
    s->coll = coll;
    s->coll_ctx = coll_ctx;
    if (pthread_create(&s->thread, NULL, worker, s) != 0) {
        sp_error("cannot start a stream thread");
        MPI_Comm_free(&s->comm);
        free(s);
        return SP_ERR_NOMEM;
    }
    *stream_p = s;
    return SP_OK;
}

void sp_host_stream_destroy(sp_host_stream_t *s)
{
    op_t stop;

    if (s == NULL) {
        return;
    }
    memset(&stop, 0, sizeof(stop));
    stop.kind = OP_STOP;
    enqueue(s, &stop);
    pthread_join(s->thread, NULL);
    MPI_Comm_free(&s->comm);
    free(s);
}

sp_status_t sp_host_stream_coll(sp_host_stream_t *s, const sp_comm_call_t *call,
                                const void *send, void *recv)
{
    op_t op;

    memset(&op, 0, sizeof(op));
    op.kind = OP_COLL;
    op.call = *call;
    op.send = send;
    op.recv = recv;
    return enqueue(s, &op);
}

sp_status_t sp_host_stream_compute(sp_host_stream_t *s, uint64_t duration_ns)
{
    op_t op;

    memset(&op, 0, sizeof(op));
    op.kind = OP_COMPUTE;
    op.duration_ns = duration_ns;
    op.enq_ns = sp_time_ns();
    return enqueue(s, &op);
}

sp_status_t sp_host_stream_work(sp_host_stream_t *s, sp_host_work_fn fn, void *ctx,
                                const void *arg, size_t n)
{
    op_t op;

    memset(&op, 0, sizeof(op));
    op.kind = OP_WORK;
    op.fn = fn;
    op.ctx = ctx;
    op.send = arg;
    op.bytes = n;
    return enqueue(s, &op);
}

sp_status_t sp_host_stream_record(sp_host_stream_t *s, sp_host_event_t *ev)
{
    op_t op;

    memset(&op, 0, sizeof(op));
    op.kind = OP_RECORD;
    op.ev = ev;
    return enqueue(s, &op);
}

static sp_status_t enqueue_p2p(sp_host_stream_t *s, op_kind_t kind, void *buf, size_t bytes,
                               int peer, int tag)
{
    op_t op;

    memset(&op, 0, sizeof(op));
    op.kind = kind;
    op.send = buf;
    op.recv = buf;
    op.bytes = bytes;
    op.peer = peer;
    op.tag = tag;
    return enqueue(s, &op);
}

sp_status_t sp_host_stream_send(sp_host_stream_t *s, const void *buf, size_t bytes, int peer,
                                int tag)
{
    /* the worker only reads through op.send */
    return enqueue_p2p(s, OP_SEND, (void *)buf, bytes, peer, tag);
}

sp_status_t sp_host_stream_recv(sp_host_stream_t *s, void *buf, size_t bytes, int peer, int tag)
{
    return enqueue_p2p(s, OP_RECV, buf, bytes, peer, tag);
}

sp_status_t sp_host_stream_wait(sp_host_stream_t *s, sp_host_event_t *ev)
{
    op_t op;

    memset(&op, 0, sizeof(op));
    op.kind = OP_WAIT;
    op.ev = ev;
    return enqueue(s, &op);
}

sp_status_t sp_host_stream_sync(sp_host_stream_t *s)
{
    pthread_mutex_t *lock = &s->sync->mutex;
    pthread_cond_t *changed = &s->sync->changed;
    uint64_t target;

    pthread_mutex_lock(lock);
    target = s->tail;
    while (s->head < target) {
        pthread_cond_wait(changed, lock);
    }
    pthread_mutex_unlock(lock);
    return s->error;
}

void sp_host_event_sync(sp_host_sync_t *sync, sp_host_event_t *ev)
{
    pthread_mutex_t *lock = &sync->mutex;
    pthread_cond_t *changed = &sync->changed;

    pthread_mutex_lock(lock);
    while (ev->done < ev->enqueued) {
        pthread_cond_wait(changed, lock);
    }
    pthread_mutex_unlock(lock);
}
