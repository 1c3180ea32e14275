#!/usr/bin/env bash
# scaleprobe accept: health checks through a fake NVML (tests/fake/fake_nvml.c, loaded by the
# same dlopen as the real one), fixture kernel logs and a fixture sysfs tree whose counters
# grow during the run, verdicts and exit codes, and the outputs (table, /accept, JSON, JUnit
# XML read by junitparser and validated against tests/data/junit.xsd, exclude list).
. "$(dirname "$0")/lib.sh"
SRC=${SCALEPROBE_SOURCE_DIR:?}
FAKE=${SCALEPROBE_BUILD_DIR:?}/fake-nvml
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
HOST=$(hostname)

# accept NAME ARGS...: one run (a singleton, as a Slurm prolog runs it); output in $TMP/NAME.out
accept() {
  local name=$1
  shift
  timeout 120 "$SCALEPROBE" accept "$@" -O "$TMP/$name.h5" >"$TMP/$name.out" 2>"$TMP/$name.err"
  echo $? >"$TMP/$name.rc"
}
rc_of() { cat "$TMP/$1.rc"; }
# verdict NAME CHECK: the verdict column of CHECK's line in the table
verdict() { awk -v c="$2" '$4 == c {print $5; exit}' "$TMP/$1.out"; }

expect_verdict() { # NAME CHECK VERDICT WHAT
  local got
  got=$(verdict "$1" "$2")
  if [ "$got" = "$3" ]; then ok "$4: $2 $3"; else not_ok "$4: $2 is '$got', want $3"; cat "$TMP/$1.out" "$TMP/$1.err"; fi
}
expect_rc() { # NAME RC WHAT
  if [ "$(rc_of "$1")" = "$2" ]; then ok "$3: exit $2"; else not_ok "$3: exit $(rc_of "$1"), want $2"; cat "$TMP/$1.err"; fi
}

cat >"$TMP/gpu.json" <<'JSON'
{
  "node_types": {
    "gpu": {
      "checks": {
        "gpu_count": {"expect": 8},
        "ecc_volatile_uncorrected": {"max": 0},
        "ecc_aggregate_uncorrected": {"max": 0, "severity": "warn"},
        "row_remap_pending": {"max": 0},
        "row_remap_failed": {"max": 0},
        "throttle_reasons": {"fail": ["hw_thermal", "hw_slowdown"], "warn": ["sw_thermal"]},
        "pcie_width": {"min": 16},
        "nvlink_active": {"min": 18},
        "gpu_temperature_c": {"max": 85}
      }
    }
  }
}
JSON

