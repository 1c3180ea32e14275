/* `scaleprobe links` as a workload of the shared runner: options, output, backend. */
#include "links_cmd.h"

#include <stddef.h>
#include <stdio.h>

#include "result.h"
#include "runner.h"

static sp_status_t links_parse(int argc, char **argv, int first, void *opts, int *help_p,
                               char *err, size_t errlen)
{
    return sp_links_opts_parse(argc, argv, first, opts, help_p, err, errlen);
}

static sp_status_t links_check_world(const void *opts, int nranks, char *err, size_t errlen)
{
    const sp_links_opts_t *o = opts;

    if (nranks < 2) {
        snprintf(err, errlen, "links measures between ranks: launch at least 2 (one per node)");
        return SP_ERR_INVALID;
    }
    /* per node, the unit count is known only once the node map is (sp_links_run checks it) */
    if (o->per == SP_LINKS_PER_RANK && o->mode != SP_LINKS_MODE_MATRIX && nranks < 4) {
        snprintf(err, errlen, "--mode %s: screening needs at least 4 units (%d here)",
                 sp_links_mode_names[o->mode], nranks);
        return SP_ERR_INVALID;
    }
    /* the exclude list is never overwritten without --force, and is checked before anything
     * is written */
    for (int i = 0; i < 2 && o->exclude[0] != '\0'; i++) {
        char path[SP_OPT_STRLEN + 8];
        sp_status_t status;
        snprintf(path, sizeof(path), "%s.%s", o->exclude, i == 0 ? "txt" : "json");
        status = sp_result_check_path(path, o->run.force);
        if (status != SP_OK) {
            snprintf(err, errlen, "--exclude: %.900s %s", path,
                     status == SP_ERR_EXISTS ? "exists (use --force to overwrite)"
                                             : "cannot be written there");
            return status == SP_ERR_EXISTS ? SP_ERR_EXISTS : SP_ERR_INVALID;
        }
    }
    return SP_OK;
}

/* --per rail needs the node map: at least 2 nodes, each with the same number of ranks (a rail
 * is local rank r of every node), and the matrix only (the screen bisects nodes). Rank 0 holds
 * the map and decides; the runner agrees the status before any file is written. */
static sp_status_t links_check_topology(const void *opts, const sp_topo_t *topo, MPI_Comm world,
                                        char *err, size_t errlen)
{
    const sp_links_opts_t *o = opts;
    const sp_topo_rank_t *r = topo->ranks;

    (void)world;
    if (o->per != SP_LINKS_PER_RAIL || topo->rank != 0) {
        return SP_OK;
    }
    if (o->mode != SP_LINKS_MODE_MATRIX) {
        snprintf(err, errlen, "--per rail --mode %s: the screen bisects nodes; use --per node "
                 "for it (--per rail measures the matrix only)", sp_links_mode_names[o->mode]);
        return SP_ERR_INVALID;
    }
    if (topo->nnodes < 2) {
        snprintf(err, errlen, "--per rail: %d node here; a rail's links run between nodes: "
                 "launch on at least 2, the same rank count on each", topo->nnodes);
        return SP_ERR_INVALID;
    }
    for (int i = 1; i < topo->nranks; i++) {
        if (r[i].local_size != r[0].local_size) {
            snprintf(err, errlen, "--per rail: the nodes hold different rank counts (%.64s: %d, "
                     "%.64s: %d); a rail is local rank r of every node, so every node needs the "
                     "same count (e.g. --ntasks-per-node)",
                     r[0].host, r[0].local_size, r[i].host, r[i].local_size);
            return SP_ERR_INVALID;
        }
    }
    return SP_OK;
}

static sp_status_t links_run(sp_ctx_t *ctx, const void *opts)
{
    return sp_links_run(ctx, opts);
}

static const sp_workload_t links_workload = {
    .name = "links",
    .table = &sp_links_opt_table,
    .opts_size = sizeof(sp_links_opts_t),
    .run_opts_offset = offsetof(sp_links_opts_t, run),
    .parse = links_parse,
    .check_world = links_check_world,
    .check_topology = links_check_topology,
    .extras = NULL, /* no timeline: a pair's samples are kept in /links/samples */
    .run = links_run,
};

int sp_links_main(int argc, char **argv)
{
    return sp_runner_main(argc, argv, &links_workload);
}
