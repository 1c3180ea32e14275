#!/usr/bin/env bash
# One run that proves or disproves the GPU path, in at most 8 minutes, with nothing built,
# installed or downloaded: from the unpacked bundle (scripts/gpu-bundle.sh; its `sp` wrapper
# finds NCCL, cuBLAS and Open MPI) or from a source tree with a CUDA build in
# $SCALEPROBE_BUILD_DIR (default build/) and the machine's own mpirun.
#   scripts/gpu-check.sh OUTDIR
# Everything it writes is under OUTDIR; every step runs under its own `timeout`. It ends with one
# line per check, `PASS|FAIL|SKIP name figure` (also in OUTDIR/summary.txt), and exits 0 only
# when none failed. Without a GPU every GPU check is SKIP with the reason.
set -uo pipefail
if [ $# -ne 1 ]; then
  echo "usage: $0 OUTDIR" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
mkdir -p "$1" || exit 2
out=$(cd "$1" && pwd)
summary=$out/summary.txt
: >"$summary"
# shellcheck source=gpu-libs.sh
. "$here/gpu-libs.sh"

failed=0
result() { # STATUS NAME FIGURE...
  local st=$1 name=$2
  shift 2
  [ "$st" = FAIL ] && failed=$((failed + 1))
  printf '%s %s %s\n' "$st" "$name" "$*" >>"$summary"
  printf '%s %s %s\n' "$st" "$name" "$*"
}
# The whole run stays within $SP_GPU_CHECK_BUDGET_S (default 450 s, so that unpacking, the
# checks and the transfer back fit one 10-minute call): a step gets at most what is left, and
# a step with under 10 s left is not started (exit 124, as a timeout).
budget=${SP_GPU_CHECK_BUDGET_S:-450}
started=$(date +%s)
# step NAME SECONDS CMD...: the step's output in OUTDIR/NAME.out, its exit status in $rc
step() {
  local name=$1 limit=$2 left
  shift 2
  left=$((budget - ($(date +%s) - started)))
  if [ "$left" -lt 10 ]; then
    echo "not started: ${left} s left of the ${budget} s budget" >"$out/$name.out"
    rc=124
    return 0
  fi
  [ "$limit" -gt "$left" ] && limit=$left
  timeout --kill-after=5 "$limit" "$@" >"$out/$name.out" 2>&1 </dev/null
  rc=$?
  return 0
}
tail_of() { tail -3 "$out/$1.out" | tr '\n' ' ' | cut -c1-200; }

# ---- how to run scaleprobe: the bundle's wrapper, or a build and the machine's mpirun ----
if [ -x "$top/sp" ] && [ -x "$top/bin/scaleprobe" ]; then
  mode="bundle $top"
  R1=("$top/sp")
  MPI=("$top/sp" mpirun -np)
  sp_bin=$top/bin/scaleprobe
  verify_bin=$top/bin/gpu_test_nccl_verify
  gemm_bin=$top/bin/gpu_test_gemm_rate
else
  build=${SCALEPROBE_BUILD_DIR:-$top/build}
  mode="build $build"
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_hwloc_base_binding_policy=none
  gpu_dirs=$(sp_gpu_lib_dirs | paste -sd: -)
  export LD_LIBRARY_PATH="${gpu_dirs}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  R1=()
  MPI=(mpirun -np)
  sp_bin=$build/scaleprobe
  verify_bin=$build/tests/gpu/gpu_test_nccl_verify
  gemm_bin=$build/tests/gpu/gpu_test_gemm_rate
  export PATH="$build:$PATH"
fi
echo "# gpu-check: $mode; output under $out"

# ---- host-side: the binary's libraries, python3 with h5py, NCCL and cuBLAS ----
step ldd 30 "${R1[@]}" ldd "$sp_bin"
if [ "$rc" -eq 0 ] && ! grep -q "not found" "$out/ldd.out"; then
  result PASS ldd "$(grep -c '=>' "$out/ldd.out") libraries, none not found"
else
  result FAIL ldd "$(grep 'not found' "$out/ldd.out" | awk '{print $1}' | paste -sd, -) not found"
fi
py=$(sp_python_h5py || true)
sp_gpu_lib_dirs >"$out/lib-dirs.txt"
nccl=$(sp_gpu_find_lib libnccl.so || true)
cublas=$(sp_gpu_find_lib libcublas.so || true)
echo "python3 with h5py: ${py:-none}; NCCL: ${nccl:-none}; cuBLAS: ${cublas:-none}" >"$out/libs.txt"

# ---- is there a GPU at all? ----
gpu_reason=""
if ! command -v nvidia-smi >/dev/null 2>&1; then
  gpu_reason="no GPU: nvidia-smi not found"
else
  step gpu 30 nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks_throttle_reasons.active --format=csv,noheader
  if [ "$rc" -ne 0 ] || [ ! -s "$out/gpu.out" ]; then
    gpu_reason="no GPU: nvidia-smi failed ($(tail_of gpu))"
  fi
fi
if [ -n "$gpu_reason" ]; then
  for c in gpu python_h5py nccl_lib cublas_lib verify sweep allreduce_256M_algbw event_vs_wall \
    graph_8B proxy_spin proxy_gemm gemm_shapes node memcheck_sweep memcheck_proxy timeout_exit oom_message; do
    result SKIP "$c" "$gpu_reason"
  done
  echo "# $(grep -c . "$summary") checks, $failed failed"
  [ "$failed" -eq 0 ]
  exit $?
fi
result PASS gpu "$(head -1 "$out/gpu.out")"
[ -n "$py" ] && result PASS python_h5py "$py" || result FAIL python_h5py "no python3 with h5py on PATH"
[ -n "$nccl" ] && result PASS nccl_lib "$nccl" || result FAIL nccl_lib "libnccl.so.2 not found ($(paste -sd' ' "$out/lib-dirs.txt"))"
[ -n "$cublas" ] && result PASS cublas_lib "$cublas" || result FAIL cublas_lib "libcublas not found"
fig() { [ -n "$py" ] && "$py" "$here/gpu-check-figures.py" "$@" 2>>"$out/figures.err"; }
ok_file() { grep -q "Out of bounds values : 0 OK" "$out/$1.out"; }

# ---- tests/gpu: every collective x type x op x placement, plain and -G ----
if [ -x "$verify_bin" ]; then
  step verify 150 "${MPI[@]}" 1 "$verify_bin"
  [ "$rc" -eq 0 ] && result PASS verify "$(grep -c . "$out/verify.out") lines, exit 0 (plain and -G)" ||
    result FAIL verify "exit $rc: $(tail_of verify)"
else
  result FAIL verify "no $verify_bin"
fi

# ---- a sweep 16 B..256 MiB, every collective, 0 wrong ----
step sweep 150 "${R1[@]}" "$sp_bin" coll --backend nccl --collectives all -b 16 -e 256M -f 16 --max-time 0.5 \
  --timeout 60 -O "$out/sweep.h5"
if [ "$rc" -eq 0 ] && ok_file sweep; then
  result PASS sweep "$(fig wrong "$out/sweep.h5" | awk '{print $1 " rows, " $2 " wrong"}')"
else
  result FAIL sweep "exit $rc: $(tail_of sweep)"
fi
# ---- all_reduce 256 MiB out of place: CUDA-event time x k against the host's wall interval of
# each sample, and its algbw ----
step events 90 "${R1[@]}" "$sp_bin" coll --backend nccl --collectives all_reduce -b 256M -e 256M --place out \
  -n 20 -w 2 --timeout 60 -O "$out/events.h5"
read -r lo hi n < <(fig events "$out/events.h5" || echo "- - 0")
if [ "$rc" -eq 0 ] && awk -v a="$lo" -v b="$hi" 'BEGIN { exit !(a >= 0.9 && b <= 1.0) }'; then
  result PASS event_vs_wall "event/wall per sample ${lo}..${hi} over $n samples (want 0.9..1.0)"
else
  result FAIL event_vs_wall "exit $rc, event/wall ${lo}..${hi} over $n samples (want 0.9..1.0)"
fi

bw=$(fig algbw "$out/events.h5" 268435456)
# one rank: the out-of-place all_reduce is a device copy (about 2 TB/s on an H200); far off
# means the events are on another stream than the work
awk -v b="${bw:-0}" 'BEGIN { exit !(b >= 800 && b <= 5000) }' &&
  result PASS allreduce_256M_algbw "${bw} GB/s (want 800..5000: a device copy)" ||
  result FAIL allreduce_256M_algbw "${bw:-none} GB/s (want 800..5000: a device copy)"

# ---- -G faster per op than eager at 8 B ----
step eager8 60 "${R1[@]}" "$sp_bin" coll --backend nccl --collectives all_reduce -b 8 -e 8 -n 20 -k 100 \
  --timeout 60 -O "$out/eager8.h5"
step graph8 60 "${R1[@]}" "$sp_bin" coll --backend nccl --collectives all_reduce -b 8 -e 8 -n 20 -k 100 -G \
  --timeout 60 -O "$out/graph8.h5"
e=$(fig median "$out/eager8.h5")
g=$(fig median "$out/graph8.h5")
awk -v e="${e:-0}" -v g="${g:-0}" 'BEGIN { exit !(g > 0 && e > 0 && g < e) }' &&
  result PASS graph_8B "-G ${g} us/op < eager ${e} us/op" ||
  result FAIL graph_8B "-G ${g:-none} us/op, eager ${e:-none} us/op (want -G faster)"

# ---- the proxy on 1 rank: spin compute within 5 us of its planned duration ----
step proxy 90 "${R1[@]}" "$sp_bin" proxy --backend nccl --hidden 2048 --ffn 8192 --heads 16 \
  --seq 1024 --layers 4 --vocab 8192 --tflops 50 --steps 5 --timeout 60 -O "$out/proxy.h5"
read -r worst ntask < <(fig spin "$out/proxy.h5" 50 || echo "- 0")
if [ "$rc" -eq 0 ] && awk -v w="$worst" 'BEGIN { exit !(w != "-" && w <= 5) }'; then
  # the bounded enqueue (--max-inflight) as the run printed it: peaks per lane and in all
  result PASS proxy_spin "worst |measured - planned| ${worst} us over $ntask compute tasks;$(
    grep -m1 "^# in flight:" "$out/proxy.out" | cut -c13- | cut -d";" -f1)"
