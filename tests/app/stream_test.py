#!/usr/bin/env python3
"""Fits of sets larger than memory (docs/stores.md "Larger than memory"): a rank's share of more
than `stream_rows` rows is read that many rows at a time and compressed as it is read. The
streamed fit's constants equal the in-memory fit's bit for bit (1 and 2 ranks), its metrics and
noise are the rows' own, its peak memory stays flat in the rows, rows mostly distinct are
sampled with a warning, and bad rows are refused naming their row in the set.

Run by pytest with the harness of tests/conftest.py (--perfit, --work).
"""
import hashlib
import os
import re
import subprocess

import h5py
import numpy as np
import pytest

import ranks

perfit, work, mpiexec = ranks.arguments()
SET = "/pytorch/resnet50"


def run(args, ranks_n=1, code=0):
    res = subprocess.run(ranks.command(perfit, mpiexec, ranks_n, *args), cwd=work, capture_output=True,
                         text=True, env=ranks.ENV, timeout=240)
    assert res.returncode == code, f"{args}: exit {res.returncode}\n{res.stderr[-3000:]}"
    return res


def peak_rss_mb(args, name):
    """Runs perfit alone (no mpiexec): its stderr and peak resident memory in MB (wait4)."""
    log = os.path.join(work, name + ".log")
    with open(log, "w") as f:
        p = subprocess.Popen([perfit, *args], cwd=work, stdout=subprocess.DEVNULL, stderr=f)
        _, status, usage = os.wait4(p.pid, 0)
    with open(log) as f:
        err = f.read()
    assert os.waitstatus_to_exitcode(status) == 0, f"{args}: exit {status}\n{err[-3000:]}"
    return err, usage.ru_maxrss / 1024


def result(name):
    with h5py.File(os.path.join(work, name)) as h:
        return {"params": h["params/value"][:], "rows": int(h.attrs["rows"]),
                "noise": float(h.attrs["noise_log_sd"]), "dropped": int(h.attrs["rows_dropped"]),
                "warnings": str(h.attrs["warnings"])}


@pytest.fixture(scope="module")
def store():
    run(["synth", "--out", "s.h5", "--set", SET, "--rows", "300000", "--force"])
    return "s.h5"


@pytest.fixture(scope="module")
def amdahl():
    path = os.path.join(work, "amdahl.yaml")
    with open(path, "w") as f:
        f.write("name: amdahl\nexpression: \"c0 + c1/p\"\nfactors: [p]\nparams:\n  c0: [0, 100]\n"
                "  c1: [0, 100]\n")
    return path


def fit(store, out, *extra, ranks_n=1):
    return run(["fit", "--data", store, "--set", SET, "--out", out, "--force", *extra], ranks_n)


@pytest.mark.parametrize("n", [1, 2])
def test_a_streamed_fit_equals_the_in_memory_fit_bit_for_bit(store, n):
    streamed = fit(store, f"streamed{n}.h5", "--stream-rows", "40000", ranks_n=n)
    fit(store, f"memory{n}.h5", "--stream-rows", "0", ranks_n=n)
    share = 300000 // n
    assert f"read {share} rows in" in streamed.stderr, streamed.stderr[-2000:]
    assert "in chunks of 40000" in streamed.stderr
    a, b = result(f"streamed{n}.h5"), result(f"memory{n}.h5")
    assert a["params"].tobytes() == b["params"].tobytes(), (a["params"], b["params"])
    assert a["rows"] == b["rows"] == 300000
    # The noise behind every prediction interval: from the configurations' moments, the rows'.
    assert abs(a["noise"] - b["noise"]) <= 1e-9 * b["noise"], (a["noise"], b["noise"])
    shown = [run(["show", f"{k}{n}.h5"]).stdout for k in ("streamed", "memory")]
    metrics = [dict(re.findall(r"(MAPE|RMSE|R\^2|GMAE|max rel err) ([0-9.e+-]+)", s)) for s in shown]
    for name in ("RMSE", "R^2", "max rel err"):  # exact from the moments
        assert metrics[0][name] == metrics[1][name], (name, metrics)
    for name in ("MAPE", "GMAE"):  # estimated within a configuration that straddles its prediction
        a, b = (float(m[name]) for m in metrics)
        assert abs(a - b) <= 0.02 * b, (name, metrics)


