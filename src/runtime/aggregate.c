/* Pull-based aggregation: rank 0 requests (vrank, from) and the owner answers with at most one
 * batch, so no process ever has more than one batch in flight towards rank 0 and MPI's
 * unexpected-message queue cannot grow with the number of ranks.
 *
 * With producer compression (aggregate_chunk.h) rank 0 keeps the rows of the table's last,
 * partial chunk ("pending", fewer than a chunk) and sends them with its next request; the owner
 * puts them ahead of its own events, so its chunks start at chunk boundaries and it compresses
 * the chunk it shares with the previous ranks too. Its rows after its last whole chunk come back
 * uncompressed and become the pending rows; the owner of the last virtual rank compresses the
 * table's last, partial chunk. Rank 0 only copies rows and stores chunks; every message is still
 * between rank 0 and one owner, in the same request/answer order, so no process ever waits for
 * any process but rank 0. */
#include "aggregate.h"
#include "aggregate_ahead.h"
#include "aggregate_chunk.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "context.h"
#include "log.h"
#include "timeutil.h"

#define TAG_REQ 7201
#define TAG_BATCH 7202
#define CHUNK ((uint64_t)SP_TL_CHUNK_EVENTS)

/* A request; npend events follow it (only when chunked): the table's pending rows. */
typedef struct {
    int64_t vrank; /* < 0: no more requests */
    uint64_t from;
    uint64_t row;     /* where event `from` goes in /timeline/events (rank 0's bookkeeping) */
    uint64_t chunked; /* 1: compress whole chunks, the first starting with the pending rows */
    uint64_t npend;   /* pending rows after this header, fewer than CHUNK */
    uint64_t final;   /* 1: the last virtual rank: its batch that ends it ends the table */
} request_t;

/* One message: this header, nchunks sizes (uint64_t), the compressed chunks back to back, then
 * at the next multiple of 8 bytes nraw events (the vrank's own, uncompressed). */
typedef struct {
    uint64_t count;
    uint64_t dropped;
    uint64_t n;         /* the vrank's own events in this batch, from the request's `from` */
    uint64_t nchunks;   /* the first holds the request's pending rows, if any */
    uint64_t last_rows; /* events in the last chunk: CHUNK except at the end of the table */
    uint64_t nraw;
} header_t;

/* A process's buffers: the message; the request (with room for pending rows when chunked; on
 * rank 0 it holds the table's pending rows); for compressed chunks the events of one chunk and
 * their shuffled bytes (NULL when batches are smaller than a chunk: then nothing is chunked). */
typedef struct {
    void *msg;
    request_t *req;
    size_t req_bytes;
    sp_event_rec_t *ev;
    unsigned char *shuffled;
    sp_tl_ahead_t *ahead; /* an owner's chunks made ahead (aggregate_ahead.h), or NULL */
} bufs_t;

static sp_event_rec_t *pending_rows(const request_t *req)
{
    return (sp_event_rec_t *)(void *)(req + 1);
}

/* Whole chunks one message may carry: 0 when a batch is smaller than a chunk. */
static size_t max_chunks(size_t batch)
{
    return batch / SP_TL_CHUNK_EVENTS;
}

/* Room for a batch: n raw events, or up to max_chunks chunks (the last may stand for an
 * uncompressed tail of fewer than CHUNK events, which takes less than a chunk's bound). */
static size_t batch_bytes(size_t n)
{
    size_t raw = sizeof(header_t) + n * sizeof(sp_event_rec_t);
    size_t chunked =
        sizeof(header_t) + max_chunks(n) * (sizeof(uint64_t) + sp_tl_chunk_bound()) + 8;
    return raw > chunked ? raw : chunked;
}

/* Where a message's raw events start: after its chunks, at a multiple of 8 bytes. */
static size_t raw_offset(const void *msg)
{
    const header_t *hdr = msg;
    const uint64_t *sizes = (const uint64_t *)(hdr + 1);
    size_t bytes = sizeof(header_t) + hdr->nchunks * sizeof(uint64_t);

    for (uint64_t c = 0; c < hdr->nchunks; c++) {
        bytes += sizes[c];
    }
    return (bytes + 7) & ~(size_t)7;
}

