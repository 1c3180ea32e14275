# Shared helpers of the end-to-end tests (sourced). $SCALEPROBE is the binary under test.
set -uo pipefail
: "${SCALEPROBE:?set SCALEPROBE to the scaleprobe binary}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_hwloc_base_binding_policy=none

TMP=$(mktemp -d /tmp/sp-e2e.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
failures=0
checks=0

ok() { checks=$((checks + 1)); echo "ok   - $*"; }
not_ok() { checks=$((checks + 1)); failures=$((failures + 1)); echo "FAIL - $*"; }

# mpirun NP ARGS... with a timeout, so a hang fails the test instead of stalling CI
sp_mpirun() {
  local np=$1
  shift
  timeout 120 mpirun -np "$np" "$SCALEPROBE" "$@"
}

finish() {
  echo "$((checks - failures)) passed, $failures failed"
  [ "$failures" -eq 0 ]
  exit $?
}
