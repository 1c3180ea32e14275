/* The proxy's own prediction of its step, made before the first step runs: every stage's step
 * program simulated by predict_sim.c (the code `scaleprobe predict` runs) with compute at
 * --tflops and communication free. It bounds a run against --max-time (the guard) and is what
 * the measured step is compared with, part by part (docs/METHODOLOGY.md, "Where the step's time
 * goes"). Pure: no MPI, no I/O. */
#ifndef SP_PROXY_ESTIMATE_H
#define SP_PROXY_ESTIMATE_H

#include <stddef.h>

#include "program.h"
#include "proxy_options.h"
#include "proxy_result.h"
#include "status.h"

typedef struct {
    int p;
    double step_ms;             /* the predicted step, every stage the same */
    sp_proxy_rank_row_t *stage; /* p rows: each stage's metrics (stepmetrics.h), owned here */
} sp_proxy_estimate_t;

/* Simulate one step of the configuration cfg (any stage; the layout's tp and dp size the
 * groups). On success *est is the caller's (sp_proxy_estimate_free). SP_ERR_NOMEM, or the
 * simulation's status. */
sp_status_t sp_proxy_estimate(const sp_program_config_t *cfg, sp_proxy_estimate_t *est);
void sp_proxy_estimate_free(sp_proxy_estimate_t *est); /* zeroed: no-op */

/* Set row's pred_* fields from its stage's prediction. */
void sp_proxy_estimate_apply(const sp_proxy_estimate_t *est, sp_proxy_rank_row_t *row);

/* The guard: SP_ERR_INVALID, with the estimate and the options to change in err, when the
 * warm-up steps and the fewest measured steps (--steps, or --min-steps) take longer than
 * --max-time by the estimate. opts parsed and checked for this world. */
sp_status_t sp_proxy_guard(const sp_proxy_opts_t *opts, int nranks, char *err, size_t errlen);

#endif