# ---- NVML ----
export LD_LIBRARY_PATH=$FAKE${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
SP_FAKE_NVML="" accept healthy "$TMP/gpu.json" --window 0 --junit "$TMP/healthy.xml"
expect_rc healthy 0 "8 healthy GPUs"
for c in gpu_count ecc_volatile_uncorrected row_remap_pending throttle_reasons nvlink_active; do
  expect_verdict healthy $c PASS "8 healthy GPUs"
done

SP_FAKE_NVML="gpu3.ecc_vol_unc=2" accept ecc "$TMP/gpu.json" --window 0 \
  --exclude "$TMP/ecc.exclude" --junit "$TMP/ecc.xml" --json "$TMP/ecc.json"
expect_rc ecc 1 "an uncorrected ECC error"
expect_verdict ecc ecc_volatile_uncorrected FAIL "an uncorrected ECC error on gpu3"
grep -q "gpu3 2!" "$TMP/ecc.out" && ok "the evidence names gpu3" || not_ok "no gpu3 in the evidence"
[ "$(cat "$TMP/ecc.exclude")" = "$HOST" ] && ok "the exclude list holds the failed host" ||
  not_ok "exclude list: '$(cat "$TMP/ecc.exclude")'"

SP_FAKE_NVML="gpu1.ecc_agg_unc=1" accept agg "$TMP/gpu.json" --window 0
expect_verdict agg ecc_aggregate_uncorrected WARN "a lifetime ECC error with severity warn"
expect_rc agg 0 "a warning only"

SP_FAKE_NVML="gpu5.remap_pending=1" accept remap "$TMP/gpu.json" --window 0
expect_verdict remap row_remap_pending FAIL "a pending row remap"
expect_verdict remap row_remap_failed PASS "a pending row remap"
expect_rc remap 1 "a pending row remap"

SP_FAKE_NVML="gpu2.throttle=0x40" accept hot "$TMP/gpu.json" --window 0
expect_verdict hot throttle_reasons FAIL "a hardware thermal throttle"
SP_FAKE_NVML="*.throttle=0x20" accept warm "$TMP/gpu.json" --window 0
expect_verdict warm throttle_reasons WARN "a software thermal throttle"
expect_rc warm 0 "a software thermal throttle"

SP_FAKE_NVML="gpu6.missing=1" accept missing "$TMP/gpu.json" --window 0
expect_verdict missing gpu_count FAIL "a GPU NVML lists but cannot open"
grep -q "lists 8 GPU(s) but opens 7" "$TMP/missing.out" && ok "the evidence says 8 listed, 7 opened" ||
  not_ok "missing GPU evidence"
SP_FAKE_NVML="gpus=7" accept seven "$TMP/gpu.json" --window 0
expect_verdict seven gpu_count FAIL "7 GPUs where 8 are expected"
SP_FAKE_NVML="init=fail" accept noinit "$TMP/gpu.json" --window 0
expect_verdict noinit gpu_count FAIL "NVML that does not initialize"
expect_verdict noinit ecc_volatile_uncorrected N/A "NVML that does not initialize"
unset LD_LIBRARY_PATH

# without NVML (this machine has no driver): GPU checks do not apply, never pass
accept nonvml "$TMP/gpu.json" --window 0 --json "$TMP/nonvml.json"
for c in ecc_volatile_uncorrected row_remap_pending throttle_reasons nvlink_active; do
  expect_verdict nonvml $c N/A "no GPU"
done
expect_verdict nonvml gpu_count FAIL "no GPU where 8 are expected"

# ---- outputs ----
if xmllint --noout --schema "$SRC/tests/data/junit.xsd" "$TMP/ecc.xml" "$TMP/healthy.xml" 2>"$TMP/xsd"; then
  ok "JUnit XML validates against the JUnit schema"
else
  not_ok "JUnit XML does not validate: $(cat "$TMP/xsd")"
fi
if "$PY" - "$TMP/ecc.xml" >"$TMP/junit.out" 2>&1 <<'PYEOF'
import sys
from junitparser import JUnitXml, Failure
xml = JUnitXml.fromfile(sys.argv[1])
suites = list(xml)
assert len(suites) == 1, suites
s = suites[0]
assert s.tests == 9 and s.failures == 1, (s.tests, s.failures)
failed = [c.name for c in s if any(isinstance(r, Failure) for r in c.result)]
assert failed == ["ecc_volatile_uncorrected"], failed
print("ok")
PYEOF
then ok "junitparser reads 9 cases, the ECC one failed"; else not_ok "junitparser: $(cat "$TMP/junit.out")"; fi
"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); c={x["check"]:x for x in d["nodes"][0]["checks"]}; sys.exit(not (d["verdict"]=="FAIL" and c["ecc_volatile_uncorrected"]["value"]==2 and c["gpu_count"]["verdict"]=="PASS"))' "$TMP/ecc.json" &&
  ok "JSON: job FAIL, the ECC check's value 2" || not_ok "JSON content"
h5dump -A 0 -d /accept/checks "$TMP/ecc.h5" >"$TMP/ecc.dump" 2>&1
grep -q '"ecc_volatile_uncorrected"' "$TMP/ecc.dump" && grep -q 'FAIL' "$TMP/ecc.dump" &&
  ok "/accept/checks holds the failed check" || not_ok "/accept/checks"
h5dump -a /accept/verdict "$TMP/ecc.h5" | grep -q '"FAIL"' && ok "/accept verdict FAIL" || not_ok "/accept verdict"
accept again "$TMP/gpu.json" --window 0 --json "$TMP/nonvml.json"
expect_rc again 2 "an existing --json file without --force"

# ---- kernel log ----
cat >"$TMP/host.json" <<'JSON'
{
  "node_types": {
    "any": {
      "checks": {
        "xid": {"fail": [48, 79, 94, 95]},
        "memory_gib": {"min": 0.1},
        "cpu_governor": {"expect": ["performance"], "severity": "warn"},
        "ib_ports_active": {"min": 2},
        "ib_rate_gbps": {"min": 100},
        "ib_error_counters": {"max_delta": 0}
      }
    }
  }
}
JSON
printf '[ 12.3] some line\n' >"$TMP/clean.log"
printf '[ 12.3] NVRM: Xid (PCI:0000:3b:00): 79, pid=4242, GPU has fallen off the bus.\n' >"$TMP/x79.log"
printf '[ 12.3] NVRM: Xid (PCI:0000:3b:00): 13, pid=4242, Graphics SM Warp Exception\n' >"$TMP/x13.log"
accept xclean "$TMP/host.json" --window 0 --kernel-log "$TMP/clean.log" --sys-root "$TMP/nosys"
expect_verdict xclean xid PASS "a kernel log without Xid"
accept x79 "$TMP/host.json" --window 0 --kernel-log "$TMP/x79.log" --sys-root "$TMP/nosys"
expect_verdict x79 xid FAIL "Xid 79 (fallen off the bus)"
grep -q "fallen off the bus" "$TMP/x79.out" && ok "the Xid line is the evidence" || not_ok "Xid evidence"
accept x13 "$TMP/host.json" --window 0 --kernel-log "$TMP/x13.log" --sys-root "$TMP/nosys"
expect_verdict x13 xid WARN "an unlisted Xid 13"
accept xnone "$TMP/host.json" --window 0 --kernel-log "$TMP/absent.log" --sys-root "$TMP/nosys"
expect_verdict xnone xid WARN "an unreadable kernel log"
grep -q "cannot read $TMP/absent.log" "$TMP/xnone.out" && ok "the unreadable log is named" || not_ok "unreadable log evidence"

# ---- sysfs: IB ports, counters growing during the run, governor ----
sys=$TMP/sys
for p in mlx5_0/ports/1 mlx5_1/ports/1; do
  d=$sys/class/infiniband/$p
  mkdir -p "$d/counters"
  echo "4: ACTIVE" >"$d/state"
  echo "5: LinkUp" >"$d/phys_state"
  echo "200 Gb/sec (4X HDR)" >"$d/rate"
  echo "InfiniBand" >"$d/link_layer"
  for c in symbol_error link_downed port_rcv_errors; do echo 7 >"$d/counters/$c"; done
done
for c in 0 1 2 3; do
  mkdir -p "$sys/devices/system/cpu/cpu$c/cpufreq"
  echo performance >"$sys/devices/system/cpu/cpu$c/cpufreq/scaling_governor"
done
accept ibok "$TMP/host.json" --window 0 --kernel-log "$TMP/clean.log" --sys-root "$sys"
for c in ib_ports_active ib_rate_gbps ib_error_counters cpu_governor memory_gib; do
  expect_verdict ibok $c PASS "two active HDR ports"
done
expect_rc ibok 0 "a clean node"

# the symbol error counter grows while accept waits between its two readings
SCALEPROBE_LOG=info timeout 120 "$SCALEPROBE" accept "$TMP/host.json" --window 3 \
  --kernel-log "$TMP/clean.log" --sys-root "$sys" -O "$TMP/grow.h5" >"$TMP/grow.out" 2>"$TMP/grow.err" &
pid=$!
for _ in $(seq 1 300); do
  grep -q "counters before the run taken" "$TMP/grow.err" 2>/dev/null && break
  sleep 0.1
done
echo 12 >"$sys/class/infiniband/mlx5_1/ports/1/counters/symbol_error"
wait $pid
echo $? >"$TMP/grow.rc"
expect_verdict grow ib_error_counters FAIL "symbol errors during the run"
grep -q "mlx5_1/1 symbol_error 7->12 (+5)" "$TMP/grow.out" && ok "the evidence gives 7->12 (+5)" ||
  not_ok "counter evidence: $(grep ib_error "$TMP/grow.out")"
expect_rc grow 1 "symbol errors during the run"

echo "1: DOWN" >"$sys/class/infiniband/mlx5_0/ports/1/state"
echo "3: Disabled" >"$sys/class/infiniband/mlx5_0/ports/1/phys_state"
echo powersave >"$sys/devices/system/cpu/cpu2/cpufreq/scaling_governor"
accept down "$TMP/host.json" --window 0 --kernel-log "$TMP/clean.log" --sys-root "$sys"
expect_verdict down ib_ports_active FAIL "a port down"
expect_verdict down cpu_governor WARN "one CPU on powersave"

# ---- bad specs: exit 2, one message naming the line, no result file ----
bad() { # NAME LINE WHAT TEXT
  printf '%s\n' "$4" >"$TMP/$1.json"
  accept "$1" "$TMP/$1.json" --window 0
  if [ "$(rc_of "$1")" = 2 ] && grep -q "$TMP/$1.json:$2: .*$3" "$TMP/$1.err" &&
    [ "$(grep -c . "$TMP/$1.err")" = 1 ] && [ ! -e "$TMP/$1.h5" ]; then
    ok "bad spec ($1): exit 2, line $2 named"
  else
    not_ok "bad spec ($1): exit $(rc_of "$1"): $(cat "$TMP/$1.err")"
  fi
}
bad unknown_check 3 "unknown check 'ecc_all'" '{"node_types": {"a": {"checks": {
  "memory_gib": {"min": 1},
  "ecc_all": {"max": 0}}}}}'
