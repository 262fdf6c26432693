#!/usr/bin/env python3
"""The Python package `perfit` against the real built extension (build/python on PYTHONPATH):
stores in and out, a fit on a DataFrame equal to the CLI's on the same rows and seed,
predictions with intervals and extrapolation flags, the CLI's errors as exceptions, results
the CLI reads, Ctrl-C during a fit, and the GIL released while fitting.

Run by pytest with the harness of tests/conftest.py (--perfit, --work).
"""
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import threading

import h5py
import numpy as np
import pandas as pd
import pytest

import perfit
import ranks

exe, work, _ = ranks.arguments()
store = os.path.join(work, "runs.h5")
subprocess.run([exe, "synth", "--out", store, "--rows", "3000", "--seed", "5", "--set", "/pytorch/resnet50"],
               check=True, stdout=subprocess.DEVNULL)


def own_columns(seed=1, noise=0.02):
    """A user's own CSV in a DataFrame: gpus 1..64, batch_per_gpu 32..256, 3 repetitions,
    time = 2 + 600 / gpus (Amdahl) with noise."""
    rng = np.random.default_rng(seed)
    rows = [(g, b) for g in (1, 2, 4, 8, 16, 32, 64) for b in (32, 64, 128, 256) for _ in range(3)]
    gpus = np.array([r[0] for r in rows])
    batch = np.array([r[1] for r in rows])
    time = (2.0 + 600.0 / gpus) * np.exp(rng.normal(0.0, noise, len(rows)))
    return pd.DataFrame({"gpus": gpus, "batch_per_gpu": batch, "time": time,
                         "framework": ["pytorch"] * len(rows)})


def cli(*args):
    return subprocess.run([exe, *args], capture_output=True, text=True, cwd=work)


def test_store_round_trip_readable_by_h5py_and_the_cli():
    df = own_columns()
    path = os.path.join(work, "own.h5")
    assert perfit.write_store(df, path, "/pytorch/own", target="time") == len(df)
    back = perfit.read_store(path, "/pytorch/own")
    pd.testing.assert_frame_equal(back, df)
    assert back.attrs["target"] == "time" and back.attrs["checksum"].startswith("fnv1a64:")
    with h5py.File(path, "r") as f:
        np.testing.assert_array_equal(f["/pytorch/own/gpus"][:], df["gpus"].to_numpy())
    r = cli("inspect", path)
    assert r.returncode == 0 and "/pytorch/own" in r.stdout, r.stdout + r.stderr
    with pytest.raises(perfit.DataError, match="already has set '/pytorch/own'.*append=True.*replace=True"):
        perfit.write_store(df, path, "/pytorch/own", target="time")
    bad = df.copy()
    bad.loc[4, "time"] = np.nan
    with pytest.raises(perfit.DataError, match=r"'the DataFrame' row 4, target column 'time': found NaN"):
        perfit.write_store(bad, path, "/pytorch/own", target="time", replace=True)
    pd.testing.assert_frame_equal(perfit.read_store(path, "/pytorch/own"), df)  # nothing written
    with pytest.raises(perfit.DataError, match="has no set '/pytorch/nope'"):
        perfit.read_store(path, "/pytorch/nope")


def test_fit_equals_the_cli_on_the_same_rows_and_seed():
    out = os.path.join(work, "cli.h5")
    r = cli("fit", "--data", store, "--set", "/pytorch/resnet50", "--model", "generic", "--seed", "7",
            "--out", out, "--json")
    assert r.returncode == 0, r.stderr
    want = json.loads(r.stdout)
    df = perfit.read_store(store, "/pytorch/resnet50")
    got = perfit.fit(df, model="generic", target=df.attrs["target"], seed=7)
    assert got.values == want["params"]  # bit for bit
    assert got.info["cost"] == want["cost"] and got.info["generations"] == want["generations"]
    assert got.stop_reason == want["stop_reason"]
    assert got.info["data_checksum"] == want["data_checksum"]  # the same rows, the same fingerprint
    assert set(got.params.columns) >= {"value", "lo", "hi", "at_bound", "determined", "ci_lo", "ci_hi"}
    assert "fit of model 'generic'" in got.report() and "<table" in got._repr_html_()


