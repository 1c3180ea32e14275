/* The metrics of one rank's training step from its task program and the intervals its tasks
 * ran over: the definitions of docs/METHODOLOGY.md ("Training proxy"), shared by the proxy's
 * engine (measured intervals) and predict (simulated ones). Pure: no MPI, no I/O. */
#ifndef SP_STEPMETRICS_H
#define SP_STEPMETRICS_H

#include <stdint.h>

#include "intervals.h"
#include "program.h"
#include "proxy_result.h"

/* prog's task i ran over iv[i] (ns from the step's start); the step took step_ns (the end of the
 * last task of any rank). Fills every field of *r but its identity (step, rank, stage, dp, tp)
 * and predicted_frac: step and busy time, bubble and its phases, per lane class the length,
 * overlap with compute and exposed time, all communication exposed, compute slowdown under
 * communication, the time without compute split by cause (idle_ms, *_excl_ms; pred_* are left
 * as they are). *busy_ns_p (may be NULL) gets the exact busy time. scratch: room for
 * 3 (prog->n + 1) intervals. */
void sp_step_metrics(const sp_program_t *prog, const sp_interval_t *iv, int64_t step_ns,
                     sp_interval_t *scratch, sp_proxy_rank_row_t *r, int64_t *busy_ns_p);

/* The span of each schedule op of prog (first start to last end of its compute tasks), summed
 * by op type (F, B, W) into sums[type] with counts[type]. span: room for prog->n_sched_ops. */
void sp_step_op_spans(const sp_program_t *prog, const sp_interval_t *iv, sp_interval_t *span,
                      double sums[3], double counts[3]);

#endif
