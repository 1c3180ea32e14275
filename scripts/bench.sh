#!/usr/bin/env bash
# Run the benchmarks (builds if needed). Figures are ratios against a reference in the same job.
#   scripts/bench.sh [maxbytes] [samples]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${SCALEPROBE_BUILD_DIR:-$top/build}
[ -x "$build/bench/bench_allreduce" ] || SCALEPROBE_CMAKE_LOG=/dev/null "$top/scripts/build.sh"
for np in 2 4; do
  SCALEPROBE="$build/bench/bench_allreduce" "$top/scripts/mpirun.sh" "$np" "${1:-67108864}" "${2:-30}"
done
# recorder cost per event (no MPI), and aggregation at 8, 64 and 4096 (synthetic) ranks
"$build/bench/bench_recorder"
out=$(mktemp -d)
for n in 8 64 4096; do
  SCALEPROBE="$build/bench/bench_aggregate" "$top/scripts/mpirun.sh" 4 "$n" 2000 "$out/agg$n.h5"
done
rm -rf "$out"
