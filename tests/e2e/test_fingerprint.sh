#!/usr/bin/env bash
# The per-rank fingerprint: /fingerprint/ranks has a row per rank with hwloc's view (CPU model,
# NUMA nodes), /fingerprint/nodes a row per node; a rank made to differ (the test-only
# SCALEPROBE_TEST_FINGERPRINT, set on one rank of an MPMD launch) is named by `scaleprobe report`
# with its host and the field, and a run where all ranks agree names nobody.
source "$(dirname "$0")/lib.sh"
sweep=(coll --collectives all_reduce -b 64 -e 64 -n 3 -w 1)
host=$(hostname)

# a normal run: three alike ranks
sp_mpirun 3 "${sweep[@]}" -O "$TMP/same.h5" >"$TMP/out" 2>&1 || { not_ok "3-rank sweep failed"; tail -5 "$TMP/out"; }
h5dump -A 0 -H -d /fingerprint/ranks "$TMP/same.h5" 2>/dev/null | grep -q 'SIMPLE { ( 3 )' &&
  ok "/fingerprint/ranks has 3 rows" || not_ok "/fingerprint/ranks: $(h5dump -A 0 -H -d /fingerprint/ranks "$TMP/same.h5" 2>&1 | grep DATASPACE)"
h5dump -A 0 -H -d /fingerprint/nodes "$TMP/same.h5" 2>/dev/null | grep -q 'SIMPLE { ( 1 )' &&
  ok "/fingerprint/nodes has 1 row (one host)" || not_ok "/fingerprint/nodes rows"
# member K (1-based, in the order of docs/SCHEMA.md) of every row of a compound dataset, one a line
member() {
  h5dump -A 0 -d "$1" "$3" 2>/dev/null |
    awk -v k="$2" 'BEGIN { n = -1 } /^ *\([0-9]+\): \{/ { n = 0; next } n >= 0 { n++; if (n == k) { sub(/^ */, ""); sub(/,$/, ""); print } }'
}
cpu=$(member /fingerprint/ranks 11 "$TMP/same.h5" | head -1)
numa=$(member /fingerprint/ranks 6 "$TMP/same.h5" | head -1)
if [ -n "$cpu" ] && [ "$cpu" != '""' ] && [ "$cpu" != '"unknown"' ]; then
  ok "CPU model recorded: $cpu"
else
  not_ok "CPU model missing: '$cpu'"
fi
[[ "$numa" =~ ^\"[0-9,-]+\"$ ]] && ok "NUMA node(s) of the binding recorded: $numa" || not_ok "numa field: '$numa'"
"$SCALEPROBE" report "$TMP/same.h5" >"$TMP/rep_same" 2>&1
if grep -q '^#   all 1 nodes alike' "$TMP/rep_same" && ! grep -q 'differ' "$TMP/rep_same"; then
  ok "report: all alike, nobody flagged"
else
  not_ok "report of an alike run flags something"
  grep -A8 'Fingerprint' "$TMP/rep_same"
fi
grep -q '^# Fingerprint (majority of 1 node, 3 ranks)' "$TMP/rep_same" && ok "report has the fingerprint section" ||
  not_ok "no fingerprint section in the report"

# rank 2 with another kernel (Open MPI MPMD: -x sets the variable for that app context only)
timeout 120 mpirun -np 2 "$SCALEPROBE" "${sweep[@]}" -O "$TMP/odd.h5" : \
  -np 1 -x SCALEPROBE_TEST_FINGERPRINT=kernel=9.9-test "$SCALEPROBE" "${sweep[@]}" -O "$TMP/odd.h5" \
  >"$TMP/out" 2>&1 || { not_ok "MPMD sweep failed"; tail -5 "$TMP/out"; }
"$SCALEPROBE" report "$TMP/odd.h5" >"$TMP/rep_odd" 2>&1
if grep -q "^#     rank 2 ($host, node 0): kernel 9.9-test (node " "$TMP/rep_odd"; then
  ok "report names rank 2, its host and the kernel field"
else
  not_ok "report does not name rank 2's kernel"
  grep -A10 'Fingerprint' "$TMP/rep_odd"
fi
[ "$(grep -c '^#     rank ' "$TMP/rep_odd")" -eq 1 ] && ok "only rank 2 flagged" || not_ok "other ranks flagged too"
flags=$(member /fingerprint/ranks 33 "$TMP/odd.h5" | tr '\n' ' ')
[ "$flags" = '"" "" "kernel" ' ] && ok "/fingerprint/ranks differs_in: $flags" ||
  not_ok "/fingerprint/ranks differs_in: '$flags'"
[ "$(member /fingerprint/nodes 6 "$TMP/odd.h5")" = '"kernel"' ] &&
  ok "/fingerprint/nodes: node 0 mixed in kernel" || not_ok "/fingerprint/nodes mixed_in: $(member /fingerprint/nodes 6 "$TMP/odd.h5")"

# a bad override is ignored with a warning, the run goes on
SCALEPROBE_TEST_FINGERPRINT=no_such_field=1 sp_mpirun 1 "${sweep[@]}" -O "$TMP/bad.h5" >"$TMP/out" 2>&1 &&
  grep -q 'SCALEPROBE_TEST_FINGERPRINT=no_such_field=1 ignored' "$TMP/out" &&
  ok "unknown override field: warned and ignored" || { not_ok "unknown override field"; tail -3 "$TMP/out"; }
finish
