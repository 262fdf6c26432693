#!/usr/bin/env python3
"""Extra-P compatibility as an Extra-P user meets it: `perfit import --format extrap` of its text
files, and `select --models pmnf-search` (one and two parameters, negative exponents) checked
against numpy transcriptions of Extra-P's modelers.

Run by pytest with the harness of tests/conftest.py (--perfit, --work, --mpiexec).
"""
import json
import math
import os

import h5py
import numpy as np
import pytest

from ranks import Cli, arguments

perfit, work, mpiexec = arguments()
failures = []
cli = Cli(perfit, work, mpiexec, failures)
run, expect, as_json, failures = cli.run, cli.expect, cli.as_json, cli.failures

# ---- Extra-P's text format: one set per region x metric, repetitions as rows, then fitted ----
def test_extra_p_text_one_set_per_region_and_metric():
    with open(os.path.join(work, "ex.txt"), "w") as f:
        f.write("# Extra-P text input\nPARAMETER p\nPOINTS 2 4 8 16 32 64\nREGION solve\nMETRIC time\n")
        for p in [2, 4, 8, 16, 32, 64]:  # amdahl truth t1 = 100, s = 0.1, two repetitions each
            t = 100 * (0.1 + 0.9 / p)
            f.write(f"DATA {t * 1.01:.6f} {t * 0.99:.6f}\n")
        f.write("METRIC visits\n" + "DATA 5\n" * 6 + "REGION io/write\n" + "DATA 1\n" * 6)
    expect(["import", "ex.txt", "--format", "extrap", "--out", "ex.h5", "--set", "/solver"], 0,
           "imported 24 rows", "/solver/solve/time /solver/solve/visits /solver/io_write/visits")
    with h5py.File(os.path.join(work, "ex.h5"), "r") as f:
        if list(f["solver/solve/time/p"][:]) != [2, 2, 4, 4, 8, 8, 16, 16, 32, 32, 64, 64] or f["solver/solve/time"].attrs["target"] not in ("value", b"value"):
            failures.append("extrap import layout")
    r = expect(["fit", "--data", "ex.h5", "--set", "/solver/solve/time", "--model", "amdahl", "--out", "exf.h5", "--json"], 0)
    doc = as_json(r, "fit of Extra-P data")
    if doc and not (abs(doc["params"]["t1"] / 100 - 1) < 0.01 and abs(doc["params"]["s"] - 0.1) < 0.005):
        failures.append(f"amdahl fit of the Extra-P set: {doc['params']}")
    expect(["import", "ex.txt", "--format", "extrap", "--out", "ex.h5", "--set", "/solver"], 3, "already has set '/solver/solve/time'")
    expect(["import", "ex.txt", "--format", "extrap", "--out", "ex2.h5", "--set", "/a/b"], 2, "with --format extrap give one level")
    expect(["import", "ex.txt", "--format", "extrap", "--out", "ex2.h5", "--set", "/a", "--target", "t"], 2, "do not apply")
    expect(["import", "ex.txt", "--format", "xls", "--out", "ex2.h5", "--set", "/a"], 2, "--format: found 'xls'")
    with open(os.path.join(work, "bad.txt"), "w") as f:
        f.write("PARAMETER p\nPOINTS 1 2\nDATA 1\nDATA 2\nDATA 3\n")
    expect(["import", "bad.txt", "--format", "extrap", "--out", "ex2.h5", "--set", "/a"], 3, "'bad.txt' line 5: more DATA lines")
    if os.path.exists(os.path.join(work, "ex2.h5")):
        failures.append("a failed import left a store behind")


# ---- Extra-P's hypothesis search (select --models pmnf-search) against numpy ----
# Extra-P's modelers transcribed with numpy: the reference every search below is checked against.
BLOCKS = [(0, 1, 1), (0, 1, 2), (1, 4, 0), (1, 3, 0), (1, 4, 1), (1, 3, 1), (1, 4, 2), (1, 3, 2), (1, 2, 0),
          (1, 2, 1), (1, 2, 2), (2, 3, 0), (3, 4, 0), (2, 3, 1), (3, 4, 1), (4, 5, 0), (2, 3, 2), (3, 4, 2),
          (1, 1, 0), (1, 1, 1), (1, 1, 2), (5, 4, 0), (5, 4, 1), (4, 3, 0), (4, 3, 1), (3, 2, 0), (3, 2, 1),
          (3, 2, 2), (5, 3, 0), (7, 4, 0), (2, 1, 0), (2, 1, 1), (2, 1, 2), (9, 4, 0), (7, 3, 0), (5, 2, 0),
          (5, 2, 1), (5, 2, 2), (8, 3, 0), (11, 4, 0), (3, 1, 0), (3, 1, 1)]


NEGATIVE = [(0, 1, -1), (0, 1, -2), (-1, 4, -1), (-1, 3, -1), (-1, 4, -2), (-1, 3, -2), (-1, 2, -1), (-1, 2, -2),
            (-2, 3, -1), (-3, 4, -1), (-2, 3, -2), (-3, 4, -2), (-1, 1, -1), (-1, 1, -2), (-5, 4, -1), (-4, 3, -1),
            (-3, 2, -1), (-3, 2, -2), (-2, 1, -1), (-2, 1, -2), (-5, 2, -1), (-5, 2, -2), (-3, 1, -1),
            (-1, 4, 0), (-1, 3, 0), (-1, 2, 0), (-2, 3, 0), (-3, 4, 0), (-4, 5, 0), (-1, 1, 0), (-5, 4, 0),
            (-4, 3, 0), (-3, 2, 0), (-5, 3, 0), (-7, 4, 0), (-2, 1, 0), (-9, 4, 0), (-7, 3, 0), (-5, 2, 0),
            (-8, 3, 0), (-11, 4, 0), (-3, 1, 0)]


