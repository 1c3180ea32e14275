/* alltoallv: every rank sends a different amount to each peer (docs/METHODOLOGY.md). The flow
 * from rank r to rank p depends only on its distance k = (p - r) mod n, with weight k + 1: a rank
 * sends least to itself and most to its predecessor, and since the matrix is circulant every rank
 * sends and receives the same total, the requested size rounded as for alltoall. Flows are whole
 * 16-byte units; block p of the input goes to rank p, packed in rank order. busbw (n-1)/n. */
#include "coll_hooks.h"

/* Units of 16 bytes carried by the flows of distance < k (0 <= k <= n): floor(T * S(k) / W) with
 * S(k) = k(k+1)/2 and W = S(n), split so the products stay within 64 bits (exact while
 * W < 2^32, i.e. up to 92,680 ranks). */
static uint64_t units_below(uint64_t total_units, uint64_t n, uint64_t k)
{
    uint64_t w = n * (n + 1) / 2;
    uint64_t s = k * (k + 1) / 2;

    return total_units / w * s + total_units % w * s / w;
}

/* Elements of the flows of distances first .. first + len - 1 (mod n). */
static size_t flow_elems(const sp_coll_args_t *args, int first, int len)
{
    uint64_t n = (uint64_t)args->nranks;
    uint64_t align = 16 / sp_dtype_size(args->dtype);
    uint64_t total = args->counts.send_count / align;
    uint64_t a = (uint64_t)first;
    uint64_t b = a + (uint64_t)len;
    uint64_t units = b <= n ? units_below(total, n, b) - units_below(total, n, a)
                            : total - units_below(total, n, a) + units_below(total, n, b - n);

    return (size_t)(units * align);
}

/* Elements that rank src sends to rank dst. */
static size_t flow(const sp_coll_args_t *args, int src, int dst)
{
    return flow_elems(args, (dst - src + args->nranks) % args->nranks, 1);
}

/* Where rank src's block for rank dst starts in src's input: its flows to ranks 0 .. dst-1. */
static size_t send_displ(const sp_coll_args_t *args, int src, int dst)
{
    return dst == 0 ? 0 : flow_elems(args, (args->nranks - src) % args->nranks, dst);
}

static void alltoallv_counts(size_t count, size_t elt_size, int nranks, sp_coll_counts_t *out_p)
{
    size_t param = sp_coll_per_rank_count(count, elt_size, nranks);

    out_p->send_count = out_p->recv_count = param * (size_t)nranks;
    out_p->param_count = param; /* the mean flow, so algbw counts the bytes a rank sends */
    out_p->send_inplace_offset = out_p->recv_inplace_offset = 0;
}

static void alltoallv_call(const sp_coll_args_t *args, sp_comm_call_t *call_p)
{
    const sp_comm_vcounts_t *v = &call_p->v;
    size_t sent = 0;
    size_t received = 0;

    for (int p = 0; p < args->nranks; p++) {
        v->send_counts[p] = flow(args, args->rank, p);
        v->send_displs[p] = sent;
        sent += v->send_counts[p];
        v->recv_counts[p] = flow(args, p, args->rank);
        v->recv_displs[p] = received;
        received += v->recv_counts[p];
    }
}

/* Block s of the output holds rank s's input from where its block for this rank starts. */
static size_t alltoallv_output(const sp_coll_args_t *args, sp_pattern_span_t *spans)
{
    size_t offset = 0;

    for (int s = 0; s < args->nranks; s++) {
        sp_pattern_output_data(&spans[s].pattern, args->dtype, args->nranks, s, 0,
                               send_displ(args, s, args->rank));
        spans[s].offset = offset;
        spans[s].count = flow(args, s, args->rank);
        offset += spans[s].count;
    }
    return (size_t)args->nranks;
}

const sp_coll_t sp_coll_alltoallv = {
    .name = "alltoallv",
    .kind = SP_COLL_ALLTOALLV,
    .pattern = SP_COMM_ALLTOALLV,
    .has_redop = 0,
    .has_root = 0,
    .get_counts = alltoallv_counts,
    .algbw_bytes = sp__coll_bytes_param_n,
    .busbw_factor = sp__coll_factor_nm1_n,
    .has_output = sp__coll_output_everywhere,
    .describe_call = alltoallv_call,
    .describe_output = alltoallv_output,
};
