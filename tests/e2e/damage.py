#!/usr/bin/python3
"""Damaged copies of scaleprobe result files for tests/e2e/test_damaged_files.sh.

damage.py KIND SRC DST [SEED]: write DST, a copy of SRC damaged as KIND says (SRC unused by
`foreign`). Byte-level kinds need nothing but Python; the rest edit the HDF5 structure with h5py
(python3-h5py, installed by scripts/install-deps.sh), as another program or a bug would.
"""
import random
import shutil
import sys


def truncate(src, dst, cut):
    with open(src, "rb") as f:
        data = f.read()
    with open(dst, "wb") as f:
        f.write(data[: int(cut)])


def flip(src, dst, seed):
    """Flip 4 random bytes: odd seeds in the first 4 KiB (superblock, root group, metadata),
    even seeds anywhere."""
    rng = random.Random(int(seed))
    with open(src, "rb") as f:
        data = bytearray(f.read())
    span = min(len(data), 4096) if int(seed) % 2 else len(data)
    for _ in range(4):
        i = rng.randrange(span)
        data[i] ^= 1 << rng.randrange(8)
    with open(dst, "wb") as f:
        f.write(data)


def edit(src, dst, fn):
    import h5py

    shutil.copyfile(src, dst)
    with h5py.File(dst, "r+") as f:
        fn(f)


def set_field(dsname, field, value, row=0):
    def fn(f):
        ds = f[dsname]
        rec = ds[row]
        rec[field] = value
        ds[row] = rec

    return fn


def add_wrong(ranks, count):
    def fn(f):
        ds = f["/coll/wrong"]
        n = ds.shape[0]
        ds.resize((n + len(ranks),))
        for i, r in enumerate(ranks):
            rec = ds[n + i] if n + i < ds.shape[0] else None
            rec["row"] = 0
            rec["rank"] = r
            rec["wrong"] = count
            ds[n + i] = rec

    return fn


def no_points(f):
    """A run stopped before its first point: tables empty, status partial."""
    for name in ("/coll/results", "/coll/samples", "/coll/rank_times", "/coll/wrong"):
        if name in f:
            f[name].resize(0, axis=0)
    f.attrs.modify("status", "partial")


def main():
    kind, src, dst = sys.argv[1], sys.argv[2], sys.argv[3]
    arg = sys.argv[4] if len(sys.argv) > 4 else "0"
    if kind == "truncate":
        truncate(src, dst, arg)
    elif kind == "flip":
        flip(src, dst, arg)
    elif kind == "foreign":
        import h5py

        with h5py.File(dst, "w") as f:
            f.attrs["format"] = "netcdf-ish"
            f.create_dataset("/data/x", data=list(range(100)))
    else:
        edits = {
            "newer": lambda f: f.attrs.modify("schema_version", f.attrs["schema_version"] + 1),
            "older": lambda f: f.attrs.modify("schema_version", 0),
            "no_format": lambda f: f.attrs.__delitem__("format"),
            "world_huge": lambda f: f.attrs.modify("world_size", 1 << 30),
            "bad_op": set_field("/coll/results", "op", 99),
            "bad_dtype": set_field("/coll/results", "dtype", -7),
            "huge_samples": set_field("/coll/results", "samples", 0xFFFFFFFF),
            "bad_offset": set_field("/coll/results", "sample_offset", 1 << 40),
            "bad_slowest": set_field("/coll/results", "slowest_rank", 1 << 30),
            "wrong_ranks": add_wrong([-1, 1 << 30], 5),
            "wrong_overflow": add_wrong([0, 1, 0, 1], 1 << 62),
            "no_points": no_points,
            "tl_ranks_empty": lambda f: f["/timeline/ranks"].resize(0, axis=0),
            "step_huge": set_field("/proxy/ranks", "step", (1 << 31) - 1),
            "step_1e8": set_field("/proxy/ranks", "step", 100000000),
            "proxy_pp0": set_field("/proxy/info", "pp", 0),
            "proxy_tp_neg": set_field("/proxy/info", "tp", -3),
            "node_kind": set_field("/node/results", "kind", 77),
            "node_samples": set_field("/node/results", "samples", 0xFFFFFFFF),
        }
        edit(src, dst, edits[kind])


if __name__ == "__main__":
    main()