def factor_text(a, b, j, name):
    t = [f"{name}^({a}/{b})"] if a else []
    if j:
        t.append(f"log2({name})" + (f"^({j})" if j < 0 else f"^{j}" if j > 1 else ""))
    return "*".join(t)


def smape(pred, y):
    return np.mean(2 * abs(pred - y) / (abs(y) + abs(pred))) * 100


def numpy_single(x, y, negative=False):
    """Extra-P's basic single-parameter modeler on points (x, mean y), with numpy.linalg.lstsq.
    Returns (block or None, c0, c1, leave-one-out SMAPE)."""
    n = len(x)
    best = (None, y.mean(), 0.0, smape(y.mean(), y))
    logs = x.min() > 1 if negative else x.min() >= 1
    for a, b, j in BLOCKS + (NEGATIVE if negative else []):
        if j and not logs:
            continue
        t = x ** (a / b) * np.log2(x) ** j
        loo = 0.0
        for k in range(n):
            keep = np.arange(n) != k
            c = np.linalg.lstsq(np.stack([np.ones(n - 1), t[keep]], 1), y[keep], rcond=None)[0]
            if abs(c[0] / y[keep].min()) < 0.0005:  # Extra-P: the training points' minimum
                c[0] = 0.0
            pred = c[0] + c[1] * t[k]
            loo += 2 * abs(pred - y[k]) / (abs(y[k]) + abs(pred)) / n * 100  # Extra-P: / (n - 1 + 1)
        c = np.linalg.lstsq(np.stack([np.ones(n), t], 1), y, rcond=None)[0]
        if c[1] != 0 and np.max(abs(c[1] * t / y)) >= 0.0005 and loo < best[3]:
            best = ((a, b, j), c[0], c[1], loo)
    return best


def numpy_search(xs, ys, negative=False):
    pts = sorted(set(xs))
    x = np.array(pts, dtype=float)
    y = np.array([np.mean([b for a, b in zip(xs, ys) if a == v]) for v in pts])
    blk, c0, c1, loo = numpy_single(x, y, negative)
    return ("c0" if blk is None else "c0 + c1*" + factor_text(*blk, "p")), c0, c1, loo


def numpy_search2(ps, ds, ys):
    """Extra-P's multi-parameter modeler (two parameters, a full grid: every line along a
    parameter is equally long, so its points are the means over the lines)."""
    pts = sorted(set(zip(ps, ds)))
    P = np.array([q[0] for q in pts], dtype=float)
    D = np.array([q[1] for q in pts], dtype=float)
    Y = np.array([np.mean([v for a, b, v in zip(ps, ds, ys) if (a, b) == q]) for q in pts])
    terms = []
    for X, name in [(P, "p"), (D, "d")]:
        xs = np.array(sorted(set(X)))
        blk = numpy_single(xs, np.array([Y[X == v].mean() for v in xs]))[0]
        if blk is not None:
            terms.append((X ** (blk[0] / blk[1]) * np.log2(X) ** blk[2], factor_text(*blk, name)))
    assert len(terms) == 2, terms
    (t1, e1), (t2, e2) = terms
    shapes = [[(t1 * t2, e1 + "*" + e2)], [(t1, e1), (t2, e2)], [(t1, e1), (t1 * t2, e1 + "*" + e2)],
              [(t2, e2), (t1 * t2, e1 + "*" + e2)]]
    best = None
    for shape in shapes:
        A = np.stack([np.ones(len(Y))] + [t for t, _ in shape], 1)
        c = np.linalg.lstsq(A, Y, rcond=None)[0]
        cost = smape(A @ c, Y)
        ok = all(c[i + 1] != 0 and np.max(abs(c[i + 1] * t / Y)) >= 0.0005 for i, (t, _) in enumerate(shape))
        expr = "c0" + "".join(f" + c{i + 1}*{e}" for i, (_, e) in enumerate(shape))
        if best is None or (ok and cost < best[2]):
            best = (expr, list(c), cost)
    return best




@pytest.fixture(scope="module")
def es():
    """es.h5: series with known truths imported from CSV (/extrap/power, /extrap/plogp, 2%
    noise; /extrap/strong, 20 + 500/p; /extrap/two, two parameters p and d; /acc/series, a
    column n_accelerators); returns each series' rows as written: {name: (xs, ys)}, two: (ps, ds, ys)."""
    rng = np.random.default_rng(7)
    rows = {}
    cases = {"power": lambda p: 3 + 2 * p ** 1.5, "plogp": lambda p: 5 + 0.5 * p * np.log2(p),
             "strong": lambda p: 20 + 500 / p}
    for name, truth in cases.items():
        noise = 0.01 if name == "strong" else 0.02
        with open(os.path.join(work, f"es_{name}.csv"), "w") as f:
            f.write("p,time\n")
            xs, ys = [], []
            for p in [2, 4, 8, 16, 32, 64]:
                for _ in range(3):
                    xs.append(p)
                    ys.append(float(f"{truth(p) * (1 + noise * rng.standard_normal()):.10g}"))
                    f.write(f"{p},{ys[-1]:.10g}\n")
        rows[name] = (xs, ys)
        expect(["import", f"es_{name}.csv", "--out", "es.h5", "--set", f"/extrap/{name}", "--target", "time"], 0)
    with open(os.path.join(work, "es_two.csv"), "w") as f:
        f.write("p,d,time\n")
        ps, ds, ys = [], [], []
        for p in [2, 4, 8, 16, 32]:
            for d in [1, 2, 4, 8, 16]:
                for _ in range(2):
                    v = (4 + 0.3 * p ** 0.5 * d + 2 * d) * (1 + 0.01 * rng.standard_normal())
                    ps.append(p)
                    ds.append(d)
                    ys.append(float(f"{v:.10g}"))
                    f.write(f"{p},{d},{ys[-1]:.10g}\n")
    rows["two"] = (ps, ds, ys)
    expect(["import", "es_two.csv", "--out", "es.h5", "--set", "/extrap/two", "--target", "time"], 0)
    with open(os.path.join(work, "acc.csv"), "w") as f:
        f.write("n_accelerators,time\n" + "".join(f"{p},{100 * (0.1 + 0.9 / p):.6f}\n" for p in [2, 4, 8, 16, 32]))
    expect(["import", "acc.csv", "--out", "es.h5", "--set", "/acc/series", "--target", "time"], 0)
    return rows


