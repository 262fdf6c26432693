#!/usr/bin/env python3
"""The perfit command line as a user meets it: help, messages, and one exit code per error class.

usage: cli_test.py PERFIT_EXE WORKDIR
"""
import os
import subprocess
import sys

perfit, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
failures = []


def run(*args):
    return subprocess.run([perfit, *args], capture_output=True, text=True, cwd=work)


def expect(args, code, *needles):
    r = run(*args)
    out = r.stdout + r.stderr
    if r.returncode != code:
        failures.append(f"{args}: exit {r.returncode}, expected {code}\n{out}")
    for n in needles:
        if n not in out:
            failures.append(f"{args}: output lacks {n!r}\n{out}")
    if "HDF5-DIAG" in out:
        failures.append(f"{args}: HDF5 error stack dumped\n{out}")
    return r


expect(["--help"], 0, "synth", "import", "inspect", "Exit codes")
expect(["synth", "--help"], 0, "--rows", "--seed", "--noise")
expect([], 2, "A subcommand is required")
expect(["synth"], 2, "--out is required")
expect(["synth", "--out", "x.h5", "--rows", "0"], 2, "--rows must be a whole number >= 1")
expect(["synth", "--out", "x.h5", "--noise", "-1"], 2, "--noise must be in [0, 1]")
expect(["synth", "--out", "no/such/dir/x.h5"], 6, "directory 'no/such/dir' does not exist")
expect(["synth", "--out", "s.h5", "--rows", "100"], 0, "wrote 9 sets, 900 rows")
expect(["inspect", "s.h5", "--set", "/pytorch/bert"], 0, "rows=100", "truth_c0=")
r = expect(["inspect", "s.h5", "--json"], 0, '"sets"', '"path"', '"columns"', '"attributes"')
import json  # noqa: E402
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

if failures:
    print("FAILED:\n" + "\n".join(failures))
    sys.exit(1)
print("cli: all checks passed")
