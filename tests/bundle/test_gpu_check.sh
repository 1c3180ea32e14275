#!/usr/bin/env bash
# scripts/gpu-check.sh's host side, on a machine without a GPU: every GPU check is SKIP with its
# reason and the exit is 0; a GPU that nvidia-smi claims but scaleprobe cannot use fails the
# run; the summary's format; the search for NCCL, cuBLAS and python3 with h5py (gpu-libs.sh).
set -uo pipefail
: "${SCALEPROBE_BUILD_DIR:?}" "${SCALEPROBE_SOURCE_DIR:?}"
top=$SCALEPROBE_SOURCE_DIR
T=$(mktemp -d /tmp/sp-gpucheck.XXXXXX)
trap 'rm -rf "$T"' EXIT
failures=0
checks=0
ok() { checks=$((checks + 1)); echo "ok   - $*"; }
not_ok() { checks=$((checks + 1)); failures=$((failures + 1)); echo "FAIL - $*"; }
export SCALEPROBE_BUILD_DIR
gpu_checks="gpu python_h5py nccl_lib cublas_lib verify sweep allreduce_256M_algbw event_vs_wall graph_8B proxy_spin proxy_gemm gemm_shapes node memcheck_sweep memcheck_proxy timeout_exit oom_message"

# a PATH with no nvidia-smi (the real one, if any, hidden)
mkdir -p "$T/bin"
nopath=$(echo "$PATH" | tr ':' '\n' | while read -r d; do [ -x "$d/nvidia-smi" ] || echo "$d"; done | paste -sd: -)

# ---- no GPU: SKIP with the reason, exit 0, everything under OUTDIR ----
PATH=$nopath timeout 120 bash "$top/scripts/gpu-check.sh" "$T/none" >"$T/none.log" 2>&1
rc=$?
[ "$rc" -eq 0 ] && ok "no nvidia-smi: exit 0" || not_ok "no nvidia-smi: exit $rc"
bad=$(grep -vcE '^(PASS|FAIL|SKIP) [a-z0-9_A-Z]+ .+$' "$T/none/summary.txt")
lines=$(grep -c . "$T/none/summary.txt")
[ "$bad" -eq 0 ] && [ "$lines" -eq 18 ] && ok "summary: 18 lines, each 'PASS|FAIL|SKIP name figure'" ||
  not_ok "summary: $lines lines, $bad not in the format"
missing=""
for c in $gpu_checks; do
  grep -qx "SKIP $c no GPU: nvidia-smi not found" "$T/none/summary.txt" || missing="$missing $c"
done
[ -z "$missing" ] && ok "every GPU check SKIP with the reason" || not_ok "not SKIP with reason:$missing"
grep -q '^PASS ldd [0-9]* libraries, none not found' "$T/none/summary.txt" &&
  ok "ldd: $(grep '^PASS ldd' "$T/none/summary.txt")" || not_ok "ldd: $(grep ' ldd ' "$T/none/summary.txt")"
tail -n 19 "$T/none.log" | head -n 18 | diff -q - "$T/none/summary.txt" >/dev/null &&
  ok "stdout ends with the summary" || not_ok "stdout does not end with the summary"

# ---- nvidia-smi present but failing: SKIP with its reason ----
printf '#!/bin/sh\necho "NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver"\nexit 9\n' >"$T/bin/nvidia-smi"
chmod +x "$T/bin/nvidia-smi"
PATH=$T/bin:$nopath timeout 120 bash "$top/scripts/gpu-check.sh" "$T/fails" >/dev/null 2>&1
rc=$?
[ "$rc" -eq 0 ] && grep -q '^SKIP sweep no GPU: nvidia-smi failed (NVIDIA-SMI has failed' "$T/fails/summary.txt" &&
  ok "failing nvidia-smi: exit 0, SKIP with nvidia-smi's message" ||
  not_ok "failing nvidia-smi: exit $rc, $(grep -m1 sweep "$T/fails/summary.txt")"

