#!/usr/bin/env python3
"""Crafted HDF5 files (docs/reliability.md "Crafted files"): stores and results written with
h5py to break what perfit's readers assume (odd datatypes and shapes, ragged and empty columns,
missing or mistyped attributes, soft-link loops, external links, declared but unwritten rows,
a result whose kept rows declare 10^12), each read by every command that reads that kind of
file. Every run ends within its deadline, without a crash, an internal error or HDF5's error
stack, in bounded memory; a refusal is one line naming the file. A case a command cannot use
(a fit of a set with a text factor) must be refused; inspect may list what it can.

Run by pytest with the harness of tests/conftest.py (--perfit, --work).
"""
import os
import subprocess
import time

import h5py
import numpy as np
import pytest

import ranks

perfit, work, _ = ranks.arguments()
failures = []
DEADLINE_S = 60
MAX_RSS_MB = 1024
CRASH = {-6, -11, -8, -7, 134, 136, 139, 135}

SET = "/c/x"


def crafted(name, columns, attrs=None, extra=None):
    """A store `name` with one set SET: columns {name: numpy array or h5py maker}, the set's
    attributes (default: a perfit store's), and extra(group) for links and oddities."""
    path = os.path.join(work, name)
    with h5py.File(path, "w") as h:
        g = h.create_group(SET)
        for col, v in columns.items():
            if callable(v):
                v(g, col)
            else:
                g.create_dataset(col, data=v)
        for k, v in ({"perfit_format": "perfit-store-1", "target": "time"} if attrs is None else attrs).items():
            g.attrs[k] = v
        if extra:
            extra(g)
    return name


P = np.array([1, 2, 4, 8, 16, 32], dtype="f8")
T = 100 * (0.1 + 0.9 / P)


def text_column(g, col):
    g.create_dataset(col, data=np.array([b"1", b"2", b"four", b"8", b"16", b"32"], dtype=object),
                     dtype=h5py.string_dtype())


def compound_column(g, col):
    a = np.zeros(6, dtype=[("lo", "f8"), ("hi", "f8")])
    g.create_dataset(col, data=a)


def two_d_column(g, col):
    g.create_dataset(col, data=np.ones((6, 2)))


def scalar_column(g, col):
    g.create_dataset(col, data=4.0)


def unwritten(rows):
    def make(g, col):
        g.create_dataset(col, shape=(rows,), dtype="f8", chunks=(1 << 16,), compression="gzip")
    return make


def opaque_column(g, col):
    g.create_dataset(col, data=np.frombuffer(b"\x01" * 48, dtype="V8"))


def enum_column(g, col):
    g.create_dataset(col, data=np.arange(6, dtype="i1"), dtype=h5py.enum_dtype({"a": 0, "b": 1}, basetype="i1"))


