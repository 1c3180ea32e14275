#!/usr/bin/env bash
# The main job: build if needed, run a 4-rank collective sweep and a 2x2 pipeline/data-parallel
# training proxy on the host backend, write their result files under results/, print each table and then the report
# read back from the file.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${SCALEPROBE_BUILD_DIR:-$top/build}
results=${SCALEPROBE_RESULTS:-$top/results}
np=${SCALEPROBE_NP:-4}

if [ ! -x "$build/scaleprobe" ]; then
  SCALEPROBE_DEPS=run SCALEPROBE_TARGET=scaleprobe SCALEPROBE_CMAKE_LOG=/dev/null \
    "$top/scripts/build.sh"
fi
out="$results/coll-$(date -u +%Y%m%d-%H%M%S)-$$.h5"
echo "== scaleprobe coll: $np ranks, host backend, every collective, 8 B .. 1 MiB"
SCALEPROBE_BUILD_DIR=$build "$top/scripts/mpirun.sh" "$np" coll --backend host --collectives all \
  -b 8 -e 1M -f 4 --max-time 0.5 -O "$out"
echo
echo "== scaleprobe report $out"
"$build/scaleprobe" report "$out"

out="$results/proxy-$(date -u +%Y%m%d-%H%M%S)-$$.h5"
echo
echo "== scaleprobe proxy: 2 pipeline stages x 2 data-parallel (DDP), 1F1B, 8 microbatches, host streams"
SCALEPROBE_BUILD_DIR=$build "$top/scripts/mpirun.sh" "$np" proxy --hidden 512 --ffn 2048 \
  --heads 8 --seq 256 --layers 8 --vocab 4096 --tflops 1 --pp 2 --dp 2 --bucket-mb 1 \
  --schedule 1f1b --microbatches 8 --max-steps 12 -O "$out"
echo
echo "== scaleprobe report $out"
"$build/scaleprobe" report "$out"
