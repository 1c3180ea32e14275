# shellcheck shell=bash
# Shared helpers of the cluster tests (sourced): when to skip, a private state directory per run,
# a teardown that runs on every exit (and that a later run repeats for a run that was killed),
# bounded launches, and ok/not_ok/finish with elapsed times.
#
# Everything a run creates carries its tag, the name of its state directory (/tmp/spc-XXXXXX):
# namespaces TAG-h1.., TAG-sw, TAG-solo; cgroups /sys/fs/cgroup/cpu/TAG-hN; /etc/netns/TAG-*;
# /dev/shm/TAG. Its daemons write PID files under $CL_RUN/pids. Two runs on one machine share
# nothing (not even munged or a port), so they may overlap.
set -uo pipefail
: "${SCALEPROBE:?set SCALEPROBE to the scaleprobe binary}"
# shellcheck disable=SC2034 # used by the tests that source this file
CL_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CL_T0=$EPOCHREALTIME
CL_FAILURES=0
CL_CHECKS=0

# seconds since T (an $EPOCHREALTIME value), one decimal
cl_since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }
cl_log() { echo "[$(cl_since "$CL_T0")s] $*"; }
ok() { CL_CHECKS=$((CL_CHECKS + 1)); cl_log "ok   - $*"; }
not_ok() { CL_CHECKS=$((CL_CHECKS + 1)); CL_FAILURES=$((CL_FAILURES + 1)); cl_log "FAIL - $*"; }
# check DESCRIPTION CMD...: ok when CMD succeeds
check() {
  local what=$1
  shift
  if "$@"; then ok "$what"; else not_ok "$what"; fi
}
# known DESCRIPTION CMD...: a check that the current analysis does not pass reliably yet. It is
# run and its outcome printed (held / missed), but it does not fail the test; once the analysis
# passes it every time, turn it into a check.
known() {
  local what=$1
  shift
  if "$@"; then cl_log "known, held   - $what"; else cl_log "known, missed - $what"; fi
}

# --- when the test cannot run here at all: 77 (ctest SKIP_RETURN_CODE). Missing packages are
# not a reason: scripts/install-deps.sh installs them, so they fail the test.
if [ "$(id -u)" -ne 0 ]; then
  echo "SKIP: the cluster tests need root (network namespaces, daemons, cgroups)"
  exit 77
fi
cl_missing=""
for c in ip tc unshare timeout munged mungekey munge slurmctld slurmd srun sbatch scontrol sinfo \
  mpirun h5dump; do
  command -v "$c" >/dev/null || cl_missing="$cl_missing $c"
done
if [ -n "$cl_missing" ]; then
  echo "FAIL: missing commands:$cl_missing (run scripts/install-deps.sh)"
  exit 1
fi
cl_probe=spc-probe-$$
if ! ip netns add "$cl_probe" 2>/dev/null; then
  echo "SKIP: cannot create network namespaces here (ip netns add failed)"
  exit 77
fi
if ! ip netns exec "$cl_probe" unshare --uts true 2>/dev/null; then
  ip netns del "$cl_probe"
  echo "SKIP: cannot enter a network and UTS namespace here"
  exit 77
fi
ip netns del "$cl_probe"

# --- teardown of one run, from what its state directory names. Used at exit and for stale runs.
# cl_stop_pids PID...: SIGTERM to all, up to 5 s to exit, then SIGKILL
cl_stop_pids() {
  local pid left
  kill -TERM "$@" 2>/dev/null
  for _ in $(seq 50); do
    left=""
    for pid in "$@"; do kill -0 "$pid" 2>/dev/null && left="$left $pid"; done
    [ -z "$left" ] && return 0
    sleep 0.1
  done
  echo "teardown: pid(s)$left ignored SIGTERM for 5 s, killing them" >&2
  # shellcheck disable=SC2086
  kill -KILL $left 2>/dev/null
  return 0
}

