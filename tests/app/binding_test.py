#!/usr/bin/env python3
"""One --factors binding everywhere (docs/analysis.md "Your own column names"): a CSV with its own
column names (gpus, batch_per_gpu), bound once, then named either way in every command.

Run by pytest with the harness of tests/conftest.py (--perfit, --work, --source).
"""
import os
import subprocess
import sys

import pytest

import ranks

perfit, work, mpiexec = ranks.arguments()
failures = []
cli = ranks.Cli(perfit, work, mpiexec, failures)
expect, as_json = cli.expect, cli.as_json
S = ["--data", "runs.h5", "--set", "/pytorch/resnet50"]
GENERIC = ranks.RESNET_FACTORS


def setup_module():
    ranks.fit_resnet_example(expect)


# ---- fit and validate: one binding for every model, unread factors noted ----
def test_fit_and_validate_take_one_binding_for_every_model():
    expect(["fit", *S, "--model", "amdahl", "--factors", "p=gpus,b=batch_per_gpu", "--out", "am.h5", "--force"], 0,
           "--factors binds b, which model 'amdahl' does not read", "wrote am.h5")
    r = expect(["validate", *S, "--model", "generic", "--factors", GENERIC, "--split", "scale:p", "--json"], 0)
    doc = as_json(r, "validate --split scale:p")
    if doc and doc.get("split") != "scale:gpus":
        failures.append(f"validate --split scale:p did not hold out gpus: {doc.get('split')}")


# ---- a missing or misspelt binding says how to fix it ----
def test_a_wrong_binding_says_how_to_fix_it():
    expect(["fit", *S, "--model", "amdahl", "--out", "x.h5"], 2,
           "model 'amdahl' reads factor 'p', which is not a column of 'runs.h5' set '/pytorch/resnet50'",
           "bind it with --factors p=<column>", "numeric columns: gpus, batch_per_gpu")
    expect(["fit", *S, "--model", "amdahl", "--factors", "p=gpu", "--out", "x.h5"], 2,
           "--factors p=gpu: 'runs.h5' set '/pytorch/resnet50' has no column 'gpu'; did you mean 'gpus'?")
    if os.path.exists(os.path.join(work, "x.h5")):
        failures.append("a refused fit wrote x.h5")


# ---- the measured time is never a factor, nor suggested as one ----
def test_the_target_is_never_bound_nor_suggested():
    r = expect(["fit", *S, "--model", "generic", "--factors", "p=gpus,b=batch_per_gpu,d=1281167", "--out", "x.h5"], 2,
               "reads factor 'epochs', which is not a column")
    if "epoch_s" in r.stderr:
        failures.append(f"the target was suggested for a factor: {r.stderr}")
    expect(["fit", *S, "--model", "generic", "--factors", "p=gpus,b=batch_per_gpu,d=1281167,epochs=epoch_s",
            "--out", "x.h5"], 2,
           "--factors epochs=epoch_s: 'epoch_s' is the measured time of 'runs.h5' set '/pytorch/resnet50' (its target)")
    if os.path.exists(os.path.join(work, "x.h5")):
        failures.append("a refused fit wrote x.h5")


