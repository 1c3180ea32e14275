/* The collective registry and the hook helpers shared by the collective files. */
#include "coll.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "coll_hooks.h"
#include "log.h"

#define SP__COLL_DECLARE(kind, name) extern const sp_coll_t sp_coll_##name;
SP_COLL_LIST(SP__COLL_DECLARE)
#undef SP__COLL_DECLARE

#define SP__COLL_ROW(kind, name) [SP_COLL_##kind] = &sp_coll_##name,
static const sp_coll_t *const coll_table[SP_COLL_COUNT] = {SP_COLL_LIST(SP__COLL_ROW)};
#undef SP__COLL_ROW

#define SP__COLL_NAME(kind, name) #name,
const char *const sp_coll_names[SP_COLL_COUNT] = {SP_COLL_LIST(SP__COLL_NAME)};
#undef SP__COLL_NAME

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

/* call_p's v is set (per peer) or unused */
static void call_build(const sp_coll_t *coll, const sp_coll_args_t *args, sp_comm_call_t *call_p)
{
    call_p->pattern = coll->pattern;
    call_p->dtype = args->dtype;
    call_p->redop = args->redop;
    call_p->root = args->root;
    call_p->in_place = args->in_place;
    call_p->count = args->counts.param_count;
    if (coll->describe_call != NULL) {
        coll->describe_call(args, call_p);
    }
}

sp_status_t sp_coll_call(const sp_coll_args_t *args, sp_comm_call_t *call_p)
{
    const sp_coll_t *coll = sp_coll_get(args->kind);

    if (coll == NULL || sp_comm_pattern_per_peer(coll->pattern)) {
        return SP_ERR_UNSUPPORTED;
    }
    memset(call_p, 0, sizeof(*call_p));
    call_build(coll, args, call_p);
    return SP_OK;
}

static sp_status_t op_build(sp_coll_op_t *op, const sp_coll_t *coll, const sp_coll_args_t *args)
{
    size_t n = (size_t)args->nranks;
    int per_peer = sp_comm_pattern_per_peer(coll->pattern);

    memset(op, 0, sizeof(*op));
    op->coll = coll;
    op->args = *args;
    op->spans = &op->one_span;
    if (per_peer) {
        op->vstore = calloc(4 * n, sizeof(*op->vstore));
        op->spans = calloc(n, sizeof(*op->spans));
        if (op->vstore == NULL || op->spans == NULL) {
            sp_error("cannot allocate the per-peer counts of %s on %zu ranks", coll->name, n);
            free(op->spans);
            free(op->vstore);
            return SP_ERR_NOMEM;
        }
        op->call.v.send_counts = op->vstore;
        op->call.v.send_displs = op->vstore + n;
        op->call.v.recv_counts = op->vstore + 2 * n;
        op->call.v.recv_displs = op->vstore + 3 * n;
    }
    call_build(coll, args, &op->call);
    sp_pattern_input(&op->input, coll->has_redop, args->redop, args->dtype, args->nranks,
                     args->rank);
    op->nspans = coll->has_output(args) ? coll->describe_output(args, op->spans) : 0;
    return SP_OK;
}

sp_status_t sp_coll_op_init(sp_coll_op_t *op, const sp_coll_args_t *args)
{
    return op_build(op, sp_coll_get(args->kind), args);
}

void sp_coll_op_cleanup(sp_coll_op_t *op)
{
    if (op->spans != &op->one_span) {
        free(op->spans);
    }
    free(op->vstore);
    memset(op, 0, sizeof(*op));
}

uint64_t sp_coll_check(const sp_coll_t *coll, const sp_coll_args_t *args, const void *output)
{
    sp_coll_op_t op;
    uint64_t wrong;

    if (op_build(&op, coll, args) != SP_OK) {
        return args->counts.recv_count;
    }
    wrong = sp_pattern_spans_check(op.spans, op.nspans, output);
    sp_coll_op_cleanup(&op);
    return wrong;
}

double sp_coll_expected(const sp_coll_t *coll, const sp_coll_args_t *args, size_t i)
{
    sp_coll_op_t op;
    double v = NAN;

    if (op_build(&op, coll, args) != SP_OK) {
        return NAN;
    }
    /* as if this rank had an output: the value it would hold there */
    if (op.nspans == 0) {
        op.nspans = coll->describe_output(args, op.spans);
    }
    for (size_t s = 0; s < op.nspans; s++) {
        const sp_pattern_span_t *sp = &op.spans[s];
        if (i >= sp->offset && i - sp->offset < sp->count) {
            v = sp_pattern_output_at(&sp->pattern, i - sp->offset);
            break;
        }
    }
    sp_coll_op_cleanup(&op);
    return v;
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

size_t sp__coll_span_all(const sp_coll_args_t *args, sp_pattern_span_t *span)
{
    span->offset = 0;
    span->count = args->counts.recv_count;
    return 1;
}

size_t sp__coll_output_gathered(const sp_coll_args_t *args, sp_pattern_span_t *spans)
{
    sp_pattern_output_data(&spans->pattern, args->dtype, args->nranks, 0,
                           args->counts.param_count, 0);
    return sp__coll_span_all(args, spans);
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

size_t sp__coll_output_red(const sp_coll_args_t *args, sp_pattern_span_t *spans)
{
    sp_pattern_output_red(&spans->pattern, args->redop, args->dtype, args->nranks, 0);
    return sp__coll_span_all(args, spans);
}
