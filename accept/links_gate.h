/* The links gate of `scaleprobe accept`, offline half: a link matrix read back from the file
 * the `links` workload wrote (links_result.h) turned into each node's values for the
 * links_matrix check, with the links verdict (links_report.h's sp_links_analyze) at the gate's
 * threshold. Pure (no MPI); the run itself is in perf.c. */
#ifndef SP_ACCEPT_LINKS_GATE_H
#define SP_ACCEPT_LINKS_GATE_H

#include "checks.h"
#include "links_result.h"

/*
 * Fold one attempt's matrix d into cur[0..nnodes): per node the median bandwidth of every
 * measured direction of its units' links, its ratio to the cohort, its slowest link, and
 * whether the verdict at threshold (a fraction below the cohort, as `links --threshold`) names
 * it a slow node or one end of a slow link; evidence names the attempt and source (the file).
 * A node keeps its better attempt (not named slow first, then the higher median). A node
 * without a measured link is left as it was. SP_ERR_NOMEM, SP_ERR_INVALID (a matrix of fewer
 * than 2 units).
 */
sp_status_t sp_accept_links_fold(const sp_links_result_data_t *d, int nnodes, double threshold,
                                 int attempt, const char *source, sp_perf_node_t *cur);

#endif