static sp_event_rec_t *raw_events(const void *msg)
{
    return (sp_event_rec_t *)(void *)((char *)(uintptr_t)msg + raw_offset(msg));
}

static size_t msg_bytes(const header_t *hdr)
{
    return raw_offset(hdr) + hdr->nraw * sizeof(sp_event_rec_t);
}

void sp_aggregate_wait(MPI_Request *req, long max_nap_ns)
{
    long nap_ns = 50000;
    int done = 0;

    /* a short spin answers at once when the peer is quick; then naps growing from 50 us to
     * max_nap_ns, so a process that shares rank 0's cores (oversubscription, or more ranks than
     * the node has cores) does not take the CPU time rank 0 needs to write */
    for (int spin = 0; spin < 1000 && !done; spin++) {
        MPI_Test(req, &done, MPI_STATUS_IGNORE);
    }
    while (!done) {
        struct timespec nap = {0, nap_ns};
        nanosleep(&nap, NULL);
        nap_ns = 2 * nap_ns < max_nap_ns ? 2 * nap_ns : max_nap_ns;
        MPI_Test(req, &done, MPI_STATUS_IGNORE);
    }
}

/* Chunk c of the stream "req's pending rows, then req's vrank's own events from req->from":
 * its first `rows` events into ev, the rest zeroed (beyond the table's end they are never read).
 * 0 when the source gave fewer events. */
static int fill_chunk(const sp_tl_source_t *src, const request_t *req, uint64_t c, size_t rows,
                      sp_event_rec_t *ev)
{
    size_t have = 0;
    uint64_t own = req->from + c * CHUNK - req->npend;

    if (c == 0) {
        memcpy(ev, pending_rows(req), (size_t)req->npend * sizeof(*ev));
        have = (size_t)req->npend;
        own = req->from;
    }
    if (rows > have &&
        src->produce(src->arg, (int)req->vrank, own, ev + have, rows - have) != rows - have) {
        return 0;
    }
    memset(ev + rows, 0, (SP_TL_CHUNK_EVENTS - rows) * sizeof(*ev));
    return 1;
}

/* The first nmax chunks of req's stream (the last with last_rows events), compressed into b->msg
 * after the header; the number made (fewer when one fails to compress). */
static uint64_t produce_chunks(const sp_tl_source_t *src, const request_t *req, bufs_t *b,
                               uint64_t nmax, size_t last_rows)
{
    header_t *hdr = b->msg;
    uint64_t *sizes = (uint64_t *)(hdr + 1);
    unsigned char *out = (unsigned char *)(sizes + nmax);
    uint64_t c = 0;

    for (; c < nmax; c++) {
        size_t rows = c + 1 == nmax ? last_rows : SP_TL_CHUNK_EVENTS;
        size_t z = 0;
        if (b->ahead != NULL && rows == SP_TL_CHUNK_EVENTS && (c > 0 || req->npend == 0)) {
            z = sp_tl_ahead_take(b->ahead, req->vrank, req->from + c * CHUNK - req->npend, out,
                                 sp_tl_chunk_bound());
        }
        if (z == 0 && fill_chunk(src, req, c, rows, b->ev)) {
            z = sp_tl_chunk_compress(b->ev, b->shuffled, out, sp_tl_chunk_bound());
        }
        if (z == 0) {
            break;
        }
        sizes[c] = z;
        out += z;
    }
    /* sizes were laid out for nmax chunks: close the gap when fewer were made */
    if (c > 0 && c < nmax) {
        size_t bytes = (size_t)(out - (unsigned char *)(sizes + nmax));
        memmove(sizes + c, sizes + nmax, bytes);
    }
    return c;
}

/* A chunked batch: as many whole chunks of req's stream as a message holds; when that reaches
 * the vrank's end, its remaining own events uncompressed, or for the table's last vrank one
 * last partial chunk compressed. When no chunk compresses, own events as they are. */
