#!/usr/bin/env bash
# `scaleprobe proxy` at 8 ranks as dp 2 x pp 2 x tp 2: every schedule (ZB-V in its V placement
# too) runs to completion, and so
# do sequence parallelism, FSDP and overlap off; each file holds one /proxy/ranks row per rank
# and measured step, /proxy/info with the layout, and every task on the timeline (compute,
# collectives, point-to-point). report prints the metrics; bad layouts exit 2 with one message.
source "$(dirname "$0")/lib.sh"

small="--hidden 256 --ffn 1024 --heads 8 --seq 128 --layers 4 --vocab 1024 --tflops 2 --steps 2"
run=0
for variant in "--schedule gpipe" "--schedule 1f1b" "--schedule interleaved --chunks 2" \
  "--schedule zb-h1" "--schedule 1f1b --sequence-parallel" "--schedule 1f1b --dp-mode fsdp" \
  "--schedule interleaved --chunks 2 --overlap off" "--schedule zb-v --chunks 2"; do
  run=$((run + 1))
  f="$TMP/p$run.h5"
  # shellcheck disable=SC2086
  sp_mpirun 8 proxy $small --tp 2 --pp 2 --dp 2 $variant -O "$f" >"$TMP/out" 2>&1
  rc=$?
  rows=$(h5dump -A 0 -H -d /proxy/ranks "$f" 2>/dev/null | grep -o 'SIMPLE { ( [0-9]*' | grep -o '[0-9]*$')
  events=$(h5dump -a /timeline/events "$f" 2>/dev/null | awk '/\(0\)/{print $2}')
  # kinds on the timeline: compute (forward/backward) and, with tp 2 and dp 2, coll, send, recv
  kinds=$(h5dump -A 0 -d /timeline/events -M kind "$f" 2>/dev/null | grep -o 'SP_EV_[A-Z]*\|"[a-z]*"' | sort -u | tr '\n' ' ')
  if [ "$rc" -eq 0 ] && [ "$rows" = "16" ] && [ "${events:-0}" -gt 0 ] &&
    h5dump -a /status "$f" | grep -q complete && ! grep -q 'did not fit' "$TMP/out"; then
    ok "proxy dp2 x pp2 x tp2 $variant: complete, 16 rows (2 steps x 8 ranks), $events tasks on the timeline"
  else
    not_ok "proxy $variant: rc=$rc rows=$rows events=$events"
    tail -5 "$TMP/out"
  fi
done

# the timeline holds every kind of task of a TP x PP x DP step
f="$TMP/p2.h5"
h5dump -A 0 -d /timeline/events "$f" 2>/dev/null >"$TMP/events.txt"
missing=""
for k in coll send recv forward backward; do
  grep -q "kind\"\? *[=:]\? *\"\?$k\"\?" "$TMP/events.txt" || grep -qi "$k" "$TMP/events.txt" || missing="$missing $k"
done
[ -z "$missing" ] && ok "the timeline of 1f1b holds coll, send, recv, forward and backward tasks" ||
  not_ok "timeline kinds missing:$missing"

# ZB-H1 records weight-gradient tasks
grep -qi wgrad <(h5dump -A 0 -d /timeline/events "$TMP/p4.h5" 2>/dev/null) && ok "zb-h1 records wgrad tasks" ||
  not_ok "no wgrad tasks in the zb-h1 timeline"

# ZB-V: weight-gradient tasks, and the V on the timeline: rank 0 (stage 0, which holds the
# first and the last virtual stage) receives chunk 1's activations from stage 1 on a forward
# lane (2, 3 or 4), one per microbatch and measured step; stage 1 turns the V without a message
h5dump -A 0 -d /timeline/events "$TMP/p8.h5" 2>/dev/null >"$TMP/zbv.txt"
grep -qi wgrad "$TMP/zbv.txt" && ok "zb-v records wgrad tasks" ||
  not_ok "no wgrad tasks in the zb-v timeline"
"$SCALEPROBE" export "$TMP/p8.h5" --chrome "$TMP/zbv.json" >/dev/null 2>&1
back=$(grep '"pid":0,"tid":[234],' "$TMP/zbv.json" | grep '"name":"recv"' | grep -c '"chunk":1,"peer":1')
[ "$back" = "16" ] && ok "zb-v: stage 0 receives 16 chunk-1 activations from stage 1 (the V's way back)" ||
  not_ok "zb-v: stage 0 received $back chunk-1 activations from stage 1, not 16"
"$SCALEPROBE" report "$TMP/p8.h5" >"$TMP/zbv_report" 2>&1
grep -q '^# training proxy: tiny, schedule zb-v, dp 2 x pp 2 x tp 2' "$TMP/zbv_report" &&
  ok "report names the zb-v schedule" || not_ok "report of zb-v: $(head -2 "$TMP/zbv_report")"