STORES = {
    "text_factor": lambda: crafted("text_factor.h5", {"p": text_column, "time": T}),
    "compound_factor": lambda: crafted("compound_factor.h5", {"p": compound_column, "time": T}),
    "two_d_factor": lambda: crafted("two_d_factor.h5", {"p": two_d_column, "time": T}),
    "scalar_factor": lambda: crafted("scalar_factor.h5", {"p": scalar_column, "time": T}),
    "opaque_factor": lambda: crafted("opaque_factor.h5", {"p": opaque_column, "time": T}),
    "enum_target": lambda: crafted("enum_target.h5", {"p": P, "time": enum_column}),
    "ragged": lambda: crafted("ragged.h5", {"p": P, "time": T[:4]}),
    "zero_rows": lambda: crafted("zero_rows.h5", {"p": P[:0], "time": T[:0]}),
    "no_target_attr": lambda: crafted("no_target_attr.h5", {"p": P, "time": T}, {"perfit_format": "perfit-store-1"}),
    "numeric_target_attr": lambda: crafted("numeric_target_attr.h5", {"p": P, "time": T},
                                           {"perfit_format": "perfit-store-1", "target": 5}),
    "target_not_a_column": lambda: crafted("target_not_a_column.h5", {"p": P, "time": T},
                                           {"perfit_format": "perfit-store-1", "target": "nope"}),
    "array_format_attr": lambda: crafted("array_format_attr.h5", {"p": P, "time": T},
                                         {"perfit_format": np.array([1, 2, 3]), "target": "time"}),
    "softlink_loop": lambda: crafted("softlink_loop.h5", {"p": P, "time": T},
                                     extra=lambda g: g.__setitem__("loop", h5py.SoftLink(SET + "/loop"))),
    "dangling_softlink_column": lambda: crafted("dangling_softlink_column.h5", {"time": T},
                                                extra=lambda g: g.__setitem__("p", h5py.SoftLink("/nowhere"))),
    "external_link_column": lambda: crafted("external_link_column.h5", {"time": T},
                                            extra=lambda g: g.__setitem__("p", h5py.ExternalLink("missing.h5", "/p"))),
    "declared_unwritten": lambda: crafted("declared_unwritten.h5", {"p": unwritten(10 ** 12), "time": unwritten(10 ** 12)}),
    "huge_attribute": lambda: crafted("huge_attribute.h5", {"p": P, "time": T},
                                      {"perfit_format": "perfit-store-1", "target": "time", "note": "x" * (1 << 20)}),
}
# Cases inspect may read (it lists columns of any type and shape it can describe).
INSPECT_MAY_READ = {"text_factor", "compound_factor", "two_d_factor", "scalar_factor", "opaque_factor",
                    "enum_target", "huge_attribute", "softlink_loop", "numeric_target_attr", "target_not_a_column",
                    "no_target_attr", "array_format_attr", "zero_rows", "ragged", "dangling_softlink_column",
                    "external_link_column"}


# Cases that are sound for every command: oddities a reader must pass by.
USABLE = {"huge_attribute"}


def run(args):
    """perfit ARGS in WORK, waited for with its own resource usage; (exit code, stdout+stderr,
    peak RSS in MB, seconds). A run past DEADLINE_S is killed and reported."""
    out_path = os.path.join(work, "crafted.out")
    with open(out_path, "w") as out:
        p = subprocess.Popen([perfit, *args], cwd=work, stdout=out, stderr=subprocess.STDOUT, env=ranks.ENV)
        t0 = time.monotonic()
        while True:
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - t0 > DEADLINE_S:
                p.kill()
                pid, status, usage = os.wait4(p.pid, 0)
                failures.append(f"{args}: still running after {DEADLINE_S} s (killed)")
                break
            time.sleep(0.05)
        p.returncode = os.waitstatus_to_exitcode(status)
    with open(out_path) as f:
        text = f.read()
    return p.returncode, text, usage.ru_maxrss / 1024, time.monotonic() - t0


def check(case, name, args, must_refuse):
    code, text, rss, seconds = run(args)
    what = f"{case}: perfit {' '.join(args)}"
    if code in CRASH or code < 0:
        failures.append(f"{what}: crashed (exit {code})\n{text[-3000:]}")
        return
    if "internal error" in text or "HDF5-DIAG" in text:
        failures.append(f"{what}: internal error or HDF5 stack\n{text[-3000:]}")
    if rss > MAX_RSS_MB:
        failures.append(f"{what}: peak memory {rss:.0f} MB (bound {MAX_RSS_MB} MB)")
    if code == 0:
        if must_refuse:
            failures.append(f"{what}: exit 0, expected a refusal\n{text[-2000:]}")
        return
    # perfit's own line, or `perfit report: error:` from the Python package behind report
    errors = [line for line in text.splitlines() if line.startswith(("perfit: error", "perfit report: error"))]
    if len(errors) != 1 or name not in errors[0]:
        failures.append(f"{what}: exit {code} without one error line naming '{name}'\n{text[-2000:]}")
    print(f"{case:26s} {args[0]:8s} exit {code} {seconds:5.2f} s {rss:5.0f} MB  {errors[0] if errors else ''}")


