#!/usr/bin/env python3
"""Issue 24 parts 1 and 2 (docs/selection.md "Naive candidates", docs/analysis.md "Prediction
intervals"): select's naive candidates, the rolling-origin validation and the prior for two
scales, the choice written as a result every command reads, and prediction intervals that say
what they contain.

Run by pytest with the harness of tests/conftest.py (--perfit, --work, --source).
"""
import math
import os

import h5py
import pytest
import numpy as np

import ranks

perfit, work, mpiexec = ranks.arguments()
failures = []
cli = ranks.Cli(perfit, work, mpiexec, failures)
expect, as_json = cli.expect, cli.as_json


def series(name, gpus, reps, time):
    """A store with one set /bench/<name>: columns gpus and time_s (reps rows per scale)."""
    path = os.path.join(work, name + ".csv")
    with open(path, "w") as f:
        f.write("gpus,time_s\n")
        for k, g in enumerate(gpus):
            for r in range(reps):
                f.write(f"{g},{time(g) * (1 + 0.01 * ((k + r) % 3 - 1)):.12g}\n")
    expect(["import", name + ".csv", "--out", name + ".h5", "--set", "/bench/" + name, "--target", "time_s"], 0)
    return ["--data", name + ".h5", "--set", "/bench/" + name, "--factors", "p=gpus"]


@pytest.fixture(scope="module")
def ideal():
    """ideal.h5: 800/gpus at 1..16 GPUs, 3 runs each; the arguments that select its set."""
    return series("ideal", [1, 2, 4, 8, 16], 3, lambda g: 800.0 / g)


def test_naive_candidates_compete_by_default_and_write_a_result(ideal):
    s = ideal
    # (a generation cap keeps pmnf's 7-constant search short under the sanitizers)
    doc = as_json(expect(["select", *s, "--json", "--out", "best.h5", "--max-generations", "100"], 0), "select")
    sources = [x["source"] for x in doc.get("ranking", [])]
    if not {"naive-ideal", "naive-loglog", "ideal-fit"} <= set(sources):
        failures.append(f"select: the naive candidates are not ranked: {sources}")
    if doc.get("how") != "MAPE of held-out rows, split forward:gpus":
        failures.append(f"select: not the rolling origin: {doc.get('how')}")
    # a naive predictor chosen by --models is a result of constants only that every command reads
    doc = as_json(expect(["select", *s, "--models", "naive-ideal", "--json", "--out", "n.h5"], 0), "select naive")
    if doc.get("best") != "naive_ideal":
        failures.append(f"select --models naive-ideal: best {doc.get('best')}")
    expect(["show", "n.h5"], 0, "model has no params (only constants): evaluated, nothing to fit")
    mean16 = sum(800.0 / 16 * (1 + 0.01 * ((4 + r) % 3 - 1)) for r in range(3)) / 3
    p = as_json(expect(["predict", "--result", "n.h5", "--at", "gpus=64", "--json", "--interval", "0.9"], 0), "predict")
    if not math.isclose(p.get("prediction", 0), mean16 * 16 / 64, rel_tol=1e-9):
        failures.append(f"naive-ideal at 64: {p.get('prediction')}, expected {mean16 * 16 / 64}")
    iv = p.get("interval", {})
    if not (iv.get("lo", 1e9) < p.get("prediction", 0) < iv.get("hi", 0)
            and "the model choice (its errors predicting 3 held-out scale(s), split forward:gpus" in iv.get("contains", "")):
        failures.append(f"predict --interval of the naive choice: {iv}")
    if [(x["factor"], x["side"]) for x in p.get("extrapolated", [])] != [("gpus", "above")]:
        failures.append(f"predict: gpus=64 not flagged: {p.get('extrapolated')}")
    expect(["explain", "--result", "n.h5", "--sweep", "gpus=1..64"], 0)
    with h5py.File(os.path.join(work, "n.h5"), "r") as h:  # the documented attributes
        if h.attrs["choice_dof"] != 3 or not h.attrs["choice_log_sd"] > 0 or h.attrs["noise_dof"] != 14:  # 15 runs less t_last, estimated from them
            failures.append(f"h5py: choice/noise attributes {dict(h.attrs)}")


