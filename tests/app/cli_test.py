#!/usr/bin/env python3
"""The perfit command line as a user meets it: help, messages, and one exit code per error class.

Run by pytest with the harness of tests/conftest.py (--perfit, --work).
"""
import json
import os
import subprocess

import pytest

import ranks

perfit, work, mpiexec = ranks.arguments()
failures = []
cli = ranks.Cli(perfit, work, mpiexec, failures)
run, expect = cli.run, cli.expect

# ---- help, usage and the exit code of every error class ----
SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
USL = os.path.join(SOURCE, "configs/examples/mlperf_usl.yaml")


@pytest.fixture(scope="module")
def nine_sets():
    """s.h5: synth's nine sets of 100 rows."""
    expect(["synth", "--out", "s.h5", "--rows", "100", "--force"], 0, "wrote 9 sets, 900 rows")
    return "s.h5"


@pytest.fixture(scope="module")
def fitted():
    """f.h5 (2000 synthetic rows of /pytorch/resnet50) and fr.h5, generic fitted to it in 60
    generations; returns fit --json's document."""
    expect(["synth", "--out", "f.h5", "--rows", "2000", "--set", "/pytorch/resnet50", "--force"], 0,
           "wrote 1 sets")
    r = expect(["fit", "--data", "f.h5", "--set", "/pytorch/resnet50", "--out", "fr.h5", "--force",
                "--max-generations", "60", "--json"], 0, '"params"', '"stop_reason"')
    return json.loads(r.stdout) if r.returncode == 0 else {}


@pytest.fixture(scope="module")
def mlperf():
    """ml.h5 /mxnet/resnet/v100: the shipped MLPerf table's series, filtered as in
    docs/stores.md (one invalid row dropped), imported; mlf.h5: mlperf_usl fitted to it."""
    ranks.write_mlperf_series(os.path.join(work, "rv.csv"), "resnet", "NVIDIA V100", "MXNet")
    expect(["import", "rv.csv", "--out", "ml.h5", "--set", "/mxnet/resnet/v100", "--force",
            "--target", "time_to_train_s_olympic_mean", "--drop-invalid"], 0, "imported 9 rows", "dropped 1 of 10")
    r = expect(["fit", "--data", "ml.h5", "--set", "/mxnet/resnet/v100", "--model", USL, "--out", "mlf.h5",
                "--force", "--json"], 0)
    return json.loads(r.stdout) if r.returncode == 0 else {}


def test_help_usage_and_synth_errors():
    expect(["--help"], 0, "synth", "import", "inspect", "Exit codes")
    expect(["synth", "--help"], 0, "--rows", "--seed", "--noise")
    expect([], 2, "A subcommand is required")
    expect(["synth"], 2, "--out is required")
    expect(["synth", "--out", "x.h5", "--rows", "0"], 2, "--rows: found '0', expected a whole number in [1, 1000000000]")
    expect(["synth", "--out", "x.h5", "--noise", "-1"], 2, "--noise: found '-1', expected a number in [0, 1]")
    expect(["synth", "--out", "no/such/dir/x.h5"], 6, "directory 'no/such/dir' does not exist")
    expect(["synth", "--out", "s_help.h5", "--rows", "100"], 0, "wrote 9 sets, 900 rows")


def test_inspect_and_import_errors_name_what_they_found(nine_sets):
    expect(["inspect", "s.h5", "--set", "/pytorch/bert"], 0, "rows=100", "truth_c0=")
    r = expect(["inspect", "s.h5", "--json"], 0, '"sets"', '"path"', '"columns"', '"attributes"')
    doc = json.loads(r.stdout)
    if [s["path"] for s in doc["sets"]][:1] != ["/mxnet/bert"] or doc["sets"][0]["rows"] != 100:
        failures.append(f"inspect --json content: {r.stdout[:300]}")
    expect(["inspect", "s.h5", "--set", "/pytorch/gpt"], 3, "has no set '/pytorch/gpt'")
    expect(["inspect", "missing.h5"], 6, "does not exist")
    with open(os.path.join(work, "text.h5"), "w") as f:
        f.write("not hdf5\n")
    expect(["inspect", "text.h5"], 3, "is not an HDF5 file")
    with open(os.path.join(work, "m.csv"), "w") as f:
        f.write("p,time_s\n1,2.0\n2,oops\n")
    expect(["import", "m.csv", "--out", "s.h5", "--set", "/a/b", "--target", "time_s"], 3,
           "line 3, column 'time_s': found 'oops'")
    expect(["import", "m.csv", "--out", "s.h5", "--set", "bad", "--target", "time_s"], 2,
           "is not of the form")


