/* C interface of node/node_gpu.cu (built only with the nccl backend and cuBLAS): CUDA and
 * cuBLAS types stay inside the .cu file. Every function returns 0 on success, else nonzero with
 * the library's message in err. Kinds are sp_node_kind_t values. */
#ifndef SP_NODE_GPU_CUDA_H
#define SP_NODE_GPU_CUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sp_node_cuda sp_node_cuda_t;

/* On the current device (the nccl backend selected it): buffers for the kinds in the mask. */
int sp__node_cuda_create(size_t dev_bytes, size_t gemm_n, uint32_t kinds, sp_node_cuda_t **g_p,
                         char *err, size_t errlen);
void sp__node_cuda_destroy(sp_node_cuda_t *g);
/* One call of kind between two events on the measurement stream; waits for it. */
int sp__node_cuda_run(sp_node_cuda_t *g, int kind, uint64_t *ns_p, char *err, size_t errlen);
size_t sp__node_cuda_result_bytes(const sp_node_cuda_t *g, int kind);
/* The GEMM result of kind copied to host memory out. */
int sp__node_cuda_result(sp_node_cuda_t *g, int kind, void *out, char *err, size_t errlen);
/* "cuBLAS 130000, <device name>" */
void sp__node_cuda_describe(const sp_node_cuda_t *g, char *out, size_t outlen);

#ifdef __cplusplus
}
#endif

#endif
