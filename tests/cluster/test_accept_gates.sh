#!/usr/bin/env bash
# `scaleprobe accept`'s network gates on 6 emulated hosts, one rank each, launched from a seventh:
# h4's link capped by tbf at 100 Mbit/s both ways (a slow node, as test_links_node.sh). Asserted:
# h4 fails the all_reduce busbw gate (the job's all_reduce below its floor, h4 holding its
# culprit rank) and the links_matrix gate (the links verdict names h4 a slow node); the other
# nodes fail neither (busbw WARN there: the job's number is low, its culprit elsewhere; a noisy
# pair among them may warn as a slow link, printed); the job fails (exit 1) and the exclude list
# is h4 alone.
CL_BUDGET_S=${CL_BUDGET_S:-150}
source "$(dirname "$0")/lib.sh"
source "$CL_DIR/hosts.sh"

hosts=h1:1,h2:1,h3:1,h4:1,h5:1,h6:1
hosts_up 7 || { not_ok "7 emulated hosts did not come up"; finish; }
ok "7 emulated hosts up (h1-h6 one rank each, mpirun on h7)"
launcher=("${CL_MPIRUN[@]}")
launcher[1]=h7
slow_link h4 100mbit || { not_ok "cannot cap h4's link"; finish; }
ok "h4's link capped at 100 Mbit/s both ways"

# floors far from both sides: the unshaped veth links move GB/s, h4's 12.5 MB/s at most
spec=$CL_RUN/work/gates.json
cat >"$spec" <<'JSON'
{"repeats": 1, "node_types": {"any": {"checks": {
  "allreduce_busbw_gbps": {"min": 0.02, "size": "256K"},
  "links_matrix": {"min_ratio": 0.5, "size": "256K"}}}}}
JSON
f=$CL_RUN/work/acc.h5
cl_launch accept 100 "${launcher[@]}" --host "$hosts" "$SCALEPROBE" accept "$spec" --backend host \
  -O "$f" --exclude "$CL_RUN/work/exclude.txt" --json "$CL_RUN/work/acc.json"
rc=$?
out=$CL_RUN/log/accept.log
grep -E '^ +[0-9]+ +h[0-9] ' "$out" | cut -c1-150 | sed 's/^/     | /'
grep -E '^# (SLOW|node|job)' "$out" | sed 's/^/     | /'
verdict() { awk -v h="$1" -v c="$2" '$2 == h && $4 == c { print $5; exit }' "$out"; }
node_verdict() { sed -n "s/^# node [0-9]* $1: \([A-Z/]*\) .*/\1/p" "$out"; }

check "the job fails: exit 1 (rc=$rc)" [ "$rc" -eq 1 ]
check "h4 fails the busbw gate ($(verdict h4 allreduce_busbw_gbps))" \
  [ "$(verdict h4 allreduce_busbw_gbps)" = FAIL ]
check "h4 fails the links gate ($(verdict h4 links_matrix)): the links verdict names it slow" \
  [ "$(verdict h4 links_matrix)" = FAIL ]
# the others: never failed; a noisy pair among them may warn its ends as a slow link
good=0 passed=0
for h in h1 h2 h3 h5 h6; do
  [ "$(verdict "$h" links_matrix)" != FAIL ] && [ "$(verdict "$h" allreduce_busbw_gbps)" != FAIL ] &&
    [ "$(node_verdict "$h")" != FAIL ] && good=$((good + 1))
  [ "$(verdict "$h" links_matrix)" = PASS ] && passed=$((passed + 1))
done
check "the other 5 nodes fail neither gate ($good of 5; links_matrix PASS on $passed)" \
  [ "$good" -eq 5 ]
check "the exclude list is h4 alone ($(tr '\n' ' ' <"$CL_RUN/work/exclude.txt" 2>/dev/null))" \
  [ "$(cat "$CL_RUN/work/exclude.txt" 2>/dev/null)" = h4 ]
check "the links gate's matrix is kept beside the output (acc.links1.h5, status complete)" \
  [ "$(h5_status "$CL_RUN/work/acc.links1.h5")" = complete ]
restore_host h4
finish
