/* The devices `scaleprobe node` measures, behind one ops table: the host (triad, OpenBLAS GEMM)
 * and the GPU (copy kernel, pinned copies, cuBLAS GEMM). A build without the GPU part has the
 * GPU entries, returning SP_ERR_UNSUPPORTED, so callers carry no #ifdef. */
#ifndef SP_NODE_DEV_H
#define SP_NODE_DEV_H

#include <stddef.h>
#include <stdint.h>

#include "node_kind.h"
#include "status.h"

typedef struct {
    size_t mem_bytes; /* host triad: bytes per array */
    size_t dev_bytes; /* device copies: bytes per buffer */
    size_t gemm_n;    /* n of the GEMMs */
    uint32_t kinds;   /* bit mask over sp_node_kind_t: what the run will measure */
} sp_node_dev_cfg_t;

typedef struct {
    const char *name;
    /* allocate and fill the buffers of cfg->kinds (those supported); on failure a message in
     * err. Not collective. */
    sp_status_t (*create)(const sp_node_dev_cfg_t *cfg, void **state_p, char *err, size_t errlen);
    void (*destroy)(void *state); /* NULL: no-op */
    int (*supported)(sp_node_kind_t kind);
    /* the data type (sp_dtype_t) the kernel of a GEMM kind computes in */
    int (*gemm_dtype)(sp_node_kind_t kind);
    /* one call of kind, complete on return; its duration in ns. No allocation, no I/O. */
    sp_status_t (*run)(void *state, sp_node_kind_t kind, uint64_t *ns_p);
    /* bytes of a GEMM kind's result matrix; and the last run's result copied to out */
    size_t (*result_bytes)(const void *state, sp_node_kind_t kind);
    sp_status_t (*result)(void *state, sp_node_kind_t kind, void *out);
    /* one line about the library: "OpenBLAS 0.3.21 ... (1 thread)" */
    void (*describe)(const void *state, char *out, size_t outlen);
} sp_node_dev_ops_t;

extern const sp_node_dev_ops_t sp_node_host_ops;
extern const sp_node_dev_ops_t sp_node_gpu_ops;

#endif
