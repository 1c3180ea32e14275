#!/usr/bin/env bash
# A straggler host among 3 emulated hosts: h2's processes get 10% of one core (cgroup cpu quota),
# then, separately, h2's link is capped at 20 Mbit/s. Control runs without a fault come first.
# Asserted: the quota throttled h2; the proxy's report names a rank on h2 as the one with the
# most compute time, under mpirun across 3 hosts and under srun on 2 Slurm nodes (h2's slurmd in
# the quota); the sweep's latest node (a node arrives with its last rank) is h2. Printed for
# every run: the report's late arrivals, late nodes, late and own-median ranks, most compute time. Printed
# but not asserted (`known`): that compute time against the control run's (a disturbed control
# makes a fixed ratio flaky), the sweep's latest single rank (both of h2's ranks late together
# can hide it), and anything under the link cap, which the analysis does not name yet.
source "$(dirname "$0")/lib.sh"
source "$CL_DIR/hosts.sh"
source "$CL_DIR/slurm.sh"

slow=h2
sweep=(coll -b 1K -e 8K -f 8 --max-time 1)
sweep_hosts=h1:2,h2:2,h3:2
proxy=(proxy --hidden 256 --ffn 1024 --heads 8 --seq 128 --layers 4 --vocab 1024 --tflops 2
  --steps 2 --pp 2 --dp 2)
proxy_hosts=h1:2,h2:1,h3:1

hosts_up 3 || { not_ok "3 emulated hosts did not come up"; finish; }
ok "3 emulated hosts up"
slurm_up hosts 2 || { not_ok "2-node Slurm on h1, h2 did not come up"; finish; }
ok "Slurm with one slurmd on each of h1 and h2"

# host_of FILE RANK: the host /topology records for RANK
host_of() {
  h5dump -A 0 -d /topology/ranks "$1" 2>/dev/null |
    awk -v r="$2" '/^ *\([0-9]+\): \{/ { row = $1; q = 0; next }
      row == "(" r "):" && /"/ && ++q == 1 { gsub(/[", ]/, ""); print }'
}
# report lines: the first late arriver, the rank late most often (per point, by arrival), the
# rank with the highest own median most often, the most compute time
first_late() { grep -A1 '^# Late arrivals' "$1" | sed -n 2p | grep '^#   rank'; }
first_slowest() { grep -A1 '^# Ranks late most often' "$1" | sed -n 2p | grep '^#   rank'; }
first_own_median() { grep -A1 '^# Ranks with the highest own median' "$1" | sed -n 2p | grep '^#   rank'; }
most_compute() { grep '^# most compute time' "$1"; }
first_late_node() { grep -A1 '^# Late nodes' "$1" | sed -n 2p | grep '^#   node'; }
# the host in a report line "#   node N (HOST): ..."
node_host() { sed -n 's/^#   node [0-9]* (\([^)]*\)).*/\1/p' <<<"$1"; }
# the host in a report line "#   rank R (HOST, node N): ..."
line_host() { sed -n 's/^#   rank [0-9]* (\([^,]*\), node.*/\1/p' <<<"$1"; }

# run NAME HOSTS ARGS...: launch across the hosts (mpirun; HOSTS "slurm": srun on h1 and h2, 2
# tasks each), write NAME.h5 and its report NAME.report
run() {
  local name=$1 hosts=$2 f=$CL_RUN/work/$1.h5 launcher
  shift 2
  if [ "$hosts" = slurm ]; then
    launcher=("${CL_SRUN[@]}" --nodes=2 --ntasks-per-node=2)
  else
    launcher=("${CL_MPIRUN[@]}" --host "$hosts")
  fi
  if ! cl_launch "$name" 120 "${launcher[@]}" "$SCALEPROBE" "$@" -O "$f" ||
    [ "$(h5_status "$f")" != complete ]; then
    not_ok "$name: did not complete"
    cl_tail "$name"
    return 1
  fi
  "$SCALEPROBE" report "$f" >"$CL_RUN/work/$name.report" 2>&1
  {
    # the sweep's table rows: size ... out-of-place time (us) ...
    [[ $name == *sweep ]] &&
      awk '/^ +[0-9]+ / { printf "# %s B: %s us out-of-place, %s us in-place\n", $1, $6, $10 }' \
      "$CL_RUN/work/$name.report"
    grep '^# Late arrivals' "$CL_RUN/work/$name.report" | sed 's/ (timeline.*us)//'
    grep -A3 '^# Late arrivals' "$CL_RUN/work/$name.report" | grep '^#   rank'
    grep -A2 '^# Late nodes' "$CL_RUN/work/$name.report"
    first_slowest "$CL_RUN/work/$name.report"
    first_own_median "$CL_RUN/work/$name.report"
    most_compute "$CL_RUN/work/$name.report"
  } | sed 's/^/     | /'
  return 0
}

