/* The collective registry and the hook helpers shared by the collective files. */
#include "coll.h"

#include <math.h>
#include <string.h>

#include "coll_hooks.h"

extern const sp_coll_t sp_coll_all_reduce, sp_coll_all_gather, sp_coll_reduce_scatter,
    sp_coll_broadcast, sp_coll_reduce, sp_coll_alltoall, sp_coll_sendrecv, sp_coll_gather,
    sp_coll_scatter;

static const sp_coll_t *const coll_table[SP_COLL_COUNT] = {
    [SP_COLL_ALL_REDUCE] = &sp_coll_all_reduce,
    [SP_COLL_ALL_GATHER] = &sp_coll_all_gather,
    [SP_COLL_REDUCE_SCATTER] = &sp_coll_reduce_scatter,
    [SP_COLL_BROADCAST] = &sp_coll_broadcast,
    [SP_COLL_REDUCE] = &sp_coll_reduce,
    [SP_COLL_ALLTOALL] = &sp_coll_alltoall,
    [SP_COLL_SENDRECV] = &sp_coll_sendrecv,
    [SP_COLL_GATHER] = &sp_coll_gather,
    [SP_COLL_SCATTER] = &sp_coll_scatter,
};

const char *const sp_coll_names[SP_COLL_COUNT] = {
    "all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce",
    "alltoall",   "sendrecv",   "gather",         "scatter",
};

const sp_coll_t *sp_coll_get(sp_coll_kind_t kind)
{
    return (unsigned)kind < SP_COLL_COUNT ? coll_table[kind] : NULL;
}

size_t sp_coll_per_rank_count(size_t count, size_t elt_size, int nranks)
{
    size_t align = 16 / elt_size; /* elements per 16 bytes */

    return (count / (size_t)nranks) & ~(align - 1);
}

void sp_coll_bandwidth(const sp_coll_t *coll, const sp_coll_args_t *args, double time_us,
                       double *algbw_p, double *busbw_p)
{
    double algbw = time_us > 0.0 ? coll->algbw_bytes(args) / 1.0e9 / (time_us * 1.0e-6) : NAN;

    *algbw_p = algbw;
    *busbw_p = args->nranks > 1 ? algbw * coll->busbw_factor(args->nranks) : NAN;
}

uint64_t sp_coll_size_bytes(const sp_coll_args_t *args)
{
    size_t n = args->counts.send_count > args->counts.recv_count ? args->counts.send_count
                                                                 : args->counts.recv_count;

    return (uint64_t)n * sp_dtype_size(args->dtype);
}

void sp_coll_patterns(const sp_coll_t *coll, const sp_coll_args_t *args, sp_pattern_t *in_p,
                      sp_pattern_t *out_p)
{
    sp_pattern_input(in_p, coll->has_redop, args->redop, args->dtype, args->nranks, args->rank);
    coll->describe_output(args, out_p);
}

uint64_t sp_coll_check(const sp_coll_t *coll, const sp_coll_args_t *args, const void *output)
{
    sp_pattern_t out;

    if (!coll->has_output(args)) {
        return 0;
    }
    coll->describe_output(args, &out);
    return sp_pattern_check(&out, output, args->counts.recv_count);
}

double sp_coll_expected(const sp_coll_t *coll, const sp_coll_args_t *args, size_t i)
{
    sp_pattern_t out;

    coll->describe_output(args, &out);
    return sp_pattern_output_at(&out, i);
}

void sp_coll_args_init(sp_coll_args_t *args, sp_coll_kind_t kind, int rank, int nranks,
                       sp_dtype_t dtype, sp_redop_t redop, int root, int in_place, uint64_t bytes)
{
    size_t esize = sp_dtype_size(dtype);

    memset(args, 0, sizeof(*args));
    args->kind = kind;
    args->rank = rank;
    args->nranks = nranks;
    args->dtype = dtype;
    args->redop = redop;
    args->root = root;
    args->in_place = in_place;
    sp_coll_get(kind)->get_counts((size_t)(bytes / esize), esize, nranks, &args->counts);
}

void sp_coll_fill(const sp_coll_t *coll, const sp_coll_args_t *args, void *input)
{
    sp_pattern_t in;

    sp_pattern_input(&in, coll->has_redop, args->redop, args->dtype, args->nranks, args->rank);
    sp_pattern_fill(&in, input, args->counts.send_count);
}

/* ---- hook helpers used by the collective files ---- */

double sp__coll_factor_one(int nranks)
{
    (void)nranks;
    return 1.0;
}

double sp__coll_factor_nm1_n(int nranks)
{
    return (double)(nranks - 1) / (double)nranks;
}

double sp__coll_bytes_param(const sp_coll_args_t *args)
{
    return (double)args->counts.param_count * (double)sp_dtype_size(args->dtype);
}

double sp__coll_bytes_param_n(const sp_coll_args_t *args)
{
    return sp__coll_bytes_param(args) * (double)args->nranks;
}

int sp__coll_output_everywhere(const sp_coll_args_t *args)
{
    (void)args;
    return 1;
}

int sp__coll_output_at_root(const sp_coll_args_t *args)
{
    return args->rank == args->root;
}

void sp__coll_counts_whole(size_t count, size_t elt_size, int nranks, sp_coll_counts_t *out_p)
{
    (void)elt_size;
    (void)nranks;
    out_p->send_count = out_p->recv_count = out_p->param_count = count;
    out_p->send_inplace_offset = out_p->recv_inplace_offset = 0;
}

void sp__coll_counts_gathered(size_t count, size_t elt_size, int nranks, sp_coll_counts_t *out_p)
{
    size_t base = sp_coll_per_rank_count(count, elt_size, nranks);

    out_p->send_count = base;
    out_p->recv_count = base * (size_t)nranks;
    out_p->param_count = base;
    out_p->send_inplace_offset = base;
    out_p->recv_inplace_offset = 0;
}

void sp__coll_output_gathered(const sp_coll_args_t *args, sp_pattern_t *out_p)
{
    sp_pattern_output_data(out_p, args->dtype, args->nranks, 0, args->counts.param_count, 0);
}

void sp__coll_counts_scattered(size_t count, size_t elt_size, int nranks, sp_coll_counts_t *out_p)
{
    size_t base = sp_coll_per_rank_count(count, elt_size, nranks);

    out_p->send_count = base * (size_t)nranks;
    out_p->recv_count = base;
    out_p->param_count = base;
    out_p->send_inplace_offset = 0;
    out_p->recv_inplace_offset = base;
}

void sp__coll_output_red(const sp_coll_args_t *args, sp_pattern_t *out_p)
{
    sp_pattern_output_red(out_p, args->redop, args->dtype, args->nranks, 0);
}
