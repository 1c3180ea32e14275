/* The result files of the performance gates' runs: each run of a workload (node, links, proxy)
 * that accept starts writes a file of its own beside accept's output, OUTPUT.<kind><K>.h5,
 * readable by `scaleprobe report` and `compare`. */
#ifndef SP_ACCEPT_SCRATCH_H
#define SP_ACCEPT_SCRATCH_H

#include <stddef.h>

#include "accept_options.h"
#include "context.h"
#include "result.h"

/* Rank 0: create OUTPUT.<kind><attempt>.h5 (OUTPUT without its .h5) for one run of the
 * workload named subcommand, with the node map; its path into path. Refuses an existing file
 * without --force. A message on failure. Not collective. */
sp_status_t sp_accept_scratch_create(sp_ctx_t *ctx, const sp_accept_opts_t *o, const char *kind,
                                     const char *subcommand, int attempt, char *path, size_t len,
                                     sp_result_t **scratch_p);

#endif
