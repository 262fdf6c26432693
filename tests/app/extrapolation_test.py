#!/usr/bin/env python3
"""The extrapolation guard (docs/analysis.md "Outside the measured range"): a result keeps each
factor's measured range; predict, explain and recommend flag every point outside it, never
refuse it, and recommend searches inside it unless told otherwise.

Run by pytest with the harness of tests/conftest.py (--perfit, --work, --source).
"""
import json
import os

import h5py

import ranks

perfit, work, mpiexec = ranks.arguments()
failures = []
cli = ranks.Cli(perfit, work, mpiexec, failures)
expect, as_json = cli.expect, cli.as_json


def setup_module():
    ranks.fit_resnet_example(expect, "measured range: batch_per_gpu 32..256 gpus 1..64")


# ---- the result keeps every factor's range ----
def test_the_result_keeps_every_factor_range():
    doc = as_json(expect(["show", "g.h5", "--json"], 0), "show --json")
    want = {"gpus": [1, 64], "batch_per_gpu": [32, 256], "d": [1281167, 1281167], "epochs": [1, 1]}
    if doc.get("ranges") != want:
        failures.append(f"ranges in the result: {doc.get('ranges')}, expected {want}")
    with h5py.File(os.path.join(work, "g.h5"), "r") as h:  # the documented layout
        if sorted(x.decode() if isinstance(x, bytes) else x for x in h["ranges/name"][:]) != sorted(want):
            failures.append("h5py: /ranges/name does not list the factors")


# ---- predict flags what lies outside, with the factor, side and ratio ----
def test_predict_flags_points_outside():
    r = expect(["predict", "--result", "g.h5", "--at", "p=256,b=16"], 0,
               "extrapolated: gpus=256 4x above the measured 1..64",
               "extrapolated: batch_per_gpu=16 2x below the measured 32..256")
    if r.stderr.count("warning") != 1 or "1 of 1 point(s) extrapolate" not in r.stderr:
        failures.append(f"predict: not one warning line: {r.stderr}")
    r = expect(["predict", "--result", "g.h5", "--at", "p=32,b=64"], 0)
    if "extrapolat" in r.stdout + r.stderr:
        failures.append(f"a point inside the range was flagged: {r.stdout}{r.stderr}")
    doc = as_json(expect(["predict", "--result", "g.h5", "--at", "p=128,b=64,epochs=90", "--json"], 0), "predict")
    got = {(x["factor"], x["side"], x["ratio"]) for x in doc.get("extrapolated", [])}
    if not doc.get("range_known") or got != {("gpus", "above", 2.0), ("epochs", "above", 90.0)}:
        failures.append(f"predict --json extrapolated: {doc}")
    with open(os.path.join(work, "grid.csv"), "w") as f:
        f.write("p,b\n8,64\n512,16\n")
    expect(["predict", "--result", "g.h5", "--grid", "grid.csv", "--out", "pred.csv"], 0, "1 of 2 point(s)")
    with open(os.path.join(work, "pred.csv")) as f:
        lines = f.read().splitlines()
    col = lines[0].split(",").index("extrapolated")
    if [x.split(",")[col] for x in lines[1:]] != ["", "batch_per_gpu<2x;gpus>8x"]:
        failures.append(f"predict --grid extrapolated column: {lines}")


# ---- explain marks each point of the sweep ----
def test_explain_marks_each_point():
    doc = as_json(expect(["explain", "--result", "g.h5", "--sweep", "p=16..256", "--at", "b=64", "--json"], 0,
                         "2 of 5 point(s) extrapolate"), "explain")
    flagged = [p["gpus"] for p in doc.get("points", []) if p["extrapolated"]]
    if flagged != [128, 256]:
        failures.append(f"explain flagged {flagged}, expected [128, 256]")


# ---- recommend searches inside the measured range unless allowed ----
def test_recommend_searches_inside_unless_allowed():
    r = expect(["recommend", "--result", "g.h5", "--space", "p=1..512,b=32..1024", "--top", "3", "--json"], 0,
               "searching p in 1..64, inside the measured 1..64", "searching b in 32..256")
    doc = as_json(r, "recommend")
    rows = doc.get("ranking", [])
    if not rows or any(x["gpus"] > 64 or x["batch_per_gpu"] > 256 or x["extrapolated"] for x in rows):
        failures.append(f"recommend searched outside the measured range: {rows}")
    if not doc.get("best_on_edge"):
        failures.append(f"recommend: best at p=64 not said to be on the edge: {doc.get('best_on_edge')}")
    r = expect(["recommend", "--result", "g.h5", "--space", "p=1..512", "--at", "b=64", "--top", "1",
                "--allow-extrapolation"], 0, "gpus>8x", "note: the best lies on the edge of the searched space")
    expect(["recommend", "--result", "g.h5", "--space", "p=128..512", "--at", "b=64"], 2,
           "--space p=128..512 lies outside the measured gpus 1..64; pass --allow-extrapolation")
    # A factor fixed with --at outside its range is flagged, not refused.
    expect(["recommend", "--result", "g.h5", "--space", "p=1..64", "--at", "b=64,epochs=90", "--top", "1"], 0,
           "epochs>90x", "epochs=90 90x above the measured 1")