bad wrong_type 2 "must be a number" '{"node_types": {"a": {"checks": {
  "gpu_count": {"expect": "eight"}}}}}'
bad no_threshold 2 "has no threshold" '{"node_types": {"a": {"checks": {
  "ib_error_counters": {"counters": ["symbol_error"]}}}}}'
bad type_field 3 "unknown node type field" '{"node_types": {"a": {
  "checks": {"memory_gib": {"min": 1}},
  "gpu_model": "H100"}}}'
bad links 2 "'per' must be node or rank" '{"node_types": {"a": {"checks": {
  "links_matrix": {"min": 20, "per": "gpu"}}}}}'
bad syntax 3 "not valid JSON" '{"node_types": {"a": {"checks": {
  "memory_gib": {"min": 1}
  "xid": {"fail": [79]}}}}}'

# ---- the Slurm prolog/epilog example: prints the drain command, never runs it ----
mkdir -p "$TMP/bin"
printf '#!/bin/sh\necho called >"%s/scontrol.called"\n' "$TMP" >"$TMP/bin/scontrol"
chmod +x "$TMP/bin/scontrol"
start=$(date +%s)
PATH=$TMP/bin:$PATH ACCEPT_SPEC=$TMP/host.json SCALEPROBE=$SCALEPROBE ACCEPT_DIR=$TMP ACCEPT_WINDOW=1 \
  bash "$SRC/scripts/slurm/accept-health.sh" >"$TMP/prolog.out" 2>&1
prc=$?
took=$(($(date +%s) - start))
if [ "$prc" = 1 ] && grep -q "scontrol update nodename=.* state=drain reason=\"scaleprobe accept: ib_ports_active=0" "$TMP/prolog.out" &&
  [ ! -e "$TMP/scontrol.called" ]; then
  ok "the prolog example prints the drain command (took ${took}s) and does not run it"
else
  not_ok "prolog example: exit $prc: $(cat "$TMP/prolog.out")"
fi

# ---- the shipped examples parse ----
for f in "$SRC"/examples/accept/*.json; do
  accept example "$f" --window 0 --health-only --force
  [ "$(rc_of example)" != 2 ] && ok "example $(basename "$f") is a valid spec" ||
    not_ok "example $(basename "$f"): $(cat "$TMP/example.err")"
done
finish