def test_own_column_names_predict_with_interval_and_extrapolation_flag():
    df = own_columns()
    f = perfit.fit(df, model="amdahl", target="time", factors={"p": "gpus"}, seed=2, bootstrap=30)
    assert f.ranges["gpus"] == (1.0, 64.0)
    assert not f.params["ci_lo"].isna().any()
    new = pd.DataFrame({"gpus": [8, 256], "label": ["inside", "beyond"]})
    with pytest.warns(UserWarning, match=r"1 of 2 point\(s\) extrapolate.*gpus=256 4x above the measured 1..64"):
        pred = f.predict(new, interval=0.9)
    assert list(pred["label"]) == ["inside", "beyond"]  # other columns are kept
    assert list(pred["extrapolated"]) == [False, True] and pred["outside"][1] == "gpus>4x"
    assert (pred["lo_time"] < pred["predicted_time"]).all() and (pred["predicted_time"] < pred["hi_time"]).all()
    assert "noise" in pred.attrs["interval_contains"]
    assert abs(pred["predicted_time"][0] - (2 + 600 / 8)) / (2 + 600 / 8) < 0.05
    terms = [c for c in pred.columns if c.startswith("term_")]
    np.testing.assert_allclose(pred[terms].sum(axis=1), pred["predicted_time"], rtol=1e-9)
    # the factor's own name works too
    by_factor = f.predict(pd.DataFrame({"p": [8]}))
    assert by_factor["predicted_time"][0] == pred["predicted_time"][0]


def test_save_and_load_are_the_cli_result_file():
    df = own_columns()
    f = perfit.fit(df, model="amdahl", target="time", factors={"p": "gpus"}, seed=3)
    path = os.path.join(work, "amdahl.h5")
    f.save(path)
    r = cli("predict", "--result", path, "--at", "gpus=16", "--json")
    assert r.returncode == 0, r.stderr
    assert abs(json.loads(r.stdout)["prediction"] - f.predict(pd.DataFrame({"gpus": [16]}))["predicted_time"][0]) < 1e-9
    g = perfit.load(path)
    assert g.values == f.values and g.metrics == f.metrics
    with pytest.raises(perfit.ConfigError, match="exists.*pass force=True to replace it"):
        f.save(path)
    with pytest.raises(perfit.PerfitError, match="runs.h5"):
        f.save(store, force=True)  # a store is not a result: never overwritten
    with pytest.raises(perfit.DataError, match="not a perfit result"):
        perfit.load(store)


