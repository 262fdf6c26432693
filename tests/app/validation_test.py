#!/usr/bin/env python3
"""perfit validate, select and lambda: auto as a user meets them: synthetic sets with a known
true model, the shipped MLPerf table, bad input, and the same answers under mpiexec.

Run by pytest with the harness of tests/conftest.py (--perfit, --work, --mpiexec).
"""
import json
import os

import h5py
import pytest

from ranks import Cli, arguments, write_mlperf_series

perfit, work, mpiexec = arguments()
src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
failures = []
cli = Cli(perfit, work, mpiexec, failures)
run, expect, as_json, failures = cli.run, cli.expect, cli.as_json, cli.failures

S = ["--data", "s.h5", "--set", "/pytorch/resnet50"]


@pytest.fixture(scope="module", autouse=True)
def store():
    expect(["synth", "--out", "s.h5", "--rows", "2000", "--noise", "0.03"], 0)


# ---- synthetic: the generic model is the truth ----
def test_synthetic_the_generic_model_is_the_truth():
    ext = {}
    for m in ["generic", "amdahl"]:
        r = expect(["validate", *S, "--model", m, "--split", "scale:p", "--json"], 0)
        ext[m] = as_json(r, f"validate {m}")
    if ext.get("generic"):
        g = ext["generic"]
        if len(g["folds"]) != 1 or g["folds"][0]["fold"] != "p>=1024" or g["summary"]["test_rows"] != g["folds"][0]["test_rows"]:
            failures.append(f"validate scale:p folds: {g['folds']}")
        # 3% log-normal noise: MAPE about 2.4% for a perfect model
        if not g["summary"]["metrics"]["mape"] < 4.5:
            failures.append(f"generic extrapolation MAPE {g['summary']['metrics']['mape']} above the noise level")
        if ext.get("amdahl") and not ext["amdahl"]["summary"]["metrics"]["mape"] > 2 * g["summary"]["metrics"]["mape"]:
            failures.append(f"amdahl extrapolates as well as the true model: {ext['amdahl']['summary']}")
    r = expect(["validate", *S, "--split", "kfold:4", "--json"], 0)
    k = as_json(r, "validate kfold")
    if k and (len(k["folds"]) != 4 or k["summary"]["test_rows"] != 2000):
        failures.append(f"kfold:4 does not predict every row once: {k.get('summary')}")
    expect(["validate", *S, "--split", "group:b"], 0, "b=1024", "all held-out rows", "MAPE")
    expect(["validate", *S, "--split", "forward:p"], 0, "p=4", "p=1024")
    # bad input: one line, naming what is wrong, exit by class
    expect(["validate", *S, "--split", "loo"], 2, "split 'loo': expected kfold:K")
    expect(["validate", *S, "--split", "group:framework"], 3, "'framework'")
    expect(["validate", *S, "--split", "scale:p:10"], 3, "holding out the 10 largest needs at least 12")
    expect(["validate", "--data", "s.h5", "--set", "/pytorch/gpt"], 3, "/pytorch/gpt")
    expect(["validate", *S, "--model", "amdahl", "--factors", "q=1", "--split", "kfold:2"], 0,
           "--factors binds q, which model 'amdahl' does not read: left out for it")

    # select ranks the true model first, on each of 5 seeds
    for seed in range(1, 6):
        expect(["synth", "--out", f"sel{seed}.h5", "--rows", "1500", "--noise", "0.03", "--seed", str(seed)], 0)
        r = expect(["select", "--data", f"sel{seed}.h5", "--set", "/tensorflow/vgg16", "--json", "--seed", str(seed)], 0)
        doc = as_json(r, f"select seed {seed}")
        if doc.get("best") != "generic":
            failures.append(f"select seed {seed}: best {doc.get('best')}, ranking {doc.get('ranking')}")
        elif doc["ranking"] != sorted(doc["ranking"], key=lambda x: (not x["determined"], x["score"])):
            failures.append(f"select seed {seed}: ranking not by score {doc['ranking']}")
    for crit in ["kfold", "aic", "bic"]:
        r = expect(["select", *S, "--models", "generic,amdahl,gustafson", "--criterion", crit, "--json"], 0)
        if as_json(r, f"select {crit}").get("best") != "generic":
            failures.append(f"select --criterion {crit}: {r.stdout[-800:]}")
    # --out: the winner as a normal result file that predict reads; never over an input
    expect(["select", *S, "--models", "amdahl,generic", "--out", "best.h5"], 0, "wrote best.h5", "'generic'")
    expect(["predict", "--result", "best.h5", "--at", "p=64,b=256,d=1e6,epochs=1"], 0)
    with h5py.File(os.path.join(work, "best.h5"), "r") as f:
        if f.attrs["model"] not in ("generic", b"generic"):
            failures.append(f"select --out wrote model {f.attrs['model']}")
    expect(["select", *S, "--models", "amdahl", "--out", "best.h5"], 2, "best.h5", "--force")
    expect(["select", *S, "--models", "amdahl", "--out", "s.h5"], 2, "is the input 's.h5'")
    expect(["select", *S, "--models", "amdahl", "--factors", "q=1"], 2, "--factors binds 'q', which no candidate reads")
    expect(["select", *S, "--criterion", "loo"], 2, "--criterion: found 'loo'")
    expect(["select", *S, "--models", "nosuch"], 2, "nosuch")

    # lambda: auto through perfit fit: the curve is printed, stored and read back
    r = expect(["fit", *S, "--lambda", "auto", "--out", "la.h5", "--json"], 0, "lambda auto: forward:p")
    doc = as_json(r, "fit --lambda auto")
    ch = doc.get("lambda_choice", {})
    if ch.get("split") != "forward:p" or len(ch.get("lambdas", [])) != 9 or doc.get("lambda") not in ch.get("lambdas", []):
        failures.append(f"fit --lambda auto JSON: {ch} lambda {doc.get('lambda')}")
    if doc.get("config", {}).get("cost", {}).get("lambda") != "auto":
        failures.append(f"saved config lambda: {doc.get('config', {}).get('cost')}")
    with h5py.File(os.path.join(work, "la.h5"), "r") as f:
        if list(f["lambda_curve/lambda"][:]) != ch.get("lambdas"):
            failures.append("lambda_curve in the result differs from the JSON")
    expect(["show", "la.h5"], 0, "lambda auto: forward:p chose lambda")
    expect(["fit", *S, "--lambda", "often", "--out", "x.h5"], 2, "--lambda: found 'often', expected auto or a number")


