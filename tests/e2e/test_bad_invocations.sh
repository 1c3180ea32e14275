#!/usr/bin/env bash
# Every bad invocation of every subcommand, run as a new user would (under mpirun -np 2, the
# offline tools too), exits 2 with exactly one message (from rank 0 only) and writes no file:
# conflicting options, unknown enum names, out-of-range and huge numbers, non-numbers, empty
# strings, 0 where a count must be positive, options that differ between ranks.
source "$(dirname "$0")/lib.sh"

out="$TMP/out"
cwd="$TMP/cwd" # every case runs here: a default output (results/...) would show up in it
mkdir -p "$out" "$cwd"
existing="$out/exists.h5"
echo "not mine" >"$existing"
mkdir -p "$out/adir"
: >"$out/empty.h5"

# two small result files for the offline tools' bad options
sp_mpirun 2 coll -b 64 -e 256 -f 2 -n 3 --collectives all_reduce,all_gather,reduce_scatter,sendrecv \
  -O "$out/c.h5" >/dev/null 2>&1 </dev/null || not_ok "a sweep for the offline tools"
c="$out/c.h5"
tiny=(--layers 2 --hidden 256 --heads 4 --ffn 512 --seq 64 --vocab 1000 --microbatches 2)
T="${tiny[*]}"

