#!/usr/bin/env bash
# coll --issue stream at 2 ranks: every operation enqueued on a host stream (the proxy's path);
# the data is verified on several collectives, types and operators (and a corrupted rank is
# still caught), the file says /coll issue = stream and report's header shows it; the mode is
# refused with exit 2, one message and no file where it cannot apply; predict names a
# stream-issued sweep and prefers it over a blocking one of the same size.
source "$(dirname "$0")/lib.sh"

attr() { h5dump -a "$2" "$1" | sed -n 's/.*(0): "\(.*\)".*/\1/p'; }

sp_mpirun 2 coll --issue stream --collectives all_reduce,all_gather,reduce_scatter,sendrecv,broadcast \
  -d float,bfloat16 -o sum,avg -b 1K -e 256K -f 16 --max-time 0.2 -O "$TMP/s.h5" >"$TMP/s.out" 2>&1
rc=$?
rows=$(grep -cE '^ +[0-9]+ +[0-9]+ ' "$TMP/s.out")
if [ "$rc" -eq 0 ] && grep -q '^# Out of bounds values : 0 OK' "$TMP/s.out" && [ "$rows" -ge 20 ] &&
  grep -q '^# issue stream: each operation enqueued on a host stream' "$TMP/s.out"; then
  ok "--issue stream: $rows rows over 5 collectives, every one verified"
else
  not_ok "--issue stream sweep: rc=$rc, $rows rows"
  tail -20 "$TMP/s.out"
fi
issue=$(attr "$TMP/s.h5" /coll/issue)
[ "$issue" = stream ] && ok "/coll issue = $issue" || not_ok "/coll issue '$issue'"
# the cross-stream wait, measured once at the stream's opening: in the header and /coll
wait_ns=$(h5dump -a /coll/stream_wait_ns "$TMP/s.h5" | sed -n 's/.*(0): \([0-9]*\).*/\1/p')
if [ "${wait_ns:-0}" -gt 0 ] && grep -q '^# cross-stream wait: median [0-9.]* us, p90 [0-9.]* us' "$TMP/s.out"; then
  ok "cross-stream wait: /coll stream_wait_ns = $wait_ns, $(grep '^# cross-stream' "$TMP/s.out" | cut -c1-60)"
else
  not_ok "cross-stream wait: stream_wait_ns '$wait_ns'"; grep '^# cross' "$TMP/s.out"
fi
"$SCALEPROBE" report "$TMP/s.h5" >"$TMP/s.rep" 2>&1
grep -q '^# issue: stream (each operation enqueued on a backend stream' "$TMP/s.rep" &&
  ok "report: $(grep '^# issue' "$TMP/s.rep")" || { not_ok "report header"; head -12 "$TMP/s.rep"; }

# verification is live on the stream path: a rank whose output is corrupted is named
SCALEPROBE_TEST_CORRUPT_RANK=1 sp_mpirun 2 coll --issue stream --collectives all_reduce -b 4K -e 4K \
  -n 3 -O "$TMP/c.h5" >"$TMP/c.out" 2>&1
grep -q '^# WRONG DATA: all_reduce .* on 1 rank(s): 1(' "$TMP/c.out" &&
  ok "a corrupted rank is caught with --issue stream" ||
  { not_ok "corruption not caught"; tail -5 "$TMP/c.out"; }

# a blocking sweep: the attribute says so
sp_mpirun 2 coll --collectives sendrecv,all_reduce -b 16K -e 1M -f 4 --max-time 0.2 \
  -O "$TMP/b.h5" >/dev/null 2>&1
issue=$(attr "$TMP/b.h5" /coll/issue)
[ "$issue" = blocking ] && ok "default: /coll issue = $issue" || not_ok "default issue '$issue'"

refused() {
  local what=$1
  shift
  rm -f "$TMP/bad.h5"
  sp_mpirun 2 coll "$@" -O "$TMP/bad.h5" >"$TMP/bad.out" 2>"$TMP/bad.err"
  local rc=$?
  if [ "$rc" -eq 2 ] && [ "$(grep -c '^scaleprobe coll: error: ' "$TMP/bad.err")" = 1 ] &&
    [ ! -e "$TMP/bad.h5" ]; then
    ok "$what: exit 2, '$(grep '^scaleprobe coll: error: ' "$TMP/bad.err")'"
  else
    not_ok "$what: rc=$rc"
    cat "$TMP/bad.err"
  fi
}
refused "--issue stream with --method osu" --issue stream --method osu
refused "--issue stream with --method nccl-tests" --issue stream --method nccl-tests
refused "--issue stream with --cuda-graph" --issue stream -G
refused "an unknown issue mode" --issue sideways

# predict: the stream sweep is named as such, and wins over a blocking one of the same size
sp_mpirun 2 coll --issue stream --collectives sendrecv,all_reduce -b 16K -e 1M -f 4 --max-time 0.2 \
  -O "$TMP/st.h5" >/dev/null 2>&1
layout="--hidden 512 --ffn 2048 --heads 8 --seq 128 --layers 4 --vocab 1024 --tflops 0.5 --pp 2 --microbatches 8"
# shellcheck disable=SC2086
"$SCALEPROBE" predict $layout --sweep "$TMP/b.h5,$TMP/st.h5" -O "$TMP/p.h5" >"$TMP/p.out" 2>&1
line=$(grep '^# communication:' "$TMP/p.out")
case "$line" in
  "# communication: sweep $TMP/st.h5 (2 ranks, issued on a stream as the proxy issues its collectives), not $TMP/b.h5 (2 ranks, blocking issue"*)
    ok "predict prefers the stream-issued sweep: $line" ;;
  *) not_ok "predict's communication line: '$line'"; cat "$TMP/p.out" ;;
esac
finish
