#!/usr/bin/env bash
# scripts/slurm without Slurm: every template parses (bash -n, and sbatch --test-only where a
# Slurm answers), and with a stand-in srun that records its command line the templates pass on
# what nccl-tests users give sbatch: --backend nccl when the allocation has GPUs (not over the
# user's own --backend), --cpus-per-task to srun, -O FILE and -OFILE kept as the result path (no
# second -O); ab.sbatch alternates A and B runs with their environments, and as an array task
# runs the one run of its index. The real sbatch runs are tests/cluster/test_sbatch_single.sh.
source "$(dirname "$0")/lib.sh"
src=${SCALEPROBE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
dir=$src/scripts/slurm

for t in "$dir"/*.sbatch; do
  bash -n "$t" && ok "bash -n $(basename "$t")" || not_ok "bash -n $(basename "$t")"
done

mkdir -p "$TMP/bin" "$TMP/work"
cat >"$TMP/bin/srun" <<'EOF'
#!/usr/bin/env bash
echo "NCCL_ALGO=${NCCL_ALGO:-unset} $*" >>"$SRUN_LOG"
EOF
chmod +x "$TMP/bin/srun"
export SRUN_LOG=$TMP/srun.log SCALEPROBE=/bin/true PATH=$TMP/bin:$PATH
# launch TEMPLATE ENV... -- ARGS...: run the template as sbatch would (in the submit directory),
# print the srun command line it ran
launch() {
  local t=$1 envs=()
  shift
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  : >"$SRUN_LOG"
  (cd "$TMP/work" && env SLURM_JOB_ID=42 SLURM_SUBMIT_DIR="$TMP/work" SLURM_TEMPLATES="$dir" \
    "${envs[@]}" bash "$dir/$t" "$@") 2>"$TMP/err"
  echo "rc=$? $(cat "$SRUN_LOG")"
}
while IFS='|' read -r what t envs args want; do
  # shellcheck disable=SC2086
  got=$(launch "$t" $envs -- $args)
  [ "$got" = "$want" ] && ok "$what" || not_ok "$what: got '$got', want '$want'; $(cat "$TMP/err")"
done <<'EOF'
GPUs per node: --backend nccl, --cpus-per-task to srun, -OFILE kept|sweep.sbatch|SLURM_GPUS_ON_NODE=8 SLURM_CPUS_PER_TASK=12|-b 8 -Oa.h5|rc=0 NCCL_ALGO=unset --mpi=pmix --cpu-bind=none --cpus-per-task=12 /bin/true coll -b 8 -Oa.h5 --backend nccl
-O FILE kept, the user's --backend host not overridden|sweep.sbatch|SLURM_JOB_GPUS=0,1|-O a.h5 --backend host|rc=0 NCCL_ALGO=unset --mpi=pmix --cpu-bind=none /bin/true coll -O a.h5 --backend host
--output=FILE kept, no GPUs: no --backend|proxy.sbatch|X=1|--pp 2 --output=p.h5|rc=0 NCCL_ALGO=unset --mpi=pmix --cpu-bind=none /bin/true proxy --pp 2 --output=p.h5
no -O: results/<cmd>-<job id>.h5, defaults|sweep.sbatch|SLURM_GPUS_PER_NODE=4||rc=0 NCCL_ALGO=unset --mpi=pmix --cpu-bind=none /bin/true coll -b 8 -e 128M -f 2 -O results/coll-42.h5 --backend nccl
BACKEND=host wins over the GPUs|sweep.sbatch|SLURM_GPUS_ON_NODE=8 BACKEND=host|-b 8|rc=0 NCCL_ALGO=unset --mpi=pmix --cpu-bind=none /bin/true coll -b 8 -O results/coll-42.h5 --backend host
ab array task 3: the second run of B|ab.sbatch|SLURM_ARRAY_TASK_ID=3 SLURM_ARRAY_JOB_ID=77 B_ENV=NCCL_ALGO=Ring|-b 8|rc=0 NCCL_ALGO=Ring --mpi=pmix --cpu-bind=none /bin/true coll -b 8 -O results/ab-77/B-1.h5
ab refuses -O (the runs are named for the job)|ab.sbatch|X=1|-b 8 -Ox.h5|rc=2 
EOF

# one ab job, RUNS=2: A B A B in that order, each with its environment and options
got=$(launch ab.sbatch RUNS=2 A_ENV=NCCL_ALGO=Tree B_ENV=NCCL_ALGO=Ring B_ARGS=-z -- -b 8 |
  sed 's/--mpi=pmix --cpu-bind=none \/bin\/true coll //g' | tr '\n' ';')
want="rc=0 NCCL_ALGO=Tree -b 8 -O results/ab-42/A-0.h5;NCCL_ALGO=Ring -b 8 -z -O results/ab-42/B-0.h5;NCCL_ALGO=Tree -b 8 -O results/ab-42/A-1.h5;NCCL_ALGO=Ring -b 8 -z -O results/ab-42/B-1.h5;"
[ "$got" = "$want" ] && ok "ab.sbatch RUNS=2: A B A B, each side's environment and options" ||
  not_ok "ab.sbatch RUNS=2: got '$got'"

# sbatch --test-only where a Slurm controller answers (tests/cluster runs the real jobs)
if command -v sbatch >/dev/null && timeout 5 scontrol ping 2>/dev/null | grep -q UP; then
  for t in "$dir"/*.sbatch; do
    timeout 10 sbatch --test-only "$t" >/dev/null 2>&1 && ok "sbatch --test-only $(basename "$t")" ||
      not_ok "sbatch --test-only $(basename "$t")"
  done
fi
finish
