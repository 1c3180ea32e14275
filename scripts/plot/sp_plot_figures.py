# scaleprobe-plot's reading of result files and its pictures (matplotlib, Agg): bandwidth
# and latency curves, B/A ratios, per-rank and bubble heat maps, timelines. Imported by
# scripts/plot/scaleprobe-plot; docs/METHODOLOGY.md "Pictures" says what each draws.

import io
import math
import os
import sys

MISSING = ("scaleprobe-plot: error: %s (install python3-h5py and python3-matplotlib, or run "
           "scripts/install-deps.sh)\n")
try:
    import h5py
    import numpy as np
except ImportError as exc:  # the Debian package python3-h5py
    sys.stderr.write(MISSING % exc)
    sys.exit(2)

# matplotlib is imported when the first picture is drawn (by pyplot()): it takes most of the
# start-up time, which a command refused for bad input does not need to pay
plt = None
Patch = None


def pyplot():
    global plt, Patch
    if plt is None:
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot
            from matplotlib.patches import Patch as patch
        except ImportError as exc:  # the Debian package python3-matplotlib
            sys.stderr.write(MISSING % exc)
            sys.exit(2)
        plt, Patch = matplotlib.pyplot, patch
    return plt

PROG = "scaleprobe-plot"
SCHEMA_VERSION = 1

# Enum values of the schema (docs/SCHEMA.md), used when a file's enum type cannot be read.
COLLECTIVES = ["all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "alltoall",
               "sendrecv", "gather", "scatter", "alltoallv"]
# one colour per collective (by its enum value: the same in every picture), twelve colours that
# stay apart on white; one line style per placement
COLL_COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
                "#17becf", "#bcbd22", "#000000", "#7f7f7f", "#aec7e8"]
PLACE_STYLE = {0: "-", 1: "--"}
PLACE_NAME = {0: "out-of-place", 1: "in-place"}
FILE_MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]
DTYPES = ["int8", "uint8", "int32", "uint32", "int64", "uint64", "half", "float", "double",
          "bfloat16", "f8e4m3", "f8e5m2"]
REDOPS = ["sum", "prod", "max", "min", "avg", "mulsum"]
EVENT_KINDS = ["coll", "batch", "compute", "send", "recv", "forward", "backward", "wgrad"]

# Timeline categories: (name, colour); the proxy's lanes (SCHEMA.md /timeline) map onto them.
CATEGORIES = [
    ("forward", "#4c72b0"),
    ("backward", "#2a3f6e"),
    ("wgrad", "#8fa8d6"),
    ("compute", "#6b8fd1"),
    ("TP collective", "#dd8452"),
    ("PP send", "#55a868"),
    ("PP recv", "#a6d8a0"),
    ("DP collective", "#c44e52"),
    ("FSDP gather", "#8172b3"),
    ("embedding grad", "#937860"),
]
CAT_COLOUR = dict(CATEGORIES)
# sub-rows of a rank's row in a proxy timeline, top to bottom
PROXY_ROWS = ["compute", "TP", "PP", "DP"]

# at most this many events are read per rank for a timeline, whatever the window
MAX_EVENTS_PER_RANK = 200000
READ_BATCH = 65536


class InputError(Exception):
    """Bad user input: one message, exit 2."""


# ---- reading ----


def text(value):
    """An attribute or table string as str (fixed-length strings come back as bytes)."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, np.ndarray) and value.shape == ():
        return text(value[()])
    return str(value)


def attr(obj, name, default=""):
    return text(obj.attrs[name]) if name in obj.attrs else default


def open_result(path):
    """Open a scaleprobe result file of this schema; InputError when it is not one."""
    if not os.path.exists(path):
        raise InputError("%s: no such file" % path)
    if not os.path.isfile(path) or not os.access(path, os.R_OK):
        raise InputError("%s: cannot be read" % path)
    try:
        if not h5py.is_hdf5(path):
            raise InputError("%s: not an HDF5 file" % path)
        f = h5py.File(path, "r")
    except OSError as exc:
        raise InputError("%s: cannot be opened: %s" % (path, exc)) from None
    if attr(f, "format") != "scaleprobe":
        f.close()
        raise InputError("%s: not a scaleprobe result file" % path)
    try:
        version = int(f.attrs.get("schema_version", -1))
    except (TypeError, ValueError):
        version = -1
    if version != SCHEMA_VERSION:
        f.close()
        raise InputError("%s: schema version %d expected, the file has %d" %
                         (path, SCHEMA_VERSION, version))
    return f


def kind(f):
    """"coll", or "proxy" for files of the proxy's schema: `proxy` and `predict` (a predicted
    step, /proxy attribute predicted = 1) write the same layout."""
    k = attr(f, "subcommand", "?")
    return "proxy" if k == "predict" else k


def enum_names(dataset, column, fallback):
    """value -> name of an enum column, from the file's own enum type."""
    mapping = h5py.check_enum_dtype(dataset.dtype[column])
    if mapping:
        return {int(v): k for k, v in mapping.items()}
    return dict(enumerate(fallback))


