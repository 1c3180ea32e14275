/* The files of the performance gates' runs beside accept's output. */
#include "scratch.h"

#include <stdio.h>
#include <string.h>

sp_status_t sp_accept_scratch_create(sp_ctx_t *ctx, const sp_accept_opts_t *o, const char *kind,
                                  const char *subcommand, int attempt, char *path, size_t len,
                                  sp_result_t **scratch_p)
{
    const sp_result_info_t info = {.command_line = ctx->command_line,
                                   .subcommand = subcommand,
                                   .backend = ctx->backend.ops->name,
                                   .world_size = ctx->nranks,
                                   .node_count = ctx->topo.nnodes};
    const char *out = sp_result_path(ctx->result);
    size_t n = strlen(out);
    sp_status_t status;

    n = n > 3 && strcmp(out + n - 3, ".h5") == 0 ? n - 3 : n;
    snprintf(path, len, "%.*s.%s%d.h5", (int)n, out, kind, attempt);
    status = sp_result_create(path, o->run.force, &info, scratch_p);
    if (status == SP_OK) {
        /* the node map too, so the readers (report, compare) take the file */
        status = sp_result_write_topology(*scratch_p, &ctx->topo);
    }
    if (status != SP_OK) {
        fprintf(stderr, "scaleprobe accept: error: cannot create %s: %s\n", path,
                sp_status_str(status));
    }
    return status;
}
