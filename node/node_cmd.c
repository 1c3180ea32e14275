/* `scaleprobe node` as a workload of the shared runner: options, output, backend. */
#include "node_cmd.h"

#include <stddef.h>

#include "runner.h"

static sp_status_t node_parse(int argc, char **argv, int first, void *opts, int *help_p,
                              char *err, size_t errlen)
{
    return sp_node_opts_parse(argc, argv, first, opts, help_p, err, errlen);
}

static sp_status_t node_run(sp_ctx_t *ctx, const void *opts)
{
    return sp_node_run(ctx, opts);
}

static const sp_workload_t node_workload = {
    .name = "node",
    .table = &sp_node_opt_table,
    .opts_size = sizeof(sp_node_opts_t),
    .run_opts_offset = offsetof(sp_node_opts_t, run),
#ifndef SP_NODE_GPU
    /* a build without the GPU part (no cuBLAS) measures the host even on a GPU node */
    .auto_is_host = 1,
#endif
    .parse = node_parse,
    .check_world = NULL,
    .extras = NULL, /* no timeline: node's measurements are per rank, not collective instances */
    .run = node_run,
};

int sp_node_main(int argc, char **argv)
{
    return sp_runner_main(argc, argv, &node_workload);
}