# one invocation per line, split as the shell would (quotes kept: '' is an empty argument);
# @OUT@ is a fresh path in the output directory
cases=(
  # coll
  "coll -b 1X -O @OUT@"
  "coll -b -O @OUT@"
  "coll -e 8Q -O @OUT@"
  "coll -b 64 -e 8 -O @OUT@"
  "coll -b 0 -e 64 -f 2 -O @OUT@"
  "coll -b 8 -e 64 -f 1 -i 0 -O @OUT@"
  "coll -b 1 -e 100000 -i 1 -O @OUT@"
  "coll --collectives all_reduce,bogus -O @OUT@"
  "coll -c -O @OUT@"
  "coll -d float7 -O @OUT@"
  "coll -o median -O @OUT@"
  "coll -r 99 -O @OUT@"
  "coll -r -2 -O @OUT@"
  "coll -n -1 -O @OUT@"
  "coll -n abc -O @OUT@"
  "coll -w x -O @OUT@"
  "coll -f 0 -O @OUT@"
  "coll --epsilon 2 -O @OUT@"
  "coll --max-time 0 -O @OUT@"
  "coll --min-samples 50 --max-samples 10 -O @OUT@"
  "coll --place sideways -O @OUT@"
  "coll --backend tpu -O @OUT@"
  "coll --no-check=1 -O @OUT@"
  "coll --frobnicate -O @OUT@"
  "coll stray -O @OUT@"
  "coll -O $existing"
  "coll -O $existing/sub/x.h5"
  "coll -O $out"
  "coll -b 0 -e 0 -O @OUT@"
  "coll -n 0 -O @OUT@"
  "coll -O ''"
  "coll -k 0 -O @OUT@"
  "coll --epsilon 0 -O @OUT@"
  "coll -b 1 -e 4 --collectives all_gather -O @OUT@"
  "coll -c '' -O @OUT@"
  "coll -d '' -O @OUT@"
  "coll --backend '' -O @OUT@"
  "coll --method bogus -O @OUT@"
  "coll --method osu -a 1 -O @OUT@"
  "coll --method nccl-tests --epsilon 0.02 -O @OUT@"
  "coll --osu-full -O @OUT@"
  "coll -e 99999999999999G -O @OUT@"
  "coll -n 99999999999999999999 -O @OUT@"
  "coll --timeline-events -1 -O @OUT@"
  "coll --clock-sync none -O @OUT@"
  "coll --timeline-io posix -O @OUT@"
  "coll --timeout 0 -O @OUT@"
  "coll --timeout 1e9 -O @OUT@"
  "coll --device -2 -O @OUT@"
  "coll --max-samples 0 -O @OUT@"
  "coll --batch-us nan -O @OUT@"
  "coll -w 1e3 -O @OUT@"
  # nccl-tests' flags: -c is --check (the list moved), the others at a value that means nothing here
  "coll -c all_reduce -O @OUT@"
  "coll -c 3 -O @OUT@"
  "coll -g 2 -O @OUT@"
  "coll -t 2 -O @OUT@"
  "coll -m 4 -O @OUT@"
  "coll --backend host -z 1 -O @OUT@"
  "coll -z 1 -G -O @OUT@"
  "coll -d fp8 -O @OUT@"
  "coll -C 1 -O @OUT@"
  "coll -R 1 -O @OUT@"
  "coll -N 0 -O @OUT@"
  "coll -J $existing -O @OUT@"
  "coll -J '' -O @OUT@"
  # proxy
  "proxy --pp 0 -O @OUT@"
  "proxy --hidden 0 -O @OUT@"
  "proxy --model gpt5 -O @OUT@"
  "proxy --model '' -O @OUT@"
  "proxy $T --tp 3 -O @OUT@"
  "proxy $T --pp 4 -O @OUT@"
  "proxy $T --schedule bogus -O @OUT@"
  "proxy $T --dp-mode zero -O @OUT@"
  "proxy $T --overlap maybe -O @OUT@"
  "proxy $T --steps 0 -O @OUT@"
  "proxy $T --microbatches 0 -O @OUT@"
  "proxy $T --chunks 0 -O @OUT@"
  "proxy $T --pp 2 --schedule interleaved --chunks 1 -O @OUT@"
  "proxy $T --tflops 0 -O @OUT@"
  "proxy $T --epsilon 2 -O @OUT@"
  "proxy $T --min-steps 1 -O @OUT@"
  "proxy $T --min-steps 10 --max-steps 3 -O @OUT@"
  "proxy --layers 0 -O @OUT@"
  "proxy --hidden 250 --heads 7 -O @OUT@"
  "proxy $T --bucket-mb 0 -O @OUT@"
  "proxy $T --peak-tflops 0 -O @OUT@"
  "proxy $T -O ''"
  "proxy $T stray -O @OUT@"
  "proxy $T --pp 99999999999999 -O @OUT@"
  "proxy $T --seq abc -O @OUT@"
  "proxy $T -O $existing"
  # node
  "node -n 0 -O @OUT@"
  "node --gemm-n 0 -O @OUT@"
  "node --gemm-n 100000 -O @OUT@"
  "node -d bogus -O @OUT@"
  "node --epsilon 0 -O @OUT@"
  "node --threshold 1 -O @OUT@"
  "node --burn -1 -O @OUT@"
  "node --burn-interval 0 -O @OUT@"
  "node --max-time 0 -O @OUT@"
  "node --dev-mib 0 -O @OUT@"
  "node -O ''"
  "node --min-samples 20 --max-samples 10 -O @OUT@"
  # report
  "report"
  "report $c $c"
  "report ''"
  "report $c --bogus"
  "report $out/missing.h5"
  "report $out/adir"
  "report $out/empty.h5"
  "report $existing"
  # compare
  "compare $c"
  "compare $c --vs $c --vs $c"
  "compare $c $c --threshold 100"
  "compare $c $c --fdr 0.6"
  "compare $c $c --run-cv 100"
  "compare $c --vs"
  "compare $c ''"
  "compare $c $out/missing.h5"
  "compare $c $c --threshold abc"
  # regress
  "regress $c $c"
  "regress $c $c $c --alpha 2"
  "regress $c $c $c --min-segment 0"
  "regress $c $c $c --threshold -1"
  "regress $c $c ''"
  "regress $c $c $out/adir"
  # export
  "export $c"
  "export $c --chrome ''"
  "export $c --chrome @OUT@ --ranks -1"
  "export $c --csv ''"
  "export '' --chrome @OUT@"
  "export $out/empty.h5 --chrome @OUT@"
  # predict
  "predict --pp 2 $T -O @OUT@"
  "predict --pp 2 $T --sweep $c --alpha-us 5 --beta-gbps 10 -O @OUT@"
  "predict --pp 2 $T --ranks 0 --alpha-us 5 --beta-gbps 10 -O @OUT@"
  "predict --pp 2 $T --alpha-us 5 --beta-gbps 0 -O @OUT@"
  "predict --pp 0 $T --alpha-us 5 --beta-gbps 10 -O @OUT@"
  "predict --pp 2 $T --sweep '' -O @OUT@"
  "predict --pp 2 $T --sweep $out/missing.h5 -O @OUT@"
  "predict --pp 2 $T --node $c --alpha-us 5 --beta-gbps 10 -O @OUT@"
  "predict --pp 2 $T --alpha-us 5 --beta-gbps 10 -O ''"
  "predict --pp 2 $T --alpha-us 5 --beta-gbps 10 --steps 3 -O @OUT@"
  "predict --pp 2 $T --alpha-us 5 --beta-gbps 10 -O $existing"
  # the command itself
  "bogus-command"
  "''"
  ""
)