else
  result FAIL proxy_spin "exit $rc, worst ${worst} us over $ntask tasks (want <= 5 us)"
fi

# ---- the proxy's GEMM compute on 1 rank: cuBLAS in the model dtype (bf16), rate measured ----
step proxy_gemm 120 "${R1[@]}" "$sp_bin" proxy --backend nccl --compute gemm --hidden 2048 --ffn 8192 \
  --heads 16 --seq 1024 --layers 4 --vocab 8192 --steps 3 --timeout 60 -O "$out/proxy-gemm.h5"
tf=$(grep -o 'measured [0-9.e+]* TFLOP/s per rank' "$out/proxy_gemm.out" | head -1)
if [ "$rc" -eq 0 ] && [ -n "$tf" ] && grep -q 'cublasGemmStridedBatchedEx' "$out/proxy_gemm.out"; then
  result PASS proxy_gemm "cuBLAS bf16 GEMMs on the compute lane, $tf"
else
  result FAIL proxy_gemm "exit $rc: $(tail_of proxy_gemm)"
fi

# ---- every GEMM shape of llama3-8b's layer and output layer (tp 1, bf16) through the proxy's
# GEMM compute, achieved TFLOP/s against the device's dense bf16 peak: a datasheet table by the
# name nvidia-smi gives (no entry: rates only). Below 10% of peak at the median means the GEMMs
# do not run on the tensor cores in bf16. ----
peak_bf16() {
  case "$1" in
    *GB200*) echo 2500 ;;
    *B200*) echo 2250 ;;
    *H100*PCIe*) echo 756 ;;
    *H200* | *H100* | *GH200*) echo 989 ;;
    *A100*) echo 312 ;;
    *L40S*) echo 362 ;;
    *) echo 0 ;;
  esac
}
gpu_name=$(head -1 "$out/gpu.out" | cut -d, -f1)
peak=$(peak_bf16 "$gpu_name")
if [ -x "$gemm_bin" ]; then
  step gemm_shapes 120 "${MPI[@]}" 1 "$gemm_bin" llama3-8b "$peak"
  read -r _ ns lo med hi < <(grep '^gemm_shapes ' "$out/gemm_shapes.out" || echo "- 0 0 0 0")
  pct() { awk -v r="$1" -v p="$peak" 'BEGIN { printf "%.0f", 100 * r / p }'; }
  if [ "$rc" -ne 0 ] || [ "$ns" -eq 0 ]; then
    result FAIL gemm_shapes "exit $rc: $(tail_of gemm_shapes)"
  elif [ "$peak" -eq 0 ]; then
    result PASS gemm_shapes "$ns shapes, ${lo}..${hi} TFLOP/s (median $med); no peak in the table for '$gpu_name'"
  elif [ "$(pct "$med")" -ge 10 ]; then
    result PASS gemm_shapes "$ns shapes, ${lo}..${hi} TFLOP/s (median $med) = $(pct "$lo")..$(pct "$hi")% of the ${peak} TFLOP/s bf16 peak of $gpu_name (table); per shape in gemm_shapes.out"
  else
    result FAIL gemm_shapes "$ns shapes, median $med TFLOP/s = $(pct "$med")% of the ${peak} TFLOP/s bf16 peak of $gpu_name (want >= 10%)"
  fi
