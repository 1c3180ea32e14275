/* `scaleprobe node` on a GPU: a device-to-device copy kernel, pinned host<->device copies and
 * cuBLAS GEMMs, each timed by two events on one stream. Built only with the nccl backend. */
#include "node_gpu_cuda.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend_nccl_cublas.h"
#include "node_kind.h"

struct sp_node_cuda {
    cudaStream_t stream;
    cudaEvent_t ev0, ev1;
    sp_cublas_api_t cb; /* loaded at run time (backend_nccl_cublas.h) with the first GEMM */
    cublasHandle_t blas;
    size_t dev_bytes;
    void *src, *dst; /* device buffers of the copies */
    void *pinned;    /* pinned host buffer of h2d and d2h */
    size_t n;
    void *a[SP_NODE_KIND_COUNT], *b[SP_NODE_KIND_COUNT], *c[SP_NODE_KIND_COUNT];
    char device[256];
};

static size_t elem_size(int kind)
{
    switch (kind) {
    case SP_NODE_GEMM_F32:
        return 4;
    case SP_NODE_GEMM_F64:
        return 8;
    case SP_NODE_GEMM_F16:
    case SP_NODE_GEMM_BF16:
        return 2;
    default:
        return 0;
    }
}

static int cuda_fail(cudaError_t rc, const char *what, char *err, size_t errlen)
{
    if (rc == cudaSuccess) {
        return 0;
    }
    snprintf(err, errlen, "%s: %s", what, cudaGetErrorString(rc));
    return 1;
}

static int blas_fail(const sp_node_cuda_t *g, cublasStatus_t rc, const char *what, char *err,
                     size_t errlen)
{
    if (rc == CUBLAS_STATUS_SUCCESS) {
        return 0;
    }
    snprintf(err, errlen, "%s: %s", what, g->cb.status_string(rc));
    return 1;
}

/* 16-byte words, grid-stride: one read and one write of every byte */
__global__ void copy_kernel(const uint4 *__restrict__ src, uint4 *__restrict__ dst, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        dst[i] = src[i];
    }
}

/* Small values of both signs from the index, in the matrix's own type */
template <typename T> __device__ T from_float(float v);
template <> __device__ float from_float<float>(float v) { return v; }
template <> __device__ double from_float<double>(float v) { return (double)v; }
template <> __device__ __half from_float<__half>(float v) { return __float2half(v); }
template <> __device__ __nv_bfloat16 from_float<__nv_bfloat16>(float v)
{
    return __float2bfloat16(v);
}

template <typename T>
__global__ void fill_kernel(T *x, size_t n, unsigned mul, unsigned mod)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        x[i] = from_float<T>(((float)((i * mul) % mod) - (float)(mod / 2)) / 16.0f);
    }
}

template <typename T> static void fill(T *x, size_t n, unsigned mul, unsigned mod, cudaStream_t s)
{
    fill_kernel<T><<<1024, 256, 0, s>>>(x, n, mul, mod);
}

static void fill_kind(sp_node_cuda_t *g, int k, size_t nn)
{
    switch (k) {
    case SP_NODE_GEMM_F32:
        fill((float *)g->a[k], nn, 7, 13, g->stream);
        fill((float *)g->b[k], nn, 5, 11, g->stream);
        break;
    case SP_NODE_GEMM_F64:
        fill((double *)g->a[k], nn, 7, 13, g->stream);
        fill((double *)g->b[k], nn, 5, 11, g->stream);
        break;
    case SP_NODE_GEMM_F16:
        fill((__half *)g->a[k], nn, 7, 13, g->stream);
        fill((__half *)g->b[k], nn, 5, 11, g->stream);
        break;
    default:
        fill((__nv_bfloat16 *)g->a[k], nn, 7, 13, g->stream);
        fill((__nv_bfloat16 *)g->b[k], nn, 5, 11, g->stream);
        break;
    }
}

