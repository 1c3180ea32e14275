#!/usr/bin/env bash
# The README's main command: a 4-rank host sweep writes a result file that h5dump reads and
# `scaleprobe report` summarizes, with every point verified.
source "$(dirname "$0")/lib.sh"
top=${SCALEPROBE_SOURCE_DIR:?}

SCALEPROBE_RESULTS="$TMP/results" timeout 300 "$top/scripts/run.sh" >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" -eq 0 ] && ok "scripts/run.sh exits 0" || { not_ok "scripts/run.sh rc=$rc"; cat "$TMP/err"; }
file=$(ls "$TMP"/results/coll-*.h5 2>/dev/null | head -1)
[ -n "$file" ] && ok "result file written under results/: $(basename "$file")" || not_ok "no result file"

h5dump -H "$file" >/dev/null 2>&1 && ok "h5dump reads the file" || not_ok "h5dump cannot read $file"
h5dump -a /status "$file" | grep -q '"complete"' && ok "status = complete" || not_ok "status is not complete"
rows=$(h5dump -A 0 -H -d /coll/results "$file" | grep -o 'DATASPACE  SIMPLE { ( [0-9]*' | grep -o '[0-9]*$')
# (9 collectives x 2 placements + alltoallv out-of-place only) x 9 sizes (8, 32, .., 512K: factor
# 4 up to 1 MiB), root 0, less the sizes whose per-rank count rounds to 0 floats on 4 ranks (8
# and 32 B of all_gather, reduce_scatter, alltoall, gather, scatter x 2 and alltoallv: 2 x 11)
[ "$rows" = "149" ] && ok "149 result rows" || not_ok "result rows: $rows, expected 149"
[ "$(grep -c '^# skipped 2 size(s) (8, 32 B)' "$TMP/out")" = 6 ] &&
  ok "one skip line for each of the 6 tables with sizes that round to 0" ||
  not_ok "skip lines: $(grep -c '^# skipped' "$TMP/out")"

grep -q '^# all_reduce' "$TMP/out" && grep -q '^# scatter' "$TMP/out" && grep -q '^# alltoallv' "$TMP/out" &&
  ok "the table covers all_reduce .. alltoallv" || not_ok "table incomplete"
grep -q '# Out of bounds values : 0 OK' "$TMP/out" && ok "every point verified, 0 wrong" || not_ok "wrong data or no check"
grep -q '^# scaleprobe report:' "$TMP/out" && ok "the report follows the run" || not_ok "no report printed"
for section in "# Peak bus bandwidth per collective" "# Ranks late most often" \
  "# Ranks with the highest own median time most often" "# Summary"; do
  grep -qF "$section" "$TMP/out" && ok "report has '$section'" || not_ok "report lacks '$section'"
done
# peak busbw comes with its point's interval: lo <= peak <= hi on every collective's line
peaks=$(grep -E '^#   [a-z_]+ +[0-9.]+ GB/s busbw \[[0-9.]+, [0-9.]+\] at ' "$TMP/out" |
  awk '{ lo = $6; hi = $7; gsub(/[\[,]/, "", lo); gsub(/\]/, "", hi);
         n++; bad += !(lo + 0 <= $3 + 0 && $3 + 0 <= hi + 0) } END { print n + 0, bad + 0 }')
[ "${peaks% *}" -ge 10 ] && [ "${peaks#* }" = "0" ] &&
  ok "report: every peak busbw within its point's CI (${peaks% *} lines)" ||
  not_ok "peak busbw lines with CI: '$peaks' (lines, out of their CI)"
# the report reads the same numbers the run printed: compare the all_reduce 512 KiB line
live=$(awk '/^# all_reduce/{s=1} s && $1=="524288"{print; exit}' "$TMP/out")
again=$("$SCALEPROBE" report "$file" | awk '/^# all_reduce/{s=1} s && $1=="524288"{print; exit}')
[ -n "$live" ] && [ "$live" = "$again" ] && ok "report reprints the live line exactly" ||
  not_ok "live and report lines differ: '$live' vs '$again'"
# the main job's proxy part: a pp 2 x dp 2 1F1B run whose report follows it, with step time,
# tokens/s, schedule efficiency (no MFU without --peak-tflops) and the per-stage table
pfile=$(ls "$TMP"/results/proxy-*.h5 2>/dev/null | head -1)
[ -n "$pfile" ] && h5dump -a /status "$pfile" | grep -q complete && ok "proxy result file complete: $(basename "$pfile")" ||
  not_ok "no complete proxy result file"
grep -q '^# training proxy: tiny, schedule 1f1b, dp 2 x pp 2 x tp 1' "$TMP/out" &&
  grep -q '^# tokens/s [0-9.]* .*over the mean step time' "$TMP/out" &&
  grep -q '^# schedule efficiency [0-9.]*%' "$TMP/out" &&
  grep -q '^# MFU not reported: it needs the hardware.s peak (--peak-tflops)' "$TMP/out" &&
  [ "$(grep -c '^# *[01] \+[0-9.]\+ \+[0-9.]\+ ' "$TMP/out")" -ge 4 ] && ok "the proxy's report follows it" ||
  not_ok "no proxy report"
finish
