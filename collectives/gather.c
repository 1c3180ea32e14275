/* gather: rank r's block lands at offset r*base on the root. busbw factor (n-1)/n. */
#include "coll_hooks.h"

static void gather_counts(size_t count, size_t elt_size, int nranks, sp_coll_counts_t *out_p)
{
    size_t base = sp_coll_per_rank_count(count, elt_size, nranks);

    out_p->send_count = base;
    out_p->recv_count = base * (size_t)nranks;
    out_p->param_count = base;
    out_p->send_inplace_offset = base;
    out_p->recv_inplace_offset = 0;
}

static double gather_expected(const sp_coll_args_t *args, size_t i)
{
    size_t base = args->counts.param_count;

    return sp_pattern_data((int)(i / base), i % base);
}

const sp_coll_t sp_coll_gather = {
    .name = "gather",
    .kind = SP_COLL_GATHER,
    .has_redop = 0,
    .has_root = 1,
    .get_counts = gather_counts,
    .algbw_bytes = sp__coll_bytes_param_n,
    .busbw_factor = sp__coll_factor_nm1_n,
    .fill_input = sp__coll_fill_own_data,
    .has_output = sp__coll_output_at_root,
    .expected = gather_expected,
};
