/* The GPU device of `scaleprobe node` as an ops table over node_gpu.cu; in a build without the
 * nccl backend (or without cuBLAS) every entry says "not supported". */
#include "node_dev.h"

#include <stdio.h>

#include "dtype.h"
#include "log.h"

#ifdef SP_NODE_GPU
#include "node_gpu_cuda.h"

static int gpu_supported(sp_node_kind_t kind)
{
    return kind != SP_NODE_TRIAD && kind < SP_NODE_KIND_COUNT;
}

static int gpu_gemm_dtype(sp_node_kind_t kind)
{
    switch (kind) {
    case SP_NODE_GEMM_F64:
        return SP_DTYPE_DOUBLE;
    case SP_NODE_GEMM_F16:
        return SP_DTYPE_HALF;
    case SP_NODE_GEMM_BF16:
        return SP_DTYPE_BFLOAT16;
    default:
        return SP_DTYPE_FLOAT;
    }
}

static sp_status_t gpu_create(const sp_node_dev_cfg_t *cfg, void **state_p, char *err,
                              size_t errlen)
{
    sp_node_cuda_t *g = NULL;

    if (sp__node_cuda_create(cfg->dev_bytes, cfg->gemm_n, cfg->kinds, &g, err, errlen) != 0) {
        return SP_ERR_DEVICE;
    }
    *state_p = g;
    return SP_OK;
}

static void gpu_destroy(void *state)
{
    sp__node_cuda_destroy(state);
}

static sp_status_t gpu_run(void *state, sp_node_kind_t kind, uint64_t *ns_p)
{
    char err[256];

    if (sp__node_cuda_run(state, (int)kind, ns_p, err, sizeof(err)) != 0) {
        sp_error("node: GPU call (kind %d): %s", (int)kind, err);
        return SP_ERR_DEVICE;
    }
    return SP_OK;
}

static size_t gpu_result_bytes(const void *state, sp_node_kind_t kind)
{
    return sp__node_cuda_result_bytes(state, (int)kind);
}

static sp_status_t gpu_result(void *state, sp_node_kind_t kind, void *out)
{
    char err[256];

    if (sp__node_cuda_result(state, (int)kind, out, err, sizeof(err)) != 0) {
        sp_error("node: reading a GEMM result: %s", err);
        return SP_ERR_DEVICE;
    }
    return SP_OK;
}

static void gpu_describe(const void *state, char *out, size_t outlen)
{
    sp__node_cuda_describe(state, out, outlen);
}

#else /* no GPU part in this build */

static int gpu_supported(sp_node_kind_t kind)
{
    (void)kind;
    return 0;
}

static int gpu_gemm_dtype(sp_node_kind_t kind)
{
    (void)kind;
    return SP_DTYPE_FLOAT;
}

static sp_status_t gpu_create(const sp_node_dev_cfg_t *cfg, void **state_p, char *err,
                              size_t errlen)
{
    (void)cfg;
    (void)state_p;
    snprintf(err, errlen, "this build has no GPU part (nccl backend with cuBLAS)");
    return SP_ERR_UNSUPPORTED;
}

static void gpu_destroy(void *state)
{
    (void)state;
}

static sp_status_t gpu_run(void *state, sp_node_kind_t kind, uint64_t *ns_p)
{
    (void)state;
    (void)kind;
    (void)ns_p;
    return SP_ERR_UNSUPPORTED;
}

static size_t gpu_result_bytes(const void *state, sp_node_kind_t kind)
{
    (void)state;
    (void)kind;
    return 0;
}

static sp_status_t gpu_result(void *state, sp_node_kind_t kind, void *out)
{
    (void)state;
    (void)kind;
    (void)out;
    return SP_ERR_UNSUPPORTED;
}

static void gpu_describe(const void *state, char *out, size_t outlen)
{
    (void)state;
    snprintf(out, outlen, "no GPU part in this build");
}

#endif

const sp_node_dev_ops_t sp_node_gpu_ops = {
    .name = "gpu",
    .create = gpu_create,
    .destroy = gpu_destroy,
    .supported = gpu_supported,
    .gemm_dtype = gpu_gemm_dtype,
    .run = gpu_run,
    .result_bytes = gpu_result_bytes,
    .result = gpu_result,
    .describe = gpu_describe,
};
