"""What the benchmarks (and bench/peers) share: their command line (`--perfit`, the options of
each benchmark, `--expect` claims on the last line) and, from scripts/launch.py (the one place
scripts, benchmarks and tests take it from), the environment and the prefix that run perfit on
R ranks. A benchmark's last line and its claims are bench/claims.py.
"""
import argparse
import os
import subprocess
import sys

import claims

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts"))
from launch import ENV, prefix  # noqa: E402,F401  (ENV: the benchmarks' subprocess environment)


def mpiexec(ranks):
    """`mpiexec -n R --oversubscribe`, also for one rank: R ranks on however many cores there are."""
    return prefix(ranks, bare_one=False)


def launch(ranks):
    """The prefix that runs perfit on `ranks` ranks: mpiexec for more than one, nothing for one."""
    return prefix(ranks)


def parser(doc, perfit_required=True, expect=True):
    """An argument parser whose description is the benchmark's docstring, with --perfit (the
    binary) and --expect (claims on the last line: claims.py)."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--perfit", required=perfit_required, help="the perfit binary, e.g. build-test/perfit")
    if expect:
        claims.add_expect(ap)
    return ap


def fits_on_synth(doc, generations, expect=True):
    """The command line of a benchmark of fits on a synthetic set: --perfit (made absolute),
    --rows (of the set, default 1e6) and --generations (of each fit)."""
    ap = parser(doc, expect=expect)
    ap.add_argument("--rows", default="1e6", help="rows of the synthetic set")
    ap.add_argument("--generations", default=generations, help="DE generations of each fit")
    a = ap.parse_args()
    a.perfit = os.path.abspath(a.perfit)
    return a


def synth(perfit, cwd, out, rows, *sets):
    """`perfit synth` of `sets` (each `rows` rows) into cwd/out; stops the benchmark if it fails."""
    subprocess.run([perfit, "synth", "--out", out, "--rows", str(rows), *[x for s in sets for x in ("--set", s)],
                    "--force"], check=True, cwd=cwd, stdout=subprocess.DEVNULL, env=ENV)
