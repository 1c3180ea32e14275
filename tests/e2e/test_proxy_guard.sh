#!/usr/bin/env bash
# `scaleprobe proxy` safe by default and explaining itself (issue 18): with no options it runs a
# model sized to the host and finishes within 30 s; a model whose predicted warm-up and fewest
# steps exceed --max-time is refused before any file exists (exit 2, one message with the
# estimate); counts of 0 are refused; the main job's 2 x 2 proxy (scripts/run.sh) names the
# largest part of its gap from the prediction when it stands out of the step-to-step noise (else
# says the two leading parts are within it) and warns that its stream threads oversubscribe
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
  grep -q '^# proxy: tiny (8 layers' "$TMP/out" && grep -Eq 'largest parts? of the gap' "$TMP/out"; then
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
sentence=$(grep -E '^# the (largest part|two largest parts) of the gap' "$TMP/out")
# Which part is largest depends on the machine's load: exposed DP communication in most runs
# here (+17 to +31 ms against idle +7 to +9 ms), pipeline idle in some CI runs (+8.8 against DP
# +7.5, within the step-to-step noise). So the test checks the honest form, not one outcome:
# the largest of the table's per-stage parts and the largest part of another kind (the
# runner-up) are the two the sentence names; it names one the largest only when their
# per-step difference's 95% CI lies above 0 (recomputed here from /proxy/ranks), else says
# they are within the noise; and every stage has exposed DP communication in its gap (the
# prediction's is 0: communication free).
lead=$(awk '/^# stage   measured  predicted/ { t = 1; next }
  t && /^# +[0-9]+ / { n = split("compute|pipeline idle|exposed TP communication|exposed PP communication|exposed DP communication", nm, "|")
    for (k = 1; k <= 5; k++) { v[$2 "|" k] = $(5 + k) + 0; if (!seen || $(5 + k) + 0 > best) { best = $(5 + k) + 0; bk = k; bs = $2; seen = 1 } }
    if ($10 + 0 <= 0) nodp = 1; next }
  t { t = 0 }
  END { if (!seen || nodp) exit
    for (key in v) { split(key, p, "|"); if (p[2] != bk && (!s2 || v[key] > nx)) { nx = v[key]; nk = p[2]; ns = p[1]; s2 = 1 } }
    printf "%s|%+.3f|%d|%s|%+.3f|%d|%d|%d|%d|%d\n", nm[bk], best, bs, nm[nk], nx, ns, bs, bk - 1, ns, nk - 1 }' "$TMP/out")
# the sentence against the table's two leading parts and against their per-step difference
# recomputed from the file (mean and 95% t half-width over the steps)
honest=$(/usr/bin/python3 - "$f" "$lead" "$sentence" 2>&1 <<'PY'
import re, sys
import h5py
import numpy as np
from scipy import stats
r = h5py.File(sys.argv[1], "r")["/proxy/ranks"][:]
bname, bval, bst, nname, nval, nst, pst, ppart, qst, qpart = sys.argv[2].split("|")
sentence = sys.argv[3]
meas = ("busy_ms", "idle_ms", "tp_excl_ms", "pp_excl_ms", "dp_excl_ms")
pred = ("pred_busy_ms", "pred_idle_ms", "pred_tp_excl_ms", "pred_pp_excl_ms", "pred_dp_excl_ms")
def part(rows, stage, k):
    s = rows[rows["stage"] == stage]
    return np.mean(s[meas[k]]) - np.mean(s[pred[k]])
d = np.array([part(r[r["step"] == s], int(pst), int(ppart)) - part(r[r["step"] == s], int(qst), int(qpart))
              for s in np.unique(r["step"])])
h = stats.t.ppf(0.975, len(d) - 1) * d.std(ddof=1) / np.sqrt(len(d))
num = r"([-+]?[0-9.]+)"
m = re.fullmatch(rf"# the largest part of the gap: {bname}, {re.escape(bval)} ms of the {num} ms .* \(stage {bst}\); {num} ms above the next, {nname} \(stage {nst}\), 95% CI \+-{num} ms over {len(d)} steps", sentence)
form = "named"
if m is None:
    m = re.fullmatch(rf"# the two largest parts of the gap are within the step-to-step noise of each other: {bname} {re.escape(bval)} ms \(stage {bst}\) and {nname} {re.escape(nval)} ms \(stage {nst}\) of the {num} ms .*; their difference {num} ms, 95% CI \+-{num} ms over {len(d)} steps: neither is named the largest", sentence)
    form = "within noise"
assert m is not None, f"sentence does not name the table's leaders {bname} {bval} / {nname} {nval}: {sentence}"
dm, dh = float(m.group(2)), float(m.group(3))
assert abs(dm - d.mean()) < 2e-3 and abs(dh - h) < 2e-3 + 0.01 * h, (dm, dh, d.mean(), h)
# the decision follows the interval (the recomputed one, unless it sits on the boundary)
assert (form == "named") == (dm - dh > 0), (form, dm, dh)
assert abs(d.mean() - h) < 5e-3 or (form == "named") == (d.mean() - h > 0), (form, d.mean(), h)
print(f"{form}; per-step difference {d.mean():+.3f} +- {h:.3f} ms over {len(d)} steps from the file")
PY
) || { sed "s/^/     | /" <<<"$honest"; honest=; }
if [ "$rc" -eq 0 ] && [ -n "$honest" ] &&
  { [ "$cores" -ge 20 ] || grep -q 'warning: oversubscribed: 20 stream threads .* on '"$cores"' online cores' "$TMP/err"; } &&
  grep -q '^# stage   measured  predicted' "$TMP/out"; then
  ok "main job's 2x2 proxy ($honest): ${sentence#\# }; warns: $(grep -o 'oversubscribed: [^:]*' "$TMP/err")"
else
  not_ok "main job's 2x2 proxy: rc=$rc, lead '$lead', '$sentence'"
  grep '^#' "$TMP/out" | tail -12
  cat "$TMP/err"
fi
"$SCALEPROBE" report "$f" >"$TMP/rep" 2>&1
if [ -n "$sentence" ] &&
  [ "$(grep -E '^# the (largest part|two largest parts) of the gap' "$TMP/rep")" = "$sentence" ] &&
  grep -q '^# stage     idle predicted' "$TMP/rep" &&
  { [ "$cores" -ge 20 ] || grep -q '^# warning: oversubscribed: 20 stream threads' "$TMP/rep"; }; then
  ok "report prints the same gap split, sentence and oversubscription warning from the file"
else
  not_ok "report of the main job's proxy: $(grep -E '^# the (largest|two largest)' "$TMP/rep")"
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