static void produce_chunked(const sp_tl_source_t *src, const request_t *req, bufs_t *b,
                            size_t batch)
{
    header_t *hdr = b->msg;
    uint64_t left = hdr->count > req->from ? hdr->count - req->from : 0;
    uint64_t whole = (req->npend + left) / CHUNK;
    uint64_t rest = (req->npend + left) % CHUNK;
    int ends = whole < max_chunks(batch); /* room for the tail too */
    int partial = ends && req->final && rest > 0;
    uint64_t planned = (ends ? whole : max_chunks(batch)) + (uint64_t)partial;
    uint64_t made =
        produce_chunks(src, req, b, planned, partial ? (size_t)rest : SP_TL_CHUNK_EVENTS);
    uint64_t nraw = 0;

    hdr->nchunks = made;
    hdr->last_rows = made == planned && partial ? rest : CHUNK;
    hdr->n = made > 0 ? (made - 1) * CHUNK + hdr->last_rows - req->npend : 0;
    if (made == planned && ends && !partial) {
        nraw = made > 0 ? rest : left; /* with no chunk, the pending rows stay on rank 0 */
    } else if (made == 0 && planned > 0) {
        nraw = left < batch ? left : batch;
    }
    if (nraw > 0) {
        hdr->nraw = src->produce(src->arg, (int)req->vrank, req->from + hdr->n, raw_events(hdr),
                                 (size_t)nraw);
        hdr->n += hdr->nraw;
    }
}

/* The batch of req's vrank from req->from into b->msg. */
static void produce(const sp_tl_source_t *src, const request_t *req, bufs_t *b, size_t batch)
{
    header_t *hdr = b->msg;

    hdr->count = src->count(src->arg, (int)req->vrank);
    hdr->dropped = src->dropped(src->arg, (int)req->vrank);
    hdr->n = 0;
    hdr->nchunks = 0;
    hdr->last_rows = CHUNK;
    hdr->nraw = 0;
    if (req->chunked && b->ev != NULL) {
        produce_chunked(src, req, b, batch);
    } else if (req->from < hdr->count) {
        hdr->n = src->produce(src->arg, (int)req->vrank, req->from, raw_events(hdr), batch);
        hdr->nraw = hdr->n;
    }
}

/* Test-only (SCALEPROBE_TEST_AGG_PAUSE_MS=MS, 1 to 60000; 0 when unset): every owner makes all
 * the chunks it can ahead before it serves, and rank 0 waits MS milliseconds before its first
 * request, so tests/e2e/test_timeline_chunks.sh takes the made-ahead path with an exact count
 * however the processes are scheduled. */
static long test_pause_ms(void)
{
    const char *v = getenv("SCALEPROBE_TEST_AGG_PAUSE_MS");
    long ms = v != NULL ? strtol(v, NULL, 10) : 0;

    return ms > 0 && ms <= 60000 ? ms : 0;
}

static void test_pause(void)
{
    long ms = test_pause_ms();
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};

    if (ms > 0) {
        nanosleep(&t, NULL);
    }
}

/* An owner waits for req while making chunks ahead, then without a core. */
static void wait_ahead(MPI_Request *req, sp_tl_ahead_t *ahead, long max_nap_ns)
{
    int done = 0;

    MPI_Test(req, &done, MPI_STATUS_IGNORE);
    while (!done && ahead != NULL && sp_tl_ahead_step(ahead)) {
        MPI_Test(req, &done, MPI_STATUS_IGNORE);
    }
    if (!done) {
        sp_aggregate_wait(req, max_nap_ns);
    }
}

/* The owner's side: answer requests until rank 0 says stop. A request arrives only after rank 0
 * received the previous batch, so one buffer serves. `last` is the highest virtual rank this
 * process owns (-1: none): once it is sent, only the stop remains, which may wait longer. */