@pytest.mark.parametrize("case", sorted(STORES))
def test_a_crafted_store_is_read_or_refused_by_every_reader(case):
    name = STORES[case]()
    check(case, name, ["inspect", name], case not in INSPECT_MAY_READ)
    check(case, name, ["inspect", name, "--set", SET, "--json"], case not in INSPECT_MAY_READ)
    common = ["--data", name, "--set", SET, "--factors", "p=p"]
    bad = case not in USABLE
    check(case, name, ["fit", *common, "--model", "amdahl", "--out", f"{case}_fit.h5", "--force"], bad)
    check(case, name, ["select", *common, "--models", "amdahl,power"], bad)
    check(case, name, ["validate", *common, "--model", "amdahl"], bad)
    check(case, name, ["models", "amdahl", "--data", name, "--set", SET], False)
    if bad and os.path.exists(os.path.join(work, f"{case}_fit.h5")):
        failures.append(f"{case}: a refused fit left {case}_fit.h5")


def filled(path, rows):
    """A set of `rows` rows whose chunks all hold the fill value 2.0, written at creation (HDF5's
    early allocation), deflated: kilobytes on disk for gigabytes once read."""
    with h5py.File(os.path.join(work, path), "w") as h:
        g = h.create_group(SET)
        for col in ("p", "time"):
            dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
            dcpl.set_chunk((1 << 16,))
            dcpl.set_deflate(9)
            dcpl.set_fill_value(np.array(2.0))
            dcpl.set_alloc_time(h5py.h5d.ALLOC_TIME_EARLY)
            h5py.h5d.create(g.id, col.encode(), h5py.h5t.IEEE_F64LE, h5py.h5s.create_simple((rows,)), dcpl=dcpl)
        g.attrs["perfit_format"] = "perfit-store-1"
        g.attrs["target"] = "time"
    return path


def test_a_compression_bomb_is_read_in_chunks_or_refused():
    """Columns of one repeated value that inflate to gigabytes: inspect and fit read them 2^20
    rows at a time in bounded memory (3*10^7 rows: 480 MB once read); a reader that holds every
    row (select, validate) refuses a set that needs more than half the machine's memory, naming
    it, before allocating anything (was: read whole until the machine ran out)."""
    zeros = filled("filled.h5", 3 * 10 ** 7)
    check("filled", zeros, ["inspect", zeros, "--set", SET], False)
    check("filled", zeros, ["fit", "--data", zeros, "--set", SET, "--factors", "p=p", "--model", "amdahl",
                            "--out", "filled_fit.h5", "--force"], False)
    memory = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    bomb = filled("bomb.h5", int(0.6 * memory / 16))
    for args in (["select", "--data", bomb, "--set", SET, "--factors", "p=p", "--models", "amdahl,power"],
                 ["validate", "--data", bomb, "--set", SET, "--factors", "p=p", "--model", "amdahl"]):
        check("bomb", bomb, args, True)
        code, text, _, _ = run(args)
        if "more than half the" not in text:
            failures.append(f"bomb: perfit {' '.join(args)}: no refusal for its memory\n{text[-1500:]}")


