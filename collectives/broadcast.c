/* broadcast: the root's buffer reaches every rank. busbw factor 1. Out-of-place, the root sends
 * from its input buffer and has no output (as MPI_Bcast defines it). */
#include "coll_hooks.h"

static int broadcast_has_output(const sp_coll_args_t *args)
{
    return args->in_place || args->rank != args->root;
}

static size_t broadcast_output(const sp_coll_args_t *args, sp_pattern_span_t *spans)
{
    sp_pattern_output_data(&spans->pattern, args->dtype, args->nranks, args->root, 0, 0);
    return sp__coll_span_all(args, spans);
}

const sp_coll_t sp_coll_broadcast = {
    .name = "broadcast",
    .kind = SP_COLL_BROADCAST,
    .pattern = SP_COMM_BCAST,
    .has_redop = 0,
    .has_root = 1,
    .get_counts = sp__coll_counts_whole,
    .algbw_bytes = sp__coll_bytes_param,
    .busbw_factor = sp__coll_factor_one,
    .has_output = broadcast_has_output,
    .describe_output = broadcast_output,
};
