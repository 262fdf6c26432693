#!/usr/bin/env python3
"""`perfit batch` as a user runs it, under mpiexec -n 1, 2 and 4: 3 sets x 3 models on synthetic
data, every result equal to the same fit run alone with `perfit fit` (same seed, sync mode);
groups of 2 ranks per fit; a failing entry reported while the rest finish; SIGTERM mid-batch
then --resume finishing without refitting finished fits (their files untouched) and with the
results of an uninterrupted batch; an empty glob; a concurrent batch refused; a stale lock taken
over; a changed manifest refused unless --force.

Run by pytest with the harness of tests/conftest.py (--perfit, --work, --mpiexec).
"""
import csv
import glob
import json
import os
import re
import signal
import socket
import struct
import subprocess
import time
import zlib

import pytest

import ranks
from ranks import Watched, rank_pids

perfit, work, mpiexec = ranks.arguments()
failures = []
INTERRUPTED = ranks.INTERRUPTED
env = ranks.ENV
SETS = ["/mxnet/resnet50", "/pytorch/resnet50", "/tensorflow/bert"]
MODELS = ["generic", "amdahl", "usl"]
KEYS = ["params", "cost", "generations", "evaluations", "stop_reason"]


def command(n, *args):
    return ranks.command(perfit, mpiexec, n, *args)


def run(n, *args, timeout=180):
    return subprocess.run(command(n, *args), capture_output=True, text=True, cwd=work,
                          timeout=timeout, env=env)


def manifest(name, text):
    with open(os.path.join(work, name), "w") as f:
        f.write(text)
    return name


def stem(s, m):
    return s.lstrip("/").replace("/", "__") + "__" + m


def show(path):
    r = run(1, "show", path, "--json")
    return json.loads(r.stdout) if r.returncode == 0 else {"error": r.stderr}


def summary(out):
    with open(os.path.join(work, out, "summary.csv")) as f:
        return {(r["set"], r["model"]): r for r in csv.DictReader(f)}


def running(out):
    """Whether a fit of the batch in `out` has begun and not finished (its checkpoint directory
    exists from its start until its result is written)."""
    return bool(glob.glob(os.path.join(work, out, ".checkpoints", "*")))


def finished(out):
    """How many fits the batch in `out` has finished so far (0 before its first summary)."""
    try:
        return sum(v["status"] == "ok" for v in summary(out).values())
    except (OSError, KeyError):
        return 0


subprocess.run([perfit, "synth", "--out", "s.h5", "--rows", "3000", *sum([["--set", s] for s in SETS], [])],
               check=True, cwd=work, stdout=subprocess.DEVNULL)
OPTS = "{de: {max_generations: 60}, islands: {mode: sync}}"
manifest("m.yaml", f"""data: s.h5
ranks_per_fit: 1
fits:
  - sets: ["/*/resnet50", "/mxnet/*", "/tensorflow/bert"]   # /mxnet/resnet50 matched twice: fitted once
    models: [generic, amdahl, usl]
    options: {OPTS}
""")

# The same fits, slow enough to be stopped: ms1.yaml (= ms.yaml) one rank per fit, ms2.yaml two.
SLOW = "{de: {max_generations: 60}, islands: {mode: sync, slow_island: 0, slow_ms: 15}}"
for per_fit in [1, 2]:
    manifest(f"ms{per_fit}.yaml", f"data: s.h5\nranks_per_fit: {per_fit}\nfits:\n  - sets: {json.dumps(SETS)}\n"
                                  f"    models: {json.dumps(MODELS)}\n    options: {SLOW}\n")
manifest("ms.yaml", open(os.path.join(work, "ms1.yaml")).read())


# ---- the reference: each fit alone ----
@pytest.fixture(scope="module")
def reference():
    """Each fit of m.yaml alone, serially: what every batch of it must equal."""
    ref = {}
    for s in SETS:
        for m in MODELS:
            r = run(1, "fit", "--data", "s.h5", "--set", s, "--model", m, "--max-generations", "60",
                    "--progress-every", "0", "--out", f"ref_{stem(s, m)}.h5", "--json")
            if r.returncode != 0:
                failures.append(f"reference fit {s} {m}: exit {r.returncode}\n{r.stderr[-800:]}")
            else:
                ref[(s, m)] = json.loads(r.stdout)
    return ref


