/* scatter: block d of the root's input lands on rank d. busbw factor (n-1)/n. */
#include "coll_hooks.h"

static size_t scatter_output(const sp_coll_args_t *args, sp_pattern_span_t *spans)
{
    sp_pattern_output_data(&spans->pattern, args->dtype, args->nranks, args->root, 0,
                           (uint64_t)args->rank * args->counts.param_count);
    return sp__coll_span_all(args, spans);
}

const sp_coll_t sp_coll_scatter = {
    .name = "scatter",
    .kind = SP_COLL_SCATTER,
    .pattern = SP_COMM_SCATTER,
    .has_redop = 0,
    .has_root = 1,
    .get_counts = sp__coll_counts_scattered,
    .algbw_bytes = sp__coll_bytes_param_n,
    .busbw_factor = sp__coll_factor_nm1_n,
    .has_output = sp__coll_output_everywhere,
    .describe_output = scatter_output,
};