# ---- bootstrap: 90% intervals cover the truth in 80-97% of 40 repetitions x 6 constants ----
def test_bootstrap_90_intervals_cover_the_truth():
    hit = total = 0
    per = {}
    for rep in range(1, 41):
        expect(["synth", "--out", f"b{rep}.h5", "--rows", "400", "--noise", "0.05", "--seed", str(rep)], 0)
        r = expect(["fit", "--data", f"b{rep}.h5", "--set", "/tensorflow/resnet50", "--out", f"br{rep}.h5",
                    "--bootstrap", "100", "--ci", "0.9", "--seed", str(rep), "--json"], 0)
        doc = as_json(r, f"bootstrap rep {rep}")
        with h5py.File(os.path.join(work, f"b{rep}.h5"), "r") as f:
            truth = {k[6:]: float(v) for k, v in f["/tensorflow/resnet50"].attrs.items() if k.startswith("truth_c") or k == "truth_g"}
        for name, iv in doc.get("bootstrap", {}).get("intervals", {}).items():
            if iv is None:  # undetermined: no interval (counted as missing from the 240)
                continue
            inside = iv[0] <= truth[name] <= iv[1]
            hit += inside
            total += 1
            per[name] = per.get(name, 0) + inside
    if total != 240 or not 0.80 <= hit / total <= 0.97:
        failures.append(f"bootstrap 90% coverage {hit}/{total} outside 80-97% (per constant {per})")
    print(f"bootstrap 90% interval coverage: {hit}/{total} = {hit / max(total, 1):.3f}; per constant of 40: {per}")
    # the intervals reach show, predict (--at and --grid) and recommend; the replicates are in the file
    expect(["show", "br1.h5"], 0, "90% interval", "bootstrap: 100 of 100 refits on rows resampled by configuration")
    r = expect(["predict", "--result", "br1.h5", "--at", "p=64,b=256,d=1e6,epochs=1", "--json"], 0)
    doc = as_json(r, "predict with intervals")
    iv = doc.get("interval", {})
    if not (iv.get("lo", 1) <= doc.get("prediction", 0) <= iv.get("hi", -1) and iv.get("refits") == 100
            and iv.get("level") == 0.9 and "constants' uncertainty only" in iv.get("contains", "")):
        failures.append(f"predict interval: {doc}")
    # --interval: what a run will measure, wider than the constants' interval, and says what it holds
    doc = as_json(expect(["predict", "--result", "br1.h5", "--at", "p=64,b=256,d=1e6,epochs=1", "--json",
                          "--interval", "0.9"], 0), "predict --interval")
    pi = doc.get("interval", {})
    if not (pi.get("lo", 1) < iv.get("lo", 0) and pi.get("hi", 0) > iv.get("hi", 1)
            and "run-to-run noise" in pi.get("contains", "") and "the constants (100 bootstrap refits)" in pi.get("contains", "")
            and ("not the model choice" in pi.get("contains", "")
                 or "the extrapolation error (forward check: " in pi.get("contains", ""))):
        failures.append(f"predict --interval: {pi} against the constants' {iv}")
    with open(os.path.join(work, "grid.csv"), "w") as f:
        f.write("p,b,d,epochs\n8,64,1e6,1\n512,1024,1e6,1\n")
    expect(["predict", "--result", "br1.h5", "--grid", "grid.csv", "--out", "pred.csv"], 0)
    with open(os.path.join(work, "pred.csv")) as f:
        header = f.readline().strip().split(",")
        if header[4:7] != ["predicted_time_s", "lo_time_s", "hi_time_s"]:
            failures.append(f"predict --grid columns: {header}")
    r = expect(["recommend", "--result", "br1.h5", "--space", "p=1..512,b=32..1024", "--at", "d=1e6,epochs=1",
                "--top", "3", "--json"], 0)
    doc = as_json(r, "recommend with intervals")
    if doc.get("ci") != 0.9 or any(not (x["time_interval"][0] <= x["time"] <= x["time_interval"][1]) for x in doc.get("ranking", [])):
        failures.append(f"recommend intervals: {doc}")
    with h5py.File(os.path.join(work, "br1.h5"), "r") as f:
        if f["bootstrap/c0"].shape != (100,) or "ci_lo" not in f["params"] or f.attrs["bootstrap_resampled"] not in ("configuration", b"configuration"):
            failures.append("bootstrap layout in the result file")
    expect(["fit", *S, "--bootstrap", "10", "--ci", "1.5", "--out", "x.h5"], 2, "--ci: found '1.5'")


