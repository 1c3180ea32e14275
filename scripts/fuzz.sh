#!/usr/bin/env bash
# Build the libFuzzer harnesses (clang, AddressSanitizer + UndefinedBehaviorSanitizer) in
# build-fuzz/ and run each for a bounded time from its seed corpus; fail on a crash.
#   scripts/fuzz.sh [SECONDS per harness, default 60]
# The reader harness also gets three real result files made by the fresh binary as seeds.
# A crash leaves its input as build-fuzz/fuzz/crash-*: fix it, then copy the input into
# tests/fuzz/corpus/<harness>/ as a regression case (ctest -L fuzz in a fuzz build replays them).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-60}
build="$root/build-fuzz"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_hwloc_base_binding_policy=none
# allocator_may_return_null: HDF5 checks malloc, and a damaged file asks it for absurd sizes;
# max_allocation_size_mb: and fails at once on those. Without it ASan maps and, on free, poisons
# gigabytes: one damaged file (corpus/reader/timeout-huge-alloc) took 37.6 s instead of 0.4 s and
# ended a CI run as a libFuzzer timeout
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:allocator_may_return_null=1:max_allocation_size_mb=1024
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

CC=clang cmake -S "$root" -B "$build" -DSCALEPROBE_CUDA=OFF -DSCALEPROBE_FUZZ=ON \
  -DSCALEPROBE_SANITIZE=address,undefined -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null || exit 1
nice cmake --build "$build" -j2 --target scaleprobe fuzz_options fuzz_reader fuzz_spec \
  >/dev/null || exit 1

work="$build/fuzz"
rm -rf "$work"
for h in options reader spec; do
  mkdir -p "$work/$h"
  cp "$root"/tests/fuzz/corpus/$h/* "$work/$h/" 2>/dev/null
done
# real files as reader seeds (the sanitized binary makes them)
sp="$build/scaleprobe"
model=(--layers 2 --hidden 256 --heads 4 --ffn 512 --seq 64 --vocab 1000 --microbatches 2)
timeout 120 mpirun -np 2 "$sp" coll -b 64 -e 256 -f 4 -n 3 -O "$work/reader/coll.h5" </dev/null >/dev/null 2>&1
timeout 120 mpirun -np 2 "$sp" proxy "${model[@]}" --steps 2 -O "$work/reader/proxy.h5" </dev/null >/dev/null 2>&1
timeout 120 mpirun -np 2 "$sp" node -n 2 --gemm-n 32 -O "$work/reader/node.h5" </dev/null >/dev/null 2>&1

status=0
total=0
for h in options reader spec; do
  (cd "$work" && nice "$build/tests/fuzz/fuzz_$h" "$work/$h" -max_total_time="$secs" \
    -timeout=20 -rss_limit_mb=4096 -max_len=65536 -close_fd_mask=3 -print_final_stats=1 \
    -artifact_prefix="$work/crash-$h-" >"$work/$h.log" 2>&1)
  rc=$?
  runs=$(grep -m1 'stat::number_of_executed_units' "$work/$h.log" | awk '{print $2}')
  total=$((total + ${runs:-0}))
  if [ "$rc" -ne 0 ]; then
    status=1
    echo "fuzz_$h: CRASH (exit $rc) after ${runs:-?} executions; input: $(ls "$work"/crash-"$h"-* 2>/dev/null)"
    grep -m20 -E 'ERROR|SUMMARY|#[0-9]+ ' "$work/$h.log"
  else
    echo "fuzz_$h: ${runs:-?} executions in ${secs} s, no crash"
  fi
done
echo "fuzz: $total executions in all"
exit $status
