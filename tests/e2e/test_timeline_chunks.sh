#!/usr/bin/env bash
# /timeline/events compressed on the producing ranks (src/runtime/aggregate_chunk.c): the same
# deterministic synthetic timeline aggregated uncompressed, with the producers compressing every
# chunk (H5Dwrite_chunk on rank 0), the ones spanning rank boundaries and the table's last, partial
# one included (interior ones made ahead by their owners, aggregate_ahead.c: rank 0 pauses so
# that every one the layout allows is, and the count is asserted), and with rank 0
# running the filter; h5py reads the same values from all three,
# h5dump reads the file without plugins, and no chunk went through rank 0's filter.
source "$(dirname "$0")/lib.sh"
build=${SCALEPROBE_BUILD_DIR:?}
py=/usr/bin/python3 # with python3-h5py (scripts/install-deps.sh)

# 5 virtual ranks of 20000 events on 2 processes: rank boundaries fall inside chunks (20000 is
# not a multiple of 8192), 12 full chunks, 4 of them spanning two ranks, and a last one of 1696
# events; 7 ranks of 3000 on 3 processes: a chunk spans three ranks, and rank 0 owns vranks whose
# chunk starts with rows another process made; 3 ranks of 100000 on 2 processes: process 1 makes
# 11 chunks of its rank ahead
for cfg in "2 5 20000" "3 7 3000" "2 3 100000"; do
  set -- $cfg
  for w in none shuffle-deflate1 shuffle-deflate1-rank0; do
    # the producers' run: rank 0 pauses 300 ms before its first request, so the owners make
    # every chunk they can ahead and the count below is exact
    pause=0
    [ "$w" = shuffle-deflate1 ] && pause=300
    SCALEPROBE_TEST_AGG_PAUSE_MS=$pause timeout 120 mpirun -np "$1" --oversubscribe \
      "$build/bench/bench_aggregate" "$2" "$3" "$TMP/$w-$2.h5" "$w" 1 >"$TMP/$w-$2.txt" 2>&1 </dev/null
    rc=$?
    [ "$rc" -eq 0 ] && ok "$w, $2 x $3: aggregated" ||
      { not_ok "$w: rc=$rc"; cat "$TMP/$w-$2.txt"; }
  done
  total=$(( ($2 * $3 + 8191) / 8192 ))
  by="chunks compressed by the producing ranks"
  grep -q "^shuffle-deflate1: $total of $total $by, 0 through rank 0's HDF5 filter" \
    "$TMP/shuffle-deflate1-$2.txt" &&
    ok "$2 x $3: producers compressed all $total chunks, rank 0's filter none" ||
    not_ok "$2 x $3, rank 0 compressed some: $(grep chunks "$TMP/shuffle-deflate1-$2.txt")"
  # made ahead (aggregate_ahead.c): every full chunk inside one virtual rank of a process other
  # than rank 0 (a chunk that starts in another rank's rows needs them from rank 0's request);
  # with rank 0's pause all of them (at most 16 an owner, more than these layouts have). The
  # values are checked below whichever way each chunk came.
  want=0
  for ((v = 0; v < $2; v++)); do
    ((v % $1 == 0)) && continue
    ((want += (v + 1) * $3 / 8192 - (v * $3 + 8191) / 8192 > 0 ? (v + 1) * $3 / 8192 - (v * $3 + 8191) / 8192 : 0))
  done
  ahead=$(sed -n 's/^shuffle-deflate1: \([0-9]*\) chunks compressed by their owners before.*/\1/p' \
    "$TMP/shuffle-deflate1-$2.txt")
  [ "$ahead" = "$want" ] &&
    ok "$2 x $3: $ahead of $total chunks made ahead by their owners, as the layout allows" ||
    not_ok "$2 x $3: made-ahead count '$ahead', expected $want"
  grep -q "^shuffle-deflate1-rank0: 0 of $total $by, $total through rank 0's HDF5 filter" \
    "$TMP/shuffle-deflate1-rank0-$2.txt" &&
    ok "$2 x $3, rank-0 filter: all $total chunks through it, none from the producers" ||
    not_ok "rank-0 filter: $(grep chunks "$TMP/shuffle-deflate1-rank0-$2.txt")"
done

out=$("$py" - "$TMP" <<'PY' 2>&1
import sys, h5py, numpy as np
d = sys.argv[1]
for w, nv, total in [(w, nv, total) for nv, total in ((5, 100000), (7, 21000), (3, 300000))
                     for w in ("shuffle-deflate1", "shuffle-deflate1-rank0")]:
    ref = h5py.File("%s/none-%d.h5" % (d, nv), "r")
    f = h5py.File("%s/%s-%d.h5" % (d, w, nv), "r")
    w = "%s-%d" % (w, nv)
    ev, ev0 = f["timeline/events"], ref["timeline/events"]
    assert ev.compression == "gzip" and ev.shuffle and ev.chunks == (8192,), w + ": filters"
    a, b = ev[:], ev0[:]
    assert len(a) == len(b) == total, (w, len(a), len(b))
    for name in a.dtype.names:
        assert np.array_equal(a[name], b[name]), (w, name)
    assert np.array_equal(f["timeline/ranks"][:], ref["timeline/ranks"][:]), w + ": ranks"
    # every rank's events where /timeline/ranks says, in order
    for r in f["timeline/ranks"][:]:
        s = a[r["offset"]:r["offset"] + r["count"]]
        assert (s["rank"] == r["rank"]).all() and (np.diff(s["start_ns"]) >= 0).all(), (w, r)
print("equal")
PY
)
[ "$out" = equal ] &&
  ok "h5py: all compressed files hold the uncompressed runs' events, field by field" ||
  not_ok "h5py: $out"
# h5dump (no plugins) through the last, partial chunk: every odd event of the synthetic timeline
# is an all_reduce, so 50000 of the 100000 events print that op
if h5dump -d /timeline/events "$TMP/shuffle-deflate1-5.h5" >"$TMP/dump.txt" 2>&1 &&
  h5dump -p -H -d /timeline/events "$TMP/shuffle-deflate1-5.h5" | grep -q 'DEFLATE { LEVEL 1 }' &&
  [ "$(grep -c '^ *all_reduce,$' "$TMP/dump.txt")" -eq 50000 ]; then
  ok "h5dump reads every event of the producer-compressed file"
else
  not_ok "h5dump: $(tail -3 "$TMP/dump.txt")"
fi
finish
