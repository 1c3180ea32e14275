#!/usr/bin/env bash
# `scaleprobe compare`.
# - One run per side (a file against itself, and A1 against B1): no verdicts, exit 0, and the
#   runs per side a verdict needs, with the run-to-run spread it assumed (the 2% default).
# - A/A over runs: three runs of A against three of B, the same sweep, interleaved in time
#   (A1 B1 D1 A2 B2 D2 A3 B3 D3 A4 D4 after an unused warm-up run, so slow drift of the
#   machine falls on every side): nothing slower or faster (minimum-effect tests over the runs' medians, Welch t),
#   exit 0; how many points are within threshold or inconclusive is printed, not asserted (on
#   this VM runs differ by up to 2x). --fdr 0.01 so that it fails about once in a hundred runs.
# - A/B: runs of D where rank 1 sleeps 2 ms before every all_reduce operation (batches of 1)
#   and NCCL_ALGO is set: 4 runs against 4 call all_reduce points slower with a CI above 1 and
#   nothing faster, exit 1 (runs' medians here differ up to 10x from run to run, so 3 against 3,
#   Welch df near 2, is not enough under BH over 12 points; see check_ab), NCCL_ALGO the first difference listed; one run per side gives no verdict and exit 0
#   although the change is 100x.
# - A run with another batch size k: a warning, still compared.
# - Scaling: 2- and 4-rank runs of A and D side by side: rows per shape, efficiency 1 at the
#   smallest shape, B/A busbw below 1 for all_reduce at 2 ranks.
# ctest runs this test alone (RUN_SERIAL): with another test's ranks on the 2 cores, busy-polling
# ranks lose whole time slices, and a point's median can jump from 20 us to 10 ms for a run.
# - A sweep with -N 3 cycles: each point compared once, its cycles' samples pooled; report
#   names the cycle of each point it lists.
# - --json parses; sweeps of different sizes are not comparable unless --common; a sweep against
#   a proxy, and proxies of different shapes, are not comparable (exit 2).
source "$(dirname "$0")/lib.sh"

sweep=(coll --collectives all_reduce,broadcast -b 64K -e 1M -f 4 -n 20 -k 1)
delay=(env NCCL_ALGO=Ring SCALEPROBE_TEST_DELAY=1:2000:all_reduce)
# a run that is not used first (the first job after a pause starts cold), then A and B
# alternating, so that neither side always follows the same kind of run; the delayed runs after
# alternating (A1 B1 D1 A2 B2 D2 ...), so that a slow drift of the machine falls on A, B and D
# alike: with the four D runs after all the A runs, a broadcast point (not delayed) was once
# called slower, because the machine had slowed by more than the 3% threshold in the meantime.
sp_mpirun 2 "${sweep[@]}" -O "$TMP/warm.h5" >/dev/null 2>&1
for i in 1 2 3 4; do
  sp_mpirun 2 "${sweep[@]}" -O "$TMP/A$i.h5" >/dev/null 2>&1 || { not_ok "sweep A$i"; finish; }
  if [ "$i" -le 3 ]; then
    sp_mpirun 2 "${sweep[@]}" -O "$TMP/B$i.h5" >/dev/null 2>&1 || { not_ok "sweep B$i"; finish; }
  fi
  "${delay[@]}" timeout 120 mpirun -np 2 "$SCALEPROBE" "${sweep[@]}" -O "$TMP/D$i.h5" \
    >/dev/null 2>&1 || { not_ok "delayed sweep $i"; finish; }
done

check_one_run() { # label, output file, rc
  local n runs
  n=$(grep -c '^[a-z].* no verdict$' "$2")
  runs=$(sed -n 's/^# Verdicts need repeated runs per side.*: \(about\|more than\) \([0-9]*\) per side$/\2/p' "$2")
  if [ "$3" -eq 0 ] && [ "$n" = 12 ] && [ "${runs:-0}" -ge 2 ] &&
    grep -q '^# 12 points compared: no verdicts' "$2" && grep -q 'of 2% (assumed' "$2"; then
    ok "$1: 12 points without verdict, exit 0, runs per side suggested:" \
      "$(grep -o '[a-z ]* [0-9]* per side' "$2" | head -1) (2% run-to-run assumed)"
  else
    not_ok "$1: rc=$3, $n of 12 without verdict, runs '$runs'"
    cat "$2"
  fi
}
"$SCALEPROBE" compare "$TMP/A1.h5" "$TMP/A1.h5" >"$TMP/self" 2>&1
check_one_run "a file against itself" "$TMP/self" $?
"$SCALEPROBE" compare "$TMP/A1.h5" "$TMP/B1.h5" >"$TMP/aa1" 2>&1
check_one_run "A/A, one run per side" "$TMP/aa1" $?

