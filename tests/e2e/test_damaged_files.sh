#!/usr/bin/env bash
# Every reader (report, compare, regress, export, predict --sweep/--node) on a corpus of damaged
# files: truncated copies at many cut points, seeded byte flips, an HDF5 file of another program,
# an empty file, a directory, a newer and an older schema, a file of the wrong kind, a partial
# file with no finished point, and rows whose numbers a bug or damage made impossible. Each run
# must end (no hang, no signal) with exit 2 and one message naming the file, or succeed without
# an error message (a readable file; "partial" said when it is one).
source "$(dirname "$0")/lib.sh"

py=/usr/bin/python3 # with python3-h5py (scripts/install-deps.sh)
damage="$(dirname "$0")/damage.py"
if ! "$py" -c 'import h5py' 2>/dev/null; then
  not_ok "python3-h5py is missing (scripts/install-deps.sh installs it)"
  finish
fi

src="$TMP/src"
bad="$TMP/bad"
mkdir -p "$src" "$bad"
model=(--layers 2 --hidden 256 --heads 4 --ffn 512 --seq 64 --vocab 1000 --microbatches 2)
sp_mpirun 2 coll -b 64 -e 4K -f 4 -n 5 --collectives all_reduce,all_gather,reduce_scatter,sendrecv \
  -O "$src/coll.h5" >/dev/null 2>&1 </dev/null || not_ok "coll source file"
sp_mpirun 2 proxy "${model[@]}" --steps 3 -O "$src/proxy.h5" >/dev/null 2>&1 </dev/null ||
  not_ok "proxy source file"
sp_mpirun 2 node -n 3 --gemm-n 64 -d float,bfloat16 -O "$src/node.h5" >/dev/null 2>&1 </dev/null ||
  not_ok "node source file"
for k in coll proxy node; do
  [ -s "$src/$k.h5" ] || { not_ok "no $k source file"; finish; }
done

# the corpus: NAME SOURCE-KIND (the kind whose readers apply; "any" runs them all)
corpus=()
add() { corpus+=("$1 $2"); }
for k in coll proxy node; do
  size=$(stat -c %s "$src/$k.h5")
  for cut in 1 64 1024 4096; do
    "$py" "$damage" truncate "$src/$k.h5" "$bad/trunc-$k-$cut.h5" "$cut" && add "trunc-$k-$cut.h5" "$k"
  done
  for frac in 1 3 5 7 9; do
    cut=$((size * frac / 10))
    "$py" "$damage" truncate "$src/$k.h5" "$bad/trunc-$k-$cut.h5" "$cut" && add "trunc-$k-$cut.h5" "$k"
  done
  "$py" "$damage" truncate "$src/$k.h5" "$bad/trunc-$k-last.h5" "$((size - 1))" && add "trunc-$k-last.h5" "$k"
done
for seed in $(seq 1 10); do
  "$py" "$damage" flip "$src/coll.h5" "$bad/flip-coll-$seed.h5" "$seed" && add "flip-coll-$seed.h5" coll
done
for seed in $(seq 1 4); do
  "$py" "$damage" flip "$src/proxy.h5" "$bad/flip-proxy-$seed.h5" "$seed" && add "flip-proxy-$seed.h5" proxy
  "$py" "$damage" flip "$src/node.h5" "$bad/flip-node-$seed.h5" "$seed" && add "flip-node-$seed.h5" node
done
"$py" "$damage" foreign - "$bad/foreign.h5" && add foreign.h5 any
: >"$bad/empty.h5" && add empty.h5 any
mkdir -p "$bad/dir.h5" && add dir.h5 any
echo "not a result file" >"$bad/text.h5" && add text.h5 any
add missing.h5 any
for kind in newer older no_format world_huge; do
  "$py" "$damage" "$kind" "$src/coll.h5" "$bad/$kind.h5" && add "$kind.h5" any
done
for kind in bad_op bad_dtype huge_samples bad_offset bad_slowest wrong_ranks wrong_overflow \
  tl_ranks_empty; do
  "$py" "$damage" "$kind" "$src/coll.h5" "$bad/$kind.h5" && add "$kind.h5" coll
done
"$py" "$damage" no_points "$src/coll.h5" "$bad/nopoints.h5" && add nopoints.h5 partial
for kind in step_huge step_1e8 proxy_pp0 proxy_tp_neg; do
  "$py" "$damage" "$kind" "$src/proxy.h5" "$bad/$kind.h5" && add "$kind.h5" proxy
done
for kind in node_kind node_samples; do
  "$py" "$damage" "$kind" "$src/node.h5" "$bad/$kind.h5" && add "$kind.h5" node
