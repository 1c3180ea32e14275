/* What a rank can learn of its hardware and loaded libraries without MPI: hwloc (binding, NUMA,
 * NICs, GPUs, CPU model), /proc/cpuinfo, NVML loaded at run time, and library versions looked up
 * in the running process. Every function records what it cannot find instead of failing. */
#ifndef SP_HWINFO_H
#define SP_HWINFO_H

#include <stddef.h>

#include "fingerprint.h"

/* hwloc: cpuset, numa, nics_near, nics, gpus and (when hwloc knows it) cpu_model of r. */
void sp_hwinfo_hwloc(sp_fp_rank_t *r);

/* The "model name" line of /proc/cpuinfo text into out ("" when there is none). */
void sp_hwinfo_cpuinfo_model(const char *text, char *out, size_t len);

/* cpu_model from /proc/cpuinfo when hwloc left it empty ("unknown" when neither knows). */
void sp_hwinfo_cpu_model(sp_fp_rank_t *r);

/* NVML, loaded with dlopen("libnvidia-ml.so.1"): nvml status, driver, cuda_driver (when empty),
 * and the gpu_* fields of the GPU with PCI bus id bus_id, or when that is not known ("" or "-")
 * of GPU local_rank % count. Without the library r->nvml is "absent". */
void sp_hwinfo_nvml(const char *bus_id, int local_rank, sp_fp_rank_t *r);

/* ucx, nccl, cuda_runtime and cuda_driver of libraries already loaded in this process (fields
 * that are already set are kept; "none" when the library is not loaded). */
void sp_hwinfo_libs(sp_fp_rank_t *r);

#endif
