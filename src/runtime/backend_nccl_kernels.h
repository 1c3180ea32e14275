/* Device kernels of the nccl backend (backend_nccl_kernels.cu), callable from C. Streams are
 * cudaStream_t passed as void *; return values are cudaError_t as int. */
#ifndef SP_BACKEND_NCCL_KERNELS_H
#define SP_BACKEND_NCCL_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "pattern.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Write the input pattern into buf[0..count) (device memory). Asynchronous on stream. */
int sp_cuda_pattern_fill(void *stream, const sp_pattern_t *pattern, void *buf, size_t count);

/* Add the number of elements of buf[0..count) that differ from the output pattern to *counter
 * (device memory). Elements within rel_tol (relative) count as equal; 0 means exact.
 * Asynchronous on stream. */
int sp_cuda_pattern_check(void *stream, const sp_pattern_t *pattern, const void *buf,
                          size_t count, double rel_tol, unsigned long long *counter);

/* Hold the stream for duration_ns of the device's global timer (one warp spinning): the proxy's
 * compute op when it runs as a timed stand-in rather than real GEMMs. Asynchronous. */
int sp_cuda_spin(void *stream, uint64_t duration_ns);

/* Fill buf[0..count) with small values of both signs in a GEMM element type (gemm_call.h's
 * sp_gemm_type_t as int: fp32, fp16, bf16), so that sums of products stay far from overflow
 * whatever k is and no operand is all zeros. Asynchronous on stream. */
int sp_cuda_gemm_fill(void *stream, int type, void *buf, size_t count);

#ifdef __cplusplus
}
#endif

#endif
