#!/usr/bin/env python3
"""Nothing lost, nothing meaningless: every rule of docs/errors.md, tried as a
user would. Each refused command must leave every file that existed before byte-identical.

Run by pytest with the harness of tests/conftest.py (--perfit, --work).
"""
import glob
import hashlib
import json
import os
import signal
import subprocess
import time

import h5py
import pytest

import ranks

perfit, work, _ = ranks.arguments()
failures = []


def run(*args, timeout=120):
    return subprocess.run([perfit, *args], capture_output=True, text=True, cwd=work, timeout=timeout)


def snapshot():
    out = {}
    for root, _, files in os.walk(work):
        for f in files:
            p = os.path.join(root, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, work)] = hashlib.sha256(fh.read()).hexdigest()
    return out


def expect(args, code, *needles, untouched=False, one_line=True):
    before = snapshot() if untouched else None
    r = run(*args)
    out = r.stdout + r.stderr
    if r.returncode != code:
        failures.append(f"{args}: exit {r.returncode}, expected {code}\n{out[-2000:]}")
    for n in needles:
        if n not in out:
            failures.append(f"{args}: output lacks {n!r}\n{out[-2000:]}")
    errors = [l for l in r.stderr.splitlines() if l.startswith("perfit: error")]
    if code != 0 and one_line and (len(errors) != 1 or errors[0] != r.stderr.strip().splitlines()[-1]):
        failures.append(f"{args}: expected one 'perfit: error: ...' line, got\n{r.stderr}")
    if untouched and snapshot() != before:
        failures.append(f"{args}: files changed, appeared or vanished: "
                        f"{set(snapshot().items()) ^ set(before.items())}")
    return r


def write(name, text, mode="w"):
    with open(os.path.join(work, name), mode) as f:
        f.write(text)


fit = ["fit", "--data", "s.h5", "--set", "/pytorch/resnet50", "--max-generations", "30", "--progress-every", "0"]


# ---- fixtures: a synthetic store, an imported (measured) store, a result, predictions ----
@pytest.fixture(scope="module", autouse=True)
def stores_a_result_and_predictions():
    expect(["synth", "--out", "s.h5", "--rows", "3000", "--set", "/pytorch/resnet50"], 0)
    write("m.csv", "p,b,time_s\n1,32,10.0\n2,32,5.5\n4,32,3.1\n8,32,2.0\n16,64,1.2\n")
    expect(["import", "m.csv", "--out", "store.h5", "--set", "/x/y", "--target", "time_s"], 0)
    expect([*fit, "--out", "r.h5"], 0)
    write("g.csv", "p,b,d,epochs\n260.1,32,1e6,1\n1024,32,1e6,1\n")
    expect(["predict", "--result", "r.h5", "--grid", "g.csv", "--out", "pred.csv"], 0)


# ---- data loss: input as output, another kind of file, same kind without --force ----
def test_no_data_loss_from_an_output_path():
    os.symlink("s.h5", os.path.join(work, "link.h5"))
    for out in ["s.h5", "./s.h5", "link.h5", os.path.join(work, "s.h5")]:
        expect([*fit, "--out", out], 2, "is the input", untouched=True)
    expect([*fit, "--out", "store.h5"], 2, "is a perfit measurement store", "never replaces", untouched=True)
    expect([*fit, "--out", "store.h5", "--force"], 2, "never replaces", untouched=True)
    expect([*fit, "--out", "m.csv", "--force"], 2, "a file that perfit did not write", untouched=True)
    expect([*fit, "--out", "r.h5"], 2, "exists (a perfit result file); pass --force", untouched=True)
    expect([*fit, "--out", "r.h5", "--force"], 0)
    expect(["synth", "--out", "store.h5", "--rows", "10"], 2, "never replaces", untouched=True)
    expect(["synth", "--out", "store.h5", "--rows", "10", "--force"], 2, "never replaces", untouched=True)
    expect(["synth", "--out", "r.h5", "--rows", "10", "--force"], 2, "is a perfit result file", untouched=True)
    expect(["synth", "--out", "s.h5", "--rows", "10"], 2, "pass --force", untouched=True)
    expect(["predict", "--result", "r.h5", "--grid", "g.csv", "--out", "store.h5"], 2,
           "never replaces", untouched=True)
    expect(["predict", "--result", "r.h5", "--grid", "g.csv", "--out", "g.csv"], 2, "is the input",
           untouched=True)
    expect(["predict", "--result", "r.h5", "--grid", "g.csv", "--out", "r.h5"], 2, "is the input",
           untouched=True)
    expect(["predict", "--result", "r.h5", "--grid", "g.csv", "--out", "pred.csv"], 2, "pass --force",
           untouched=True)
    expect(["predict", "--result", "r.h5", "--grid", "g.csv", "--out", "pred.csv", "--force"], 0)
    expect(["import", "m.csv", "--out", "r.h5", "--set", "/a/b", "--target", "time_s"], 2,
           "is a perfit result file", untouched=True)
    expect(["import", "m.csv", "--out", "m.csv", "--set", "/a/b", "--target", "time_s"], 2,
           "is the input", untouched=True)


