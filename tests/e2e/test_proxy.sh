#!/usr/bin/env bash
# `scaleprobe proxy` (pipeline-only slice): runs every schedule it has to completion at 4 ranks,
# writes one /proxy/stages row per step and stage, and refuses bad layouts with exit 2.
source "$(dirname "$0")/lib.sh"

for sched in "gpipe" "1f1b" "interleaved --chunks 2"; do
  f="$TMP/p-${sched%% *}.h5"
  # shellcheck disable=SC2086
  sp_mpirun 4 proxy --hidden 256 --ffn 1024 --seq 128 --layers 8 --tflops 20 --steps 2 \
    --schedule $sched -O "$f" >"$TMP/out" 2>&1
  rc=$?
  rows=$(h5dump -H -d /proxy/stages "$f" 2>/dev/null | grep -o 'SIMPLE { ( [0-9]*' | grep -o '[0-9]*$')
  chunks=1
  case "$sched" in interleaved*) chunks=2 ;; esac
  # every compute op on the timeline: 2 steps x 4 stages x (forward + backward) x 8 microbatches x chunks
  want=$((2 * 4 * 2 * 8 * chunks))
  events=$(h5dump -a /timeline/events "$f" 2>/dev/null | awk '/\(0\)/{print $2}')
  if [ "$rc" -eq 0 ] && [ "$rows" = "8" ] && [ "$events" = "$want" ] &&
    h5dump -a /status "$f" | grep -q complete; then
    ok "proxy --schedule $sched: complete, 8 rows (2 steps x 4 stages), $events compute ops on the timeline"
  else
    not_ok "proxy --schedule $sched: rc=$rc rows=$rows events=$events (want $want)"
    tail -5 "$TMP/out"
  fi
done

# report reads the proxy file back: the same rows and a per-stage summary against the prediction
f="$TMP/p-1f1b.h5"
"$SCALEPROBE" report "$f" >"$TMP/report" 2>&1
if grep -q '^# training proxy: schedule 1f1b, 4 pipeline stages' "$TMP/report" &&
  [ "$(grep -c '^# *[0-3] \+[0-9.]\+ \+0.2727' "$TMP/report")" = "4" ]; then
  ok "report on a proxy file: the table and 4 stage summaries (predicted 0.2727 = 3/11)"
else
  not_ok "report on a proxy file"
  cat "$TMP/report"
fi

for bad in "--layers 6 --chunks 2 --schedule interleaved" "--pp 3" "--model gpt5" "--schedule zb-h2"; do
  # shellcheck disable=SC2086
  sp_mpirun 4 proxy --hidden 256 --seq 128 --layers 8 $bad -O "$TMP/bad.h5" >"$TMP/out" 2>"$TMP/err"
  rc=$?
  n=$(grep -c '^scaleprobe' "$TMP/err")
  if [ "$rc" -eq 2 ] && [ "$n" -eq 1 ] && [ ! -e "$TMP/bad.h5" ]; then
    ok "proxy $bad: exit 2, one message: $(grep '^scaleprobe' "$TMP/err")"
  else
    not_ok "proxy $bad: rc=$rc messages=$n"
  fi
done
finish
