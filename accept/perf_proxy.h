/* The proxy step gate of `scaleprobe accept`: the proxy (the code `scaleprobe proxy` runs) with
 * the spec's options, several runs per attempt on files of their own (OUTPUT.proxyK-R.h5), each
 * run's median step time, judged against the proxy runs of a baseline with compare's
 * minimum-effect test over runs (abstats.h: sp_ab_min_effect, sp_ab_verdicts). */
#ifndef SP_ACCEPT_PERF_PROXY_H
#define SP_ACCEPT_PERF_PROXY_H

#include <stddef.h>

#include "accept_options.h"
#include "checks.h"
#include "context.h"
#include "reader.h"

#define SP_PROXY_GATE_RUNS 3 /* runs per attempt unless the spec says "runs" */

/* The spec's proxy_step check (the last one: one proxy per job), NULL when it has none. */
const sp_spec_check_t *sp__accept_proxy_check(const sp_spec_t *spec);

/* The proxy's layout checks for a world of nranks (bad input: SP_ERR_INVALID, message). */
sp_status_t sp__accept_proxy_check_world(const sp_spec_t *spec, int nranks, char *err,
                                         size_t errlen);

/* A proxy file's workload (model, layout, schedule, sizes, world) as one line into buf, and
 * its run's median step time in ms (the median over steps of the per-step mean over ranks, the
 * value compare takes for a run) into *ms_p. SP_ERR_FORMAT for a file that is no measured
 * proxy run (no /proxy, a prediction, fewer than one step). */
sp_status_t sp__accept_proxy_summary(const sp_reader_t *rd, char *buf, size_t len, double *ms_p);

/* One attempt of the gate: the runs, their medians into every node's perf (rank 0) when the
 * attempt judges better than the one kept. Collective over ctx->world. */
sp_status_t sp__accept_proxy_attempt(sp_ctx_t *ctx, const sp_accept_opts_t *o, int attempt,
                                     sp_perf_node_t *cur);

#endif
