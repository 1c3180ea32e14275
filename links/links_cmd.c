/* `scaleprobe links` as a workload of the shared runner: options, output, backend. */
#include "links_cmd.h"

#include <stddef.h>
#include <stdio.h>

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
    (void)o;
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
    .extras = NULL, /* no timeline: a pair's samples are kept in /links/samples */
    .run = links_run,
};

int sp_links_main(int argc, char **argv)
{
    return sp_runner_main(argc, argv, &links_workload);
}
