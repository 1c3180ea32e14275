#!/usr/bin/env bash
# scaleprobe accept's links and proxy step gates on one host (a slow node on emulated hosts is
# tests/cluster/test_accept_gates.sh): the links gate runs the links workload (per rank here),
# passes a floor below what it measures and fails one above it (the host in the exclude list),
# says N/A with one rank; the proxy step gate judges its runs against a baseline of proxy runs
# with compare's test: a baseline 100x faster fails it (exit 1) and drains no node, one 100x
# slower passes it; bad gate parameters and a missing baseline exit 2 naming the spec's line.
. "$(dirname "$0")/lib.sh"

acc() { # NAME NP SPEC [ARGS...]: one accept run; table in $TMP/NAME.out, exit code in NAME.rc
  local name=$1 np=$2 spec=$3
  shift 3
  timeout 200 mpirun -np "$np" -x SCALEPROBE_TEST_DELAY "$SCALEPROBE" accept "$spec" \
    --backend host -O "$TMP/$name.h5" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" </dev/null
  echo $? >"$TMP/$name.rc"
}
export SCALEPROBE_TEST_DELAY=
row() { awk -v c="$2" '$4 == c {print; exit}' "$TMP/$1.out"; }
verdict() { row "$1" "$2" | awk '{print $5}'; }

# 1. links gate, per rank on one host
# floors only: 4 ranks on a shared 2-core machine have a rank descheduled now and then, which
# the ratio verdict may name (the ratio rule is tested in unit.test_accept_links_gate and on
# emulated hosts in cluster.test_accept_gates)
links_spec() { # MIN
  cat <<JSON
{"repeats": 1, "node_types": {"any": {"checks": {
  "links_matrix": {"min": $1, "size": "64K", "per": "rank"}}}}}
JSON
}
links_spec 0.000001 >"$TMP/lo.json"
links_spec 1000000 >"$TMP/hi.json"
acc lo 4 "$TMP/lo.json" --exclude "$TMP/lo.ex"
if [ "$(cat "$TMP/lo.rc")" = 0 ] && [ "$(verdict lo links_matrix)" = PASS ] &&
  grep -q '^# matrix: 3 of 3 rounds of disjoint pairs' "$TMP/lo.out" &&
  h5dump -H -d /links/pairs "$TMP/lo.links1.h5" >/dev/null 2>&1 && [ ! -s "$TMP/lo.ex" ]; then
  ok "links gate below the measurement: PASS ($(row lo links_matrix | awk '{print $6, $7}')), the matrix in lo.links1.h5, exclude list empty"
else
  not_ok "links gate, low floor: rc $(cat "$TMP/lo.rc")"
  cat "$TMP/lo.out" "$TMP/lo.err"
fi
acc hi 4 "$TMP/hi.json" --exclude "$TMP/hi.ex" --json "$TMP/hi.json.out"
host=$(awk '$4 == "links_matrix" {print $2; exit}' "$TMP/hi.out")
if [ "$(cat "$TMP/hi.rc")" = 1 ] && [ "$(verdict hi links_matrix)" = FAIL ] &&
  [ "$(cat "$TMP/hi.ex")" = "$host" ] && grep -q '"links_matrix"' "$TMP/hi.json.out"; then
  ok "links gate above the measurement: FAIL, exit 1, $host in the exclude list and the JSON"
else
  not_ok "links gate, high floor: rc $(cat "$TMP/hi.rc"), exclude '$(cat "$TMP/hi.ex" 2>/dev/null)'"
  cat "$TMP/hi.out" "$TMP/hi.err"
fi
acc one 1 "$TMP/lo.json"
[ "$(cat "$TMP/one.rc")" = 0 ] && [ "$(verdict one links_matrix)" = N/A ] &&
  grep -q 'no link to measure' "$TMP/one.out" &&
  ok "links gate with one rank: N/A (no link to measure), never PASS" ||
  { not_ok "links gate, one rank: rc $(cat "$TMP/one.rc")"; cat "$TMP/one.out"; }

# 2. proxy step gate against a baseline of three proxy runs
P="--hidden 256 --ffn 1024 --seq 128 --layers 2 --tflops 20 -n 4"
for i in 1 2 3; do
  timeout 120 mpirun -np 2 "$SCALEPROBE" proxy $P --backend host -O "$TMP/p$i.h5" \
    >/dev/null 2>&1 </dev/null || not_ok "proxy run $i"
done
"$SCALEPROBE" accept --make-baseline "$TMP"/p1.h5 "$TMP"/p2.h5 "$TMP"/p3.h5 -O "$TMP/base.json" \
  >"$TMP/mb.out" 2>&1
n=$(/usr/bin/python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["proxy_step"]["run_medians_ms"]))' "$TMP/base.json" 2>/dev/null)
[ "$n" = 3 ] && ok "make-baseline: 3 proxy runs' median step times in the baseline" ||
  { not_ok "make-baseline: '$n' proxy runs"; cat "$TMP/mb.out"; }
"$SCALEPROBE" accept --make-baseline "$TMP/p1.h5" -O "$TMP/b1.json" >"$TMP/mb1.out" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q 'the test needs at least 2' "$TMP/mb1.out" && [ ! -e "$TMP/b1.json" ] &&
  ok "make-baseline with one proxy run: exit 2, nothing written" || not_ok "one proxy run: rc $rc"