def test_pmnf_search_one_parameter_equals_extra_p(es):
    for name in ["power", "plogp"]:
        xs, ys = es[name]
        r = expect(["select", "--data", "es.h5", "--set", f"/extrap/{name}", "--models", "pmnf-search,pmnf", "--json"], 0)
        doc = as_json(r, f"pmnf-search {name}")
        hyp = next((x.get("hypothesis") for x in doc.get("ranking", []) if x["model"] == "pmnf-search"), None)
        ref = numpy_search(xs, ys)
        if not hyp or hyp["expression"] != ref[0] or abs(hyp["c0"] - ref[1]) > 1e-6 * max(1, abs(ref[1])) \
                or abs(hyp["c1"] - ref[2]) > 1e-6 * abs(ref[2]) or abs(hyp["loo_smape"] - ref[3]) > 1e-6 * ref[3]:
            failures.append(f"pmnf-search {name}: perfit {hyp}, numpy {ref}")
        print(f"pmnf-search {name}: {hyp and hyp['expression']} (numpy: {ref[0]})")


def test_negative_exponents_find_strong_scaling_as_extra_p_does(es):
    # Extra-P's default blocks cannot fall with p; --negative-exponents can
    xs, ys = es["strong"]
    for neg in [False, True]:
        r = expect(["select", "--data", "es.h5", "--set", "/extrap/strong", "--models", "pmnf-search,amdahl", "--json"]
                   + (["--negative-exponents"] if neg else []), 0)
        hyp = next((x.get("hypothesis") for x in as_json(r, "strong").get("ranking", []) if x["model"] == "pmnf-search"), None)
        ref = numpy_search(xs, ys, neg)
        if not hyp or hyp["expression"] != ref[0] or abs(hyp["loo_smape"] - ref[3]) > 1e-6 * ref[3]:
            failures.append(f"pmnf-search strong (negative {neg}): perfit {hyp}, numpy {ref}")
        print(f"pmnf-search strong scaling, negative exponents {neg}: {hyp and hyp['expression']} (numpy: {ref[0]})")
    if not ref[0].startswith("c0 + c1*p^(-"):
        failures.append(f"negative exponents did not find the 1/p shape: {ref}")


def test_two_parameters_combine_terms_as_extra_p_does(es):
    ps, ds, ys = es["two"]
    r = expect(["select", "--data", "es.h5", "--set", "/extrap/two", "--models", "pmnf-search:p+d", "--criterion", "aic",
                "--json"], 0)
    hyp = next((x.get("hypothesis") for x in as_json(r, "two").get("ranking", [])), None)
    ref = numpy_search2(ps, ds, ys)
    if not hyp or hyp["expression"] != ref[0] or abs(hyp["smape"] - ref[2]) > 1e-6 * ref[2] \
            or any(abs(hyp[f"c{i}"] - c) > 1e-6 * max(1, abs(c)) for i, c in enumerate(ref[1])):
        failures.append(f"pmnf-search:p+d: perfit {hyp}, numpy {ref}")
    print(f"pmnf-search:p+d: {hyp and hyp['expression']} (numpy: {ref[0]})")
    expect(["select", "--data", "es.h5", "--set", "/extrap/two", "--models", "pmnf-search:p+d", "--criterion", "aic",
            "--out", "es_two.h5", "--force"], 0, "wrote es_two.h5")
    expect(["predict", "--result", "es_two.h5", "--at", "p=64,d=32"], 0)
    expect(["select", "--data", "es.h5", "--set", "/extrap/two", "--models", "pmnf-search:p+d+time"], 2,
           "one or two parameters, found 3")
    expect(["select", "--data", "es.h5", "--set", "/extrap/two", "--models", "pmnf-search:p+"], 2, "pmnf-search:COLUMN+COLUMN")


def test_a_search_winner_is_written_shown_and_reads_bound_columns(es):
    expect(["select", "--data", "es.h5", "--set", "/extrap/power", "--models", "pmnf-search,amdahl", "--out", "es_best.h5",
            "--force", "--criterion", "aic"], 0, "wrote es_best.h5", "on every row: c0 + c1*p^(3/2)")
    expect(["show", "es_best.h5"], 0, "pmnf_search")
    # --factors with a search candidate: the search reads the bound column
    expect(["select", "--data", "es.h5", "--set", "/acc/series", "--factors", "p=n_accelerators",
            "--models", "pmnf-search,amdahl"], 0, "pmnf-search")
    expect(["select", "--data", "es.h5", "--set", "/acc/series", "--models", "pmnf-search:nosuch"], 2, "nosuch")


def test_search_candidates_under_mpiexec_rank_as_serially(es):
    args = ["select", "--data", "es.h5", "--set", "/extrap/two", "--models", "pmnf-search:p+d,pmnf-search:p", "--json"]
    serial, par = run(*args), run(*args, n=2)
    if par.returncode != 0 or serial.stdout != par.stdout:
        failures.append(f"select with pmnf-search under mpiexec -n 2 differs from serial (exit {par.returncode})\n{par.stderr[-2000:]}")


