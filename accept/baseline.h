/* Baselines of `scaleprobe accept`: `accept --make-baseline RUNS... -O FILE` pools the measured
 * values of good runs' /accept/checks per node type and check into medians and spreads (a JSON
 * file), and `accept --baseline FILE` turns a check's "baseline_pct" into a floor. */
#ifndef SP_ACCEPT_BASELINE_H
#define SP_ACCEPT_BASELINE_H

#include <stddef.h>

#include "spec.h"
#include "status.h"

/* The offline command: argv[1] is "accept", --make-baseline among the options. Returns the exit
 * code (0, 1 failure, 2 bad input). */
int sp_accept_make_baseline_main(int argc, char **argv);

/* Resolve every check with baseline_pct in spec against the baseline file at path (its median
 * into the check's baseline). SP_ERR_INVALID with "SPEC:LINE: ..." when a check has no entry,
 * or a message when the file is not a baseline; path "" leaves checks unresolved and refuses a
 * spec that needs one. */
sp_status_t sp_accept_baseline_apply(const char *path, sp_spec_t *spec, char *err, size_t errlen);

#endif