def test_peak_memory_grows_with_configurations_not_rows():
    run(["synth", "--out", "big.h5", "--set", SET, "--rows", "4000000", "--force"])
    args = ["fit", "--data", "big.h5", "--set", SET, "--force", "--max-generations", "30"]
    err, streamed = peak_rss_mb([*args, "--out", "b1.h5"], "b1")
    _, memory = peak_rss_mb([*args, "--out", "b2.h5", "--stream-rows", "0"], "b2")
    mb = [streamed, memory]
    print(f"stream_test: 4e6 rows, peak {mb[0]:.0f} MB streamed, {mb[1]:.0f} MB in memory")
    assert "in chunks of 131072" in err
    assert mb[0] < 250 and mb[0] < 0.5 * mb[1], mb
    assert result("b1.h5")["params"].tobytes() == result("b2.h5")["params"].tobytes()


def test_rows_mostly_distinct_are_sampled_and_the_result_says_so(amdahl):
    rng = np.random.default_rng(4)
    p = rng.uniform(1, 64, 60000)
    with h5py.File(os.path.join(work, "distinct.h5"), "w") as h:
        g = h.create_group("/x/y")
        g["p"] = p
        g["time"] = (1 + 10 / p) * np.exp(0.02 * rng.standard_normal(p.size))
        g.attrs["perfit_format"] = "perfit-store-1"
        g.attrs["target"] = "time"
    # Up to 16 x stream_rows of them: read whole, as without streaming.
    res = run(["fit", "--data", "distinct.h5", "--set", "/x/y", "--model", amdahl, "--out", "w.h5",
               "--stream-rows", "10000"])
    assert "mostly distinct" in res.stderr and "reading these 60000 rows into memory" in res.stderr, res.stderr
    run(["fit", "--data", "distinct.h5", "--set", "/x/y", "--model", amdahl, "--out", "w0.h5", "--stream-rows", "0"])
    assert result("w.h5")["params"].tobytes() == result("w0.h5")["params"].tobytes()
    assert "every" not in result("w.h5")["warnings"]
    # Beyond: a strided sample of about stream_rows rows, and the result says so.
    res = run(["fit", "--data", "distinct.h5", "--set", "/x/y", "--model", amdahl, "--out", "d.h5",
               "--stream-rows", "2000"])
    assert "mostly distinct" in res.stderr and "every 30th row, 2000 of 60000" in res.stderr, res.stderr
    r = result("d.h5")
    assert "every 30th row" in r["warnings"], r["warnings"]
    assert abs(r["params"][1] - 10) < 0.5, r["params"]


def test_bad_rows_beyond_the_first_chunk_are_named_or_dropped(amdahl):
    p = np.tile([1.0, 2, 4, 8, 16], 10000)
    t = 1 + 10 / p
    t[31234] = np.nan
    with h5py.File(os.path.join(work, "nan.h5"), "w") as h:
        for name, time in (("/a/nan", t), ("/a/negative", np.where(np.arange(p.size) == 45678, -1.0, 1 + 10 / p))):
            g = h.create_group(name)
            g["p"] = p
            g["time"] = time
            g.attrs["perfit_format"] = "perfit-store-1"
            g.attrs["target"] = "time"
    base = ["fit", "--data", "nan.h5", "--model", amdahl, "--stream-rows", "10000", "--force"]
    refused = run([*base, "--set", "/a/nan", "--out", "n.h5"], code=3)
    assert "column 'time': 1 row" in refused.stderr and "--drop-invalid" in refused.stderr, refused.stderr
    assert not os.path.exists(os.path.join(work, "n.h5"))
    run([*base, "--set", "/a/nan", "--out", "n.h5", "--drop-invalid"])
    assert result("n.h5")["dropped"] == 1
    negative = run([*base, "--set", "/a/negative", "--out", "m.h5"], code=3)
    assert "row 45678 is -1" in negative.stderr, negative.stderr