# ---- outputs are checked before any work: missing directory fails at once ----
def test_outputs_are_checked_before_any_work():
    t0 = time.time()
    r = expect([*fit, "--max-generations", "100000", "--out", "nosuchdir/r.h5"], 6,
               "directory 'nosuchdir' does not exist", untouched=True)
    if time.time() - t0 > 5 or "gen=" in r.stderr or "fit model=" in r.stderr:
        failures.append(f"--out nosuchdir was checked only after the fit started:\n{r.stderr}")
    expect([*fit, "--out", "m.csv/r.h5"], 6, "does not exist", untouched=True)


# ---- SIGTERM / SIGINT during a write leave no temporary file and no output ----
def test_a_signal_during_a_write_leaves_no_trace():
    host = os.uname().nodename.split(".")[0]
    for sig in (signal.SIGTERM, signal.SIGINT):
        # The signal goes as soon as the temporary file exists: 2e7 rows take seconds to write.
        w = ranks.Watched([perfit, "synth", "--out", "big.h5", "--rows", "20000000", "--set", "/mxnet/bert"],
                          work, stdout=subprocess.DEVNULL)
        w.wait_files(os.path.join(work, ".big.h5.tmp-*"), "synth's temporary output file")
        w.signal(sig)
        code, _, _ = w.finish(30)
        left = glob.glob(os.path.join(work, ".big.h5.*")) + glob.glob(os.path.join(work, "big.h5"))
        if code != -sig or left:
            failures.append(f"{sig.name} during a write: exit {code}, left {left}")
    # A kill -9 can leave one; the next write of that output removes it (its process is gone).
    stale = os.path.join(work, f".st.h5.tmp-{host}-999999999-0")
    write(os.path.basename(stale), "junk")
    expect(["synth", "--out", "st.h5", "--rows", "10", "--set", "/mxnet/bert"], 0, "removed",
           "left by process 999999999")
    if os.path.exists(stale):
        failures.append("a stale temporary file of a dead process was not removed")


