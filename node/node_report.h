/* The node section of `scaleprobe report`, from /node read back (node_result.h): the per-rank
 * baselines, the outliers and the burn with any wrong result. */
#ifndef SP_NODE_REPORT_H
#define SP_NODE_REPORT_H

#include <stdio.h>

#include "node_result.h"
#include "topo.h"

/* Print the node section of a file's report to out. ranks (world_size rows of /topology/ranks,
 * may be NULL) names the hosts of the burn's ranks. */
void sp_node_report_print(const sp_node_result_data_t *nd, const sp_topo_rank_t *ranks,
                          int world_size, FILE *out);

#endif