def test_the_reference_each_fit_alone(reference):
    if len(reference) != len(SETS) * len(MODELS):
        failures.append(f"{len(reference)} reference fits, expected {len(SETS) * len(MODELS)}")


def check_batch(out, reference, what):
    rows = summary(out)
    if len(rows) != 9 or any(r["status"] != "ok" for r in rows.values()):
        failures.append(f"{what}: summary is not 9 ok rows: {[(k, r['status'], r['message']) for k, r in rows.items()]}")
    with open(os.path.join(work, out, "summary.json")) as f:
        j = json.load(f)
    if j["fits"] != 9 or j["ok"] != 9 or len(j["rows"]) != 9:
        failures.append(f"{what}: summary.json counts {j['fits']} fits, {j['ok']} ok")
    for (s, m), a in reference.items():
        b = show(os.path.join(out, stem(s, m) + ".h5"))
        for k in KEYS:
            if a.get(k) != b.get(k):
                failures.append(f"{what}: {s} {m}: batch {k} {b.get(k)} != alone {a.get(k)}")


# ---- 1, 2 and 4 ranks, one rank per fit: equal to the fits run alone ----
def test_1_2_and_4_ranks_one_rank_per_fit_equal_to_the_fits_run_alone(reference):
    for n in [1, 2, 4]:
        r = run(n, "batch", "--manifest", "m.yaml", "--out", f"b{n}")
        if r.returncode != 0:
            failures.append(f"batch n={n}: exit {r.returncode}\n{r.stderr[-1500:]}")
            continue
        check_batch(f"b{n}", reference, f"batch n={n}")
        lines = [l for l in r.stderr.splitlines() if "batch: " in l and " done, " in l]
        if len(lines) != 9 or "9/9 done, 0 failed" not in lines[-1] or "ETA" not in lines[-1]:
            failures.append(f"batch n={n}: expected 9 progress lines ending 9/9 done\n{r.stderr[-1500:]}")


# ---- 4 ranks, 2 per fit: equal to `mpiexec -n 2 perfit fit` ----
def test_4_ranks_2_per_fit_equal_to_mpiexec_n_2_perfit_fit():
    manifest("m2.yaml", open(os.path.join(work, "m.yaml")).read().replace("ranks_per_fit: 1", "ranks_per_fit: 2"))
    ref2 = {}
    for s, m in [(SETS[0], "generic"), (SETS[2], "usl")]:
        r = run(2, "fit", "--data", "s.h5", "--set", s, "--model", m, "--max-generations", "60",
                "--mode", "sync", "--progress-every", "0", "--out", f"ref2_{stem(s, m)}.h5", "--json")
        if r.returncode == 0:
            ref2[(s, m)] = json.loads(r.stdout)
        else:
            failures.append(f"reference fit -n 2 {s} {m}: exit {r.returncode}\n{r.stderr[-800:]}")
    r = run(4, "batch", "--manifest", "m2.yaml", "--out", "b4x2")
    if r.returncode != 0:
        failures.append(f"batch n=4 ranks_per_fit=2: exit {r.returncode}\n{r.stderr[-1500:]}")
    else:
        check_batch("b4x2", ref2, "batch n=4 ranks_per_fit=2")
    r = run(3, "batch", "--manifest", "m2.yaml", "--out", "b3x2")
    if r.returncode != 2 or "does not divide" not in r.stderr or os.path.exists(os.path.join(work, "b3x2")):
        failures.append(f"3 ranks, ranks_per_fit 2: exit {r.returncode}\n{r.stderr[-800:]}")