cat >"$TMP/proxy.json" <<JSON
{"repeats": 1, "node_types": {"any": {"checks": {
  "proxy_step": {"max_slowdown_pct": 10, "args": "$P", "runs": 3}}}}}
JSON
# against the measured baseline itself the verdict depends on this shared machine's load, so
# only the judgement is checked: 3 runs against 3, a ratio, compare's test
acc clean 2 "$TMP/proxy.json" --baseline "$TMP/base.json"
v=$(verdict clean proxy_step)
[ "$(cat "$TMP/clean.rc")" != 2 ] && [[ " PASS WARN FAIL " == *" $v "* ]] &&
  row clean proxy_step | grep -q 'step time [0-9.]*x the baseline (95% CI [0-9.]*-[0-9.]*) over 3 run(s) against 3' &&
  ok "proxy gate, against its own baseline: $v ($(row clean proxy_step | awk '{print $6}')), 3 runs against 3" ||
  { not_ok "proxy gate, clean: rc $(cat "$TMP/clean.rc") verdict '$v'"; cat "$TMP/clean.out" "$TMP/clean.err"; }
# a reference cluster 100x faster (or slower): three runs around the measured baseline's
# geometric mean times FACTOR, 2% apart (the measured runs' own spread on this shared machine
# can be wide enough to hide even a 10x change from a test of 3 runs a side)
scaled() { # FACTOR OUT
  /usr/bin/python3 - "$TMP/base.json" "$1" "$2" <<'PY'
import json, math, sys
b = json.load(open(sys.argv[1]))
v = b["proxy_step"]["run_medians_ms"]
g = math.exp(sum(math.log(x) for x in v) / len(v)) * float(sys.argv[2])
b["proxy_step"]["run_medians_ms"] = [g * 0.98, g, g * 1.02]
json.dump(b, open(sys.argv[3], "w"))
PY
}
scaled 0.01 "$TMP/fast.json"
scaled 100 "$TMP/slowref.json"
acc slow 2 "$TMP/proxy.json" --baseline "$TMP/fast.json" --exclude "$TMP/slow.ex"
if [ "$(cat "$TMP/slow.rc")" = 1 ] && [ "$(verdict slow proxy_step)" = FAIL ] &&
  row slow proxy_step | grep -q 'slower: step time' && [ ! -s "$TMP/slow.ex" ] &&
  [ -f "$TMP/slow.proxy1-3.h5" ]; then
  ok "proxy gate against a 100x faster baseline: FAIL, exit 1 ($(row slow proxy_step | awk '{print $6}')), no node drained"
else
  not_ok "proxy gate, faster baseline: rc $(cat "$TMP/slow.rc") verdict '$(verdict slow proxy_step)'"
  cat "$TMP/slow.out" "$TMP/slow.err"
fi
acc fast 2 "$TMP/proxy.json" --baseline "$TMP/slowref.json"
[ "$(cat "$TMP/fast.rc")" = 0 ] && [ "$(verdict fast proxy_step)" = PASS ] &&
  row fast proxy_step | grep -q 'faster: step time' &&
  ok "proxy gate against a 100x slower baseline: PASS, faster ($(row fast proxy_step | awk '{print $6}'))" ||
  { not_ok "proxy gate, slower baseline: rc $(cat "$TMP/fast.rc")"; cat "$TMP/fast.out"; }
sed 's/"args"/"severity": "warn", "args"/' "$TMP/proxy.json" >"$TMP/proxyw.json"
acc warn 2 "$TMP/proxyw.json" --baseline "$TMP/fast.json"
[ "$(cat "$TMP/warn.rc")" = 0 ] && [ "$(verdict warn proxy_step)" = WARN ] &&
  ok "severity warn: the slower proxy warns, exit 0" || not_ok "severity warn: rc $(cat "$TMP/warn.rc")"

# 3. bad input: exit 2, one message naming the line
bad() { # WHAT SPEC-CHECK-LINE WANT [ARGS...]
  local what=$1 check=$2 want=$3
  shift 3
  printf '{"node_types": {"any": {"checks": {\n  %s}}}}\n' "$check" >"$TMP/bad.json"
  acc bad 2 "$TMP/bad.json" "$@"
  if [ "$(cat "$TMP/bad.rc")" = 2 ] && grep -q "bad.json:2: .*$want" "$TMP/bad.err" &&
    [ ! -e "$TMP/bad.h5" ]; then
    ok "$what: exit 2, '$want' at line 2"
  else
    not_ok "$what: rc $(cat "$TMP/bad.rc")"
    cat "$TMP/bad.err"
  fi
  rm -f "$TMP/bad.h5"
}
bad "min_ratio above 1" '"links_matrix": {"min_ratio": 1.5}' "'min_ratio' must lie between 0 and 1"
bad "links per gpu" '"links_matrix": {"min": 1, "per": "gpu"}' "'per' must be node or rank"
bad "proxy args that are no proxy option" '"proxy_step": {"max_slowdown_pct": 5, "args": "--bogus 1"}' "'args'"
bad "proxy args with accept's own option" '"proxy_step": {"max_slowdown_pct": 5, "args": "--layers 2 --backend nccl"}' "--backend is accept's option"
bad "proxy gate without a baseline" "\"proxy_step\": {\"max_slowdown_pct\": 5, \"args\": \"$P\"}" "needs --baseline FILE"
bad "proxy layout that does not fit the world" '"proxy_step": {"max_slowdown_pct": 5, "args": "--tp 3"}' "proxy_step" --baseline "$TMP/base.json"
finish
