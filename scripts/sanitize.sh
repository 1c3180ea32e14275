#!/usr/bin/env bash
# The whole test suite on an AddressSanitizer + UndefinedBehaviorSanitizer build (clang) in
# build-asan/: every unit, MPI and end-to-end test runs the sanitized binary and libraries.
#   scripts/sanitize.sh [ctest arguments, e.g. -R unit -j2]
# Leak checking is off: Open MPI and HDF5 keep allocations until exit by design.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build-asan"
export ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1:abort_on_error=1:max_allocation_size_mb=4096
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# (warnings as errors stay with the gcc build of scripts/test.sh: clang warns differently)
CC=clang cmake -S "$root" -B "$build" -DSCALEPROBE_CUDA=OFF -DSCALEPROBE_WERROR=OFF \
  -DSCALEPROBE_SANITIZE=address,undefined >/dev/null || exit 1
nice cmake --build "$build" -j2 >/dev/null || exit 1
cd "$build" && nice ctest --no-tests=error -LE "timing|cluster" --output-on-failure "$@"