cl_teardown() {
  local run=$1 tag ns pids p f cg
  tag=${run##*/}
  # the daemons, by PID file (a throw-away cluster: no order to keep)
  pids=""
  for f in "$run"/pids/*.pid; do
    # only while the pid is still the daemon the file is named for (slurmd-h1.pid: slurmd)
    p=$(cat "$f" 2>/dev/null)
    f=${f##*/}
    [ -n "$p" ] && [ "$(cat "/proc/$p/comm" 2>/dev/null)" = "${f%%[-.]*}" ] && pids="$pids $p"
    rm -f "$run/pids/$f"
  done
  # shellcheck disable=SC2086
  [ -n "$pids" ] && cl_stop_pids $pids
  # whatever still runs inside this run's namespaces was started by it (mpirun, orted, ranks,
  # slurmstepd and their tasks): nothing else can enter them
  for ns in $(ip netns list | awk -v t="$tag-" 'index($1, t) == 1 { print $1 }'); do
    pids=$(ip netns pids "$ns" 2>/dev/null | tr '\n' ' ')
    if [ -n "$pids" ]; then
      echo "teardown: killing leftover processes in $ns: $pids" >&2
      # shellcheck disable=SC2086
      kill -KILL $pids 2>/dev/null
    fi
  done
  # until they are gone: a cgroup or namespace with members cannot be removed
  for _ in $(seq 30); do
    pids=""
    for ns in $(ip netns list | awk -v t="$tag-" 'index($1, t) == 1 { print $1 }'); do
      pids="$pids$(ip netns pids "$ns" 2>/dev/null)"
    done
    [ -z "$pids" ] && break
    sleep 0.1
  done
  for cg in /sys/fs/cgroup/cpu/"$tag"-*; do
    [ -d "$cg" ] || continue
    while read -r p; do
      echo "$p" >/sys/fs/cgroup/cpu/cgroup.procs 2>/dev/null
    done <"$cg/cgroup.procs"
    rmdir "$cg" 2>/dev/null || echo "teardown: cannot remove cgroup $cg" >&2
  done
  for ns in $(ip netns list | awk -v t="$tag-" 'index($1, t) == 1 { print $1 }'); do
    ip netns del "$ns" || echo "teardown: cannot delete namespace $ns" >&2
  done
  rm -rf /etc/netns/"$tag"-*
  rmdir /etc/netns 2>/dev/null
  rm -rf "/dev/shm/$tag"
  if [ "${SP_CLUSTER_KEEP:-0}" = 1 ] && [ "$run" = "${CL_RUN:-}" ]; then
    echo "state and logs kept in $run (SP_CLUSTER_KEEP=1)"
  else
    rm -rf "$run"
  fi
  return 0
}

# A run that ctest killed (SIGKILL on its TIMEOUT) could not tear down: the next run does it.
cl_reap_stale() {
  local d pid start
  for d in /tmp/spc-??????; do
    [ -d "$d" ] || continue
    if [ -s "$d/owner" ]; then
      read -r pid start <"$d/owner"
      # alive and the same process (its start time guards against a reused pid)
      if [ -r "/proc/$pid/stat" ] && [ "$(awk '{ print $22 }' "/proc/$pid/stat")" = "$start" ]; then
        continue
      fi
    elif [ -z "$(find "$d" -maxdepth 0 -mmin +1)" ]; then
      continue # being created right now
    fi
    echo "tearing down the stale run $d" >&2
    cl_teardown "$d"
  done
  # the probe namespace of a run killed within its first moment
  for d in $(ip netns list | awk '$1 ~ /^spc-probe-[0-9]+$/ { print $1 }'); do
    kill -0 "${d#spc-probe-}" 2>/dev/null || ip netns del "$d"
  done
}