def test_models_listed_as_text_and_json_and_bad_yaml_refused():
    expect(["models"], 0, "generic", "amdahl", "usl", "pmnf", "bandwidth", "c1[1e-06, 1, log]")
    r = expect(["models", "generic", "--json"], 0, '"name": "generic"')
    if json.loads(r.stdout)[0]["params"][0]["name"] != "c0":
        failures.append("models --json: first param is not c0")
    with open(os.path.join(work, "bad.yaml"), "w") as f:
        f.write("name: bad\nexpression: c0 + (c1*p\nparams: {c0: [0, 1], c1: [0, 1]}\n")
    expect(["models", "bad.yaml"], 2, "expected ')'", "^")
    with open(os.path.join(work, "bounds.yaml"), "w") as f:
        f.write("name: b\nexpression: c0*p\nparams: {c0: [0, 1, log]}\n")
    expect(["models", "bounds.yaml"], 2, "param 'c0' is log-scaled but its lower bound 0 is <= 0")
    expect(["models", "nope"], 2, "neither a built-in model")


def test_fit_and_predict_json_on_a_synthetic_set(fitted):
    doc = fitted
    for key in ["model", "set", "params", "cost", "metrics", "generations", "evaluations",
                "stop_reason", "seed"]:
        if key not in doc:
            failures.append(f"fit --json lacks {key}: {str(doc)[:200]}")
    if set(doc["params"]) != {"c0", "c1", "g", "c2", "c3", "c4"} or not 0 < doc["generations"] <= 60:
        failures.append(f"fit --json content: {str(doc)[:300]}")
    if not (0 < doc["metrics"]["mape"] < 10):
        failures.append(f"fit MAPE off: {doc['metrics']}")
    expect(["fit", "--data", "f.h5", "--set", "/pytorch/resnet50", "--out", "fr2.h5",
            "--max-generations", "20"], 0, "param", "metrics: MAPE", "stopped: max_generations", "wrote fr2.h5")
    r = expect(["predict", "--result", "fr.h5", "--at", "p=64,b=256,d=1.28e6,epochs=1", "--json"], 0,
               '"prediction"', '"startup"', '"bandwidth"')
    pj = json.loads(r.stdout)
    if abs(sum(pj["terms"].values()) - pj["prediction"]) > 1e-9 * pj["prediction"]:
        failures.append(f"predict terms do not sum to the prediction: {pj}")
    expect(["predict", "--result", "fr.h5", "--at", "p=64,b=256"], 2, "missing factor(s) epochs, d")
    expect(["predict", "--result", "fr.h5", "--at", "p=64,b=256,d=1,epochs=1,q=3"], 2,
           "unknown factor(s) q")
    expect(["predict", "--result", "fr.h5", "--at", "p=64,b"], 2, "is not NAME=NUMBER")
    with open(os.path.join(work, "grid.csv"), "w") as f:
        f.write("p,b,d,epochs\n1,32,1e6,1\n1024,32,1e6,1\n")
    expect(["predict", "--result", "fr.h5", "--grid", "grid.csv", "--out", "pred.csv"], 0,
           "wrote 2 predictions")
    with open(os.path.join(work, "pred.csv")) as f:
        lines = f.read().splitlines()
    if not lines[0].startswith("p,b,d,epochs,predicted_time_s,extrapolated,term_startup") or len(lines) != 3:
        failures.append(f"pred.csv: {lines}")
    expect(["predict", "--result", "f.h5", "--at", "p=1"], 3, "not a perfit result")


