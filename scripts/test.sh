#!/usr/bin/env bash
# Install what is missing, build with warnings as errors, run every test with ctest.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${SCALEPROBE_BUILD_DIR:-$top/build}
SCALEPROBE_BUILD_DIR=$build "$top/scripts/build.sh" -DSCALEPROBE_WERROR=ON
cd "$build"
# timing-sensitive acceptance tests (label timing) run on demand: ctest -L timing
ctest --no-tests=error --output-on-failure -j2 -LE timing "$@"
