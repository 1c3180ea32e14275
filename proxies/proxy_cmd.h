/* Entry point of `scaleprobe proxy`. */
#ifndef SP_PROXY_CMD_H
#define SP_PROXY_CMD_H

#include "context.h"
#include "proxy_options.h"

/* argv[1] is "proxy"; returns the process exit code. */
int sp_proxy_main(int argc, char **argv);

/* The measured steps of one run into ctx->result (/proxy), the table on stdout; ctx->timeline
 * is re-sized to the program (the caller cleans it up). The backend needs SP_LANE_COUNT
 * streams. opts passed sp_proxy_opts_check_world for ctx->nranks. Collective over ctx->world. */
sp_status_t sp_proxy_run(sp_ctx_t *ctx, const sp_proxy_opts_t *opts);

#endif
