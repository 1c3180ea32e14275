# shellcheck shell=bash
# A throw-away Slurm for the cluster tests (sourced after lib.sh and hosts.sh): a private munged,
# slurmctld and slurmd, no accounting database, no cgroups, all state under $CL_RUN/slurm and PID
# files under $CL_RUN/pids (lib.sh stops them). Two layouts:
#   slurm_up solo     one node with the machine's own host name, in a network namespace of its
#                     own, TAG-solo (so its ports clash with nothing)
#   slurm_up hosts N  one slurmd per emulated host h1..hN (hosts_up first), slurmctld on h1
# Clients run where the controller is: slurm_on CMD...

# munged on a socket of our own; Slurm finds it through AuthInfo
munge_up() {
  local i
  mkdir -p "$CL_RUN/munge"
  chmod 755 "$CL_RUN/munge"
  mungekey --create --keyfile="$CL_RUN/munge/munge.key" || return 1
  CL_MUNGE_SOCKET=$CL_RUN/munge/munge.sock
  timeout 30 munged --socket="$CL_MUNGE_SOCKET" --key-file="$CL_RUN/munge/munge.key" \
    --pid-file="$CL_RUN/pids/munged.pid" --log-file="$CL_RUN/log/munged.log" \
    --seed-file="$CL_RUN/munge/seed" || return 1
  for i in $(seq 50); do
    unmunge -S "$CL_MUNGE_SOCKET" < <(munge -S "$CL_MUNGE_SOCKET" -n 2>/dev/null) >/dev/null 2>&1 &&
      return 0
    sleep 0.1
  done
  echo "munge_up: munged does not answer" >&2
  return 1
}

slurm_on() {
  if [ "$CL_SLURM_MODE" = solo ]; then
    ip netns exec "$CL_TAG-solo" "$@"
  else
    on_host h1 "$@"
  fi
}

# slurm_up solo | slurm_up hosts N [CPUS]: start the cluster and wait until every node is idle
slurm_up() {
  local mode=$1 n=${2:-1} cpus=${3:-8} base=$CL_RUN/slurm conf nodes ctl i idle t end
  t=$EPOCHREALTIME
  CL_SLURM_MODE=$mode
  munge_up || return 1
  mkdir -p "$base"/{state,spool,tmp}
  conf=$base/slurm.conf
  case $mode in
    solo)
      nodes=$(hostname -s)
      ctl="$nodes(127.0.0.1)"
      ip netns add "$CL_TAG-solo" || return 1
      ip -n "$CL_TAG-solo" link set lo up
      # Slurm resolves addresses with AI_ADDRCONFIG, which finds no IPv4 address (not even
      # 127.0.0.1) while the namespace has no non-loopback one: give it a veth pair with one
      # address of the test subnet, cabled to nothing else
      ip -n "$CL_TAG-solo" link add eth0 type veth peer name eth1 || return 1
      ip -n "$CL_TAG-solo" addr add "$CL_SUBNET.1/24" dev eth0
      ip -n "$CL_TAG-solo" link set eth0 up
      ip -n "$CL_TAG-solo" link set eth1 up
      ;;
    hosts) nodes=$(seq -f 'h%g' -s ' ' 1 "$n") ctl="h1($CL_SUBNET.1)" ;;
    *)
      echo "slurm_up: unknown layout $mode" >&2
      return 2
      ;;
  esac
  for i in $nodes; do mkdir -p "$base/spool/$i" "$base/tmp/$i"; done
  cat >"$conf" <<EOF
