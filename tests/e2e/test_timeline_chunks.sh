#!/usr/bin/env bash
# /timeline/events compressed on the producing ranks (src/runtime/aggregate_chunk.c): the same
# deterministic synthetic timeline aggregated uncompressed, with the producers compressing whole
# chunks (H5Dwrite_chunk on rank 0) and with rank 0 running the filter; h5py reads the same
# values from all three, h5dump reads the file without plugins, and chunks did come compressed.
source "$(dirname "$0")/lib.sh"
build=${SCALEPROBE_BUILD_DIR:?}
py=/usr/bin/python3 # with python3-h5py (scripts/install-deps.sh)

# 5 virtual ranks of 20000 events on 2 processes: rank boundaries fall inside chunks (20000 is
# not a multiple of 8192), so each file mixes compressed chunks and chunks written through HDF5
for w in none shuffle-deflate1 shuffle-deflate1-rank0; do
  timeout 120 mpirun -np 2 "$build/bench/bench_aggregate" 5 20000 "$TMP/$w.h5" "$w" 1 \
    >"$TMP/$w.txt" 2>&1 </dev/null
  rc=$?
  [ "$rc" -eq 0 ] && ok "$w: aggregated" || { not_ok "$w: rc=$rc"; cat "$TMP/$w.txt"; }
done
n=$(grep -o '^shuffle-deflate1: [0-9]* of [0-9]*' "$TMP/shuffle-deflate1.txt" | awk '{print $2}')
[ "${n:-0}" -gt 0 ] && ok "producers compressed $n whole chunks" ||
  not_ok "no chunk compressed by the producers: $(cat "$TMP/shuffle-deflate1.txt")"
grep -q '^shuffle-deflate1-rank0: 0 of' "$TMP/shuffle-deflate1-rank0.txt" &&
  ok "rank-0 filter: no chunk from the producers" || not_ok "rank-0 filter took producers' chunks"

out=$("$py" - "$TMP" <<'PY' 2>&1
import sys, h5py, numpy as np
d = sys.argv[1]
ref = h5py.File(d + "/none.h5", "r")
for w in ("shuffle-deflate1", "shuffle-deflate1-rank0"):
    f = h5py.File(d + "/" + w + ".h5", "r")
    ev, ev0 = f["timeline/events"], ref["timeline/events"]
    assert ev.compression == "gzip" and ev.shuffle and ev.chunks == (8192,), w + ": filters"
    a, b = ev[:], ev0[:]
    assert len(a) == len(b) == 100000, (w, len(a), len(b))
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
[ "$out" = equal ] && ok "h5py: both compressed files hold the uncompressed run's 100000 events, field by field" ||
  not_ok "h5py: $out"
if h5dump -d /timeline/events "$TMP/shuffle-deflate1.h5" >"$TMP/dump.txt" 2>&1 &&
  h5dump -p -H -d /timeline/events "$TMP/shuffle-deflate1.h5" | grep -q 'DEFLATE { LEVEL 1 }' &&
  [ "$(grep -c '"all_reduce"' "$TMP/dump.txt")" -gt 0 ]; then
  ok "h5dump reads every event of the producer-compressed file"
else
  not_ok "h5dump: $(tail -3 "$TMP/dump.txt")"
fi
finish