else
  result FAIL gemm_shapes "no $gemm_bin"
fi

# ---- node: cuBLAS rates per type, the copy kernel against the device's nominal ----
step node 90 "${R1[@]}" "$sp_bin" node --backend nccl -d float,double,half,bfloat16 --max-time 2 \
  --timeout 60 -O "$out/node.h5"
[ "$rc" -eq 0 ] && result PASS node "$(grep -iE 'gemm|d2d' "$out/node.out" | tr -s ' ' | head -5 | paste -sd';' - | cut -c1-300)" ||
  result FAIL node "exit $rc: $(tail_of node)"

# ---- compute-sanitizer memcheck: a small sweep and a 1-step proxy ----
if command -v compute-sanitizer >/dev/null 2>&1; then
  step memcheck_sweep 120 "${R1[@]}" compute-sanitizer --tool memcheck --error-exitcode 99 "$sp_bin" \
    coll --backend nccl --collectives all -b 8 -e 64K -f 64 -n 2 -w 1 --timeout 60 -O "$out/mc-sweep.h5"
  [ "$rc" -eq 0 ] && result PASS memcheck_sweep "$(grep -m1 'ERROR SUMMARY' "$out/memcheck_sweep.out")" ||
    result FAIL memcheck_sweep "exit $rc: $(grep -m1 'ERROR SUMMARY' "$out/memcheck_sweep.out" || tail_of memcheck_sweep)"
  step memcheck_proxy 120 "${R1[@]}" compute-sanitizer --tool memcheck --error-exitcode 99 "$sp_bin" \
    proxy --backend nccl --hidden 256 --ffn 1024 --heads 8 --seq 128 --layers 2 --vocab 1024 \
    --tflops 2 --steps 1 --timeout 60 -O "$out/mc-proxy.h5"
  [ "$rc" -eq 0 ] && result PASS memcheck_proxy "$(grep -m1 'ERROR SUMMARY' "$out/memcheck_proxy.out")" ||
    result FAIL memcheck_proxy "exit $rc: $(grep -m1 'ERROR SUMMARY' "$out/memcheck_proxy.out" || tail_of memcheck_proxy)"