"$SCALEPROBE" compare "$TMP/A1.h5" "$TMP/A2.h5" "$TMP/A3.h5" --vs "$TMP/B1.h5" "$TMP/B2.h5" \
  "$TMP/B3.h5" --fdr 0.01 >"$TMP/aa" 2>&1
rc=$?
n=$(grep -c '^[a-z].* \(slower\|faster\)$' "$TMP/aa")
if [ "$rc" -eq 0 ] && [ "$n" = 0 ] && grep -q 'Welch t over runs' "$TMP/aa" &&
  grep -q '^# 12 points compared, 12 with verdicts: 0 slower, 0 faster' "$TMP/aa"; then
  ok "A/A, 3 runs against 3: nothing slower or faster, exit 0 ($(grep '^# 12 points' "$TMP/aa" | cut -d, -f4,5))"
else
  not_ok "A/A over runs: rc=$rc, $n of 12 slower or faster"
  cat "$TMP/aa"
fi

# At least one of the 6, none faster: on this shared VM (load 7-9 on 2 cores while other tests
# run) a run is often disturbed for its whole length at some points (a 50 us all-reduce measured
# at 10 ms), and with 4 runs a side one such run makes the t test on log medians inconclusive
# there; the count is printed. Runs recorded here (4 against 4): 5, 2, 4, 6 and 6 of 6 slower.
check_ab() { # label, output file, rc
  local slow first fast
  slow=$(awk '/^all_reduce/ && $NF == "slower" { split($0, a, "["); split(a[2], b, ","); if (b[1] + 0 > 1) n++ } END { print n + 0 }' "$2")
  first=$(grep -m1 '^#   ' "$2")
  fast=$(grep -c '^[a-z].* faster$' "$2")
  if [ "$3" -eq 1 ] && [ "$slow" -ge 1 ] && [ "$fast" = 0 ] &&
    [[ $first == "#   environment NCCL_ALGO: A (unset), B Ring" ]]; then
    ok "$1: $slow of the 6 all_reduce points slower with CIs above 1, none faster, exit 1," \
      "NCCL_ALGO listed first"
  else
    not_ok "$1: rc=$3, $slow of 6 all_reduce points slower, $fast faster, first difference '$first'"
    cat "$2"
  fi
}
"$SCALEPROBE" compare "$TMP"/A[1-4].h5 --vs "$TMP"/D[1-4].h5 >"$TMP/ab" 2>&1
check_ab "A/B, 4 runs against 4" "$TMP/ab" $?
"$SCALEPROBE" compare "$TMP/A1.h5" "$TMP/D1.h5" >"$TMP/ab1" 2>&1
rc=$?
n=$(grep -c '^[a-z].* no verdict$' "$TMP/ab1")
[ "$rc" -eq 0 ] && [ "$n" = 12 ] && grep -q '^#   environment NCCL_ALGO: A (unset), B Ring' "$TMP/ab1" &&
  ok "A/B, one run per side: a 2 ms delay but no verdict (12 points), exit 0" ||
  { not_ok "A/B one run per side: rc=$rc, $n of 12 without verdict"; cat "$TMP/ab1"; }

"$SCALEPROBE" compare "$TMP"/A[1-4].h5 --vs "$TMP"/D[1-4].h5 --json >"$TMP/json" 2>/dev/null
if python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["points"]) == 12 and d["slower"] >= 1 and d["between_runs"] is True
assert d["verdicts"] is True and d["faster"] == 0
ar = [p for p in d["points"] if p["point"].startswith("all_reduce")]
assert sum(p["verdict"] == "slower" for p in ar) == d["slower"]
assert all(p["mde_pct"] > 3 and p["runs_a"] == 4 and p["q"] < 0.05 and p["ci_lo"] > 1
           for p in ar if p["verdict"] == "slower")