static void serve(MPI_Comm comm, const sp_tl_source_t *src, bufs_t *b, size_t batch, int64_t last)
{
    int finished = last < 0;

    while (b->ahead != NULL && test_pause_ms() > 0 && sp_tl_ahead_step(b->ahead)) {
    }
    for (;;) {
        MPI_Request mreq;
        const header_t *hdr = b->msg;
        MPI_Irecv(b->req, (int)b->req_bytes, MPI_BYTE, 0, TAG_REQ, comm, &mreq);
        wait_ahead(&mreq, b->ahead, finished ? 20000000 : 1000000);
        if (b->req->vrank < 0) {
            return;
        }
        produce(src, b->req, b, batch);
        finished = b->req->vrank == last && (hdr->n == 0 || b->req->from + hdr->n >= hdr->count);
        /* rank 0 takes it (its receive is posted) while this process waits without a core */
        MPI_Isend(b->msg, (int)msg_bytes(hdr), MPI_BYTE, 0, TAG_BATCH, comm, &mreq);
        wait_ahead(&mreq, b->ahead, 1000000);
    }
}

typedef struct {
    request_t ask;    /* vrank, from, row, chunked, npend, final */
    MPI_Request recv; /* the posted receive, MPI_REQUEST_NULL when rank 0 makes it */
    MPI_Request send; /* the request (with the pending rows) on its way */
} cursor_t;

/* Rank 0 asks the owner of cur for its batch, sending the pending rows (pend, whose header
 * becomes cur's request), and posts the receive into msg. */
static void ask(MPI_Comm comm, int nprocs, cursor_t *cur, request_t *pend, void *msg,
                size_t batch)
{
    int owner = (int)(cur->ask.vrank % nprocs);

    cur->ask.npend = pend->npend;
    *pend = cur->ask;
    cur->recv = cur->send = MPI_REQUEST_NULL;
    if (owner != 0) {
        MPI_Irecv(msg, (int)batch_bytes(batch), MPI_BYTE, owner, TAG_BATCH, comm, &cur->recv);
        MPI_Isend(pend, (int)(sizeof(*pend) + pend->npend * sizeof(sp_event_rec_t)), MPI_BYTE,
                  owner, TAG_REQ, comm, &cur->send);
    }
}

/* Rank 0 completes the batch of cur into b->msg: received, or made here. */
static void take(cursor_t *cur, const sp_tl_source_t *src, const request_t *pend, bufs_t *b,
                 size_t batch)
{
    if (cur->recv == MPI_REQUEST_NULL) {
        produce(src, pend, b, batch);
    } else {
        MPI_Wait(&cur->send, MPI_STATUS_IGNORE);
        MPI_Wait(&cur->recv, MPI_STATUS_IGNORE);
    }
}

/* Rank 0 stores a message's compressed chunks as they are. */
static sp_status_t store_chunks(sp_result_t *res, const void *msg, sp_aggregate_stats_t *stats)
{
    const header_t *hdr = msg;
    const uint64_t *sizes = (const uint64_t *)(hdr + 1);
    const unsigned char *data = (const unsigned char *)(sizes + hdr->nchunks);
    sp_status_t status = SP_OK;

    for (uint64_t c = 0; c < hdr->nchunks && status == SP_OK; c++) {
        size_t rows = c + 1 == hdr->nchunks ? (size_t)hdr->last_rows : SP_TL_CHUNK_EVENTS;
        status = sp_result_timeline_write_chunk(res, data, (size_t)sizes[c], rows);
        data += sizes[c];
    }
    stats->chunks += hdr->nchunks;
    return status;
}

/* Rank 0, chunked: a message's raw events join the pending rows (which its first chunk, if any,
 * took). A pending chunk that fills is written through HDF5's filter here (only when a producer
 * could not compress), after the message's chunks, which precede it in the table: *stored_p
 * says whether they were stored. Writes nothing once status is an error. */