# ---- a steep hypothesis whose least squares predict a negative time at the smallest point ----
STEEP = [(4, 0.26725), (4, 0.27458), (4, 0.27000), (4, 0.26818), (4, 0.27641), (8, 3.20393), (8, 3.21467),
         (8, 3.12218), (8, 3.34158), (8, 3.30239), (16, 38.81072), (16, 38.62172), (16, 38.19582), (16, 38.27611),
         (16, 37.91977), (32, 398.42103), (32, 400.48452), (32, 412.14619), (32, 404.49610), (32, 399.58230),
         (64, 3829.93069), (64, 3825.62138), (64, 3999.03586), (64, 3914.09818), (64, 3880.06656)]


def test_a_steep_winner_is_written_where_its_least_squares_go_negative():
    """c1*p^3*log2(p) with 2% noise, 0.27 s at p=4 and 3,900 s at p=64 (one of 136 in 3,000
    call paths, generated like issue 43's): the search finds it, but its least-squares c0 (about
    -5 s, within the noise of the largest times) predicts a negative time at p=4, and writing the
    winner failed with "found no finite cost", in `select --out` and for every such set of a
    glob. Now c0 is kept >= 0 there and the winner is written."""
    with open(os.path.join(work, "steep.csv"), "w") as f:
        f.write("p,time\n" + "".join(f"{p},{t}\n" for p, t in STEEP))
    expect(["import", "steep.csv", "--out", "steep.h5", "--set", "/cp/steep", "--target", "time", "--force"], 0)
    expect(["import", "steep.csv", "--out", "steep.h5", "--set", "/cp/again", "--target", "time", "--append"], 0)
    expect(["select", "--data", "steep.h5", "--set", "/cp/steep", "--models", "pmnf-search", "--out", "steep_best.h5"],
           0, "on every row: c0 + c1*p^(3/1)*log2(p)", "wrote steep_best.h5")
    r = expect(["predict", "--result", "steep_best.h5", "--at", "p=4", "--json"], 0)
    predicted = as_json(r, "predict p=4 from the steep winner").get("prediction")
    if not (predicted and 0 < predicted < 1):
        failures.append(f"steep winner at p=4 (measured 0.27 s): {predicted}")
    expect(["select", "--data", "steep.h5", "--set", "/cp/*", "--models", "pmnf-search", "--out", "steep_sel"], 0,
           "2 set(s), 2 ok, 0 error")


# ---- a constant hypothesis wins: select --out writes it, at 1, 2 and 4 ranks ----
def test_a_constant_hypothesis_is_written_and_predicts():
    with open(os.path.join(work, "flat.txt"), "w") as f:
        f.write("PARAMETER p\nPOINTS 2 4 8 16 32\nREGION main\nMETRIC time\n")
        for row in ["5.0 5.01 4.99", "5.02 4.98 5.0", "5.0 5.0 5.01", "4.99 5.0 5.0", "5.01 5.0 4.99"]:
            f.write(f"DATA {row}\n")
    expect(["import", "flat.txt", "--format", "extrap", "--out", "flat.h5", "--set", "/f"], 0)
    for n in (1, 2, 4):
        expect(["select", "--data", "flat.h5", "--set", "/f/main/time", "--models", "pmnf-search",
                "--out", f"flat{n}.h5"], 0, "(on every row: c0)", f"wrote flat{n}.h5", n=n)
        r = expect(["predict", "--result", f"flat{n}.h5", "--at", "p=64", "--json"], 0)
        doc = as_json(r, f"predict from the constant model ({n} ranks)")
        if abs(doc.get("prediction", 0) - 5.0) > 0.05 or [x["factor"] for x in doc.get("extrapolated", [])] != ["p"]:
            failures.append(f"constant model at {n} ranks: {doc}")


