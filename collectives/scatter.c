/* scatter: block d of the root's input lands on rank d. busbw factor (n-1)/n. */
#include "coll_hooks.h"

static double scatter_expected(const sp_coll_args_t *args, size_t i)
{
    return sp_pattern_data(args->root, (size_t)args->rank * args->counts.param_count + i);
}

const sp_coll_t sp_coll_scatter = {
    .name = "scatter",
    .kind = SP_COLL_SCATTER,
    .has_redop = 0,
    .has_root = 1,
    .get_counts = sp__coll_counts_scattered,
    .algbw_bytes = sp__coll_bytes_param_n,
    .busbw_factor = sp__coll_factor_nm1_n,
    .fill_input = sp__coll_fill_own_data,
    .has_output = sp__coll_output_everywhere,
    .expected = scatter_expected,
};