# ---- a failing entry is reported, the rest finish; the exit code counts failures ----
def test_a_failing_entry_is_reported_and_counted():
    manifest("needs_q.yaml", "name: needs_q\nexpression: c*q\nparams:\n  c: [0, 10]\n")
    manifest("mf.yaml", f"""data: s.h5
fits:
  - sets: ["/mxnet/resnet50", "/tensorflow/bert"]
    models: [amdahl, needs_q.yaml]
    options: {OPTS}
""")
    r = run(2, "batch", "--manifest", "mf.yaml", "--out", "bf")
    rows = summary("bf") if os.path.exists(os.path.join(work, "bf", "summary.csv")) else {}
    bad = [k for k, v in rows.items() if v["status"] == "error"]
    if r.returncode != 102 or len(bad) != 2 or any("'q'" not in rows[k]["message"] for k in bad) or \
            sum(v["status"] == "ok" for v in rows.values()) != 2:
        failures.append(f"failing entry: exit {r.returncode} (expected 102), rows {rows}\n{r.stderr[-1500:]}")


# ---- SIGTERM mid-batch, then --resume: finished fits untouched, results as uninterrupted ----
def test_sigterm_mid_batch_then_resume():
    # (1 and 2 ranks of one rank per fit; 4 ranks in groups of 2, whose fits stop by agreement)
    for n, per_fit in [(1, 1), (2, 1), (4, 2)]:
        out, m = f"bs{n}", f"ms{per_fit}.yaml"
        full = run(n, "batch", "--manifest", m, "--out", f"{out}_full")
        w = Watched(command(n, "batch", "--manifest", m, "--out", out), work)
        # Two fits finished and a third begun (its checkpoint directory made): a signal between
        # two fits would leave none interrupted, only pending (seen under load).
        w.wait_until(lambda: finished(out) >= 2 and running(out), f"n={n}: two fits finished, a third begun")
        w.signal(signal.SIGTERM, rank_pids(out))
        code, _, err = w.finish()
        rows = summary(out)
        done = {k: os.stat(os.path.join(work, out, stem(*k) + ".h5")).st_mtime_ns
                for k, v in rows.items() if v["status"] == "ok"}
        statuses = sorted(v["status"] for v in rows.values())
        if code != INTERRUPTED or "interrupted" not in statuses or "--resume" not in err:
            failures.append(f"SIGTERM n={n}: exit {code}, statuses {statuses}\n{err[-1500:]}")
            continue
        if not glob.glob(os.path.join(work, out, ".checkpoints", "*", "checkpoint.h5")):
            failures.append(f"SIGTERM n={n}: no checkpoint of the interrupted fits")
        time.sleep(0.05)  # a rewrite of a finished result would show in its mtime
        r = run(n, "batch", "--manifest", m, "--out", out, "--resume")
        if r.returncode != 0:
            failures.append(f"resume n={n}: exit {r.returncode}\n{r.stderr[-1500:]}")
            continue
        if f"{len(done)} finished before" not in r.stderr:
            failures.append(f"resume n={n}: expected '{len(done)} finished before'\n{r.stderr[-800:]}")
        for k, mtime in done.items():
            if os.stat(os.path.join(work, out, stem(*k) + ".h5")).st_mtime_ns != mtime:
                failures.append(f"resume n={n}: finished fit {k} was written again")
        if full.returncode != 0:
            failures.append(f"uninterrupted slow batch n={n}: exit {full.returncode}\n{full.stderr[-800:]}")
            continue
        for s in SETS:
            for m in MODELS:
                a = show(os.path.join(f"{out}_full", stem(s, m) + ".h5"))
                b = show(os.path.join(out, stem(s, m) + ".h5"))
                for k in KEYS:
                    if a.get(k) != b.get(k):
                        failures.append(f"resume n={n}: {s} {m} {k} {b.get(k)} != uninterrupted {a.get(k)}")
        if glob.glob(os.path.join(work, out, ".checkpoints", "*", "*")):
            failures.append(f"resume n={n}: checkpoints left after every fit finished")


