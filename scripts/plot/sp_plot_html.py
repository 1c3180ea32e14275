# scaleprobe-plot's self-contained HTML reports (one file; a comparison of two files or of runs
# --vs runs), built from the stored values and the pictures of sp_plot_figures.

import base64
import datetime
import html
import json
import math
import os
import shutil
import subprocess

from sp_plot_figures import (PROG, InputError, Sweep, attr, kind, label_of, nanmean,
                             plot_bubble, plot_busbw, plot_ranks, plot_ratio, plot_timeline,
                             plot_vs_size, png_bytes, point_key, proxy_rows, sweep_curves, text)

# ---- HTML ----

CSS = """
body { font-family: 'DejaVu Sans', sans-serif; margin: 24px; color: #222; max-width: 1400px; }
h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 28px; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; font-size: 13px; margin: 8px 0; }
th, td { border: 1px solid #ccc; padding: 3px 7px; text-align: right; }
th { background: #eef; } td.l, th.l { text-align: left; }
table.info td { text-align: left; } table.info td:first-child { font-weight: bold; }
tr.slower td { background: #f8d0d0; } tr.faster td { background: #d0f0d0; }
tr.noise td { background: #f4f4f4; } tr.bad td { background: #ffe2a8; }
code { font-size: 12px; word-break: break-all; } img { max-width: 100%; border: 1px solid #ddd; }
p.note { font-size: 12px; color: #555; }
pre { white-space: pre-wrap; font-size: 11px; background: #f6f6f6; padding: 6px; }
"""


def esc(value):
    return html.escape(text(value), quote=True)


def fmt(value, spec="%.2f", none="n/a"):
    if value is None:  # compare --json writes null for a number that is not finite
        return none
    try:
        v = float(value)
    except (TypeError, ValueError):
        return esc(value)
    return none if not math.isfinite(v) else spec % v


def img_tag(png, alt):
    return '<p><img alt="%s" src="data:image/png;base64,%s"></p>' % (
        esc(alt), base64.b64encode(png).decode("ascii"))


def table(header, rows, left=(), classes=None):
    """An HTML table; cells are escaped here, so callers pass plain text."""
    out = ["<table><tr>"]
    out += ['<th class="%s">%s</th>' % ("l" if i in left else "", esc(h))
            for i, h in enumerate(header)]
    out.append("</tr>")
    for k, row in enumerate(rows):
        cls = classes[k] if classes else ""
        out.append('<tr class="%s">' % esc(cls))
        out += ['<td class="%s">%s</td>' % ("l" if i in left else "", esc(c))
                for i, c in enumerate(row)]
        out.append("</tr>")
    out.append("</table>")
    return "".join(out)


def launch_line(f):
    """The line `scaleprobe report` prints from /launch (src/runtime/result_read.c)."""
    if "launch" not in f:
        return ""
    g = f["launch"]
    job = attr(g, "slurm_job_id")
    if job:
        return "%s, Slurm job %s (nodes %s, tasks per node %s), pml %s (%s)" % (
            attr(g, "launcher"), job, attr(g, "slurm_job_nodelist", "?"),
            attr(g, "slurm_tasks_per_node", "?"), attr(g, "pml"), attr(g, "pml_ranks"))
    return "%s, pml %s (%s)" % (attr(g, "launcher"), attr(g, "pml"), attr(g, "pml_ranks"))


def run_info(path, f):
    rows = [("file", path), ("command line", attr(f, "command_line")),
            ("created", "%s by scaleprobe %s (schema %s)" % (
                attr(f, "created"), attr(f, "tool_version"), attr(f, "schema_version"))),
            ("status", attr(f, "status")),
            ("ranks", "%s on %s node(s)" % (attr(f, "world_size"), attr(f, "node_count"))),
            ("backend", "%s (asked: %s)" % (attr(f, "backend"),
                                            attr(f["config"], "backend", "?")
                                            if "config" in f else "?"))]
    line = launch_line(f)
    if line:
        rows.append(("launched by", line))
    if "topology/ranks" in f:
        topo = f["topology/ranks"][:]
        hosts = sorted({text(h) for h in topo["host"]})
        devices = sorted({text(d) for d in topo["device"]})
        rows.append(("hosts", ", ".join(hosts[:16]) + (" ..." if len(hosts) > 16 else "")))
        rows.append(("devices", ", ".join(devices[:8])))
    if "fingerprint" in f:
        for k in sorted(f["fingerprint"].attrs):
            rows.append((k.replace("_", " "), attr(f["fingerprint"], k)))
    if "timeline" in f:
        rows.append(("timeline", "%s events, %s dropped, clock error bound %s ns" % (
            attr(f["timeline"], "events", "?"), attr(f["timeline"], "dropped", "?"),
            attr(f["timeline"], "clock_err_ns", "?"))))
    body = "".join("<tr><td>%s</td><td><code>%s</code></td></tr>" % (esc(k), esc(v))
                   for k, v in rows)
    return '<table class="info">%s</table>' % body