def write_log_csv(path, rows, bad_line=None):
    """A per-step log as a CSV: a column of integers that turns decimal half way, a quoted text
    column with commas, empty cells, and (bad_line) one time that is not > 0. Written 10^5 rows
    at a time: this process's own peak memory would otherwise be the child's (Linux keeps the
    parent's high-water mark across fork and exec)."""
    rng = np.random.default_rng(3)
    with open(os.path.join(work, path), "w") as f:
        f.write("framework,p,b,time,note\n")
        for start in range(0, rows, 100_000):
            idx = range(start, min(rows, start + 100_000))
            p = rng.integers(1, 65, len(idx))
            time = rng.uniform(0.5, 10, len(idx))
            lines = []
            for k, i in enumerate(idx):
                t = "" if i % 997 == 0 else ("-3" if bad_line is not None and i == bad_line - 2 else f"{time[k]:.6g}")
                pv = f"{p[k]}.5" if i >= rows // 2 else str(p[k])
                lines.append(f'tf,{pv},{(32, 64, 128)[i % 3]},{t},"step {i}, ok"\n')
            f.writelines(lines)


def h5_contents(name):
    """Every object's attributes, and each dataset's layout and a digest of its values, read
    10^5 rows at a time (this process's memory is the next child's starting peak)."""
    out = {}
    with h5py.File(os.path.join(work, name)) as h:
        def visit(path, obj):
            out[path] = {k: np.asarray(v).tobytes() for k, v in obj.attrs.items()}
            if isinstance(obj, h5py.Dataset):
                digest = hashlib.sha256()
                for start in range(0, obj.shape[0] if obj.shape else 1, 100_000):
                    part = obj[start:start + 100_000] if obj.shape else obj[()]
                    digest.update(part.tobytes() if obj.dtype.kind != "O" else repr(list(part)).encode())
                out[path]["data"] = digest.hexdigest()
                out[path]["layout"] = (str(obj.dtype), obj.chunks, obj.compression)
        h.visititems(visit)
    return out


def assert_same_stores(a, b):
    """Two stores hold the same objects, attributes, layouts and values."""
    first, second = h5_contents(a), h5_contents(b)
    assert first.keys() == second.keys()
    for path in first:
        assert first[path] == second[path], path


