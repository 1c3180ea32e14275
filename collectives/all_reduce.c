/* all_reduce: every rank ends with the reduction of all inputs. busbw factor 2(n-1)/n. */
#include "coll_hooks.h"

static double all_reduce_factor(int nranks)
{
    return 2.0 * (double)(nranks - 1) / (double)nranks;
}

const sp_coll_t sp_coll_all_reduce = {
    .name = "all_reduce",
    .kind = SP_COLL_ALL_REDUCE,
    .pattern = SP_COMM_ALLREDUCE,
    .has_redop = 1,
    .has_root = 0,
    .get_counts = sp__coll_counts_whole,
    .algbw_bytes = sp__coll_bytes_param,
    .busbw_factor = all_reduce_factor,
    .has_output = sp__coll_output_everywhere,
    .describe_output = sp__coll_output_red,
};
