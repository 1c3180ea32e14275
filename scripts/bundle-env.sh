#!/usr/bin/env bash
# The bundle's wrapper (copied to the bundle as `sp`): runs a command with the bundle's
# scaleprobe, libraries and Open MPI runtime, and the GPU libraries of this machine.
#   sp scaleprobe coll -b 8 -e 1M -O r.h5       one rank, no mpirun (Open MPI singleton)
#   sp mpirun -np 2 scaleprobe coll ...         the bundle's mpirun
#   sp env                                      what it sets
# Needs only glibc (and, for the GPU, the NVIDIA driver, NCCL and cuBLAS of this machine).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=gpu-libs.sh
. "$here/scripts/gpu-libs.sh"

gpu_dirs=$(sp_gpu_lib_dirs | paste -sd: -)
export PATH="$here/bin:$here/ompi/bin:$PATH"
export LD_LIBRARY_PATH="$here/lib${gpu_dirs:+:$gpu_dirs}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# Open MPI relocated: its components, help files and orted under ompi/ (Debian's layout)
export OPAL_PREFIX="$here/ompi"
export PMIX_MCA_mca_base_component_path="$here/ompi/lib/pmix"
export PMIX_INSTALL_PREFIX="$here/ompi/pmix"
# what Debian's openmpi-mca-params.conf says, since /etc/openmpi is not there
export OMPI_MCA_btl_base_warn_component_unused=0
export OMPI_MCA_mtl="^ofi" OMPI_MCA_btl="^uct,openib,ofi" OMPI_MCA_pml="^ucx"
export OMPI_MCA_osc="^ucx,pt2pt"
# no ssh/rsh (a bare GPU machine, the chroot test): mpirun launches on this node only
if ! command -v ssh >/dev/null 2>&1 && ! command -v rsh >/dev/null 2>&1; then
  export OMPI_MCA_plm=${OMPI_MCA_plm:-isolated}
fi
# one rank without mpirun: a singleton that starts no orted
export OMPI_MCA_ess_singleton_isolated=1
# scaleprobe's threads must not share the one core each rank would be bound to
export OMPI_MCA_hwloc_base_binding_policy=${OMPI_MCA_hwloc_base_binding_policy:-none}
export OMPI_MCA_rmaps_base_oversubscribe=${OMPI_MCA_rmaps_base_oversubscribe:-1}
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
if [ $# -eq 0 ]; then
  sed -n '2,7p' "$0"
  exit 2
fi
exec "$@"