# ---- a column measured at one value need not be given again ----
def test_a_column_measured_at_one_value_is_held_there():
    src = os.path.join(ranks.SOURCE, "data", "examples", "resnet50_epochs.csv")
    with open(src) as f, open(os.path.join(work, "samples.csv"), "w") as g:
        lines = f.read().split()
        g.write(lines[0] + ",samples\n" + "".join(line + ",1281167\n" for line in lines[1:]))
    expect(["import", "samples.csv", "--out", "samples.h5", "--set", "/pytorch/resnet50", "--target", "epoch_s"], 0)
    expect(["fit", "--data", "samples.h5", "--set", "/pytorch/resnet50", "--model", "generic", "--factors",
            "p=gpus,b=batch_per_gpu,d=samples,epochs=1", "--out", "samples_fit.h5", "--max-generations", "60"], 0)
    held = "samples=1281167 not given: held at the one value the fit measured"
    r = expect(["predict", "--result", "samples_fit.h5", "--at", "p=256,b=64", "--json"], 0, held)
    given = expect(["predict", "--result", "samples_fit.h5", "--at", "p=256,b=64,d=1281167", "--json"], 0)
    if as_json(r, "predict, samples held").get("prediction") != as_json(given, "predict, d given").get("prediction"):
        failures.append(f"held and given samples predict differently:\n{r.stdout[:300]}\n{given.stdout[:300]}")
    if held in given.stderr:
        failures.append(f"a note though samples was given: {given.stderr}")
    expect(["explain", "--result", "samples_fit.h5", "--sweep", "gpus=1..64", "--at", "b=64"], 0, held)
    expect(["recommend", "--result", "samples_fit.h5", "--space", "gpus=1..64,batch_per_gpu=32..256", "--top", "1"],
           0, held)


# ---- gpu-hours convert from the stored unit ----
def test_gpu_hours_convert_from_the_stored_unit():
    got = {}
    for unit in ("s", "min", "ms"):
        expect(["import", os.path.join(ranks.SOURCE, "data", "examples", "resnet50_epochs.csv"), "--out",
                f"u_{unit}.h5", "--set", "/pytorch/resnet50", "--target", "epoch_s", "--unit", unit], 0)
        expect(["fit", "--data", f"u_{unit}.h5", "--set", "/pytorch/resnet50", "--model", "amdahl", "--factors",
                "p=gpus", "--out", f"u_{unit}_fit.h5", "--seed", "2"], 0)
        r = expect(["recommend", "--result", f"u_{unit}_fit.h5", "--space", "p=1..64", "--objective", "gpu-hours",
                    "--top", "1", "--json"], 0)
        best = (as_json(r, f"recommend in {unit}").get("ranking") or [{}])[0]
        got[unit] = (best.get("time", 0.0), best.get("gpus", 0.0), best.get("gpu_hours", 0.0))
    for unit, seconds in (("s", 1.0), ("min", 60.0), ("ms", 1e-3)):
        time, gpus, hours = got[unit]
        want = time * gpus * seconds / 3600.0
        if not want > 0 or abs(hours - want) > 1e-9 * want:
            failures.append(f"gpu-hours from {unit}: {hours}, expected {time} {unit} x {gpus} GPUs = {want}")
    expect(["import", os.path.join(ranks.SOURCE, "data", "examples", "resnet50_epochs.csv"), "--out", "u_x.h5",
            "--set", "/pytorch/resnet50", "--target", "epoch_s", "--unit", "steps"], 0)
    expect(["fit", "--data", "u_x.h5", "--set", "/pytorch/resnet50", "--model", "amdahl", "--factors", "p=gpus",
            "--out", "u_x_fit.h5"], 0)
    expect(["recommend", "--result", "u_x_fit.h5", "--space", "p=1..64", "--objective", "gpu-hours"], 2,
           "--objective gpu-hours: 'u_x_fit.h5' measures epoch_s in 'steps', which is not a time unit")


