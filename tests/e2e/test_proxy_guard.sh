#!/usr/bin/env bash
# `scaleprobe proxy` safe by default and explaining itself (issue 18): with no options it runs a
# model sized to the host and finishes within 30 s; a model whose predicted warm-up and fewest
# steps exceed --max-time is refused before any file exists (exit 2, one message with the
# estimate); counts of 0 are refused; the main job's 2 x 2 proxy (scripts/run.sh) names the
# largest part of its gap from the prediction and warns that its stream threads oversubscribe
# the cores; report names the same part, and says in words when a partial file has no step.
source "$(dirname "$0")/lib.sh"

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
status_of() { h5dump -a /status "$1" 2>/dev/null | grep '(0)' | grep -o '"[a-z]*"' | tr -d '"'; }

# 1. no options (but -O): the host default finishes, complete, within 30 s
f="$TMP/default.h5"
t0=$(now)
sp_mpirun 2 proxy -O "$f" >"$TMP/out" 2>"$TMP/err"
rc=$?
took=$(secs "$t0" "$(now)")
rows=$(h5dump -H -d /proxy/ranks "$f" 2>/dev/null | grep -o 'SIMPLE { ( [0-9]*' | grep -o '[0-9]*$')
if [ "$rc" -eq 0 ] && awk -v t="$took" 'BEGIN { exit !(t < 30) }' &&
  [ "$(status_of "$f")" = complete ] && [ "${rows:-0}" -ge 12 ] &&
  grep -q '^# proxy: tiny (8 layers' "$TMP/out" && grep -q 'largest part of the gap' "$TMP/out"; then
  ok "proxy with no options: the host default (tiny) finishes in $took s, complete, $rows rows"
else
  not_ok "proxy with no options: rc=$rc in $took s, status $(status_of "$f"), rows $rows"
  tail -n 5 "$TMP/out" "$TMP/err"
fi

# 2. a model far too large for --max-time: refused before the first step, exit 2, no file
f="$TMP/big.h5"
t0=$(now)
sp_mpirun 2 proxy --model llama3-8b --max-time 5 -O "$f" >"$TMP/out" 2>"$TMP/err"
rc=$?
took=$(secs "$t0" "$(now)")
n=$(grep -c 'error' "$TMP/err")
if [ "$rc" -eq 2 ] && [ ! -e "$f" ] && [ "$n" -eq 1 ] &&
  awk -v t="$took" 'BEGIN { exit !(t < 30) }' &&
  grep -q 'is predicted to take .* more than --max-time 5 s' "$TMP/err" &&
  grep -q -- '--tflops' "$TMP/err" && grep -q -- '--layers' "$TMP/err"; then
  ok "llama3-8b with --max-time 5: refused in $took s, exit 2, one message, no file: $(grep -o 'predicted to take [^,]*' "$TMP/err")"
else
  not_ok "llama3-8b with --max-time 5: rc=$rc in $took s, $n error lines, file $([ -e "$f" ] && echo left || echo none)"
  cat "$TMP/err"
fi

