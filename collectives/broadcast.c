/* broadcast: the root's buffer reaches every rank. busbw factor 1. Out-of-place, the root sends
 * from its input buffer and has no output (as MPI_Bcast defines it). */
#include "coll_hooks.h"

static int broadcast_has_output(const sp_coll_args_t *args)
{
    return args->in_place || args->rank != args->root;
}

static double broadcast_expected(const sp_coll_args_t *args, size_t i)
{
    return sp_pattern_data(args->root, i);
}

const sp_coll_t sp_coll_broadcast = {
    .name = "broadcast",
    .kind = SP_COLL_BROADCAST,
    .has_redop = 0,
    .has_root = 1,
    .get_counts = sp__coll_counts_whole,
    .algbw_bytes = sp__coll_bytes_param,
    .busbw_factor = sp__coll_factor_one,
    .fill_input = sp__coll_fill_own_data,
    .has_output = broadcast_has_output,
    .expected = broadcast_expected,
};
