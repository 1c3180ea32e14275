/* `scaleprobe coll`: the collective sweep as a workload of the shared runner. */
#include "coll_cmd.h"

#include "coll_options.h"
#include "runner.h"
#include "sweep.h"

static sp_status_t coll_parse(int argc, char **argv, int first, void *opts, int *help_p,
                              char *err, size_t errlen)
{
    return sp_coll_opts_parse(argc, argv, first, opts, help_p, err, errlen);
}

static sp_status_t coll_check_world(const void *opts, int nranks, char *err, size_t errlen)
{
    return sp_coll_opts_check_world(opts, nranks, err, errlen);
}

static char *coll_output(void *opts)
{
    return ((sp_coll_opts_t *)opts)->output;
}

static int coll_force(const void *opts)
{
    return ((const sp_coll_opts_t *)opts)->force;
}

static int coll_backend(const void *opts)
{
    return ((const sp_coll_opts_t *)opts)->backend;
}

static void coll_backend_config(const void *opts, sp_backend_config_t *cfg)
{
    const sp_coll_opts_t *o = opts;

    cfg->device = (int)o->device;
    cfg->timeout_s = o->timeout;
    cfg->cuda_graph = o->cuda_graph;
}

static void coll_timeline_config(const void *opts, size_t *events_p, int *clock_all_p,
                                 int *mpiio_p)
{
    const sp_coll_opts_t *o = opts;

    *events_p = (size_t)o->timeline_events;
    *clock_all_p = o->clock_sync;
    *mpiio_p = o->timeline_io;
}

static sp_status_t coll_run(sp_ctx_t *ctx, const void *opts)
{
    return sp_sweep_run(ctx, opts);
}

static const sp_workload_t coll_workload = {
    .name = "coll",
    .table = &sp_coll_opt_table,
    .opts_size = sizeof(sp_coll_opts_t),
    .parse = coll_parse,
    .check_world = coll_check_world,
    .output = coll_output,
    .force = coll_force,
    .backend = coll_backend,
    .backend_config = coll_backend_config,
    .timeline_config = coll_timeline_config,
    .run = coll_run,
};

int sp_coll_main(int argc, char **argv)
{
    return sp_runner_main(argc, argv, &coll_workload);
}