# ---- Extra-P's JSON and JSON Lines inputs import like its text; many sets: a few named ----
def test_extra_p_json_imports_like_its_text():
    import json
    points = [2, 4, 8, 16, 32]
    runs = {p: [100 * (0.1 + 0.9 / p) * k for k in (1.01, 0.99)] for p in points}
    with open(os.path.join(work, "ej.json"), "w") as f:
        json.dump({"parameters": ["p"], "measurements": {"solve": {"time": [
            {"point": [p], "values": runs[p]} for p in points]}}}, f)
    with open(os.path.join(work, "ej.jsonl"), "w") as f:
        for p in points:
            f.write(json.dumps({"params": {"p": p}, "value": runs[p], "callpath": "solve", "metric": "time"}) + "\n")
    with open(os.path.join(work, "ej.txt"), "w") as f:
        f.write("PARAMETER p\nPOINTS " + " ".join(map(str, points)) + "\nREGION solve\nMETRIC time\n")
        f.write("".join(f"DATA {runs[p][0]!r} {runs[p][1]!r}\n" for p in points))
    for name in ("ej.json", "ej.jsonl", "ej.txt"):
        expect(["import", name, "--format", "extrap", "--out", f"{name}.h5", "--set", "/e"], 0,
               "imported 10 rows", "as 1 set(s): /e/solve/time")
    with h5py.File(os.path.join(work, "ej.txt.h5"), "r") as t:
        want = [list(t["e/solve/time/p"][:]), list(t["e/solve/time/value"][:])]
    for name in ("ej.json", "ej.jsonl"):
        with h5py.File(os.path.join(work, f"{name}.h5"), "r") as f:
            got = [list(f["e/solve/time/p"][:]), list(f["e/solve/time/value"][:])]
        if got != want:
            failures.append(f"{name} imported {got}, the text file {want}")
    with open(os.path.join(work, "cut.jsonl"), "w") as f:
        f.write(json.dumps({"params": {"p": 2}, "value": 1.0}) + "\n" + '{"params": {"p": 4}, "val')
    expect(["import", "cut.jsonl", "--format", "extrap", "--out", "cut.h5", "--set", "/e"], 3, "'cut.jsonl' line 2: not JSON")
    if os.path.exists(os.path.join(work, "cut.h5")):
        failures.append("a failed JSON Lines import left a store behind")
    with open(os.path.join(work, "many.json"), "w") as f:  # 25 call paths: the line names 5
        json.dump({"parameters": ["p"], "measurements": {f"r{k}": {"time": [
            {"point": [p], "values": runs[p]} for p in points]} for k in range(25)}}, f)
    expect(["import", "many.json", "--format", "extrap", "--out", "many.h5", "--set", "/m"], 0,
           "as 25 set(s): /m/r0/time /m/r1/time /m/r2/time /m/r3/time /m/r4/time ... and 20 more")
    # inspect: more than 20 sets are summarised, a glob lists its matches, --details shows all
    r = expect(["inspect", "many.h5"], 0, "many.h5: 25 set(s), 250 rows; sets per last path segment: time 25",
               "first sets: /m/r0/time")
    if "column" in r.stdout:
        failures.append(f"inspect of 25 sets printed every set in full:\n{r.stdout[:500]}")
    r = expect(["inspect", "many.h5", "--set", "/m/r1*/time"], 0, "/m/r19/time  rows=10", "11 set(s) matched, 110 rows")
    doc = as_json(expect(["inspect", "many.h5", "--set", "/m/r2?/time", "--json"], 0), "inspect glob")
    if doc.get("set_count") != 5 or [x["path"] for x in doc.get("sets", [])][:1] != ["/m/r20/time"]:
        failures.append(f"inspect --set /m/r2?/time --json: {doc}")
    expect(["inspect", "many.h5", "--details"], 0, "many.h5: 25 set(s)", "/m/r24/time  rows=10  target=value")
    expect(["inspect", "many.h5", "--set", "/m/x*"], 3, "--set '/m/x*': matches none of the 25 set(s) of 'many.h5'")


# ---- a searched winner is written with the search's own coefficients (least squares) ----
def test_a_searched_winner_keeps_the_search_coefficients():
    with open(os.path.join(work, "lsq.txt"), "w") as f:  # 2 + 0.05 p^(3/2), +-3%: rel_sq would differ
        f.write("PARAMETER p\nPOINTS 2 4 8 16 32 64\nREGION main\nMETRIC time\n")
        for p in [2, 4, 8, 16, 32, 64]:
            t = 2 + 0.05 * p ** 1.5
            f.write(f"DATA {t * 1.03:.6f} {t * 0.97:.6f} {t * 1.01:.6f}\n")
    expect(["import", "lsq.txt", "--format", "extrap", "--out", "lsq.h5", "--set", "/l"], 0)
    for n in (1, 2, 4):
        r = expect(["select", "--data", "lsq.h5", "--set", "/l/main/time", "--models", "pmnf-search", "--criterion", "aic",
                    "--out", f"lsq{n}.h5", "--json"], 0, n=n)
        hyp = next((x.get("hypothesis") for x in as_json(r, "searched winner").get("ranking", [])), None) or {}
        shown = as_json(expect(["show", f"lsq{n}.h5", "--json"], 0), "the written winner").get("params", {})
        if not hyp or any(abs(shown.get(k, 0) - hyp[k]) > 1e-6 * max(1.0, abs(hyp[k])) for k in ("c0", "c1")):
            failures.append(f"{n} rank(s): written {shown}, the search's {hyp}")


# ---- select --set GLOB: every matching set's choice in one process per rank ----
@pytest.fixture(scope="module")
def sel_store():
    """sel.h5: Extra-P call paths /s/{a,b,c,d}/time (d constant) and /t/e/time (two points)."""
    with open(os.path.join(work, "sel.txt"), "w") as f:
        f.write("PARAMETER p\nPOINTS 2 4 8 16 32\n")
        for region, (a, b) in {"a": (2, 0.05), "b": (5, 0.2), "c": (1, 0.01)}.items():
            f.write(f"REGION {region}\nMETRIC time\n")
            for p in [2, 4, 8, 16, 32]:
                t = a + b * p ** 1.5
                f.write(f"DATA {t * 1.01:.6f} {t * 0.99:.6f}\n")
        f.write("REGION d\nMETRIC time\n" + "DATA 5 5\n" * 5)
    with open(os.path.join(work, "two.txt"), "w") as f:  # two points: the search cannot run
        f.write("PARAMETER p\nPOINTS 2 4\nREGION e\nMETRIC time\nDATA 1 1.1\nDATA 2 2.1\n")
    expect(["import", "sel.txt", "--format", "extrap", "--out", "sel.h5", "--set", "/s"], 0)
    expect(["import", "two.txt", "--format", "extrap", "--out", "sel.h5", "--set", "/t"], 0)
    return "sel.h5"


