/* Device selection, version strings and error classes for the nccl backend (no CUDA needed). */
#include "gpu_util.h"

#include <stdio.h>

sp_status_t sp_gpu_select_device(int local_rank, int local_size, int ndev, int override,
                                 int *device_p, char *err, size_t errlen)
{
    if (ndev <= 0) {
        snprintf(err, errlen, "no GPU visible");
        return SP_ERR_INVALID;
    }
    if (override >= 0) {
        if (override >= ndev) {
            snprintf(err, errlen, "--device %d, but this node shows %d GPU(s)", override, ndev);
            return SP_ERR_INVALID;
        }
        *device_p = override;
        return SP_OK;
    }
    /* More ranks than visible devices is per-task binding (srun --gpus-per-task=1: each rank
     * sees its own device as 0) or an oversubscribed node; which one only the devices' bus ids
     * tell, so the caller compares them across the node and refuses a shared device. */
    (void)local_size;
    *device_p = local_rank % ndev;
    return SP_OK;
}

void sp_gpu_cuda_version_str(int code, char *out, size_t outlen)
{
    snprintf(out, outlen, "%d.%d", code / 1000, (code % 1000) / 10);
}

void sp_gpu_nccl_version_str(int code, char *out, size_t outlen)
{
    if (code >= 10000) {
        snprintf(out, outlen, "%d.%d.%d", code / 10000, (code % 10000) / 100, code % 100);
    } else {
        snprintf(out, outlen, "%d.%d.%d", code / 1000, (code % 1000) / 100, code % 100);
    }
}

sp_status_t sp_gpu_classify_cuda(int cuda_error)
{
    if (cuda_error == 0) {
        return SP_OK;
    }
    if (cuda_error == SP_CUDA_ERROR_NO_DEVICE || cuda_error == SP_CUDA_ERROR_INSUFFICIENT_DRIVER) {
        return SP_ERR_UNSUPPORTED;
    }
    return SP_ERR_DEVICE;
}

sp_status_t sp_gpu_classify_nccl(int nccl_result)
{
    switch (nccl_result) {
    case 0:
    case SP_NCCL_IN_PROGRESS:
        return SP_OK;
    case SP_NCCL_INVALID_ARGUMENT:
    case SP_NCCL_INVALID_USAGE:
        return SP_ERR_INVALID;
    default:
        return SP_ERR_DEVICE;
    }
}