static sp_status_t absorb(sp_result_t *res, request_t *pend, const void *msg, sp_status_t status,
                          int *stored_p, sp_aggregate_stats_t *stats)
{
    const header_t *hdr = msg;
    const sp_event_rec_t *raw = raw_events(msg);
    sp_event_rec_t *rows = pending_rows(pend);
    uint64_t left = hdr->nraw;

    *stored_p = 0;
    if (hdr->nchunks > 0) {
        pend->npend = 0;
    }
    if (pend->npend + left >= CHUNK) {
        status = status == SP_OK ? store_chunks(res, msg, stats) : status;
        *stored_p = 1;
    }
    while (left > 0) {
        uint64_t k = CHUNK - pend->npend < left ? CHUNK - pend->npend : left;
        memcpy(rows + pend->npend, raw, (size_t)k * sizeof(*raw));
        pend->npend += k;
        raw += k;
        left -= k;
        if (pend->npend == CHUNK) {
            status = status == SP_OK ? sp_result_timeline_append(res, rows, SP_TL_CHUNK_EVENTS)
                                     : status;
            stats->rank0_chunks++;
            pend->npend = 0;
        }
    }
    return status;
}

/* Rank 0 stores one batch: compressed chunks as they are; raw events (unless chunked, when
 * absorb took them) through the filter. */
static sp_status_t store(sp_result_t *res, const void *msg, uint64_t chunked,
                         sp_aggregate_stats_t *stats)
{
    const header_t *hdr = msg;
    sp_status_t status = store_chunks(res, msg, stats);

    if (status == SP_OK && !chunked && hdr->nraw > 0) {
        status = sp_result_timeline_append(res, raw_events(msg), (size_t)hdr->nraw);
    }
    return status;
}

/* Rank 0, after the last batch: the pending rows (left only when a producer could not compress)
 * through HDF5's filter; the count of chunks that went through HDF5's pipeline here. */
static sp_status_t finish(sp_result_t *res, const request_t *pend, uint64_t chunked,
                          sp_status_t status, sp_aggregate_stats_t *stats)
{
    if (!chunked) {
        stats->rank0_chunks = (sp_result_timeline_count(res) + CHUNK - 1) / CHUNK;
    } else if (pend->npend > 0) {
        stats->rank0_chunks++;
        if (status == SP_OK) {
            status = sp_result_timeline_append(res, pending_rows(pend), (size_t)pend->npend);
        }
    }
    return status;
}

/* Rank 0's side: every virtual rank's batches in order, two buffers: the next batch is asked
 * for, and its receive posted, before this one is written, so it arrives while rank 0 writes.
 * On a write error rank 0 keeps pulling (and dropping) so every owner is released. */