def test_fit_errors_name_the_set_the_factor_and_the_config(fitted):
    expect(["fit", "--data", "f.h5", "--set", "/pytorch/resnet50"], 2, "no output: pass --out")
    expect(["fit", "--data", "f.h5", "--set", "/pytorch/gpt", "--out", "x.h5"], 3, "has no set '/pytorch/gpt'")
    expect(["fit", "--data", "f.h5", "--set", "/pytorch/resnet50", "--out", "x.h5", "--model", "usl",
            "--strategy", "nope"], 2, "strategy 'nope' is not one of")
    with open(os.path.join(work, "m.yaml"), "w") as f:
        f.write("name: m\nexpression: a*q\nparams: {a: [0, 1]}\n")
    expect(["fit", "--data", "f.h5", "--set", "/pytorch/resnet50", "--out", "x.h5", "--model", "m.yaml"],
           2, "model 'm' reads factor 'q', which is not a column of 'f.h5' set '/pytorch/resnet50'",
           "did you mean 'p'?", "bind it with --factors q=<column>", "numeric columns: p, nodes, b, d, epochs)")
    with open(os.path.join(work, "c.yaml"), "w") as f:
        f.write("data: f.h5\nset: /pytorch/resnet50\nout: fc.h5\nde: {max_generations: 10, strategy: jso}\n")
    expect(["fit", "--config", "c.yaml", "--seed", "4"], 0, "stopped: max_generations")
    expect(["fit", "--config", "missing.yaml"], 6, "cannot read config 'missing.yaml'")
    if os.path.exists(os.path.join(work, "x.h5")):
        failures.append("a failed fit left x.h5 behind")


def test_mlperf_series_imported_fitted_and_predicted():
    ranks.write_mlperf_series(os.path.join(work, "rv.csv"), "resnet", "NVIDIA V100", "MXNet")
    expect(["import", "rv.csv", "--out", "mlbad.h5", "--set", "/mxnet/resnet/v100",
            "--target", "time_to_train_s_olympic_mean"], 3, "line 11, target column", "--drop-invalid")


def test_mlperf_usl_fit_is_close_and_predicts(mlperf):
    mf = mlperf
    if not (mf["metrics"]["r2"] > 0.95 and mf["metrics"]["mape"] < 8 and 2e4 < mf["params"]["t1"] < 5e4):
        failures.append(f"MLPerf fit off: {mf}")
    expect(["predict", "--result", "mlf.h5", "--at", "n_accelerators=256"], 0, "contention")


def test_one_seed_one_answer_whatever_the_environment(mlperf):
    # Same seed, options and data give the same result whatever the environment: pmnf's 7
    # constants on 3 scales have a flat optimum, so the last bit of any row's value steers the
    # search. Once, that bit depended on where malloc put a scratch buffer (10 different answers
    # in 30 runs that differed only in the environment's size and the output path).
    ranks.write_mlperf_series(os.path.join(work, "rv3.csv"), "resnet", "NVIDIA V100", "MXNet",
                        lambda r: r["n_accelerators"] and int(r["n_accelerators"]) < 512)
    expect(["import", "rv3.csv", "--out", "ml.h5", "--set", "/mxnet/resnet/below512",
            "--target", "time_to_train_s_olympic_mean", "--drop-invalid"], 0)
    answers = set()
    for i in range(8):
        os.makedirs(os.path.join(work, "x" * (i + 1)), exist_ok=True)
        r = subprocess.run([perfit, "fit", "--data", "ml.h5", "--set", "/mxnet/resnet/below512", "--model", "pmnf",
                            "--factors", "p=n_accelerators", "--out", os.path.join("x" * (i + 1), "y" * (i + 1) + ".h5"),
                            "--json"], capture_output=True, text=True, cwd=work, env={**os.environ, "PAD": "z" * (7 * i)})
        answers.add(json.dumps(json.loads(r.stdout)["params"], sort_keys=True) if r.returncode == 0 else r.stderr)
    if len(answers) != 1:
        failures.append(f"one seed, {len(answers)} different pmnf fits across environments: {answers}")