def col(r, name, default):
    """A column of a row, default where an older file lacks it."""
    return r[name] if name in r.dtype.names else default


def late_cell(r):
    """The late rank by arrival (the table's slow column), '-' when none is beyond the clock bound."""
    late = int(col(r, "late_rank", -1))
    if late < 0:
        return "-"
    return "%d (+%s us, p %.2g)" % (late, fmt(col(r, "late_margin_us", float("nan"))),
                                   float(col(r, "late_p", float("nan"))))


def sweep_table(sweep):
    header = ["collective", "size (B)", "count", "type", "redop", "root", "place", "samples",
              "time (us)", "algbw (GB/s)", "busbw (GB/s)", "95% CI of time (us)", "ci+-%",
              "#wrong", "late rank", "highest own median"]
    rows, classes = [], []
    for r in sweep.rows:
        wrong = int(r["wrong"])
        margin = float(r["slowest_margin"])
        mark = "~" if int(col(r, "drift", 0)) else ("" if r["converged"] else "!")
        rows.append([
            sweep.name(r, "op"), str(int(r["bytes"])), str(int(r["count"])),
            sweep.name(r, "dtype"), sweep.name(r, "redop"), str(int(r["root"])),
            "in" if r["in_place"] else "out", str(int(r["samples"])),
            fmt(r["time_us"]), fmt(r["algbw_gbps"]), fmt(r["busbw_gbps"]),
            "[%s, %s]" % (fmt(r["ci_lo_us"]), fmt(r["ci_hi_us"])),
            fmt(100.0 * float(r["ci_rel"])) + mark,
            "N/A" if wrong < 0 else str(wrong), late_cell(r),
            "%d (+%.1f%%)" % (int(r["slowest_rank"]), 100.0 * margin)])
        classes.append("bad" if wrong > 0 else "")
    note = ('<p class="note">Times are the median over samples of the maximum over ranks; the CI '
            "is the stored dependence-aware 95% interval of the median (batch medians; "
            "docs/METHODOLOGY.md, When to stop); <b>!</b> marks a point that did not meet the CI "
            "target, <b>~</b> one whose samples drifted. The late rank is the rank that arrived "
            "last most often beyond the clock bound (sign test, Bonferroni over ranks): the "
            "culprit. The highest own median names a rank that waited longest inside the call, "
            "usually a victim of the late rank.</p>")
    return table(header, rows, left=(0, 3, 4, 6), classes=classes) + note


def median_ci(values):
    """Median and the 95% order-statistic CI of docs/METHODOLOGY.md (None below 6 values)."""
    v = sorted(values)
    n = len(v)
    med = v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])
    l, cdf = 0, 0.0
    for k in range(0, n):
        if 2 * (k + 1) > n + 1:
            break
        cdf += math.comb(n, k) * 0.5 ** n
        if cdf > 0.025:
            break
        l = k + 1
    if n < 6 or l == 0:
        return med, None
    return med, (v[l - 1], v[n - l])