static sp_status_t pull_all(MPI_Comm comm, sp_result_t *res, int nprocs, int nvranks,
                            const sp_tl_source_t *src, bufs_t b[2], size_t batch,
                            sp_aggregate_stats_t *stats)
{
    uint64_t chunked = (uint64_t)(sp_result_timeline_precompressed(res) && b[0].ev != NULL);
    request_t *pend = b[0].req;
    cursor_t cur = {{0, 0, 0, chunked, 0, nvranks == 1}, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    sp_tl_rank_t row;
    sp_status_t status = SP_OK;
    int i = 0;

    memset(&row, 0, sizeof(row));
    pend->npend = 0;
    if (nvranks > 0) {
        ask(comm, nprocs, &cur, pend, b[i].msg, batch);
    }
    while (cur.ask.vrank < nvranks) {
        const header_t *hdr = b[i].msg;
        int stored = 0;
        cursor_t next = {{cur.ask.vrank + 1, 0, 0, chunked, 0, 0}, MPI_REQUEST_NULL,
                         MPI_REQUEST_NULL};
        take(&cur, src, pend, &b[i], batch);
        next.ask.row = cur.ask.row + hdr->n;
        if (hdr->n > 0 && cur.ask.from + hdr->n < hdr->count) {
            next.ask.vrank = cur.ask.vrank;
            next.ask.from = cur.ask.from + hdr->n;
        }
        next.ask.final = next.ask.vrank + 1 == nvranks;
        if (chunked) {
            status = absorb(res, pend, hdr, status, &stored, stats);
        }
        if (next.ask.vrank < nvranks) {
            ask(comm, nprocs, &next, pend, b[1 - i].msg, batch);
        }
        if (cur.ask.from == 0) {
            row.rank = (int32_t)cur.ask.vrank;
            row.offset = cur.ask.row;
        }
        if (status == SP_OK && !stored) {
            status = store(res, hdr, chunked, stats);
        }
        if (next.ask.vrank != cur.ask.vrank) {
            row.count = cur.ask.from + hdr->n;
            row.dropped = hdr->dropped;
            stats->events += row.count;
            stats->dropped += row.dropped;
            if (status == SP_OK) {
                status = sp_result_timeline_rank(res, &row);
            }
        }
        cur = next;
        i = 1 - i;
    }
    return finish(res, pend, chunked, status, stats);
}

/* The buffers of this process: two messages on rank 0, one elsewhere; a request with room for
 * a chunk's pending rows and chunk scratch when a batch holds a whole chunk. 0 when an
 * allocation failed. */
static int bufs_alloc(bufs_t b[2], int rank, size_t batch)
{
    int chunks = max_chunks(batch) > 0;

    memset(b, 0, 2 * sizeof(*b));
    b[0].msg = malloc(batch_bytes(batch));
    b[1].msg = rank == 0 ? malloc(batch_bytes(batch)) : NULL;
    b[0].req_bytes = sizeof(request_t) + (chunks ? SP_TL_CHUNK_EVENTS * sizeof(sp_event_rec_t) : 0);
    b[0].req = malloc(b[0].req_bytes);
    if (chunks) {
        b[0].ev = malloc(SP_TL_CHUNK_EVENTS * sizeof(sp_event_rec_t));
        b[0].shuffled = malloc(SP_TL_CHUNK_EVENTS * sizeof(sp_event_rec_t));
    }
    b[1].req = b[0].req;
    b[1].req_bytes = b[0].req_bytes;
    b[1].ev = b[0].ev;
    b[1].shuffled = b[0].shuffled;
    return b[0].msg != NULL && (rank != 0 || b[1].msg != NULL) && b[0].req != NULL &&
           (!chunks || (b[0].ev != NULL && b[0].shuffled != NULL));
}

static void bufs_free(bufs_t b[2])
{
    sp_tl_ahead_free(b[0].ahead);
    free(b[0].shuffled);
    free(b[0].ev);
    free(b[0].req);
    free(b[1].msg);
    free(b[0].msg);
}

/* Collective, when every batch is compressed chunks: every vrank's count to every process
 * (counts: nvranks zeros on entry), and on the owners other than rank 0 the chunks ahead. */
static void start_ahead(MPI_Comm comm, const sp_tl_source_t *src, uint64_t *counts, int nvranks,
                        bufs_t *b)
{
    int rank;
    int nprocs;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nprocs);
    for (int v = rank; v < nvranks; v += nprocs) {
        counts[v] = src->count(src->arg, v);
    }
    MPI_Allreduce(MPI_IN_PLACE, counts, nvranks, MPI_UINT64_T, MPI_SUM, comm);
    if (rank != 0) {
        b->ahead = sp_tl_ahead_new(src, counts, nvranks, rank, nprocs);
    }
}