def test_select_over_a_glob_chooses_per_set_in_one_run(sel_store):
    import csv
    import json
    sets = ["/s/a/time", "/s/b/time", "/s/c/time", "/s/d/time", "/t/e/time"]
    tables = {}
    for n in (1, 2, 4):
        out = f"seldir{n}"
        expect(["select", "--data", "sel.h5", "--set", "/*/*/time", "--models", "pmnf-search", "--out", out], 0,
               f"{out}/selection.h5", "selection.csv and selection.json: 5 set(s), 4 ok, 1 error", n=n)
        with open(os.path.join(work, out, "selection.csv")) as f:
            tables[n] = list(csv.DictReader(f))
        with open(os.path.join(work, out, "selection.json")) as f:
            if [r["set"] for r in json.load(f)["rows"]] != sets:
                failures.append(f"selection.json at {n} ranks: not the five sets in order")
    rows = tables[1]
    if [r["set"] for r in rows] != sets or tables[2] != rows or tables[4] != rows:
        failures.append(f"selection.csv differs between 1, 2 and 4 ranks or misses sets: {rows}")
    by = {r["set"]: r for r in rows}
    for s in sets[:3]:
        one = as_json(expect(["select", "--data", "sel.h5", "--set", s, "--models", "pmnf-search", "--json"], 0), s)
        hyp = one.get("ranking", [{}])[0].get("hypothesis", {})
        r = by.get(s, {})
        if r.get("status") != "ok" or r.get("hypothesis") != hyp.get("expression") \
                or not all(abs(float(r.get(k) or "nan") - hyp[k]) <= 1e-9 * max(1.0, abs(hyp[k])) for k in ("c0", "c1")):
            failures.append(f"{s}: the glob's row {r}, the set's own selection {hyp}")
    if by.get("/s/d/time", {}).get("hypothesis") != "c0" or by.get("/t/e/time", {}).get("status") != "error" \
            or "3 distinct values" not in by.get("/t/e/time", {}).get("message", ""):
        failures.append(f"constant and failing sets: {by.get('/s/d/time')} {by.get('/t/e/time')}")
    # The winners by set name: show and predict read the selection store as a result file.
    for s in sets[:4]:
        shown = as_json(expect(["show", "seldir1/selection.h5", "--set", s, "--json"], 0), f"show --set {s}")
        want = {k: float(by[s][k]) for k in ("c0", "c1") if by[s].get(k)}
        if shown.get("set") != s or any(abs(shown.get("params", {}).get(k, math.nan) - v) > 1e-12 * max(1.0, abs(v))
                                        for k, v in want.items()):
            failures.append(f"show --set {s}: {shown.get('set')} {shown.get('params')}, the summary's {want}")
    a = by["/s/a/time"]
    expect(["predict", "--result", "seldir2/selection.h5", "--set", "/s/a/time", "--at", "p=64"], 0,
           "%.6g" % (float(a["c0"]) + float(a["c1"]) * 64 ** 1.5), "extrapolat")
    expect(["show", "seldir1/selection.h5"], 3, "holding the winners of 4 set(s); pass --set NAME", "--set /s/a/time")
    # --result-files: each winner also as its own result file, named in the summary.
    expect(["select", "--data", "sel.h5", "--set", "/s/*/time", "--models", "pmnf-search", "--out", "selfiles",
            "--result-files"], 0, n=2)
    with open(os.path.join(work, "selfiles", "selection.csv")) as f:
        named = {r["set"]: r["result_file"] for r in csv.DictReader(f)}
    own = as_json(expect(["show", named.get("/s/b/time", "missing"), "--json"], 0), "a winner's own file")
    store = as_json(expect(["show", "selfiles/selection.h5", "--set", "/s/b/time", "--json"], 0), "the same winner")
    if not named.get("/s/b/time", "").endswith("selfiles/s__b__time__pmnf_search.h5") or own.get("params") != store.get("params"):
        failures.append(f"--result-files: {named}, own file {own.get('params')}, store {store.get('params')}")
    expect(["select", "--data", "sel.h5", "--set", "/s/*/time", "--models", "pmnf-search", "--result-files"], 2,
           "--result-files writes each winner beside the selection: pass --out DIR")
    expect(["show", "seldir1/selection.h5", "--set", "/t/e/time"], 3, "holds no winner for set '/t/e/time'")
    expect(["select", "--data", "sel.h5", "--set", "/s/b/time", "--models", "pmnf-search", "--out", "b.h5"], 0)
    expect(["show", "b.h5", "--set", "/s/a/time"], 3, "is the result of set '/s/b/time'")
    expect(["select", "--data", "sel.h5", "--set", "/s/*/time", "--models", "pmnf-search"], 0,
           "/s/a/time", "c0 + c1*p^(3/2)")
    doc = as_json(expect(["select", "--data", "sel.h5", "--set", "/s/*/time", "--models", "pmnf-search", "--json"], 0),
                  "select --set GLOB --json")
    if [r["set"] for r in doc.get("rows", [])] != sets[:4] or doc["rows"][0].get("constants", {}).get("c1") is None:
        failures.append(f"select --set GLOB --json: {doc}")
    expect(["select", "--data", "sel.h5", "--set", "/s/*/time", "--models", "pmnf-search", "--out", "seldir1"], 2,
           "selection.csv", "exists")
    expect(["select", "--data", "sel.h5", "--set", "/x/*/time", "--models", "pmnf-search"], 2,
           "--set '/x/*/time': matches none of the 5 set(s)")
    expect(["select", "--data", "sel.h5", "--set", "/s/*/time", "--models", "pmnf-search", "--out", "sel.txt"], 2,
           "names a directory")
    expect(["select", "--data", "sel.h5", "--set", "/t/*/time", "--models", "pmnf-search"], 3,
           "every one of the 1 set(s) failed")