extern "C" void sp__node_cuda_destroy(sp_node_cuda_t *g)
{
    if (g == NULL) {
        return;
    }
    for (int k = 0; k < SP_NODE_KIND_COUNT; k++) {
        cudaFree(g->a[k]);
        cudaFree(g->b[k]);
        cudaFree(g->c[k]);
    }
    cudaFree(g->src);
    cudaFree(g->dst);
    cudaFreeHost(g->pinned);
    if (g->blas != NULL) {
        g->cb.destroy(g->blas);
    }
    if (g->ev0 != NULL) {
        cudaEventDestroy(g->ev0);
    }
    if (g->ev1 != NULL) {
        cudaEventDestroy(g->ev1);
    }
    if (g->stream != NULL) {
        cudaStreamDestroy(g->stream);
    }
    free(g);
}

extern "C" int sp__node_cuda_create(size_t dev_bytes, size_t gemm_n, uint32_t kinds,
                                    sp_node_cuda_t **g_p, char *err, size_t errlen)
{
    sp_node_cuda_t *g = (sp_node_cuda_t *)calloc(1, sizeof(*g));
    const uint32_t copies = (1u << SP_NODE_D2D) | (1u << SP_NODE_H2D) | (1u << SP_NODE_D2H);
    size_t nn = gemm_n * gemm_n;
    int dev = 0;
    cudaDeviceProp prop;
    int bad = 0;

    if (g == NULL) {
        snprintf(err, errlen, "out of host memory");
        return 1;
    }
    g->dev_bytes = dev_bytes - dev_bytes % 16;
    g->n = gemm_n;
    bad = cuda_fail(cudaGetDevice(&dev), "cudaGetDevice", err, errlen) ||
          cuda_fail(cudaGetDeviceProperties(&prop, dev), "cudaGetDeviceProperties", err,
                    errlen) ||
          cuda_fail(cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking),
                    "cudaStreamCreate", err, errlen) ||
          cuda_fail(cudaEventCreate(&g->ev0), "cudaEventCreate", err, errlen) ||
          cuda_fail(cudaEventCreate(&g->ev1), "cudaEventCreate", err, errlen);
    if (!bad) {
        snprintf(g->device, sizeof(g->device), "%s", prop.name);
    }
    if (!bad && (kinds & copies) != 0) {
        bad = cuda_fail(cudaMalloc(&g->src, g->dev_bytes), "cudaMalloc (copies)", err, errlen) ||
              cuda_fail(cudaMalloc(&g->dst, g->dev_bytes), "cudaMalloc (copies)", err, errlen) ||
              cuda_fail(cudaMallocHost(&g->pinned, g->dev_bytes), "cudaMallocHost", err,
                        errlen) ||
              cuda_fail(cudaMemsetAsync(g->src, 1, g->dev_bytes, g->stream), "cudaMemset", err,
                        errlen);
        if (!bad) {
            memset(g->pinned, 2, g->dev_bytes);
        }
    }
    for (int k = SP_NODE_GEMM_F32; k < SP_NODE_KIND_COUNT && !bad; k++) {
        if (!(kinds & (1u << k))) {
            continue;
        }
        bad = cuda_fail(cudaMalloc(&g->a[k], nn * elem_size(k)), "cudaMalloc (GEMM)", err,
                        errlen) ||
              cuda_fail(cudaMalloc(&g->b[k], nn * elem_size(k)), "cudaMalloc (GEMM)", err,
                        errlen) ||
              cuda_fail(cudaMalloc(&g->c[k], nn * elem_size(k)), "cudaMalloc (GEMM)", err,
                        errlen);
        if (!bad) {
            fill_kind(g, k, nn);
            bad = cuda_fail(cudaGetLastError(), "fill kernel", err, errlen);
        }
        if (!bad && g->blas == NULL) {
            bad = sp_cublas_load(&g->cb, err, errlen) ||
                  blas_fail(g, g->cb.create(&g->blas), "cublasCreate", err, errlen) ||
                  blas_fail(g, g->cb.set_stream(g->blas, g->stream), "cublasSetStream", err,
                            errlen);
        }
    }
    if (!bad) {
        bad = cuda_fail(cudaStreamSynchronize(g->stream), "cudaStreamSynchronize", err, errlen);
    }
    if (bad) {
        sp__node_cuda_destroy(g);
        return 1;
    }
    *g_p = g;
    return 0;
}

