#!/usr/bin/env bash
# pandas (and h5py) read every export of a sweep, a proxy and a node file with no project code:
# enum columns are names, per-rank rows are there (coll_rank_times.csv, proxy_ranks.csv), a -N 2
# sweep's rows carry their cycle (the join key with the per-rank rows), every
# column's units are in columns.csv, lanes have the proxy's names, a file gets only the CSVs of
# the data it has (no coll CSV for a proxy file), and the HDF5 datasets carry units and
# description attributes (docs/SCHEMA.md, "Units and descriptions").
source "$(dirname "$0")/lib.sh"

sp_mpirun 2 coll --collectives all_reduce,broadcast -b 1K -e 16K -f 4 -n 8 -k 1 --place both \
  -N 2 -O "$TMP/c.h5" >/dev/null 2>&1 &&
  sp_mpirun 4 proxy --hidden 256 --ffn 1024 --heads 8 --seq 64 --layers 4 --vocab 512 \
    --tflops 5 --pp 2 --dp 2 --steps 2 -O "$TMP/p.h5" >/dev/null 2>&1 &&
  sp_mpirun 2 node --backend host --mem-mib 4 --gemm-n 64 -d float --max-samples 10 \
    --max-time 0.3 -O "$TMP/n.h5" >/dev/null 2>&1 || { not_ok "the three runs"; finish; }
for k in c p n; do
  "$SCALEPROBE" export "$TMP/$k.h5" --csv "$TMP/$k" --chrome "$TMP/$k.json" >"$TMP/$k.out" 2>&1 ||
    not_ok "export $k.h5: $(cat "$TMP/$k.out")"
done

# each "ok ..." line of the Python checks is a passed check, any other a failure
report() {
  while read -r verdict rest; do
    [ "$verdict" = ok ] && ok "${rest#- }" || not_ok "$verdict $rest"
  done <<<"$1"
}
report "$(/usr/bin/python3 - "$TMP" 2>&1 <<'PY'
import json, os, sys
import h5py
import pandas as pd

tmp = sys.argv[1]
def ok(msg): print("ok   - " + msg)
def bad(msg): print("FAIL - " + msg)
def check(cond, msg): (ok if cond else bad)(msg)
def units(d):
    c = pd.read_csv(os.path.join(tmp, d, "columns.csv"), keep_default_na=False)
    return {(f, col): u for f, col, u in zip(c.file, c.column, c.units)}

# --- sweep ---
c = lambda name: pd.read_csv(os.path.join(tmp, "c", name))
res, rt = c("coll_results.csv"), c("coll_rank_times.csv")
u = units("c")
check(set(res.op) == {"all_reduce", "broadcast"} and set(res.placement) == {"in_place", "out_of_place"}
      and res.dtype.dtype == object and set(res.dtype) == {"float"},
      "coll_results.csv: op, dtype, placement as names (%d rows)" % len(res))
check(set(res.redop[res.op == "broadcast"]) == {"none"} and set(res.root[res.op == "broadcast"]) == {0},
      "coll_results.csv: broadcast has redop none and root 0")
keys = ["op", "dtype", "redop", "placement", "root", "bytes"]
check(sorted(set(res.cycle)) == [0, 1] and res.groupby(keys).cycle.apply(list).map(lambda c: c == [0, 1]).all(),
      "coll_results.csv: the -N 2 sweep's rows carry cycle 0 and 1, each point once a cycle")
check(len(rt) == 2 * len(res) and sorted(set(rt["rank"])) == [0, 1]
      and rt.groupby(keys + ["cycle"]).size().eq(2).all() and (rt.time_us > 0).all()
      and rt.host.dtype == object,
      "coll_rank_times.csv: one row per point x cycle x rank (%d rows), keys, host, time_us > 0" % len(rt))
m = rt.merge(res[keys + ["cycle"]], on=keys + ["cycle"])
check(len(m) == len(rt),
      "coll_rank_times.csv keys and cycle join coll_results.csv (%d of %d rows)" % (len(m), len(rt)))
check(u[("coll_results.csv", "time_us")] == "us" and u[("coll_results.csv", "busbw_gbps")] == "GB/s"
      and u[("coll_rank_times.csv", "time_us")] == "us" and u[("events.csv", "start_ns")] == "ns"
      and u[("coll_results.csv", "elapsed_s")] == "s",
      "columns.csv: time_us us, busbw_gbps GB/s, start_ns ns, elapsed_s s")
check(set(u) >= {("coll_results.csv", col) for col in res.columns},
      "columns.csv lists every column of coll_results.csv")
with h5py.File(os.path.join(tmp, "c.h5")) as f:
    d = f["coll/results"]
    hu = json.loads(d.attrs["units"])
    r = f["coll/rank_times"]
    check(hu["time_us"] == "us" and hu["busbw_gbps"] == "GB/s" and list(hu) == list(d.dtype.names)
          and "point" in d.attrs["description"],
          "h5py: /coll/results units per column (time_us us, busbw_gbps GB/s) and description")
    check(r.attrs["units"] == "us" and r.attrs["dimension_labels"] == "row of /coll/results, rank",
          "h5py: /coll/rank_times units us, dimension_labels")

# --- proxy ---
files = sorted(os.listdir(os.path.join(tmp, "p")))
check(not any(x.startswith(("coll_", "links", "node_")) for x in files),
      "proxy export has no coll, links or node CSV: %s" % " ".join(files))
pr = pd.read_csv(os.path.join(tmp, "p", "proxy_ranks.csv"))
u = units("p")
check(len(pr) == 2 * 4 and sorted(set(pr["rank"])) == [0, 1, 2, 3] and sorted(set(pr.step)) == [0, 1]
      and {"stage", "dp", "tp", "step_ms", "bubble_frac", "dp_exposed_ms"} <= set(pr.columns),
      "proxy_ranks.csv: one row per rank per step (%d rows), %d columns" % (len(pr), len(pr.columns)))
check(u[("proxy_ranks.csv", "step_ms")] == "ms" and u[("proxy_ranks.csv", "bubble_frac")] == "fraction",
      "columns.csv: step_ms ms, bubble_frac fraction")
ev = pd.read_csv(os.path.join(tmp, "p", "events.csv"))
lanes = set(ev.lane_name)
check("compute" in lanes and any(l.startswith("pp_") for l in lanes) and "dp" in lanes
      and "emb" in lanes,
      "events.csv lane names: %s" % " ".join(sorted(lanes)))
tr = json.load(open(os.path.join(tmp, "p.json")))
names = {e["args"]["name"] for e in tr["traceEvents"] if e.get("name") == "thread_name"}
check("compute (lane 0)" in names and not any(n.startswith("lane ") for n in names),
      "trace thread names: %s" % ", ".join(sorted(names)[:4]))
with h5py.File(os.path.join(tmp, "p.h5")) as f:
    d = f["proxy/ranks"]
    hu = json.loads(d.attrs["units"])
    check(hu["step_ms"] == "ms" and hu["rank"] == "", "h5py: /proxy/ranks units (step_ms ms)")

# --- node ---
files = sorted(os.listdir(os.path.join(tmp, "n")))
nr = pd.read_csv(os.path.join(tmp, "n", "node_results.csv"))
check("coll_results.csv" not in files and len(nr) > 0 and nr.kind.dtype == object
      and "triad" in set(nr.kind) and nr.dtype.dtype == object and nr.units.notna().all(),
      "node_results.csv: kind and dtype as names, units column (%d rows; files %s)"
      % (len(nr), " ".join(files)))
PY
)"
finish
