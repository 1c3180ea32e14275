#!/usr/bin/env bash
# Run the benchmarks (builds if needed). Figures are ratios against a reference in the same job.
#   scripts/bench.sh [maxbytes] [rounds]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${SCALEPROBE_BUILD_DIR:-$top/build}
[ -x "$build/bench/bench_allreduce" ] || SCALEPROBE_CMAKE_LOG=/dev/null "$top/scripts/build.sh"
for np in 2 4; do
  SCALEPROBE="$build/bench/bench_allreduce" "$top/scripts/mpirun.sh" "$np" "${1:-67108864}" "${2:-5}"
done
