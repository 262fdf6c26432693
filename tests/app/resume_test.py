#!/usr/bin/env python3
"""Graceful stop, checkpoint and resume of `perfit fit`, as a Slurm job meets them: SIGTERM to
the ranks (time limit, scancel), SIGUSR1 to mpiexec (forwarded to every rank), a kill -9 in the
middle of a checkpoint write, resumes that must be refused, and the two cases that used to hang.
A sync run interrupted at a random generation and resumed equals the uninterrupted run bit for
bit: params, cost, generations, evaluations and cost history.

Run by pytest with the harness of tests/conftest.py (--perfit, --work, --mpiexec).
"""
import glob
import json
import os
import random
import signal
import subprocess

import h5py
import pytest

import ranks
from ranks import Watched, rank_pids, with_progress

perfit, work, mpiexec = ranks.arguments()
failures = []
INTERRUPTED = ranks.INTERRUPTED
env = ranks.ENV
rnd = random.Random(int(os.environ.get("PERFIT_TEST_SEED", "12345")))


def command(n, *args):
    return ranks.command(perfit, mpiexec, n, *args)


def run(n, *args, timeout=120, extra_env=None):
    return subprocess.run(command(n, *args), capture_output=True, text=True, cwd=work,
                          timeout=timeout, env=dict(env, **(extra_env or {})))


def interrupt(n, args, tag, how, at_generation, extra_env=None):
    """Starts a fit, signals it once its progress line reaches at_generation (the fit must still
    be running then), and returns (exit code, stdout, stderr)."""
    w = Watched(command(n, *with_progress(args)), work, dict(env, **(extra_env or {})))
    w.wait_generation(at_generation, epoch_generations=10)  # common's --migration-interval
    if how == "usr1-mpiexec":
        w.signal(signal.SIGUSR1)
    else:
        w.signal(signal.SIGKILL if how == "kill" else signal.SIGTERM, rank_pids(tag))
    return w.finish()


def history(path):
    with h5py.File(os.path.join(work, path), "r") as h:
        return list(h["history/best_cost"][:])


@pytest.fixture(scope="module", autouse=True)
def stores():
    """d.h5, the set every fit reads, and other.h5, the same set of other data."""
    subprocess.run([perfit, "synth", "--out", "d.h5", "--rows", "20000", "--set", "/mxnet/vgg16"],
                   check=True, cwd=work, stdout=subprocess.DEVNULL)
    subprocess.run([perfit, "synth", "--out", "other.h5", "--rows", "20000", "--seed", "2", "--set",
                    "/mxnet/vgg16"], check=True, cwd=work, stdout=subprocess.DEVNULL)


common = ["fit", "--data", "d.h5", "--set", "/mxnet/vgg16", "--max-generations", "160", "--tol", "0",
          "--migration-interval", "10", "--checkpoint-every", "10", "--slow-ms", "6",
          "--progress-every", "0", "--json"]

# ---- sync: interrupted at a random generation, resumed == uninterrupted, bit for bit ----
def test_sync_interrupted_and_resumed_equals_uninterrupted():
    # islands of one rank each, and (layout "sharded") the default for a 1-D search: one island
    # whose ranks split the rows and sum the least-squares statistics
    fulls = {}
    for n, how, layout in [(1, "term", "islands"), (2, "term", "islands"), (4, "term", "islands"),
                           (2, "usr1-mpiexec", "islands"), (2, "term", "sharded")]:
        slow = ["--slow-island", str(n - 1), "--ranks-per-island", "1"]
        if layout == "sharded":
            slow = ["--slow-island", "0"]
        if (n, layout) not in fulls:
            fulls[(n, layout)] = run(n, *common, *slow, "--out", f"full{n}{layout}.h5")
        full = fulls[(n, layout)]
        if full.returncode != 0:
            failures.append(f"n={n} uninterrupted: exit {full.returncode}\n{full.stderr[-1500:]}")
            continue
        tag = f"ck{n}{how}{layout}"
        args = [*common, *slow, "--out", f"r{tag}.h5", "--checkpoint-dir", tag]
        # Before the uninterrupted run's end: with tol 0 a 1-D search still stops `converged`
        # once its population is one point (generation 120 of 160 with 2 islands).
        last = json.loads(full.stdout)["generations"]
        code, out, err = interrupt(n, args, tag, how, rnd.randint(15, max(16, min(120, last - 15))))
        if code != INTERRUPTED or "resume with:" not in err or "--resume" not in err:
            failures.append(f"n={n} {how} {layout}: exit {code} (expected {INTERRUPTED})\n{err[-1500:]}")
            continue
        if os.path.exists(os.path.join(work, f"r{tag}.h5")):
            failures.append(f"n={n} {how} {layout}: a result was written although a checkpoint was")
        if [l for l in err.splitlines() if l.startswith("perfit: interrupted")].__len__() != 1:
            failures.append(f"n={n} {how} {layout}: the interrupt message is not printed once\n{err[-1500:]}")
        res = run(n, *args, "--resume")
        if res.returncode != 0:
            failures.append(f"n={n} {how} {layout} resume: exit {res.returncode}\n{res.stderr[-1500:]}")
            continue
        a, b = json.loads(full.stdout), json.loads(res.stdout)
        for k in ["params", "cost", "generations", "evaluations", "stop_reason"]:
            if a[k] != b[k]:
                failures.append(f"n={n} {how} {layout}: resumed {k} {b[k]} != uninterrupted {a[k]}")
        if history(f"full{n}{layout}.h5") != history(f"r{tag}.h5"):
            failures.append(f"n={n} {how} {layout}: cost histories differ")


