/* The --method names and the counts each method runs per point (method.h); the peers' own
 * arithmetic is in method_nccltests.c and method_osu.c. */
#include "method.h"

const char *const sp_method_names[SP_METHOD_COUNT] = {
    [SP_METHOD_DEFAULT] = "default",
    [SP_METHOD_NCCL_TESTS] = "nccl-tests",
    [SP_METHOD_OSU] = "osu",
};

long sp_method_iters(const sp_coll_opts_t *opts, uint64_t bytes)
{
    if (opts->iters > 0) {
        return opts->iters;
    }
    switch (opts->method) {
    case SP_METHOD_NCCL_TESTS:
        return SP_NCCLTESTS_ITERS;
    case SP_METHOD_OSU:
        return bytes > SP_OSU_LARGE_BYTES ? SP_OSU_ITERS_LARGE : SP_OSU_ITERS;
    default:
        return 0;
    }
}

long sp_method_warmup(const sp_coll_opts_t *opts, uint64_t bytes)
{
    if (opts->warmup >= 0) {
        return opts->warmup;
    }
    /* only --method osu without -w leaves it negative (coll_options.c) */
    return bytes > SP_OSU_LARGE_BYTES ? SP_OSU_SKIP_LARGE : SP_OSU_SKIP;
}

size_t sp_method_max_samples(const sp_coll_opts_t *opts)
{
    switch (opts->method) {
    case SP_METHOD_NCCL_TESTS:
        return 1;
    case SP_METHOD_OSU:
        return (size_t)(opts->iters > 0 ? opts->iters : SP_OSU_ITERS);
    default:
        return (size_t)(opts->iters > 0 ? opts->iters : opts->max_samples);
    }
}
