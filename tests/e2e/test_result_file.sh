#!/usr/bin/env bash
# The result file: schema against the golden h5dump -H, never overwritten without --force,
# busbw "n/a" at one rank, per-rank times and samples present and consistent.
source "$(dirname "$0")/lib.sh"
top=${SCALEPROBE_SOURCE_DIR:?}
f="$TMP/a.h5"

sp_mpirun 2 coll --collectives all_reduce,broadcast -b 64 -e 256 -f 4 -n 5 -O "$f" >"$TMP/out" 2>&1
[ $? -eq 0 ] && ok "2-rank sweep" || { not_ok "2-rank sweep failed"; cat "$TMP/out"; }

# schema: h5dump -H with the row counts and run-specific attribute sizes blanked, and without
# /fingerprint/environment (its names are whatever this machine's allow-listed environment has)
normalize() {
  sed -E -e 's/\( [0-9]+(, [0-9]+)? \) \/ \( (H5S_UNLIMITED|[0-9]+)(, [0-9]+)? \)/( N ) \/ ( M )/' \
         -e 's/STRSIZE [0-9]+;/STRSIZE S;/' -e "s|$TMP/a.h5|FILE|" |
    awk '/GROUP "environment" \{/ { skip = 1; depth = 0 }
         skip { depth += gsub(/\{/, "{") - gsub(/\}/, "}"); if (depth <= 0) skip = 0; next }
         { print }'
}
h5dump -H "$f" | normalize >"$TMP/schema.txt"
if diff -u "$top/tests/data/schema-coll.txt" "$TMP/schema.txt" >"$TMP/diff"; then
  ok "schema matches tests/data/schema-coll.txt"
else
  not_ok "schema differs from tests/data/schema-coll.txt"
  head -60 "$TMP/diff"
fi

# samples: 5 per row with -n 5; rank_times: one column per rank
h5dump -A 0 -H -d /coll/samples "$f" | grep -q 'SIMPLE { ( 40 )' && ok "40 samples for 8 rows of -n 5" ||
  not_ok "samples count: $(h5dump -A 0 -H -d /coll/samples "$f" | grep DATASPACE)"
h5dump -A 0 -H -d /coll/rank_times "$f" | grep -q 'SIMPLE { ( 8, 2 )' && ok "rank_times is rows x ranks" ||
  not_ok "rank_times shape: $(h5dump -A 0 -H -d /coll/rank_times "$f" | grep DATASPACE)"
h5dump -A 0 -d /topology/ranks "$f" | grep -q "$(hostname)" && ok "/topology has the host name" || not_ok "no host name in /topology"
# filters (docs/SCHEMA.md, Storage): the timeline uncompressed for disk-speed aggregation, the
# tables with shuffle + deflate 1, both readable without plugins
h5dump -A 0 -p -H -d /timeline/events "$f" | grep -A1 'FILTERS {' | grep -q 'NONE' &&
  ok "/timeline/events has no filter" || not_ok "/timeline/events is filtered"
h5dump -A 0 -p -H -d /coll/samples "$f" | grep -A2 'FILTERS {' | grep -q 'SHUFFLE' &&
  h5dump -A 0 -p -H -d /coll/samples "$f" | grep -q 'DEFLATE { LEVEL 1 }' &&
  ok "/coll/samples is shuffled and deflated at level 1" || not_ok "/coll/samples filters differ"
# --timeline-compress: the timeline shuffled and deflated too, and read back the same
sp_mpirun 2 coll --collectives all_reduce,broadcast -b 64 -e 256 -f 4 -n 5 --timeline-compress \
  -O "$TMP/z.h5" >/dev/null 2>&1
if h5dump -A 0 -p -H -d /timeline/events "$TMP/z.h5" | grep -A2 'FILTERS {' | grep -q 'SHUFFLE' &&
  h5dump -A 0 -p -H -d /timeline/events "$TMP/z.h5" | grep -q 'DEFLATE { LEVEL 1 }' &&
  [ "$(h5dump -A 0 -H -d /timeline/events "$TMP/z.h5" | grep -o 'SIMPLE { ( [0-9]*')" = \
    "$(h5dump -A 0 -H -d /timeline/events "$f" | grep -o 'SIMPLE { ( [0-9]*')" ] &&
  "$SCALEPROBE" report "$TMP/z.h5" >/dev/null 2>&1; then
  ok "--timeline-compress: /timeline/events shuffled and deflated at level 1, as many events, report reads it"
else
  not_ok "--timeline-compress: $(h5dump -A 0 -p -H -d /timeline/events "$TMP/z.h5" | grep -A3 'FILTERS {' | tr -s ' \n' ' ')"
fi

# environment: allow-listed names only, secret-looking values redacted, nothing secret in the file
# (mpirun passes the launching environment to local ranks)
NCCL_IB_SECRET_KEY=hunter2-e2e MY_PASSWORD=hunter3-e2e NCCL_DEBUG=WARN \
  sp_mpirun 2 coll -b 64 -e 64 -n 3 -O "$TMP/env.h5" >/dev/null 2>&1
h5dump -A -g /fingerprint/environment "$TMP/env.h5" >"$TMP/env.txt" 2>&1
grep -q '"NCCL_DEBUG"' "$TMP/env.txt" && grep -q '"WARN"' "$TMP/env.txt" && ok "allow-listed NCCL_DEBUG recorded" ||
  not_ok "NCCL_DEBUG not in /fingerprint/environment"
grep -q '"<redacted>"' "$TMP/env.txt" && ok "NCCL_IB_SECRET_KEY recorded as <redacted>" || not_ok "no redacted entry"
if grep -aq 'hunter2-e2e\|hunter3-e2e\|MY_PASSWORD' "$TMP/env.h5"; then
  not_ok "a secret value or a non-allow-listed name is in the result file"
else
  ok "no secret value and no non-allow-listed name anywhere in the file"
fi
h5dump -a /fingerprint/mpi_library "$TMP/env.h5" | grep -q 'Open MPI\|MPICH' && ok "MPI library version recorded" ||
  not_ok "no MPI library version"

# never overwrite without --force
sum=$(md5sum <"$f")
sp_mpirun 2 coll -b 64 -e 64 -O "$f" >/dev/null 2>&1
rc=$?
[ "$rc" -eq 2 ] && [ "$(md5sum <"$f")" = "$sum" ] && ok "existing file: exit 2, untouched" || not_ok "rc=$rc or file changed"
sp_mpirun 2 coll -b 64 -e 64 -n 3 -O "$f" --force >/dev/null 2>&1
rc=$?
[ "$rc" -eq 0 ] && [ "$(md5sum <"$f")" != "$sum" ] && ok "--force overwrites" || not_ok "--force: rc=$rc"

# one rank: busbw is not meaningful and says so
sp_mpirun 1 coll -b 1K -e 1K -n 3 -O "$TMP/one.h5" >"$TMP/out1" 2>&1
awk '$1=="1024"' "$TMP/out1" | grep -q 'n/a' && ok "one rank: busbw column shows n/a" || not_ok "one rank: busbw not n/a"
grep -q 'not meaningful with 1 rank' "$TMP/out1" && ok "one rank: footer says why" || not_ok "one rank: no footer note"
"$SCALEPROBE" report "$TMP/one.h5" | grep -q 'busbw n/a with 1 rank' && ok "report: busbw n/a at one rank" ||
  not_ok "report does not say busbw is n/a"
finish
