/* What `scaleprobe accept` writes: the terminal table, JSON, JUnit XML and the exclude list of
 * failed nodes. Rank 0 only, from the evaluated verdicts. */
#ifndef SP_ACCEPT_OUT_H
#define SP_ACCEPT_OUT_H

#include <stdio.h>

#include "spec.h"
#include "verdict.h"

/* The table: one line per check and node, each node's verdict, the job's. */
void sp_accept_print(FILE *out, const sp_spec_t *spec, const sp_accept_eval_t *ev);

/* The verdicts as one JSON object (spec, job verdict, nodes with their checks). */
void sp_accept_write_json(FILE *out, const sp_spec_t *spec, const sp_accept_eval_t *ev);

/* JUnit XML: a testsuite per node, a testcase per check; FAIL is a <failure>, N/A <skipped>,
 * WARN a passing case whose <system-out> says WARN. created: the run's UTC time. */
void sp_accept_write_junit(FILE *out, const sp_accept_eval_t *ev, const char *created);

/* Host names of the failed nodes, one a line. */
void sp_accept_write_exclude(FILE *out, const sp_accept_eval_t *ev);

#endif