# ---- async: resumes and completes, nothing left pending ----
def test_async_resumes_and_completes_nothing_left_pending():
    # (async islands never meet at an epoch, so they checkpoint only when interrupted). The fit is
    # long by construction: no generation limit, a 3 s time limit that the resume finishes (it
    # carries on the checkpointed clock), and the signal goes at generation 20, which it must
    # still be running at. With tol 0 a population still stops `converged` once every member is
    # the same point: a 1-D search did in 395 generations, a 6-D one of 54 in 413 (2.3 s under
    # load). Every constant searched by 400 members collapses far later than 3 s.
    args = [*common[:common.index("--max-generations")], "--max-generations", "100000000",
            *common[common.index("--max-generations") + 2:], "--max-seconds", "3", "--mode", "async",
            "--separable", "off", "--population", "400",
            "--slow-island", "1", "--slow-ms", "20", "--out", "ra.h5", "--ranks-per-island", "1",
            "--checkpoint-dir", "cka"]
    code, out, err = interrupt(2, args, "cka", "term", 20)
    if code != INTERRUPTED:
        failures.append(f"async interrupt: exit {code}\n{err[-1500:]}")
    res = run(2, *args, "--resume")
    resumed = json.loads(res.stdout or "{}")
    if res.returncode != 0 or resumed.get("generations", 0) < 20 or resumed.get("stop_reason") != "time_limit":
        failures.append(f"async resume: exit {res.returncode}, {resumed.get('generations')} generations, "
                        f"stop {resumed.get('stop_reason')}\n{res.stderr[-1500:]}")


# ---- without a checkpoint dir: the best so far, marked interrupted ----
def test_without_a_checkpoint_dir_the_best_so_far_marked_interrupted():
    # The signal goes once the first progress line shows the fit running (before it, a signal ends
    # the process as signals do: nothing is being fitted yet; a slow build such as ASan's is still
    # loading at a fixed 0.5 s).
    w = Watched([perfit, *with_progress(common), "--slow-island", "0", "--out", "best.h5"], work)
    w.wait_generation(1)
    w.signal(signal.SIGINT)
    code, out, err = w.finish(60)
    if code != INTERRUPTED or json.loads(out or "{}").get("stop_reason") != "interrupted":
        failures.append(f"SIGINT without checkpoint dir: exit {code}\n{out[-500:]}{err[-1000:]}")


# ---- a kill -9 during a checkpoint write leaves the previous checkpoint readable ----
def test_kill_9_mid_checkpoint_write_keeps_the_previous_checkpoint():
    slow_write = {"PERFIT_TEST_HOOKS": "checkpoint_delay_ms=800"}
    args = [*common, "--slow-island", "0", "--out", "k.h5", "--checkpoint-dir", "ckk"]
    w = Watched([perfit, *args], work, dict(env, **slow_write), stdout=subprocess.DEVNULL)
    ck = os.path.join(work, "ckk", "checkpoint.h5")
    w.wait_until(lambda: os.path.exists(ck) and glob.glob(os.path.join(work, "ckk", ".checkpoint.h5.tmp-*")),
                 "a checkpoint rewrite under way (a checkpoint and its next temporary file)")
    w.signal(signal.SIGKILL)
    w.finish()
    try:
        with h5py.File(ck, "r") as h:
            if h.attrs["perfit_checkpoint"] not in ("perfit-checkpoint-1", b"perfit-checkpoint-1"):
                failures.append("checkpoint after kill -9: wrong format attribute")
    except Exception as e:  # noqa: BLE001
        failures.append(f"checkpoint unreadable after a kill -9 during its rewrite: {e}")
    res = run(1, *args, "--resume")
    if res.returncode != 0:
        failures.append(f"resume after kill -9: exit {res.returncode}\n{res.stderr[-1500:]}")
    # SIGTERM during a (slow) checkpoint write: the write completes, then the fit stops.
    args = [*common, "--slow-island", "0", "--out", "t.h5", "--checkpoint-dir", "ckt"]
    w = Watched([perfit, *args], work, dict(env, **slow_write))
    w.wait_files(os.path.join(work, "ckt", ".checkpoint.h5.tmp-*"), "a checkpoint write under way")
    w.signal(signal.SIGTERM)
    code, out, err = w.finish()
    if code != INTERRUPTED or glob.glob(os.path.join(work, "ckt", ".checkpoint.h5.tmp-*")):
        failures.append(f"SIGTERM during a checkpoint write: exit {code}\n{err[-1500:]}")
    if run(1, *args, "--resume").returncode != 0:
        failures.append("resume after SIGTERM during a checkpoint write failed")