# 3. counts that must be positive: 0 is an error, not "the default"
for opt in "--pp 0" "--hidden 0" "--microbatches 0"; do
  f="$TMP/zero.h5"
  # shellcheck disable=SC2086
  sp_mpirun 2 proxy $opt -O "$f" >"$TMP/out" 2>"$TMP/err"
  rc=$?
  if [ "$rc" -eq 2 ] && [ ! -e "$f" ] && grep -q -- "${opt% *}: 0 is out of range" "$TMP/err"; then
    ok "proxy $opt: exit 2, '$(grep -o -- "${opt% *}: 0 is out of range[^(]*" "$TMP/err")', no file"
  else
    not_ok "proxy $opt: rc=$rc"
    cat "$TMP/err"
  fi
done

# 4. the main job's proxy (scripts/run.sh): 4 ranks with 5 busy lanes each (compute, 2 pipeline,
# DP, the tied embedding's) on this machine's
# cores; DP all-reduces wait for their time slices, so exposed DP communication is in the gap to
# the prediction (which has communication free), most often its largest part
f="$TMP/main.h5"
sp_mpirun 4 proxy --hidden 512 --ffn 2048 --heads 8 --seq 256 --layers 8 --vocab 4096 --tflops 1 \
  --pp 2 --dp 2 --bucket-mb 1 --schedule 1f1b --microbatches 8 --max-steps 12 -O "$f" \
  >"$TMP/out" 2>"$TMP/err"
rc=$?
cores=$(nproc)
sentence=$(grep '^# the largest part of the gap' "$TMP/out")
# Which part is largest depends on the machine's load: exposed DP communication in most runs
# here (+17 to +31 ms against idle +7 to +9 ms), pipeline idle in some CI runs (+8.8 against DP
# +7.5). So the test checks the attribution, not one outcome: the sentence names the largest of
# the table's per-stage parts with its value, and every stage has exposed DP communication in
# its gap (the prediction's is 0: communication free).
named=$(awk '/^# stage   measured  predicted/ { t = 1; next }
  t && /^# +[0-9]+ / { n = split("compute|pipeline idle|exposed TP communication|exposed PP communication|exposed DP communication", nm, "|")
    for (k = 1; k <= 5; k++) if (!seen || $(5 + k) + 0 > best) { best = $(5 + k) + 0; name = nm[k]; seen = 1 }
    if ($10 + 0 <= 0) nodp = 1; next }
  t { t = 0 }
  END { if (seen && !nodp) printf "%s, %+.3f ms", name, best }' "$TMP/out")
if [ "$rc" -eq 0 ] && [ -n "$named" ] && [[ $sentence == *"gap: $named of"* ]] &&
  { [ "$cores" -ge 20 ] || grep -q 'warning: oversubscribed: 20 stream threads .* on '"$cores"' online cores' "$TMP/err"; } &&
  grep -q '^# stage   measured  predicted' "$TMP/out"; then
  ok "main job's 2x2 proxy: ${sentence#\# }; warns: $(grep -o 'oversubscribed: [^:]*' "$TMP/err")"
else
  not_ok "main job's 2x2 proxy: rc=$rc, '$sentence'"
  grep '^#' "$TMP/out" | tail -12
  cat "$TMP/err"
fi
"$SCALEPROBE" report "$f" >"$TMP/rep" 2>&1
if grep -q '^# the largest part of the gap: ' "$TMP/rep" &&
  [ "$(grep '^# the largest part' "$TMP/rep")" = "$sentence" ] &&
  grep -q '^# stage     idle predicted' "$TMP/rep" &&
  { [ "$cores" -ge 20 ] || grep -q '^# warning: oversubscribed: 20 stream threads' "$TMP/rep"; }; then
  ok "report prints the same gap split, sentence and oversubscription warning from the file"
else
  not_ok "report of the main job's proxy: $(grep '^# the largest' "$TMP/rep")"
fi

# 5. a partial file with no finished step: SIGTERM during the warm-up (2 warm-up steps of ~1.8 s)
f="$TMP/partial.h5"
timeout 120 mpirun -np 2 "$SCALEPROBE" proxy --tflops 0.02 --warmup-steps 2 -O "$f" \
  >"$TMP/out" 2>"$TMP/err" &
job=$!
for _ in $(seq 100); do
  grep -q '^ *step ' "$TMP/out" 2>/dev/null && break
  sleep 0.1
done
kill -TERM "$(pgrep -P "$job" -x mpirun)"
wait "$job"
rc=$?
"$SCALEPROBE" report "$f" >"$TMP/rep" 2>&1
if [ "$rc" -ne 0 ] && [ "$(status_of "$f")" = partial ] &&
  grep -q '^# no measured step finished' "$TMP/rep" && ! grep -qi 'nan' "$TMP/rep"; then
  ok "report of a partial file with no step: $(grep -o 'no measured step finished[^:]*' "$TMP/rep")"
else
  not_ok "partial file: rc=$rc status $(status_of "$f")"
  tail -n 5 "$TMP/rep" "$TMP/err"
fi
finish
