/* Chunks of /timeline/events compressed by their owner before rank 0 asks for them.
 *
 * Every process knows every virtual rank's event count (one MPI_Allreduce at the start of
 * sp_aggregate), so an owner knows where the table's chunk boundaries fall in its own events.
 * While it waits for rank 0's next request it compresses its vranks' interior whole chunks (those
 * that hold only its own events) in the order rank 0 will ask for them, holding at most
 * SP_TL_AHEAD_CHUNKS of them. The answer to a request takes a chunk from here when it has it
 * and compresses it then otherwise, so a miss (or a failure here) only costs time. */
#ifndef SP_AGGREGATE_AHEAD_H
#define SP_AGGREGATE_AHEAD_H

#include <stddef.h>
#include <stdint.h>

#include "aggregate.h"

#define SP_TL_AHEAD_CHUNKS 16

typedef struct sp_tl_ahead sp_tl_ahead_t;

/* The chunks ahead of the vranks v < nvranks with v % nprocs == rank, whose counts (every
 * vrank's, in order) place the chunk boundaries. NULL when there is none to make or no memory. */
sp_tl_ahead_t *sp_tl_ahead_new(const sp_tl_source_t *src, const uint64_t *counts, int nvranks,
                               int rank, int nprocs);

/* Compress the next chunk if one is left and a slot is free: 1 when it did, else 0. */
int sp_tl_ahead_step(sp_tl_ahead_t *a);

/* The chunk of SP_TL_CHUNK_EVENTS events of vrank from its event `from`, if made ahead: copied
 * to out (cap bytes) and its size returned, else 0. Chunks before it are dropped, and none
 * up to it will be made any more. */
size_t sp_tl_ahead_take(sp_tl_ahead_t *a, int64_t vrank, uint64_t from, unsigned char *out,
                        size_t cap);

/* Chunks sp_tl_ahead_take found made ahead so far (0 for NULL). */
uint64_t sp_tl_ahead_taken(const sp_tl_ahead_t *a);

void sp_tl_ahead_free(sp_tl_ahead_t *a);

#endif