# ---- real data: the MLPerf table, resnet on V100s with MXNet (as in docs/validation.md) ----
def test_real_data_mlperf_resnet_v100_mxnet():
    write_mlperf_series(os.path.join(work, "rv.csv"), "resnet", "NVIDIA V100", "MXNet")
    expect(["import", "rv.csv", "--out", "ml.h5", "--set", "/mxnet/resnet/v100",
            "--target", "time_to_train_s_olympic_mean", "--drop-invalid"], 0)
    M = ["--data", "ml.h5", "--set", "/mxnet/resnet/v100", "--factors", "p=n_accelerators"]
    r = expect(["validate", *M, "--model", "usl", "--split", "scale:n_accelerators", "--json"], 0)
    v = as_json(r, "validate MLPerf")
    # 8 submissions at 4-16 accelerators, one at 512: the held-out row is a 32x extrapolation
    if v and not (v["folds"][0]["fold"] == "n_accelerators>=512" and v["summary"]["test_rows"] == 1
                  and v["summary"]["metrics"]["mape"] >= 0):
        failures.append(f"MLPerf validate: {v.get('summary')}")
    r = expect(["select", *M, "--models", "amdahl,usl", "--json"], 0)
    doc = as_json(r, "select MLPerf")
    if doc and (doc["how"] != "MAPE of held-out rows, split forward:n_accelerators" or len(doc["ranking"]) != 2):
        failures.append(f"MLPerf select: {doc}")
    # holding out 16 and 512 leaves 2 scales: usl's 3 constants are underdetermined, ranked last
    r = expect(["select", *M, "--models", "usl,amdahl", "--holdout", "2", "--json"], 0)
    doc = as_json(r, "select --holdout 2")
    if [(x["model"], x["determined"]) for x in doc.get("ranking", [])] != [("amdahl", True), ("usl", False)]:
        failures.append(f"underdetermined candidate not ranked last: {doc.get('ranking')}")
    expect(["select", *M, "--models", "usl,amdahl", "--holdout", "2"], 0, "more constants than training configurations")
    expect(["select", "--data", "ml.h5", "--set", "/mxnet/resnet/v100", "--models",
            os.path.join(src, "configs/examples/mlperf_usl.yaml")], 2, "needs the scale column: pass --scale COLUMN")
    expect(["select", "--data", "ml.h5", "--set", "/mxnet/resnet/v100", "--models", "amdahl"], 2,
           "model 'amdahl' reads factor 'p'", "--factors p=<column>", "n_accelerators")
    r = run("select", "--data", "ml.h5", "--set", "/mxnet/resnet/v100", "--models", "amdahl")
    if "submitter" in r.stderr:  # a text column cannot be a factor: not offered
        failures.append(f"an unbound factor's message lists text columns: {r.stderr}")
    # without --models: the built-ins that can read the set compete, the others are named as skipped
    expect(["select", *M], 0, "skipping built-in 'generic'", "amdahl", "usl")


