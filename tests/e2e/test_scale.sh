#!/usr/bin/env bash
# Scale: 64 oversubscribed ranks through the real sweep and aggregation, and a synthetic 4,096-rank
# timeline through the same aggregation path. Rank 0's peak memory is printed for 8, 64 and
# 4,096 ranks and must stay flat (bounded batches), whatever the number of ranks.
source "$(dirname "$0")/lib.sh"
build=${SCALEPROBE_BUILD_DIR:?}
start=$(date +%s)

peak() { h5dump -a /timeline/aggregation_rank0_peak_rss_kib "$1" | awk '/\(0\)/{print $2}'; }
nevents() { h5dump -a /timeline/events "$1" | awk '/\(0\)/{print $2}'; }

for np in 8 64; do
  f="$TMP/s$np.h5"
  timeout 300 mpirun -np "$np" "$SCALEPROBE" coll -b 8 -e 1K -f 8 -n 5 -w 1 -O "$f" >"$TMP/out" 2>&1
  rc=$?
  if [ "$rc" -eq 0 ] && h5dump -a /status "$f" | grep -q complete; then
    ok "$np ranks: sweep complete, $(nevents "$f") timeline events, rank 0 peak RSS $(peak "$f") KiB"
  else
    not_ok "$np ranks: rc=$rc"
    tail -5 "$TMP/out"
  fi
  rows=$(h5dump -A 0 -H -d /timeline/ranks "$f" | grep -o 'SIMPLE { ( [0-9]*' | grep -o '[0-9]*$')
  [ "$rows" = "$np" ] && ok "$np ranks: /timeline/ranks has $np rows" || not_ok "/timeline/ranks rows: $rows"
done

for n in 8 4096; do
  timeout 300 mpirun -np 4 "$build/bench/bench_aggregate" "$n" 2000 "$TMP/agg$n.h5" >"$TMP/agg$n.txt" 2>&1
  rc=$?
  cat "$TMP/agg$n.txt"
  [ "$rc" -eq 0 ] && ok "synthetic $n-rank timeline aggregated" || not_ok "synthetic $n ranks: rc=$rc"
done
p8=$(grep -o 'peak RSS [0-9]*' "$TMP/agg8.txt" | grep -o '[0-9]*$')
p4096=$(grep -o 'peak RSS [0-9]*' "$TMP/agg4096.txt" | grep -o '[0-9]*$')
# 512x the events through one bounded batch buffer: rank 0 may not grow by half
if [ -n "$p8" ] && [ -n "$p4096" ] && [ $((p4096 * 2)) -lt $((p8 * 3)) ]; then
  ok "rank 0 peak RSS flat: $p8 KiB at 8 ranks, $p4096 KiB at 4096 ranks"
else
  not_ok "rank 0 peak RSS grew: $p8 KiB at 8 ranks, $p4096 KiB at 4096 ranks"
fi
echo "scale test took $(($(date +%s) - start)) s"
finish
