#!/usr/bin/env python3
"""Diagnostics that help (docs/fitting.md "Reading the diagnostics"): at-bound advice only where
widening can change the fit, undetermined constants without an interval, each warning once.

Run by pytest with the harness of tests/conftest.py (--perfit, --work).
"""
import math
import os
import random

import ranks

perfit, work, mpiexec = ranks.arguments()
failures = []
cli = ranks.Cli(perfit, work, mpiexec, failures)
expect, as_json = cli.expect, cli.as_json


def write_set(name, truth):
    """Times truth(p) with 2% noise on 1..64 workers, 3 repetitions, imported as /x/<name>."""
    rnd = random.Random(7)
    with open(os.path.join(work, name + ".csv"), "w") as f:
        f.write("p,t\n")
        for p in [1, 2, 4, 8, 16, 32, 64]:
            for _ in range(3):
                f.write(f"{p},{truth(p) * math.exp(rnd.gauss(0, 0.02)):.6g}\n")
    expect(["import", name + ".csv", "--out", "d.h5", "--set", "/x/" + name, "--target", "t"], 0)


def setup_module():
    with open(os.path.join(work, "ab.yaml"), "w") as f:
        f.write("name: ab\nexpression: a / p + b\nparams: {a: [1, 1000, log], b: [0.001, 1, log]}\n")
    write_set("ideal", lambda p: 100.0 / p)        # b is 0: its lower bound is no constraint
    write_set("floor", lambda p: 100.0 / p + 5.0)  # b is 5: its upper bound 1 holds it back


# ---- at-bound advice only where widening can change the fit ----
def test_bound_advice_only_where_the_data_press_on_it():
    r = expect(["fit", "--data", "d.h5", "--set", "/x/ideal", "--model", "ab.yaml", "--out", "i.h5"], 0,
               "at a bound the data do not press on", "widening will not change the fit")
    if "widen it and refit" in r.stdout:
        failures.append(f"advised widening a bound the data do not press on:\n{r.stdout}")
    r = expect(["fit", "--data", "d.h5", "--set", "/x/floor", "--model", "ab.yaml", "--out", "f.h5"], 0,
               "at a bound the data press on (the cost falls", "widen it and refit")
    if r.stdout.count("warning") != len(set(line for line in r.stdout.splitlines() if "warning" in line)):
        failures.append(f"a warning printed twice:\n{r.stdout}")
    if r.stderr.count("warning") > 0 and any(line in r.stderr for line in r.stdout.splitlines() if "warning" in line):
        failures.append(f"a warning printed on stdout and again on stderr:\n{r.stdout}\n{r.stderr}")


# ---- an undetermined constant has no interval ----
def test_an_undetermined_constant_has_no_interval():
    with open(os.path.join(work, "abc.yaml"), "w") as f:  # c and d only as a product: one is undetermined
        f.write("name: abc\nexpression: a / p + c * d\n"
                "params: {a: [1, 1000, log], c: [0.01, 100, log], d: [0.01, 100, log]}\n")
    r = expect(["fit", "--data", "d.h5", "--set", "/x/floor", "--model", "abc.yaml", "--out", "u.h5",
                "--bootstrap", "20", "--json"], 0)
    doc = as_json(r, "fit --bootstrap --json")
    iv = doc.get("bootstrap", {}).get("intervals", {})
    und = set(doc.get("unidentifiable", []))
    if not und or any(iv.get(n) is not None for n in und) or iv.get("a") is None:
        failures.append(f"intervals of undetermined constants {und}: {iv}")
    r = expect(["show", "u.h5"], 0, "undetermined")
    for line in r.stdout.splitlines():
        if any(line.split()[:1] == [n] for n in und) and ".." in line:
            failures.append(f"an undetermined constant printed with an interval: {line}")


# ---- select offers by default only the built-ins the set can determine ----
def test_select_offers_only_determinable_builtins():
    expect(["synth", "--out", "s.h5", "--rows", "400", "--set", "/pytorch/bert"], 0)
    # --holdout 1: one fold per candidate (this is about who competes, not the split; the
    # rolling origin would fit each candidate once per scale, minutes under the sanitizers)
    r = expect(["select", "--data", "s.h5", "--set", "/pytorch/bert", "--holdout", "1", "--json"], 0,
               "select: not offering built-in 'iteration': 6 of its 8 constants cannot be determined",
               "name it in --models to rank it anyway")
    ranked = [x.get("model") for x in as_json(r, "select --json").get("ranking", [])]
    if "iteration" in ranked or "generic" not in ranked:
        failures.append(f"default candidates: {ranked}")
    r = expect(["select", "--data", "s.h5", "--set", "/pytorch/bert", "--models", "generic,iteration", "--holdout", "1",
                "--json"], 0)
    ranked = [x.get("model") for x in as_json(r, "select --models --json").get("ranking", [])]
    if sorted(ranked) != ["generic", "iteration"]:
        failures.append(f"a model named in --models must compete: {ranked}")
    # fit says why: each undetermined constant is named in a warning
    expect(["fit", "--data", "s.h5", "--set", "/pytorch/bert", "--model", "iteration", "--out", "it.h5"], 0,
           "not determined by this data", "trade off against each other")