# report reads the proxy file back: the layout, step time, tokens/s (from the mean step; no CI
# with 2 steps) and schedule efficiency (no MFU: no --peak-tflops), both stages in the stage
# table and in the gap to the prediction, with its sentence on the largest part (over 2 steps
# the t interval is wide: most often the two leading parts are within the noise)
"$SCALEPROBE" report "$TMP/p2.h5" >"$TMP/report" 2>&1
if grep -q '^# training proxy: tiny, schedule 1f1b, dp 2 x pp 2 x tp 2, 8 microbatches' "$TMP/report" &&
  grep -q '^# step time: median [0-9.]* ms over 2 measured' "$TMP/report" &&
  grep -q '^# tokens/s [0-9.]* (2048 tokens per step over the mean step time)$' "$TMP/report" &&
  grep -q '^# schedule efficiency [0-9.]*% ' "$TMP/report" &&
  ! grep -q '^# MFU [0-9]' "$TMP/report" &&
  [ "$(grep -c '^# *[01] \+[0-9.]\+ \+[0-9.]\+ ' "$TMP/report")" = "4" ] &&
  grep -Eq '^# the (largest part of the gap: .* over 2 steps$|two largest parts of the gap .* over 2 steps: neither)' "$TMP/report"; then
  ok "report on a proxy file: layout, step time, tokens/s, schedule efficiency, 2 stage rows and 2 gap rows, the gap sentence: $(grep -Eo '^# the (largest part|two largest parts) of the gap[^:]*' "$TMP/report")"
else
  not_ok "report on a proxy file"
  cat "$TMP/report"
fi

# overlap off: no data-parallel communication under compute
dp_ovl=$("$SCALEPROBE" report "$TMP/p7.h5" | awk '/^# +stage +idle/{s=1; next} /^# where/{s=0} s && /^# +[01] /{print $12}' | sort -u | tr '\n' ' ')
[ "$dp_ovl" = "0.000 " ] && ok "overlap off: dp overlap 0.000 on both stages" ||
  not_ok "overlap off: dp overlap '$dp_ovl'"

# --use-distributed-optimizer (dp 2 on 2 ranks, pp 1) with Megatron-LM's --overlap-grad-reduce
# alone: the file records the flag and the two overlaps apart in /proxy/info, and the headers of
# proxy and report say which is on (unit.test_program_megatron counts the reduce-scatters and
# all-gathers and checks where they sit)
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
f="$TMP/dopt.h5"
# shellcheck disable=SC2086
sp_mpirun 2 proxy $small --dp 2 --use-distributed-optimizer --overlap-grad-reduce -O "$f" \
  >"$TMP/out" 2>&1
rc=$?
info=$("$PY" -c 'import sys, h5py; i = h5py.File(sys.argv[1], "r")["/proxy/info"][0]
print(int(i["dist_opt"]), int(i["overlap"]), int(i["overlap_param_gather"]))' "$f" 2>&1)
said="overlap on for gradient reductions, off for parameter gathers"
if [ "$rc" -eq 0 ] && [ "$info" = "1 1 0" ] &&
  grep -q "with the distributed optimizer, $said" "$TMP/out" &&
  "$SCALEPROBE" report "$f" >"$TMP/rep" 2>&1 && grep -q "$said" "$TMP/rep" && h5dump -a /status "$f" | grep -q complete; then
  ok "proxy dp2 --use-distributed-optimizer --overlap-grad-reduce: complete, /proxy/info dist_opt overlap overlap_param_gather = $info, the headers say it"
else
  not_ok "proxy dp2 --use-distributed-optimizer --overlap-grad-reduce: rc=$rc info '$info'"
  tail -5 "$TMP/out"
fi

for bad in "--tp 3" "--pp 3" "--layers 6 --chunks 2 --schedule interleaved" "--model gpt5" \
  "--schedule zb-h2" "--tp 4 --heads 6 --hidden 384" "--chunks 2 --schedule 1f1b" \
  "--schedule zb-v" "--dp 4 --dp-mode fsdp --use-distributed-optimizer" \
  "--dp 4 --use-distributed-optimizer --overlap-param-gather" "--dp 4 --overlap on --overlap-grad-reduce"; do
  # shellcheck disable=SC2086
  sp_mpirun 4 proxy --hidden 256 --seq 128 --layers 8 $bad -O "$TMP/bad.h5" >"$TMP/out" 2>"$TMP/err"
  rc=$?
  n=$(grep -c '^scaleprobe' "$TMP/err")
  case "$bad" in # the overlap refusals say why (any other refusal would pass on rc alone)
  *--overlap-param-gather) want="needs --overlap-grad-reduce" ;;
  *--overlap-grad-reduce) want="not both" ;;
  *) want="" ;;
  esac
  if [ "$rc" -eq 2 ] && [ "$n" -eq 1 ] && [ ! -e "$TMP/bad.h5" ] && grep -q -- "$want" "$TMP/err"; then
    ok "proxy $bad: exit 2, one message: $(grep '^scaleprobe' "$TMP/err")"
  else
    not_ok "proxy $bad: rc=$rc messages=$n"
    cat "$TMP/err"
  fi
done
finish
