/* The --method names and the counts each method runs per point (method.h); the peers' own
 * arithmetic is in method_nccltests.c and method_osu.c. */
#include "method.h"

#include <string.h>

const char *const sp_method_names[SP_METHOD_COUNT] = {
    [SP_METHOD_DEFAULT] = "default",
    [SP_METHOD_NCCL_TESTS] = "nccl-tests",
    [SP_METHOD_OSU] = "osu",
};

const char *const sp_issue_names[SP_ISSUE_COUNT] = {
    [SP_ISSUE_BLOCKING] = "blocking",
    [SP_ISSUE_STREAM] = "stream",
};

int sp_issue_stream_asked(int argc, char **argv, int first)
{
    for (int i = first; i < argc; i++) {
        if (strcmp(argv[i], "--issue=stream") == 0 ||
            (strcmp(argv[i], "--issue") == 0 && i + 1 < argc &&
             strcmp(argv[i + 1], "stream") == 0)) {
            return 1;
        }
    }
    return 0;
}

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
