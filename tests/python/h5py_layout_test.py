#!/usr/bin/env python3
"""Reads stores written by perfit with h5py, exactly as docs/hdf5-format.md says a user can.

Run by pytest with the harness of tests/conftest.py (--perfit, --work).
"""
import os
import subprocess

import h5py
import numpy as np

import ranks

perfit, work, _ = ranks.arguments()
store = os.path.join(work, "layout.h5")
csv = os.path.join(work, "in.csv")

subprocess.run([perfit, "synth", "--out", store, "--rows", "20000", "--seed", "3",
                "--set", "/pytorch/resnet50"], check=True, stdout=subprocess.DEVNULL)
with open(csv, "w") as f:
    f.write("p,b,time_s,framework\n1,32,10.5,tf\n2,64,5.25,pt\n")
subprocess.run([perfit, "import", csv, "--out", store, "--set", "/tf/tiny/laptop",
                "--target", "time_s"], check=True, stdout=subprocess.DEVNULL)

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


# ---- the store as h5py reads it ----
def test_the_store_as_h5py_reads_it():
    with h5py.File(store, "r") as f:
        sets = []
        f.visititems(lambda name, obj: sets.append("/" + name)
                     if isinstance(obj, h5py.Group) and "perfit_format" in obj.attrs else None)
        check(sorted(sets) == ["/pytorch/resnet50", "/tf/tiny/laptop"], f"sets found: {sets}")

        g = f["/pytorch/resnet50"]
        check(g.attrs["perfit_format"] == "perfit-store-1", "perfit_format attribute")
        check(g.attrs["target"] == "time_s" and g.attrs["unit"] == "s", "target/unit attributes")
        check(g.attrs["truth_model"] == "generic", "truth_model attribute")
        check(isinstance(g.attrs["truth_c0"], (float, np.floating)), "truth_c0 is a float")
        check(list(g.keys()) == ["p", "nodes", "b", "d", "epochs", "time_s"],
              f"column order {list(g.keys())}")
        lengths = {name: ds.shape for name, ds in g.items()}
        check(all(s == (20000,) for s in lengths.values()), f"1-D, equal lengths: {lengths}")
        check(g["p"].dtype == np.int64 and g["time_s"].dtype == np.float64, "dtypes")
        check(g["time_s"].chunks is not None and g["time_s"].compression == "gzip"
              and g["time_s"].shuffle, "large columns are chunked with shuffle+deflate")
        t = g["time_s"][:]
        check(np.all(t > 0) and np.all(np.isfinite(t)), "times are positive and finite")
        p = g["p"][:]
        check(set(np.unique(p)) == {2 ** k for k in range(11)}, "p grid is 1..1024")

        s = f["/tf/tiny/laptop"]
        check(s.attrs["system"] == "laptop", "system attribute from the set path")
        check(list(s["framework"].asstr()[:]) == ["tf", "pt"], "string column reads with asstr()")
        check(s["time_s"].chunks is None, "small columns are contiguous")
        # The doc's pandas-free equivalent of its 3-line example: a dict of numpy columns.
        cols = {k: (v.asstr()[:] if v.dtype.kind == "O" else v[:]) for k, v in s.items()}
        check(list(cols["time_s"]) == [10.5, 5.25], "values round-trip")


def import_extrap(lines, name, prefix):
    """Extra-P text lines written to NAME.txt and imported into NAME.h5 under PREFIX; its path."""
    paths, store = os.path.join(work, name + ".txt"), os.path.join(work, name + ".h5")
    with open(paths, "w") as out:
        out.write("\n".join(lines) + "\n")
    subprocess.run([perfit, "import", paths, "--format", "extrap", "--out", store, "--set", prefix],
                   check=True, stdout=subprocess.DEVNULL)
    return store


# ---- packed sets (an Extra-P import of many call paths), read with the doc's lines ----
def test_packed_sets_as_h5py_reads_them():
    text = ["PARAMETER p", "POINTS 2 4 8"]
    for k in range(100):
        text += [f"REGION r{k}", "METRIC time", f"DATA {k + 1} {k + 1.5}", "DATA 2 2.5", "DATA 3 3.5"]
    packed = import_extrap(text, "packed", "/myapp")
    found = None
    with h5py.File(packed, "r") as f:
        for pack in f["/@packs"].values():
            names = list(pack["index/set"].asstr()[:])
            if "/myapp/r42/time" in names:
                i = names.index("/myapp/r42/time")
                first, n = pack["index/first"][i], pack["index/rows"][i]
                # The doc's lines without pandas: a dict of numpy columns.
                found = {k: v[first:first + n] for k, v in pack["columns"].items()}
                check(pack.attrs["target"] == "value", "shared attributes on the pack")
                check(pack["attributes/extrap_region"].asstr()[i] == "r42", "per-set attribute")
                check(len(names) == 100 and names == sorted(names), "one sorted index entry per set")
    check(found is not None, "set found in a pack")
    if found is not None:
        check(list(found) == ["p", "value"], f"columns {list(found)}")
        check(list(found["p"]) == [2, 2, 4, 4, 8, 8] and list(found["value"][:2]) == [43, 43.5],
              f"rows {found}")
    assert not failures, failures


# ---- chunks stored as they are (docs/hdf5-format.md "Chunking"), read by h5py alike ----
def test_chunks_that_hardly_deflate_read_by_h5py_alike():
    rng = np.random.default_rng(5)
    regions, points = 3000, [2, 4, 8, 16]
    values = {f"r{k}": rng.uniform(1.0, 2.0, size=(len(points), 3)) for k in range(regions)}
    text = ["PARAMETER p", "POINTS " + " ".join(map(str, points))]
    for name, v in values.items():
        text += [f"REGION {name}", "METRIC time"] + ["DATA " + " ".join(repr(float(x)) for x in row) for row in v]
    noisy = import_extrap(text, "noisy", "/noisy")
    masks, seen = [], 0
    with h5py.File(noisy, "r") as f:
        for pack in f["/@packs"].values():
            value = pack["columns/value"]
            masks += [value.id.get_chunk_info(i).filter_mask for i in range(value.id.get_num_chunks())]
            names = list(pack["index/set"].asstr()[:])
            first, rows, read = pack["index/first"][:], pack["index/rows"][:], value[:]
            for i, name in enumerate(names):
                got = np.sort(read[first[i]:first[i] + rows[i]])
                want = np.sort(values[name.split("/")[2]].ravel())
                check(np.array_equal(got, want), f"values of {name}")
                seen += 1
    check(seen == regions, f"{seen} sets read, expected {regions}")
    check(3 in masks and 0 in masks, f"chunks deflated and stored as they are, filter masks {set(masks)}")
    assert not failures, failures
