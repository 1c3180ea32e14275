#!/usr/bin/env bash
# Run-to-run repeatability of the sweep: two consecutive `coll` sweeps with the same options, then
# the share of points whose medians (time_us) are within 2% of each other, the worst point, and
# the load average before each run. Prints ratios of the two runs only; asserts nothing.
#   bench/bench_repeat.sh NP OUTDIR [coll options...]     (default: -b 8 -e 64M -f 2)
# scaleprobe is $SCALEPROBE (default build/scaleprobe), launched through scripts/mpirun.sh.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
np=${1:?usage: bench/bench_repeat.sh NP OUTDIR [coll options...]}
dir=${2:?usage: bench/bench_repeat.sh NP OUTDIR [coll options...]}
shift 2
opts=("$@")
[ ${#opts[@]} -gt 0 ] || opts=(-b 8 -e 64M -f 2)
sp=${SCALEPROBE:-${SCALEPROBE_BUILD_DIR:-$top/build}/scaleprobe}
mkdir -p "$dir"
for run in 1 2; do
  rm -rf "$dir/repeat$run.h5" "$dir/csv$run"
  echo "run $run: load average $(cut -d' ' -f1-3 /proc/loadavg)"
  SCALEPROBE="$sp" "$top/scripts/mpirun.sh" "$np" coll "${opts[@]}" --quiet \
    -O "$dir/repeat$run.h5" </dev/null >/dev/null
  "$sp" export "$dir/repeat$run.h5" --csv "$dir/csv$run" >/dev/null
done
echo "after: load average $(cut -d' ' -f1-3 /proc/loadavg)"
# rows are matched on every column that names the point (not on measured ones)
awk -F, -v opts="${opts[*]}" '
  FNR == 1 {
    for (i = 1; i <= NF; i++) col[$i] = i
    split("op redop dtype root in_place bytes", keys, " ")
    next
  }
  {
    key = ""
    for (j = 1; j <= 6; j++) if (keys[j] in col) key = key " " keys[j] "=" $(col[keys[j]])
    t = $(col["time_us"]) + 0
    if (FILENAME == ARGV[1]) { first[key] = t; k1[key] = $(col["batch"]); next }
    if (!(key in first) || first[key] <= 0) next
    if (k1[key] == $(col["batch"])) samek++
    d = t / first[key] - 1; if (d < 0) d = -d
    m++; if (d <= 0.02) within++
    if (d > worst) { worst = d; wkey = key }
  }
  END {
    if (m == 0) { print "repeat result: no matching points"; exit 1 }
    printf "repeat result: %d of %d points (%.1f%%) within 2%% between two consecutive sweeps " \
           "(coll %s); worst %.1f%% at%s; same batch size k at %d of %d\n", within, m, 100 * within / m,
           opts, 100 * worst, wkey, samek, m
  }' "$dir/csv1/coll_results.csv" "$dir/csv2/coll_results.csv"