def test_bad_input_raises_the_cli_message():
    df = own_columns()
    nan = df.copy()
    nan["gpus"] = nan["gpus"].astype(float)
    nan.loc[3, "gpus"] = np.inf
    with pytest.raises(perfit.DataError, match=r"has NaN or inf values the model needs.*gpus.*drop_invalid=True"):
        perfit.fit(nan, model="amdahl", target="time", factors={"p": "gpus"})
    nullable = df.copy()
    nullable["gpus"] = nullable["gpus"].astype("Int64")
    nullable.loc[5, "gpus"] = pd.NA  # pandas' missing value: NaN, refused as in a CSV
    with pytest.raises(perfit.DataError, match=r"has NaN or inf values the model needs.*gpus"):
        perfit.fit(nullable, model="amdahl", target="time", factors={"p": "gpus"})
    ok = perfit.fit(nullable.dropna(), model="amdahl", target="time", factors={"p": "gpus"})
    assert ok.info["rows"] == len(df) - 1
    with pytest.raises(perfit.ConfigError, match=r"factors=\{'p': '<column>'\}.*gpus") as unbound:
        perfit.fit(df, model="amdahl", target="time")
    with pytest.raises(perfit.ConfigError, match=r"factors=\{'p': 'gpu'\}: .* did you mean 'gpus'") as wrong:
        perfit.fit(df, model="amdahl", target="time", factors={"p": "gpu"})
    for e in (unbound, wrong):  # Python's words, not the CLI's flags
        assert "--factors" not in str(e.value), str(e.value)
    with pytest.raises(perfit.ConfigError, match=r"factors=\{'epochs': 'time'\}: 'time' is the measured time"):
        perfit.fit(df, model="generic", target="time",
                   factors={"p": "gpus", "b": "batch_per_gpu", "d": 1.28e6, "epochs": "time"})
    with pytest.raises(perfit.ConfigError, match=r"text"):
        perfit.fit(df, model="amdahl", target="time", factors={"p": "framework"})
    with pytest.raises(perfit.ConfigError, match=r"unknown option 'max_generation'; did you mean 'max-generations'"):
        perfit.fit(df, model="amdahl", target="time", factors={"p": "gpus"}, max_generation=5)
    with pytest.raises(perfit.ConfigError, match=r"option 'seed'.*found 'x', expected a whole number"):
        perfit.fit(df, model="amdahl", target="time", factors={"p": "gpus"}, seed="x")
    with pytest.raises(perfit.PerfitError, match=r"'time'"):
        perfit.fit(df.drop(columns=["time"]), model="amdahl", target="time", factors={"p": "gpus"})
    assert "seed" in perfit.options().index


def test_the_gil_is_released_during_a_fit():
    df = perfit.read_store(store, "/pytorch/resnet50")
    done = threading.Event()
    ticks = 0

    def run():  # ten fits (~1 s): a loaded machine still lets the main thread run often meanwhile
        for seed in range(10):
            perfit.fit(df, model="generic", target=df.attrs["target"], separable="off", max_generations=3000, tol=0.0,
                       seed=seed + 1)
        done.set()

    t = threading.Thread(target=run)
    t.start()
    while not done.is_set():  # runs only while the fit has let go of the GIL
        ticks += 1
        done.wait(0.001)
    t.join()
    assert ticks > 20, f"the main thread ran {ticks} times during the fit"


def test_ctrl_c_stops_a_fit_with_keyboard_interrupt():
    script = (
        "import sys, perfit\n"
        f"df = perfit.read_store({store!r}, '/pytorch/resnet50')\n"
        "try:\n"
        "    perfit.fit(df, model='generic', target=df.attrs['target'], separable='off', tol=0.0,\n"
        "               max_generations=100000000, progress_every=1, verbose=True)\n"
        "except KeyboardInterrupt:\n"
        "    print('KeyboardInterrupt', flush=True)\n"
        "    sys.exit(7)\n"
        "print('finished')\n")
    env = dict(ranks.ENV, PYTHONPATH=os.environ.get("PYTHONPATH", ""))
    w = ranks.Watched([sys.executable, "-c", script], cwd=work, env=env)
    w.wait_generation(20)
    w.signal(signal.SIGINT)
    code, out, err = w.finish(timeout=60)
    assert code == 7 and "KeyboardInterrupt" in out, (code, out, err[-800:])


def test_a_result_keeps_its_rows_and_travels_alone():
    out = os.path.join(work, "moved", "deep", "r.h5")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    r = cli("fit", "--data", store, "--set", "/pytorch/resnet50", "--model", "generic", "--out", out)
    assert r.returncode == 0, r.stderr
    f = perfit.load(out)
    rows = f.rows
    assert len(rows) == 3000 and f.info["rows_kept_stride"] == 1
    assert {"p", "b", "d", "epochs", "time_s", "predicted", "residual"} <= set(rows.columns)
    np.testing.assert_allclose(rows["residual"], rows["time_s"] - rows["predicted"], rtol=0, atol=1e-9)
    assert f.info["data_file_from_result"] == os.path.join("..", "..", "runs.h5")
    lonely = os.path.join(work, "lonely.h5")
    os.rename(out, lonely)  # alone, elsewhere: the rows still answer
    assert len(perfit.load(lonely).rows) == 3000
    # past 10,000 rows, every k-th row
    rng = np.random.default_rng(3)
    big = pd.DataFrame({"gpus": rng.integers(1, 65, 25000)})
    big["time"] = 2 + 600 / big.gpus
    g = perfit.fit(big, model="amdahl", target="time", factors={"p": "gpus"})
    assert g.info["rows_kept_stride"] == 3 and len(g.rows) == 8334


