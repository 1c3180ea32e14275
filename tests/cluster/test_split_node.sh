#!/usr/bin/env bash
# coll --split on emulated hosts, 2 ranks each, by mpirun: `--split node` on h1 and h2 makes one
# group per host (ranks 0 1, 2 3), and with h2's processes at 10% of a core its group (node 1) is
# the one report names as the slowest group; `--split rail` on h1..h3 makes one group per local
# rank across the hosts (ranks 0 2 4 and 1 3 5), each group's all_reduce crossing the emulated
# network. The fault run has two hosts, not three: with h1 and h3 both healthy, their 4 spinning
# ranks share 2 cores, and an intra-host group is only as fast as its ranks are co-scheduled, which
# once held one healthy group at 0.02x the other for a whole sweep (CI, split across h1..h3); with
# h2 held to 0.1 core, h1's ranks have the machine's 2 cores.
source "$(dirname "$0")/lib.sh"
source "$CL_DIR/hosts.sh"

slow=h2
sweep=(coll --collectives all_reduce -b 1K -e 64K -f 4 --place out --max-time 1)

hosts_up 3 || { not_ok "3 emulated hosts did not come up"; finish; }
ok "3 emulated hosts up"

# run NAME HOSTS ARGS...: mpirun across HOSTS (e.g. h1:2,h2:2); NAME.h5, NAME.report
run() {
  local name=$1 hosts=$2 f=$CL_RUN/work/$1.h5
  shift 2
  if ! cl_launch "$name" 120 "${CL_MPIRUN[@]}" --host "$hosts" "$SCALEPROBE" "$@" -O "$f" ||
    [ "$(h5_status "$f")" != complete ]; then
    not_ok "$name: did not complete"
    cl_tail "$name"
    return 1
  fi
  "$SCALEPROBE" report "$f" >"$CL_RUN/work/$name.report" 2>&1
  grep 'busbw per group\|^# Split' "$CL_RUN/work/$name.report" | sed 's/^/     | /'
}

slow_cpu "$slow" 10 || { not_ok "cannot set a cpu quota on $slow"; finish; }
if run node h1:2,h2:2 "${sweep[@]}" --split node; then
  check "--split node: 2 groups, one per host" \
    grep -q '^# split node: 2 groups' "$CL_RUN/log/node.log"
  check "--split node: group 1 is ranks 2 3" grep -q '^#   group 1: 2 ranks: 2 3$' "$CL_RUN/log/node.log"
  line=$(grep '^# Split node:' "$CL_RUN/work/node.report")
  check "cpu quota on $slow: report names its group: $line" \
    grep -q "^# Split node: slowest group 1 (2 ranks from rank 2, $slow)" "$CL_RUN/work/node.report"
fi
restore_host "$slow"

if run rail h1:2,h2:2,h3:2 "${sweep[@]}" --split rail; then
  check "--split rail: group 0 is ranks 0 2 4, group 1 ranks 1 3 5" \
    grep -q '^#   group 1: 3 ranks: 1 3 5$' "$CL_RUN/log/rail.log"
fi
finish
