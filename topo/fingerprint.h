/* The configuration fingerprint of a run: library versions, kernel, and the environment, taken
 * only by allow-list and with secret-looking values redacted, so nothing secret leaves the
 * machine in a result file. */
#ifndef SP_FINGERPRINT_H
#define SP_FINGERPRINT_H

#include <stddef.h>

#include "kv.h"

/* 1 when an environment variable of this name may be recorded (NCCL_*, UCX_*, OMPI_*, PMIX_*,
 * SLURM_*, CUDA_*, NVIDIA_*, HWLOC_*, OMP_*, and a few single names). */
int sp_env_allowed(const char *name);

/* 1 when a name looks secret (contains TOKEN, SECRET, KEY, PASSWORD, PASSWD or CREDENTIAL,
 * in any case): its value is recorded as "<redacted>". */
int sp_env_secret(const char *name);

/* Allow-listed entries of env (NAME=VALUE strings, NULL-terminated), sorted by name, secrets
 * redacted. Returns how many were written (at most max). */
int sp_env_capture(char *const *env, sp_kv_t *out, int max);

/* Library and system versions of this process: MPI library, HDF5, kernel. Returns how many. */
int sp_fingerprint_versions(sp_kv_t *out, int max);

#endif
