#!/usr/bin/env bash
# Multi-node launches on emulated hosts (network namespaces h1..h3, one host name each):
# the sweep and the proxy via `srun --mpi=pmix` on a 2-node Slurm (one slurmd per host) and via
# mpirun across 3 hosts. Each run completes, and its result file shows the right node count and
# the hosts' own names in /topology; report's header agrees.
source "$(dirname "$0")/lib.sh"
source "$CL_DIR/hosts.sh"
source "$CL_DIR/slurm.sh"

sweep=(coll -b 1K -e 64K -f 8)
proxy=(proxy --hidden 256 --ffn 1024 --heads 8 --seq 128 --layers 4 --vocab 1024 --tflops 2
  --steps 2 --pp 2 --dp 2)

hosts_up 3 || { not_ok "3 emulated hosts did not come up"; finish; }
ok "3 emulated hosts up (h1..h3 on $CL_SUBNET.0/24)"
slurm_up hosts 2 || { not_ok "2-node Slurm on h1, h2 did not come up"; finish; }
ok "Slurm with one slurmd on each of h1 and h2"

# expect NAME NP NODES "HOSTS": the launch's file is complete, from NP ranks on NODES nodes
expect() {
  local name=$1 np=$2 nodes=$3 hosts=$4 f=$CL_RUN/work/$1.h5 rc=$5
  if [ "$rc" -ne 0 ] || [ ! -f "$f" ]; then
    not_ok "$name: rc=$rc"
    cl_tail "$name"
    return
  fi
  check "$name: status $(h5_status "$f")" [ "$(h5_status "$f")" = complete ]
  local got_nodes got_hosts
  got_nodes=$(h5_nodes "$f")
  got_hosts=$(h5_hosts "$f")
  check "$name: /topology holds $got_nodes nodes, hosts $got_hosts" \
    [ "$got_nodes:$got_hosts" = "$nodes:$hosts" ]
  "$SCALEPROBE" report "$f" >"$CL_RUN/log/$name.report" 2>&1
  check "$name: report: $(grep -m1 -o '[0-9]* ranks on [0-9]* nodes' "$CL_RUN/log/$name.report")" \
    grep -q "^# $np ranks on $nodes nodes" "$CL_RUN/log/$name.report"
}

cl_launch srun-sweep 90 "${CL_SRUN[@]}" --nodes=2 --ntasks-per-node=2 "$SCALEPROBE" "${sweep[@]}" \
  -O "$CL_RUN/work/srun-sweep.h5"
expect srun-sweep 4 2 "h1 h2" $?
cl_launch srun-proxy 90 "${CL_SRUN[@]}" --nodes=2 --ntasks-per-node=2 "$SCALEPROBE" "${proxy[@]}" \
  -O "$CL_RUN/work/srun-proxy.h5"
expect srun-proxy 4 2 "h1 h2" $?

cl_launch mpirun-sweep 90 "${CL_MPIRUN[@]}" --host h1:2,h2:2,h3:2 "$SCALEPROBE" "${sweep[@]}" \
  -O "$CL_RUN/work/mpirun-sweep.h5"
expect mpirun-sweep 6 3 "h1 h2 h3" $?
cl_launch mpirun-proxy 90 "${CL_MPIRUN[@]}" --host h1:2,h2:1,h3:1 "$SCALEPROBE" "${proxy[@]}" \
  -O "$CL_RUN/work/mpirun-proxy.h5"
expect mpirun-proxy 4 3 "h1 h2 h3" $?
finish
