#!/usr/bin/env python3
"""Faults a long fit meets on a cluster, injected for real: a rank killed with SIGKILL (node
crash, OOM killer), a full disk (a 1 MiB tmpfs, when this test may mount one) and a file-size
limit (ulimit -f) while a result, checkpoint or store is written, and checkpoints damaged on
disk (truncated, one flipped byte). Each must end in bounded time with a clear one-line error,
keep the previous file, and lose nothing a --resume cannot recover.

Run by pytest with the harness of tests/conftest.py (--perfit, --work, --mpiexec).
"""
import glob
import hashlib
import json
import os
import resource
import subprocess
import time

import pytest

import ranks
from ranks import Watched, rank_pids, with_progress

perfit, work, mpiexec = ranks.arguments()
env = ranks.ENV
failures = []


def command(n, *args):
    return ranks.command(perfit, mpiexec, n, *args)


def run(n, *args, timeout=120, fsize=None):
    limit = None
    if fsize is not None:
        def limit():
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
    return subprocess.run(command(n, *args), capture_output=True, text=True, cwd=work,
                          timeout=timeout, env=env, preexec_fn=limit)


def digest(path):
    with open(os.path.join(work, path), "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def temps(directory="."):
    return glob.glob(os.path.join(work, directory, ".*.tmp-*"))


def one_error(r, needle, code, what):
    """r failed with `code` and exactly one 'perfit: error:' line holding needle."""
    errors = [l for l in r.stderr.splitlines() if l.startswith("perfit: error:")]
    if r.returncode != code or len(errors) != 1 or needle not in errors[0]:
        failures.append(f"{what}: exit {r.returncode} (expected {code}), error lines {errors} "
                        f"(expected one with {needle!r})\n{r.stderr[-1500:]}")


common = ["fit", "--data", "d.h5", "--set", "/mxnet/vgg16", "--max-generations", "160", "--tol", "0",
          "--migration-interval", "10", "--checkpoint-every", "10", "--slow-ms", "6",
          "--progress-every", "0", "--json"]
# A fit that runs until stopped, checkpointing into ckf (ckf/checkpoint.h5: the checkpoint fixture).
CKARGS = [*common, "--max-generations", "100000", "--tol", "0", "--out", "c.h5", "--checkpoint-dir", "ckf"]


@pytest.fixture(scope="module", autouse=True)
def store():
    """d.h5, the set every fit reads."""
    subprocess.run([perfit, "synth", "--out", "d.h5", "--rows", "20000", "--set", "/mxnet/vgg16"],
                   check=True, cwd=work, stdout=subprocess.DEVNULL)


@pytest.fixture(scope="module")
def result():
    """r.h5: a finished fit, the previous file that a failed write must keep."""
    if run(1, *common, "--out", "r.h5").returncode != 0:
        failures.append("fit for the disk-full cases failed")
    return "r.h5"


@pytest.fixture(scope="module")
def checkpoint():
    """ckf/checkpoint.h5 of CKARGS' fit, stopped by SIGTERM once it has written one; its bytes."""
    w = Watched(command(1, *CKARGS), work, stdout=subprocess.DEVNULL)
    w.wait_files(os.path.join(work, "ckf", "checkpoint.h5"), "the first checkpoint")
    w.signal(15)
    w.finish()
    with open(os.path.join(work, "ckf", "checkpoint.h5"), "rb") as f:
        return f.read()

# ---- kill -9 of one rank mid-fit: the job ends, no result; --resume completes it ----
def test_kill_9_of_one_rank_mid_fit_ends_the_job_and_resume_completes():
    full = run(2, *common, "--out", "full.h5", "--slow-island", "0")
    if full.returncode != 0:
        failures.append(f"uninterrupted 2-rank fit: exit {full.returncode}\n{full.stderr[-1500:]}")
    args = [*common, "--out", "k.h5", "--checkpoint-dir", "ck9", "--slow-island", "0"]
    # The kill comes at generation 30, past the checkpoints of generations 10 and 20; the fit
    # (160 generations, one island sleeping 6 ms in each) must still be running then.
    w = Watched(command(2, *with_progress(args)), work)
    w.wait_generation(30, epoch_generations=10)
    victims = sorted(rank_pids("ck9"))
    if len(victims) != 2:
        failures.append(f"kill -9: expected 2 rank processes, found {victims}")
        w.signal(9)
        w.finish()
    else:
        killed_at = time.time()
        w.signal(9, victims[-1:])
        try:
            code, out, err = w.finish(60)
            took = time.time() - killed_at
            if code == 0 or took > 30:
                failures.append(f"kill -9 of a rank: exit {code} after {took:.1f} s "
                                f"(expected a failure within 30 s)\n{err[-1500:]}")
            said = [l for l in err.splitlines() if "signal 9" in l or "Killed" in l]
            print(f"fault_test: kill -9 of a rank: mpiexec ended after {took:.1f} s, exit "
                  f"{code}: {said[:1]}")
            if not said:
                failures.append(f"kill -9 of a rank: no message naming the killed rank\n{err[-1500:]}")
        except ranks.Missed:
            failures.append("kill -9 of a rank: the job still ran 60 s later (hang)")
        if os.path.exists(os.path.join(work, "k.h5")) or temps():
            failures.append(f"kill -9 of a rank: a result or temporary file was left: "
                            f"{os.listdir(work)}")
        res = run(2, *args, "--resume")
        if res.returncode != 0:
            failures.append(f"resume after kill -9 of a rank: exit {res.returncode}\n{res.stderr[-1500:]}")
        elif full.returncode == 0:
            a, b = json.loads(full.stdout), json.loads(res.stdout)
            for k in ["params", "cost", "generations", "evaluations"]:
                if a[k] != b[k]:
                    failures.append(f"resume after kill -9: {k} {b[k]} != uninterrupted {a[k]}")


# ---- a file-size limit (ulimit -f) while writing: clear error, previous file kept ----
def test_ulimit_f_while_writing_a_clear_error_and_previous_files_kept(result, checkpoint):
    before = digest("r.h5")
    r = run(1, *common, "--out", "r.h5", "--force", fsize=4096)
    one_error(r, "File too large", 6, "result over ulimit -f")
    if digest("r.h5") != before or temps():
        failures.append("result over ulimit -f: the previous result changed or a temporary file was left")

    # checkpoint: an interrupted fit leaves one; resuming under the limit cannot rewrite it
    ck_before = digest("ckf/checkpoint.h5")
    size = os.path.getsize(os.path.join(work, "ckf", "checkpoint.h5"))
    r = run(1, *CKARGS, "--resume", fsize=size // 2)
    one_error(r, "File too large", 6, "checkpoint over ulimit -f")
    if digest("ckf/checkpoint.h5") != ck_before or temps("ckf"):
        failures.append("checkpoint over ulimit -f: the previous checkpoint changed or a temp file was left")


# ---- a full disk (ENOSPC), on a 1 MiB tmpfs: result, store and checkpoint ----
def test_a_full_disk_enospc_on_a_small_tmpfs_result_store_and_checkpoint(result, checkpoint):
    mnt = os.path.join(work, "full")
    os.makedirs(mnt)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", mnt],
                             capture_output=True).returncode == 0


    def copy_in(src, dst):
        with open(os.path.join(work, src), "rb") as f, open(os.path.join(mnt, dst), "wb") as g:
            g.write(f.read())


    def fill(leave):
        """Writes mnt/filler so that about `leave` bytes stay free."""
        filler = os.path.join(mnt, "filler")
        if os.path.exists(filler):
            os.remove(filler)
        st = os.statvfs(mnt)
        with open(filler, "wb") as f:
            f.write(b"\0" * max(0, st.f_bavail * st.f_frsize - leave))


    if not mounted:
        print("fault_test: cannot mount a tmpfs here (not root?): disk-full cases use ulimit -f only")
    else:
        try:
            copy_in("r.h5", "r.h5")
            fill(4096)
            before = digest("full/r.h5")
            r = run(1, *common, "--out", "full/r.h5", "--force")
            one_error(r, "No space left on device", 6, "result on a full disk")
            if digest("full/r.h5") != before or temps("full"):
                failures.append("result on a full disk: the previous result changed or a temp file was left")
            r = run(1, "synth", "--out", "full/s.h5", "--rows", "5000", "--set", "/mxnet/vgg16")
            one_error(r, "No space left on device", 6, "store on a full disk")
            if os.path.exists(os.path.join(mnt, "s.h5")) or temps("full"):
                failures.append("store on a full disk: a partial store or a temp file was left")
            os.remove(os.path.join(mnt, "filler"))
            os.remove(os.path.join(mnt, "r.h5"))
            os.makedirs(os.path.join(mnt, "ck"))
            copy_in("ckf/checkpoint.h5", "ck/checkpoint.h5")
            fill(4096)
            ck_before = digest("full/ck/checkpoint.h5")
            r = run(1, *CKARGS[:-1], "full/ck", "--resume")
            one_error(r, "No space left on device", 6, "checkpoint on a full disk")
            if digest("full/ck/checkpoint.h5") != ck_before or temps("full/ck"):
                failures.append("checkpoint on a full disk: the previous checkpoint changed or a temp file was left")
        finally:
            subprocess.run(["umount", mnt])


# ---- damaged checkpoints are refused by --resume, and left as they are ----
def test_damaged_checkpoints_are_refused_by_resume_and_left_as_is(checkpoint):
    good = checkpoint
    for what, damaged, needle in [
            ("truncated", good[: len(good) * 2 // 3], "is truncated"),
            ("one flipped byte", good[:700] + bytes([good[700] ^ 0x04]) + good[701:], "is corrupt"),
            ("one flipped byte in the checksum block", good[:25] + bytes([good[25] ^ 0x01]) + good[26:],
             "is corrupt")]:
        with open(os.path.join(work, "ckf", "checkpoint.h5"), "wb") as f:
            f.write(damaged)
        r = run(1, *CKARGS, "--resume")
        one_error(r, "checkpoint 'ckf/checkpoint.h5' " + needle, 3, f"resume from a {what} checkpoint")
        if digest("ckf/checkpoint.h5") != hashlib.sha256(damaged).hexdigest():
            failures.append(f"resume from a {what} checkpoint: the checkpoint was rewritten")
    with open(os.path.join(work, "ckf", "checkpoint.h5"), "wb") as f:  # as the other tests found it
        f.write(good)