i=0
passed=0
for line in "${cases[@]}"; do
  i=$((i + 1))
  path="$out/case$i.h5"
  eval "args=(${line//@OUT@/$path})"
  (cd "$cwd" && timeout 120 mpirun -np 2 "$SCALEPROBE" "${args[@]}" </dev/null >"$TMP/stdout" 2>"$TMP/stderr")
  rc=$?
  # mpirun adds its own lines about the exit code; count scaleprobe's messages only, rank
  # prefixed ones included (a message per rank is a miss)
  nmsg=$(grep -c -E '^scaleprobe|^\[scaleprobe' "$TMP/stderr")
  if [ "$rc" -eq 2 ] && [ "$nmsg" -eq 1 ] && [ ! -e "$path" ] && [ -z "$(ls -A "$cwd")" ]; then
    passed=$((passed + 1))
    ok "exit 2, one message: scaleprobe ${args[*]} -> $(grep -E '^scaleprobe|^\[scaleprobe' "$TMP/stderr")"
  else
    not_ok "scaleprobe ${args[*]}: rc=$rc messages=$nmsg file=$([ -e "$path" ] && echo yes || echo no) cwd=$(ls -A "$cwd" | tr '\n' ' ')"
    sed 's/^/     | /' "$TMP/stderr" | head -8
    rm -rf "${cwd:?}"/*
  fi
done

if [ "$(cat "$existing")" = "not mine" ]; then
  ok "existing file left untouched"
else
  not_ok "existing file was overwritten"
fi

# offline tools without any launcher
"$SCALEPROBE" report "$existing" >/dev/null 2>"$TMP/stderr"
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$TMP/stderr")" -eq 1 ] && ok "report on a non-HDF5 file: exit 2, one line" ||
  not_ok "report on a non-HDF5 file: rc=$rc, $(wc -l <"$TMP/stderr") lines"
"$SCALEPROBE" report >/dev/null 2>"$TMP/stderr"
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$TMP/stderr")" -eq 1 ] && ok "report without a file: exit 2, one line" ||
  not_ok "report without a file: rc=$rc"

# options that differ between ranks: detected, one message, no file
differ=(
  "coll -b 8 -e 8|coll -b 16 -e 16"
  "proxy $T --pp 1|proxy $T --pp 2"
  "node -n 3 --gemm-n 64|node -n 4 --gemm-n 64"
  "coll -b 8 -e 8 --backend host|coll -b 8 -e 8 --backend auto"
)
for d in "${differ[@]}"; do
  i=$((i + 1))
  path="$out/differ$i.h5"
  read -r -a a0 <<<"${d%%|*}"
  read -r -a a1 <<<"${d##*|}"
  timeout 120 mpirun -np 1 "$SCALEPROBE" "${a0[@]}" -O "$path" : -np 1 "$SCALEPROBE" "${a1[@]}" -O "$path" \
    >"$TMP/stdout" 2>"$TMP/stderr" </dev/null
  rc=$?
  nmsg=$(grep -c -E '^scaleprobe|^\[scaleprobe' "$TMP/stderr")
  if [ "$rc" -eq 2 ] && [ "$nmsg" -eq 1 ] && grep -q 'differ between ranks' "$TMP/stderr" && [ ! -e "$path" ]; then
    passed=$((passed + 1))
    ok "options differing between ranks (${d/|/ vs }): $(grep '^scaleprobe' "$TMP/stderr")"
  else
    not_ok "options differing between ranks (${d/|/ vs }): rc=$rc messages=$nmsg"
    sed 's/^/     | /' "$TMP/stderr" | head -8
  fi
done
echo "bad invocations: $passed of $((${#cases[@]} + ${#differ[@]})) exit 2 with one message and no file"
finish