def test_select_validate_and_batch_summary_equal_the_cli():
    df = own_columns()
    path = os.path.join(work, "sel.h5")
    perfit.write_store(df, path, "/pytorch/own", target="time")
    r = cli("select", "--data", path, "--set", "/pytorch/own", "--models", "amdahl,power,usl", "--factors", "p=gpus",
            "--json")
    assert r.returncode == 0, r.stderr
    want = json.loads(r.stdout)
    s = perfit.select(df, models=["amdahl", "power", "usl"], factors={"p": "gpus"})
    ranking, winner = s
    assert list(ranking["model"]) == [x["model"] for x in want["ranking"]]
    assert list(ranking["score"]) == [x["score"] for x in want["ranking"]]
    assert list(ranking["why"]) == [x.get("why", "") for x in want["ranking"]] and ranking["why"].iloc[0]
    assert winner.model == want["best"] and winner.info["data_file"] == "DataFrame"
    assert "<table" in s._repr_html_() and "extrapolation" in repr(s)
    r = cli("validate", "--data", path, "--set", "/pytorch/own", "--model", "amdahl", "--factors", "p=gpus",
            "--split", "scale:p", "--json")
    assert r.returncode == 0, r.stderr
    want = json.loads(r.stdout)
    v = perfit.validate(df, model="amdahl", split="scale:p", factors={"p": "gpus"})
    assert v.attrs["summary"] == want["summary"] and list(v.index) == [f["fold"] for f in want["folds"]]
    with pytest.raises(perfit.ConfigError, match="criterion"):
        perfit.select(df, criterion="best", factors={"p": "gpus"})
    bad = df.assign(gpus=df["gpus"].astype(float))
    bad.loc[2, "gpus"] = np.nan
    # rows in memory, no temporary store: the error names the DataFrame and its column
    with pytest.raises(perfit.DataError, match=r"^the DataFrame has NaN or inf values .* column 'gpus'") as e:
        perfit.select(bad, models=["amdahl"], factors={"p": "gpus"})
    assert ".h5" not in str(e.value)
    with pytest.raises(perfit.DataError, match=r"^'the DataFrame' row 1, target column 'time'"):
        perfit.validate(df.assign(time=df["time"].where(df.index != 1, -1.0)), model="amdahl", factors={"p": "gpus"})
    out = os.path.join(work, "many")
    r = cli("select", "--data", store, "--set", "/pytorch/*", "--models", "amdahl,power", "--out", out)
    assert r.returncode == 0, r.stderr
    summary = perfit.batch_summary(out)
    assert list(summary["set"]) == ["/pytorch/resnet50"] and set(summary["status"]) == {"ok"}
    with pytest.raises(perfit.DataError, match="neither summary.csv nor selection.csv"):
        perfit.batch_summary(work)


def test_a_store_read_back_fits_under_its_own_set_unit_and_target():
    df = own_columns().rename(columns={"time": "epoch_min"})
    path = os.path.join(work, "attrs.h5")
    perfit.write_store(df, path, "/pytorch/mine", target="epoch_min", unit="min")
    back = perfit.read_store(path, "/pytorch/mine")
    f = perfit.fit(back, model="amdahl", factors={"p": "gpus"}, seed=1)
    assert (f.info["set"], f.info["unit"], f.target) == ("/pytorch/mine", "min", "epoch_min"), f.info


