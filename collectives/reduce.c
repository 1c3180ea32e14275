/* reduce: the root receives the reduction of all inputs. busbw factor 1. */
#include "coll_hooks.h"

const sp_coll_t sp_coll_reduce = {
    .name = "reduce",
    .kind = SP_COLL_REDUCE,
    .pattern = SP_COMM_REDUCE,
    .has_redop = 1,
    .has_root = 1,
    .get_counts = sp__coll_counts_whole,
    .algbw_bytes = sp__coll_bytes_param,
    .busbw_factor = sp__coll_factor_one,
    .has_output = sp__coll_output_at_root,
    .describe_output = sp__coll_output_red,
};