assert d["differences"][0]["key"] == "NCCL_ALGO" and d["differences"][0]["b"] == "Ring"
' "$TMP/json"; then
  ok "--json: 12 points, between runs, all_reduce slower with an MDE, NCCL_ALGO the first difference"
else
  not_ok "--json"
  python3 -c 'import json, sys
for p in json.load(open(sys.argv[1]))["points"]:
    print(p["point"], p["verdict"], p["ratio"], p["ci_lo"], p["ci_hi"], p["q"])' "$TMP/json"
fi

# scaling: A and D at 2 and 4 ranks
sp_mpirun 4 "${sweep[@]}" -O "$TMP/A4r.h5" >/dev/null 2>&1 &&
  "${delay[@]}" timeout 120 mpirun -np 4 "$SCALEPROBE" "${sweep[@]}" -O "$TMP/D4r.h5" \
    >/dev/null 2>&1 || not_ok "4-rank sweeps"
"$SCALEPROBE" compare "$TMP/A1.h5" "$TMP/A4r.h5" --vs "$TMP/D1.h5" "$TMP/D4r.h5" >"$TMP/sc" 2>&1
rc=$?
rows=$(awk '/^# Scaling/ { s = 1; next } s && /^all_reduce 1048576 B float sum / { print $(NF-7), $(NF-5), $(NF-2), $NF }' "$TMP/sc")
# ranks, A efficiency, B efficiency, B/A: 1.000 at the smallest shape on both sides, and D's
# delayed all_reduce below A's busbw there. At 4 ranks (oversubscribed 2 cores) B/A is printed only.
if [ "$rc" -eq 0 ] && [ "$(echo "$rows" | wc -l)" = 2 ] &&
  echo "$rows" | awk 'NR == 1 && $1 == 2 && $2 == "1.000" && $3 == "1.000" && $4 < 1 { a = 1 } NR == 2 && $1 == 4 && $2 > 0 && $4 > 0 { b = 1 } END { exit !(a && b) }'; then
  ok "scaling: all_reduce 1 MiB at 2 and 4 ranks, efficiency 1 at 2 ranks, B/A busbw below 1 there" \
    "(4 ranks: B/A $(echo "$rows" | awk 'NR == 2 { print $4 }'))"
else
  not_ok "scaling: rc=$rc rows '$rows'"
  cat "$TMP/sc"
fi
# the efficiency's interval over runs: three 2-rank runs of A and one 4-rank run give a t interval
# at 4 ranks that holds the efficiency; the base shape has none (it is 1 by definition)
"$SCALEPROBE" compare "$TMP/A1.h5" "$TMP/A2.h5" "$TMP/A3.h5" "$TMP/A4r.h5" --vs "$TMP/D1.h5" \
  "$TMP/D2.h5" "$TMP/D4r.h5" >"$TMP/sci" 2>&1
rc=$?
rows=$(awk '/^# Scaling/ { s = 1; next } s && /^all_reduce 1048576 B float sum / { print $(NF-7), $(NF-5), $(NF-4) }' "$TMP/sci")
if [ "$rc" -le 1 ] && [ "$(echo "$rows" | wc -l)" = 2 ] &&
  echo "$rows" | awk 'NR == 1 && $1 == 2 && $2 == "1.000" && $3 == "[-]" { a = 1 }
    NR == 2 && $1 == 4 { gsub(/[][]/, "", $3); split($3, c, ","); b = c[1] <= $2 && $2 <= c[2] && c[1] > 0 }
    END { exit !(a && b) }'; then
  ok "scaling with runs: 4-rank efficiency $(echo "$rows" | awk 'NR == 2 { print $2, $3 }') (t over runs), none at the base"
else
  not_ok "scaling with runs: rc=$rc rows '$rows'"
  sed -n '/^# Scaling/,$p' "$TMP/sci"
fi

sp_mpirun 2 coll --collectives all_reduce,broadcast -b 64K -e 256K -f 4 -n 5 -k 1 -O "$TMP/S.h5" >/dev/null 2>&1
"$SCALEPROBE" compare "$TMP/A1.h5" "$TMP/S.h5" >/dev/null 2>"$TMP/serr"
rc=$?
[ "$rc" -eq 2 ] && grep -q 'not comparable: different points' "$TMP/serr" &&
  ok "different sizes: not comparable, exit 2" || { not_ok "different sizes: rc=$rc"; cat "$TMP/serr"; }
