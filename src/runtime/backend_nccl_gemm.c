/* The nccl backend's GEMM compute (proxy --compute gemm): each entry of a list as one cuBLAS
 * strided-batched GEMM on the stream, in the model's precision (bf16/fp16 in and out, fp32
 * accumulate; fp32 otherwise), on operands and a workspace allocated once at set-up. */
#include <stdio.h>
#include <stdlib.h>

#include "backend_nccl_cublas.h"
#include "backend_nccl_impl.h"
#include "backend_nccl_kernels.h"
#include "gemm_call.h"

/* cuBLAS's recommended workspace on Hopper; given once, so no call allocates its own */
#define GEMM_WORKSPACE_BYTES (32u << 20)

struct sp_nccl_gemm {
    sp_cublas_api_t cb;
    cublasHandle_t handle;
    void *workspace;
    void *op[3]; /* A, B, C of the calls (gemm_call.h), each sized for the largest shape */
    cudaDataType type;
    cudaStream_t stream; /* the handle's, as last set by use_stream */
    char err[256];       /* the first failed call's message */
};

void sp__nccl_gemm_release(nccl_state_t *st)
{
    struct sp_nccl_gemm *g = st->gemm;

    if (g == NULL) {
        return;
    }
    if (g->handle != NULL) {
        g->cb.destroy(g->handle);
    }
    for (int i = 0; i < 3; i++) {
        if (g->op[i] != NULL) {
            cudaFree(g->op[i]);
        }
    }
    if (g->workspace != NULL) {
        cudaFree(g->workspace);
    }
    free(g);
    st->gemm = NULL;
}

static cudaDataType cuda_type(sp_gemm_type_t t)
{
    return t == SP_GEMM_F16 ? CUDA_R_16F : t == SP_GEMM_BF16 ? CUDA_R_16BF : CUDA_R_32F;
}

/* One call on the handle's stream; fp32 alpha and beta, as the fp32 accumulation takes them. */
static sp_status_t gemm_call(void *ctx, const sp_gemm_call_t *c)
{
    struct sp_nccl_gemm *g = ctx;
    const float one = 1.0f, zero = 0.0f;
    cublasStatus_t rc = g->cb.gemm_strided_batched_ex(
        g->handle, CUBLAS_OP_N, CUBLAS_OP_N, c->m, c->n, c->k, &one, g->op[0], g->type, c->lda,
        c->stride_a, g->op[1], g->type, c->ldb, c->stride_b, &zero, g->op[2], g->type, c->ldc,
        c->stride_c, c->batch, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);

    if (rc == CUBLAS_STATUS_SUCCESS) {
        return SP_OK;
    }
    snprintf(g->err, sizeof(g->err), "cublasGemmStridedBatchedEx (m %d n %d k %d batch %d): %s",
             c->m, c->n, c->k, c->batch, g->cb.status_string(rc));
    return rc == CUBLAS_STATUS_NOT_SUPPORTED || rc == CUBLAS_STATUS_ARCH_MISMATCH
               ? SP_ERR_UNSUPPORTED
               : SP_ERR_DEVICE;
}

/* Point the handle at stream s with our workspace: cublasSetStream resets the workspace to
 * cuBLAS's own pool, so the workspace is given again after every change of stream. */
static cublasStatus_t use_stream(struct sp_nccl_gemm *g, cudaStream_t s)
{
    cublasStatus_t rc = CUBLAS_STATUS_SUCCESS;

    if (g->stream != s) {
        rc = g->cb.set_stream(g->handle, s);
        rc = rc == CUBLAS_STATUS_SUCCESS
                 ? g->cb.set_workspace(g->handle, g->workspace, GEMM_WORKSPACE_BYTES)
                 : rc;
        g->stream = rc == CUBLAS_STATUS_SUCCESS ? s : NULL;
    }
    return rc;
}

/* Handle, workspace and operands; desc says what failed. */
static sp_status_t gemm_alloc(nccl_state_t *st, struct sp_nccl_gemm *g, const sp_gemm_t *shapes,
                              size_t n, sp_gemm_type_t type, char *desc, size_t desclen)
{
    size_t elems[3], esize = sp_gemm_type_size(type);
    cudaError_t rc = cudaSuccess;
    cublasStatus_t brc;

    brc = g->cb.create(&g->handle);
    if (brc != CUBLAS_STATUS_SUCCESS) {
        g->handle = NULL;
        snprintf(desc, desclen, "cublasCreate: %s", g->cb.status_string(brc));
        return SP_ERR_DEVICE;
    }
    sp_gemm_operand_elems(shapes, n, elems);
    rc = cudaMalloc(&g->workspace, GEMM_WORKSPACE_BYTES);
    for (int i = 0; i < 3 && rc == cudaSuccess; i++) {
        rc = cudaMalloc(&g->op[i], elems[i] * esize);
        rc = rc == cudaSuccess
                 ? (cudaError_t)sp_cuda_gemm_fill(st->stream, (int)type, g->op[i], elems[i])
                 : rc;
    }
    rc = rc == cudaSuccess ? cudaStreamSynchronize(st->stream) : rc;
    if (rc != cudaSuccess) {
        snprintf(desc, desclen, "cannot allocate the GEMM operands (%.3g GB in %s): %s",
                 (double)(elems[0] + elems[1] + elems[2]) * (double)esize / 1e9,
                 sp_gemm_type_name(type), cudaGetErrorString(rc));
        return rc == cudaErrorMemoryAllocation ? SP_ERR_NOMEM : SP_ERR_DEVICE;
    }
    brc = use_stream(g, st->stream);
    if (brc != CUBLAS_STATUS_SUCCESS) {
        snprintf(desc, desclen, "cublasSetWorkspace/SetStream: %s", g->cb.status_string(brc));
        return SP_ERR_DEVICE;
    }
    return SP_OK;
}

