#!/usr/bin/env bash
# The proxy's deadline from its own prediction (docs/METHODOLOGY.md, "Watchdog"): one compute
# task longer than --timeout is not a hang (the silence allowed in a task predicted to last P s
# is max(--timeout, 3P + 1 s)), while a rank that stops is still named within --timeout of the
# last progress, not after a deadline scaled to the long step.
source "$(dirname "$0")/lib.sh"

now_ms() { echo $(($(date +%s%N) / 1000000)); }
status_of() { h5dump -a /status "$1" 2>/dev/null | grep '(0)' | grep -o '"[a-z]*"' | tr -d '"'; }
# one microbatch at 0.3 GFLOP/s: a forward task of ~1 s and a backward task of ~2 s on one rank
model="--hidden 256 --ffn 1024 --heads 8 --seq 64 --layers 2 --vocab 512 --microbatches 1 --tflops 0.0003"

# 1. a step of ~3x --timeout whose backward is one task of ~2x --timeout: it completes
f="$TMP/long-task.h5"
# shellcheck disable=SC2086
sp_mpirun 1 proxy $model --pp 1 --steps 1 --warmup-steps 0 --backend host --timeout 1 -O "$f" \
  >"$TMP/out" 2>"$TMP/err"
rc=$?
step_ms=$(awk '$1 == "0" && NF == 8 { print $2 }' "$TMP/out")
if [ "$rc" -eq 0 ] && [ "$(status_of "$f")" = complete ] &&
  awk -v s="$step_ms" 'BEGIN { exit !(s > 2700) }' && ! grep -q watchdog "$TMP/err"; then
  ok "a step of $step_ms ms (one task of ~2 s) with --timeout 1 completes"
else
  not_ok "long task: rc=$rc, step '$step_ms' ms, status $(status_of "$f")"
  grep -i watchdog "$TMP/err"
fi

# 2. the same model on 2 stages; rank 1 stops for 60 s before the measured step (after a
# warm-up step of long tasks): rank 0 waits in no task, so the timeout alone holds and the
# report comes about --timeout after the last progress (--timeout 2: start-up on a loaded
# machine can take a second between two beats); a deadline of 3x the predicted step (~3 s)
# would have waited 10 s or more
f="$TMP/hang.h5"
t0=$(now_ms)
# shellcheck disable=SC2086
SCALEPROBE_TEST_DELAY=1:60000000 sp_mpirun 2 proxy $model --pp 2 --steps 2 --warmup-steps 1 \
  --backend host --timeout 2 -O "$f" >"$TMP/out" 2>"$TMP/err"
rc=$?
dt=$(($(now_ms) - t0))
line=$(grep 'watchdog: no progress' "$TMP/err" | head -1)
waited=$(sed -n 's/.*no progress for \([0-9.]*\) s .*/\1/p' <<<"$line")
if [ "$rc" -ne 0 ] && grep -q '(--timeout 2.0) in proxy step 1; ranks that did not arrive: 1 (last: proxy step 1: before its start' <<<"$line" &&
  awk -v w="$waited" 'BEGIN { exit !(w > 0 && w < 6) }' && [ "$(status_of "$f")" = partial ]; then
  ok "a stopped rank is named after $waited s without progress (--timeout 2), job ends in $dt ms"
else
  not_ok "stopped rank: rc=$rc after $dt ms, waited '$waited' s, status $(status_of "$f")"
  grep watchdog "$TMP/err"
fi
finish
