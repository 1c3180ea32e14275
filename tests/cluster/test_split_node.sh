#!/usr/bin/env bash
# coll --split on 3 emulated hosts, 2 ranks each, by mpirun: `--split node` makes one group per
# host (ranks 0 1, 2 3, 4 5), and with h2's processes at 10% of a core its group (node 1) is the
# one report names as the slowest group; `--split rail` makes one group per local rank across
# the hosts (ranks 0 2 4 and 1 3 5), each group's all_reduce crossing the emulated network.
source "$(dirname "$0")/lib.sh"
source "$CL_DIR/hosts.sh"

slow=h2
sweep=(coll --collectives all_reduce -b 1K -e 64K -f 4 --place out --max-time 1)

hosts_up 3 || { not_ok "3 emulated hosts did not come up"; finish; }
ok "3 emulated hosts up"

# run NAME ARGS...: mpirun across h1..h3, 2 ranks each; NAME.h5, NAME.report
run() {
  local name=$1 f=$CL_RUN/work/$1.h5
  shift
  if ! cl_launch "$name" 120 "${CL_MPIRUN[@]}" --host h1:2,h2:2,h3:2 "$SCALEPROBE" "$@" -O "$f" ||
    [ "$(h5_status "$f")" != complete ]; then
    not_ok "$name: did not complete"
    cl_tail "$name"
    return 1
  fi
  "$SCALEPROBE" report "$f" >"$CL_RUN/work/$name.report" 2>&1
  grep 'busbw per group\|^# Split' "$CL_RUN/work/$name.report" | sed 's/^/     | /'
}

slow_cpu "$slow" 10 || { not_ok "cannot set a cpu quota on $slow"; finish; }
if run node "${sweep[@]}" --split node; then
  check "--split node: 3 groups, one per host" \
    grep -q '^# split node: 3 groups' "$CL_RUN/log/node.log"
  check "--split node: group 1 is ranks 2 3" grep -q '^#   group 1: 2 ranks: 2 3$' "$CL_RUN/log/node.log"
  line=$(grep '^# Split node:' "$CL_RUN/work/node.report")
  check "cpu quota on $slow: report names its group: $line" \
    grep -q "^# Split node: slowest group 1 (2 ranks from rank 2, $slow)" "$CL_RUN/work/node.report"
fi
restore_host "$slow"

if run rail "${sweep[@]}" --split rail; then
  check "--split rail: group 0 is ranks 0 2 4, group 1 ranks 1 3 5" \
    grep -q '^#   group 1: 3 ranks: 1 3 5$' "$CL_RUN/log/rail.log"
fi
finish
