/* cuBLAS, loaded at run time (dlopen) for the GPU GEMMs of `node` (node/node_gpu.cu) and of the
 * proxy's compute (backend_nccl_gemm.c). Not linked: linking cuBLAS (with cublasLt) made every
 * process of every command spend 0.4 s and ~200 MiB on loading it, and the bundle too large.
 * The prototypes come from cublas_v2.h, the symbols from libcublas. nccl backend files only. */
#ifndef SP_BACKEND_NCCL_CUBLAS_H
#define SP_BACKEND_NCCL_CUBLAS_H

#include <cublas_v2.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The C functions; the Ex calls are spelled out because C++ also sees inline overloads taking a
 * cudaDataType as compute type. */
typedef cublasStatus_t (*sp_cublas_gemm_ex_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t,
                                               int, int, int, const void *, const void *,
                                               cudaDataType, int, const void *, cudaDataType, int,
                                               const void *, void *, cudaDataType, int,
                                               cublasComputeType_t, cublasGemmAlgo_t);
typedef cublasStatus_t (*sp_cublas_gemm_sb_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t,
                                               int, int, int, const void *, const void *,
                                               cudaDataType, int, long long, const void *,
                                               cudaDataType, int, long long, const void *, void *,
                                               cudaDataType, int, long long, int,
                                               cublasComputeType_t, cublasGemmAlgo_t);

typedef struct {
    void *lib;
    cublasStatus_t (*create)(cublasHandle_t *);
    cublasStatus_t (*destroy)(cublasHandle_t);
    cublasStatus_t (*set_stream)(cublasHandle_t, cudaStream_t);
    cublasStatus_t (*set_workspace)(cublasHandle_t, void *, size_t);
    cublasStatus_t (*sgemm)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                            const float *, const float *, int, const float *, int, const float *,
                            float *, int);
    cublasStatus_t (*dgemm)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                            const double *, const double *, int, const double *, int,
                            const double *, double *, int);
    sp_cublas_gemm_ex_fn gemm_ex;
    sp_cublas_gemm_sb_fn gemm_strided_batched_ex;
    const char *(*status_string)(cublasStatus_t);
    cublasStatus_t (*get_version)(cublasHandle_t, int *);
} sp_cublas_api_t;

/* Load cuBLAS (libcublas.so.13, .so.12, .so) into caller storage: 0 on success, else 1 with
 * the reason in err and *api zeroed. The library stays loaded until exit (dlopen counts
 * references; unloading it under the CUDA runtime that holds its kernels is not safe), so there
 * is no close. */
int sp_cublas_load(sp_cublas_api_t *api, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