static int gemm(sp_node_cuda_t *g, int kind, char *err, size_t errlen)
{
    const int n = (int)g->n;
    const float one = 1.0f, zero = 0.0f;
    const double done = 1.0, dzero = 0.0;
    cudaDataType_t t = kind == SP_NODE_GEMM_F16 ? CUDA_R_16F : CUDA_R_16BF;

    switch (kind) {
    case SP_NODE_GEMM_F32:
        return blas_fail(g,
                         g->cb.sgemm(g->blas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one,
                                     (const float *)g->a[kind], n, (const float *)g->b[kind], n,
                                     &zero, (float *)g->c[kind], n),
                         "cublasSgemm", err, errlen);
    case SP_NODE_GEMM_F64:
        return blas_fail(g,
                         g->cb.dgemm(g->blas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &done,
                                     (const double *)g->a[kind], n, (const double *)g->b[kind], n,
                                     &dzero, (double *)g->c[kind], n),
                         "cublasDgemm", err, errlen);
    default:
        /* half and bfloat16 inputs and output, float accumulation (as training runs them) */
        return blas_fail(g,
                         g->cb.gemm_ex(g->blas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one,
                                       g->a[kind], t, n, g->b[kind], t, n, &zero, g->c[kind], t,
                                       n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                         "cublasGemmEx", err, errlen);
    }
}

extern "C" int sp__node_cuda_run(sp_node_cuda_t *g, int kind, uint64_t *ns_p, char *err,
                                 size_t errlen)
{
    float ms = 0.0f;
    int bad;

    if (cuda_fail(cudaEventRecord(g->ev0, g->stream), "cudaEventRecord", err, errlen)) {
        return 1;
    }
    switch (kind) {
    case SP_NODE_D2D:
        copy_kernel<<<1024, 512, 0, g->stream>>>((const uint4 *)g->src, (uint4 *)g->dst,
                                                 g->dev_bytes / 16);
        bad = cuda_fail(cudaGetLastError(), "copy kernel", err, errlen);
        break;
    case SP_NODE_H2D:
        bad = cuda_fail(cudaMemcpyAsync(g->dst, g->pinned, g->dev_bytes, cudaMemcpyHostToDevice,
                                        g->stream),
                        "cudaMemcpyAsync h2d", err, errlen);
        break;
    case SP_NODE_D2H:
        bad = cuda_fail(cudaMemcpyAsync(g->pinned, g->src, g->dev_bytes, cudaMemcpyDeviceToHost,
                                        g->stream),
                        "cudaMemcpyAsync d2h", err, errlen);
        break;
    default:
        bad = gemm(g, kind, err, errlen);
        break;
    }
    bad = bad || cuda_fail(cudaEventRecord(g->ev1, g->stream), "cudaEventRecord", err, errlen) ||
          cuda_fail(cudaEventSynchronize(g->ev1), "cudaEventSynchronize", err, errlen) ||
          cuda_fail(cudaEventElapsedTime(&ms, g->ev0, g->ev1), "cudaEventElapsedTime", err,
                    errlen);
    *ns_p = (uint64_t)((double)ms * 1e6);
    return bad;
}

extern "C" size_t sp__node_cuda_result_bytes(const sp_node_cuda_t *g, int kind)
{
    return kind >= SP_NODE_GEMM_F32 && kind < SP_NODE_KIND_COUNT && g->c[kind] != NULL
               ? g->n * g->n * elem_size(kind)
               : 0;
}

extern "C" int sp__node_cuda_result(sp_node_cuda_t *g, int kind, void *out, char *err,
                                    size_t errlen)
{
    size_t bytes = sp__node_cuda_result_bytes(g, kind);

    if (bytes == 0) {
        snprintf(err, errlen, "no GEMM result of this kind");
        return 1;
    }
    return cuda_fail(cudaMemcpyAsync(out, g->c[kind], bytes, cudaMemcpyDeviceToHost, g->stream),
                     "cudaMemcpyAsync (result)", err, errlen) ||
           cuda_fail(cudaStreamSynchronize(g->stream), "cudaStreamSynchronize", err, errlen);
}

extern "C" void sp__node_cuda_describe(const sp_node_cuda_t *g, char *out, size_t outlen)
{
    int version = 0;

    if (g->blas != NULL) {
        g->cb.get_version(g->blas, &version);
    }
    snprintf(out, outlen, "cuBLAS %d on %s", version, g->device);
}