def test_explain_agrees_with_predict(fitted, mlperf):
    # explain: shares along a sweep, crossovers, minimum, efficiency; consistent with predict
    expect(["explain", "--result", "mlf.h5", "--sweep", "n_accelerators=8..4096"], 0,
           "minimum time:", "parallel efficiency >= 50% up to n_accelerators=", "contention")
    ex = json.loads(expect(["explain", "--result", "fr.h5", "--sweep", "p=1..1024", "--at",
                            "b=256,d=1.28e6,epochs=1", "--json", "--efficiency", "0.6"], 0).stdout)
    pts = ex["points"]
    if [q["p"] for q in pts] != [2.0 ** k for k in range(11)] or pts[0]["efficiency"] != 1.0:
        failures.append(f"explain sweep points: {pts[:2]}")
    for q in pts:
        if abs(sum(q["share"].values()) - 1) > 1e-9:
            failures.append(f"explain shares do not add up at p={q['p']}: {q['share']}")
    best = min(pts, key=lambda q: q["time"])
    if ex["minimum"]["p"] != best["p"] or ex["efficiency_threshold"] != 0.6:
        failures.append(f"explain minimum {ex['minimum']} vs points {best}")
    if ex["efficient_up_to"] != max(q["p"] for q in pts if q["efficiency"] >= 0.6):
        failures.append(f"explain efficient_up_to {ex['efficient_up_to']}")
    one = json.loads(expect(["predict", "--result", "fr.h5", "--at", "p=64,b=256,d=1.28e6,epochs=1", "--json"], 0).stdout)
    if abs(one["prediction"] / pts[6]["time"] - 1) > 1e-12:
        failures.append(f"explain time at p=64 {pts[6]['time']} != predict {one['prediction']}")
    expect(["explain", "--result", "fr.h5", "--sweep", "p=1..64", "--at", "b=256"], 2, "missing factor(s)", "epochs")
    expect(["explain", "--result", "fr.h5", "--sweep", "p=64..1", "--at", "b=1,d=1,epochs=1"], 2, "0 < LO < HI")
    expect(["explain", "--result", "fr.h5", "--sweep", "p:1-64"], 2, "NAME=LO..HI")


def test_recommend_ranks_under_constraints_by_time_or_gpu_hours(fitted):
    # recommend: the best of every combination, under constraints, by time or GPU-hours
    space = ["recommend", "--result", "fr.h5", "--space", "p=1..512,b=32..1024", "--at", "d=1.28e6,epochs=90"]
    rec = json.loads(expect([*space, "--json", "--top", "60"], 0).stdout)
    times = [q["time"] for q in rec["ranking"]]
    if rec["evaluated"] != 60 or len(times) != 60 or times != sorted(times):
        failures.append(f"recommend: {rec['evaluated']} evaluated, ranking not sorted: {times[:5]}")
    low = json.loads(expect([*space, "--json", "--top", "3", "--objective", "gpu-hours", "--constraint",
                             "time<=3600,p>=8"], 0).stdout)["ranking"]
    feasible = [q for q in rec["ranking"] if q["time"] <= 3600 and q["p"] >= 8]
    want = sorted(feasible, key=lambda q: q["time"] * q["p"] / 3600)[:3]
    if [(q["p"], q["b"]) for q in low] != [(q["p"], q["b"]) for q in want] or \
            any(abs(q["gpu_hours"] - q["time"] * q["p"] / 3600) > 1e-9 * q["gpu_hours"] for q in low):
        failures.append(f"recommend gpu-hours: {low} vs {want}")
    expect([*space, "--top", "2"], 0, "best 2 by time", "rank")
    expect([*space, "--constraint", "p=<3"], 2, "is not NAME OP NUMBER")
    expect([*space, "--constraint", "q<=3"], 2, "'q': neither 'time' nor a factor")
    expect([*space, "--constraint", "time<0.001"], 3, "no configuration of the space meets the constraints")
    expect(["recommend", "--result", "fr.h5", "--space", "p=1..512"], 2, "missing factor(s)")