# --- control: no fault
run base-sweep "$sweep_hosts" "${sweep[@]}"
run base-proxy "$proxy_hosts" "${proxy[@]}"
run base-proxy-srun slurm "${proxy[@]}"

# --- CPU straggler
slow_cpu "$slow" 10 || { not_ok "cannot set a cpu quota on $slow"; finish; }
if run cpu-sweep "$sweep_hosts" "${sweep[@]}"; then
  line=$(first_late "$CL_RUN/work/cpu-sweep.report")
  known "cpu quota on $slow: the sweep's first late arriver is on $slow ($(line_host "$line"))" \
    [ "$(line_host "$line")" = "$slow" ]
  node=$(first_late_node "$CL_RUN/work/cpu-sweep.report")
  check "cpu quota on $slow: the sweep's latest node is $slow ($(node_host "$node"))" \
    [ "$(node_host "$node")" = "$slow" ]
fi
t=$(throttled "$slow")
# compute_ms NAME: the most compute time (ms) in NAME's report
compute_ms() {
  most_compute "$CL_RUN/work/$1.report" | sed -n 's/.*) \([0-9.]*\) ms in step.*/\1/p'
}
# expect_compute NAME CONTROL: NAME's report names a rank on the slowed host for the most compute
# time, at least twice the most compute time of the control run without the fault
expect_compute() {
  local rank host ms base
  rank=$(most_compute "$CL_RUN/work/$1.report" |
    sed -n 's/^# most compute time: rank \([0-9]*\) .*/\1/p')
  host=$(host_of "$CL_RUN/work/$1.h5" "$rank")
  check "cpu quota on $slow: $1: the most compute time is rank ${rank:-?}'s, on ${host:-?}" \
    [ "$host" = "$slow" ]
  ms=$(compute_ms "$1")
  base=$(compute_ms "$2")
  # printed, not asserted: a disturbed control run (60 ms once, against 15-35 ms usually) makes
  # a fixed ratio flaky; the host named above and the sweep's late node are the assertions
  known "cpu quota on $slow: $1: that is ${ms:-?} ms, at least twice the ${base:-?} ms of $2" \
    awk -v a="$ms" -v b="$base" 'BEGIN { exit !(a != "" && b != "" && a >= 2 * b) }'
}
run cpu-proxy "$proxy_hosts" "${proxy[@]}" && expect_compute cpu-proxy base-proxy
run cpu-proxy-srun slurm "${proxy[@]}" && expect_compute cpu-proxy-srun base-proxy-srun
check "the quota throttled $slow's ranks ($t times in the sweep, $(throttled "$slow") in all)" \
  [ "${t:-0}" -gt 0 ]
restore_host "$slow"

# --- slow link
slow_link "$slow" 20mbit || { not_ok "cannot cap $slow's link"; finish; }
if run link-sweep "$sweep_hosts" "${sweep[@]}"; then
  line=$(first_slowest "$CL_RUN/work/link-sweep.report")
  host=$(line_host "$line")
  known "20 Mbit/s link on $slow: the sweep's rank late most often is on $slow ($host)" \
    [ "$host" = "$slow" ]
  node=$(first_late_node "$CL_RUN/work/link-sweep.report")
  known "20 Mbit/s link on $slow: the sweep's latest node is $slow ($(node_host "$node"))" \
    [ "$(node_host "$node")" = "$slow" ]
fi
restore_host "$slow"
finish
