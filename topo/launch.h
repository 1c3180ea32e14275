/* How a job was launched, for /launch: the launcher (mpirun, srun, another PMIx launcher or a
 * singleton), the Slurm job's identity and shape, and the point-to-point layer (PML) Open MPI
 * selected. Pure functions over an environment and a /proc/self/maps text, so tests can feed
 * them; sp_launch_self_pml reads this process's maps. */
#ifndef SP_LAUNCH_H
#define SP_LAUNCH_H

#include <stddef.h>

#include "kv.h"

/* The launcher and the Slurm job of env (NAME=VALUE strings, NULL-terminated), as key/value
 * pairs: "launcher" always ("mpirun" when Open MPI's mpirun started the rank, "srun" for a
 * Slurm step launched directly over PMIx, "pmix" for another PMIx launcher, "singleton"
 * otherwise), then those Slurm fields that are set: slurm_job_id, slurm_step_id,
 * slurm_job_nodelist, slurm_job_num_nodes, slurm_ntasks, slurm_tasks_per_node,
 * slurm_cpus_per_task, slurm_gpus_per_task, slurm_partition, slurm_cluster_name. Values are
 * truncated to the kv size. Returns how many were written (at most max). */
int sp_launch_describe(char *const *env, sp_kv_t *out, int max);

/* The PML of a maps text: the name <x> of the one mapped mca_pml_<x>.so ("ob1", "ucx"), "-"
 * when none is mapped (the PML is built into the library, or not Open MPI), "?" when several
 * are (selection not finished). */
void sp_launch_pml_from_maps(const char *maps, char *out, size_t outlen);

/* The same for this process (reads /proc/self/maps; "-" when it cannot be read). */
void sp_launch_self_pml(char *out, size_t outlen);

#endif
