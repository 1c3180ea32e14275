/* What a sweep shows while it runs, beyond the table: nccl-tests' parameter header and device
 * list, the progress line (progress.h), and -J's JSON file in nccl-tests' field names. */
#ifndef SP_SWEEP_LIVE_H
#define SP_SWEEP_LIVE_H

#include <stdio.h>

#include "coll_options.h"
#include "coll_table.h"
#include "context.h"
#include "progress.h"

typedef struct {
    sp_progress_t progress;
    FILE *json; /* rank 0 with -J, written to json_part until the end */
    char json_part[SP_OPT_STRLEN + 8];
    const char *json_path;
    long json_rows;
} sp_sweep_live_t;

/* Collective over ctx->world (gathers every rank's pid). Rank 0 prints the parameter header
 * and the device list, and with -J opens the JSON file (as FILE.part). npoints: the points of
 * the whole run, for the progress line. */
sp_status_t sp_sweep_live_begin(sp_sweep_live_t *lv, sp_ctx_t *ctx, const sp_coll_opts_t *opts,
                                size_t npoints);

/* Rank 0: one table line's JSON entry (either row may be NULL). */
void sp_sweep_live_row(sp_sweep_live_t *lv, const char *coll_name, long cycle,
                       const sp_coll_row_t *out_row, const sp_coll_row_t *in_row);

/* Rank 0: the JSON's footer; on SP_OK (or wrong data) the file is renamed into place, else
 * the part file is removed. Returns status, or the JSON's write failure. */
sp_status_t sp_sweep_live_end(sp_sweep_live_t *lv, const sp_coll_totals_t *t, sp_status_t status);

#endif