def test_batch_summary_gives_each_constant_its_column():
    with open(os.path.join(work, "two.yaml"), "w") as f:
        f.write(f"data: {store}\nfits:\n  - sets: [/pytorch/resnet50]\n    models: [amdahl, power]\n")
    out = os.path.join(work, "two")
    r = cli("batch", "--manifest", "two.yaml", "--out", out)
    assert r.returncode == 0, r.stderr
    summary = perfit.batch_summary(out).set_index("model")
    assert "params" not in summary.columns
    for model in ("amdahl", "power"):
        fit = perfit.load(os.path.join(out, os.path.basename(summary.loc[model, "result"])))
        got = {c[len("param_"):]: v for c, v in summary.loc[model].items() if c.startswith("param_") and v == v}
        assert got.keys() == fit.values.keys(), (got, fit.values)
        for name, v in fit.values.items():
            assert math.isclose(got[name], v, rel_tol=1e-5), (model, name, got[name], v)


def test_a_selection_keeps_every_candidate_fitted_on_every_row():
    df = own_columns()
    s = perfit.select(df, models=["amdahl", "power", "usl"], factors={"p": "gpus"})
    c = s.fit.candidates
    assert list(c["model"]) == list(s.ranking["model"]) and c["curve"].all()
    second = s.fit.candidate(2)
    assert second.model == c["model"][1]
    assert second.predict(pd.DataFrame({"gpus": [8]}))["predicted_time"][0] > 0
    out = os.path.join(work, "winner.h5")
    r = cli("select", "--data", store, "--set", "/pytorch/resnet50", "--models", "amdahl,power", "--out", out)
    assert r.returncode == 0, r.stderr
    assert list(perfit.load(out).candidates["rank"]) == [1, 2]


def test_a_result_without_rows_says_in_one_line_what_is_missing():
    out = os.path.join(work, "sel_norows")
    r = cli("select", "--data", "runs.h5", "--set", "/pytorch/*", "--models", "amdahl", "--out", out)
    assert r.returncode == 0, r.stderr
    import perfit.figures as figures
    here = perfit.load(os.path.join(out, "selection.h5"), "/pytorch/resnet50")
    assert len(here.rows) == 0  # a selection store's winner keeps no rows: the store's are read
    assert len(figures.rows_of(here)) == 3000
    away = os.path.join(work, "away", "from", "it")
    os.makedirs(away)
    shutil.copy(os.path.join(out, "selection.h5"), away)
    cwd = os.getcwd()
    os.chdir(away)  # the store is neither where it was named nor beside the copy
    try:
        lonely = perfit.load("selection.h5", "/pytorch/resnet50")
        with pytest.raises(perfit.DataError, match=r"keeps no rows .* its data 'runs.h5' set '/pytorch/resnet50' "
                                                   r"is not found from here"):
            figures.scaling(lonely)
    finally:
        os.chdir(cwd)


def test_figures_hold_other_factors_at_measured_values_unless_asked():
    import perfit.figures as figures
    df = own_columns()
    df["time"] = df["time"] * (1 + 8 / df["batch_per_gpu"])
    f = perfit.fit(df, model="generic", target="time",
                   factors={"p": "gpus", "b": "batch_per_gpu", "d": 1.28e6, "epochs": 1})
    rows = figures.rows_of(f)
    measured = figures._curve(f, rows, "gpus", {"batch_per_gpu": 64}, 2.0)
    assert set(measured["batch_per_gpu"]) == {64}
    asked = figures._curve(f, rows, "gpus", {}, 2.0, at={"b": 96})  # by factor name, not measured
    assert set(asked["batch_per_gpu"]) == {96}
    with pytest.warns(UserWarning, match=r"no run was measured at batch_per_gpu=96 \(measured batch_per_gpu: 32"):
        fig = figures.scaling(f, at={"b": 96})
    assert "lines at b=96 as asked" in fig.axes[0].get_title()
    assert fig.axes[0].get_legend() is None  # held at 96: no line per measured batch size
    with pytest.raises(perfit.ConfigError, match=r"at=\{'q': ...\}: not a factor held along the curve"):
        figures.scaling(f, at={"q": 1})