# ---- meaningless results: NaN factors, unused params, cycles, unknown names ----
def test_meaningless_inputs_are_refused():
    write("nan.csv", "p,b,time_s\n1,32,10.0\n,32,5.5\n4,,3.1\n8,32,2.0\n16,64,1.2\n32,64,0.9\n")
    expect(["import", "nan.csv", "--out", "store.h5", "--set", "/x/nan", "--target", "time_s"], 0)
    write("pb.yaml", "name: pb\nexpression: c0 + c1*b/p\nparams: {c0: [0, 10], c1: [0, 100]}\n")
    nanfit = ["fit", "--data", "store.h5", "--set", "/x/nan", "--model", "pb.yaml", "--progress-every", "0"]
    expect([*nanfit, "--out", "n.h5"], 3, "column 'p': 1 row", "column 'b': 1 row", "--drop-invalid",
           "drop_invalid: true", untouched=True)
    r = expect([*nanfit, "--out", "n.h5", "--drop-invalid", "--json"], 0, "dropped 2 of 6 rows")
    if json.loads(r.stdout)["rows"] != 4 or json.loads(r.stdout)["rows_dropped"] != 2:
        failures.append(f"drop-invalid rows: {r.stdout[:300]}")
    write("unused.yaml", "name: u\nexpression: c0 + c1*p\nparams: {c0: [0, 1], c1: [0, 1], c2: [0, 1]}\n")
    expect(["models", "unused.yaml"], 2, "param 'c2' is never used", untouched=True)
    expect([*nanfit, "--model", "unused.yaml", "--out", "u.h5"], 2, "param 'c2' is never used", untouched=True)
    write("cycle.yaml", "name: c\nexpression: a\nterms: {a: b + c0, b: a*p}\nparams: {c0: [0, 1]}\n")
    expect(["models", "cycle.yaml"], 2, "term 'a' refers to itself (a -> b -> a)", untouched=True)
    write("typo.yaml", "name: t\nexpression: c0 + c1*q\nparams: {c0: [0, 1], c1: [0, 1]}\n")
    expect(["models", "typo.yaml"], 0, "factors (columns it reads): q")
    expect(["models", "typo.yaml", "--data", "store.h5", "--set", "/x/y"], 2, "unknown identifier 'q'",
           untouched=True)
    write("typo2.yaml", "name: t\nfactors: [p]\nexpression: c0 + c1*q\nparams: {c0: [0, 1], c1: [0, 1]}\n")
    expect(["models", "typo2.yaml"], 2, "unknown name 'q': not a param, constant, term or declared "
           "factor (factors: p)", untouched=True)


# ---- params the data cannot determine: a warning naming them, no "widen the bound" ----
def test_undetermined_params_are_named():
    write("const.csv", "p,b,time_s\n" + "".join(f"1,{b},{1 + 0.01 * b}\n" for b in (8, 16, 32, 64, 128)))
    expect(["import", "const.csv", "--out", "store.h5", "--set", "/x/const", "--target", "time_s"], 0)
    write("lp.yaml", "name: lp\nexpression: c0 + c1*b + c2*log2(p)\nparams: {c0: [0, 10], c1: [0, 1], c2: [0, 1]}\n")
    r = expect(["fit", "--data", "store.h5", "--set", "/x/const", "--model", "lp.yaml", "--out", "c.h5",
                "--progress-every", "0"], 0, "warning: param(s) c2 have no effect",
               "column 'p' (= 1) is constant")
    c2 = [l for l in r.stdout.splitlines() if l.strip().startswith("c2 ")]
    if not c2 or "widen" in c2[0] or "not determined by this data" not in c2[0]:
        failures.append(f"unidentifiable c2 row: {c2}")
    write("few.csv", "p,time_s\n1,10\n1,10.2\n2,6\n2,6.1\n")
    expect(["import", "few.csv", "--out", "store.h5", "--set", "/x/few", "--target", "time_s"], 0)
    write("am.yaml", "name: am\nexpression: c0 + c1/p + c2*p\nparams: {c0: [0, 10], c1: [0, 10], c2: [0, 1]}\n")
    expect(["fit", "--data", "store.h5", "--set", "/x/few", "--model", "am.yaml", "--out", "f.h5",
            "--progress-every", "0"], 0, "only 2 distinct configurations of (p) for 3 params")


# ---- a fit whose cost is not finite is an error, never a result ----
def test_a_fit_whose_cost_is_not_finite_is_an_error_never_a_result():
    write("pole.yaml", "name: pole\nexpression: c0*log(p - 1)\nparams: {c0: [1, 2]}\n")
    expect(["fit", "--data", "store.h5", "--set", "/x/y", "--model", "pole.yaml", "--out", "pole.h5",
            "--max-generations", "5", "--progress-every", "0", "--no-polish"], 3,
           "found no finite cost", "no result was written", untouched=True)


