/* sendrecv: a ring, rank r sends to r+1 and receives from r-1. busbw factor 1. */
#include "coll_hooks.h"

static void sendrecv_call(const sp_coll_args_t *args, sp_comm_call_t *call_p)
{
    call_p->send_peer = (args->rank + 1) % args->nranks;
    call_p->recv_peer = (args->rank - 1 + args->nranks) % args->nranks;
}

static size_t sendrecv_output(const sp_coll_args_t *args, sp_pattern_span_t *spans)
{
    sp_pattern_output_data(&spans->pattern, args->dtype, args->nranks,
                           (args->rank - 1 + args->nranks) % args->nranks, 0, 0);
    return sp__coll_span_all(args, spans);
}

const sp_coll_t sp_coll_sendrecv = {
    .name = "sendrecv",
    .kind = SP_COLL_SENDRECV,
    .pattern = SP_COMM_SENDRECV,
    .has_redop = 0,
    .has_root = 0,
    .get_counts = sp__coll_counts_whole,
    .algbw_bytes = sp__coll_bytes_param,
    .busbw_factor = sp__coll_factor_one,
    .has_output = sp__coll_output_everywhere,
    .describe_call = sendrecv_call,
    .describe_output = sendrecv_output,
};
