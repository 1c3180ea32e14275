/* `scaleprobe node`: node baselines as a workload of the shared runner (src/runtime/runner.h). */
#ifndef SP_NODE_CMD_H
#define SP_NODE_CMD_H

#include "context.h"
#include "node_options.h"

/* Process entry of the subcommand: returns the exit code (0 ok, 1 failure or a wrong burn
 * result, 2 bad input). Initializes and finalizes MPI. */
int sp_node_main(int argc, char **argv);

/* The measurements, outliers and burn of one run; collective over ctx->world. Returns
 * SP_ERR_WRONG_DATA when a burn check found a wrong result (the file is still complete). */
sp_status_t sp_node_run(sp_ctx_t *ctx, const sp_node_opts_t *opts);

#endif
