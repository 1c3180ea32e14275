/* sendrecv: a ring, rank r sends to r+1 and receives from r-1. busbw factor 1. */
#include "coll_hooks.h"

static double sendrecv_expected(const sp_coll_args_t *args, size_t i)
{
    return sp_pattern_data((args->rank - 1 + args->nranks) % args->nranks, i);
}

const sp_coll_t sp_coll_sendrecv = {
    .name = "sendrecv",
    .kind = SP_COLL_SENDRECV,
    .has_redop = 0,
    .has_root = 0,
    .get_counts = sp__coll_counts_whole,
    .algbw_bytes = sp__coll_bytes_param,
    .busbw_factor = sp__coll_factor_one,
    .fill_input = sp__coll_fill_own_data,
    .has_output = sp__coll_output_everywhere,
    .expected = sendrecv_expected,
};
