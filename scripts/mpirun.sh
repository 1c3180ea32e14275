#!/usr/bin/env bash
# mpirun wrapper for scaleprobe on one machine or a cluster without Slurm:
#   scripts/mpirun.sh NP scaleprobe-args...
# It allows running as root (containers), oversubscribes when NP > cores, and does not bind:
# scaleprobe's timing threads must not share one core (see docs/METHODOLOGY.md). Extra mpirun
# options go in $MPIRUN_ARGS.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
np=${1:?usage: scripts/mpirun.sh NP scaleprobe-args...}
shift
bin=${SCALEPROBE:-${SCALEPROBE_BUILD_DIR:-$top/build}/scaleprobe}
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
# shellcheck disable=SC2086
exec mpirun -np "$np" --oversubscribe --bind-to none ${MPIRUN_ARGS:-} "$bin" "$@"
