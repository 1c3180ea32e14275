/* sendrecv: a ring, rank r sends to r+1 and receives from r-1. busbw factor 1. */
#include "coll_hooks.h"

static void sendrecv_output(const sp_coll_args_t *args, sp_pattern_t *out_p)
{
    sp_pattern_output_data(out_p, args->dtype, args->nranks,
                           (args->rank - 1 + args->nranks) % args->nranks, 0, 0);
}

const sp_coll_t sp_coll_sendrecv = {
    .name = "sendrecv",
    .kind = SP_COLL_SENDRECV,
    .has_redop = 0,
    .has_root = 0,
    .get_counts = sp__coll_counts_whole,
    .algbw_bytes = sp__coll_bytes_param,
    .busbw_factor = sp__coll_factor_one,
    .has_output = sp__coll_output_everywhere,
    .describe_output = sendrecv_output,
};
