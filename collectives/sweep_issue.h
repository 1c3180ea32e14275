/* How the sweep issues its operations (--issue, method.h): blocking calls of the measuring
 * thread, or operations enqueued on a backend stream and waited for as the proxy's engine waits
 * for its lanes, so that a sweep prices collectives the way the proxy runs them. */
#ifndef SP_SWEEP_ISSUE_H
#define SP_SWEEP_ISSUE_H

#include <stdio.h>

#include "coll_options.h"
#include "sweep.h"

/* With --issue stream, the sweep's stream on the backend's communicator, created on first use
 * (collective over ctx->world and the backend's communicator; the ranks agree on the status).
 * Nothing with --issue blocking. */
sp_status_t sp__sweep_issue_open(sp_ctx_t *ctx, const sp_coll_opts_t *opts,
                                 sp_sweep_bufs_t *bufs);

/* sp__sweep_issue_open on group (ctx itself, or with --split the rank's group, whose buffers
 * bufs are) before the sweep's header; with a stream, the cross-stream wait it measured, the
 * largest over ctx's world, kept in bufs and written (/coll attributes stream_wait_ns,
 * stream_wait_p90_ns) by rank 0. Collective over ctx->world; the caller agrees on the status. */
sp_status_t sp__sweep_issue_begin(sp_ctx_t *ctx, sp_ctx_t *group, const sp_coll_opts_t *opts,
                                  sp_sweep_bufs_t *bufs);

/* The header line of that wait (nothing when not measured). */
void sp__sweep_issue_print(FILE *out, const sp_sweep_bufs_t *bufs);

/* Start one operation: coll_run, or enqueued on the stream. Collective like coll_run. */
sp_status_t sp__sweep_issue_run(sp_ctx_t *ctx, sp_sweep_bufs_t *bufs, const sp_comm_call_t *call,
                                const void *send);

/* A timed batch of k operations between bufs->ev_start and bufs->ev_end: coll_batch, or the two
 * records and k operations enqueued on the stream (the events are then the stream's times, as
 * the proxy's task intervals are). Does not wait. */
sp_status_t sp__sweep_issue_batch(sp_ctx_t *ctx, sp_sweep_bufs_t *bufs, const sp_comm_call_t *call,
                                  const void *send, long k);

/* Wait until everything started has completed: the backend's sync, or the stream's. */
sp_status_t sp__sweep_issue_sync(sp_ctx_t *ctx, sp_sweep_bufs_t *bufs);

/* Destroy the stream, if any (collective like its creation). */
void sp__sweep_issue_close(sp_ctx_t *ctx, sp_sweep_bufs_t *bufs);

#endif