# ---- refusals: empty glob, unknown key, rerun without --resume, changed manifest ----
def test_refusals_of_a_bad_or_changed_manifest():
    manifest("empty.yaml", "data: s.h5\nfits:\n  - sets: ['/caffe/*']\n    models: [amdahl]\n")
    r = run(1, "batch", "--manifest", "empty.yaml", "--out", "be")
    if r.returncode != 2 or "'/caffe/*' matches no set" not in r.stderr or "/mxnet/resnet50" not in r.stderr:
        failures.append(f"empty glob: exit {r.returncode}\n{r.stderr}")
    manifest("unknown.yaml", "data: s.h5\nranks_per_fits: 2\nfits:\n  - sets: ['/*/*']\n    models: [amdahl]\n")
    r = run(1, "batch", "--manifest", "unknown.yaml", "--out", "bu")
    if r.returncode != 2 or "unknown key 'ranks_per_fits'" not in r.stderr:
        failures.append(f"unknown manifest key: exit {r.returncode}\n{r.stderr}")
    done = run(1, "batch", "--manifest", "m.yaml", "--out", "bdone")
    if done.returncode != 0:
        failures.append(f"the batch to rerun: exit {done.returncode}\n{done.stderr[-800:]}")
    r = run(1, "batch", "--manifest", "m.yaml", "--out", "bdone")
    if r.returncode != 2 or "--resume" not in r.stderr:
        failures.append(f"rerun without --resume: exit {r.returncode}\n{r.stderr}")
    manifest("m_changed.yaml", open(os.path.join(work, "m.yaml")).read().replace("60", "61"))
    r = run(1, "batch", "--manifest", "m_changed.yaml", "--out", "bdone", "--resume")
    if r.returncode != 2 or "differs" not in r.stderr:
        failures.append(f"changed manifest: exit {r.returncode}\n{r.stderr}")
    r = run(1, "batch", "--manifest", "m.yaml", "--out", "bdone", "--resume")
    if r.returncode != 0 or "9 finished before, 0 to run" not in r.stderr:
        failures.append(f"resume of a finished batch: exit {r.returncode}\n{r.stderr[-800:]}")
    # The same directory spelled another way is the same batch.
    r = run(1, "batch", "--manifest", "m.yaml", "--out", os.path.join(work, "bdone") + "/", "--resume")
    if r.returncode != 0 or "9 finished before, 0 to run" not in r.stderr:
        failures.append(f"resume with --out spelled otherwise: exit {r.returncode}\n{r.stderr[-800:]}")


# ---- a selection's plan holds a digest of its sets; a plan of every set's row still resumes ----
def test_a_selection_plan_holds_a_digest_and_an_earlier_plan_of_rows_resumes():
    manifest("sel3.yaml", "data: s.h5\nfits:\n  - sets: ['/*/*']\n    select: {models: [amdahl]}\n")
    r = run(1, "batch", "--manifest", "sel3.yaml", "--out", "bsel3")
    assert r.returncode == 0, r.stderr[-1500:]
    path = os.path.join(work, "bsel3", ".batch-plan.json")
    with open(path) as f:
        plan = json.load(f)
    names = sorted(row["set"] for row in selection_rows("bsel3"))
    digest = plan["selections"]["sets"]
    if digest.get("count") != len(SETS) or len(digest.get("fnv1a64", "")) != 16 or names != SETS:
        failures.append(f"selection plan: {digest} for {names}")
    # The plan as perfit wrote it before 2026-12-05: each set's row [set, entry, data, checksum].
    rows = []
    for name in names:
        shown = run(1, "inspect", "s.h5", "--set", name, "--json")
        rows.append([name, 0, "s.h5", json.loads(shown.stdout)["sets"][0]["attributes"]["checksum"]])
    plan["selections"]["sets"] = rows
    with open(path, "w") as f:
        json.dump(plan, f, indent=2)
    r = run(1, "batch", "--manifest", "sel3.yaml", "--out", "./bsel3", "--resume")
    if r.returncode != 0 or f"{len(SETS)} set(s) selected before" not in r.stderr:
        failures.append(f"resume of a plan of rows: exit {r.returncode}\n{r.stderr[-1500:]}")
    rows[0][3] = "fnv1a64:0000000000000000"  # another checksum: other data, not the same batch
    plan["selections"]["sets"] = rows
    with open(path, "w") as f:
        json.dump(plan, f, indent=2)
    r = run(1, "batch", "--manifest", "sel3.yaml", "--out", "bsel3", "--resume")
    if r.returncode != 2 or "select: entries, their options or their data changed" not in r.stderr:
        failures.append(f"resume of a changed plan of rows: exit {r.returncode}\n{r.stderr[-1500:]}")


