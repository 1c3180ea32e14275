#!/usr/bin/env bash
# `scaleprobe links --per rail` on 4 emulated hosts, 2 ranks each (rails 0 and 1), mpirun from a
# fifth that holds none: the node matrix's 3 rounds with both rails at once, a 4 x 4 matrix per
# rail, no pair across rails. With h3's link capped (tbf both ways, a slow node) every rail names
# h3 as a node and no other node, no bandwidth link is named, the report calls it a node fault
# (2 of 2 rails) and the exclude list is h3 alone, in at least RAIL_NEED of RAIL_TRIALS trials
# (1 of 2 by default), and in every trial h3 is the only node named and the exclude list h3
# alone (latency links are printed, not asserted). Unequal rank counts (h1:2, h2:1)
# are refused: exit 2, one message, no file.
# All ranks of a host share its one emulated NIC, so a fault on one rail only (one NIC of a node)
# is not emulated here; the unit test test_links_report shows its verdict on simulated rows.
CL_BUDGET_S=${CL_BUDGET_S:-200}
source "$(dirname "$0")/lib.sh"
source "$CL_DIR/hosts.sh"

trials=${RAIL_TRIALS:-2}
need=${RAIL_NEED:-1}
# h3 at 10 Mbit/s, both ranks through it: each of its rails gets about 0.6 MB/s, a 32 KiB
# message 50 ms, beyond the scheduling delays of healthy pairs here (8 polling ranks on 2 cores
# put some healthy links as low as 2 MB/s). One message a sample (--batch-time 0): a batch sized
# from one call that the tbf burst lets through fast ran for seconds. --confirm 2: a healthy link
# slowed by its round's load counts with a pass alone. Measured with other jobs on the machine
# (load average 15-25): --confirm 1 named h3 on both rails, and nothing else, in 8 of 12 trials
# (0 of 2 at 30 Mbit/s); --confirm 2, as here, in 15 of 18 (the misses: on one rail h3's slow
# links named as links, the CI of its 6 links' median reaching a fast one, or nothing named there),
# and h3 the only node named, exclude list h3 alone, in 18 of 18.
rate=10mbit
hosts=h1:2,h2:2,h3:2,h4:2
links=(links --per rail --size 32K --lat-size 8 --min-samples 6 --max-samples 24 --max-time 0.3
  --epsilon 0.05 --batch-time 0 --threshold 0.5 --lat-threshold 0.8 --confirm 2 -w 1)

hosts_up 5 || { not_ok "5 emulated hosts did not come up"; finish; }
ok "5 emulated hosts up (h1-h4 two ranks each, mpirun on h5)"
launcher=("${CL_MPIRUN[@]}")
launcher[1]=h5

# unequal nodes: refused before anything is written
f=$CL_RUN/work/unequal.h5
cl_launch unequal 60 "${launcher[@]}" --host h1:2,h2:1 "$SCALEPROBE" "${links[@]}" -O "$f"
rc=$?
msgs=$(grep -c 'error: --per rail: the nodes hold different rank counts' "$CL_RUN/log/unequal.log")
check "h1:2,h2:1: exit 2, one message naming the counts ($msgs), no file (rc=$rc)" \
  test "$rc" -eq 2 -a ! -e "$f" -a "$msgs" -eq 1

# trial NAME: one run across h1..h4; its report in NAME.out; 1 on failure
trial() { links_trial "$1" RAILS; }
# the hosts named as nodes on rail R of run NAME
named_on() {
  sed -n "s/^# SLOW NODE [a-z]*: \([^ ]*\) on rail $2 .*/\1/p" "$CL_RUN/work/$1.out" | sort -u |
    tr '\n' ' '
}

slow_link h3 "$rate" || { not_ok "cannot cap h3's link"; finish; }
good=0
only=0
for i in $(seq "$trials"); do
  trial "node-$i" || continue
  out=$CL_RUN/work/node-$i.out
  if [ "$i" -eq 1 ]; then
    check "the node matrix's 3 rounds, both rails in each" \
      grep -q '^# matrix: 3 of 3 rounds of disjoint pairs' "$CL_RUN/log/node-1.log"
    mats=$(grep -c '^# bandwidth (GB/s, 32768 B one way, rail [01])' "$out")
    check "units rail-major: 8 units, 2 rails x 4 nodes" \
      grep -q "^# links: 8 units (per rail: 2 rail(s) x 4 nodes).*" "$out"
    check "report prints one bandwidth matrix per rail ($mats)" test "$mats" -eq 2
    # units 0-3 are rail 0, 4-7 rail 1: no cell across rails was measured
    across=$(h5dump -A 0 -d /links/pairs "$CL_RUN/work/node-1.h5" | tr -d ' \n' |
      grep -o '{\(bandwidth\|latency\),-\?[0-9]*,[0-9]*,[0-9]*' |
      awk -F, '{ if (int($3 / 4) != int($4 / 4)) n++ } END { print n + 0 }')
    check "no pair across rails in /links/pairs ($across)" [ "$across" -eq 0 ]
  fi
  # every trial: h3 the one node named (on any rail) and the exclude list h3 alone
  named=$( (named_on "node-$i" 0; named_on "node-$i" 1) | tr ' ' '\n' | sort -u | tr -d '\n')
  [ "$named" = h3 ] && [ "$(cat "$CL_RUN/work/node-$i-exclude.txt")" = h3 ] && only=$((only + 1))
  if [ "$(named_on "node-$i" 0)" = "h3 " ] && [ "$(named_on "node-$i" 1)" = "h3 " ] &&
    ! grep -q '^# SLOW LINK bandwidth' "$out" &&
    grep -q '^# RAILS bandwidth: h3 slow on 2 of 2 rails (0 1): a node fault' "$out" &&
    [ "$(cat "$CL_RUN/work/node-$i-exclude.txt")" = h3 ]; then
    good=$((good + 1))
  fi
done
check "slow node h3: the only node named, exclude list h3: $only of $trials trials (all)" \
  [ "$only" -eq "$trials" ]
check "slow node h3: named on both rails, a node fault, no other node, no bandwidth link, \
exclude h3: $good of $trials trials (at least $need)" [ "$good" -ge "$need" ]
restore_host h3

# compare matches links by host and rail: 2 rails x (12 directions + 6 latency pairs), none
# missing; export's links.csv has each row's rail, never a pair across rails
a=$CL_RUN/work/node-1.h5
if [ -f "$a" ]; then
  "$SCALEPROBE" compare "$a" "$a" >"$CL_RUN/work/cmp.out" 2>&1
  check "compare of a rail file with itself: 36 links within noise, none missing" \
    grep -q '^# 0 slower, 0 faster, 36 within noise, 0 in A only' "$CL_RUN/work/cmp.out"
  "$SCALEPROBE" export "$a" --csv "$CL_RUN/work/csv" >/dev/null 2>&1
  bad=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "rail") r = i; if ($i == "src") s = i
      if ($i == "dst") d = i }; next }
    { n++ } $r != int($s / 4) || $r != int($d / 4) { b++ } END { print (n > 0 ? b + 0 : -1) }' \
    "$CL_RUN/work/csv/links.csv")
  check "links.csv: every row's rail is its units' ($bad rows differ)" test "$bad" = 0
fi
# latency under 6 ranks on 2 busy cores varies 10x from scheduling alone: a latency link is
# printed, not asserted (in 5 trials, 2 were named at 14x and 17x the cohort)
for i in $(seq "$trials"); do
  known "node-$i: no latency link named" \
    test "$(grep -c '^# SLOW LINK latency' "$CL_RUN/work/node-$i.out" 2>/dev/null)" = 0
done
finish
