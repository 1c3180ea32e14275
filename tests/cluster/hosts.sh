# shellcheck shell=bash
# shellcheck disable=SC2153 # CL_RUN and CL_TAG come from lib.sh
# Emulated hosts for the cluster tests (sourced after lib.sh): hosts h1..hN are network
# namespaces TAG-hI with eth0 = 10.77.0.I/24, cabled to a bridge that sits in a namespace of its
# own (TAG-sw), so the root namespace never routes their traffic and they reach nothing but each
# other. A command runs "on" hI inside TAG-hI plus a fresh UTS namespace whose hostname is hI:
# Open MPI and Slurm need distinct host names. Teardown (lib.sh) deletes it all.
CL_SUBNET=10.77.0
# every MPI job across hosts keeps its out-of-band and TCP traffic on the hosts' subnet
CL_NET_MCA=(--mca oob_tcp_if_include "$CL_SUBNET.0/24" --mca btl_tcp_if_include "$CL_SUBNET.0/24")

# hosts_up N: create h1..hN and wait until h1 reaches hN
hosts_up() {
  local n=$1 i j ns out
  ip netns add "$CL_TAG-sw" || return 1
  ip -n "$CL_TAG-sw" link set lo up
  ip -n "$CL_TAG-sw" link add br0 type bridge
  ip -n "$CL_TAG-sw" link set br0 up
  for i in $(seq 1 "$n"); do
    ns=$CL_TAG-h$i
    ip netns add "$ns" || return 1
    ip -n "$ns" link set lo up
    # both ends are created inside the namespaces, never in the root one
    ip -n "$ns" link add eth0 type veth peer name "sw-h$i" netns "$CL_TAG-sw" || return 1
    ip -n "$ns" addr add "$CL_SUBNET.$i/24" dev eth0
    ip -n "$ns" link set eth0 up
    ip -n "$CL_TAG-sw" link set "sw-h$i" master br0
    ip -n "$CL_TAG-sw" link set "sw-h$i" up
    # `ip netns exec` bind-mounts /etc/netns/NS/hosts over /etc/hosts: the names resolve
    mkdir -p "/etc/netns/$ns"
    {
      echo "127.0.0.1 localhost"
      for j in $(seq 1 "$n"); do echo "$CL_SUBNET.$j h$j"; done
    } >"/etc/netns/$ns/hosts"
  done
  # reachable once a connection to a closed port is refused at once (no ping needed)
  for i in $(seq 50); do
    out=$(on_host h1 timeout 2 bash -c "exec 3<>/dev/tcp/$CL_SUBNET.$n/9" 2>&1)
    [[ $out == *refused* ]] && return 0
    sleep 0.1
  done
  echo "hosts_up: h1 cannot reach h$n" >&2
  return 1
}

# on_host HOST CMD...: run CMD on emulated host HOST (on-host.sh; a command, so `timeout` takes it)
CL_ON_HOST=$CL_DIR/on-host.sh
on_host() { "$CL_ON_HOST" "$@"; }

# "${CL_MPIRUN[@]}" --host h1:2,h2:2 PROGRAM...: mpirun started on h1 across the hosts, its
# remote daemons launched through rsh-agent.sh instead of ssh
# shellcheck disable=SC2034 # used by the tests that source this file
CL_MPIRUN=("$CL_ON_HOST" h1 mpirun --oversubscribe --bind-to none
  --mca plm_rsh_agent "$CL_DIR/rsh-agent.sh" --mca plm_rsh_no_tree_spawn 1 "${CL_NET_MCA[@]}")

# "${CL_SRUN[@]}" --nodes=2 PROGRAM...: srun from h1 with the templates' options
# shellcheck disable=SC2034
CL_SRUN=("$CL_ON_HOST" h1 env "OMPI_MCA_btl_tcp_if_include=$CL_SUBNET.0/24"
  "OMPI_MCA_oob_tcp_if_include=$CL_SUBNET.0/24" srun --mpi=pmix --cpu-bind=none)