# ---- one batch per results directory; a stale lock is taken over ----
def test_one_batch_per_results_directory_a_stale_lock_is_taken_over():
    w = Watched([perfit, "batch", "--manifest", "ms.yaml", "--out", "bl"], work)
    w.wait_files(os.path.join(work, "bl", ".lock"), "the batch's lock file")
    r = run(1, "batch", "--manifest", "ms.yaml", "--out", "bl", "--resume")
    if r.returncode != 2 or "in use by another perfit batch" not in r.stderr or f"pid {w.p.pid}" not in r.stderr:
        failures.append(f"concurrent batch: exit {r.returncode}\n{r.stderr}")
    w.signal(signal.SIGTERM)
    w.finish()
    if os.path.exists(os.path.join(work, "bl", ".lock")):
        failures.append("the lock file outlived its batch")
    with open(os.path.join(work, "bl", ".lock"), "w") as f:
        f.write(f"host {socket.gethostname()}\npid 4194000\nsince 2026-01-01T00:00:00Z\n")
    r = run(1, "batch", "--manifest", "ms.yaml", "--out", "bl", "--resume")
    if r.returncode != 0:
        failures.append(f"stale lock not taken over: exit {r.returncode}\n{r.stderr[-800:]}")


# ---- kill -9 of a rank, and of the whole job, mid-selection: --resume equals uninterrupted ----
PATHS = 600


@pytest.fixture(scope="module")
def call_paths():
    """PATHS call paths as Extra-P's users measure them (p = 4..64, 5 repetitions, a PMNF truth
    c0 + c1 * p^i * log2(p)^j, 2% noise) as /cp/<path> of cp.h5, and sel.yaml selecting each."""
    import random
    rng = random.Random(5)
    exponents = [0, 0.5, 2 / 3, 1, 1.5, 2, 2.5, 3]
    with open(os.path.join(work, "cp.csv"), "w") as f:
        f.write("path,p,rep,time\n")
        for k in range(PATHS):
            i, j = rng.choice(exponents), rng.choice([0, 1, 2])
            c0, c1 = 10 ** rng.uniform(-2, 2), 10 ** rng.uniform(-4, 0)
            for p in (4, 8, 16, 32, 64):
                for rep in range(5):
                    t = (c0 + c1 * p ** i * (p.bit_length() - 1) ** j) * (1 + rng.gauss(0, 0.02))
                    f.write(f"k{k:04d},{p},{rep},{t!r}\n")
    r = run(1, "import", "cp.csv", "--out", "cp.h5", "--set", "/cp", "--set-by", "path", "--target", "time")
    assert r.returncode == 0, r.stderr
    manifest("sel.yaml", 'data: cp.h5\nfits:\n  - sets: ["/cp/*"]\n    select: {models: [pmnf-search, amdahl]}\n')
    full = run(2, "batch", "--manifest", "sel.yaml", "--out", "sel_full")
    assert full.returncode == 0, full.stderr[-2000:]
    return selection_rows("sel_full")


def selection_rows(out):
    """selection.csv's rows (every column: winner, score, constants, message) by set."""
    try:
        with open(os.path.join(work, out, "selection.csv")) as f:
            return list(csv.DictReader(f))
    except OSError:
        return []


