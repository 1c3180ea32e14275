#!/usr/bin/env bash
# An injected delay on one rank makes `report` name that rank as the last arriver, by arrival time
# on rank 0's clock, at 4 and 8 ranks; and still so when another rank's clock is shifted by 20 ms
# (the clock model removes the shift). Durations name other ranks: the late rank waits least.
source "$(dirname "$0")/lib.sh"

for np in 4 8; do
  late=$((np - 2))
  shifted=1
  f="$TMP/late$np.h5"
  SCALEPROBE_TEST_DELAY="$late:500" SCALEPROBE_TEST_CLOCK_SHIFT="$shifted:20000000" \
    sp_mpirun "$np" coll -c all_reduce,broadcast -b 8 -e 4K -f 8 -n 10 -w 1 --clock-sync all \
    -O "$f" >"$TMP/out" 2>&1
  rc=$?
  [ "$rc" -eq 0 ] && ok "$np ranks, rank $late delayed 500 us, rank $shifted's clock 20 ms ahead: run ok" ||
    { not_ok "$np ranks: rc=$rc"; tail -5 "$TMP/out"; continue; }
  "$SCALEPROBE" report "$f" >"$TMP/report" 2>&1
  first=$(grep -A1 '^# Late arrivals' "$TMP/report" | tail -1)
  echo "     | $(grep '^# Late arrivals' "$TMP/report")"
  echo "     | $first"
  if echo "$first" | grep -q "^#   rank $late (" && echo "$first" | grep -q '(100%)\|(9[0-9]%)'; then
    ok "$np ranks: report names rank $late as the last arriver"
  else
    not_ok "$np ranks: report does not name rank $late first"
  fi
  # the shifted rank's offset was measured (about 20 ms) within its error bound
  /usr/bin/env python3 - "$f" "$shifted" <<'PY' && ok "$np ranks: rank $shifted's 20 ms shift recovered within the stored bound" || not_ok "$np ranks: shift not recovered"
import subprocess, sys
f, r = sys.argv[1], int(sys.argv[2])
out = subprocess.run(["h5dump", "-d", "/clock/ranks", f], capture_output=True, text=True).stdout
rows = out.split("(%d): {" % r)[1].split("}")[0].replace(",", " ").split()
offset, err = int(rows[3]), int(rows[6])
print("     | rank %d: offset %d ns, error bound %d ns" % (r, offset, err))
sys.exit(0 if abs(offset - 20000000) <= err else 1)
PY
done

# the collective MPI-IO path writes the same timeline: every rank's events, the late rank named
f="$TMP/mpiio.h5"
SCALEPROBE_TEST_DELAY="1:500" sp_mpirun 4 coll -b 64 -e 4K -f 8 -n 5 -w 1 --timeline-io mpiio \
  -O "$f" >"$TMP/out" 2>&1
rc=$?
rows=$(h5dump -H -d /timeline/events "$f" 2>/dev/null | grep -o 'SIMPLE { ( [0-9]*' | grep -o '[0-9]*$')
# 3 sizes x 2 placements x 5 samples, one event per sample, on each of 4 ranks
[ "$rc" -eq 0 ] && [ "$rows" = "120" ] && ok "--timeline-io mpiio: 120 events from 4 ranks" ||
  { not_ok "--timeline-io mpiio: rc=$rc, events=$rows"; tail -5 "$TMP/out"; }
h5dump -a /timeline/io "$f" | grep -q 'collective MPI-IO' && ok "/timeline says how it was written" ||
  not_ok "/timeline/io missing"
"$SCALEPROBE" report "$f" | grep -A1 '^# Late arrivals' | tail -1 | grep -q '^#   rank 1 (' &&
  ok "--timeline-io mpiio: report names rank 1" || not_ok "--timeline-io mpiio: rank 1 not named"
finish
