/* The performance gates of `scaleprobe accept`, run in this process on the job's backend: the
 * node workload (STREAM triad and GEMM per rank, with a short burn whose exact result checks
 * catch a wrong GEMM) and one all_reduce point of the collective sweep. Each attempt's node
 * measurements go to a result file of their own beside the output (OUTPUT.perfK.h5, readable
 * by `scaleprobe report`); a gate that fails is re-run up to the spec's repeats. */
#ifndef SP_ACCEPT_PERF_H
#define SP_ACCEPT_PERF_H

#include "accept_options.h"
#include "checks.h"
#include "context.h"

/* 1 when the spec names a performance gate. */
int sp_accept_perf_wanted(const sp_spec_t *spec);

/* Run the gates; perf (rank 0: nnodes entries) gets each node's best values. Collective over
 * ctx->world. */
sp_status_t sp_accept_perf_run(sp_ctx_t *ctx, const sp_accept_opts_t *o,
                               const sp_health_node_t *nodes, sp_perf_node_t *perf);

#endif