def proxy_sections(path, f, steps):
    rows = proxy_rows(path, f)
    info = f["proxy/info"][0] if "proxy/info" in f and len(f["proxy/info"]) else None
    g = f["proxy"]
    world = int(f.attrs.get("world_size", 0))
    step_ms = {}
    for r in rows:
        step_ms[int(r["step"])] = float(r["step_ms"])
    med, ci = median_ci(list(step_ms.values()))
    summary = [("schedule", attr(g, "schedule")), ("model", attr(g, "model")),
               ("data parallel mode", attr(g, "dp_mode")), ("dtype", attr(g, "dtype"))]
    if info is not None:
        summary.append(("layout", "dp %d x pp %d x tp %d = %d ranks, %d microbatches, %d chunk(s)"
                        % (info["dp"], info["pp"], info["tp"], world, info["microbatches"],
                           info["chunks"])))
        summary.append(("model shape", "layers %d, hidden %d, heads %d, ffn %d, seq %d, "
                        "micro-batch %d, vocab %d" % (info["layers"], info["hidden"],
                                                      info["heads"], info["ffn"], info["seq"],
                                                      info["micro_batch"], info["vocab"])))
    summary.append(("measured steps", str(len(step_ms))))
    summary.append(("step time", "median %.3f ms" % med + (
        ", 95%% CI [%.3f, %.3f]" % ci if ci else " (a 95% CI needs 6 steps)")))
    if info is not None and med > 0:
        sec = med / 1e3
        summary.append(("tokens/s", "%.1f (%d tokens per step)" % (
            info["tokens_per_step"] / sec, info["tokens_per_step"])))
        peak = float(info["peak_tflops"])
        if peak > 0 and world > 0:
            summary.append(("MFU", "%.2f%% of %g TFLOP/s per device" % (
                100.0 * float(info["flops_per_step"]) / (sec * world * peak * 1e12), peak)))
    summary.append(("mean bubble fraction", fmt(nanmean(rows["bubble_frac"]), "%.4f")))
    parts = ["<h2>Summary</h2>", table(["metric", "value"], summary, left=(0, 1))]
    cols = [("bubble_frac", "bubble", "%.4f"), ("predicted_frac", "predicted", "%.4f"),
            ("warmup_ms", "warmup ms", "%.3f"), ("steady_ms", "steady ms", "%.3f"),
            ("cooldown_ms", "cooldown ms", "%.3f"), ("tp_exposed_ms", "tp exposed ms", "%.3f"),
            ("pp_exposed_ms", "pp exposed ms", "%.3f"), ("dp_exposed_ms", "dp exposed ms", "%.3f"),
            ("tp_overlap", "tp overlap", "%.3f"), ("pp_overlap", "pp overlap", "%.3f"),
            ("dp_overlap", "dp overlap", "%.3f"), ("slowdown", "slowdown", "%.3f")]
    stage_rows = []
    for s in sorted(set(rows["stage"].tolist())):
        sel = rows[rows["stage"] == s]
        bubble, pred = nanmean(sel["bubble_frac"]), nanmean(sel["predicted_frac"])
        excess = "%+.1f%%" % (100.0 * (bubble / pred - 1)) if pred > 0 else "n/a"
        vals = [fmt(nanmean(sel[c]), spec) for c, _, spec in cols]
        stage_rows.append([str(s)] + vals[:2] + [excess] + vals[2:])
    header = ["stage"] + [h for _, h, _ in cols[:2]] + ["excess"] + [h for _, h, _ in cols[2:]]
    parts += ["<h2>Per stage</h2>", table(header, stage_rows),
              '<p class="note">Means over the stage\'s ranks and the measured steps of the '
              "stored /proxy/ranks columns, NaN skipped (n/a: no traffic); excess = bubble / "
              "predicted - 1 (docs/METHODOLOGY.md).</p>"]
    if "timeline/events" in f:
        parts += ["<h2>Timeline</h2>",
                  img_tag(png_bytes(lambda out: plot_timeline(path, f, out, steps, 64)),
                          "per-rank timeline")]
    parts += ["<h2>Bubble fraction per stage and step</h2>",
              img_tag(png_bytes(lambda out: plot_bubble(path, f, out)), "bubble heat map")]
    return parts


def page(title, parts):
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>%s</title>"
            "<style>%s</style></head><body><h1>%s</h1>%s<p class=\"note\">made by %s at %s from "
            "the stored values of the result file(s)</p></body></html>\n" % (
                esc(title), CSS, esc(title), "\n".join(parts), PROG, stamp))


def find_scaleprobe(given):
    for candidate in (given, os.environ.get("SCALEPROBE"), shutil.which("scaleprobe")):
        if candidate:
            if not (os.path.isfile(candidate) and os.access(candidate, os.X_OK)):
                raise InputError("%s: not an executable scaleprobe binary" % candidate)
            return candidate
    raise InputError("the comparison needs the scaleprobe binary: give --scaleprobe PATH, "
                     "set SCALEPROBE or put it on PATH")


