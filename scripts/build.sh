#!/usr/bin/env bash
# Configure and build scaleprobe into build/ (or $SCALEPROBE_BUILD_DIR). Extra arguments go to
# cmake's configure step, e.g. -DSCALEPROBE_CUDA=OFF or -DSCALEPROBE_WERROR=ON. SCALEPROBE_DEPS=run
# installs only what the build and the main job need (install-deps.sh run); SCALEPROBE_TARGET
# builds that target alone (the main job builds `scaleprobe`, not the ~100 test programs).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${SCALEPROBE_BUILD_DIR:-$top/build}
"$top/scripts/install-deps.sh" "${SCALEPROBE_DEPS:-test}"
# configure's output to $SCALEPROBE_CMAKE_LOG when set, else to ours as it is (a redirect to
# /dev/stdout would reopen a log file that stdout is, and truncate what came before)
if [ -n "${SCALEPROBE_CMAKE_LOG:-}" ]; then
  cmake -S "$top" -B "$build" "$@" >"$SCALEPROBE_CMAKE_LOG"
else
  cmake -S "$top" -B "$build" "$@"
fi
cmake --build "$build" -j"$(nproc)" ${SCALEPROBE_TARGET:+--target "$SCALEPROBE_TARGET"}
