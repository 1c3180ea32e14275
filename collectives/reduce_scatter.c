/* reduce_scatter: rank r receives block r of the reduction. busbw factor (n-1)/n. */
#include "coll_hooks.h"

static double reduce_scatter_expected(const sp_coll_args_t *args, size_t i)
{
    size_t g = (size_t)args->rank * args->counts.param_count + i;

    return sp_pattern_red_expected(args->redop, args->dtype, args->nranks, g);
}

const sp_coll_t sp_coll_reduce_scatter = {
    .name = "reduce_scatter",
    .kind = SP_COLL_REDUCE_SCATTER,
    .has_redop = 1,
    .has_root = 0,
    .get_counts = sp__coll_counts_scattered,
    .algbw_bytes = sp__coll_bytes_param_n,
    .busbw_factor = sp__coll_factor_nm1_n,
    .fill_input = sp__coll_fill_red,
    .has_output = sp__coll_output_everywhere,
    .expected = reduce_scatter_expected,
};
