#!/usr/bin/env bash
# proxy --max-inflight (issue 15): the bound on tasks enqueued ahead per lane. A 2-stage 1F1B
# step with --max-inflight 1 (one task per lane, 13 on all) completes with the bound holding
# (peak 1 per lane, polls held > 0), as does the default (16); /proxy/info records the bounds
# and the /proxy attributes the peaks the run printed; --max-inflight 0 is refused (exit 2,
# one message, no file). The deadlock freedom itself is tests/unit/test_lanefeed.c's.
source "$(dirname "$0")/lib.sh"

args=(proxy --pp 2 --layers 4 --microbatches 8 --steps 2 --warmup-steps 1 --quiet)
attr() { h5dump -a "/proxy/$2" "$1" 2>/dev/null | grep '(0)' | grep -o '[0-9]*$'; }
col() { awk -F, -v c="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next } { print $k }' "$1"; }

for n in 1 16; do
  f="$TMP/n$n.h5"
  sp_mpirun 2 "${args[@]}" --max-inflight "$n" -O "$f" </dev/null >"$TMP/n$n.out" 2>"$TMP/n$n.err"
  rc=$?
  "$SCALEPROBE" export "$f" --csv "$TMP/n$n.csv" >/dev/null 2>&1
  info="$TMP/n$n.csv/proxy_info.csv"
  peak=$(attr "$f" inflight_peak_lane)
  total=$(attr "$f" inflight_peak_total)
  held=$(attr "$f" inflight_held)
  want_total=$((4 * n > 13 ? 4 * n : 13))
  line=$(grep -m1 '^# in flight:' "$TMP/n$n.out")
  if [ "$rc" -eq 0 ] && [ "$(col "$info" max_inflight)" = "$n" ] &&
    [ "$(col "$info" max_inflight_total)" = "$want_total" ] &&
    [ -n "$peak" ] && [ "$peak" -ge 1 ] && [ "$peak" -le "$n" ] &&
    [ -n "$total" ] && [ "$total" -le "$want_total" ] && [ -n "$held" ] &&
    grep -q "at most $peak tasks on one lane (--max-inflight $n) and $total on all lanes (bound $want_total)" <<<"$line" &&
    { [ "$n" -gt 1 ] || { [ "$peak" -eq 1 ] && [ "$held" -gt 0 ]; }; }; then
    ok "--max-inflight $n: complete; peak $peak per lane, $total in all (bound $want_total), held $held polls"
  else
    not_ok "--max-inflight $n: rc=$rc peak=$peak total=$total held=$held info=$(col "$info" max_inflight); $line"
    tail -5 "$TMP/n$n.err"
  fi
done

f="$TMP/zero.h5"
sp_mpirun 2 "${args[@]}" --max-inflight 0 -O "$f" </dev/null >"$TMP/zero.out" 2>"$TMP/zero.err"
rc=$?
n=$(grep -c 'error' "$TMP/zero.err")
if [ "$rc" -eq 2 ] && [ ! -e "$f" ] && [ "$n" -eq 1 ] && grep -q -- "--max-inflight" "$TMP/zero.err"; then
  ok "--max-inflight 0: refused, exit 2, one message, no file: $(grep -m1 error "$TMP/zero.err")"
else
  not_ok "--max-inflight 0: rc=$rc, $n error lines"
  cat "$TMP/zero.err"
fi
finish