sp_mpirun 2 coll --collectives all_reduce,broadcast -b 64K -e 1M -f 4 -n 20 -k 2 -O "$TMP/K.h5" >/dev/null 2>&1
"$SCALEPROBE" compare "$TMP/A1.h5" "$TMP/K.h5" >"$TMP/k" 2>"$TMP/kerr"
rc=$?
[ "$rc" -eq 0 ] && [ "$(grep -c 'warning: runs used different batch sizes k' "$TMP/kerr")" = 1 ] &&
  grep -q '^# 12 points compared' "$TMP/k" &&
  ok "a run with batch size k 2 against k 1: one warning, compared" ||
  { not_ok "different k: rc=$rc"; cat "$TMP/kerr"; }
"$SCALEPROBE" compare "$TMP/A1.h5" "$TMP/S.h5" --common >"$TMP/common" 2>&1
rc=$?
[ "$rc" -le 1 ] && grep -q '^# 8 points compared' "$TMP/common" &&
  grep -q '^#   option maxbytes: A 1048576, B 262144' "$TMP/common" &&
  ok "--common: the 8 points both have; the option that differs is listed" ||
  { not_ok "--common: rc=$rc"; cat "$TMP/common"; }

# a sweep with -N 3 cycles is one run: each point once, its three cycles' samples pooled (B's
# median is the median of all of them, as h5py computes it from /coll/samples)
sp_mpirun 2 "${sweep[@]}" -N 3 -O "$TMP/N.h5" >/dev/null 2>&1
"$SCALEPROBE" compare "$TMP/A1.h5" "$TMP/N.h5" >"$TMP/cyc" 2>&1
rc=$?
pooled=$(/usr/bin/python3 - "$TMP/N.h5" <<'PY' 2>&1
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
r, s = f["coll/results"][:], f["coll/samples"]["time_us"]
rows = [i for i in range(len(r)) if r["op"][i] == r["op"][0] and r["bytes"][i] == 1048576
        and r["in_place"][i] == 0]
print(len(rows), "%.3f" % np.median(np.concatenate(
    [s[r["sample_offset"][i]:r["sample_offset"][i] + r["samples"][i]] for i in rows])))
PY
)
shown=$(awk '/^all_reduce 1048576 B float sum  / { print $(NF-8) }' "$TMP/cyc")
if [ "$rc" -le 1 ] && grep -q '^# 12 points compared' "$TMP/cyc" &&
  [ "$(grep -c '^all_reduce 1048576 B float sum  ' "$TMP/cyc")" = 1 ] &&
  grep -q '^# A file of a sweep run with -N cycles is one run' "$TMP/cyc" &&
  awk -v p="$pooled" -v s="$shown" 'BEGIN { split(p, a, " "); d = a[2] - s
    exit !(a[1] == 3 && s != "" && d <= 0.011 && d >= -0.011) }'; then
  ok "a -N 3 sweep: 12 points once each, B's 1 MiB all_reduce is the median of its 3 cycles' samples ($shown us)"
else
  not_ok "-N 3: rc=$rc, pooled '$pooled', shown '$shown'"
  cat "$TMP/cyc"
fi

# report lists the file's rows per cycle; its lists of points say which cycle (-n 20: none
# converges, so every row is listed as drifting or stopped, up to 20 a list)
"$SCALEPROBE" report "$TMP/N.h5" >"$TMP/nrep" 2>&1
listed=$(grep -cE '^#   [a-z_]* .* (after|over) 20 samples' "$TMP/nrep")
tagged=$(grep -cE '^#   [a-z_]* .* (after|over) 20 samples.*, cycle [123] of 3$' "$TMP/nrep")
rows=$(sed -n 's/^# \([0-9]*\) of 36 points \(drifted\|stopped before\).*/\1/p' "$TMP/nrep" |
  awk '{ n += $1 } END { print n + 0 }')