# ---- a result written before ranges were kept says so ----
def test_an_old_result_says_range_unknown():
    # As an older perfit wrote it: no /ranges and no seal (user block) in front of the HDF5 file.
    with h5py.File(os.path.join(work, "g.h5"), "r") as src, h5py.File(os.path.join(work, "old.h5"), "w") as dst:
        for k, v in src.attrs.items():
            dst.attrs[k] = v
        for name in src:
            if name != "ranges":
                src.copy(src[name], dst, name=name)
    expect(["predict", "--result", "old.h5", "--at", "p=256,b=64"], 0, "extrapolated: range unknown",
           "measured range unknown")


# ---- a model that reads no factor has nothing to extrapolate in ----
def test_a_model_without_factors_is_never_flagged():
    with open(os.path.join(work, "flat.yaml"), "w") as f:
        f.write("name: flat\nexpression: c0\nparams: {c0: [0, 2000]}\n")
    expect(["fit", "--data", "runs.h5", "--set", "/pytorch/resnet50", "--model", "flat.yaml", "--out", "flat.h5"], 0)
    with open(os.path.join(work, "g1.csv"), "w") as f:
        f.write("p,b\n512,16\n")
    r = expect(["predict", "--result", "flat.h5", "--grid", "g1.csv", "--out", "flat.csv"], 0)
    with open(os.path.join(work, "flat.csv")) as f:
        rows = f.read().splitlines()
    if "range unknown" in r.stderr + rows[1] or "extrapolate" in r.stderr:
        failures.append(f"a model without factors was flagged: {r.stderr} {rows}")


# ---- a plain fit's forward check: beyond the range its interval holds how far the model misses ----
def test_a_plain_fit_interval_grows_with_what_its_forward_check_missed():
    import math
    import random
    rnd = random.Random(7)
    with open(os.path.join(work, "log2.csv"), "w") as f:  # docs/python.md's runs: a log2(gpus) term generic lacks
        f.write("gpus,batch_per_gpu,time\n")
        for g in (1, 2, 4, 8, 16, 32, 64):
            for b in (32, 64, 128, 256):
                for _ in range(3):
                    t = 30 + 1.28e6 * 0.0021 / g * (1 + 8 / b) + 4.0 * math.log2(g)
                    f.write(f"{g},{b},{t * math.exp(rnd.gauss(0, 0.02)):.6f}\n")
    truth_256 = 30 + 1.28e6 * 0.0021 / 256 * (1 + 8 / 128) + 4.0 * 8
    expect(["import", "log2.csv", "--out", "log2.h5", "--set", "/pt/r50", "--target", "time"], 0)
    fit = ["fit", "--data", "log2.h5", "--set", "/pt/r50", "--factors", "p=gpus,b=batch_per_gpu,d=1.28e6,epochs=1"]
    r = cli.run(*fit, "--out", "log2_fit.h5")
    assert r.returncode == 0, r.stderr
    assert "may not follow the data's shape beyond it" in r.stdout, r.stdout
    assert "beyond the measured range: " in r.stdout and "forward check: refitted below each of the 4 largest" in r.stdout

    def interval(result, at):
        r = cli.run("predict", "--result", result, "--at", at, "--interval", "0.9", "--json")
        assert r.returncode == 0, r.stderr
        return json.loads(r.stdout)["interval"]

    far = interval("log2_fit.h5", "p=256,b=128")
    assert far["lo"] < truth_256 < far["hi"], (far, truth_256)
    assert "the extrapolation error (forward check: " in far["contains"], far
    inside = interval("log2_fit.h5", "p=8,b=128")
    assert inside["hi"] / inside["lo"] < 1.15 and "none inside the measured range" in inside["contains"], inside
    r = cli.run(*fit, "--out", "log2_off.h5", "--no-forward-check")
    assert r.returncode == 0 and "may not follow" not in r.stdout, r.stdout
    off = interval("log2_off.h5", "p=256,b=128")
    assert "no forward check (turned off: forward_check false)" in off["contains"], off
    assert off["hi"] / off["lo"] < far["hi"] / far["lo"] and off["hi"] < truth_256, (off, far)