sp_status_t sp_aggregate(MPI_Comm comm, sp_result_t *res, int nvranks, const sp_tl_source_t *src,
                         size_t batch_events, int64_t clock_err_ns, sp_aggregate_stats_t *stats_p)
{
    size_t batch = batch_events > 0 ? batch_events : 1;
    bufs_t b[2];
    sp_aggregate_stats_t stats;
    MPI_Request req;
    int rank;
    int nprocs;
    int agreed[2]; /* every buffer allocated; minus "batches are compressed chunks" */
    sp_status_t status = SP_OK;
    uint64_t t0 = sp_time_ns();
    uint64_t ahead;
    uint64_t *counts = calloc(nvranks > 0 ? (size_t)nvranks : 1, sizeof(*counts));

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nprocs);
    agreed[0] = bufs_alloc(b, rank, batch) && counts != NULL;
    agreed[1] = rank == 0 && res != NULL && sp_result_timeline_precompressed(res) &&
                        b[0].ev != NULL
                    ? -1
                    : 0;
    memset(&stats, 0, sizeof(stats));
    MPI_Allreduce(MPI_IN_PLACE, agreed, 2, MPI_INT, MPI_MIN, comm);
    if (agreed[0] && agreed[1] < 0 && nvranks > 0) {
        start_ahead(comm, src, counts, nvranks, &b[0]);
    }
    free(counts);
    if (!agreed[0]) {
        bufs_free(b);
        return SP_ERR_NOMEM;
    }
    if (rank != 0) {
        /* the highest v < nvranks with v % nprocs == rank */
        int64_t last = nvranks > rank ? (int64_t)(nvranks - 1 - (nvranks - 1 - rank) % nprocs) : -1;
        serve(comm, src, &b[0], batch, last);
    } else {
        status = res != NULL ? sp_result_timeline_open(res, clock_err_ns) : SP_ERR_INVALID;
        test_pause();
        sp_status_t s = status == SP_OK
                            ? pull_all(comm, res, nprocs, nvranks, src, b, batch, &stats)
                            : SP_OK;
        status = status == SP_OK ? s : status;
        for (int p = 1; p < nprocs; p++) {
            request_t stop = {-1, 0, 0, 0, 0, 0};
            MPI_Send(&stop, (int)sizeof(stop), MPI_BYTE, p, TAG_REQ, comm);
        }
        if (status == SP_OK) {
            status = sp_result_timeline_close(res);
        }
        if (stats_p != NULL) {
            struct rusage ru;
            getrusage(RUSAGE_SELF, &ru);
            stats.seconds = (double)(sp_time_ns() - t0) * 1e-9;
            stats.peak_rss_kib = ru.ru_maxrss;
            *stats_p = stats;
        }
    }
    ahead = sp_tl_ahead_taken(b[0].ahead);
    bufs_free(b);
    /* how many chunks were made ahead: every process is here once rank 0 has sent the stops */
    MPI_Ireduce(rank == 0 ? MPI_IN_PLACE : &ahead, &ahead, 1, MPI_UINT64_T, MPI_SUM, 0, comm, &req);
    sp_aggregate_wait(&req, 1000000);
    if (rank == 0 && stats_p != NULL) {
        stats_p->ahead_chunks = ahead;
    }
    /* the others wait for rank 0's flush without a core */
    MPI_Ibcast(&status, 1, MPI_INT, 0, comm, &req);
    sp_aggregate_wait(&req, 1000000);
    return status;
}

/* ---- this process's own timeline ---- */

static uint64_t own_count(void *arg, int vrank)
{
    (void)vrank;
    return ((const sp_tl_own_t *)arg)->tl->count;
}

static uint64_t own_dropped(void *arg, int vrank)
{
    (void)vrank;
    return ((const sp_tl_own_t *)arg)->tl->dropped;
}

static size_t own_produce(void *arg, int vrank, uint64_t from, sp_event_rec_t *out, size_t max)
{
    const sp_tl_own_t *own = arg;
    size_t n = own->tl->count - (size_t)from;

    (void)vrank;
    if (n > max) {
        n = max;
    }
    for (size_t i = 0; i < n; i++) {
        out[i] = own->tl->events[from + i];
        out[i].start_ns = sp_clock_to_global(own->clk, sp_clock_local(own->clk, out[i].start_ns));
        out[i].end_ns = sp_clock_to_global(own->clk, sp_clock_local(own->clk, out[i].end_ns));
    }
    return n;
}

void sp_tl_own_source(sp_tl_own_t *own, sp_tl_source_t *src)
{
    src->arg = own;
    src->count = own_count;
    src->dropped = own_dropped;
    src->produce = own_produce;
}
