/* The communication patterns a backend implements, and one call of a pattern: the runtime's whole
 * vocabulary for moving data. Collectives (a layer up) translate each operation into a call; a
 * backend knows patterns, never collectives. Expected data are patterns of pattern.h. */
#ifndef SP_COMM_CALL_H
#define SP_COMM_CALL_H

#include <stddef.h>
#include <stdint.h>

#include "dtype.h"
#include "pattern.h"

/* count is in elements. In-place, `recv` is the one buffer and `send` points at the input inside
 * it (NCCL's convention): ALLGATHER and GATHER read rank r's block at recv + r * count,
 * REDUCE_SCATTER and SCATTER write rank r's block at recv + r * count; the others start at recv. */
typedef enum {
    SP_COMM_ALLREDUCE = 0,  /* count elements, the reduction everywhere */
    SP_COMM_ALLGATHER,      /* count from every rank, concatenated in rank order everywhere */
    SP_COMM_REDUCE_SCATTER, /* count * n reduced; rank r keeps block r of count */
    SP_COMM_BCAST,          /* count elements of root to everyone */
    SP_COMM_REDUCE,         /* count elements, the reduction at root */
    SP_COMM_ALLTOALL,       /* block p (count elements) of every rank to rank p */
    SP_COMM_ALLTOALLV,      /* per-peer counts and displacements (call.v) */
    SP_COMM_GATHER,         /* count from every rank, concatenated at root */
    SP_COMM_SCATTER,        /* block p (count elements) of root to rank p */
    SP_COMM_SENDRECV,       /* count to send_peer and count from recv_peer, at once */
    SP_COMM_PATTERN_COUNT
} sp_comm_pattern_t;

/* Per-peer element counts and displacements (from the start of the buffer) of ALLTOALLV, nranks
 * entries each: send_counts[p] elements at send + send_displs[p] go to rank p, recv_counts[p]
 * elements from rank p land at recv + recv_displs[p]. Storage belongs to whoever built the call
 * and must outlive its completion (on a stream: until stream_sync). */
typedef struct {
    size_t *send_counts;
    size_t *send_displs;
    size_t *recv_counts;
    size_t *recv_displs;
} sp_comm_vcounts_t;

/* A SENDRECV peer meaning "none": that half of the call is skipped, so a rank can only send
 * (recv_peer none) or only receive (send_peer none), as one direction of a link is timed. */
#define SP_COMM_NO_PEER (-1)

/* One call of a pattern on one rank of a communicator. */
typedef struct {
    sp_comm_pattern_t pattern;
    sp_dtype_t dtype;
    sp_redop_t redop; /* ALLREDUCE, REDUCE_SCATTER, REDUCE */
    int root;         /* BCAST, REDUCE, GATHER, SCATTER */
    int in_place;
    size_t count;        /* elements (per block for the block patterns); ALLTOALLV: see v */
    int send_peer;       /* SENDRECV; SP_COMM_NO_PEER: receive only */
    int recv_peer;       /* SENDRECV; SP_COMM_NO_PEER: send only */
    sp_comm_vcounts_t v; /* ALLTOALLV */
} sp_comm_call_t;

/* Expected contents of a part of an output buffer: elements [offset, offset + count) hold
 * elements 0..count-1 of pattern (an output pattern of pattern.h). */
typedef struct {
    sp_pattern_t pattern;
    size_t offset;
    size_t count;
} sp_pattern_span_t;

/* "allreduce", ...: for messages. NULL out of range. */
const char *sp_comm_pattern_name(sp_comm_pattern_t pattern);

/* 1 when the pattern's counts are per peer (call.v), so its output is one span per peer. */
int sp_comm_pattern_per_peer(sp_comm_pattern_t pattern);

/* Elements of output (host memory) that differ from the spans' expected values. */
uint64_t sp_pattern_spans_check(const sp_pattern_span_t *spans, size_t nspans, const void *output);

#endif
