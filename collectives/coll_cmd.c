/* `scaleprobe coll`: the collective sweep as a workload of the shared runner. */
#include "coll_cmd.h"

#include <stddef.h>

#include "coll_options.h"
#include "method.h"
#include "runner.h"
#include "sweep.h"
#include "sweep_split.h"
#include "coll.h"

static sp_status_t coll_parse(int argc, char **argv, int first, void *opts, int *help_p,
                              char *err, size_t errlen)
{
    return sp_coll_opts_parse(argc, argv, first, opts, help_p, err, errlen);
}

static sp_status_t coll_check_world(const void *opts, int nranks, char *err, size_t errlen)
{
    return sp_coll_opts_check_world(opts, nranks, err, errlen);
}

static sp_status_t coll_check_topology(const void *opts, const sp_topo_t *topo, MPI_Comm world,
                                       char *err, size_t errlen)
{
    return sp_sweep_split_check(opts, topo, world, err, errlen);
}

static void coll_extras(const void *opts, sp_run_extras_t *x)
{
    const sp_coll_opts_t *o = opts;

    x->cuda_graph = o->cuda_graph;
    x->blocking = (int)o->blocking;
    x->timeline_events = (size_t)o->timeline_events;
    x->clock_all = o->clock_sync;
    x->timeline_mpiio = o->timeline_io;
}

static sp_status_t coll_run(sp_ctx_t *ctx, const void *opts)
{
    return sp_sweep_run(ctx, opts);
}

static const sp_workload_t coll_workload = {
    .name = "coll",
    .table = &sp_coll_opt_table,
    .opts_size = sizeof(sp_coll_opts_t),
    .event_ops = sp_coll_names,
    .nevent_ops = SP_COLL_COUNT,
    .run_opts_offset = offsetof(sp_coll_opts_t, run),
    .thread_multiple_for = sp_issue_stream_asked, /* the host stream's thread calls MPI */
    .parse = coll_parse,
    .check_world = coll_check_world,
    .check_topology = coll_check_topology,
    .extras = coll_extras,
    .run = coll_run,
};

int sp_coll_main(int argc, char **argv)
{
    return sp_runner_main(argc, argv, &coll_workload);
}
