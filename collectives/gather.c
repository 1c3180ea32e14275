/* gather: rank r's block lands at offset r*base on the root. busbw factor (n-1)/n. */
#include "coll_hooks.h"

const sp_coll_t sp_coll_gather = {
    .name = "gather",
    .kind = SP_COLL_GATHER,
    .pattern = SP_COMM_GATHER,
    .has_redop = 0,
    .has_root = 1,
    .get_counts = sp__coll_counts_gathered,
    .algbw_bytes = sp__coll_bytes_param_n,
    .busbw_factor = sp__coll_factor_nm1_n,
    .has_output = sp__coll_output_at_root,
    .describe_output = sp__coll_output_gathered,
};
