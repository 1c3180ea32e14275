#!/usr/bin/env python3
"""Figures of scripts/gpu-check.sh, read from scaleprobe result files with h5py.

    gpu-check-figures.py algbw FILE BYTES         out-of-place all_reduce algbw (GB/s) at BYTES
    gpu-check-figures.py wrong FILE               rows and wrong elements over all rows
    gpu-check-figures.py median FILE              median us per op of the first row
    gpu-check-figures.py events FILE              per sample: CUDA-event time x batch over the
                                                  host's wall interval of that batch: min max n
    gpu-check-figures.py spin FILE TFLOPS         proxy compute tasks: worst |measured - planned|
                                                  in us, and how many tasks
Prints one line of numbers; exit 1 when the file lacks what is asked.
"""
import sys

import h5py
import numpy as np


def rows(f):
    return f["coll/results"][()]


def main(argv):
    what, path = argv[1], argv[2]
    with h5py.File(path, "r") as f:
        if what == "algbw":
            r = rows(f)
            sel = r[(r["op"] == 0) & (r["in_place"] == 0) & (r["bytes"] == int(argv[3]))]
            if len(sel) == 0:
                return 1
            print(f"{float(sel['algbw_gbps'][0]):.1f}")
        elif what == "wrong":
            r = rows(f)
            print(f"{len(r)} {int(np.maximum(r['wrong'], 0).sum())}")
        elif what == "median":
            print(f"{float(rows(f)['time_us'][0]):.3f}")
        elif what == "events":
            r = rows(f)[0]
            off, n, k = int(r["sample_offset"]), int(r["samples"]), int(r["batch"])
            event_us = f["coll/samples"]["time_us"][off:off + n] * k
            ev = f["timeline/events"][()]
            ev = ev[(ev["rank"] == 0)]
            wall_us = (ev["end_ns"] - ev["start_ns"])[:n] / 1e3
            if len(wall_us) != n or n == 0:
                return 1
            ratio = event_us / wall_us
            print(f"{ratio.min():.3f} {ratio.max():.3f} {n}")
        elif what == "spin":
            rate = float(argv[3]) * 1e12
            ev = f["timeline/events"][()]
            ev = ev[(ev["lane"] == 0) & (ev["flops"] > 0)]
            if len(ev) == 0:
                return 1
            measured_us = (ev["end_ns"] - ev["start_ns"]) / 1e3
            planned_us = ev["flops"] / rate * 1e6
            print(f"{np.abs(measured_us - planned_us).max():.2f} {len(ev)}")
        else:
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