def test_a_large_csv_is_imported_in_chunks_in_bounded_memory_and_equals_one_read_at_once():
    # PERFIT_TEST_HOOKS import_chunk_rows: the chunked import at this size (by default from 256 MiB)
    write_log_csv("log.csv", 1_500_000)
    args = ["import", "log.csv", "--set", "/tf/log", "--target", "time", "--drop-invalid", "--force"]
    _, memory = peak_rss_mb([*args, "--out", "whole.h5"], "whole")
    env = dict(ranks.ENV, PERFIT_TEST_HOOKS="import_chunk_rows=65536")
    log = os.path.join(work, "chunks.log")
    with open(log, "w") as f:
        p = subprocess.Popen([perfit, *args, "--out", "chunks.h5"], cwd=work, env=env,
                             stdout=subprocess.DEVNULL, stderr=f)
        _, status, usage = os.wait4(p.pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, open(log).read()[-3000:]
    chunked = usage.ru_maxrss / 1024
    print(f"stream_test: CSV of 1.5e6 rows imported at once peak {memory:.0f} MB, in chunks {chunked:.0f} MB")
    assert chunked < 0.5 * memory, (chunked, memory)
    assert_same_stores("whole.h5", "chunks.h5")
    with h5py.File(os.path.join(work, "chunks.h5")) as h:
        assert h["/tf/log/p"].dtype == np.float64 and h["/tf/log/b"].dtype == np.int64
        assert h["/tf/log/time"].shape == (1_500_000 - len(range(0, 1_500_000, 997)),)


def test_append_in_chunks_equals_append_at_once_and_refuses_the_same_columns():
    """--append to a set the store has: read at once (the set's rows and the new ones together),
    or in chunks (the set's rows copied first, a chunk at a time); integers widened to float64
    where the new rows hold decimals, the set's column order kept."""
    def write(name, rows, start, decimal):
        with open(os.path.join(work, name), "w") as f:
            f.write("b,time,p,framework\n")
            for i in range(start, start + rows):
                p = f"{1 + i % 64}.5" if decimal and i % 2 else str(1 + i % 64)
                f.write(f"{(32, 64)[i % 2]},{0.5 + (i % 97) / 10:.6g},{p},tf\n")
    write("first.csv", 5000, 0, False)
    write("more.csv", 9000, 5000, True)
    env = dict(ranks.ENV, PERFIT_TEST_HOOKS="import_chunk_rows=1024")
    for store, e in (("app1.h5", ranks.ENV), ("app2.h5", env)):
        args = ["import", "first.csv", "--out", store, "--set", "/tf/log", "--target", "time", "--force"]
        r = subprocess.run([perfit, *args], cwd=work, env=ranks.ENV, capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        args = ["import", "more.csv", "--out", store, "--set", "/tf/log", "--target", "time", "--append"]
        r = subprocess.run([perfit, *args], cwd=work, env=e, capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        assert ("1024 rows at a time" in r.stderr) == (e is env), r.stderr
    assert_same_stores("app1.h5", "app2.h5")
    with h5py.File(os.path.join(work, "app2.h5")) as h:
        g = h["/tf/log"]
        assert g["time"].shape == (14000,) and g["p"].dtype == np.float64 and g["b"].dtype == np.int64
        assert g["p"][4999] == 8 and g["p"][5001] == 10.5
        assert g.attrs["source"] == "first.csv; more.csv"
    with open(os.path.join(work, "text.csv"), "w") as f:
        f.write("b,time,p,framework\n32,1.5,four,tf\n")
    before = open(os.path.join(work, "app2.h5"), "rb").read()
    errors = []
    for store, e in (("app1.h5", ranks.ENV), ("app2.h5", env)):
        args = ["import", "text.csv", "--out", store, "--set", "/tf/log", "--target", "time", "--append"]
        r = subprocess.run([perfit, *args], cwd=work, env=e, capture_output=True, text=True)
        assert r.returncode == 3, r.stderr
        errors.append(r.stderr.strip().splitlines()[-1])
    assert "column 'p' is float64 but the new rows hold string values" in errors[1], errors
    assert errors[0] == errors[1], errors
    assert open(os.path.join(work, "app2.h5"), "rb").read() == before


def test_set_by_in_chunks_equals_set_by_at_once():
    """--set-by over a file read in chunks: each value's rows counted in a pass, then written
    to their sets chunk by chunk; the same store as a read at once, with --append to sets the
    store has, with a bad time dropped, and past 63 values (read at once, packed)."""
    def write(name, rows, start, values, bad=None):
        with open(os.path.join(work, name), "w") as f:
            f.write("framework,p,time,note\n")
            for i in range(start, start + rows):
                t = "-1" if i == bad else f"{0.5 + (i % 89) / 10:.6g}"
                p = f"{1 + i % 32}.5" if i % 7 == 0 else str(1 + i % 32)
                f.write(f'{values[(i * 7919) % len(values)]},{p},{t},"row {i}, ok"\n')
    write("sb1.csv", 30000, 0, ["tf", "pt", "mx", "2.5"], bad=12345)
    write("sb2.csv", 20000, 30000, ["pt", "jax"])
    env = dict(ranks.ENV, PERFIT_TEST_HOOKS="import_chunk_rows=4096")
    for store, e in (("sb_once.h5", ranks.ENV), ("sb_chunks.h5", env)):
        for csv, more in (("sb1.csv", ["--force", "--drop-invalid"]), ("sb2.csv", ["--append"])):
            args = ["import", csv, "--out", store, "--set", "/study", "--set-by", "framework",
                    "--target", "time", *more]
            r = subprocess.run([perfit, *args], cwd=work, env=e, capture_output=True, text=True)
            assert r.returncode == 0, r.stderr
            assert ("4096 rows at a time" in r.stderr) == (e is env), r.stderr
    assert_same_stores("sb_once.h5", "sb_chunks.h5")
    with h5py.File(os.path.join(work, "sb_chunks.h5")) as h:
        assert sorted(h["study"].keys()) == ["2.5", "jax", "mx", "pt", "tf"]
        assert sum(h[f"study/{v}/time"].shape[0] for v in h["study"]) == 30000 - 1 + 20000
        assert h["study/pt"].attrs["source"] == "sb1.csv; sb2.csv"
    def same_error_both_ways(csv, column, needle):
        """Refused at once and in chunks with the same last line, exit 3, no store written."""
        errors = []
        for store, e in (("sb_bad1.h5", ranks.ENV), ("sb_bad2.h5", env)):
            args = ["import", csv, "--out", store, "--set", "/study", "--set-by", column, "--target", "time"]
            r = subprocess.run([perfit, *args], cwd=work, env=e, capture_output=True, text=True)
            assert r.returncode == 3, r.stderr
            errors.append(r.stderr.strip().splitlines()[-1])
            assert not os.path.exists(os.path.join(work, store))
        assert needle in errors[1], errors
        assert errors[0] == errors[1], errors
    write("sb3.csv", 5000, 0, ["ok", "TF 2.3"])
    same_error_both_ways("sb3.csv", "framework", "column 'framework': value 'TF 2.3' cannot name a set")
    # a bad time and a --set-by column the file lacks: the time named first, both ways
    same_error_both_ways("sb1.csv", "framwork", "target column 'time': found -1")
    write("sb4.csv", 7000, 0, [f"n{k}" for k in range(70)])
    for store, e in (("sb_many1.h5", ranks.ENV), ("sb_many2.h5", env)):
        args = ["import", "sb4.csv", "--out", store, "--set", "/many", "--set-by", "framework",
                "--target", "time"]
        r = subprocess.run([perfit, *args], cwd=work, env=e, capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
    assert_same_stores("sb_many1.h5", "sb_many2.h5")
    assert any(k.startswith("@packs") for k in h5_contents("sb_many2.h5"))


def test_a_bad_time_in_a_later_chunk_is_named_as_in_one_read_and_nothing_is_written():
    write_log_csv("bad.csv", 20000, bad_line=15001)
    args = ["import", "bad.csv", "--set", "/tf/bad", "--target", "time"]
    env = dict(ranks.ENV, PERFIT_TEST_HOOKS="import_chunk_rows=4096")
    whole = subprocess.run([perfit, *args, "--out", "bad1.h5"], cwd=work, env=ranks.ENV, capture_output=True, text=True)
    chunks = subprocess.run([perfit, *args, "--out", "bad2.h5"], cwd=work, env=env, capture_output=True, text=True)
    assert whole.returncode == chunks.returncode == 3
    assert "line 2, target column 'time': found NaN or empty" in chunks.stderr, chunks.stderr
    assert "(22 such rows in all)" in chunks.stderr, chunks.stderr
    assert whole.stderr == chunks.stderr
    assert not os.path.exists(os.path.join(work, "bad2.h5"))
