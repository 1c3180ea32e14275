#!/usr/bin/env bash
# `scaleprobe export`: the Chrome trace is valid JSON with one "X" event per timeline row, named
# ranks and lanes, times that match the CSV; --ranks selects; --csv writes four files with the
# right row counts; files without a timeline export empty; bad input exits 2 with one line and
# writes nothing.
source "$(dirname "$0")/lib.sh"
f="$TMP/run.h5"

sp_mpirun 4 coll --collectives all_reduce,all_gather -b 64 -e 4K -f 8 -n 5 -O "$f" >"$TMP/out" 2>&1
[ $? -eq 0 ] && ok "4-rank sweep" || { not_ok "4-rank sweep failed"; cat "$TMP/out"; finish; }

# rows of a 1-D dataset, as h5dump -H shows them
rows() { h5dump -A 0 -H -d "$2" "$1" | sed -nE 's/.*DATASPACE +SIMPLE \{ \( ([0-9]+) \).*/\1/p'; }
nev=$(rows "$f" /timeline/events)
nres=$(rows "$f" /coll/results)
[ -n "$nev" ] && [ "$nev" -gt 0 ] && ok "/timeline/events has $nev rows" || not_ok "no /timeline/events rows: '$nev'"

# ---- the whole trace, and the CSV of the same file ----
"$SCALEPROBE" export "$f" --chrome "$TMP/all.json" --csv "$TMP/csv" >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" -eq 0 ] && [ ! -s "$TMP/err" ] && ok "export --chrome --csv: exit 0, nothing on stderr" ||
  { not_ok "export: rc=$rc"; cat "$TMP/err"; }

python3 - "$TMP/all.json" "$TMP/csv/events.csv" "$nev" >"$TMP/py" 2>&1 <<'EOF'
import csv, json, sys
from collections import Counter
trace = json.load(open(sys.argv[1], encoding="utf-8"))  # fails on invalid JSON
nev = int(sys.argv[3])
ev = trace["traceEvents"]
x = [e for e in ev if e["ph"] == "X"]
meta = [e for e in ev if e["ph"] == "M"]
problems = []
def check(cond, what):
    if not cond:
        problems.append(what)
check(trace.get("displayTimeUnit") == "ns", "displayTimeUnit is not ns")
# DevTools' trace parser requires "cat" on every event, metadata included (issue 21)
check(all(isinstance(e.get("cat"), str) for e in ev), "an event without cat")
check(len(x) == nev, f"{len(x)} X events for {nev} timeline rows")
pn = Counter(e["pid"] for e in meta if e["name"] == "process_name")
check(sorted(pn) == [0, 1, 2, 3] and set(pn.values()) == {1}, f"process_name per pid: {dict(pn)}")
check(all(e["args"]["name"].startswith(f"rank {e['pid']} (") for e in meta
          if e["name"] == "process_name"), "process names are not 'rank R (host)'")
si = {e["pid"]: e["args"]["sort_index"] for e in meta if e["name"] == "process_sort_index"}
check(si == {r: r for r in range(4)}, f"process_sort_index: {si}")
lanes_seen = {(e["pid"], e["tid"]) for e in x}
tn = Counter((e["pid"], e["tid"]) for e in meta if e["name"] == "thread_name")
check(set(tn) == lanes_seen and set(tn.values()) == {1},
      f"thread_name per (rank, lane): {dict(tn)} for lanes {sorted(lanes_seen)}")
check(all(isinstance(e["ts"], (int, float)) and e["ts"] >= 0 for e in x), "negative or missing ts")
check(all(isinstance(e["dur"], (int, float)) and e["dur"] >= 0 for e in x), "negative or missing dur")
check(min(e["ts"] for e in x) == 0, "ts does not start at 0 for the earliest event")
check(all(e["cat"] == "coll" and e["name"] in ("all_reduce", "all_gather") for e in x),
      "a sweep event is not a coll event named after its collective")
check(all({"bytes", "nops", "seq", "step", "dtype"} <= set(e["args"]) and
          "microbatch" not in e["args"] for e in x), "args: missing fields or -1 labels present")
# values: every event's ts/dur are its CSV start/end (ns) relative to the earliest start
rows = list(csv.DictReader(open(sys.argv[2])))
check(len(rows) == nev, f"events.csv has {len(rows)} rows for {nev} events")
t0 = min(int(r["start_ns"]) for r in rows)
want = {(int(r["rank"]), int(r["seq"])): ((int(r["start_ns"]) - t0) / 1000.0,
                                         (int(r["end_ns"]) - int(r["start_ns"])) / 1000.0)
        for r in rows}
got = {(e["pid"], e["args"]["seq"]): (e["ts"], e["dur"]) for e in x}
bad = [k for k in want if k not in got or abs(got[k][0] - want[k][0]) > 5e-4 or
       abs(got[k][1] - want[k][1]) > 5e-4]