/* Every shape once on the backend's stream: a type or shape cuBLAS cannot run fails here, at
 * set-up, not in a step; it also loads cuBLAS's kernels. */
static sp_status_t gemm_try(nccl_state_t *st, struct sp_nccl_gemm *g, const sp_gemm_t *shapes,
                            size_t n, char *desc, size_t desclen)
{
    sp_status_t s = SP_OK;
    cudaError_t rc;

    for (size_t i = 0; i < n && s == SP_OK; i++) {
        sp_gemm_t once = shapes[i];
        once.count = 1;
        s = sp_gemm_list_issue(&once, 1, gemm_call, g);
        if (s == SP_ERR_INVALID) {
            snprintf(g->err, sizeof(g->err),
                     "a GEMM of %lld x %lld x %lld (batch %lld) is "
                     "beyond cuBLAS's 32-bit sizes",
                     (long long)once.m, (long long)once.n, (long long)once.k,
                     (long long)once.batch);
            s = SP_ERR_UNSUPPORTED;
        }
    }
    rc = cudaStreamSynchronize(st->stream);
    if (s == SP_OK && rc != cudaSuccess) {
        snprintf(g->err, sizeof(g->err), "the trial GEMMs: %s", cudaGetErrorString(rc));
        s = SP_ERR_DEVICE;
    }
    if (s != SP_OK) {
        snprintf(desc, desclen, "%s", g->err);
    }
    return s;
}

sp_status_t sp__nccl_gemm_setup(void *state, const sp_gemm_t *shapes, size_t n, sp_dtype_t dtype,
                                int threads, char *desc, size_t desclen)
{
    nccl_state_t *st = state;
    sp_gemm_type_t type = sp_gemm_type_of(dtype);
    struct sp_nccl_gemm *g;
    sp_status_t s;
    int version = 0;

    (void)threads; /* the GPU's, not the host's */
    sp__nccl_gemm_release(st);
    g = calloc(1, sizeof(*g));
    if (g == NULL) {
        snprintf(desc, desclen, "out of memory");
        return SP_ERR_NOMEM;
    }
    st->gemm = g;
    g->type = cuda_type(type);
    s = sp_cublas_load(&g->cb, desc, desclen) ? SP_ERR_UNSUPPORTED
                                              : gemm_alloc(st, g, shapes, n, type, desc, desclen);
    s = s == SP_OK ? gemm_try(st, g, shapes, n, desc, desclen) : s;
    if (s != SP_OK) {
        sp__nccl_gemm_release(st);
        return s;
    }
    g->cb.get_version(g->handle, &version);
    snprintf(desc, desclen,
             "cuBLAS %d cublasGemmStridedBatchedEx on %s, %s in and out, fp32 "
             "accumulate, %u MiB workspace",
             version, st->device_name, sp_gemm_type_name(type), GEMM_WORKSPACE_BYTES >> 20);
    return SP_OK;
}

sp_status_t sp__nccl_stream_gemm(void *state, sp_stream_t *stream, const sp_gemm_t *list, size_t n)
{
    nccl_state_t *st = state;
    struct sp_nccl_gemm *g = st->gemm;
    cublasStatus_t brc;
    sp_status_t s;

    if (g == NULL) {
        return SP_ERR_INVALID; /* gemm_setup first */
    }
    sp_gpu_group_reset(&st->lanes_deadline);
    brc = use_stream(g, stream->stream);
    if (brc != CUBLAS_STATUS_SUCCESS) {
        sp_error("cublasSetStream/SetWorkspace: %s", g->cb.status_string(brc));
        return SP_ERR_DEVICE;
    }
    s = sp_gemm_list_issue(list, n, gemm_call, g);
    if (s != SP_OK) {
        sp_error("%s", s == SP_ERR_INVALID ? "a GEMM beyond the shapes set up" : g->err);
    }
    return s;
}
