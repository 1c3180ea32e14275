#!/usr/bin/env python3
"""Two runs of the same points, compared as bench/bench_repeat.sh reports them.

    repeat_compare.py LABEL A.csv B.csv            two files (coll_results.csv or bench_plain_loop)
    repeat_compare.py LABEL A.csv --cycles N I J   cycles I and J (1-based) of one -N N sweep

Points are matched on every column that names one (op, redop, dtype, root, in_place or place,
bytes). Prints one line: the share of points whose medians (time_us) are within 2% of each
other, the worst point, and how many kept the same batch size k. Where both runs carry their 95%
CIs (coll's ci_rel: the larger side of the interval over the median), it adds, over the points
with a finite interval in both runs, the observed share within 2% and the share that sampling
error alone would put there: per point P(|D| <= 2%) for D normal with standard deviation
sqrt(s_a^2 + s_b^2), s = ci_rel / 1.96, averaged. ci_rel is the larger side, and a t quantile
over the batches rather than 1.96, so s errs large and that share small. An observed share far
below it means the runs differ by more than their intervals allow: the machine changed between
them (or the intervals are too narrow).
"""
import math
import sys

import pandas as pd

KEYS = ["op", "redop", "dtype", "root", "in_place", "place", "bytes"]
WITHIN = 0.02


def split_cycles(path, n, i, j):
    """Cycles I and J: export's cycle column, or (older exports) every cycle's rows in order."""
    rows = pd.read_csv(path)
    if n < 2 or len(rows) % n != 0 or not (1 <= i <= n and 1 <= j <= n):
        sys.exit(f"repeat result: {path} has {len(rows)} rows, not {n} equal cycles with {i} and {j}")
    if "cycle" in rows:  # export's column (from 0)
        return (rows[rows["cycle"] == i - 1].drop(columns="cycle"),
                rows[rows["cycle"] == j - 1].drop(columns="cycle"))
    per = len(rows) // n
    return (rows.iloc[(i - 1) * per:i * per].reset_index(drop=True),
            rows.iloc[(j - 1) * per:j * per].reset_index(drop=True))


def expected_share(a, b, d):
    """Over the points with a finite interval in both runs: the mean of P(|D| <= 2%) from the
    two intervals, the observed share within 2% of the same points, and how many they are."""
    if "ci_rel" not in a or "ci_rel" not in b:
        return None, None, 0
    probs, seen = [], []
    for ca, cb, dd in zip(a["ci_rel"], b["ci_rel"], d):
        if not (math.isfinite(ca) and math.isfinite(cb)):
            continue
        sd = math.hypot(ca, cb) / 1.96
        probs.append(1.0 if sd == 0 else math.erf(WITHIN / (sd * math.sqrt(2))))
        seen.append(dd <= WITHIN)
    if not probs:
        return None, None, 0
    return sum(probs) / len(probs), sum(seen) / len(seen), len(probs)


def main(argv):
    if len(argv) == 4:
        label, a, b = argv[1], pd.read_csv(argv[2]), pd.read_csv(argv[3])
    elif len(argv) == 7 and argv[3] == "--cycles":
        label = argv[1]
        a, b = split_cycles(argv[2], int(argv[4]), int(argv[5]), int(argv[6]))
    else:
        sys.exit(__doc__.strip().split("\n\n")[0])
    keys = [k for k in KEYS if k in a.columns and k in b.columns]
    if a.duplicated(keys).any() or b.duplicated(keys).any():
        sys.exit("repeat result: a point appears twice in one run (a -N sweep: give --cycles N I J)")
    m = a.merge(b, on=keys, suffixes=("_a", "_b"))
    m = m[(m["time_us_a"] > 0) & (m["time_us_b"] > 0)].reset_index(drop=True)
    if m.empty:
        print("repeat result: no matching points")
        return 1
    d = (m["time_us_b"] / m["time_us_a"] - 1).abs()
    within = int((d <= WITHIN).sum())
    worst = m.loc[d.idxmax()]
    where = " ".join(f"{k}={worst[k]}" for k in keys)
    samek = int((m["batch_a"] == m["batch_b"]).sum()) if "batch_a" in m else 0
    line = (f"repeat result: {within} of {len(m)} points ({100 * within / len(m):.1f}%) within 2% "
            f"between two consecutive {label}; worst {100 * d.max():.1f}% at {where}; "
            f"same batch size k at {samek} of {len(m)}")
    cols_a = m[[c for c in m.columns if c.endswith("_a")]].rename(columns=lambda c: c[:-2])
    cols_b = m[[c for c in m.columns if c.endswith("_b")]].rename(columns=lambda c: c[:-2])
    share, seen, npts = expected_share(cols_a, cols_b, d)
    if share is not None:
        line += (f"; of the {npts} points with a CI in both: {100 * seen:.1f}% within 2%, "
                 f"where sampling alone would put {100 * share:.1f}%")
    print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
