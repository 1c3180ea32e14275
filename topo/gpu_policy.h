/* Decisions of the nccl backend that need no CUDA headers, so they are unit tested on machines
 * without a GPU: which ranks share a device, when to abort communicators, how a non-blocking
 * communicator's creation ends, the proxy lanes' hardware queues, the block exchanges' NCCL call. */
#ifndef SP_GPU_POLICY_H
#define SP_GPU_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "dtype.h"

#define SP_CUDA_ERROR_NOT_READY 600

/*
 * Two ranks of one node on one device (NCCL refuses that). bus_ids holds n NUL-terminated PCI
 * bus ids, stride bytes apart, indexed by node-local rank. Returns 1 with the first such pair
 * (*first_p < *second_p), else 0 and the outputs untouched.
 */
int sp_gpu_find_shared_device(const char *bus_ids, size_t stride, int n, int *first_p,
                              int *second_p);

/*
 * 1 when the rank must abort every communicator it has: a CUDA error other than success and
 * "not ready" (a sticky error leaves kernels that never finish, so cudaFree and ncclCommDestroy
 * would wait for ever), or an NCCL asynchronous error other than success and "in progress".
 */
int sp_gpu_must_abort(int cuda_error, int nccl_async);

typedef enum {
    SP_GPU_INIT_DONE,    /* the communicator is ready */
    SP_GPU_INIT_WAIT,    /* still in progress, before the deadline: poll again */
    SP_GPU_INIT_FAILED,  /* NCCL reported an error: abort it */
    SP_GPU_INIT_EXPIRED, /* still in progress at the deadline: abort it */
} sp_gpu_init_state_t;

/* One poll of a non-blocking ncclCommInitRankConfig: its asynchronous state, now and the
 * deadline (both on one monotonic clock). */
sp_gpu_init_state_t sp_gpu_init_progress(int nccl_async, uint64_t now_ns, uint64_t deadline_ns);

/*
 * CUDA_DEVICE_MAX_CONNECTIONS for `lanes` concurrent streams (CUDA's default is 8 hardware
 * queues; streams beyond that share queues and falsely serialize): lanes + 1 (the backend's own
 * stream), at most 32 (CUDA's limit). current is the variable's value (NULL: unset). Returns the
 * value to set, or 0 to leave it: when the user set it, or the default is enough.
 */
int sp_gpu_max_connections(int lanes, const char *current);

/* One deadline for a group of waits (the proxy's per-lane waits at the end of a step): the first
 * wait after an enqueue sets now + timeout, the waits after it share that deadline, so waiting
 * on every lane takes at most one timeout, not one per lane (which would outlast the watchdog).
 * An enqueue starts a new group (sp_gpu_group_reset). */
typedef struct {
    uint64_t at_ns; /* 0: no group open */
} sp_gpu_deadline_t;

uint64_t sp_gpu_group_deadline(sp_gpu_deadline_t *d, uint64_t now_ns, uint64_t timeout_ns);
void sp_gpu_group_reset(sp_gpu_deadline_t *d);

/*
 * The relative tolerance (floored at 1 absolute, as the check kernel applies it) for NCCL's avg
 * of the fill patterns (docs/METHODOLOGY.md): 0 for integer types, and for floating types with
 * a power-of-two rank count (1/n, every product and every partial sum are exact there); else
 * (n + 2) unit roundoffs of the type: 1/n, each product and each of the at most n - 1 additions
 * round once, and the expected value itself is rounded once.
 */
double sp_gpu_avg_tolerance(sp_dtype_t dtype, int nranks);

/* NVML's clock event (throttle) reason bits as names, comma-separated ("gpu_idle,sw_power_cap");
 * "none" for 0; unknown bits as hex. */
void sp_gpu_throttle_str(unsigned long long reasons, char *out, size_t len);

/* The NCCL call of a block exchange (alltoall, gather, scatter): NCCL's own where the library
 * has it (have_native, NCCL 2.28+), grouped send/recv otherwise; the name /fingerprint records. */
const char *sp_gpu_block_impl(int have_native);

#endif