def run_compare(binary, side_a, side_b):
    cmd = [binary, "compare"] + side_a
    cmd += (["--vs"] if len(side_a) > 1 or len(side_b) > 1 else []) + side_b + ["--json"]
    try:
        proc = subprocess.run(cmd, capture_output=True,
                              text=True, timeout=600, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise InputError("%s compare: %s" % (binary, exc)) from None
    if proc.returncode not in (0, 1):
        msg = proc.stderr.strip().splitlines()
        msg = [m for m in msg if not m.startswith("#")] or msg or ["exit %d" % proc.returncode]
        raise InputError("scaleprobe compare failed: %s" % msg[-1])
    try:
        result = json.loads(proc.stdout)
    except ValueError as exc:
        raise InputError("scaleprobe compare --json printed no JSON: %s" % exc) from None
    if not isinstance(result, dict) or not isinstance(result.get("points"), list):
        raise InputError("scaleprobe compare --json printed no \"points\" list")
    if isinstance(result.get("differences"), list):
        # {"what": "environment", "key": "NCCL_ALGO", "a": "(unset)", "b": "Ring"}, printed as
        # the text output prints it
        diffs = []
        for d in result["differences"]:
            d = d if isinstance(d, dict) else {}
            what = " ".join(text(d.get(k, "")) for k in ("what", "key") if d.get(k, ""))
            diffs.append("%s: A %s, B %s" % (what, text(d.get("a", "?")), text(d.get("b", "?"))))
    else:  # older compare: the differences go to stderr as "#   what: A x, B y" lines
        diffs = [line[4:] for line in proc.stderr.splitlines() if line.startswith("#   ")]
    return result, diffs, proc.returncode


def report_summary(binary, path):
    """The summary of `scaleprobe report FILE`: its lines from "# Summary" (a sweep) or from
    the proxy's first line on; None when there is no binary or the report fails."""
    if binary is None:
        return None
    try:
        proc = subprocess.run([binary, "report", path], capture_output=True, text=True,
                              timeout=600, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = proc.stdout.splitlines()
    for start, line in enumerate(lines):
        if line.startswith(("# Summary", "# training proxy")):
            return "\n".join(lines[start:])
    return None


def summary_part(binary, path):
    text_ = report_summary(binary, path)
    if text_ is None:
        return ["<h2>Summary</h2><p>No summary: the scaleprobe binary was not found (give "
                "--scaleprobe PATH or set SCALEPROBE).</p>"]
    return ["<h2>Summary (scaleprobe report)</h2><pre>%s</pre>" % esc(text_)]


def html_one(path, f, steps, binary=None):
    parts = summary_part(binary, path) + ["<h2>Run</h2>", run_info(path, f)]
    if "proxy" in f and attr(f["proxy"], "predicted") == "1":
        parts.insert(0, "<p><b>PREDICTED</b>: every number below comes from <code>scaleprobe "
                     "predict</code>'s model, not from a measurement.</p>")
    if kind(f) not in ("coll", "proxy"):
        raise InputError("%s: unknown command %s" % (path, kind(f)))
    if kind(f) == "coll" and "coll/results" not in f or \
            kind(f) == "proxy" and ("proxy/ranks" not in f or len(f["proxy/ranks"]) == 0):
        # a valid file of a run that failed early: its run information is the whole report
        parts.append("<p><b>No %s in this file</b> (status %s): the run stopped before its "
                     "first one.</p>" % ("sweep point" if kind(f) == "coll" else "measured step",
                                         esc(attr(f, "status"))))
    elif kind(f) == "coll":
        sweep = Sweep(path, f)
        parts += ["<h2>Sweep</h2>", sweep_table(sweep)]
        if len(sweep_curves(sweep, "out")):
            parts += ["<h2>Bandwidth</h2>",
                      img_tag(png_bytes(lambda out: plot_busbw([sweep], out, "both")),
                              "bus bandwidth against size"),
                      "<h2>Latency</h2>",
                      img_tag(png_bytes(lambda out: plot_vs_size([sweep], out, "both", "time")),
                              "time per operation against size"),
                      "<h2>Per rank</h2>",
                      img_tag(png_bytes(lambda out: plot_ranks(sweep, f, out)),
                              "per-rank time heat map")]
    else:
        parts += proxy_sections(path, f, steps)
    return page("scaleprobe report: %s" % label_of(path), parts)


def html_two(side_a, side_b, files, binary):
    paths = side_a + side_b
    result, diffs, rc = run_compare(binary, side_a, side_b)
    points = result.get("points", [])
    sides = ["A"] * len(side_a) + ["B"] * len(side_b)
    counts = {}
    for p in points:
        counts[p.get("verdict", "?")] = counts.get(p.get("verdict", "?"), 0) + 1
    parts = ["<h2>Summary</h2><p>%d run(s) of A, %d of B; %d points compared: %s. %s</p>" % (
        len(side_a), len(side_b), len(points),
        esc(", ".join("%d %s" % (n, v) for v, n in sorted(counts.items()))),
        "Something changed by more than the threshold (compare exit 1)." if rc == 1 else
        "Nothing is called slower or faster by more than the threshold.")]
    parts += ["<h2>Files</h2>",
              table(["", "file", "command line", "status", "ranks", "backend", "created"],
                    [[n, p, attr(f, "command_line"), attr(f, "status"), attr(f, "world_size"),
                      attr(f, "backend"), attr(f, "created")]
                     for n, p, f in zip(sides, paths, files)], left=(0, 1, 2, 3, 5, 6)),
              "<h2>What differs</h2>"]
    if diffs:
        parts.append("<ul>%s</ul>" % "".join("<li><code>%s</code></li>" % esc(d) for d in diffs))
    else:
        parts.append("<p>Nothing in the environment, versions, launch or shape.</p>")
    parts.append("<h2>Per point: B/A</h2><p>%d points compared: %s. %s</p>" % (
        len(points), esc(", ".join("%d %s" % (n, v) for v, n in sorted(counts.items()))),
        "Something changed by more than the threshold (compare exit 1)." if rc == 1 else
        "Nothing is called slower or faster by more than the threshold." +
        ("" if result.get("verdicts", True) else
         " One run per side gives no verdicts: repeat runs (about %s per side)." %
         esc(str(result.get("runs_suggested", "?"))))))
    # slower/faster: changed by more than the threshold; everything else (within threshold,
    # inconclusive, no verdict with one run per side, or an older compare's within noise) grey
    css = {"slower": "slower", "faster": "faster"}
    shape = any("ranks" in p for p in points)
    rows = []
    for p in points:
        row = [p.get("point", "?")]
        if shape:
            row.append("%s / %s" % (p.get("ranks", "?"), p.get("nodes", "?")))
        row += [fmt(p.get("a_us"), "%.3f"), fmt(p.get("b_us"), "%.3f"),
                fmt(p.get("ratio"), "%.3f"),
                "[%s, %s]" % (fmt(p.get("ci_lo"), "%.3f"), fmt(p.get("ci_hi"), "%.3f")),
                fmt(p.get("q"), "%.4f"), p.get("verdict", "?")]
        rows.append(row)
    header = ["point"] + (["ranks / nodes"] if shape else []) + \
        ["A (us)", "B (us)", "B/A", "95% CI", "q", "verdict"]
    parts.append(table(header, rows, left=(0, len(header) - 1),
                       classes=[css.get(p.get("verdict"), "noise") for p in points]))
    settings = ", ".join("%s %s" % (k, text(result[k])) + ("%" if k == "threshold" else "")
                         for k in ("threshold", "fdr") if k in result)
    if "between_runs" in result:
        settings += ", CI %s" % ("from the spread of the runs" if result["between_runs"] is True
                                 else "within-run (bootstrap of each run's samples)")
    parts.append('<p class="note">From <code>scaleprobe compare A B --json</code>%s: ratio of '
                 "median times B/A with its 95%% CI, Benjamini-Hochberg q of the minimum-effect "
                 "test; red: slower in B by more than the threshold, green: faster, grey: "
                 "within threshold, inconclusive or no verdict (docs/METHODOLOGY.md, A/B "
                 "comparison).</p>" %
                 (esc(" (" + settings + ")") if settings else ""))
    if points and any(point_key(text(p.get("point", "")))[2] > 0 for p in points):
        parts += ["<h2>B/A per point</h2>",
                  img_tag(png_bytes(lambda out: plot_ratio(result, out, ratio_title(
                      side_a, side_b))), "B/A ratio with 95% CI per point")]
    if all(kind(f) == "coll" for f in files):
        sweeps = [Sweep(p, f) for p, f in zip(paths, files)]
        if all(len(sweep_curves(s, "out")) for s in sweeps):
            parts += ["<h2>Bandwidth, A and B</h2>",
                      img_tag(png_bytes(lambda out: plot_busbw(sweeps, out, "out")),
                              "bus bandwidth of A and B")]
    return page("scaleprobe comparison: %s vs %s" % (label_of(side_a[0]), label_of(side_b[0])),
                parts)


def ratio_title(side_a, side_b):
    return "B/A per point: %s (%d run(s)) vs %s (%d run(s))" % (
        label_of(side_a[0]), len(side_a), label_of(side_b[0]), len(side_b))


def write_text(path, content):
    try:
        with open(path, "w", encoding="utf-8") as out:
            out.write(content)
    except OSError as exc:
        raise InputError("%s: cannot be written: %s" % (path, exc)) from None

