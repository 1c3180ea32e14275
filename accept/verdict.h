/* Verdicts of `scaleprobe accept`: every node's checks evaluated against its node type's
 * thresholds, each node's overall verdict and the job's. Pure (no MPI, no I/O). */
#ifndef SP_ACCEPT_VERDICT_H
#define SP_ACCEPT_VERDICT_H

#include "checks.h"
#include "health.h"
#include "spec.h"
#include "status.h"

/* One check on one node. check is -1 for the row that says a node matches no node type. */
typedef struct {
    int node;
    char host[64];
    char type[32]; /* node type name, "-" when none matched */
    int check;     /* index into sp_check_defs; -1: node type */
    int line;      /* the check's line in the spec */
    sp_check_result_t res;
} sp_accept_row_t;

typedef struct {
    int nnodes;
    sp_accept_row_t *rows; /* owned; node order, then spec order */
    int nrows;
    sp_verdict_t *node_verdict; /* nnodes; owned */
    sp_verdict_t job;
    int counts[4]; /* rows per verdict */
} sp_accept_eval_t;

/* Evaluate nodes[0..nnodes) (perf: one per node, or NULL when no performance gate ran).
 * A node's verdict is its worst check (FAIL > WARN > PASS; a check that does not apply, N/A,
 * counts as none); the job's is the worst node's. SP_ERR_NOMEM only. */
sp_status_t sp_accept_evaluate(const sp_spec_t *spec, const sp_health_node_t *nodes,
                               const sp_perf_node_t *perf, int nnodes, sp_accept_eval_t *ev);

void sp_accept_eval_cleanup(sp_accept_eval_t *ev);

/* The name of a row's check ("node_type" for check -1). */
const char *sp_accept_row_check(const sp_accept_row_t *row);

#endif
