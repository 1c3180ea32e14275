/* all_gather: rank r's block lands at offset r*base on every rank. busbw factor (n-1)/n. */
#include "coll_hooks.h"

static void all_gather_counts(size_t count, size_t elt_size, int nranks, sp_coll_counts_t *out_p)
{
    size_t base = sp_coll_per_rank_count(count, elt_size, nranks);

    out_p->send_count = base;
    out_p->recv_count = base * (size_t)nranks;
    out_p->param_count = base;
    out_p->send_inplace_offset = base;
    out_p->recv_inplace_offset = 0;
}

static double all_gather_expected(const sp_coll_args_t *args, size_t i)
{
    size_t base = args->counts.param_count;

    return sp_pattern_data((int)(i / base), i % base);
}

const sp_coll_t sp_coll_all_gather = {
    .name = "all_gather",
    .kind = SP_COLL_ALL_GATHER,
    .has_redop = 0,
    .has_root = 0,
    .get_counts = all_gather_counts,
    .algbw_bytes = sp__coll_bytes_param_n,
    .busbw_factor = sp__coll_factor_nm1_n,
    .fill_input = sp__coll_fill_own_data,
    .has_output = sp__coll_output_everywhere,
    .expected = all_gather_expected,
};