def test_a_damaged_compressed_chunk_is_named_by_its_rows():
    """A store another program wrote whose fourth compressed chunk of 'time' (rows 49152..65535)
    has damaged bytes: every reader names the dataset and those rows in one line, exit 3 (was
    exit 4 with HDF5's filter stack); a refused fit writes nothing."""
    path = os.path.join(work, "damaged_chunk.h5")
    with h5py.File(path, "w") as h:
        g = h.create_group(SET)
        rows = 200000
        p = np.tile(P, rows // len(P) + 1)[:rows]
        g.create_dataset("p", data=p, chunks=(1 << 14,), compression="gzip")
        g.create_dataset("time", data=100 * (0.1 + 0.9 / p) * (1 + 0.01 * np.sin(np.arange(rows))),
                         chunks=(1 << 14,), compression="gzip")
        g.attrs["perfit_format"] = "perfit-store-1"
        g.attrs["target"] = "time"
        info = g["time"].id.get_chunk_info(3)
    with open(path, "r+b") as f:
        f.seek(info.byte_offset + info.size // 2)
        f.write(bytes(64))
    said = "dataset 'time': rows 49152..65535 cannot be read, the file is damaged there"
    for args in (["inspect", "damaged_chunk.h5"],
                 ["fit", "--data", "damaged_chunk.h5", "--set", SET, "--model", "amdahl", "--factors", "p=p",
                  "--out", "damaged_fit.h5"]):
        code, text, _, _ = run(args)
        errors = [line for line in text.splitlines() if line.startswith("perfit: error")]
        if code != 3 or len(errors) != 1 or said not in errors[0] or "damaged_chunk.h5" not in errors[0]:
            failures.append(f"perfit {' '.join(args)}: exit {code}, expected 3 and one line with {said!r}\n{text[-2000:]}")
    if os.path.exists(os.path.join(work, "damaged_fit.h5")):
        failures.append("a fit refused for a damaged chunk wrote its result")


@pytest.fixture(scope="module")
def result():
    """A real result (amdahl on six points) copied by h5py into a file without perfit's seal,
    so that changes made to it reach perfit's result reader (a sealed file is refused first)."""
    name = crafted("good.h5", {"p": P, "time": T})
    code, text, _, _ = run(["fit", "--data", name, "--set", SET, "--model", "amdahl", "--factors", "p=p",
                            "--out", "good_result.h5", "--force"])
    assert code == 0, text
    code, text, _, _ = run(["report", "good_result.h5", "--out", "good_report.html", "--force"])
    reports = code == 0  # the report is the Python package's (not built in the sanitizer build)
    if not reports and "is the Python package installed" not in text:
        failures.append(f"report of the good result failed:\n{text[-2000:]}")
    return "good_result.h5", reports


def unsealed_copy(src, dst, change):
    with h5py.File(os.path.join(work, src), "r") as a, h5py.File(os.path.join(work, dst), "w") as b:
        for k, v in a.attrs.items():
            b.attrs[k] = v
        for k in a:
            a.copy(a[k], b, k)
        change(b)
    return dst


def huge_rows(h):
    rows = h["rows"]
    for col in list(rows):
        del rows[col]
        rows.create_dataset(col, shape=(10 ** 12,), dtype="f8", chunks=(1 << 16,), compression="gzip")


def drop_attr(key):
    return lambda h: h.attrs.__delitem__(key)


def retype_attr(key, value):
    return lambda h: h.attrs.__setitem__(key, value)


def params_as_text(h):
    del h["params"]
    h.create_dataset("params", data=np.array([b"x"], dtype=object), dtype=h5py.string_dtype())


RESULTS = {
    "result_huge_rows": huge_rows,
    "result_no_model_yaml": drop_attr("model_yaml"),
    "result_bad_model_yaml": retype_attr("model_yaml", "expression: (((\n"),
    "result_numeric_cost_text": retype_attr("cost", "cheap"),
    "result_params_as_text": params_as_text,
    "result_softlink_loop": lambda h: h.__setitem__("loop", h5py.SoftLink("/loop")),
}


@pytest.mark.parametrize("case", sorted(RESULTS))
def test_a_crafted_result_is_refused_by_every_reader(case, result):
    good, reports = result
    name = unsealed_copy(good, f"{case}.h5", RESULTS[case])
    must = case != "result_softlink_loop"  # a link nobody follows changes nothing perfit reads
    check(case, name, ["show", name], must)
    check(case, name, ["predict", "--result", name, "--at", "p=64"], must)
    check(case, name, ["explain", "--result", name, "--sweep", "p=1..64"], must)
    check(case, name, ["recommend", "--result", name, "--space", "p=1..64"], must)
    if reports:
        check(case, name, ["report", name, "--out", f"{case}.html", "--force"], must)


def test_an_unsealed_copy_of_a_result_still_reads(result):
    """The check of the corpus itself: a copy made the same way, unchanged, reads as the original."""
    good, _ = result
    name = unsealed_copy(good, "copy.h5", lambda h: None)
    a, b = run(["show", good, "--json"]), run(["show", name, "--json"])
    if a[0] != 0 or b[0] != 0:
        failures.append(f"show of the original or the unsealed copy failed:\n{a[1][-1000:]}\n{b[1][-1000:]}")