# ---- a user's CSV as it comes: stray carriage returns, empty cells, text in a grid ----
def test_a_csv_as_it_comes_is_read_or_refused_by_name():
    with open(os.path.join(work, "cr.csv"), "w", newline="") as f:
        f.write("gpus,epoch_s\r\r\n1,100\r\n2,51\r\n")
    expect(["import", "cr.csv", "--out", "cr.h5", "--set", "/a/b", "--target", "epoch_s"], 3,
           "has no target column 'epoch_s'; header columns: gpus, 'epoch_s\\r'")
    with open(os.path.join(work, "holes.csv"), "w") as f:
        f.write("gpus,batch,epoch_s\n1,32,100\n2,,51\n4,,26\n")
    expect(["import", "holes.csv", "--out", "holes.h5", "--set", "/a/b", "--target", "epoch_s"], 0,
           "'holes.csv' column 'batch': 2 empty cell(s), the first on line 3, kept as missing (NaN)")
    with open(os.path.join(work, "textgrid.csv"), "w") as f:
        f.write("gpus,batch_per_gpu\nmany,32\n16,64\n")
    expect(["predict", "--result", "g.h5", "--grid", "textgrid.csv", "--out", "tg.csv"], 3,
           "'textgrid.csv' line 2, column 'gpus': found 'many', expected a number")
    r = expect(["predict", "--result", "g.h5", "--at", "gpus=8,batch_per_gpu=64,epochs=90"], 0,
               "fitted to epoch_s): predicted time at gpus=8")
    if "predicted epoch_s" in r.stdout:
        failures.append(f"a 90-epoch time called epoch_s: {r.stdout[:300]}")


# ---- recommend's intervals say what they hold ----
def test_recommend_says_what_its_interval_holds():
    space = ["recommend", "--result", "g.h5", "--space", "p=1..64,b=32..256", "--top", "2", "--interval", "0.9"]
    doc = as_json(expect([*space, "--json"], 0), "recommend --interval --json")
    rows = doc.get("ranking") or [{}]
    if any(not x.get("time_interval", [1, 0])[0] < x.get("time", -1) < x.get("time_interval", [1, 0])[1] for x in rows):
        failures.append(f"recommend --interval 0.9: intervals do not hold their times: {rows}")
    if doc.get("ci") != 0.9 or "run-to-run noise" not in doc.get("interval_contains", ""):
        failures.append(f"recommend --interval 0.9 --json: {doc.get('ci')}, {doc.get('interval_contains')}")
    expect(space, 0, "90% interval", "the interval holds run-to-run noise and misfit")


# ---- a switch and its --no- form: the later one wins, and --help reads plainly ----
def test_a_switch_and_its_opposite():
    r = expect(["fit", "--help"], 0, "--no-polish                 the opposite of --polish")
    if "{false}" in r.stdout:
        failures.append("fit --help shows CLI11's {false}")
    if "--slow-island" in r.stdout or "--slow-ms" in r.stdout or "--migration-interval" not in r.stdout:
        failures.append("fit --help shows a test hook (--slow-island, --slow-ms) or lacks --migration-interval")
    fits = {}
    for order in (["--polish", "--no-polish"], ["--no-polish", "--polish"]):
        r = expect(["fit", *S, "--model", "amdahl", "--factors", "p=gpus", "--out", "sw.h5", "--force", "--json",
                    *order], 0)
        fits[order[-1]] = as_json(r, "fit --json").get("config", {}).get("polish")
    if fits != {"--no-polish": False, "--polish": True}:
        failures.append(f"the later switch did not win: {fits}")


