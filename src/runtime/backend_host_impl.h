/* Internal to the host backend (backend_host.c, backend_host_call.c): its state, streams and
 * the MPI calls both files use. Included by the host backend's files only. */
#ifndef SP_BACKEND_HOST_IMPL_H
#define SP_BACKEND_HOST_IMPL_H

#include "backend.h"
#include "host_gemm.h"
#include "host_stream.h"

/* The floating types MPI lacks (half, bfloat16, f8e4m3, f8e5m2) and their operators (sum, prod,
 * max, min: avg and premulsum reduce as sum). */
#define SP_HOST_SOFT_TYPES 4
#define SP_HOST_SOFT_OPS 4

/* This rank on one communicator (the backend's or a stream's), with scratch for MPI's int
 * per-peer arrays: each place is used by one thread at a time. */
typedef struct {
    int rank;
    int nranks;
    int *vint; /* 4 * nranks */
} host_place_t;

typedef struct {
    MPI_Comm comm;
    int rank;
    int nranks;
    host_place_t place;
    sp_host_sync_t sync;
    MPI_Op soft_ops[SP_HOST_SOFT_TYPES][SP_HOST_SOFT_OPS];
    sp_host_gemm_t *gemm; /* GEMM compute, after gemm_setup */
} host_state_t;

struct sp_event {
    sp_host_event_t he;
};

struct sp_stream {
    sp_host_stream_t *hs;
    const host_state_t *st;
    host_place_t place;
};

/* rc as an sp_status_t, logging MPI's message for what on failure. */
sp_status_t sp__host_mpi_check(int rc, const char *what);

/* Creates st->soft_ops (every entry MPI_OP_NULL on entry); on failure frees those created. */
sp_status_t sp__host_soft_ops_create(host_state_t *st);

/* Frees the soft operators that exist; safe on a partly created table. */
void sp__host_soft_ops_free(host_state_t *st);

/* One blocking call on comm: the backend's own, or a stream's (at: this rank's place on it). */
sp_status_t sp__host_call_on(const host_state_t *st, const host_place_t *at, MPI_Comm comm,
                             const sp_comm_call_t *call, const void *send, void *recv);

/* A stream's call (sp_host_coll_fn, ctx: the struct sp_stream): see backend_host_call.c. */
sp_status_t sp__host_coll_stream(void *ctx, MPI_Comm comm, const sp_comm_call_t *call,
                                 const void *send, void *recv);

#endif
