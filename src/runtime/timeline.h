/* The per-rank timeline: every timed operation becomes an event in a preallocated buffer.
 * Recording allocates nothing, prints nothing and does no I/O; a full buffer counts what it had
 * to drop and says so, it never overwrites. Rank 0 gathers all timelines into /timeline/events
 * (aggregate.h). */
#ifndef SP_TIMELINE_H
#define SP_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

/* What an event is. Stored as an HDF5 enum; new kinds go at the end. */
typedef enum {
    SP_EV_COLL = 0,     /* one collective operation (sweep or proxy) */
    SP_EV_BATCH,        /* a batch of operations timed as one (device backends) */
    SP_EV_COMPUTE,      /* a compute op of a proxy */
    SP_EV_SEND,         /* point-to-point send of a proxy */
    SP_EV_RECV,
    SP_EV_FORWARD,      /* a proxy's forward compute of one microbatch on one chunk */
    SP_EV_BACKWARD,     /* its backward (input gradient) compute */
    SP_EV_WGRAD,        /* its weight-gradient compute (ZB-H1) */
    SP_EV_KIND_COUNT
} sp_ev_kind_t;

extern const char *const sp_ev_kind_names[SP_EV_KIND_COUNT];

/* One event. Times are nanoseconds: on the rank's own monotonic clock while recording, on rank
 * 0's clock (the clock model applied) once aggregated. -1 means "not applicable" for the
 * integer labels. */
typedef struct {
    int32_t rank;
    int16_t lane;        /* stream / thread of the rank that ran it */
    int16_t kind;        /* sp_ev_kind_t */
    int16_t op;          /* index into the workload's op names (the collectives' for coll and
                          * proxy: sp_result_info_t.event_ops) or -1 */
    int16_t dtype;       /* sp_dtype_t or -1 */
    int32_t step;
    int32_t microbatch;
    int32_t chunk;
    int32_t layer;
    int32_t bucket;
    int32_t peer;
    int32_t nops;        /* operations the event covers: a timed batch of k back-to-back
                          * operations of one collective is one event with nops = k */
    uint64_t bytes;      /* per operation */
    double flops;
    uint64_t seq;        /* collective sequence id of the (first) operation: the same on every
                          * rank for one instance */
    int64_t start_ns;
    int64_t end_ns;
} sp_event_rec_t;

typedef struct {
    sp_event_rec_t *events;  /* capacity entries, owned */
    size_t capacity;
    size_t count;
    uint64_t dropped;        /* events that did not fit */
    int rank;
} sp_timeline_t;

/* Allocate room for capacity events (0 is allowed: everything is dropped and counted). */
sp_status_t sp_timeline_init(sp_timeline_t *tl, int rank, size_t capacity);
void sp_timeline_cleanup(sp_timeline_t *tl); /* NULL is a no-op */

/* Forget the recorded events and the count of dropped ones (keeps the buffer). */
void sp_timeline_reset(sp_timeline_t *tl);

/* An event of this rank on lane 0, covering one operation, with every other label -1 and zero
 * sizes and times. (An sp_event_rec_t is a timeline record; sp_event_t is a backend's device
 * event.) */
void sp_event_init(sp_event_rec_t *ev, int rank, sp_ev_kind_t kind);

/* Record one event: a copy into the buffer, or a count of the dropped ones when full. */
static inline void sp_timeline_record(sp_timeline_t *tl, const sp_event_rec_t *ev)
{
    if (tl->count < tl->capacity) {
        tl->events[tl->count++] = *ev;
    } else {
        tl->dropped++;
    }
}

#endif