# ---- under mpiexec: the folds are spread over the ranks, the answer is the same ----
def test_under_mpiexec_the_answer_is_the_serial_one():
    serial = run("validate", *S, "--split", "kfold:4", "--json")
    par = run("validate", *S, "--split", "kfold:4", "--json", n=2)
    if par.returncode != 0 or serial.stdout != par.stdout:
        failures.append(f"validate under mpiexec -n 2 differs from serial (exit {par.returncode})\n{par.stderr[-2000:]}")
    serial = run("select", *S, "--json", "--models", "generic,amdahl,usl")
    par = run("select", *S, "--json", "--models", "generic,amdahl,usl", n=2)
    if par.returncode != 0 or serial.stdout != par.stdout:
        failures.append(f"select under mpiexec -n 2 differs from serial (exit {par.returncode})\n{par.stderr[-2000:]}")
    a = run("fit", *S, "--lambda", "auto", "--out", "l1.h5", "--json")
    b = run("fit", *S, "--lambda", "auto", "--out", "l2.h5", "--json", n=2)
    if b.returncode != 0 or json.loads(a.stdout or "{}").get("lambda_choice") != json.loads(b.stdout or "{}").get("lambda_choice"):
        failures.append(f"lambda auto under mpiexec -n 2 differs (exit {b.returncode})\n{b.stderr[-2000:]}")
    expect(["validate", *S, "--split", "loo"], 2, "split 'loo'", n=2)
    # Two ranks share the rows of one island: the fit's sums add up in another order (params equal
    # to ~1e-11), so the refits, started from that best, agree to ~1e-8 rather than bit for bit.
    a = run("fit", *S, "--bootstrap", "30", "--out", "bs1.h5", "--json")
    b = run("fit", *S, "--bootstrap", "30", "--out", "bs2.h5", "--json", n=2)
    ia = json.loads(a.stdout or "{}").get("bootstrap", {}).get("intervals", {})
    ib = json.loads(b.stdout or "{}").get("bootstrap", {}).get("intervals", {})
    if b.returncode != 0 or sorted(ia) != sorted(ib) or len(ia) != 6 or any(
            abs(x - y) > 1e-6 * abs(x) for k in ia for x, y in zip(ia[k], ib[k])):
        failures.append(f"bootstrap under mpiexec -n 2 differs from serial (exit {b.returncode})\n{ia}\n{ib}\n{b.stderr[-2000:]}")