def label_of(path):
    base = os.path.basename(path)
    return base[:-3] if base.endswith(".h5") else base


class Sweep:
    """/coll/results of a sweep file, with the enum columns as names."""

    def __init__(self, path, f):
        if kind(f) != "coll":
            raise InputError("%s: a %s file, not a collective sweep (coll) file" %
                             (path, kind(f)))
        if "coll/results" not in f:
            raise InputError("%s: no sweep points (the run stopped before its first point)" %
                             path)
        ds = f["coll/results"]
        self.rows = ds[:]
        self.path = path
        self.label = label_of(path)
        self.world = int(f.attrs.get("world_size", 0))
        self.op_name = enum_names(ds, "op", COLLECTIVES)
        self.dtype_name = enum_names(ds, "dtype", DTYPES)
        redops = enum_names(ds, "redop", REDOPS)
        redops.setdefault(-1, "none")
        self.redop_name = redops

    def name(self, row, column):
        table = {"op": self.op_name, "dtype": self.dtype_name, "redop": self.redop_name}[column]
        v = int(row[column])
        return table.get(v, str(v))


def sweep_curves(sweep, place, quantity="bw"):
    """Curves of one file: [(label, bytes, y, lo, hi, metric, op, in_place)] with one curve per
    collective (and per type, op, root and placement where the file holds several). quantity
    "bw": busbw is the stored column; with one rank, where busbw is NaN, the stored algbw. The CI
    band is the bandwidth at the stored CI bounds of the median time: bw x time / ci_hi .. bw x
    time / ci_lo. quantity "time": the median time_us with its stored CI ci_lo_us .. ci_hi_us."""
    rows = sweep.rows
    if len(rows) == 0:
        return []
    if place == "out":
        keep = rows["in_place"] == 0
        if not keep.any():  # --place in alone: show what there is
            keep = np.ones(len(rows), bool)
    elif place == "in":
        keep = rows["in_place"] == 1
        if not keep.any():
            keep = np.ones(len(rows), bool)
    else:
        keep = np.ones(len(rows), bool)
    rows = rows[keep & (rows["bytes"] > 0)]
    use_busbw = sweep.world > 1 and np.isfinite(rows["busbw_gbps"]).any()
    metric = "busbw_gbps" if use_busbw else "algbw_gbps"
    if quantity == "time":
        metric = "time_us"
    # a label names what varies: collectives without a reduction or a root (-1) do not count
    several = {c: len(set(v for v in rows[c].tolist() if c in ("dtype", "in_place") or v >= 0))
               > 1 for c in ("dtype", "redop", "root", "in_place")}
    # a sweep run with -N cycles has a row per point per cycle, in order: one curve per cycle
    groups, seen = {}, {}
    for r in rows:
        key = (int(r["op"]), int(r["dtype"]), int(r["redop"]), int(r["root"]), int(r["in_place"]))
        cycle = seen.get(key + (int(r["bytes"]),), 0)
        seen[key + (int(r["bytes"]),)] = cycle + 1
        groups.setdefault(key + (cycle,), []).append(r)
    cycles = max(seen.values(), default=1)
    curves = []
    for key in sorted(groups):
        g = sorted(groups[key], key=lambda r: int(r["bytes"]))
        parts = [sweep.op_name.get(key[0], str(key[0]))]
        if several["dtype"]:
            parts.append(sweep.dtype_name.get(key[1], str(key[1])))
        if several["redop"] and key[2] >= 0:
            parts.append(sweep.redop_name.get(key[2], str(key[2])))
        if several["root"] and key[3] >= 0:
            parts.append("root %d" % key[3])
        if several["in_place"]:
            parts.append("in-place" if key[4] else "out-of-place")
        if cycles > 1:
            parts.append("cycle %d of %d" % (key[5] + 1, cycles))
        size = np.array([float(r["bytes"]) for r in g])
        bw = np.array([float(r[metric]) for r in g])
        t = np.array([float(r["time_us"]) for r in g])
        lo_t = np.array([float(r["ci_lo_us"]) for r in g])
        hi_t = np.array([float(r["ci_hi_us"]) for r in g])
        if quantity == "time":
            lo, hi = lo_t, hi_t
        else:
            with np.errstate(divide="ignore", invalid="ignore"):
                lo = np.where(hi_t > 0, bw * t / hi_t, np.nan)
                hi = np.where(lo_t > 0, bw * t / lo_t, np.nan)
        curves.append((" ".join(parts), size, bw, lo, hi, metric, key[0], key[4]))
    return curves