[ "$listed" -ge 20 ] && [ "$tagged" = "$listed" ] && [ "$rows" = 36 ] &&
  grep -q 'cycle 2 of 3$' "$TMP/nrep" &&
  ok "report of the -N 3 sweep: 36 rows, each listed point names its cycle" ||
  { not_ok "report -N 3: listed $listed, tagged $tagged, drifted + stopped $rows of 36"; cat "$TMP/nrep"; }

proxy=(proxy --hidden 256 --ffn 1024 --heads 8 --seq 64 --layers 2 --vocab 512 --tflops 5 --steps 6)
sp_mpirun 2 "${proxy[@]}" -O "$TMP/P.h5" >/dev/null 2>&1
sp_mpirun 2 "${proxy[@]}" --tp 2 -O "$TMP/P2.h5" >/dev/null 2>&1
"$SCALEPROBE" compare "$TMP/A1.h5" "$TMP/P.h5" >/dev/null 2>"$TMP/nperr"
rc=$?
[ "$rc" -eq 2 ] && grep -q 'not comparable: different commands' "$TMP/nperr" &&
  ok "sweep against proxy: not comparable, exit 2" || not_ok "sweep against proxy: rc=$rc"
"$SCALEPROBE" compare "$TMP/P.h5" "$TMP/P2.h5" >/dev/null 2>"$TMP/pperr"
rc=$?
[ "$rc" -eq 2 ] && grep -q 'not comparable: different proxy shape' "$TMP/pperr" &&
  ok "proxies of different shapes: not comparable, exit 2" || { not_ok "proxy shapes: rc=$rc"; cat "$TMP/pperr"; }
# the parameter gathers' overlap is part of the shape only where there are gathers: plain DDP
# with Megatron's --overlap-grad-reduce alone compares with --overlap on; the distributed
# optimizer's two settings do not
for v in "D1 --dp 2" "D2 --dp 2 --overlap-grad-reduce" "O1 --dp 2 --use-distributed-optimizer" \
  "O2 --dp 2 --use-distributed-optimizer --overlap-grad-reduce"; do
  # shellcheck disable=SC2086
  sp_mpirun 2 "${proxy[@]}" ${v#* } -O "$TMP/${v%% *}.h5" >/dev/null 2>&1
done
"$SCALEPROBE" compare "$TMP/D1.h5" "$TMP/D2.h5" >/dev/null 2>"$TMP/dderr"
rc1=$?
"$SCALEPROBE" compare "$TMP/O1.h5" "$TMP/O2.h5" >/dev/null 2>"$TMP/ooerr"
rc2=$?
[ "$rc1" -le 1 ] && [ "$rc2" -eq 2 ] &&
  grep -q 'different proxy shape (.*overlap_param_gather 1, .*overlap_param_gather 0)' "$TMP/ooerr" &&
  ok "DDP --overlap-grad-reduce against --overlap on: compared; the distributed optimizer's: not comparable (overlap_param_gather)" ||
  { not_ok "overlap shapes: rc $rc1 $rc2"; cat "$TMP/dderr" "$TMP/ooerr"; }
"$SCALEPROBE" compare "$TMP/P.h5" "$TMP/P.h5" >"$TMP/pp" 2>&1
rc=$?
[ "$rc" -eq 0 ] && grep -q '^proxy step time .* no verdict$' "$TMP/pp" &&
  grep -q '^proxy compute (busy) .* no verdict$' "$TMP/pp" &&
  ok "a proxy file against itself: step time and compute, no verdict" || { not_ok "proxy self-compare: rc=$rc"; cat "$TMP/pp"; }
"$SCALEPROBE" compare "$TMP/A1.h5" >/dev/null 2>"$TMP/err1"
rc=$?
[ "$rc" -eq 2 ] && [ "$(grep -c '^scaleprobe' "$TMP/err1")" = 1 ] &&
  ok "one file: exit 2, one message" || not_ok "one file: rc=$rc"
"$SCALEPROBE" compare "$TMP/A1.h5" "$TMP/A2.h5" "$TMP/A3.h5" >/dev/null 2>"$TMP/err3"
rc=$?
[ "$rc" -eq 2 ] && grep -q 'say which are B with --vs' "$TMP/err3" &&
  ok "three runs of one shape without --vs: exit 2" || not_ok "three files: rc=$rc"
finish
