#!/usr/bin/env bash
# Every bad invocation exits 2 with exactly one message (from rank 0 only) and writes no file.
source "$(dirname "$0")/lib.sh"

out="$TMP/out"
mkdir -p "$out"
existing="$out/exists.h5"
echo "not mine" >"$existing"

# one invocation per line; @OUT@ is a fresh path in the output directory
cases=(
  "coll -b 1X -O @OUT@"
  "coll -b -O @OUT@"
  "coll -e 8Q -O @OUT@"
  "coll -b 64 -e 8 -O @OUT@"
  "coll -b 0 -e 64 -f 2 -O @OUT@"
  "coll -b 8 -e 64 -f 1 -i 0 -O @OUT@"
  "coll -b 1 -e 100000 -i 1 -O @OUT@"
  "coll -c all_reduce,bogus -O @OUT@"
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
  "bogus-command"
  ""
)

i=0
for c in "${cases[@]}"; do
  i=$((i + 1))
  path="$out/case$i.h5"
  args=${c//@OUT@/$path}
  # shellcheck disable=SC2086
  sp_mpirun 2 $args >"$TMP/stdout" 2>"$TMP/stderr"
  rc=$?
  # mpirun adds its own lines about the exit code; count scaleprobe's messages only
  nmsg=$(grep -c '^scaleprobe' "$TMP/stderr")
  if [ "$rc" -eq 2 ] && [ "$nmsg" -eq 1 ] && [ ! -e "$path" ]; then
    ok "exit 2, one message: scaleprobe $args -> $(grep '^scaleprobe' "$TMP/stderr")"
  else
    not_ok "scaleprobe $args: rc=$rc messages=$nmsg file=$([ -e "$path" ] && echo yes || echo no)"
    sed 's/^/     | /' "$TMP/stderr"
  fi
done

if [ "$(cat "$existing")" = "not mine" ]; then
  ok "existing file left untouched"
else
  not_ok "existing file was overwritten"
fi

# offline tools: no launcher at all
"$SCALEPROBE" report "$existing" >/dev/null 2>"$TMP/stderr"
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$TMP/stderr")" -eq 1 ] && ok "report on a non-HDF5 file: exit 2, one line" ||
  not_ok "report on a non-HDF5 file: rc=$rc, $(wc -l <"$TMP/stderr") lines"
"$SCALEPROBE" report >/dev/null 2>"$TMP/stderr"
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$TMP/stderr")" -eq 1 ] && ok "report without a file: exit 2, one line" ||
  not_ok "report without a file: rc=$rc"
"$SCALEPROBE" report "$out/missing.h5" >/dev/null 2>"$TMP/stderr"
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$TMP/stderr")" -eq 1 ] && ok "report on a missing file: exit 2, one line" ||
  not_ok "report on a missing file: rc=$rc"

# options that differ between ranks: detected, one message, no file
path="$out/differ.h5"
timeout 120 mpirun -np 1 "$SCALEPROBE" coll -b 8 -e 8 -O "$path" : -np 1 "$SCALEPROBE" coll -b 16 -e 16 -O "$path" \
  >"$TMP/stdout" 2>"$TMP/stderr"
rc=$?
nmsg=$(grep -c '^scaleprobe' "$TMP/stderr")
if [ "$rc" -eq 2 ] && [ "$nmsg" -eq 1 ] && grep -q 'differ between ranks' "$TMP/stderr" && [ ! -e "$path" ]; then
  ok "options differing between ranks: $(grep '^scaleprobe' "$TMP/stderr")"
else
  not_ok "options differing between ranks: rc=$rc messages=$nmsg"
  sed 's/^/     | /' "$TMP/stderr"
fi
finish
