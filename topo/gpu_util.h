/* Host-side logic of the nccl backend that needs no CUDA headers: device selection, version
 * strings and error classification. Unit tested on machines without a GPU. */
#ifndef SP_GPU_UTIL_H
#define SP_GPU_UTIL_H

#include <stddef.h>

#include "status.h"

/* cudaError_t and ncclResult_t values this code classifies (checked against the real headers
 * with static assertions in backend_nccl.c). */
#define SP_CUDA_ERROR_INSUFFICIENT_DRIVER 35
#define SP_CUDA_ERROR_NO_DEVICE 100
#define SP_NCCL_INVALID_ARGUMENT 4
#define SP_NCCL_INVALID_USAGE 5
#define SP_NCCL_IN_PROGRESS 7

/*
 * The GPU of a rank: the override when >= 0 (must be < ndev), else local_rank % ndev (with
 * per-task binding each rank sees one device, its own). Whether two ranks of the node then share
 * a device (NCCL refuses that) is for the caller to find from the bus ids
 * (sp_gpu_find_shared_device). Returns SP_ERR_INVALID with a message when no device is visible
 * or the override is out of range.
 */
sp_status_t sp_gpu_select_device(int local_rank, int local_size, int ndev, int override,
                                 int *device_p, char *err, size_t errlen);

/* "13.0" from CUDA's 13000; "12.4" from 12040. */
void sp_gpu_cuda_version_str(int code, char *out, size_t outlen);

/* "2.28.9" from NCCL's 22809 (codes since 2.9) or 2708 (older: major*1000+minor*100+patch). */
void sp_gpu_nccl_version_str(int code, char *out, size_t outlen);

/* CUDA error: no device or no driver is SP_ERR_UNSUPPORTED (the job cannot use a GPU here),
 * anything else SP_ERR_DEVICE. */
sp_status_t sp_gpu_classify_cuda(int cuda_error);

/* NCCL result: invalid argument/usage is SP_ERR_INVALID, in-progress SP_OK, else SP_ERR_DEVICE. */
sp_status_t sp_gpu_classify_nccl(int nccl_result);

#endif
