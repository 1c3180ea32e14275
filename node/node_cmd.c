/* `scaleprobe node` as a workload of the shared runner: options, output, backend. */
#include "node_cmd.h"

#include "runner.h"

static sp_status_t node_parse(int argc, char **argv, int first, void *opts, int *help_p,
                              char *err, size_t errlen)
{
    return sp_node_opts_parse(argc, argv, first, opts, help_p, err, errlen);
}

static char *node_output(void *opts)
{
    return ((sp_node_opts_t *)opts)->output;
}

static int node_force(const void *opts)
{
    return ((const sp_node_opts_t *)opts)->force;
}

static int node_backend(const void *opts)
{
    int b = ((const sp_node_opts_t *)opts)->backend;
#ifndef SP_NODE_GPU
    /* a build without the GPU part (no cuBLAS) measures the host even on a GPU node */
    if (b == SP_BACKEND_AUTO) {
        b = SP_BACKEND_HOST;
    }
#endif
    return b;
}

static void node_backend_config(const void *opts, sp_backend_config_t *cfg)
{
    const sp_node_opts_t *o = opts;

    cfg->device = (int)o->device;
    cfg->timeout_s = o->timeout;
    cfg->cuda_graph = 0;
}

/* node records no timeline: its measurements are per rank, not collective instances */
static void node_timeline_config(const void *opts, size_t *events_p, int *clock_all_p,
                                 int *mpiio_p)
{
    (void)opts;
    *events_p = 0;
    *clock_all_p = 0;
    *mpiio_p = 0;
}

static sp_status_t node_run(sp_ctx_t *ctx, const void *opts)
{
    return sp_node_run(ctx, opts);
}

static const sp_workload_t node_workload = {
    .name = "node",
    .table = &sp_node_opt_table,
    .opts_size = sizeof(sp_node_opts_t),
    .parse = node_parse,
    .check_world = NULL,
    .output = node_output,
    .force = node_force,
    .backend = node_backend,
    .backend_config = node_backend_config,
    .timeline_config = node_timeline_config,
    .run = node_run,
};

int sp_node_main(int argc, char **argv)
{
    return sp_runner_main(argc, argv, &node_workload);
}
