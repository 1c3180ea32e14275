/* Host-side decisions of the nccl backend (gpu_policy.h). */
#include "gpu_policy.h"

#include <stdio.h>
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

double sp_gpu_avg_tolerance(sp_dtype_t dtype, int nranks)
{
    /* machine epsilon (2^-(p-1)); the unit roundoff is half of it */
    static const double eps[SP_DTYPE_COUNT] = {
        [SP_DTYPE_HALF] = 9.765625e-4, [SP_DTYPE_FLOAT] = 1.1920929e-7,
        [SP_DTYPE_DOUBLE] = 2.220446049250313e-16, [SP_DTYPE_BFLOAT16] = 7.8125e-3,
        [SP_DTYPE_F8E4M3] = 0.125, [SP_DTYPE_F8E5M2] = 0.25};

    if ((unsigned)dtype >= SP_DTYPE_COUNT || sp_dtype_is_integer(dtype) || nranks < 1 ||
        (nranks & (nranks - 1)) == 0) {
        return 0.0;
    }
    return (nranks + 2) * eps[dtype] / 2.0;
}

void sp_gpu_throttle_str(unsigned long long reasons, char *out, size_t len)
{
    static const char *const names[] = {
        "gpu_idle",       "applications_clocks", "sw_power_cap",       "hw_slowdown",
        "sync_boost",     "sw_thermal",          "hw_thermal",         "hw_power_brake",
        "display_clocks",
    };
    const unsigned n = (unsigned)(sizeof(names) / sizeof(names[0]));
    size_t used = 0;

    out[0] = '\0';
    if (reasons == 0) {
        snprintf(out, len, "none");
        return;
    }
    for (unsigned b = 0; b <= n; b++) {
        unsigned long long rest = b < n ? 0 : (reasons >> n) << n;
        int w;
        if (b < n ? !(reasons & (1ULL << b)) : rest == 0) {
            continue;
        }
        w = b < n ? snprintf(out + used, len - used, "%s%s", used > 0 ? "," : "", names[b])
                  : snprintf(out + used, len - used, "%s0x%llx", used > 0 ? "," : "", rest);
        if (w < 0 || (size_t)w >= len - used) {
            return; /* cut at the buffer's end */
        }
        used += (size_t)w;
    }
}

const char *sp_gpu_block_impl(int have_native)
{
    return have_native ? "nccl" : "grouped_p2p";
}
