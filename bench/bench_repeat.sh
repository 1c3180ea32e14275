#!/usr/bin/env bash
# Run-to-run repeatability of the sweep, and of the machine under it: two consecutive `coll`
# sweeps with the same options, then two consecutive runs of bench_plain_loop (a plain
# MPI_Allreduce loop timed the sweep's way: warm-up, k from the median of 5 timed ops, median
# of timed batches; separate mpirun jobs, the same sizes and places). For each pair: the share
# of points whose medians (time_us) are within 2% of each other, the worst point, how many kept
# the same k, and the load average before each run; for the sweeps also the share that their
# own 95% CIs would put within 2% if only sampling separated the runs. Then one job of 3 cycles
# of the sweep (-N 3), cycles 2 and 3 compared the same way: consecutive sweeps with no new job
# between them. If the plain loop spreads as much as the sweep, that spread is the machine's
# floor; if less, the harness adds it. Asserts nothing.
#   bench/bench_repeat.sh NP OUTDIR [coll options...]     (default: -b 8 -e 64M -f 2)
# The plain loop runs only with the default options (all_reduce of float, 8 B to 64 MiB by 2x,
# out-of-place and in-place) or with -e SIZE as the only change (PLAIN=0 skips it).
# scaleprobe is $SCALEPROBE (default build/scaleprobe), launched through scripts/mpirun.sh.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
np=${1:?usage: bench/bench_repeat.sh NP OUTDIR [coll options...]}
dir=${2:?usage: bench/bench_repeat.sh NP OUTDIR [coll options...]}
shift 2
opts=("$@")
[ ${#opts[@]} -gt 0 ] || opts=(-b 8 -e 64M -f 2)
build=${SCALEPROBE_BUILD_DIR:-$top/build}
sp=${SCALEPROBE:-$build/scaleprobe}
mkdir -p "$dir"
load() { cut -d' ' -f1-3 /proc/loadavg; }

# the pairs are compared by repeat_compare.py (pandas): the share within 2%, and the share the
# two runs' own CIs would put there if only sampling separated them
py=/usr/bin/python3
[ -x "$py" ] || py=python3
compare() { "$py" "$top/bench/repeat_compare.py" "$@"; }

# the plain loop: only where its sizes are the sweep's
plain_max=
case "${opts[*]}" in
  "-b 8 -e "*" -f 2") plain_max=${opts[3]} ;;
esac
[ "${PLAIN:-1}" != 0 ] || plain_max=
case "$plain_max" in
  *K) plain_max=$((${plain_max%K} << 10)) ;;
  *M) plain_max=$((${plain_max%M} << 20)) ;;
  *G) plain_max=$((${plain_max%G} << 30)) ;;
esac
# interleaved (sweep, loop, sweep, loop), so both pairs span the same stretch of the machine
for run in 1 2; do
  rm -rf "$dir/repeat$run.h5" "$dir/csv$run"
  echo "sweep run $run: load average $(load)"
  SCALEPROBE="$sp" "$top/scripts/mpirun.sh" "$np" coll "${opts[@]}" --quiet \
    -O "$dir/repeat$run.h5" </dev/null >/dev/null
  "$sp" export "$dir/repeat$run.h5" --csv "$dir/csv$run" >/dev/null
  if [ -n "$plain_max" ]; then
    echo "plain loop run $run: load average $(load)"
    # the same launcher and mpirun options as the sweeps
    SCALEPROBE="$build/bench/bench_plain_loop" "$top/scripts/mpirun.sh" "$np" "$plain_max" 100 \
      </dev/null >"$dir/plain$run.csv"
  fi
done
# the same sweep twice more in one job (-N 3): cycles 2 and 3 share the job's processes, binding
# and start-up, so what separates them is the machine's drift over seconds, not between jobs
rm -rf "$dir/cycles.h5" "$dir/csv3"
echo "one job of 3 cycles: load average $(load)"
SCALEPROBE="$sp" "$top/scripts/mpirun.sh" "$np" coll "${opts[@]}" -N 3 --quiet \
  -O "$dir/cycles.h5" </dev/null >/dev/null
"$sp" export "$dir/cycles.h5" --csv "$dir/csv3" >/dev/null
echo "after: load average $(load)"
compare "sweeps (coll ${opts[*]})" "$dir/csv1/coll_results.csv" "$dir/csv2/coll_results.csv"
compare "cycles 2 and 3 of one job (coll ${opts[*]} -N 3)" "$dir/csv3/coll_results.csv" \
  --cycles 3 2 3
if [ -z "$plain_max" ]; then
  echo "plain loop: skipped (options other than -b 8 -e SIZE -f 2, or PLAIN=0)"
  exit 0
fi
compare "plain MPI_Allreduce loops (bench_plain_loop)" "$dir/plain1.csv" "$dir/plain2.csv"