# ---- import: BOM, separators ----
def test_import_bom_separators():
    write("bom.csv", "\ufeffp,time_s\n1,2\n2,1.1\n", "w")
    expect(["import", "bom.csv", "--out", "store.h5", "--set", "/x/bom", "--target", "time_s"], 0)
    r = expect(["inspect", "store.h5", "--set", "/x/bom", "--json"], 0)
    if [c["name"] for c in json.loads(r.stdout)["sets"][0]["columns"]] != ["p", "time_s"]:
        failures.append(f"BOM kept in a column name: {r.stdout[:300]}")
    write("semi.csv", "p;time_s\n1;2\n2;1.1\n")
    expect(["import", "semi.csv", "--out", "store.h5", "--set", "/x/semi", "--target", "time_s"], 3,
           "separated by ';'; pass --delimiter ';'", untouched=True)
    expect(["import", "semi.csv", "--out", "store.h5", "--set", "/x/semi", "--target", "time_s",
            "--delimiter", ";"], 0)
    write("tab.csv", "p\ttime_s\n1\t2\n2\t1.1\n")
    expect(["import", "tab.csv", "--out", "store.h5", "--set", "/x/tab", "--target", "time_s"], 3,
           "separated by tabs; pass --delimiter 'tab'", untouched=True)
    expect(["import", "tab.csv", "--out", "store.h5", "--set", "/x/tab", "--target", "time_s",
            "--delimiter", "tab"], 0)
    expect(["import", "tab.csv", "--out", "store.h5", "--set", "/x/t2", "--target", "time_s",
            "--delimiter", "|"], 2, "--delimiter: found '|'", untouched=True)

    write("thr.csv", 'gpus,samples_per_s\n1,"1,000"\n8,"7,500.5"\n')
    expect(["import", "thr.csv", "--out", "store.h5", "--set", "/x/thr", "--target", "time_s",
            "--throughput", "samples_per_s"], 2, "--throughput samples_per_s needs --work SAMPLES",
           untouched=True)
    expect(["import", "thr.csv", "--out", "store.h5", "--set", "/x/thr", "--target", "time_s",
            "--throughput", "samples_per_s", "--work", "1500"], 0)