# ---- a batch manifest's select: entry: the same choice as select --set GLOB, one store ----
def test_a_batch_select_entry_writes_one_selection_store(sel_store):
    import csv
    with open(os.path.join(work, "sel_batch.yaml"), "w") as f:
        f.write("data: sel.h5\nfits:\n"
                "  - sets: ['/s/*/time', '/t/*/time']\n"
                "    select: {models: [pmnf-search], criterion: extrapolation}\n"
                "  - sets: ['/s/a/time']\n    models: [amdahl]\n    factors: {p: p}\n")
    expect(["select", "--data", "sel.h5", "--set", "/*/*/time", "--models", "pmnf-search", "--out", "selalone"], 0)
    with open(os.path.join(work, "selalone", "selection.csv")) as f:
        alone = list(csv.DictReader(f))
    for n in (1, 2):
        out = f"selbatch{n}"
        # /t/e/time cannot be selected (two points): one failure, exit 100 + 1.
        expect(["batch", "--manifest", "sel_batch.yaml", "--out", out], 101, "selection: 5 set(s), 4 ok, 1 error",
               f"{out}/selection.h5", n=n)
        with open(os.path.join(work, out, "selection.csv")) as f:
            rows = list(csv.DictReader(f))
        if rows != alone:
            failures.append(f"batch select: at {n} rank(s) the summary differs from select --set GLOB's:\n{rows}\n{alone}")
        shown = as_json(expect(["show", f"{out}/selection.h5", "--set", "/s/b/time", "--json"], 0), "batch winner")
        if shown.get("set") != "/s/b/time" or "c1" not in shown.get("params", {}):
            failures.append(f"batch select: show --set /s/b/time: {shown}")
        if not os.path.exists(os.path.join(work, out, "s__a__time__amdahl.h5")):
            failures.append(f"batch select: the fits entry's result is missing in {out}")
    # Resumed: every set selected before is kept, nothing is selected again.
    expect(["batch", "--manifest", "sel_batch.yaml", "--out", "selbatch1", "--resume", "--log-level", "info"], 101,
           "4 set(s) selected before, 1 to select", "selection: 5 set(s), 4 ok, 1 error")
    # Another choice in the same directory is another batch.
    with open(os.path.join(work, "sel_batch2.yaml"), "w") as f:
        f.write("data: sel.h5\nfits:\n"
                "  - sets: ['/s/*/time', '/t/*/time']\n"
                "    select: {models: [pmnf-search], criterion: aic}\n"
                "  - sets: ['/s/a/time']\n    models: [amdahl]\n    factors: {p: p}\n")
    expect(["batch", "--manifest", "sel_batch2.yaml", "--out", "selbatch1", "--resume"], 2, "select: entries")
    with open(os.path.join(work, "bad_select.yaml"), "w") as f:
        f.write("data: sel.h5\nfits:\n  - sets: ['/s/*/time']\n    select: {criterion: best}\n")
    expect(["batch", "--manifest", "bad_select.yaml", "--out", "selbad"], 2,
           "fits[0] key 'select' key 'criterion'", "found 'best', expected one of extrapolation")
    with open(os.path.join(work, "both.yaml"), "w") as f:
        f.write("data: sel.h5\nfits:\n  - sets: ['/s/*/time']\n    models: [amdahl]\n    select: {}\n")
    expect(["batch", "--manifest", "both.yaml", "--out", "selbad"], 2, "both 'models' and 'select' are given")


def write_regions(name, regions, exponent, repetitions):
    """An Extra-P text file of `regions` call paths r0.. at p = 2..32: 1 + k%7 + c * p^exponent(k),
    one DATA value per factor in `repetitions`."""
    with open(os.path.join(work, name), "w") as f:
        f.write("PARAMETER p\nPOINTS 2 4 8 16 32\n")
        for k in range(regions):
            f.write(f"REGION r{k}\nMETRIC time\n")
            for p in [2, 4, 8, 16, 32]:
                t = 1 + (k % 7) + 0.01 * (1 + k % 5) * p ** exponent(k)
                f.write("DATA " + " ".join(f"{t * r:.6f}" for r in repetitions) + "\n")


# ---- a batch select: entry stopped by SIGTERM, then resumed: the uninterrupted choice ----
def test_a_stopped_batch_selection_resumes_to_the_same_choice():
    import csv
    import signal
    from ranks import INTERRUPTED, Watched, command, rank_pids
    # Enough sets that the selection outlasts the test's reaction to the start line by seconds
    # (at ~1 ms a set and 2 ranks, ~2 s), even when the test process waits for a core.
    regions = 4000
    write_regions("sigsel.txt", regions, lambda k: 1 + k % 3, [1.01, 0.99])
    expect(["import", "sigsel.txt", "--format", "extrap", "--out", "sigsel.h5", "--set", "/m"], 0)
    with open(os.path.join(work, "sigsel.yaml"), "w") as f:
        f.write("data: sigsel.h5\nfits:\n  - sets: ['/m/*/time']\n    select: {models: [pmnf-search]}\n")

    def table(out):
        with open(os.path.join(work, out, "selection.csv")) as f:
            return list(csv.DictReader(f))

    expect(["batch", "--manifest", "sigsel.yaml", "--out", "sigsel_full"], 0, f"selection: {regions} set(s), {regions} ok")
    w = Watched(command(perfit, mpiexec, 2, "batch", "--manifest", "sigsel.yaml", "--out", "sigsel_cut", "--log-level", "info"),
                work)
    w.wait_line(lambda line: "batch: 0 fits" in line, "the batch's start")
    w.signal(signal.SIGTERM, rank_pids("sigsel_cut"))
    code, _, err = w.finish()
    rows = table("sigsel_cut")
    statuses = {r["status"] for r in rows}
    ok = sum(r["status"] == "ok" for r in rows)
    if code != INTERRUPTED or len(rows) != regions or statuses - {"ok", "pending"} or "pending" not in statuses:
        failures.append(f"SIGTERM in a batch selection: exit {code}, {len(rows)} rows, statuses {statuses}\n{err[-1500:]}")
    r = expect(["batch", "--manifest", "sigsel.yaml", "--out", "sigsel_cut", "--resume", "--log-level", "info"], 0,
               f"selection: {regions} set(s), {regions} ok", n=2)
    if ok and f"{ok} set(s) selected before, {regions - ok} to select" not in r.stderr:
        failures.append(f"resume: expected {ok} sets kept\n{r.stderr[-1500:]}")
    if table("sigsel_cut") != table("sigsel_full"):
        failures.append("the resumed selection differs from the uninterrupted one")