# Written by tests/cluster/slurm.sh ($mode): a CI cluster without accounting or cgroups.
ClusterName=scaleprobe-ci
SlurmctldHost=$ctl
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$CL_MUNGE_SOCKET
# Debian's Open MPI has a PMIx client only (no PMI-1/2)
MpiDefault=pmix
# process tracking and task launch that need no cgroups (a container or a VM)
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
# nodes claim more CPUs than the machine has (ranks are oversubscribed on purpose)
SlurmdParameters=config_overrides
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
MinJobAge=300
KillWait=5
Waittime=0
MessageTimeout=30
MailProg=/bin/true
# a rank that dies ends its step; otherwise the others may wait for it forever
KillOnBadExit=1
StateSaveLocation=$base/state
SlurmdSpoolDir=$base/spool/%n
# mpi/pmix keeps its per-step directory under TmpFS: one per node, or nodes on one machine collide
TmpFS=$base/tmp/%n
SlurmctldPidFile=$CL_RUN/pids/slurmctld.pid
SlurmdPidFile=$CL_RUN/pids/slurmd-%n.pid
SlurmctldLogFile=$CL_RUN/log/slurmctld.log
SlurmdLogFile=$CL_RUN/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
SlurmctldPort=16817
SlurmdPort=16818
EOF
  if [ "$mode" = solo ]; then
    echo "NodeName=$nodes NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=4000 State=UNKNOWN" >>"$conf"
  else
    for i in $(seq 1 "$n"); do
      echo "NodeName=h$i NodeAddr=$CL_SUBNET.$i CPUs=$cpus RealMemory=4000 State=UNKNOWN" >>"$conf"
    done
  fi
  echo "PartitionName=ci Nodes=${nodes// /,} Default=YES MaxTime=INFINITE State=UP" >>"$conf"
  # slurmd always loads a cgroup plugin; "autodetect" fails under `ip netns exec`, whose /sys has
  # no cgroup mount. Naming v1 skips the probe; the plugins above never use it.
  echo "CgroupPlugin=cgroup/v1" >"$base/cgroup.conf"
  # Slurm 22.05's default PMIx fence crashed Open MPI 4.1.4's MPI_Init now and then on 2+ nodes;
  # the ring fence did not
  echo "PMIxCollFence=ring" >"$base/mpi.conf"
  export SLURM_CONF=$conf

  # -i: no state from a previous run. Both daemonize and write their PID files.
  slurm_on timeout 30 slurmctld -f "$conf" -i || return 1
  end=$((SECONDS + 20))
  until [[ $(slurm_on timeout 5 scontrol ping 2>/dev/null) == *UP* ]]; do
    [ "$SECONDS" -lt "$end" ] || break
    sleep 0.1
  done
  if [ "$mode" = solo ]; then
    slurm_on timeout 30 slurmd -f "$conf" || return 1
  else
    for i in $nodes; do on_host "$i" timeout 30 slurmd -f "$conf" || return 1; done
  fi
  # shellcheck disable=SC2086 # the node names, one word each
  set -- $nodes
  end=$((SECONDS + 30))
  while [ "$SECONDS" -lt "$end" ]; do
    idle=$(slurm_on timeout 5 sinfo -h -t idle -o '%D' 2>/dev/null |
      awk '{ s += $1 } END { print s + 0 }')
    if [ "$idle" -ge $# ]; then
      cl_log "slurm ($mode): $# node(s) idle: $nodes, up in $(cl_since "$t")s"
      return 0
    fi
    sleep 0.1
  done
  echo "slurm_up: nodes not idle after 30 s" >&2
  slurm_on timeout 5 sinfo >&2
  tail -n 20 "$CL_RUN"/log/slurm*.log >&2
  return 1
}

# sbatch_wait LIMIT_S SBATCH-ARGS...: submit, poll scontrol until the job ends (there is no
# slurmdbd to ask afterwards) and print "JOBID STATE"; status 0 when it COMPLETED. A job still
# running after LIMIT_S is cancelled.
sbatch_wait() {
  local limit=$1 jid state t
  shift
  t=$EPOCHREALTIME
  jid=$(slurm_on timeout 30 sbatch --parsable "$@") || return 1
  jid=${jid%%;*}
  while :; do
    state=$(slurm_on timeout 10 scontrol show job -o "$jid" 2>/dev/null |
      grep -o 'JobState=[A-Z_]*')
    state=${state#JobState=}
    case $state in
      PENDING | CONFIGURING | RUNNING | COMPLETING | "") ;;
      *) break ;;
    esac
    if awk -v a="$t" -v b="$EPOCHREALTIME" -v l="$limit" 'BEGIN { exit !(b - a > l) }'; then
      slurm_on timeout 10 scancel "$jid"
      state="TIMEOUT(test)"
      break
    fi
    sleep 0.2
  done
  echo "$jid $state"
  [ "$state" = COMPLETED ]
}
