#!/usr/bin/env bash
# proxy --compute gemm (issue 20): the compute tasks run the layer's real GEMMs (fp32 OpenBLAS
# on the compute lane) beside the timed wait. At 2 ranks, dp 2 with DP overlap on, both kinds
# complete; the file and report state the compute used; the compute slowdown under overlap is
# present and > 0 in both, from measured times; the exposed-communication metrics are present
# and consistent with each other; the GEMM run's rate is the one it measured (no --tflops), and
# its cost-model estimate uses it (the same FLOPs as the timed run's at --tflops). Figures are printed, not asserted (the machine is shared).
# --compute gemm on the nccl backend is accepted (cuBLAS; without a GPU the backend refuses).
source "$(dirname "$0")/lib.sh"

args=(proxy --dp 2 --layers 4 --microbatches 4 --bucket-mb 2 --overlap on --steps 3
      --warmup-steps 1 --quiet)
# column of a CSV header by name, then that column of every data row
col() { awk -F, -v c="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next } { print $k }' "$1"; }

declare -A slow exposed dpexp
for kind in timed gemm; do
  f="$TMP/$kind.h5"
  sp_mpirun 2 "${args[@]}" --compute "$kind" -O "$f" </dev/null >"$TMP/$kind.out" 2>"$TMP/$kind.err"
  rc=$?
  "$SCALEPROBE" report "$f" >"$TMP/$kind.rep" 2>&1
  "$SCALEPROBE" export "$f" --csv "$TMP/$kind.csv" >/dev/null 2>&1
  info="$TMP/$kind.csv/proxy_info.csv"
  ranks="$TMP/$kind.csv/proxy_ranks.csv"
  attr=$(h5dump -a /proxy/compute "$f" 2>/dev/null | grep -o '"[a-z]*:' | head -1)
  if [ "$rc" -eq 0 ] && grep -q "^# compute: $kind: " "$TMP/$kind.rep" &&
    grep -q "^# compute: $kind: " "$TMP/$kind.out" && [ "$attr" = "\"$kind:" ] &&
    [ "$(col "$info" compute)" = "$([ $kind = gemm ] && echo 1 || echo 0)" ]; then
    ok "--compute $kind: complete; report: $(grep -o "^# compute: .\{0,110\}" "$TMP/$kind.rep")"
  else
    not_ok "--compute $kind: rc=$rc, attribute '$attr', compute column '$(col "$info" compute)'"
    tail -n 5 "$TMP/$kind.out" "$TMP/$kind.err" "$TMP/$kind.rep"
    continue
  fi
  # every row: slowdown > 0, or NaN exactly where no compute ran under DP traffic (dp_overlap
  # 0: pp 1 and tp 1 leave DP as the only communication; a rank whose DP lane thread got no
  # core until its compute ended has such a step on a loaded machine), at least one row with a
  # value; exposed <= bubble; dp_exposed <= dp_ms and = dp_ms * (1 - dp_overlap);
  # dp_exposed <= exposed (one class of it); DP traffic in every row
  paste -d, <(col "$ranks" slowdown) <(col "$ranks" exposed_ms) <(col "$ranks" bubble_ms) \
    <(col "$ranks" dp_ms) <(col "$ranks" dp_overlap) <(col "$ranks" dp_exposed_ms) >"$TMP/m"
  bad=$(awk -F, '{ s = $1; e = $2; b = $3; d = $4; o = $5; x = $6; tol = 1e-6 * (d + 1)
          if (s == "nan" && o != 0) n++
          if (s != "nan" && !(s > 0)) n++
          if (e == "nan" || e > b + 1e-6 || !(d > 0) || x > d + tol ||
              x > e + 1e-6 || (x - d * (1 - o))^2 > (1e-3 * (d + 1))^2) n++ }
        END { print n + 0 }' "$TMP/m")
  rows=$(wc -l <"$TMP/m")
  finite=$(awk -F, '$1 != "nan"' "$TMP/m" | wc -l)
  slow[$kind]=$(awk -F, '$1 != "nan" { s += $1; k++ } END { printf "%.3f", k ? s / k : 0 }' "$TMP/m")
  exposed[$kind]=$(awk -F, '{ s += $2 } END { printf "%.3f", s / NR }' "$TMP/m")
  dpexp[$kind]=$(awk -F, '{ s += $6 } END { printf "%.3f", s / NR }' "$TMP/m")
  if [ "$bad" -eq 0 ] && [ "$rows" -eq 6 ] && [ "$finite" -ge 1 ]; then
    ok "--compute $kind: $rows rows, slowdown mean ${slow[$kind]} ($finite rows with a value), exposed ${exposed[$kind]} ms, dp exposed ${dpexp[$kind]} ms: present and consistent"
  else
    not_ok "--compute $kind: $bad of $rows rows inconsistent, $finite with a slowdown (slowdown,exposed,bubble,dp_ms,dp_overlap,dp_exposed):"
    cat "$TMP/m"
  fi
done

# the GEMM run's rate is measured (not --tflops 0.5) and the header prints it; the cost model's
# estimate uses it: both runs have the same FLOPs per stage, so predicted busy x rate is the same
# (--tflops 0.5 in the timed run); the measured busy time is printed against the prediction
info="$TMP/gemm.csv/proxy_info.csv"
ranks="$TMP/gemm.csv/proxy_ranks.csv"
if [ -f "$info" ] && [ -f "$TMP/timed.csv/proxy_ranks.csv" ]; then
  rate=$(col "$info" tflops)
  threads=$(col "$info" compute_threads)
  work_g=$(col "$ranks" pred_busy_ms | head -1)
  work_t=$(col "$TMP/timed.csv/proxy_ranks.csv" pred_busy_ms | head -1)
  ratio=$(paste -d, <(col "$ranks" busy_ms) <(col "$ranks" pred_busy_ms) |
    awk -F, '{ m += $1; p += $2 } END { printf "%.3f", p / m }')
  if awk -v r="$rate" -v g="$work_g" -v t="$work_t"       'BEGIN { a = g * r; b = t * 0.5; exit !(r > 0 && r != 0.5 && b > 0 && (a - b)^2 < (1e-3 * b)^2) }' &&
    [ "$threads" = 1 ] && grep -q "measured $(printf '%.4g' "$rate") TFLOP/s per rank" "$TMP/gemm.out"; then
    ok "--compute gemm: measured $rate TFLOP/s per rank (1 BLAS thread); predicted busy $work_g ms at it ($work_t ms at --tflops 0.5); predicted / measured busy $ratio"
  else
    not_ok "--compute gemm: rate '$rate', threads '$threads', predicted busy '$work_g' ms (timed: '$work_t' ms at 0.5)"
    grep '^# ' "$TMP/gemm.out" | head -4
  fi
fi
echo "# timed vs gemm: slowdown ${slow[timed]:-?} vs ${slow[gemm]:-?}, exposed ${exposed[timed]:-?} vs ${exposed[gemm]:-?} ms, dp exposed ${dpexp[timed]:-?} vs ${dpexp[gemm]:-?} ms"

# the nccl backend's GEMM compute (cuBLAS) is accepted: with a GPU it runs; without one the
# backend's own refusal is the one message (exit 2, no file), no longer "host backend only"
f="$TMP/nccl.h5"
sp_mpirun 2 proxy --backend nccl --compute gemm --model tiny --steps 1 -O "$f" </dev/null >"$TMP/out" 2>"$TMP/err"
rc=$?
n=$(grep -c 'error' "$TMP/err")
if [ "$rc" -eq 0 ] && [ -s "$f" ] && grep -q 'cublasGemmStridedBatchedEx' "$TMP/out"; then
  ok "--compute gemm --backend nccl: ran on a GPU with cuBLAS"
elif [ "$rc" -eq 2 ] && [ ! -e "$f" ] && [ "$n" -eq 1 ] && grep -q 'backend nccl' "$TMP/err" &&
  ! grep -q 'host backend only' "$TMP/err"; then
  ok "--compute gemm --backend nccl without a GPU: exit 2, one message ($(grep -m1 error "$TMP/err" | cut -c1-90)), no file"
else
  not_ok "--compute gemm --backend nccl: rc=$rc, $n error lines"
  cat "$TMP/err"
fi
finish
