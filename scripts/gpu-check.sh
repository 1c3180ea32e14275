#!/usr/bin/env bash
# Checks of the nccl backend on a machine with a GPU, in a few minutes on one GPU: build with
# CUDA, a verified one-rank sweep of every collective, CUDA-event times against wall time (also
# with CUDA graphs), and the proxy engine on CUDA streams. Prints PASS/FAIL per check and exits
# non-zero on any failure.
#   scripts/gpu-check.sh [extra cmake configure arguments]
# The build goes to $SCALEPROBE_BUILD_DIR (default build/), as scripts/build.sh does.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
export SCALEPROBE_BUILD_DIR=${SCALEPROBE_BUILD_DIR:-$top/build}
bin=$SCALEPROBE_BUILD_DIR/scaleprobe
export SCALEPROBE=$bin # the binary scripts/mpirun.sh runs

tmp=$(mktemp -d /tmp/sp-gpu-check.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0

pass() { passed=$((passed + 1)); echo "PASS $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }
show() { sed 's/^/     | /' "$@" | tail -30; }
summary() {
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ] && exit 0
  exit 1
}
# stop here: the remaining checks cannot run
give_up() {
  echo "gpu-check: $*" >&2
  summary
}
now_ns() { date +%s%N; }
# scaleprobe under mpirun, bounded so that a hang fails the check instead of the session
sp() {
  local limit=$1
  shift
  timeout "$limit" "$top/scripts/mpirun.sh" "$@"
}

# Event-timed total of a result file, in microseconds: sum over rows of batch x its samples.
# With FILE and MAX_US per row check (python3 with h5py) every row's event total against the
# row's own wall time (elapsed_s); prints "TOTAL_US ROWS_OVER".
event_total() {
  local file=$1
  if /usr/bin/python3 -c 'import h5py' 2>/dev/null; then
    /usr/bin/python3 - "$file" <<'EOF'
import sys
import h5py

with h5py.File(sys.argv[1], "r") as f:
    rows = f["coll/results"][()]
    samples = f["coll/samples"]["time_us"]
total = 0.0
over = 0
for r in rows:
    off, n = int(r["sample_offset"]), int(r["samples"])
    t = float(samples[off:off + n].sum()) * int(r["batch"])
    total += t
    # each sample's events lie inside the row's measured interval, one after another
    if t > r["elapsed_s"] * 1e6:
        over += 1
print(f"{total:.3f} {over}")
EOF
  else
    # h5dump: each sample is "(i): {", then time_us on the next line (batch is 1 here: -k 1)
    h5dump -d /coll/samples -m %.17g "$file" |
      awk '/\): \{/ { getline; gsub(/[ ,]/, ""); s += $0 } END { printf "%.3f -\n", s }'
  fi
}

# ---- build ----
echo "# building with CUDA into $SCALEPROBE_BUILD_DIR"
if SCALEPROBE_CMAKE_LOG=$tmp/configure.log "$top/scripts/build.sh" -DSCALEPROBE_CUDA=ON "$@" \
  >"$tmp/build.log" 2>&1; then
  pass "build with -DSCALEPROBE_CUDA=ON"
else
  fail "build with -DSCALEPROBE_CUDA=ON"
  show "$tmp/configure.log" "$tmp/build.log"
  give_up "cannot build the nccl backend here (CUDA toolkit and NCCL needed)"
fi

# ---- the GPU ----
if command -v nvidia-smi >/dev/null 2>&1; then
  if nvidia-smi -L >"$tmp/smi" 2>&1; then
    pass "nvidia-smi -L: $(head -1 "$tmp/smi")"
  else
    fail "nvidia-smi -L"
    show "$tmp/smi"
    give_up "no GPU on this machine (nvidia-smi -L failed); run this on a GPU machine"
  fi
else
  echo "# nvidia-smi not found; asking the nccl backend directly"
fi
sp 60 1 coll --backend nccl -b 8 -e 8 -n 1 -w 0 -k 1 --no-check -O "$tmp/probe.h5" \
  >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
if [ "$rc" -eq 0 ]; then
  pass "nccl backend starts on one rank"
else
  fail "nccl backend starts on one rank (exit $rc): $(grep -m1 '^scaleprobe' "$tmp/stderr")"
  show "$tmp/stderr"
  give_up "no usable GPU for the nccl backend; run this on a GPU machine"
fi

# ---- a verified sweep of every collective ----
sp 240 1 coll --backend nccl -c all -b 8 -e 64M -f 8 --max-time 1 -O "$tmp/sweep.h5" \
  >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
if [ "$rc" -eq 0 ] && grep -q 'Out of bounds values : 0 OK' "$tmp/stdout"; then
  pass "1-rank nccl sweep of every collective, 8 B to 64 MiB: 0 wrong values"
else
  fail "1-rank nccl sweep of every collective (exit $rc)"
  grep '^# \(WRONG\|Out of bounds\)' "$tmp/stdout"
  show "$tmp/stderr"
fi
missing=""
for c in all_reduce all_gather reduce_scatter broadcast reduce alltoall sendrecv gather scatter alltoallv; do
  grep -qx "# $c" "$tmp/stdout" || missing="$missing $c"
done
if [ -z "$missing" ]; then
  pass "the sweep has a table for each of the 10 collectives"
else
  fail "the sweep has no table for:$missing"
fi

# ---- CUDA-event times against wall time, plain launches and CUDA graphs ----
for graph in "" "-G"; do
  name="all_reduce 256 MiB, 20 samples of 1${graph:+ (CUDA graph)}"
  file="$tmp/events${graph}.h5"
  t0=$(now_ns)
  # shellcheck disable=SC2086
  sp 120 1 coll --backend nccl -c all_reduce -b 256M -e 256M -n 20 -k 1 $graph -O "$file" \
    >"$tmp/stdout" 2>"$tmp/stderr"
  rc=$?
  wall_us=$((($(now_ns) - t0) / 1000))
  if [ "$rc" -eq 0 ] && grep -q 'Out of bounds values : 0 OK' "$tmp/stdout"; then
    pass "$name: exit 0, 0 wrong values"
  else
    fail "$name: exit $rc"
    grep '^# \(WRONG\|Out of bounds\)' "$tmp/stdout"
    show "$tmp/stderr"
    continue
  fi
  if ! read -r event_us rows_over < <(event_total "$file") || [ -z "${event_us:-}" ]; then
    fail "$name: cannot read /coll/samples from the result file"
    continue
  fi
  if awk -v e="$event_us" -v w="$wall_us" 'BEGIN { exit !(e > 0 && e <= w) }'; then
    pass "$name: event-time total ${event_us} us in (0, wall time of the command ${wall_us} us]"
  else
    fail "$name: event-time total ${event_us} us, wall time ${wall_us} us (want 0 < event <= wall)"
  fi
  if [ "$rows_over" = "-" ]; then
    echo "# no h5py: per-row check against elapsed_s skipped"
  elif [ "$rows_over" -eq 0 ]; then
    pass "$name: every row's event-time total <= its own elapsed_s"
  else
    fail "$name: $rows_over row(s) with more event time than their own elapsed_s"
  fi
done

# ---- the proxy engine on CUDA streams ----
# One rank: no communication, so the step is the spin kernels back to back and the schedule
# efficiency (against --tflops) must be close to 100% (the spin kernel holds the stream for
# exactly an op's time).
sp 120 1 proxy --backend nccl --hidden 2048 --ffn 8192 --heads 16 --seq 1024 --layers 4 \
  --vocab 8192 --tflops 50 --steps 5 -O "$tmp/proxy.h5" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
mfu=$(grep -o 'schedule efficiency [0-9.]*%' "$tmp/stdout" | grep -o '[0-9.]*')
if [ "$rc" -eq 0 ] && awk -v m="${mfu:-0}" 'BEGIN { exit !(m > 90 && m <= 100.5) }'; then
  pass "1-rank proxy on CUDA streams: schedule efficiency ${mfu}% of the spin rate (want 90-100.5%)"
else
  fail "1-rank proxy on CUDA streams: exit $rc, schedule efficiency '${mfu}'"
  show "$tmp/stdout" "$tmp/stderr"
fi

summary
