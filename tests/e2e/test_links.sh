#!/usr/bin/env bash
# `scaleprobe links` on one host (4 ranks, --per rank): the matrix of every pair in both
# directions (6 pairs x 2 directions + 6 latency pairs) in 3 rounds of disjoint pairs, /links in
# the file (pairs, samples, units, the n x n matrices), report prints it, --rounds 1 measures 1
# of 3 rounds, the screen runs and says how many rounds it used, the exclude files are written
# and never overwritten without --force, and bad invocations exit 2 with one message. (Faults
# and their verdicts are tested on emulated hosts: tests/cluster/links.sh.)
source "$(dirname "$0")/lib.sh"

small=(--backend host --per rank --size 16K --max-samples 12 --max-time 0.2 --min-samples 6)

# 1. the whole matrix
f="$TMP/l.h5"
sp_mpirun 4 links "${small[@]}" -O "$f" --exclude "$TMP/ex" >"$TMP/out" 2>&1
rc=$?
pairs=$(h5dump -A 0 -H -d /links/pairs "$f" 2>/dev/null | grep -o 'SIMPLE { ( [0-9]*' | grep -o '[0-9]*$')
dims=$(h5dump -A 0 -H -d /links/bandwidth_gbps "$f" 2>/dev/null | grep -o 'SIMPLE { ( [0-9, ]*' | tr -d ' ')
# at least the 18 first-pass rows (12 directions + 6 latency pairs); confirmations add rows
if [ "$rc" -eq 0 ] && [ "${pairs:-0}" -ge 18 ] && [ "$dims" = "SIMPLE{(4,4" ] &&
  h5dump -a /status "$f" | grep -q complete; then
  ok "links: exit 0, complete file, $pairs rows in /links/pairs, a 4 x 4 bandwidth matrix"
else
  not_ok "links: rc=$rc pairs=$pairs dims=$dims"
  tail -5 "$TMP/out"
fi
# every ordered pair once in the first pass, in 3 rounds
first=$(h5dump -A 0 -d /links/pairs "$f" 2>/dev/null | grep -c 'bandwidth,')
grep -q '^# matrix: 3 of 3 rounds of disjoint pairs' "$TMP/out" &&
  ok "3 rounds of disjoint pairs for 4 units ($first bandwidth rows)" ||
  not_ok "no '3 of 3 rounds' line"
"$SCALEPROBE" report "$f" >"$TMP/report" 2>&1
if grep -q '^# bandwidth (GB/s, 16384 B one way)' "$TMP/report" &&
  grep -q '^# latency (us, 8 B exchanged)' "$TMP/report"; then
  ok "report prints the bandwidth and latency matrices"
else
  not_ok "report lacks the matrices"
  head -20 "$TMP/report"
fi
# the values are measurements: the 12 off-diagonal cells of the bandwidth matrix positive
good=$(awk '/^# bandwidth/ { on = 1; getline; next } /^#$/ { on = 0 }
  on { for (i = 3; i <= NF; i++) if ($i != "-" && $i > 0) n++ } END { print n + 0 }' \
  "$TMP/report")
[ "$good" = "12" ] && ok "all 12 measured bandwidths are positive" ||
  not_ok "$good of 12 bandwidth cells positive"
[ -f "$TMP/ex.txt" ] && [ -f "$TMP/ex.json" ] && grep -q '"slurm_exclude"' "$TMP/ex.json" &&
  ok "exclude list written: ex.txt and ex.json" || not_ok "no exclude files"

# export and compare know /links
"$SCALEPROBE" export "$f" --csv "$TMP/csv" >"$TMP/exp" 2>&1
rows=$(($(wc -l <"$TMP/csv/links.csv") - 1))
counted=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "counts") c = i; next }
  $c == 1' "$TMP/csv/links.csv" | wc -l)
[ "$rows" = "$pairs" ] && [ "$counted" = "18" ] &&
  head -1 "$TMP/csv/links.csv" | grep -q '^metric,pass,round,src,dst,src_host,dst_host,' &&
  ok "export --csv: links.csv has all $rows rows, 18 of them the ones that count" ||
  not_ok "links.csv: $rows rows (want $pairs), $counted counted (want 18)"
"$SCALEPROBE" compare "$f" "$f" >"$TMP/cmp" 2>&1
grep -q '^# 0 slower, 0 faster, 18 within noise' "$TMP/cmp" &&
  ok "compare of a matrix with itself: 18 links, none changed" ||
  { not_ok "compare A A"; tail -3 "$TMP/cmp"; }