# ---- nvidia-smi claims a GPU that scaleprobe cannot use: the checks FAIL, exit non-zero ----
printf '#!/bin/sh\necho "NVIDIA H200, 580.00, 1980 MHz, 3201 MHz, 0x0"\n' >"$T/bin/nvidia-smi"
PATH=$T/bin:$nopath timeout 280 bash "$top/scripts/gpu-check.sh" "$T/fake" >/dev/null 2>&1
rc=$?
nfail=$(grep -c '^FAIL ' "$T/fake/summary.txt")
[ "$rc" -ne 0 ] && [ "$nfail" -gt 0 ] && grep -q '^PASS gpu NVIDIA H200' "$T/fake/summary.txt" &&
  grep -q '^FAIL sweep exit ' "$T/fake/summary.txt" && grep -q '^FAIL gemm_shapes ' "$T/fake/summary.txt" &&
  grep -q '^FAIL proxy_gemm exit ' "$T/fake/summary.txt" &&
  ok "a GPU scaleprobe cannot use: exit $rc, $nfail checks FAIL (sweep, proxy_gemm, gemm_shapes among them)" ||
  not_ok "fake GPU: exit $rc, $nfail FAIL"

# ---- the library search (gpu-libs.sh) ----
# shellcheck source=/dev/null
. "$top/scripts/gpu-libs.sh"
mkdir -p "$T/home/lib" "$T/site/nvidia/nccl/lib" "$T/site/nvidia/cu13/lib" "$T/site/nvidia/other"
touch "$T/home/lib/libnccl.so.2" "$T/site/nvidia/nccl/lib/libnccl.so.2" \
  "$T/site/nvidia/cu13/lib/libcublas.so.13" "$T/site/nvidia/other/readme.txt"
dirs=$(NCCL_HOME=$T/home PYTHONPATH=$T/site sp_gpu_lib_dirs python3)
[ "$(echo "$dirs" | head -1)" = "$T/home/lib" ] && ok "\$NCCL_HOME/lib searched first" ||
  not_ok "first folder: $(echo "$dirs" | head -1)"
echo "$dirs" | grep -qx "$T/site/nvidia/nccl/lib" && echo "$dirs" | grep -qx "$T/site/nvidia/cu13/lib" &&
  ok "the nvidia-* wheels' lib folders (nvidia/nccl/lib, nvidia/cu13/lib) found" ||
  not_ok "wheel folders missing from: $(echo "$dirs" | paste -sd' ' -)"
echo "$dirs" | grep -q "nvidia/other" && not_ok "a folder without the libraries listed" ||
  ok "folders without NCCL/cuBLAS/cudart not listed"
f=$(NCCL_HOME=$T/home PYTHONPATH=$T/site sp_gpu_find_lib libnccl.so python3)
[ "$f" = "$T/home/lib/libnccl.so.2" ] && ok "NCCL found: $f" || not_ok "NCCL found: '$f'"
f=$(NCCL_HOME= PYTHONPATH=$T/site CUDA_HOME= sp_gpu_find_lib libcublas.so python3)
[ -n "$f" ] && ok "cuBLAS found: $f" || not_ok "cuBLAS not found"

# python3 with h5py: the one on PATH first, another when that one has no h5py
printf '#!/bin/sh\nexit 0\n' >"$T/bin/python3"
chmod +x "$T/bin/python3"
p=$(PATH=$T/bin:$PATH sp_python_h5py)
[ "$p" = "$T/bin/python3" ] && ok "python3 with h5py on PATH chosen first" || not_ok "chose '$p'"
printf '#!/bin/sh\nexit 1\n' >"$T/bin/python3"
p=$(PATH=$T/bin:$PATH sp_python_h5py)
[ -n "$p" ] && [ "$p" != "$T/bin/python3" ] && ok "python3 without h5py passed over: $p" ||
  not_ok "chose '$p'"

echo "$((checks - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
