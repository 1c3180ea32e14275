/* Names and host-memory helpers of the communication patterns (comm_call.h). */
#include "comm_call.h"

static const char *const pattern_names[SP_COMM_PATTERN_COUNT] = {
    [SP_COMM_ALLREDUCE] = "allreduce",
    [SP_COMM_ALLGATHER] = "allgather",
    [SP_COMM_REDUCE_SCATTER] = "reduce_scatter",
    [SP_COMM_BCAST] = "bcast",
    [SP_COMM_REDUCE] = "reduce",
    [SP_COMM_ALLTOALL] = "alltoall",
    [SP_COMM_ALLTOALLV] = "alltoallv",
    [SP_COMM_GATHER] = "gather",
    [SP_COMM_SCATTER] = "scatter",
    [SP_COMM_SENDRECV] = "sendrecv",
};

const char *sp_comm_pattern_name(sp_comm_pattern_t pattern)
{
    return (unsigned)pattern < SP_COMM_PATTERN_COUNT ? pattern_names[pattern] : NULL;
}

int sp_comm_pattern_per_peer(sp_comm_pattern_t pattern)
{
    return pattern == SP_COMM_ALLTOALLV;
}

uint64_t sp_pattern_spans_check(const sp_pattern_span_t *spans, size_t nspans, const void *output)
{
    uint64_t wrong = 0;

    for (size_t i = 0; i < nspans; i++) {
        const char *at = (const char *)output +
                         spans[i].offset * sp_dtype_size((sp_dtype_t)spans[i].pattern.dtype);
        wrong += sp_pattern_check(&spans[i].pattern, at, spans[i].count);
    }
    return wrong;
}