def test_the_separable_default_reaches_the_full_search_cost(fitted, mlperf):
    # Quality is not traded for speed: the default (sigma, kappa solved by least squares, t1
    # searched) reaches the cost of the full 3-D search, on the real set and on a synthetic one.
    for data, st, model, out in [("ml.h5", "/mxnet/resnet/v100", USL, "mlo"),
                                 ("f.h5", "/pytorch/resnet50", "generic", "fo")]:
        auto = json.loads(expect(["fit", "--data", data, "--set", st, "--model", model, "--out", out + "a.h5", "--json"], 0).stdout)
        off = json.loads(expect(["fit", "--data", data, "--set", st, "--model", model, "--out", out + "o.h5", "--json",
                                 "--separable", "off"], 0).stdout)
        if not auto["linear"] or off["linear"] or auto["cost"] > off["cost"] * (1 + 1e-9):
            failures.append(f"{st}: separable cost {auto['cost']} (linear {auto['linear']}) vs full search {off['cost']}")


# ---- every subcommand's options come from its table: values checked, positionals, lists ----
def test_subcommand_options_are_checked_by_their_table():
    # A value out of range, or not among the choices, names the flag and what it accepts.
    expect(["select", "--data", "x.h5", "--set", "/a/b", "--holdout", "1001"], 2,
           "--holdout: found '1001', expected a whole number in [0, 1000]")
    expect(["select", "--data", "x.h5", "--set", "/a/b", "--criterion", "r2"], 2,
           "--criterion: found 'r2', expected one of extrapolation, kfold, aic, bic")
    expect(["recommend", "--result", "x.h5", "--space", "p=1..2", "--objective", "cost"], 2,
           "--objective: found 'cost', expected one of time, gpu-hours")
    expect(["recommend", "--result", "x.h5", "--space", "p=1..2", "--top", "0"], 2,
           "--top: found '0', expected a whole number in [1, ")
    expect(["explain", "--result", "x.h5", "--sweep", "p=1..2", "--efficiency", "2"], 2,
           "--efficiency: found '2', expected a number in [0, 1]")
    expect(["pingpong", "--reps", "5"], 2, "--reps: found '5', expected a whole number in [10, 10000000]")
    expect(["import", "m.csv", "--out", "o.h5", "--set", "/a/b", "--format", "json"], 2,
           "--format: found 'json', expected one of csv, extrap")
    expect(["import", "m.csv", "--out", "o.h5", "--set", "/a/b", "--delimiter", "|"], 2,
           "--delimiter: found '|', expected one of ',' ';' tab")
    expect(["show"], 2, "result is required")
    expect(["predict", "--at", "p=1"], 2, "--result is required")
    for f in ["o.h5", "o.h5.tmp"]:
        if os.path.exists(os.path.join(work, f)):
            failures.append(f"a refused command wrote {f}")
    # Help shows what each option accepts and its default, from the same table.
    expect(["select", "--help"], 0, "--criterion TEXT", "(one of extrapolation, kfold, aic, bic) [extrapolation]",
           "--folds NUMBER", "[5]")
    # A repeatable option keeps every value; a comma list where the table says so.
    with open(os.path.join(work, "cat.csv"), "w") as f:
        f.write("fw;net;p;t\ntf;r50;1;2.0\ntf;r50;2;1.1\n")
    expect(["import", "cat.csv", "--out", "cat.h5", "--set", "/a/b", "--target", "t", "--delimiter", ";",
            "--categorical", "net,p"], 0, "imported 2 rows")
    import json
    r = expect(["inspect", "cat.h5", "--json"], 0, '"fw"')
    types = {c["name"]: c["type"] for c in json.loads(r.stdout)["sets"][0]["columns"]}
    if types.get("p") != "string" or types.get("net") != "string":
        failures.append(f"--categorical net,p: columns typed {types}")
    expect(["import", "cat.csv", "--out", "cat.h5", "--set", "/a/c", "--target", "t", "--delimiter", ";"], 0,
           "imported 2 rows")
    r = expect(["inspect", "cat.h5", "--set", "/a/b", "--set", "/a/c", "--json"], 0, '"/a/b"', '"/a/c"')
    if len(json.loads(r.stdout)["sets"]) != 2:
        failures.append(f"inspect --set twice: {r.stdout[:300]}")