def test_the_choice_part_is_the_last_held_out_error_grown_as_it_grew():
    # naive-ideal predicts each held-out scale from the mean of the one before, so its fold
    # errors are known here: the choice part is the last fold's rms ln error, times its growth
    # over the fold before when it grew (at most 3x)
    # (an overhead that fades with gpus: the errors shrink; a serial part: they grow)
    for name, time, grows in [("grow_fading", lambda g: 800.0 / g * (1 + 0.2 / g), False),
                              ("grow_amdahl", lambda g: 50.0 + 800.0 / g, True)]:
        gpus = [1, 2, 4, 8, 16]
        s = series(name, gpus, 3, time)
        expect(["select", *s, "--models", "naive-ideal", "--out", name + "_sel.h5"], 0)
        with open(os.path.join(work, name + ".csv")) as f:  # the values as written
            rows = [tuple(map(float, line.split(","))) for line in f.readlines()[1:]]
        runs = [[t for g2, t in rows if g2 == g] for g in gpus]

        def fold(k):  # scale k predicted from scale k-1
            pred = sum(runs[k - 1]) / 3 * gpus[k - 1] / gpus[k]
            return math.sqrt(sum(math.log(pred / m) ** 2 for m in runs[k]) / 3)
        last, before = fold(4), fold(3)
        want = last * min(max(last / before, 1.0), 3.0)
        with h5py.File(os.path.join(work, name + "_sel.h5"), "r") as h:
            got, how = h.attrs["choice_log_sd"], h.attrs["choice_how"]
            how = how.decode() if isinstance(how, bytes) else how
        if not math.isclose(got, want, rel_tol=1e-9) or ("as it grew from the one before" in how) != grows:
            failures.append(f"{name}: choice_log_sd {got}, expected {want} (last {last}, before {before}); how {how!r}")


def noisy_series(name, time, seed, noise=0.03):
    """6 scales x 3 runs with log-normal noise (3% unless given; numpy's generator, seeded)."""
    rng = np.random.default_rng(seed)
    with open(os.path.join(work, name + ".csv"), "w") as f:
        f.write("gpus,time_s\n")
        for g in [1, 2, 4, 8, 16, 32]:
            for _ in range(3):
                f.write(f"{g},{time(g) * math.exp(rng.normal(0, noise)):.9g}\n")
    expect(["import", name + ".csv", "--out", name + ".h5", "--set", "/bench/" + name, "--target", "time_s"], 0)
    return ["--data", name + ".h5", "--set", "/bench/" + name, "--factors", "p=gpus"]


def test_the_simplest_adequate_model_goes_first():
    # ideal scaling with noise: Amdahl's serial part is not significant, so ideal scaling
    # through every scale goes first, and says why
    doc = as_json(expect(["select", *noisy_series("ideal3", lambda g: 800.0 / g, 1), "--json", "--out", "ideal3_best.h5"],
                         0), "select ideal3")
    first = (doc.get("ranking") or [{}])[0]
    if doc.get("best") != "ideal_fit" or "serial part is within the noise" not in first.get("why", ""):
        failures.append(f"ideal data: best {doc.get('best')}, first {first}")
    # written as c / gpus, c the geometric mean over the scales of (mean time) * gpus
    by = {}
    with open(os.path.join(work, "ideal3.csv")) as f:
        for line in f.readlines()[1:]:
            g, t = map(float, line.split(","))
            by.setdefault(g, []).append(t)
    c = math.exp(sum(math.log(sum(v) / len(v) * g) for g, v in by.items()) / len(by))
    p = as_json(expect(["predict", "--result", "ideal3_best.h5", "--at", "gpus=64", "--json"], 0), "predict ideal3")
    if not math.isclose(p.get("prediction", 0), c / 64, rel_tol=1e-9):
        failures.append(f"ideal-fit at 64: {p.get('prediction')}, expected {c / 64}")
    # a serial part far outside the noise and no coherency term: Amdahl's law, whatever the
    # held-out scores of the others
    doc = as_json(expect(["select", *noisy_series("amdahl3", lambda g: 200.0 + 800.0 / g, 1), "--json"], 0),
                  "select amdahl3")
    if doc.get("best") != "amdahl" or "Amdahl's law" not in (doc.get("ranking") or [{}])[0].get("why", ""):
        failures.append(f"amdahl data: best {doc.get('best')}")
    # contention: the USL's coherency term (time rising with gpus) is significant on every row
    doc = as_json(expect(["select", *noisy_series("usl3", lambda g: 800.0 * (1 + 0.03 * (g - 1) + 0.002 * g * (g - 1)) / g,
                                                  1), "--json"], 0), "select usl3")
    if doc.get("best") != "usl" or "coherency term" not in (doc.get("ranking") or [{}])[0].get("why", ""):
        failures.append(f"contention data: best {doc.get('best')}, first {(doc.get('ranking') or [{}])[0]}")
    # a shape outside the nested models (a power law, 0.3% noise): they miss the held-out scales
    # by far more than the noise, so the power law goes first
    doc = as_json(expect(["select", *noisy_series("power3", lambda g: 800.0 * g ** -0.6, 1, 0.003), "--json"], 0),
                  "select power3")
    first = (doc.get("ranking") or [{}])[0]
    if doc.get("best") != "power" or "the nested models miss the held-out scales" not in first.get("why", ""):
        failures.append(f"power-law data: best {doc.get('best')}, first {first}")
    # the same candidates named in --models, without ideal-fit: no ideal scaling through every
    # scale to prefer, and naive-ideal is not nested: Amdahl's law
    doc = as_json(expect(["select", "--data", "ideal3.h5", "--set", "/bench/ideal3", "--factors", "p=gpus", "--models",
                          "amdahl,power,naive-ideal,naive-loglog", "--json"], 0), "select ideal3 --models")
    if doc.get("best") != "amdahl":
        failures.append(f"ideal data without ideal-fit: best {doc.get('best')}")


