#!/usr/bin/env bash
# `scaleprobe regress` (issue 14): eight small all_reduce sweeps, the last four with rank 1
# sleeping 2 ms before every operation (a shift of far more than 2x) and one option changed
# (--warmup 5 -> 6). As 4+4 runs and as 3+3 runs (runs 1-6) the t scan finds the all_reduce
# points (6 of 8 at least) shifted at the first delayed run, slower, exit 1, and "what changed"
# names the option; --json parses (ratio and interval above 2, the permutation floor of 8 runs);
# --sort-by-time puts the files back in creation order; a series of one file repeated has no
# shift (exit 0); a proxy series is analyzed; fewer than 3 files, an unreadable file, a sweep
# mixed with a proxy file and bad --alpha / --threshold are exit 2 with one message.
# Undelayed points are not asserted on: on this 2-core VM their medians drift by up to 2x
# between runs (docs/METHODOLOGY.md), and that drift is what regress looks for. When the machine
# is oversubscribed, a whole run's small-message medians can jump to a scheduler quantum (~16 ms);
# two such runs in a row are a real level change in the data, so 6 of the 8 points must shift at
# the delayed run, not all 8. Ranks yield while they poll, which makes such runs rarer.
source "$(dirname "$0")/lib.sh"
export OMPI_MCA_mpi_yield_when_idle=1

# the per-run median times of every point, when a check fails
dump_times() {
  for f in "$@"; do
    echo "# $(basename "$f"):" $("$SCALEPROBE" report "$f" 2>/dev/null | awk '$1 ~ /^[0-9]+$/ { printf "%s %s %s | ", $1, $6, $10 }')
  done
}

sweep=(coll --collectives all_reduce -b 1K -e 64K -f 4 -n 20 -k 1)
files=()
for i in 0 1 2 3 4 5 6 7; do
  if [ "$i" -eq 4 ]; then
    sleep 1 # creation times have 1 s resolution: the delayed runs are strictly later
  fi
  if [ "$i" -ge 4 ]; then
    SCALEPROBE_TEST_DELAY=1:2000:all_reduce sp_mpirun 2 "${sweep[@]}" -w 6 -O "$TMP/r$i.h5" \
      >/dev/null 2>&1 || { not_ok "sweep $i"; finish; }
  else
    sp_mpirun 2 "${sweep[@]}" -w 5 -O "$TMP/r$i.h5" >/dev/null 2>&1 || { not_ok "sweep $i"; finish; }
  fi
  files+=("$TMP/r$i.h5")
done

# check_series LABEL RUN FILES...: the shift at position RUN (file r4.h5), found by the t scan
check_series() {
  local label=$1 at=$2
  shift 2
  "$SCALEPROBE" regress "$@" >"$TMP/out" 2>"$TMP/err"
  rc=$?
  shifted=$(grep -c "^all_reduce .* $at .* t-scan slower .*/r4\.h5\$" "$TMP/out")
  faster=$(grep -c '^all_reduce .* faster ' "$TMP/out")
  if [ "$rc" -eq 1 ] && [ "$shifted" -ge 6 ] && [ "$faster" = 0 ] &&
    grep -q '^# 8 metrics, [0-9]* shifts, ' "$TMP/out" &&
    grep -q "^# What changed at run $at (.*/r3\.h5 -> .*/r4\.h5):\$" "$TMP/out" &&
    grep -q '^#   option warmup: 5 -> 6$' "$TMP/out" &&
    grep -q "^# of $# runs cannot go below p = " "$TMP/out"; then
    ok "$label: $shifted of 8 all_reduce points shift at run $at (t scan), slower, exit 1; what changed: warmup 5 -> 6"
  else
    not_ok "$label: rc=$rc, $shifted of 8 all_reduce points shifted at run $at, $faster faster"
    cat "$TMP/out" "$TMP/err"
    dump_times "$@"
  fi
}
check_series "4+4 runs" 4 "${files[@]}"
check_series "3+3 runs" 3 "${files[@]:1:6}"

"$SCALEPROBE" regress "${files[@]}" --json >"$TMP/json" 2>/dev/null
rc=$?
if [ "$rc" -eq 1 ] && python3 -m json.tool "$TMP/json" >/dev/null &&
  python3 - "$TMP/json" <<'EOF'; then
import json, sys
d = json.load(open(sys.argv[1]))
s = [x for x in d["shifts"] if x["metric"].startswith("all_reduce ")]
assert len(d["runs"]) == 8 and d["summary"]["metrics"] == 8, d["summary"]
m = d["method"]
assert m["test"] == "t-scan" and abs(m["permutation_floor"] - 2 / 70) < 1e-6, m
at4 = [x for x in s if x["run"] == 4]
assert len(at4) >= 6, s
for x in at4:
    assert x["direction"] == "slower" and x["path"].endswith("/r4.h5"), x
    assert x["test"] == "t-scan" and x["candidates"] == 3, x
    assert x["ratio"] > 2 and x["ci_lo"] > 2 and x["ci_lo"] <= x["ratio"] <= x["ci_hi"], x
    assert x["p"] < 0.05 and x["before"] < x["after"], x
