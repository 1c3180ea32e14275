/* alltoall: block d of rank s's input lands as block s of rank d's output. busbw (n-1)/n. */
#include "coll_hooks.h"

static void alltoall_counts(size_t count, size_t elt_size, int nranks, sp_coll_counts_t *out_p)
{
    size_t param = sp_coll_per_rank_count(count, elt_size, nranks);

    out_p->send_count = out_p->recv_count = param * (size_t)nranks;
    out_p->param_count = param;
    out_p->send_inplace_offset = out_p->recv_inplace_offset = 0;
}

static size_t alltoall_output(const sp_coll_args_t *args, sp_pattern_span_t *spans)
{
    uint64_t param = args->counts.param_count;

    sp_pattern_output_data(&spans->pattern, args->dtype, args->nranks, 0, param,
                           (uint64_t)args->rank * param);
    return sp__coll_span_all(args, spans);
}

const sp_coll_t sp_coll_alltoall = {
    .name = "alltoall",
    .kind = SP_COLL_ALLTOALL,
    .pattern = SP_COMM_ALLTOALL,
    .has_redop = 0,
    .has_root = 0,
    .get_counts = alltoall_counts,
    .algbw_bytes = sp__coll_bytes_param_n,
    .busbw_factor = sp__coll_factor_nm1_n,
    .has_output = sp__coll_output_everywhere,
    .describe_output = alltoall_output,
};