def test_two_scales_choose_by_the_prior_and_say_so():
    s = series("two", [4, 8], 1, lambda g: 100.0 + 800.0 / g)
    doc = as_json(expect(["select", *s, "--json", "--out", "two_best.h5", "--max-generations", "100"], 0),
                  "select on two scales")
    if doc.get("best") != "amdahl" or "too few to validate an extrapolation" not in doc.get("how", ""):
        failures.append(f"select on two scales: best {doc.get('best')}, how {doc.get('how')}")
    # two rows, two constants: no noise estimate, nothing held out; the choice's part is how far
    # the other candidates disagree one step beyond
    doc = as_json(expect(["predict", "--result", "two_best.h5", "--at", "gpus=16", "--interval", "0.9", "--json"], 0),
                  "predict two scales")
    iv = doc.get("interval", {})
    if not (iv.get("lo") is not None and iv["lo"] < doc["prediction"] < iv["hi"]
            and "no noise estimate" in iv.get("contains", "")
            and "candidates' disagreement one step beyond the largest gpus" in iv.get("contains", "")):
        failures.append(f"predict --interval after select on two scales: {iv}")
    # with repetitions Amdahl's serial part is tested against their noise: ideal scaling within
    # it (+-1%) goes first, a 5% departure (Amdahl) does not
    for name, time, want in [("two_ideal", lambda g: 800.0 / g, "ideal_fit"),
                             ("two_amdahl", lambda g: 100.0 + 800.0 / g, "amdahl")]:
        t = series(name, [4, 8], 3, time)
        doc = as_json(expect(["select", *t, "--json", "--max-generations", "100"], 0), name)
        first = (doc.get("ranking") or [{}])[0]
        if doc.get("best") != want or (want == "ideal_fit") != ("serial part is within the noise" in first.get("why", "")):
            failures.append(f"{name} on two scales x 3 runs: best {doc.get('best')}, first {first}")
    # the same model fitted alone on those two rows: no part can be measured, so no interval, and why
    expect(["fit", *s, "--model", "amdahl", "--out", "two_fit.h5"], 0)
    r = expect(["predict", "--result", "two_fit.h5", "--at", "gpus=16", "--interval", "0.9"], 0,
               "no interval: too little data to estimate the noise")
    if "90% interval" in r.stdout:
        failures.append(f"an interval from no data: {r.stdout}")


def test_naive_needs_the_scale_column(ideal):
    expect(["select", "--data", "ideal.h5", "--set", "/bench/ideal", "--models", "naive-ideal"], 2,
           "--models naive-ideal extrapolates along the scale column: pass --scale COLUMN or bind p with --factors p=COLUMN")


def test_a_model_of_constants_only_is_evaluated(ideal):
    with open(os.path.join(work, "fixed.yaml"), "w") as f:
        f.write('name: published\nexpression: "a + w / p"\nconstants:\n  a: 100\n  w: 800\n')
    expect(["fit", "--data", "ideal.h5", "--set", "/bench/ideal", "--model", "fixed.yaml", "--factors", "p=gpus",
            "--out", "fixed.h5"], 0, "evaluated, nothing to fit")
    p = as_json(expect(["predict", "--result", "fixed.h5", "--at", "gpus=8", "--json"], 0), "predict fixed")
    if p.get("prediction") != 200.0:
        failures.append(f"a + w/p at 8: {p.get('prediction')}")