# ---- a command that prints a result has --json; import's --force is every command's ----
def test_a_store_of_many_small_sets_is_a_store_to_import_into_again():
    """import --set-by of 100 call paths packs the small sets (@packs): importing into that store
    again (--force, --append) was refused as "an HDF5 file that is not a perfit result or store",
    and import and inspect printed every one of the 100 set names in one line."""
    with open(os.path.join(work, "paths.csv"), "w") as f:
        f.write("path,p,t\n" + "".join(f"k{k:03d},{p},{k + 100 / p}\n" for k in range(100) for p in (1, 2, 4, 8)))
    base = ["import", "paths.csv", "--out", "paths.h5", "--set", "/cp", "--set-by", "path", "--target", "t"]
    r = expect(base, 0, "as 100 sets by path", "/cp/k004 (4 rows) and 95 more (--json lists every one)")
    if "/cp/k005" in r.stdout:
        failures.append(f"import --set-by names every set: {r.stdout[:300]}")
    expect([*base, "--force"], 0, "as 100 sets by path")
    expect(["import", "paths.csv", "--out", "paths.h5", "--set", "/one/set", "--target", "t", "--append"], 0,
           "into 'paths.h5' set '/one/set'")
    r = expect(["inspect", "paths.h5"], 0, "101 set(s)", "and 93 more segments (--json lists every one)")
    if len(r.stdout.splitlines()[0]) > 400:
        failures.append(f"inspect of 101 sets: a first line of {len(r.stdout.splitlines()[0])} characters")
    # 10^4 values: each set was a copy of the whole table (quadratic: 3,000 sets of 75,000 rows
    # took 46 s and 12 GB, 10^4 of 5*10^5 the OOM killer); now one pass over the rows.
    with open(os.path.join(work, "many_paths.csv"), "w") as f:
        f.write("path,p,t\n" + "".join(f"k{k:05d},{p},{1 + k / p}\n" for k in range(10000) for p in (2, 4)))
    r = expect(["import", "many_paths.csv", "--out", "many_paths.h5", "--set", "/cp", "--set-by", "path",
                "--target", "t", "--json"], 0)
    doc = cli.as_json(r, "import --set-by of 10^4 values")
    if len(doc.get("sets", [])) != 10000 or doc.get("sets", [""])[-1] != "/cp/k09999" or set(doc.get("rows_in_sets", [])) != {2}:
        failures.append(f"import --set-by of 10^4 values: {len(doc.get('sets', []))} sets, {doc.get('sets', [])[-1:]}")


def test_json_of_synth_and_import_and_import_force():
    r = expect(["synth", "--out", "js.h5", "--rows", "100", "--set", "/pytorch/resnet50", "--json"], 0)
    j = cli.as_json(r, "synth --json")
    if j.get("rows") != 100 or j.get("sets") != ["/pytorch/resnet50"]:
        failures.append(f"synth --json: {j}")
    with open(os.path.join(work, "jf.csv"), "w") as f:
        f.write("p,t\n1,10\n2,6\n4,-1\n")
    base = ["import", "jf.csv", "--out", "jf.h5", "--set", "/a/b", "--target", "t", "--drop-invalid"]
    j = cli.as_json(expect([*base, "--json"], 0), "import --json")
    if (j.get("rows_imported"), j.get("rows_dropped"), j.get("created_store"), j.get("sets")) != (2, 1, True, ["/a/b"]):
        failures.append(f"import --json: {j}")
    expect(base, 3, "already has set '/a/b'", "--force to replace it")
    j = cli.as_json(expect([*base, "--force", "--json"], 0), "import --force --json")
    if not j.get("replaced") or j.get("created_store"):
        failures.append(f"import --force did not replace the set: {j}")
    expect([*base, "--replace"], 0, "(replaced)", "--replace is now --force")
    expect([*base, "--force", "--append"], 2, "--append and --force exclude each other")
    if "--replace" in run("import", "--help").stdout:
        failures.append("import --help still shows --replace")
