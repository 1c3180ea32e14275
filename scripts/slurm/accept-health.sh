#!/usr/bin/env bash
# Slurm Prolog= / Epilog= example: the health half of `scaleprobe accept` on this node, in a few
# seconds (no MPI launch: one singleton process; no performance gate). On a failing node it
# PRINTS the drain command and never runs it: review it, then make the script run it (or let
# Slurm drain on the non-zero exit: a failing Prolog drains the node by itself).
#
#   Prolog=/opt/scaleprobe/scripts/slurm/accept-health.sh     (slurm.conf, or Epilog=)
#   ACCEPT_SPEC=/etc/scaleprobe/h100x8.json                    (the spec; required)
#   SCALEPROBE=/opt/scaleprobe/bin/scaleprobe                  (default: scaleprobe on PATH)
#   ACCEPT_DIR=/var/log/scaleprobe                             (result, JSON, JUnit; default /tmp)
#   ACCEPT_WINDOW=2                                            (seconds between the two readings
#                                                               of the InfiniBand error counters)
# Exit: 0 healthy (warnings included), 1 a check failed, 2 the spec or an option is bad.
set -uo pipefail

spec=${ACCEPT_SPEC:?set ACCEPT_SPEC to the accept spec file}
bin=${SCALEPROBE:-scaleprobe}
dir=${ACCEPT_DIR:-/tmp}
window=${ACCEPT_WINDOW:-2}
node=${SLURMD_NODENAME:-$(hostname -s)}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
base=$dir/accept-health-$node-${SLURM_JOB_ID:-nojob}-$stamp

# a singleton needs no launcher; as root (the slurmd runs Prolog as root) Open MPI must be told
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
"$bin" accept "$spec" --health-only --backend host --window "$window" \
  -O "$base.h5" --json "$base.json" --junit "$base.xml" --exclude "$base.exclude" \
  >"$base.txt" 2>&1
rc=$?
if [ "$rc" -eq 1 ]; then
  # the failed checks, for the drain reason: "check=value" of every FAIL line of the table
  reason=$(awk '$1 !~ /^#/ && $5 == "FAIL" {printf "%s%s=%s", sep, $4, $6; sep=","}' "$base.txt" | cut -c1-200)
  echo "scaleprobe accept: $node FAILED ($reason); evidence in $base.txt"
  echo "to drain it:"
  echo "  scontrol update nodename=$node state=drain reason=\"scaleprobe accept: $reason\""
elif [ "$rc" -ne 0 ]; then
  echo "scaleprobe accept: could not judge $node (exit $rc): $(tail -n 3 "$base.txt")"
fi
exit "$rc"
