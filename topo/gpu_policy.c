/* Host-side decisions of the nccl backend (gpu_policy.h). */
#include "gpu_policy.h"

#include <stdlib.h>
#include <string.h>

#include "gpu_util.h"

int sp_gpu_find_shared_device(const char *bus_ids, size_t stride, int n, int *first_p,
                              int *second_p)
{
    for (int j = 1; j < n; j++) {
        for (int i = 0; i < j; i++) {
            if (strcmp(bus_ids + (size_t)i * stride, bus_ids + (size_t)j * stride) == 0) {
                *first_p = i;
                *second_p = j;
                return 1;
            }
        }
    }
    return 0;
}

int sp_gpu_must_abort(int cuda_error, int nccl_async)
{
    int cuda_bad = cuda_error != 0 && cuda_error != SP_CUDA_ERROR_NOT_READY;
    int nccl_bad = nccl_async != 0 && nccl_async != SP_NCCL_IN_PROGRESS;

    return cuda_bad || nccl_bad;
}

sp_gpu_init_state_t sp_gpu_init_progress(int nccl_async, uint64_t now_ns, uint64_t deadline_ns)
{
    if (nccl_async == 0) {
        return SP_GPU_INIT_DONE;
    }
    if (nccl_async != SP_NCCL_IN_PROGRESS) {
        return SP_GPU_INIT_FAILED;
    }
    return now_ns >= deadline_ns ? SP_GPU_INIT_EXPIRED : SP_GPU_INIT_WAIT;
}

int sp_gpu_max_connections(int lanes, const char *current)
{
    int want = lanes + 1;

    if (current != NULL && current[0] != '\0') {
        return 0;
    }
    if (want <= 8) {
        return 0;
    }
    return want > 32 ? 32 : want;
}

uint64_t sp_gpu_group_deadline(sp_gpu_deadline_t *d, uint64_t now_ns, uint64_t timeout_ns)
{
    if (d->at_ns == 0) {
        d->at_ns = now_ns + timeout_ns;
    }
    return d->at_ns;
}

void sp_gpu_group_reset(sp_gpu_deadline_t *d)
{
    d->at_ns = 0;
}

const char *sp_gpu_block_impl(int have_native)
{
    return have_native ? "nccl" : "grouped_p2p";
}