check(not bad, f"{len(bad)} events whose ts/dur do not match events.csv, e.g. {bad[:3]}")
check({r["kind"] for r in rows} == {"coll"} and {r["dtype"] for r in rows} == {"float"},
      "events.csv enum columns are not names")
print("\n".join(problems) if problems else "fine")
sys.exit(1 if problems else 0)
EOF
[ $? -eq 0 ] && ok "trace: valid JSON, one X per event, named ranks and lanes, ts/dur match the CSV" ||
  { not_ok "trace checks"; sed 's/^/     | /' "$TMP/py"; }

# CSV row counts: a header line plus one line per row
lines() { wc -l <"$1" | tr -d ' '; }
for pair in "events.csv:$((nev + 1))" "clock.csv:5" "ranks.csv:5" "coll_results.csv:$((nres + 1))"; do
  name=${pair%%:*}
  want=${pair#*:}
  got=$(lines "$TMP/csv/$name" 2>/dev/null)
  [ "$got" = "$want" ] && ok "$name: $got lines" || not_ok "$name: '$got' lines, expected $want"
done
head -1 "$TMP/csv/coll_results.csv" | grep -qx 'op,dtype,redop,in_place,placement,root,bytes,count,samples,batch,converged,drift,time_us,mean_us,stddev_us,min_us,max_us,p99_us,ci_lo_us,ci_hi_us,ci_rel,algbw_gbps,busbw_gbps,wrong,wrong_ranks,late_rank,late_margin_us,late_p,slowest_rank,slowest_margin,lag1,n_eff,trend_p,trend_rel,elapsed_s,cycle' &&
  ok "coll_results.csv header" || not_ok "coll_results.csv header: $(head -1 "$TMP/csv/coll_results.csv")"
awk -F, 'NR > 1 && !($1 == "all_reduce" && $3 == "sum" || $1 == "all_gather" && $3 == "none") { bad = 1 }
         END { exit bad }' "$TMP/csv/coll_results.csv" && ok "coll_results.csv: op and redop as names" ||
  not_ok "coll_results.csv op/redop columns"
# every numeric column of the CSV equals the file's /coll/results (NaN as empty)
/usr/bin/python3 - "$f" "$TMP/csv/coll_results.csv" >"$TMP/py" 2>&1 <<'EOF'
import csv, math, sys
import h5py
rows = h5py.File(sys.argv[1], "r")["/coll/results"][()]
out = list(csv.DictReader(open(sys.argv[2])))
skip = {"op", "dtype", "redop", "placement", "cycle"}  # cycle: not a column of the file
bad = []
for i, (h, c) in enumerate(zip(rows, out)):
    for k, v in c.items():
        if k in skip:
            continue
        want = float(h[k])
        got = float(v) if v not in ("", "nan") else math.nan
        if not (math.isnan(want) and math.isnan(got)) and abs(got - want) > 1e-6 * max(1.0, abs(want)):
            bad.append((i, k, want, got))
print(f"{len(out)} rows x {len(out[0]) - len(skip)} numeric columns, {len(bad)} differ {bad[:3]}")
sys.exit(len(out) != len(rows) or bool(bad))
EOF
[ $? -eq 0 ] && ok "coll_results.csv: every numeric column equals /coll/results ($(cat "$TMP/py"))" ||
  { not_ok "coll_results.csv values"; sed 's/^/     | /' "$TMP/py"; }
grep -q "^0,0,0,4,$(hostname)," "$TMP/csv/ranks.csv" && ok "ranks.csv has rank 0 on this host" ||
  not_ok "ranks.csv: $(sed -n 2p "$TMP/csv/ranks.csv")"

# ---- --ranks: only the chosen ranks, every one of their events ----
"$SCALEPROBE" export "$f" --ranks 1,3 --chrome "$TMP/sub.json" --csv "$TMP/sub" >/dev/null 2>&1
python3 - "$TMP/sub.json" "$TMP/all.json" <<'EOF' >"$TMP/py" 2>&1
import json, sys
sub = json.load(open(sys.argv[1]))["traceEvents"]
full = json.load(open(sys.argv[2]))["traceEvents"]
pids = {e["pid"] for e in sub}
nx = sum(e["ph"] == "X" for e in sub)
want = sum(e["ph"] == "X" and e["pid"] in (1, 3) for e in full)
ok = pids == {1, 3} and nx == want and nx > 0
print(f"pids {sorted(pids)}, {nx} X events, {want} expected")
sys.exit(0 if ok else 1)
EOF
[ $? -eq 0 ] && ok "--ranks 1,3: only pids 1 and 3, all their events ($(cat "$TMP/py"))" ||
  { not_ok "--ranks 1,3"; cat "$TMP/py"; }
[ "$(cut -d, -f1 "$TMP/sub/events.csv" | sort -u | tr '\n' ' ')" = "1 3 rank " ] &&
  [ "$(lines "$TMP/sub/ranks.csv")" = 3 ] && [ "$(lines "$TMP/sub/clock.csv")" = 3 ] &&
  ok "--ranks 1,3 --csv: events, ranks and clock rows of ranks 1 and 3 only" ||
  not_ok "--ranks 1,3 --csv: ranks $(cut -d, -f1 "$TMP/sub/events.csv" | sort -u | tr '\n' ' ')"

# ---- strings are escaped: a file name with a quote, a backslash and a tab ----
odd="$TMP/we\"ird\\na	me.h5"
cp "$f" "$odd"
"$SCALEPROBE" export "$odd" --ranks 0 --chrome "$TMP/odd.json" >/dev/null 2>&1
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d["otherData"]["source"] != sys.argv[2])' \
  "$TMP/odd.json" "$odd" && ok "JSON strings escaped (path with quote, backslash, tab)" ||
  not_ok "JSON with an odd file name is invalid or wrong"

