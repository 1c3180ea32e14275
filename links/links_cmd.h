/* `scaleprobe links`: the link matrix, its outliers, the screen and the exclude list, as a
 * workload of the shared runner (src/runtime/runner.h). */
#ifndef SP_LINKS_CMD_H
#define SP_LINKS_CMD_H

#include "context.h"
#include "links_options.h"

/* Process entry of the subcommand: returns the exit code (0 ok, 1 failure, 2 bad input).
 * Initializes and finalizes MPI. */
int sp_links_main(int argc, char **argv);

/* The measurements of one run; collective over ctx->world. */
sp_status_t sp_links_run(sp_ctx_t *ctx, const sp_links_opts_t *opts);

#endif