# 2. the exclude files are not overwritten without --force (exit 2, nothing measured)
sp_mpirun 2 links "${small[@]}" -O "$TMP/l2.h5" --exclude "$TMP/ex" >"$TMP/out2" 2>&1
rc=$?
[ "$rc" -eq 2 ] && [ "$(grep -c 'ex.txt exists' "$TMP/out2")" -eq 1 ] && [ ! -e "$TMP/l2.h5" ] &&
  ok "an existing exclude list: exit 2, one message, no result file" ||
  { not_ok "existing exclude list: rc=$rc"; tail -3 "$TMP/out2"; }

# 3. --rounds 1: one round of the three
sp_mpirun 4 links "${small[@]}" --rounds 1 --confirm 0 -O "$TMP/r1.h5" >"$TMP/out3" 2>&1
rows=$(h5dump -A 0 -H -d /links/pairs "$TMP/r1.h5" 2>/dev/null | grep -o 'SIMPLE { ( [0-9]*' | grep -o '[0-9]*$')
grep -q '^# matrix: 1 of 3 rounds' "$TMP/out3" && [ "$rows" = "6" ] &&
  ok "--rounds 1: 1 of 3 rounds, 6 rows (2 pairs x 3 measurements)" ||
  not_ok "--rounds 1: rows=$rows"

# 4. the screen: a verdict line with the rounds used
sp_mpirun 4 links "${small[@]}" --mode screen --screen-size 16K -O "$TMP/s.h5" >"$TMP/out4" 2>&1
rc=$?
[ "$rc" -eq 0 ] && grep -Eq '^# SCREEN: .* [0-9]+ round' "$TMP/out4" &&
  h5dump -A 0 -H -d /links/screen "$TMP/s.h5" >/dev/null 2>&1 &&
  ok "screen: exit 0, a verdict with its rounds, /links/screen written" ||
  { not_ok "screen: rc=$rc"; tail -5 "$TMP/out4"; }

# 5. bad invocations: exit 2, one message
sp_mpirun 2 links "${small[@]}" --mode screen -O "$TMP/b1.h5" >"$TMP/b1" 2>&1
rc=$?
[ "$rc" -eq 2 ] && [ "$(grep -c 'screening needs at least 4 units' "$TMP/b1")" -eq 1 ] &&
  [ ! -e "$TMP/b1.h5" ] && ok "screen with 2 units: exit 2, one message, no file" ||
  { not_ok "screen with 2 units: rc=$rc"; cat "$TMP/b1"; }
sp_mpirun 1 links "${small[@]}" -O "$TMP/b2.h5" >"$TMP/b2" 2>&1
rc=$?
[ "$rc" -eq 2 ] && ok "1 rank: exit 2" || { not_ok "1 rank: rc=$rc"; cat "$TMP/b2"; }
sp_mpirun 2 links "${small[@]}" --min-samples 50 --max-samples 10 -O "$TMP/b3.h5" >"$TMP/b3" 2>&1
rc=$?
[ "$rc" -eq 2 ] && [ "$(grep -c 'is larger than --max-samples' "$TMP/b3")" -eq 1 ] &&
  ok "--min-samples above --max-samples: exit 2, one message" ||
  { not_ok "min/max samples: rc=$rc"; cat "$TMP/b3"; }
# --per rail on one host (one node: no rail has a link) and with the screen: exit 2, one message,
# no file (its matrices, verdicts and the unequal-node refusal: tests/cluster/test_links_rail.sh)
sp_mpirun 2 links "${small[@]/rank/rail}" -O "$TMP/b4.h5" >"$TMP/b4" 2>&1
rc=$?
[ "$rc" -eq 2 ] && [ "$(grep -c 'error: --per rail: 1 node here' "$TMP/b4")" -eq 1 ] &&
  [ ! -e "$TMP/b4.h5" ] && ok "--per rail on one node: exit 2, one message, no file" ||
  { not_ok "--per rail on one node: rc=$rc"; cat "$TMP/b4"; }
sp_mpirun 2 links "${small[@]/rank/rail}" --mode screen -O "$TMP/b5.h5" >"$TMP/b5" 2>&1
rc=$?
[ "$rc" -eq 2 ] && [ "$(grep -c 'error: --per rail --mode screen: the screen bisects nodes' "$TMP/b5")" -eq 1 ] &&
  [ ! -e "$TMP/b5.h5" ] && ok "--per rail --mode screen: exit 2, one message, no file" ||
  { not_ok "--per rail --mode screen: rc=$rc"; cat "$TMP/b5"; }
finish