# ---- --force overwrites, without it nothing changes ----
sum=$(md5sum <"$TMP/all.json")
"$SCALEPROBE" export "$f" --ranks 0 --chrome "$TMP/all.json" --force >/dev/null 2>&1
rc=$?
[ "$rc" -eq 0 ] && [ "$(md5sum <"$TMP/all.json")" != "$sum" ] && ok "--force overwrites" ||
  not_ok "--force: rc=$rc"
"$SCALEPROBE" export "$f" --csv "$TMP/csv" --force >/dev/null 2>&1 && ok "--force into an existing CSV dir" ||
  not_ok "--force --csv"
[ -z "$(find "$TMP" -name '*.tmp*')" ] && ok "no temporary files left" || not_ok "temporary files left"

# ---- a file without a timeline (older files are valid): empty export, exit 0 ----
sp_mpirun 2 coll -b 64 -e 64 -n 3 --timeline-events 0 -O "$TMP/old.h5" >/dev/null 2>&1
"$SCALEPROBE" export "$TMP/old.h5" --chrome "$TMP/old.json" --csv "$TMP/old" >/dev/null 2>"$TMP/err"
rc=$?
[ "$rc" -eq 0 ] && [ "$(lines "$TMP/old/events.csv")" = 1 ] && grep -q 'no /timeline' "$TMP/err" &&
  python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["traceEvents"]; sys.exit(any(x["ph"]=="X" for x in e))' "$TMP/old.json" &&
  ok "no /timeline: exit 0, header-only events.csv, trace without events, a note why" ||
  not_ok "no /timeline: rc=$rc $(cat "$TMP/err")"

# ---- bad input: exit 2, one line, nothing written ----
echo "not a result file" >"$TMP/junk.txt"
cp "$TMP/all.json" "$TMP/existing.json"
cases=(
  "export"
  "export $f"
  "export $TMP/missing.h5 --chrome @OUT@"
  "export $TMP/junk.txt --chrome @OUT@"
  "export $f --chrome @OUT@ --ranks 0-4"
  "export $f --chrome @OUT@ --ranks 2-1"
  "export $f --chrome @OUT@ --ranks 1,,2"
  "export $f --chrome @OUT@ --ranks one"
  "export $f --chrome @OUT@ --ranks"
  "export $f --chrome $TMP/existing.json"
  "export $f --chrome @OUT@ --csv $TMP/csv"
  "export $f --csv $TMP/junk.txt"
  "export $f --chrome @OUT@ --bogus"
  "export $f $f --chrome @OUT@"
  "export $f --chrome /dev/null/sub/x.json"
  "export $f --csv /dev/null/sub"
)
i=0
for c in "${cases[@]}"; do
  i=$((i + 1))
  path="$TMP/bad$i.json"
  args=${c//@OUT@/$path}
  sum=$(cat "$TMP/existing.json" "$TMP/csv/events.csv" | md5sum)
  # shellcheck disable=SC2086
  "$SCALEPROBE" $args >"$TMP/stdout" 2>"$TMP/stderr"
  rc=$?
  nlines=$(lines "$TMP/stderr")
  if [ "$rc" -eq 2 ] && [ "$nlines" -eq 1 ] && grep -q '^scaleprobe export: error: ' "$TMP/stderr" &&
    [ ! -e "$path" ] && [ "$(cat "$TMP/existing.json" "$TMP/csv/events.csv" | md5sum)" = "$sum" ]; then
    ok "exit 2, one line: scaleprobe $args -> $(cat "$TMP/stderr")"
  else
    not_ok "scaleprobe $args: rc=$rc lines=$nlines written=$([ -e "$path" ] && echo yes || echo no)"
    sed 's/^/     | /' "$TMP/stderr"
  fi
done
finish