# ---- one clear line per error ----
def test_one_clear_line_per_error():
    expect(["nosuch"], 2, "perfit: error:", untouched=True)
    expect(["fit", "--bogus", "1"], 2, "--bogus", untouched=True)
    expect(["inspect", "s.h5", "extra"], 2, "extra", untouched=True)
    with open(os.path.join(work, "s.h5"), "rb") as f:
        whole = f.read()
    write("trunc.h5", whole[: len(whole) // 2], "wb")
    expect(["inspect", "trunc.h5"], 3, "store 'trunc.h5' is truncated: "
           f"{len(whole) // 2} bytes, written as {len(whole)}", untouched=True)
    r = expect([*fit, "--data", "trunc.h5", "--out", "t.h5"], 3, "is truncated", untouched=True)
    if "H5F" in r.stderr or "HDF5:" in r.stderr:
        failures.append(f"HDF5 stack shown to the user:\n{r.stderr}")


# ---- damaged files perfit wrote (checksum in the HDF5 user block): refused, never read ----
def test_damaged_files_are_detected():
    with open(os.path.join(work, "r.h5"), "rb") as f:
        result = f.read()
    for at in (100, 600, len(result) // 2, len(result) - 3):  # seal, superblock, middle, end
        flipped = bytearray(result)
        flipped[at] ^= 0x01
        write("flip.h5", bytes(flipped), "wb")
        expect(["show", "flip.h5"], 3, "result file 'flip.h5' is corrupt", untouched=True)
        expect(["predict", "--result", "flip.h5", "--at", "p=4,b=32,d=1e6"], 3, "is corrupt", untouched=True)
    write("rtrunc.h5", result[: len(result) - 100], "wb")
    expect(["show", "rtrunc.h5"], 3, f"result file 'rtrunc.h5' is truncated: {len(result) - 100} bytes, "
           f"written as {len(result)}", untouched=True)
    with open(os.path.join(work, "s.h5"), "rb") as f:
        whole = f.read()
    flipped = bytearray(whole)
    flipped[len(whole) // 3] ^= 0x40
    write("sflip.h5", bytes(flipped), "wb")
    expect(["inspect", "sflip.h5"], 3, "store 'sflip.h5' is corrupt: checksum", untouched=True)
    # A damaged file is of no known kind: not replaced even with --force.
    expect([*fit, "--out", "flip.h5", "--force"], 2, "is a damaged perfit file", untouched=True)
    expect(["inspect", "s.h5", "--log-level", "warn"], 0)
    expect(["--log-level", "warn", "inspect", "s.h5"], 0)
    expect([*fit, "--out", "z.h5", "--max-generations", "-1"], 2,
           "--max-generations: found '-1', expected a whole number in [1, 1000000000]", untouched=True)
    expect([*fit, "--out", "z.h5", "--seed", "-1"], 2, "--seed: found '-1', expected a whole number",
           untouched=True)
    expect([*fit, "--out", "z.h5", "--CR", "1.5"], 2, "--CR: found '1.5', expected a number in [0, 1]",
           untouched=True)
    expect(["synth", "--out", "z.h5", "--rows", "2e9"], 2, "--rows: found '2e9'", "1000000000",
           untouched=True)
    r = expect(["predict", "--result", "missing.h5", "--at", "p=1"], 6, "does not exist", untouched=True)
    if "synth" in r.stderr:
        failures.append(f"predict --result missing advises synth: {r.stderr}")
    with open(os.path.join(work, "pred.csv")) as f:
        rows = f.read().splitlines()
    if not rows[1].startswith("260.1,32,1e6,1,"):
        failures.append(f"grid values not kept as given: {rows[1]}")


def test_a_set_declaring_rows_it_does_not_hold_is_refused():
    """Stores written by another program (h5py): a set whose columns declare 10^12 rows never
    written, and one with ten of them written, ended in "internal error: std::bad_alloc" from
    inspect and fit. Now one line naming the file, set and dataset, exit 3, files untouched."""
    for name, written in (("never.h5", 0), ("ten.h5", 10)):
        with h5py.File(os.path.join(work, name), "w") as h:
            g = h.create_group("/s/x")
            for col in ("p", "time"):
                d = g.create_dataset(col, shape=(10 ** 12,), dtype="f8", chunks=(1 << 16,), compression="gzip")
                if written:
                    d[:written] = 1.0
            g.attrs["target"] = "time"
            g.attrs["perfit_format"] = "perfit-store-1"
        said = ("declares 1000000000000 rows but holds none" if not written else
                "declares 1000000000000 rows but rows ")
        where = f"'{name}' set '/s/x' dataset 'p'"
        expect(["inspect", name], 3, where, said, untouched=True)
        expect(["fit", "--data", name, "--set", "/s/x", "--model", "amdahl", "--factors", "p=p", "--out", "z.h5"], 3,
               where, said, untouched=True)


# ---- output a person can trust: show, polish wording, the config as run ----
def test_output_a_person_can_trust():
    r1 = expect([*fit, "--out", "j.h5", "--json"], 0)
    r2 = expect(["show", "j.h5", "--json"], 0)
    if json.loads(r1.stdout) != json.loads(r2.stdout):
        failures.append(f"show --json differs from fit --json:\n{r1.stdout}\n{r2.stdout}")
    r = expect(["show", "j.h5"], 0, "param", "metrics: MAPE", "stopped:")
    for line in r.stdout.splitlines():
        if line.startswith("cost ") and "improved it" in line:
            after, before = line.split()[1], line.split("(DE ")[1].split(";")[0]
            if after == before:
                failures.append(f"'improved it' with equal printed costs: {line}")
    expect(["show", "s.h5"], 3, "not a perfit result", untouched=True)
    # The saved config reruns the same fit: same params bit for bit.
    with h5py.File(os.path.join(work, "j.h5"), "r") as h:
        config = h.attrs["config_yaml"]
    write("asrun.yaml", config if isinstance(config, str) else config.decode())
    r3 = expect(["fit", "--config", "asrun.yaml", "--out", "j2.h5", "--json"], 0)
    if json.loads(r3.stdout)["params"] != json.loads(r1.stdout)["params"]:
        failures.append("the saved config as run did not reproduce the fit")
