/* The backend ops table: one table per backend (host: MPI over host memory; nccl: NCCL over GPU
 * memory), designated initializers, every entry present. Everything above the backend is written
 * once against this table. */
#ifndef SP_BACKEND_H
#define SP_BACKEND_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "coll.h"
#include "status.h"

typedef enum { SP_BACKEND_AUTO = 0, SP_BACKEND_HOST, SP_BACKEND_NCCL, SP_BACKEND_COUNT } sp_backend_kind_t;

typedef struct sp_backend sp_backend_t;

/* An event marks a point in a backend's stream of operations; the elapsed time between two
 * recorded events is what a backend measures. Opaque; owned by the backend that created it. */
typedef struct sp_event sp_event_t;

typedef struct sp_backend_ops {
    const char *name;

    /* Collective over comm (the backend duplicates it). state_p receives the backend's state. */
    sp_status_t (*init)(MPI_Comm comm, void **state_p);
    void (*fini)(void *state);

    /* Buffers in the backend's memory (host memory or device memory). */
    sp_status_t (*mem_alloc)(void *state, size_t bytes, void **ptr_p);
    void (*mem_free)(void *state, void *ptr);

    /* Fill bytes with a poison pattern, so stale output is never mistaken for a result. */
    sp_status_t (*mem_poison)(void *state, void *ptr, size_t bytes);

    /* Write this rank's input for args at input (backend memory). */
    sp_status_t (*fill)(void *state, const sp_coll_t *coll, const sp_coll_args_t *args, void *input);

    /* Count output elements (backend memory) that differ from the expected values. */
    sp_status_t (*check)(void *state, const sp_coll_t *coll, const sp_coll_args_t *args,
                         const void *output, uint64_t *wrong_p);

    /* Start one collective. Out-of-place: send and recv are distinct buffers; in-place: recv is
     * the one buffer and send points into it (coll.h's in-place offsets). Collective over comm. */
    sp_status_t (*coll_run)(void *state, const sp_coll_args_t *args, const void *send,
                            void *recv);

    /* Events: create/destroy, record at the current point of the operation stream, elapsed
     * nanoseconds between two recorded events (waits for the later one to complete). */
    sp_status_t (*event_create)(void *state, sp_event_t **event_p);
    void (*event_destroy)(void *state, sp_event_t *event);
    sp_status_t (*event_record)(void *state, sp_event_t *event);
    sp_status_t (*event_elapsed_ns)(void *state, sp_event_t *start, sp_event_t *end,
                                    uint64_t *ns_p);

    /* Wait until every started operation has completed. */
    sp_status_t (*sync)(void *state);
} sp_backend_ops_t;

struct sp_backend {
    const sp_backend_ops_t *ops;
    void *state;
    sp_backend_kind_t kind;
};

extern const sp_backend_ops_t sp_backend_host_ops;

/* Names for --backend, indexed by sp_backend_kind_t. */
extern const char *const sp_backend_names[SP_BACKEND_COUNT];

/* Choose and initialize a backend. Collective over comm. AUTO picks nccl when every rank sees a
 * GPU and the build has it, else host; the choice is the same on every rank. */
sp_status_t sp_backend_open(sp_backend_kind_t requested, MPI_Comm comm, sp_backend_t *be_p);
void sp_backend_close(sp_backend_t *be);

#endif