else
  result SKIP memcheck_sweep "compute-sanitizer not found"
  result SKIP memcheck_proxy "compute-sanitizer not found"
fi

# ---- error paths: a GPU wait past --timeout, an allocation larger than the device ----
# a 0.001-TFLOP/s device makes each spin kernel last seconds: the first wait passes --timeout 2
t0=$(date +%s)
step timeout_exit 60 "${R1[@]}" "$sp_bin" proxy --backend nccl --hidden 2048 --ffn 8192 --heads 16 \
  --seq 1024 --layers 2 --vocab 8192 --tflops 0.001 --steps 1 --timeout 2 -O "$out/to.h5"
took=$(($(date +%s) - t0))
[ "$rc" -eq 1 ] && [ "$took" -le 30 ] && result PASS timeout_exit "exit 1 after ${took} s (--timeout 2)" ||
  result FAIL timeout_exit "exit $rc after ${took} s (want exit 1 within 30 s): $(tail_of timeout_exit)"
step oom_message 60 "${R1[@]}" "$sp_bin" coll --backend nccl --collectives all_reduce -b 512G -e 512G -n 1 \
  --timeout 30 -O "$out/oom.h5"
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && grep -qiE "memory|cudaMalloc" "$out/oom_message.out" &&
  result PASS oom_message "exit $rc: $(grep -m1 -iE 'memory|cudaMalloc' "$out/oom_message.out" | cut -c1-160)" ||
  result FAIL oom_message "exit $rc: $(tail_of oom_message)"

echo "# $(grep -c . "$summary") checks, $failed failed"
[ "$failed" -eq 0 ]