# ---- predict, explain, recommend: a factor by its name or its column ----
def test_predict_explain_recommend_by_factor_or_column():
    r1 = expect(["predict", "--result", "g.h5", "--at", "p=128,b=128", "--json"], 0)
    r2 = expect(["predict", "--result", "g.h5", "--at", "gpus=128,batch_per_gpu=128", "--json"], 0)
    a, b = as_json(r1, "predict p,b"), as_json(r2, "predict gpus,batch_per_gpu")
    if a.get("prediction") is None or a.get("prediction") != b.get("prediction"):
        failures.append(f"predict by factor and by column differ: {a.get('prediction')} {b.get('prediction')}")
    # A factor the fit fixed (epochs=1) takes a new value: 90 epochs cost more than one.
    r3 = expect(["predict", "--result", "g.h5", "--at", "p=128,b=128,epochs=90", "--json"], 0)
    c = as_json(r3, "predict epochs=90")
    if not c.get("prediction", 0) > 10 * a.get("prediction", 1):
        failures.append(f"epochs=90 did not scale the per-epoch terms: {c.get('prediction')} vs {a.get('prediction')}")
    expect(["predict", "--result", "g.h5", "--at", "p=128,gpus=64,b=128"], 2,
           "'gpus' is given twice (the fit bound p to gpus)")
    with open(os.path.join(work, "grid.csv"), "w") as f:
        f.write("p,b,epochs\n128,128,1\n256,128,5\n")
    expect(["predict", "--result", "g.h5", "--grid", "grid.csv", "--out", "pred.csv", "--force"], 0, "wrote 2")
    with open(os.path.join(work, "pred.csv")) as f:
        rows = [line.split(",") for line in f.read().split()[1:]]
    r = expect(["predict", "--result", "g.h5", "--at", "p=256,b=128,epochs=5", "--json"], 0)
    want = as_json(r, "predict epochs=5").get("prediction", 0)
    if len(rows) != 2 or abs(float(rows[1][3]) - want) > 1e-8 * want:
        failures.append(f"predict --grid with epochs per row: {rows}, --at gives {want}")
    r = expect(["explain", "--result", "g.h5", "--sweep", "p=1..256", "--at", "b=128", "--json"], 0)
    if as_json(r, "explain --sweep p").get("factor") != "gpus":
        failures.append(f"explain --sweep p did not sweep gpus: {r.stdout[:200]}")
    expect(["explain", "--result", "g.h5", "--sweep", "epochs=1..8", "--at", "p=8,b=128"], 0, "epochs")
    r = expect(["recommend", "--result", "g.h5", "--space", "p=1..64,b=32..256", "--objective", "gpu-hours",
                "--constraint", "p>=4", "--top", "2", "--json"], 0)
    best = as_json(r, "recommend by factor names").get("ranking", [])
    if not best or any(x.get("gpus", 0) < 4 for x in best):
        failures.append(f"recommend --constraint p>=4 on gpus: {r.stdout[:400]}")


# ---- a manifest binds once at its top, for every entry and model ----
def test_batch_manifest_binds_at_its_top():
    with open(os.path.join(work, "m.yaml"), "w") as f:
        f.write("data: runs.h5\nfactors: {p: gpus, b: batch_per_gpu, d: 1281167, epochs: 1}\n"
                "options: {de: {max_generations: 40}}\n"
                "fits:\n  - sets: [/pytorch/resnet50]\n    models: [generic, amdahl]\n")
    r = expect(["batch", "--manifest", "m.yaml", "--out", "batch", "--force", "--json"], 0)
    doc = as_json(r, "batch --json")
    if sorted(x.get("status") for x in doc.get("rows", [])) != ["ok", "ok"]:
        failures.append(f"batch with top-level factors: {r.stdout[:600]}")
    with open(os.path.join(work, "m2.yaml"), "w") as f:
        f.write("data: runs.h5\nfactors: p=gpus\noptions: {factors: p=nodes}\n"
                "fits:\n  - sets: [/pytorch/resnet50]\n    models: [amdahl]\n")
    expect(["batch", "--manifest", "m2.yaml", "--out", "batch2"], 2, "'factors' is given twice")


# ---- the plot script sweeps a factor by its name ----
def test_plot_script_sweeps_by_factor_name():
    if not os.path.exists(os.path.join(os.path.dirname(perfit), "python", "perfit", "__init__.py")):
        pytest.skip("this build has no Python package (the sanitize preset); the test preset runs this")
    script = os.path.join(ranks.SOURCE, "scripts", "plot_fit.py")
    r = subprocess.run([sys.executable, script, "g.h5", "--out", "plots", "--sweep", "p", "--perfit", perfit],
                       cwd=work, capture_output=True, text=True, timeout=300)
    if r.returncode != 0 or not os.path.exists(os.path.join(work, "plots", "terms.png")):
        failures.append(f"plot_fit.py --sweep p: exit {r.returncode}\n{r.stderr[-2000:]}")
