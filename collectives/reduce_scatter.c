/* reduce_scatter: rank r receives block r of the reduction. busbw factor (n-1)/n. */
#include "coll_hooks.h"

static size_t reduce_scatter_output(const sp_coll_args_t *args, sp_pattern_span_t *spans)
{
    sp_pattern_output_red(&spans->pattern, args->redop, args->dtype, args->nranks,
                          (uint64_t)args->rank * args->counts.param_count);
    return sp__coll_span_all(args, spans);
}

const sp_coll_t sp_coll_reduce_scatter = {
    .name = "reduce_scatter",
    .kind = SP_COLL_REDUCE_SCATTER,
    .pattern = SP_COMM_REDUCE_SCATTER,
    .has_redop = 1,
    .has_root = 0,
    .get_counts = sp__coll_counts_scattered,
    .algbw_bytes = sp__coll_bytes_param_n,
    .busbw_factor = sp__coll_factor_nm1_n,
    .has_output = sp__coll_output_everywhere,
    .describe_output = reduce_scatter_output,
};
