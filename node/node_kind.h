/* What `scaleprobe node` measures: one enum shared by the C code and the CUDA file (no other
 * includes, so nvcc compiles it as is). */
#ifndef SP_NODE_KIND_H
#define SP_NODE_KIND_H

/* Memory kinds are rates in GB/s (1e9 B/s), GEMM kinds in GFLOP/s. */
typedef enum {
    SP_NODE_TRIAD = 0, /* a[i] = b[i] + s*c[i] on host memory (doubles) */
    SP_NODE_D2D,       /* copy kernel, device memory to device memory */
    SP_NODE_H2D,       /* copy from pinned host memory to the device */
    SP_NODE_D2H,       /* copy from the device to pinned host memory */
    SP_NODE_GEMM_F32,
    SP_NODE_GEMM_F64,
    SP_NODE_GEMM_F16,
    SP_NODE_GEMM_BF16,
    SP_NODE_KIND_COUNT
} sp_node_kind_t;

#endif