w = [c for c in d["what_changed"] if c["run"] == 4]
assert len(w) == 1 and w[0]["before"].endswith("/r3.h5") and w[0]["after"].endswith("/r4.h5"), w
assert {"key": "warmup", "a": "5", "b": "6"} in w[0]["options"], w
assert all(o["key"] not in ("output", "force") for o in w[0]["options"]), w
assert isinstance(w[0]["fingerprint"], list), w
EOF
  ok "--json parses: shifts at run 4 slower, ratio and interval above 2, floor 2/70, what changed: warmup"
else
  not_ok "--json: rc=$rc"
  head -40 "$TMP/json"
fi

# delayed files first on the command line: --sort-by-time restores the order they were made in
"$SCALEPROBE" regress "${files[@]:4}" "${files[@]:0:4}" --sort-by-time >"$TMP/sorted" 2>&1
rc=$?
if [ "$rc" -eq 1 ] && [ "$(grep -c '^all_reduce .* 4 .* slower .*/r4\.h5$' "$TMP/sorted")" -ge 6 ] &&
  grep -q '^# regress: 8 runs .*ordered by creation time' "$TMP/sorted"; then
  ok "--sort-by-time: runs in creation order, shift at run 4"
else
  not_ok "--sort-by-time: rc=$rc"
  cat "$TMP/sorted"
fi

# one run six times: nothing varies, no shift, exit 0
"$SCALEPROBE" regress "${files[0]}" "${files[0]}" "${files[0]}" "${files[0]}" "${files[0]}" \
  "${files[0]}" >"$TMP/same" 2>&1
rc=$?
[ "$rc" -eq 0 ] && grep -q '^# 8 metrics, 0 shifts, ' "$TMP/same" &&
  ok "a series without a change: exit 0" || { not_ok "no change: rc=$rc"; cat "$TMP/same"; }

proxy=(proxy --hidden 256 --ffn 1024 --heads 8 --seq 64 --layers 2 --vocab 512 --tflops 5 --steps 4)
for i in 0 1 2; do
  sp_mpirun 2 "${proxy[@]}" -O "$TMP/p$i.h5" >/dev/null 2>&1 || { not_ok "proxy run $i"; finish; }
done
"$SCALEPROBE" regress "$TMP/p0.h5" "$TMP/p1.h5" "$TMP/p2.h5" >"$TMP/pout" 2>&1
rc=$?
if [ "$rc" -le 1 ] && grep -q '^# regress: 3 runs of .proxy.' "$TMP/pout" &&
  grep -Eq '^# [1-9][0-9]* metrics, 0 shifts, ' "$TMP/pout"; then
  ok "a proxy series is analyzed (3 runs: too short for a shift)"
else
  not_ok "proxy series: rc=$rc"
  cat "$TMP/pout"
fi

"$SCALEPROBE" regress "${files[0]}" "${files[1]}" >/dev/null 2>"$TMP/e1"
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$TMP/e1")" = 1 ] && grep -q 'at least 3 result files' "$TMP/e1" &&
  ok "two files: exit 2, one message" || { not_ok "two files: rc=$rc"; cat "$TMP/e1"; }

"$SCALEPROBE" regress "${files[0]}" "${files[1]}" "$TMP/p0.h5" >/dev/null 2>"$TMP/e2"
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$TMP/e2")" = 1 ] && grep -q 'different kinds' "$TMP/e2" &&
  ok "sweeps mixed with a proxy file: exit 2, one message" || { not_ok "mixed: rc=$rc"; cat "$TMP/e2"; }

echo "not hdf5" >"$TMP/bad.h5"
"$SCALEPROBE" regress "${files[0]}" "$TMP/bad.h5" "${files[1]}" >/dev/null 2>"$TMP/e3"
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$TMP/e3")" = 1 ] && grep -q 'bad.h5: is not an HDF5 file' "$TMP/e3" &&
  ok "an unreadable file: exit 2, one message" || { not_ok "unreadable: rc=$rc"; cat "$TMP/e3"; }

"$SCALEPROBE" regress "${files[@]:0:3}" --alpha 2 >/dev/null 2>"$TMP/e4"
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$TMP/e4")" = 1 ] &&
  ok "--alpha 2: exit 2, one message" || { not_ok "--alpha 2: rc=$rc"; cat "$TMP/e4"; }

"$SCALEPROBE" regress "${files[@]:0:3}" --threshold 100 >/dev/null 2>"$TMP/e5"
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$TMP/e5")" = 1 ] &&
  ok "--threshold 100: exit 2, one message" || { not_ok "--threshold 100: rc=$rc"; cat "$TMP/e5"; }
finish
