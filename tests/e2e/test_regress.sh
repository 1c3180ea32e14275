#!/usr/bin/env bash
# `scaleprobe regress`: nine small all_reduce sweeps, the last four with rank 1 sleeping 2 ms
# before every operation: the all_reduce points (6 of 8 at least) shift at run 5, slower, exit 1;
# --json parses; --sort-by-time puts the files back in creation order; a proxy series is
# analyzed; fewer than 3 files, an unreadable file and a sweep mixed with a proxy file are exit 2
# with one message.
# Undelayed points are not asserted on: on this 2-core VM their medians drift by up to 2x
# between runs (docs/METHODOLOGY.md), and that drift is what regress looks for. When the machine
# is oversubscribed, a whole run's small-message medians can jump to a scheduler quantum (~16 ms);
# two such runs in a row are a real level change in the data, so 6 of the 8 points must shift at
# run 5, not all 8. Ranks yield while they poll, which makes such runs rarer.
source "$(dirname "$0")/lib.sh"
export OMPI_MCA_mpi_yield_when_idle=1

# the per-run median times of every point, when a check fails
dump_times() {
  for f in "$@"; do
    echo "# $(basename "$f"):" $("$SCALEPROBE" report "$f" 2>/dev/null | awk '$1 ~ /^[0-9]+$/ { printf "%s %s %s | ", $1, $6, $10 }')
  done
}

sweep=(coll -c all_reduce -b 1K -e 64K -f 4 -n 20 -k 1)
files=()
for i in 0 1 2 3 4 5 6 7 8; do
  if [ "$i" -eq 5 ]; then
    sleep 1 # creation times have 1 s resolution: the delayed runs are strictly later
  fi
  if [ "$i" -ge 5 ]; then
    SCALEPROBE_TEST_DELAY=1:2000:all_reduce sp_mpirun 2 "${sweep[@]}" -O "$TMP/r$i.h5" \
      >/dev/null 2>&1 || { not_ok "sweep $i"; finish; }
  else
    sp_mpirun 2 "${sweep[@]}" -O "$TMP/r$i.h5" >/dev/null 2>&1 || { not_ok "sweep $i"; finish; }
  fi
  files+=("$TMP/r$i.h5")
done

"$SCALEPROBE" regress "${files[@]}" >"$TMP/out" 2>"$TMP/err"
rc=$?
shifted=$(grep -c '^all_reduce .* 5 .* slower .*/r5\.h5$' "$TMP/out")
faster=$(grep -c '^all_reduce .* faster ' "$TMP/out")
if [ "$rc" -eq 1 ] && [ "$shifted" -ge 6 ] && [ "$faster" = 0 ] &&
  grep -q '^# 8 metrics, [0-9]* shifts, ' "$TMP/out"; then
  ok "injected delay from run 5: $shifted of 8 all_reduce points shift there, slower, exit 1"
else
  not_ok "regress: rc=$rc, $shifted of 8 all_reduce points shifted at run 5, $faster faster"
  cat "$TMP/out" "$TMP/err"
  dump_times "${files[@]}"
fi

"$SCALEPROBE" regress "${files[@]}" --json >"$TMP/json" 2>/dev/null
rc=$?
if [ "$rc" -eq 1 ] && python3 -m json.tool "$TMP/json" >/dev/null &&
  python3 - "$TMP/json" <<'EOF'; then
import json, sys
d = json.load(open(sys.argv[1]))
s = [x for x in d["shifts"] if x["metric"].startswith("all_reduce ")]
assert len(d["runs"]) == 9 and d["summary"]["metrics"] == 8, d["summary"]
at5 = [x for x in s if x["run"] == 5]
assert len(at5) >= 6, s
for x in at5:
    assert x["direction"] == "slower" and x["path"].endswith("/r5.h5"), x
    assert x["ratio"] > 10 and x["ci_lo"] > 1 and x["p"] < 0.05, x
    assert x["before"] < x["after"], x
EOF
  ok "--json parses: shifts at run 5 slower, ratio and CI above 1, p < 0.05"
else
  not_ok "--json: rc=$rc"
  head -30 "$TMP/json"
fi

# delayed files first on the command line: --sort-by-time restores the order they were made in
"$SCALEPROBE" regress "${files[@]:5}" "${files[@]:0:5}" --sort-by-time >"$TMP/sorted" 2>&1
rc=$?
if [ "$rc" -eq 1 ] && [ "$(grep -c '^all_reduce .* 5 .* slower .*/r5\.h5$' "$TMP/sorted")" = "$shifted" ] &&
  grep -q '^# regress: 9 runs .*ordered by creation time' "$TMP/sorted"; then
  ok "--sort-by-time: runs in creation order, shift at run 5"
else
  not_ok "--sort-by-time: rc=$rc"
  cat "$TMP/sorted"
fi

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
[ "$rc" -eq 2 ] && [ "$(wc -l <"$TMP/e3")" = 1 ] && grep -q 'bad.h5: not a scaleprobe result' "$TMP/e3" &&
  ok "an unreadable file: exit 2, one message" || { not_ok "unreadable: rc=$rc"; cat "$TMP/e3"; }

"$SCALEPROBE" regress "${files[@]:0:3}" --alpha 2 >/dev/null 2>"$TMP/e4"
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$TMP/e4")" = 1 ] &&
  ok "--alpha 2: exit 2, one message" || { not_ok "--alpha 2: rc=$rc"; cat "$TMP/e4"; }
finish
