#!/usr/bin/env python3
"""Synthetic timelines for bench_report: copy a real result file of R ranks (a short `coll` run)
and replace its /timeline with NEVENTS matched collective events (docs/SCHEMA.md /timeline):
each rank records the same seq numbers in order, points of 100 samples (step 0..99) at 16
sizes, one rank 50 us late in every third point, jitter of up to 20 us elsewhere.
Writes block by block (bounded memory), into the base file's own chunked, compressed table.

usage: /usr/bin/python3 bench/timeline_synth.py BASE.h5 OUT.h5 NEVENTS
"""
import shutil
import sys

import h5py
import numpy as np

BLOCK = 1 << 20  # rows per write, a multiple of the table's 8192-row chunks
SAMPLES = 100
PERIOD_NS = 50_000


def rank_block(dtype, template, rank, nranks, seq0, n):
    """Rows seq0 .. seq0 + n - 1 of rank."""
    rows = np.empty(n, dtype=dtype)
    rows[...] = template
    seq = np.arange(seq0, seq0 + n, dtype=np.uint64)
    point = seq // SAMPLES
    rng = np.random.default_rng(seq0 * 7919 + rank)
    late = ((point % 3) == 0) & ((point % nranks) == rank)
    t = 10**12 + seq.astype(np.int64) * PERIOD_NS
    rows["rank"] = rank
    rows["seq"] = seq
    rows["step"] = (seq % SAMPLES).astype(np.int32)
    rows["nops"] = 1
    rows["bytes"] = (1024 << (point % 16)).astype(np.uint64)
    rows["start_ns"] = t + rng.integers(0, 20_000, n) + np.where(late, 50_000, 0)
    rows["end_ns"] = t + 45_000 + np.where(late, 50_000, 0)
    return rows


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    base, out, total = sys.argv[1], sys.argv[2], int(sys.argv[3])
    shutil.copyfile(base, out)
    with h5py.File(out, "r+") as f:
        events = f["/timeline/events"]
        ranks = f["/timeline/ranks"]
        nranks = ranks.shape[0]
        template = events[0]
        per_rank = total // nranks
        events.resize((per_rank * nranks,))
        table = np.zeros(nranks, dtype=ranks.dtype)
        for r in range(nranks):
            for seq0 in range(0, per_rank, BLOCK):
                n = min(BLOCK, per_rank - seq0)
                at = r * per_rank + seq0
                events[at:at + n] = rank_block(events.dtype, template, r, nranks, seq0, n)
            table[r] = (r, r * per_rank, per_rank, 0)
        ranks[...] = table
        f["/timeline"].attrs["events"] = per_rank * nranks
        f["/timeline"].attrs["clock_err_ns"] = 1000
    print(f"{out}: {per_rank * nranks} events, {nranks} ranks x {per_rank}")


if __name__ == "__main__":
    main()