# ---- a rank's threads select sets side by side: the same rows and winners as one thread ----
def test_threads_select_sets_side_by_side_with_the_same_answers(sel_store):
    """batch --threads and select --set GLOB --threads: the same selection.csv, selection.json and
    selection store as one thread, bit for bit (but the run's own timings), failing sets included."""
    import csv
    regions = 300
    write_regions("thr.txt", regions, lambda k: 0.5 + k % 4, [1.01, 0.99, 1.0])
    expect(["import", "thr.txt", "--format", "extrap", "--out", "thr.h5", "--set", "/m"], 0)
    expect(["import", "two.txt", "--format", "extrap", "--out", "thr.h5", "--set", "/t"], 0)  # an error row
    with open(os.path.join(work, "thr.yaml"), "w") as f:
        f.write("data: thr.h5\nfits:\n  - sets: ['/*/*/time']\n    select: {models: [pmnf-search, amdahl]}\n")
    outs = {}
    for threads in (1, 3):
        out = f"thr_batch{threads}"
        r = expect(["batch", "--manifest", "thr.yaml", "--out", out, "--threads", str(threads), "--log-level", "info"],
                   101, f"selection: {regions + 1} set(s), {regions} ok, 1 error")  # 100 + 1 failed
        if (threads > 1) != ("3 threads per rank select sets side by side" in r.stderr):
            failures.append(f"batch --threads {threads}: the log says\n{r.stderr[-800:]}")
        outs[out] = out
    for threads in (1, 2):
        out = f"thr_glob{threads}"
        expect(["select", "--data", "thr.h5", "--set", "/*/*/time", "--models", "pmnf-search,amdahl", "--out", out,
                "--threads", str(threads)], 0, f"{regions + 1} set(s), {regions} ok, 1 error")
        outs[out] = out

    def files(out):
        with open(os.path.join(work, out, "selection.csv")) as f:
            rows = list(csv.DictReader(f))
        with open(os.path.join(work, out, "selection.json")) as f:
            doc = json.load(f)
        store = {}
        with h5py.File(os.path.join(work, out, "selection.h5"), "r") as h:
            def keep(name, obj):  # the run's own timings and its output path aside
                last = name.split("/")[-1]
                if isinstance(obj, h5py.Dataset) and not last.endswith("seconds") and last not in ("created_utc",
                                                                                                   "peak_rss_mib"):
                    v = obj[()]
                    v = v.tolist() if hasattr(v, "tolist") else v  # text: bytes each; NaN: by its repr below
                    store[name] = repr(v).replace(out, "OUT")
            h.visititems(keep)
        return rows, doc["rows"], store

    for one, many in (("thr_batch1", "thr_batch3"), ("thr_glob1", "thr_glob2")):
        a, b = files(one), files(many)
        for what, x, y in zip(("selection.csv", "selection.json's rows", "selection.h5"), a, b):
            if what == "selection.h5" and one == "thr_glob1":  # the config as run holds its --threads
                x = {k: v for k, v in x.items() if not k.endswith("config_yaml")}
                y = {k: v for k, v in y.items() if not k.endswith("config_yaml")}
            if x != y:
                failures.append(f"{what}: {many} differs from {one}")
    if len(files("thr_batch1")[0]) != regions + 1:
        failures.append("thr_batch1: not one row per set")


# ---- what an Extra-P user reads back: their call paths' own names, the hypothesis by its terms ----
def test_call_paths_keep_their_names_and_a_hypothesis_shows_its_terms():
    import csv
    with open(os.path.join(work, "paths.txt"), "w") as f:
        f.write("PARAMETER p\nPOINTS 4 8 16 32 64\n")
        for region, b in {"main->solve->kernel": 0.25, "main->io": 0.0}.items():
            f.write(f"REGION {region}\nMETRIC time\n")
            for p in [4, 8, 16, 32, 64]:
                t = 1 + b * p + (0.1 * math.log2(p) if b == 0 else 0)
                f.write(f"DATA {t * 1.01:.6f} {t * 0.99:.6f}\n")
    r = run("import", "paths.txt", "--format", "extrap", "--out", "paths.h5", "--set", "/app")
    assert r.returncode == 0, r.stderr
    assert "/app/main-_solve-_kernel/time" in r.stdout  # a set path holds only letters, digits and . _ + -
    r = run("select", "--data", "paths.h5", "--set", "/app/*/*", "--models", "pmnf-search", "--out", "paths_sel")
    assert r.returncode == 0, r.stderr
    with open(os.path.join(work, "paths_sel", "selection.csv")) as f:
        rows = {row["set"]: row for row in csv.DictReader(f)}
    assert {s: (row["callpath"], row["metric"]) for s, row in rows.items()} == {
        "/app/main-_solve-_kernel/time": ("main->solve->kernel", "time"), "/app/main-_io/time": ("main->io", "time")}
    kernel = rows["/app/main-_solve-_kernel/time"]["hypothesis"]
    assert kernel == "c0 + c1*p^(1/1)", kernel
    r = run("show", "paths_sel/selection.h5", "--set", "/app/main-_solve-_kernel/time")
    assert r.returncode == 0 and "  value = c0 + c1*p^(1/1)\n" in r.stdout, r.stdout + r.stderr
    r = run("predict", "--result", "paths_sel/selection.h5", "--set", "/app/main-_solve-_kernel/time", "--at", "p=128",
            "--json")
    assert r.returncode == 0, r.stderr
    assert set(json.loads(r.stdout)["terms"]) == {"c0", "c1*p^(1/1)"}, r.stdout