def read_timeline(path, f, steps, max_ranks):
    """The events of the window: per rank, the events of the first `steps` proxy steps (sweep:
    the first `steps` sweep points; a point starts where the sample index does not grow), at most
    MAX_EVENTS_PER_RANK each, for ranks 0 .. max_ranks-1. Times stay on rank 0's clock, where
    the writer already put them (docs/METHODOLOGY.md "Clocks and the timeline")."""
    if "timeline/events" not in f or "timeline/ranks" not in f:
        raise InputError("%s: no timeline (a run that stopped before the end, or "
                         "--timeline-events 0)" % path)
    ds = f["timeline/events"]
    kinds = enum_names(ds, "kind", EVENT_KINDS)
    ops = enum_names(ds, "op", COLLECTIVES)
    ops.setdefault(-1, "none")
    table = f["timeline/ranks"][:]
    table = table[np.argsort(table["rank"], kind="stable")]
    world = int(f.attrs.get("world_size", len(table)))
    # the first max_ranks ranks that have a row (a predicted file has one rank per stage)
    shown = table[:max_ranks]
    columns = ["rank", "lane", "kind", "op", "step", "start_ns", "end_ns"]
    is_proxy = kind(f) == "proxy"
    out = []
    for row in shown:
        off, count = int(row["offset"]), int(row["count"])
        if off + count > ds.shape[0]:
            raise InputError("%s: /timeline/ranks points beyond /timeline/events" % path)
        got, point, prev_step = [], -1, None
        done = False
        for start in range(off, off + min(count, MAX_EVENTS_PER_RANK), READ_BATCH):
            stop = min(start + READ_BATCH, off + min(count, MAX_EVENTS_PER_RANK))
            ev = ds.fields(columns)[start:stop]
            if is_proxy:
                sel = ev[ev["step"] < steps]
                got.append(sel)
                # a rank records its steps in order: a batch wholly past the window ends it
                if len(ev) and ev["step"].min() >= steps:
                    done = True
            else:
                # the sample index grows within a point, so a point starts where it does not
                st = ev["step"].astype(np.int64)
                prev = np.concatenate(([prev_step if prev_step is not None else np.iinfo(
                    np.int64).max], st[:-1]))
                points = point + np.cumsum(st <= prev)
                prev_step = int(st[-1]) if len(st) else prev_step
                point = int(points[-1]) if len(points) else point
                got.append(ev[points < steps])
                done = point >= steps
            if done:
                break
        if got:
            out.append(np.concatenate(got))
    events = np.concatenate(out) if out else np.zeros(0, ds.fields(columns)[0:0].dtype)
    clock_err_ns = int(f["timeline"].attrs.get("clock_err_ns", 0))
    return events, kinds, ops, world, [int(r) for r in shown["rank"]], len(table), clock_err_ns


def proxy_rows(path, f):
    if kind(f) != "proxy":
        raise InputError("%s: a %s file, not a training proxy file" % (path, kind(f)))
    if "proxy/ranks" not in f:
        raise InputError("%s: no /proxy/ranks (the run failed before the proxy started)" % path)
    rows = f["proxy/ranks"][:]
    if len(rows) == 0:
        raise InputError("%s: no measured steps" % path)
    return rows