def journal_sets(out):
    """The sets whole in DIR/.selection.journal (docs/selection.md "Checkpoints": 8 bytes
    PFSELJ01, then per set a 32-byte header, PFJE, a CRC-32 and three lengths, and the set's
    name, row and record)."""
    try:
        with open(os.path.join(work, out, ".selection.journal"), "rb") as f:
            data = f.read()
    except OSError:
        return []
    assert data[:8] == b"PFSELJ01", data[:8]
    sets, at = [], 8
    while at + 32 <= len(data) and data[at:at + 4] == b"PFJE":
        crc, n_set, n_row, n_record = struct.unpack_from("<IQQQ", data, at + 4)
        end = at + 32 + n_set + n_row + n_record
        if end > len(data) or zlib.crc32(data[at + 8:at + 32] + data[at + 32:end]) != crc:
            break
        sets.append(data[at + 32:at + 32 + n_set].decode())
        at = end
    return sets


@pytest.mark.parametrize("victim", ["one rank", "the whole job"])
def test_kill_9_mid_selection_then_resume_selects_every_set_once(call_paths, victim):
    out = "sel_" + victim.replace(" ", "_")
    # Slowed, and its journal flushed often enough that the kill comes with some sets on disk.
    hooks = dict(env, PERFIT_TEST_HOOKS="select_chunk_delay_ms=150,selection_flush_ms=300")
    w = Watched(command(2, "batch", "--manifest", "sel.yaml", "--out", out), work, hooks)
    w.wait_until(lambda: 0 < len(journal_sets(out)) < PATHS, "a journal holding some of the sets")
    pids = rank_pids(out)
    w.signal(signal.SIGKILL, pids[-1:] if victim == "one rank" else [*pids, w.p.pid])
    code, _, err = w.finish(60)
    if code == 0:
        failures.append(f"kill -9 of {victim}: the batch exited 0\n{err[-1500:]}")
    # Nothing half-written: the journal holds what was selected, each set once, unless the
    # ranks left alive were stopped by a signal and wrote the files whole (a write cut short
    # stays a temporary file) in its place.
    kept = journal_sets(out) or [r["set"] for r in selection_rows(out) if r["status"] == "ok"]
    shown = run(1, "show", os.path.join(out, "selection.h5"), "--set", kept[-1] if kept else "/cp/k0000", "--json")
    stored = os.path.exists(os.path.join(work, out, "selection.h5"))
    if not kept or len(set(kept)) != len(kept) or (stored and shown.returncode != 0):
        failures.append(f"kill -9 of {victim}: {len(kept)} sets on disk ({len(set(kept))} distinct), "
                        f"show of the store: exit {shown.returncode}\n{shown.stderr[-800:]}")
    # Resumed at once: the killed processes' lock and temporary files are taken over and removed.
    r = run(2, "batch", "--manifest", "sel.yaml", "--out", out, "--resume")
    taken = re.search(r"select: (\d+) set\(s\) selected before", r.stderr)
    if r.returncode != 0 or not taken or int(taken.group(1)) < len(kept):
        failures.append(f"resume after kill -9 of {victim} ({len(kept)} sets in the journal): exit {r.returncode}\n"
                        f"{r.stderr[-1500:]}")
    if os.path.exists(os.path.join(work, out, ".selection.journal")):
        failures.append(f"resume after kill -9 of {victim}: the journal left beside the files it went into")
    left = glob.glob(os.path.join(work, out, ".*.tmp-*"))
    if left:
        failures.append(f"resume after kill -9 of {victim}: temporary files left: {left}")
    rows = selection_rows(out)
    if len({row["set"] for row in rows}) != PATHS or len(rows) != PATHS:
        failures.append(f"resume after kill -9 of {victim}: {len(rows)} rows for {PATHS} sets")
    if sorted(map(str, rows)) != sorted(map(str, call_paths)):
        wrong = [a["set"] for a, b in zip(sorted(rows, key=lambda x: x["set"]), sorted(call_paths, key=lambda x: x["set"]))
                 if a != b]
        failures.append(f"resume after kill -9 of {victim} differs from an uninterrupted batch on {len(wrong)} sets: "
                        f"{wrong[:5]}")