# ---- resumes that must be refused, naming what differs ----
def test_resumes_that_must_be_refused_naming_what_differs():
    # A checkpoint of its own: a 1-rank fit stopped by SIGTERM once it has written one.
    w = Watched([perfit, *common, "--slow-island", "0", "--out", "kr.h5", "--checkpoint-dir", "ckr"], work,
                stdout=subprocess.DEVNULL)
    w.wait_files(os.path.join(work, "ckr", "checkpoint.h5"), "the first checkpoint")
    w.signal(signal.SIGTERM)
    w.finish()
    base = ["fit", "--set", "/mxnet/vgg16", "--max-generations", "160", "--migration-interval", "10",
            "--checkpoint-every", "10", "--slow-ms", "6", "--progress-every", "0", "--json",
            "--slow-island", "0", "--checkpoint-dir", "ckr", "--resume"]
    for args, n, needle in [
        (["--data", "other.h5", "--out", "x1.h5"], 1, "the data differs"),
        (["--data", "d.h5", "--out", "x2.h5", "--strategy", "jso"], 1, "option 'de.strategy' was 'lshade', now 'jso'"),
        (["--data", "d.h5", "--out", "x3.h5", "--model", "usl"], 1, "the model differs"),
        (["--data", "d.h5", "--out", "x4.h5"], 2, "written by a job of 1 ranks, this job has 2"),
    ]:
        r = run(n, *base, *args)
        errors = [l for l in r.stderr.splitlines() if l.startswith("perfit: error")]
        if r.returncode != 2 or len(errors) != 1 or needle not in errors[0]:
            failures.append(f"resume {args} on {n}: exit {r.returncode}, expected 2 with {needle!r}\n{r.stderr[-1500:]}")
    r = run(1, *common, "--out", "fresh.h5", "--checkpoint-dir", "none_yet", "--resume")
    if r.returncode != 0 or "starting fresh" not in r.stderr:
        failures.append(f"--resume without a checkpoint: exit {r.returncode}\n{r.stderr[-1000:]}")
    r = run(1, *common, "--out", "nodir.h5", "--resume")
    if r.returncode != 2 or "--resume needs --checkpoint-dir" not in r.stderr:
        failures.append(f"--resume without --checkpoint-dir: exit {r.returncode}\n{r.stderr[-1000:]}")


# ---- the two cases that used to hang: a wall-clock limit with ranks sharing an island (each
def test_wall_clock_limit_and_uneven_migrants_do_not_hang():
    # read its own clock), and islands that send different numbers of migrants ----
    r = run(4, "fit", "--data", "d.h5", "--set", "/mxnet/vgg16", "--out", "h1.h5", "--max-seconds",
            "0.7", "--ranks-per-island", "2", "--max-generations", "100000", "--tol", "0", "--no-compress",
            "--progress-every", "0", "--separable", "off",  # a 1-D search would converge first
            timeout=100)
    if r.returncode != 0 or "time_limit" not in r.stdout + r.stderr:
        failures.append(f"max-seconds with ranks-per-island 2: exit {r.returncode}\n{r.stderr[-1500:]}")
    r = run(4, "fit", "--data", "d.h5", "--set", "/mxnet/vgg16", "--out", "h2.h5", "--migrants", "8",
            "--migration-interval", "5", "--per-island", "population=5,strategy=rand1bin;population=40",
            "--max-generations", "60", "--progress-every", "0", "--json", timeout=100)
    if r.returncode != 0:
        failures.append(f"islands sending different migrant counts: exit {r.returncode}\n{r.stderr[-1500:]}")
    r = run(2, "fit", "--data", "d.h5", "--set", "/mxnet/vgg16", "--out", "h3.h5", "--migrants", "30",
            "--max-evaluations", "6000", "--strategy", "lshade", "--max-generations", "400",
            "--progress-every", "0", "--separable", "off", timeout=100)  # 6-D: 108 shrinking past 30
    if r.returncode != 0:
        failures.append(f"L-SHADE shrinking below migrants: exit {r.returncode}\n{r.stderr[-1500:]}")