def nanmean(values):
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    return float(v.mean()) if len(v) else float("nan")


def bubble_grid(rows, column="bubble_frac"):
    """stage x step mean of a column (bubble_frac) over the ranks of the stage (NaN skipped)."""
    stages, si = np.unique(rows["stage"], return_inverse=True)
    steps, ki = np.unique(rows["step"], return_inverse=True)
    frac = rows[column].astype(float)
    good = np.isfinite(frac)
    total = np.zeros((len(stages), len(steps)))
    count = np.zeros((len(stages), len(steps)))
    np.add.at(total, (si[good], ki[good]), frac[good])
    np.add.at(count, (si[good], ki[good]), 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        grid = np.where(count > 0, total / count, np.nan)
    return stages.tolist(), steps.tolist(), grid


# ---- pictures ----


def size_label(nbytes):
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if nbytes >= scale:
            v = nbytes / scale
            return ("%d %s" % (v, unit)) if v == int(v) else ("%.3g %s" % (v, unit))
    return "%d B" % nbytes


def coll_colour(op):
    return COLL_COLOURS[op % len(COLL_COLOURS)] if op >= 0 else "#777777"


def size_axis(ax, smallest, largest):
    """x: message size on a log2 axis with byte-unit labels."""
    ax.set_xscale("log", base=2)
    lo_exp = int(math.floor(math.log2(smallest)))
    hi_exp = int(math.ceil(math.log2(largest)))
    stride = max(1, (hi_exp - lo_exp + 11) // 12)
    ticks = [2.0 ** e for e in range(lo_exp, hi_exp + 1, stride)]
    ax.set_xticks(ticks)
    ax.set_xticklabels([size_label(int(t)) for t in ticks], rotation=45, ha="right")
    ax.minorticks_off()
    ax.set_xlabel("message size (the size column: max(send, receive) bytes per rank)")


def plot_vs_size(sweeps, out, place, quantity="bw"):
    """Bandwidth (quantity "bw") or latency ("time") against size, both axes logarithmic: one
    colour per collective, one line style per placement, one marker per file, 95% CI bands."""
    curves = [(i, s, c) for i, s in enumerate(sweeps) for c in sweep_curves(s, place, quantity)]
    if not curves:
        raise InputError("no sweep point with a size above 0 bytes to plot in %s" %
                         ", ".join(s.path for s in sweeps))
    pyplot()
    fig, ax = plt.subplots(figsize=(9, 5.5), dpi=100)
    prefix = len(sweeps) > 1
    metrics = set()
    smallest, largest = math.inf, 0.0
    for i, sweep, (name, size, y, lo, hi, metric, op, in_place) in curves:
        metrics.add(metric)
        lab = "%s: %s" % (sweep.label, name) if prefix else name
        colour = coll_colour(op)
        ax.plot(size, y, marker=FILE_MARKERS[i % len(FILE_MARKERS)], markersize=4, label=lab,
                color=colour, linestyle=PLACE_STYLE.get(in_place, ":"))
        band = np.isfinite(lo) & np.isfinite(hi) & (lo > 0)
        if band.any():
            ax.fill_between(size[band], lo[band], hi[band], color=colour, alpha=0.15,
                            linewidth=0)
        smallest, largest = min(smallest, size.min()), max(largest, size.max())
    size_axis(ax, smallest, largest)
    ax.set_yscale("log")
    if quantity == "time":
        ax.set_ylabel("time per operation, median over samples (us)")
        what = "latency"
    elif metrics == {"busbw_gbps"}:
        ax.set_ylabel("bus bandwidth (GB/s)")
        what = "bandwidth"
    elif metrics == {"algbw_gbps"}:
        ax.set_ylabel("algorithm bandwidth (GB/s; busbw is not defined with one rank)")
        what = "bandwidth"
    else:
        ax.set_ylabel("bus bandwidth, algbw for one-rank files (GB/s)")
        what = "bandwidth"
    ax.grid(True, which="both", alpha=0.3)
    ax.set_title("%s against size (band: %s; solid out-of-place, dashed in-place)" % (
        what, "95% CI of the median" if quantity == "time" else "at the 95% CI of the median time"))
    if len(curves) > 8:  # many lines: the legend beside the axes, not over them
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
        fig.set_size_inches(12, 5.5)
    else:
        ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    save(fig, out)


def plot_busbw(sweeps, out, place):
    plot_vs_size(sweeps, out, place, "bw")


def point_key(label):
    """(op, bytes, in_place) of a compare point label ("all_reduce 1024 B float sum in-place")."""
    words = label.split()
    try:
        nbytes = int(words[1])
    except (IndexError, ValueError):
        nbytes = 0
    op = COLLECTIVES.index(words[0]) if words and words[0] in COLLECTIVES else -1
    rest = " ".join(w for w in words[3:] if w != "in-place")
    return words[0] if words else "?", op, nbytes, 1 if "in-place" in words else 0, rest


def plot_ratio(result, out, title):
    """B/A per point from compare --json: the ratio with its 95% CI as an error bar, against
    size; one colour per collective, one line style per placement; 1 = no change."""
    curves = {}
    for p in result.get("points", []):
        name, op, nbytes, in_place, rest = point_key(text(p.get("point", "")))
        r, lo, hi = p.get("ratio"), p.get("ci_lo"), p.get("ci_hi")
        if nbytes <= 0 or not isinstance(r, (int, float)):
            continue
        lo = lo if isinstance(lo, (int, float)) else r
        hi = hi if isinstance(hi, (int, float)) else r
        curves.setdefault((op, name, rest, in_place), []).append((nbytes, r, lo, hi))
    if not curves:
        raise InputError("compare found no matching point with a size above 0 bytes")
    pyplot()
    fig, ax = plt.subplots(figsize=(9, 5.5), dpi=100)
    smallest, largest = math.inf, 0.0
    for k, ((op, name, rest, in_place), pts) in enumerate(sorted(curves.items())):
        pts.sort()
        # curves side by side around each size (a few percent apart), so every CI shows
        x = np.array([q[0] for q in pts], float) * 2.0 ** (0.06 * (k - (len(curves) - 1) / 2))
        y = np.array([q[1] for q in pts], float)
        err = np.array([[max(q[1] - q[2], 0) for q in pts], [max(q[3] - q[1], 0) for q in pts]])
        ax.errorbar(x, y, yerr=err, color=coll_colour(op), linestyle=PLACE_STYLE[in_place],
                    marker="o", markersize=4, capsize=3,
                    label="%s %s %s" % (name, rest, PLACE_NAME[in_place]))
        smallest, largest = min(smallest, x.min()), max(largest, x.max())
    ax.axhline(1.0, color="#444444", linewidth=1)
    size_axis(ax, smallest, largest)
    ax.set_yscale("log")
    ax.set_ylabel("B/A time ratio with 95% CI (log; above 1: B slower)")
    ax.grid(True, which="both", alpha=0.3)
    ax.set_title(title)
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    save(fig, out)


def plot_ranks(sweep, f, out):
    """Per-rank heat map: each rank's own median time per point (/coll/rank_times) over the
    median of the ranks at that point; a slow rank is a red row."""
    if "coll/rank_times" not in f:
        raise InputError("%s: no /coll/rank_times" % sweep.path)
    times = f["coll/rank_times"][:len(sweep.rows)].astype(float)
    keep = [i for i in range(len(times)) if int(sweep.rows[i]["bytes"]) > 0]
    if not keep:
        raise InputError("%s: no sweep point with a size above 0 bytes" % sweep.path)
    times = times[keep]
    with np.errstate(invalid="ignore", divide="ignore"):
        rel = times / np.nanmedian(times, axis=1, keepdims=True)
    pyplot()
    import matplotlib.colors as mcolors
    nranks, npoints = times.shape[1], len(keep)
    fig, ax = plt.subplots(figsize=(min(4 + 0.35 * npoints, 30), min(2.5 + 0.3 * nranks, 40)),
                           dpi=100)
    finite = rel[np.isfinite(rel)]
    spread = max(0.05, float(np.abs(finite - 1).max()) if len(finite) else 0.05)
    norm = mcolors.TwoSlopeNorm(vmin=max(1 - spread, 0), vcenter=1.0, vmax=1 + spread)
    im = ax.imshow(np.ma.masked_invalid(rel.T), aspect="auto", cmap="RdBu_r", norm=norm,
                   interpolation="nearest")
    labels = []
    for i in keep:
        r = sweep.rows[i]
        labels.append("%s %s%s" % (sweep.name(r, "op"), size_label(int(r["bytes"])),
                                   " ip" if int(r["in_place"]) else ""))
    ax.set_xticks(range(npoints))
    ax.set_xticklabels(labels, rotation=60, ha="right", fontsize=7)
    stride = max(1, nranks // 32)
    ax.set_yticks(range(0, nranks, stride))
    ax.set_yticklabels(["rank %d" % r for r in range(0, nranks, stride)], fontsize=7)
    if npoints * nranks <= 400:
        for j in range(npoints):
            for r in range(nranks):
                if np.isfinite(rel[j, r]):
                    ax.text(j, r, "%.2f" % rel[j, r], ha="center", va="center", fontsize=6)
    fig.colorbar(im, ax=ax, label="rank's median / median over ranks")
    ax.set_title("per-rank time of %s (/coll/rank_times; ip: in-place)" % sweep.label)
    fig.tight_layout()
    save(fig, out)


def category(kind_name, lane, op_name):
    """(sub-row, category) of a proxy event, by its lane (SCHEMA.md /timeline)."""
    if lane == 0:
        return "compute", kind_name if kind_name in CAT_COLOUR else "compute"
    if lane == 1:
        return "TP", "TP collective"
    if 2 <= lane <= 7 or lane in (10, 11):
        return "PP", "PP send" if kind_name == "send" else "PP recv"
    if lane == 9:
        return "DP", "FSDP gather"
    if lane == 12:  # the embedding group's all-reduce (tied embeddings, first + last stage)
        return "DP", "embedding grad"
    return "DP", "DP collective"


def plot_timeline(path, f, out, steps, max_ranks):
    events, kinds, ops, world, ranks, nlisted, clock_err_ns = read_timeline(path, f, steps,
                                                                            max_ranks)
    nshown = len(ranks)
    row_of = {r: i for i, r in enumerate(ranks)}
    if len(events) == 0:
        raise InputError("%s: the timeline has no events in the window" % path)
    pyplot()
    is_proxy = kind(f) == "proxy"
    t0 = int(events["start_ns"].min())
    start_ms = (events["start_ns"] - t0) / 1e6
    dur_ms = np.maximum((events["end_ns"] - events["start_ns"]) / 1e6, 0.0)
    # a 2 us batch in a 20 ms window is narrower than a pixel: draw every bar at least
    # 1/800 of the window wide, so that every event shows
    span_ms = max(float((start_ms + dur_ms).max()), 1e-6)
    min_ms = span_ms / 800.0
    dur_ms = np.maximum(dur_ms, min_ms)
    sub = PROXY_ROWS if is_proxy else ["coll"]
    nsub = len(sub)
    height = min(3 + 0.22 * nshown * nsub, 60)
    fig, ax = plt.subplots(figsize=(12, height), dpi=100)
    bars = {}
    colours = dict(CAT_COLOUR)
    if not is_proxy:
        cmap = plt.get_cmap("tab10")
        for i, name in enumerate(COLLECTIVES):
            colours[name] = cmap(i % 10)
    for i in range(len(events)):
        rank = int(events["rank"][i])
        kname = kinds.get(int(events["kind"][i]), "?")
        if is_proxy:
            row, cat = category(kname, int(events["lane"][i]), None)
        else:
            row, cat = "coll", ops.get(int(events["op"][i]), "coll")
            colours.setdefault(cat, "#777777")
        y = row_of[rank] * nsub + sub.index(row)
        bars.setdefault((cat, y), []).append((start_ms[i], dur_ms[i]))
    for (cat, y), spans in bars.items():
        ax.broken_barh(spans, (y + 0.1, 0.8), facecolors=colours[cat], edgecolor="none")
    ax.set_ylim(nshown * nsub, 0)
    if is_proxy:
        coords = proxy_coords(f)
        ax.set_yticks([i * nsub + nsub / 2 for i in range(nshown)])
        ax.set_yticklabels(["rank %d\n%s" % (r, coords.get(r, "")) for r in ranks], fontsize=8)
        for r in range(1, nshown):
            ax.axhline(r * nsub, color="#999999", linewidth=0.5)
        # step boundaries: where the step's first event starts, over the ranks shown
        for step in sorted(set(int(v) for v in events["step"] if v >= 0)):
            first = float(start_ms[events["step"] == step].min())
            ax.axvline(first, color="#333333", linestyle=":", linewidth=1)
            ax.text(first, 0, " step %d" % step, va="top", ha="left", fontsize=8)
    else:
        ax.set_yticks([i + 0.5 for i in range(nshown)])
        ax.set_yticklabels(["rank %d" % r for r in ranks])
    used = sorted({cat for cat, _ in bars}, key=lambda c: list(colours).index(c))
    ax.legend(handles=[Patch(color=colours[c], label=c) for c in used], fontsize=8,
              loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.set_xlabel("ms from the first event shown (rank 0's clock; clock error bound %.1f us; "
                  "bars drawn at least %.3g ms wide)" % (clock_err_ns / 1e3, min_ms))
    what = "measured step(s)" if is_proxy else "sweep point(s)"
    more = "" if nshown >= world else ", %d of %d ranks%s" % (
        nshown, world, "" if nshown == nlisted else " (%d on the timeline)" % nlisted)
    title = "timeline of %s: first %d %s%s" % (label_of(path), steps, what, more)
    if is_proxy:
        title += "\nrows per rank: " + ", ".join(PROXY_ROWS) + "; dotted: step starts"
    ax.set_title(title)
    ax.grid(True, axis="x", alpha=0.3)
    fig.tight_layout()
    save(fig, out)


def proxy_coords(f):
    """rank -> "stage s, dp d, tp t" from /proxy/ranks ({} without it)."""
    if "proxy/ranks" not in f:
        return {}
    rows = f["proxy/ranks"][:]
    return {int(r["rank"]): "stage %d, dp %d, tp %d" % (int(r["stage"]), int(r["dp"]), int(r["tp"]))
            for r in rows}


def plot_bubble(path, f, out):
    rows = proxy_rows(path, f)
    pyplot()
    stages, steps, grid = bubble_grid(rows)
    has_pred = "predicted_frac" in (rows.dtype.names or ())
    pred = bubble_grid(rows, "predicted_frac")[2] if has_pred else np.full(grid.shape, np.nan)
    fig, ax = plt.subplots(figsize=(max(7, 0.5 * len(steps) + 3), max(3, 0.5 * len(stages) + 2)),
                           dpi=100)
    im = ax.imshow(np.ma.masked_invalid(grid), aspect="auto", cmap="viridis", vmin=0.0, vmax=1.0,
                   interpolation="nearest")
    ax.set_yticks(range(len(stages)))
    ax.set_yticklabels([str(s) for s in stages])
    stride = max(1, len(steps) // 20)
    ax.set_xticks(range(0, len(steps), stride))
    ax.set_xticklabels([str(steps[j]) for j in range(0, len(steps), stride)])
    ax.set_xlabel("measured step")
    ax.set_ylabel("pipeline stage")
    if len(steps) * len(stages) <= 400:
        for i in range(len(stages)):
            for j in range(len(steps)):
                if np.isfinite(grid[i, j]):
                    label = "%.2f" % grid[i, j]
                    if np.isfinite(pred[i, j]):
                        label += "\npred %.2f" % pred[i, j]
                    ax.text(j, i, label, ha="center", va="center", fontsize=7,
                            color="white" if grid[i, j] < 0.6 else "black")
    fig.colorbar(im, ax=ax, label="bubble fraction")
    ax.set_title("bubble fraction of %s (mean over each stage's ranks)\nmeasured; pred: the "
                 "schedule's own bubble (predicted_frac)" % label_of(path))
    fig.tight_layout()
    save(fig, out)


def save(fig, out):
    """Write a figure to a path, or into a BytesIO (the HTML report)."""
    # what the axes are, in the PNG's Description (tests and scripts read it back)
    desc = "; ".join("%s: x %s, y %s" % (ax.get_title().split("\n")[0], ax.get_xscale(),
                                        ax.get_yscale()) for ax in fig.axes if ax.get_title())
    try:
        fig.savefig(out, format="png", metadata={"Description": desc})
    except OSError as exc:
        raise InputError("%s: cannot be written: %s" % (out, exc)) from None
    finally:
        plt.close(fig)


def png_bytes(draw, *args):
    buf = io.BytesIO()
    draw(*args, buf)
    return buf.getvalue()

