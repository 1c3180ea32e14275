#!/usr/bin/env bash
# The sbatch templates on a one-node Slurm (munged, slurmctld, slurmd of our own): sweep.sbatch
# and proxy.sbatch run to COMPLETED, write results/<cmd>-<job id>.h5 with status complete and
# 4 ranks on 1 node; the sweep's --heartbeat lines reach the job's log (srun without --pty);
# sweep.sbatch also with SCALEPROBE_LAUNCHER=mpirun inside the allocation;
# ab.sbatch runs an A and a B sweep with their environments and compares them.
source "$(dirname "$0")/lib.sh"
source "$CL_DIR/hosts.sh"
source "$CL_DIR/slurm.sh"
templates=$(cd "$CL_DIR/../../scripts/slurm" && pwd)

slurm_up solo || { not_ok "single-node Slurm did not come up"; finish; }
ok "single-node Slurm up (private munged, slurmctld, slurmd)"
export OMPI_MCA_btl_tcp_if_include=lo

# submit TEMPLATE CMD LAUNCHER ARGS...: one job of 4 tasks on 1 node, then the checks
submit() {
  local template=$1 cmd=$2 launcher=$3 job jid state f report t
  shift 3
  t=$EPOCHREALTIME
  job=$(SCALEPROBE_LAUNCHER=$launcher sbatch_wait 120 --nodes=1 --ntasks-per-node=4 \
    --chdir="$CL_RUN/work" --output="$CL_RUN/log/job-%j.out" "$templates/$template" "$@")
  read -r jid state <<<"$job"
  last_jid=$jid
  cl_log "$template ($launcher): job $jid $state in $(cl_since "$t")s"
  if [ "$state" != COMPLETED ]; then
    not_ok "$template ($launcher): job $jid ended $state"
    tail -n 15 "$CL_RUN/log/job-$jid.out" 2>/dev/null | sed 's/^/     | /'
    return
  fi
  ok "$template ($launcher): sbatch job $jid COMPLETED"
  f=$CL_RUN/work/results/$cmd-$jid.h5
  if [ ! -f "$f" ]; then
    not_ok "$template ($launcher): no results/$cmd-$jid.h5"
    return
  fi
  check "$template ($launcher): results/$cmd-$jid.h5 has status $(h5_status "$f")" \
    [ "$(h5_status "$f")" = complete ]
  report=$("$SCALEPROBE" report "$f" 2>&1)
  echo "$report" | grep -m1 'ranks on' | sed 's/^/     | /'
  check "$template ($launcher): report says 4 ranks on 1 nodes" \
    grep -q '^# 4 ranks on 1 nodes' <<<"$report"
  check "$template ($launcher): the file records Slurm job $jid" \
    grep -q "(0): \"$jid\"" <(h5dump -a /fingerprint/environment/SLURM_JOB_ID "$f" 2>/dev/null)
  check "$template ($launcher): the job was launched with $launcher" \
    grep -q "^scaleprobe $cmd: job $jid on .*, 4 tasks, $launcher," "$CL_RUN/log/job-$jid.out"
}

submit sweep.sbatch coll srun -b 1K -e 64K -f 8 --heartbeat 0.2
# under srun without --pty stderr is no terminal: no progress line, the heartbeat's whole lines
# in the job's log instead
beats=$(grep -c '^progress: \[[0-9]*/[0-9]* points\] ' "$CL_RUN/log/job-$last_jid.out" 2>/dev/null)
check "sweep.sbatch (srun): $beats heartbeat line(s) in job $last_jid's log, first: $(grep -m1 '^progress: ' "$CL_RUN/log/job-$last_jid.out" 2>/dev/null)" \
  [ "${beats:-0}" -ge 1 ]
submit proxy.sbatch proxy srun --hidden 256 --ffn 1024 --heads 8 --seq 128 --layers 4 \
  --vocab 1024 --tflops 2 --steps 2 --pp 2 --dp 2
submit sweep.sbatch coll mpirun -b 1K -e 8K -f 8
# ab.sbatch: one A and one B run (RUNS=1) in one job, each launched by sweep.sbatch with its own
# environment, into results/ab-<job id>/, then compare of the two in the job's output
t=$EPOCHREALTIME
job=$(RUNS=1 A_ENV=NCCL_ALGO=Tree B_ENV=NCCL_ALGO=Ring SLURM_TEMPLATES=$templates sbatch_wait 120 \
  --nodes=1 --ntasks-per-node=4 --chdir="$CL_RUN/work" --output="$CL_RUN/log/job-%j.out" \
  "$templates/ab.sbatch" -b 1K -e 8K -f 8)
read -r jid state <<<"$job"
cl_log "ab.sbatch: job $jid $state in $(cl_since "$t")s"
d=$CL_RUN/work/results/ab-$jid
if [ "$state" = COMPLETED ] && [ "$(h5_status "$d/A-0.h5")" = complete ] &&
  [ "$(h5_status "$d/B-0.h5")" = complete ] &&
  grep -q 'environment NCCL_ALGO' "$CL_RUN/log/job-$jid.out"; then
  ok "ab.sbatch: job $jid ran A then B (NCCL_ALGO Tree, Ring) into results/ab-$jid/, compare names the difference"
else
  not_ok "ab.sbatch: job $jid $state"
  tail -n 15 "$CL_RUN/log/job-$jid.out" 2>/dev/null | sed 's/^/     | /'
fi
finish