cl_reap_stale
CL_RUN=$(mktemp -d /tmp/spc-XXXXXX)
echo "$$ $(awk '{ print $22 }' /proc/$$/stat)" >"$CL_RUN/owner"
# munged wants every directory above its socket searchable by all
chmod 755 "$CL_RUN"
CL_TAG=${CL_RUN##*/}
export CL_RUN CL_TAG # for on-host.sh and rsh-agent.sh
mkdir -p "$CL_RUN"/{pids,log,tmp,work} "/dev/shm/$CL_TAG"
CL_LAUNCH_PID=""
cl_exit() {
  local rc=$?
  trap - EXIT INT TERM
  local t=$EPOCHREALTIME
  kill -TERM "$CL_WATCHDOG_PID" 2>/dev/null
  # a launch cut short by a signal: its timeout ends it (and, with -k, kills what remains)
  [ -n "$CL_LAUNCH_PID" ] && kill -TERM "$CL_LAUNCH_PID" 2>/dev/null
  cl_teardown "$CL_RUN"
  cl_log "teardown took $(cl_since "$t")s"
  exit "$rc"
}
trap cl_exit EXIT
trap 'cl_log "terminated by a signal (or the ${CL_BUDGET_S}s budget)"; exit 143' INT TERM
# The whole test ends, torn down, within CL_BUDGET_S seconds: before ctest's TIMEOUT, which
# would kill it with no teardown (the next run would do it).
CL_BUDGET_S=${CL_BUDGET_S:-200}
(
  trap 'kill "$sleeper" 2>/dev/null; exit 0' TERM
  sleep "$CL_BUDGET_S" &
  sleeper=$!
  wait "$sleeper" && kill -TERM $$
) &
CL_WATCHDOG_PID=$!

# The launch environment: every MPI job of a run shares one private shared-memory directory and
# temporary directory (Open MPI's session directories, PMIx), both removed at teardown.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_backing_directory=/dev/shm/$CL_TAG
export TMPDIR=$CL_RUN/tmp
# More ranks than the 2 cores: ranks must yield while they poll. mpirun --oversubscribe would set
# this itself; under srun Open MPI cannot know (Slurm's node has more CPUs than the machine).
export OMPI_MCA_mpi_yield_when_idle=1

# cl_launch NAME LIMIT_S CMD...: run CMD bounded by LIMIT_S seconds, output to $CL_RUN/log/NAME.log;
# prints how long it took; returns CMD's status (124 on timeout)
cl_launch() {
  local name=$1 limit=$2 t rc
  shift 2
  t=$EPOCHREALTIME
  # in the background, so that a SIGTERM to the test is handled at once, not after the launch
  timeout -k 5 "$limit" "$@" >"$CL_RUN/log/$name.log" 2>&1 &
  CL_LAUNCH_PID=$!
  wait "$CL_LAUNCH_PID"
  rc=$?
  CL_LAUNCH_PID=""
  cl_log "$name: rc=$rc in $(cl_since "$t")s"
  [ "$rc" -eq 124 ] && echo "     | timed out after ${limit}s"
  return "$rc"
}

# cl_tail NAME: the end of a launch's log, indented
cl_tail() { tail -n "${2:-15}" "$CL_RUN/log/$1.log" | sed 's/^/     | /'; }

# h5 helpers: the /status attribute, the node count and the distinct host names of /topology
h5_status() { h5dump -a /status "$1" 2>/dev/null | awk -F'"' '/\(0\)/ { print $2 }'; }
h5_nodes() { h5dump -a /topology/node_count "$1" 2>/dev/null | awk '/\(0\)/ { print $2 }'; }
h5_hosts() {
  # each /topology/ranks row is {rank, node, local_rank, local_size, "host", "device", "bus_id"}
  h5dump -A 0 -d /topology/ranks "$1" 2>/dev/null |
    awk '/^ *\([0-9]+\): \{/ { row = 1; q = 0; next }
      row && /"/ && ++q == 1 { gsub(/[", ]/, ""); print }' |
    sort -u | tr '\n' ' ' | sed 's/ $//'
}

finish() {
  cl_log "$((CL_CHECKS - CL_FAILURES)) of $CL_CHECKS checks passed; elapsed $(cl_since "$CL_T0")s"
  echo "$((CL_CHECKS - CL_FAILURES)) passed, $CL_FAILURES failed"
  [ "$CL_FAILURES" -eq 0 ]
  exit $?
}
