/* /accept of the result file: every check's verdict with value, threshold and evidence, and
 * every node's health summary and verdict (docs/SCHEMA.md). Rank 0 only. */
#ifndef SP_ACCEPT_RESULT_H
#define SP_ACCEPT_RESULT_H

#include "health.h"
#include "result.h"
#include "spec.h"
#include "verdict.h"

/* Write /accept: attributes (spec, verdict, counts), /accept/checks, /accept/nodes. */
sp_status_t sp_accept_result_write(sp_result_t *res, const sp_spec_t *spec,
                                   const sp_health_node_t *nodes, const sp_accept_eval_t *ev);

#endif
