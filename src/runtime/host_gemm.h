/* GEMM compute of the host backend: the entries of a list (backend.h, sp_gemm_t) run as fp32
 * CBLAS sgemm calls (OpenBLAS) on operands allocated once for the largest shape; bfloat16 and
 * half models are computed as fp32 (CBLAS has no 16-bit GEMM). */
#ifndef SP_HOST_GEMM_H
#define SP_HOST_GEMM_H

#include <stddef.h>

#include "backend.h"
#include "status.h"

typedef struct sp_host_gemm sp_host_gemm_t;

/* Load the CBLAS, pin its threads to `threads`, allocate and fill A, B and C for the largest
 * of shapes[0..n). desc: on success what computes ("libopenblas.so.0 (OpenBLAS ...), fp32,
 * 1 thread"), else the reason. SP_ERR_UNSUPPORTED (no CBLAS), SP_ERR_NOMEM. */
sp_status_t sp_host_gemm_create(const sp_gemm_t *shapes, size_t n, int threads, char *desc,
                                size_t desclen, sp_host_gemm_t **g_p);
void sp_host_gemm_destroy(sp_host_gemm_t *g); /* NULL: no-op */

/* Run list[0..n) (each entry within the shapes given at creation); ctx is the sp_host_gemm_t.
 * The signature of a host stream's work (host_stream.h). */
void sp_host_gemm_run(void *ctx, const void *list, size_t n);

#endif