# slow_cpu HOST PERCENT: a straggler node. HOST's processes get PERCENT of one core (cgroup v1 cpu
# quota): rsh-agent.sh starts HOST's daemon, and so all its ranks, in cgroup TAG-HOST; a slurmd
# of this run on HOST is moved in, so its job steps inherit it. Not for h1, where mpirun forks
# its ranks itself. The period is 10 ms (the kernel's default, 100 ms, stalls the host for 90 ms
# now and then: a few huge samples that medians ignore, rather than a slow node).
slow_cpu() {
  local host=$1 pct=$2 cg=/sys/fs/cgroup/cpu/$CL_TAG-$1 period_us=10000
  mkdir -p "$cg" "$CL_RUN/slow" || return 1
  touch "$CL_RUN/slow/$host"
  echo "$period_us" >"$cg/cpu.cfs_period_us" &&
    echo $((pct * period_us / 100)) >"$cg/cpu.cfs_quota_us" || return 1
  if [ -s "$CL_RUN/pids/slurmd-$host.pid" ]; then
    cat "$CL_RUN/pids/slurmd-$host.pid" >"$cg/cgroup.procs"
  fi
}

# throttled HOST: how often HOST's cgroup hit its quota so far
throttled() { awk '$1 == "nr_throttled" { print $2 }' "/sys/fs/cgroup/cpu/$CL_TAG-$1/cpu.stat"; }

# slow_link HOST RATE: a slow NIC. Token-bucket cap on HOST's link in both directions (this
# kernel has no netem; a low tbf rate adds queueing delay as well). The qdiscs go with the
# namespaces.
slow_link() {
  local host=$1 rate=$2
  tc -n "$CL_TAG-$host" qdisc replace dev eth0 root tbf rate "$rate" burst 16kb latency 500ms &&
    tc -n "$CL_TAG-sw" qdisc replace dev "sw-$host" root tbf rate "$rate" burst 16kb latency 500ms
}

# slow_pair A B RATE: a slow link between A and B only (a bad cable or switch port on that
# path): on each end's eth0, an htb qdisc whose default class is unshaped (100 Gbit/s) and a u32
# filter that puts packets for the other end's address in a class capped at RATE (this kernel
# has htb and u32, not prio or netem). Every other path of A and B keeps its speed. Undone by
# restore_host on both ends (their root qdiscs go).
slow_pair() {
  local a=$1 b=$2 rate=$3 h peer ns
  for h in "$a:$b" "$b:$a"; do
    peer=${h#*:}
    ns=$CL_TAG-${h%%:*}
    tc -n "$ns" qdisc replace dev eth0 root handle 1: htb default 1 &&
      tc -n "$ns" class add dev eth0 parent 1: classid 1:1 htb rate 100gbit quantum 60000 &&
      tc -n "$ns" class add dev eth0 parent 1: classid 1:2 htb rate "$rate" ceil "$rate" \
        burst 16kb quantum 60000 &&
      tc -n "$ns" filter add dev eth0 parent 1: protocol ip prio 1 u32 \
        match ip dst "$CL_SUBNET.${peer#h}/32" flowid 1:2 || return 1
  done
}

# restore_host HOST: undo slow_cpu, slow_link and slow_pair
restore_host() {
  local host=$1 cg=/sys/fs/cgroup/cpu/$CL_TAG-$1 p
  tc -n "$CL_TAG-$host" qdisc del dev eth0 root 2>/dev/null
  tc -n "$CL_TAG-sw" qdisc del dev "sw-$host" root 2>/dev/null
  rm -f "$CL_RUN/slow/$host"
  if [ -d "$cg" ]; then
    while read -r p; do echo "$p" >/sys/fs/cgroup/cpu/cgroup.procs; done <"$cg/cgroup.procs"
    rmdir "$cg"
  fi
  return 0
}

# links_trial NAME WHAT ARGS...: one `scaleprobe links` run by "${launcher[@]}" across $hosts with
# "${links[@]}" and ARGS, its drain list in NAME-exclude and its report in NAME.out, of which the
# lines `# SLOW ...` and `# WHAT ...` are shown; 1 when the run did not complete
links_trial() {
  local name=$1 what=$2 f=$CL_RUN/work/$1.h5
  shift 2
  if ! cl_launch "$name" 60 "${launcher[@]}" --host "$hosts" "$SCALEPROBE" "${links[@]}" "$@" \
    -O "$f" --exclude "$CL_RUN/work/$name-exclude" ||
    [ "$(h5_status "$f")" != complete ]; then
    not_ok "$name: did not complete"
    cl_tail "$name"
    return 1
  fi
  "$SCALEPROBE" report "$f" >"$CL_RUN/work/$name.out" 2>&1
  grep -E "^# (SLOW|$what)" "$CL_RUN/work/$name.out" | sed 's/^/     | /'
  return 0
}
