#!/usr/bin/env bash
# scaleprobe accept's performance gates on the host backend, with the workloads' own fault
# injection: a slowed rank fails the triad and GEMM floors on every attempt (the spec's
# repeats), a corrupted GEMM fails the GEMM gate however fast it is, a delayed rank fails the
# all_reduce busbw floor; a clean run passes floors set well below what it measured first.
. "$(dirname "$0")/lib.sh"

run() { # NAME NP SPEC [ENV=VALUE...]: one accept run; table in $TMP/NAME.out
  local name=$1 np=$2 spec=$3
  shift 3
  env "$@" timeout 300 mpirun -np "$np" -x SCALEPROBE_TEST_SLOW -x SCALEPROBE_TEST_CORRUPT \
    -x SCALEPROBE_TEST_DELAY "$SCALEPROBE" accept "$spec" -O "$TMP/$name.h5" \
    >"$TMP/$name.out" 2>"$TMP/$name.err" </dev/null
  echo $? >"$TMP/$name.rc"
}
export SCALEPROBE_TEST_SLOW= SCALEPROBE_TEST_CORRUPT= SCALEPROBE_TEST_DELAY=
col() { awk -v c="$2" -v k="$3" '$4 == c {print $k; exit}' "$TMP/$1.out"; }
expect() { # NAME CHECK VERDICT WHAT
  local got
  got=$(col "$1" "$2" 5)
  if [ "$got" = "$3" ]; then ok "$4: $2 $3"; else not_ok "$4: $2 is '$got', want $3"; cat "$TMP/$1.out" "$TMP/$1.err"; fi
}

cat >"$TMP/probe.json" <<'JSON'
{"node_types": {"any": {"checks": {
  "stream_triad_gbps": {"min": 0.0001},
  "gemm_tflops": {"min": 0.000001},
  "allreduce_busbw_gbps": {"min": 0.000001, "size": "256K"}}}}}
JSON
run probe 2 "$TMP/probe.json"
triad=$(col probe stream_triad_gbps 6)
gemm=$(col probe gemm_tflops 6)
busbw=$(col probe allreduce_busbw_gbps 6)
if [ "$(cat "$TMP/probe.rc")" = 0 ] && [ -n "$triad" ] && [ -n "$gemm" ] && [ -n "$busbw" ]; then
  ok "a clean run measures triad $triad GB/s, GEMM $gemm TFLOP/s, busbw $busbw GB/s"
else
  not_ok "the clean run: $(cat "$TMP/probe.out" "$TMP/probe.err")"
fi
h5dump -H "$TMP/probe.perf1.h5" >"$TMP/probe.perf1.dump" 2>&1
grep -q 'GROUP "node"' "$TMP/probe.perf1.dump" &&
  ok "the attempt's node measurements are kept in probe.perf1.h5" || not_ok "no probe.perf1.h5 with /node"

# floors at a fifth of what the clean run measured
floor() { awk -v v="$1" 'BEGIN {printf "%.6g", v / 5}'; }
cat >"$TMP/gates.json" <<JSON
{"repeats": 2, "node_types": {"any": {"checks": {
  "stream_triad_gbps": {"min": $(floor "$triad")},
  "gemm_tflops": {"min": $(floor "$gemm")}}}}}
JSON
# busbw swings by 500x on a loaded 2-core machine (43 us and 24 ms per 256K all_reduce were
# seen here), so the floor is absolute, not from the probe: a rank late by 1 s before every
# batch (of at most ~25 operations at this size) holds the all_reduce below 0.01 GB/s
cat >"$TMP/busbw.json" <<JSON
{"repeats": 2, "node_types": {"any": {"checks": {
  "allreduce_busbw_gbps": {"min": 0.05, "size": "256K"}}}}}
JSON

run clean 2 "$TMP/gates.json"
expect clean stream_triad_gbps PASS "a clean run against floors at a fifth"
expect clean gemm_tflops PASS "a clean run against floors at a fifth"

run slow 2 "$TMP/gates.json" SCALEPROBE_TEST_SLOW=1:10
expect slow stream_triad_gbps FAIL "rank 1 slowed 10x"
grep -q "best of 2 attempt(s).*lowest rank 1" "$TMP/slow.out" &&
  ok "the slowed rank failed both attempts and is named" || not_ok "slow evidence: $(grep triad "$TMP/slow.out")"
[ "$(cat "$TMP/slow.rc")" = 1 ] && ok "a failed gate exits 1" || not_ok "exit $(cat "$TMP/slow.rc")"

run corrupt 2 "$TMP/gates.json" SCALEPROBE_TEST_CORRUPT=1
expect corrupt gemm_tflops FAIL "rank 1's GEMM corrupted"
grep -q "rank 1 computed [0-9]* wrong GEMM" "$TMP/corrupt.out" && ok "the wrong GEMM is the evidence" ||
  not_ok "corrupt evidence: $(grep gemm "$TMP/corrupt.out")"
expect corrupt stream_triad_gbps PASS "rank 1's GEMM corrupted"

run delay 2 "$TMP/busbw.json" SCALEPROBE_TEST_DELAY=1:1000000
expect delay allreduce_busbw_gbps FAIL "rank 1 late by 1 s every batch"
grep -q "best of 2 attempt(s)" "$TMP/delay.out" && ok "the busbw gate ran twice before failing" ||
  not_ok "delay evidence: $(grep busbw "$TMP/delay.out")"

# ---- baselines: two good runs -> medians and spreads; floors at a percentage of them ----
"$SCALEPROBE" accept --make-baseline "$TMP/probe.h5" "$TMP/clean.h5" -O "$TMP/base.json" >"$TMP/mb.out" 2>&1
if /usr/bin/python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))["metrics"]["any"]["stream_triad_gbps"]; sys.exit(not (m["n"]==2 and m["runs"]==2 and m["min"]<=m["median"]<=m["max"] and m["mad"]>=0))' "$TMP/base.json"; then
  ok "make-baseline pools the two runs' triad: median, MAD, min, max, n 2"
else
  not_ok "baseline: $(cat "$TMP/mb.out" "$TMP/base.json")"
fi
cat >"$TMP/bpct.json" <<'JSON'
{"node_types": {"any": {"checks": {"stream_triad_gbps": {"baseline_pct": 20}}}}}
JSON
"$SCALEPROBE" accept "$TMP/bpct.json" -O "$TMP/nobase.h5" >"$TMP/nobase.out" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q "bpct.json:1: .*baseline_pct but no --baseline" "$TMP/nobase.out" &&
  ok "baseline_pct without --baseline: exit 2 naming the line" || not_ok "no baseline: exit $rc $(cat "$TMP/nobase.out")"
env SCALEPROBE_TEST_SLOW=1:10 timeout 300 mpirun -np 2 -x SCALEPROBE_TEST_SLOW "$SCALEPROBE" accept \
  "$TMP/bpct.json" --baseline "$TMP/base.json" -O "$TMP/bslow2.h5" >"$TMP/bslow.out" 2>&1 </dev/null
expect bslow stream_triad_gbps FAIL "a rank slowed 10x against 20% of the baseline"
grep -q "(20% of " "$TMP/bslow.out" && ok "the threshold shows the baseline" || not_ok "baseline threshold"

"$SCALEPROBE" accept "$TMP/gates.json" --health-only -O "$TMP/ho.h5" >"$TMP/ho.out" 2>&1
expect ho stream_triad_gbps N/A "--health-only"
finish
