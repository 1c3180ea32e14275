/* all_gather: rank r's block lands at offset r*base on every rank. busbw factor (n-1)/n. */
#include "coll_hooks.h"

const sp_coll_t sp_coll_all_gather = {
    .name = "all_gather",
    .kind = SP_COLL_ALL_GATHER,
    .pattern = SP_COMM_ALLGATHER,
    .has_redop = 0,
    .has_root = 0,
    .get_counts = sp__coll_counts_gathered,
    .algbw_bytes = sp__coll_bytes_param_n,
    .busbw_factor = sp__coll_factor_nm1_n,
    .has_output = sp__coll_output_everywhere,
    .describe_output = sp__coll_output_gathered,
};
