#!/usr/bin/env bash
# The nccl backend as a user meets it. Where it cannot run (no GPU, or a build without it):
# --backend nccl is bad input (exit 2, one message naming nccl, no file, no hang) and
# --backend auto falls back to the host. With a GPU and the backend: a verified one-rank sweep.
source "$(dirname "$0")/lib.sh"

now_ms() { echo $(($(date +%s%N) / 1000000)); }

gpu_visible() { command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; }
built_with_nccl() { ldd "$SCALEPROBE" 2>/dev/null | grep -q 'libnccl'; }

if gpu_visible && built_with_nccl; then
  echo "# a GPU is visible and the nccl backend is built: verified nccl sweep instead"
  path="$TMP/gpu.h5"
  sp_mpirun 1 coll --backend nccl --collectives all -b 8 -e 1M -f 32 --max-time 0.5 -O "$path" \
    >"$TMP/stdout" 2>"$TMP/stderr"
  rc=$?
  if [ "$rc" -eq 0 ] && grep -q 'Out of bounds values : 0 OK' "$TMP/stdout" && [ -s "$path" ]; then
    ok "1-rank nccl sweep of every collective: exit 0, 0 wrong values, file written"
  else
    not_ok "1-rank nccl sweep: rc=$rc file=$([ -s "$path" ] && echo yes || echo no)"
    sed 's/^/     | /' "$TMP/stdout" "$TMP/stderr" | tail -40
  fi
  # the proxy engine on CUDA streams: one rank (one GPU), compute as the spin kernel
  path="$TMP/gpu-proxy.h5"
  sp_mpirun 1 proxy --backend nccl --hidden 1024 --ffn 4096 --heads 16 --seq 512 --layers 4 \
    --vocab 8192 --tflops 20 --steps 3 -O "$path" >"$TMP/stdout" 2>"$TMP/stderr"
  rc=$?
  if [ "$rc" -eq 0 ] && h5dump -a /status "$path" 2>/dev/null | grep -q complete &&
    grep -q '^# step time: median' "$TMP/stdout"; then
    ok "1-rank proxy on the nccl backend: complete, $(grep '^# step time' "$TMP/stdout")"
  else
    not_ok "1-rank proxy on the nccl backend: rc=$rc"
    sed 's/^/     | /' "$TMP/stdout" "$TMP/stderr" | tail -40
  fi
  finish
fi

# --backend nccl where no rank can use it: one message from rank 0, exit 2, no file, and every
# rank ends instead of waiting for the others (bounded by 20 s: a hang check)
for np in 1 4; do
  path="$TMP/nccl-np$np.h5"
  t0=$(now_ms)
  sp_mpirun "$np" coll --backend nccl -b 8 -e 8 -O "$path" >"$TMP/stdout" 2>"$TMP/stderr"
  rc=$?
  elapsed=$(($(now_ms) - t0))
  nmsg=$(grep -c '^scaleprobe' "$TMP/stderr")
  msg=$(grep '^scaleprobe' "$TMP/stderr")
  if [ "$rc" -eq 2 ] && [ "$nmsg" -eq 1 ] && grep -q 'nccl' <<<"$msg" && [ ! -e "$path" ]; then
    ok "$np rank(s), --backend nccl where nccl cannot run: exit 2, one message: $msg"
  else
    not_ok "$np rank(s), --backend nccl where nccl cannot run: rc=$rc messages=$nmsg" \
      "file=$([ -e "$path" ] && echo yes || echo no)"
    sed 's/^/     | /' "$TMP/stderr"
  fi
  if [ "$elapsed" -lt 20000 ]; then
    ok "$np rank(s), --backend nccl where nccl cannot run: ended in ${elapsed} ms (< 20 s, no hang)"
  else
    not_ok "$np rank(s), --backend nccl where nccl cannot run: took ${elapsed} ms (hang?)"
  fi
  if [ ! -s "$TMP/stdout" ] || ! grep -q 'Out of bounds' "$TMP/stdout"; then
    ok "$np rank(s), --backend nccl where nccl cannot run: no table printed"
  else
    not_ok "$np rank(s), --backend nccl where nccl cannot run: a sweep table was printed"
  fi
done

# --backend auto where nccl cannot run: runs on the host and says so
path="$TMP/auto.h5"
sp_mpirun 2 coll --backend auto -b 8 -e 8 -n 2 -w 1 -O "$path" >"$TMP/stdout" 2>"$TMP/stderr"
rc=$?
if [ "$rc" -eq 0 ] && grep -q 'backend auto -> host' "$TMP/stderr" && [ -s "$path" ] &&
  grep -q 'Out of bounds values : 0 OK' "$TMP/stdout"; then
  ok "2 ranks, --backend auto where nccl cannot run: host backend, exit 0, file written"
else
  not_ok "2 ranks, --backend auto where nccl cannot run: rc=$rc" \
    "file=$([ -s "$path" ] && echo yes || echo no)"
  sed 's/^/     | /' "$TMP/stderr"
fi
finish