done
# regression inputs: bit-flipped files that crashed the HDF5 library inside compare before the
# probe child (tests/data/damaged: an attribute table, /config's attributes, an object header)
for d in "${SCALEPROBE_SOURCE_DIR:-$(dirname "$0")/../..}"/tests/data/damaged/*.h5; do
  cp "$d" "$bad/kept-$(basename "$d")" && add "kept-$(basename "$d")" any
done
# the wrong kind: a proxy file where a sweep is expected, a sweep where a node file is
cp "$src/proxy.h5" "$bad/kind-proxy.h5" && add kind-proxy.h5 wrongkind
cp "$src/coll.h5" "$bad/kind-coll.h5" && add kind-coll.h5 wrongkind

# One reader run: it must end by itself, with exit 2 and one line naming the file, or succeed
# (compare and regress: exit 1 is a verdict) with no error message.
runs=0
check_run() {
  local name=$1 what=$2 verdicts=$3
  shift 3
  runs=$((runs + 1))
  timeout 30 "$SCALEPROBE" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
  local rc=$?
  local lines
  lines=$(wc -l <"$TMP/err")
  if [ "$rc" -eq 124 ] || [ "$rc" -ge 128 ]; then
    not_ok "$what on $name: rc=$rc (hang or signal)"
    sed 's/^/     | /' "$TMP/err" | head -5
  elif [ "$rc" -eq 2 ]; then
    if [ "$lines" -ne 1 ] || ! grep -q "error: .*$name" "$TMP/err"; then
      not_ok "$what on $name: exit 2 but $lines line(s), or the file not named"
      sed 's/^/     | /' "$TMP/err" | head -5
    fi
  elif [ "$rc" -eq 0 ] || { [ "$rc" -eq 1 ] && [ "$verdicts" = 1 ]; }; then
    if grep -q "error:" "$TMP/err"; then
      not_ok "$what on $name: exit $rc after an error message"
      sed 's/^/     | /' "$TMP/err" | head -5
    fi
  else
    not_ok "$what on $name: exit $rc"
    sed 's/^/     | /' "$TMP/err" | head -5
  fi
}

failed_before=$failures
for entry in "${corpus[@]}"; do
  read -r name kind <<<"$entry"
  f="$bad/$name"
  ref="$src/$kind.h5"
  [ -e "$ref" ] || ref="$src/coll.h5"
  check_run "$name" report 0 report "$f"
  check_run "$name" compare 1 compare "$f" "$ref"
  check_run "$name" regress 1 regress "$f" "$ref" "$ref"
  rm -rf "$TMP/x.json"
  check_run "$name" export 0 export "$f" --chrome "$TMP/x.json"
  if [ "$kind" = coll ] || [ "$kind" = any ] || [ "$kind" = partial ] || [ "$kind" = wrongkind ]; then
    rm -f "$TMP/p.h5"
    check_run "$name" "predict --sweep" 0 predict --sweep "$f" --pp 2 "${model[@]}" -O "$TMP/p.h5"
  fi
  if [ "$kind" = node ] || [ "$kind" = any ] || [ "$kind" = wrongkind ]; then
    rm -f "$TMP/p.h5"
    check_run "$name" "predict --node" 0 predict --node "$f" --alpha-us 5 --beta-gbps 10 --pp 2 \
      "${model[@]}" -O "$TMP/p.h5"
  fi
done
[ "$failures" -eq "$failed_before" ] &&
  ok "${#corpus[@]} damaged files, $runs reader runs: every one ended with exit 2 and one message naming the file, or a clean read"

# the messages say what is wrong, one per kind of trouble
expect() {
  local name=$1 pattern=$2
  "$SCALEPROBE" report "$bad/$name" >/dev/null 2>"$TMP/err"
  if grep -q "$pattern" "$TMP/err"; then
    ok "report $name: $(cat "$TMP/err")"
  else
    not_ok "report $name: expected '$pattern', got: $(cat "$TMP/err")"
  fi
}
expect missing.h5 "missing.h5: no such file"
expect dir.h5 "dir.h5: is a directory"
expect empty.h5 "empty.h5: is empty"
expect text.h5 "text.h5: is not an HDF5 file"
expect foreign.h5 "foreign.h5: is an HDF5 file, but not a scaleprobe result file"
expect newer.h5 "newer.h5: has schema version [0-9]*, newer than this scaleprobe reads"
expect older.h5 "older.h5: has schema version 0, older"
expect trunc-coll-last.h5 "trunc-coll-last.h5: is a damaged HDF5 file"
expect bad_op.h5 "bad_op.h5: is a damaged scaleprobe result file: /coll/results row 0"
expect wrong_ranks.h5 "wrong_ranks.h5: is a damaged scaleprobe result file: /coll/wrong"
expect huge_samples.h5 "past the end of /coll/samples"
expect step_huge.h5 "/proxy/ranks row 0 names a step"
expect proxy_pp0.h5 "/proxy/info"
expect proxy_tp_neg.h5 "/proxy/info"

# a partial file with no finished point: a clearly marked partial report, not an error
"$SCALEPROBE" report "$bad/nopoints.h5" >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ "$rc" -eq 0 ] && grep -q "status partial" "$TMP/out" && [ ! -s "$TMP/err" ]; then
  ok "report on a partial file with no finished point: exit 0, marked: $(grep -i partial "$TMP/out" | tr '\n' ' ')"
else
  not_ok "report on a partial file with no point: rc=$rc"
  sed 's/^/     | /' "$TMP/out" "$TMP/err" | head -10
fi
# the wrong kind is named as such
"$SCALEPROBE" predict --sweep "$bad/kind-proxy.h5" --pp 2 "${model[@]}" -O "$TMP/p.h5" 2>"$TMP/err" >/dev/null
grep -q "kind-proxy.h5.*proxy" "$TMP/err" && ok "predict --sweep on a proxy file: $(cat "$TMP/err")" ||
  not_ok "predict --sweep on a proxy file: $(cat "$TMP/err")"
# an empty /timeline/ranks reads as no events
"$SCALEPROBE" report "$bad/tl_ranks_empty.h5" >/dev/null 2>"$TMP/err"
[ $? -eq 0 ] && ok "report with an empty /timeline/ranks" || not_ok "report with an empty /timeline/ranks: $(cat "$TMP/err")"
finish
