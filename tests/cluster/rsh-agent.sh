#!/usr/bin/env bash
# Stand-in for ssh as Open MPI's plm_rsh_agent across the emulated hosts of tests/cluster:
#   rsh-agent.sh [ssh options] HOST WORDS...
# runs WORDS (joined and given to /bin/sh, as ssh does) on emulated host HOST: in namespace
# $CL_TAG-HOST with a UTS namespace named HOST. The environment passes through unchanged.
set -u
: "${CL_TAG:?rsh-agent.sh: CL_TAG unset (run by tests/cluster/hosts.sh)}"
: "${CL_RUN:?rsh-agent.sh: CL_RUN unset}"
while [ $# -gt 0 ]; do
  case $1 in
    -x | -T | -t | -n | -q) shift ;;
    -o | -p | -l | -i) shift 2 ;;
    *) break ;;
  esac
done
host=$1
shift
# A straggler host (hosts.sh slow_cpu) has a cpu cgroup, announced by $CL_RUN/slow/HOST: join
# it before exec, so the orted and every rank it forks share its quota. mpirun runs under
# `ip netns exec`, which mounts a fresh /sys without cgroups, so the cpu hierarchy is mounted
# again in mpirun's own mount namespace (it vanishes with it; the root namespace never sees it).
if [ -e "$CL_RUN/slow/$host" ]; then
  cgroot=/sys/fs/cgroup/cpu
  if [ ! -d "$cgroot" ]; then
    cgroot=$CL_RUN/cgcpu
    mkdir -p "$cgroot"
    # agents for several hosts start at once: one mount wins, the others find it
    mounted() { grep -q " $cgroot cgroup " /proc/self/mounts; }
    mounted || mount -t cgroup -o cpu cgroup "$cgroot" 2>/dev/null
    mounted || { echo "rsh-agent: no cpu cgroup" >&2; exit 1; }
  fi
  echo $$ >"$cgroot/$CL_TAG-$host/cgroup.procs" || exit 1
fi
exec "$(dirname "$0")/on-host.sh" "$host" /bin/sh -c "$*"
