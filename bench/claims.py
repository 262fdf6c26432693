"""A benchmark's last line and the claims it is checked against.

Every benchmark ends with one line of `name=value` pairs. Given `--expect` checks (NAME<=X,
NAME>=X or NAME=VALUE), it also exits 1 naming each claim that does not hold, so that a
benchmark registered as a CTest test fails when its claim fails (not when a line is missing).
"""
import operator
import sys

_OPS = (("<=", operator.le), (">=", operator.ge), ("=", operator.eq))


def add_expect(parser):
    parser.add_argument("--expect", action="append", default=[], metavar="NAME<=X",
                        help="a claim on a value of the last line (NAME<=X, NAME>=X or NAME=VALUE); "
                             "repeatable; the benchmark exits 1 when one fails")


def _parse(expect):
    for text, op in _OPS:
        if text in expect:
            name, want = expect.split(text, 1)
            return name.strip(), text, op, want.strip()
    sys.exit(f"--expect: found '{expect}', expected NAME<=X, NAME>=X or NAME=VALUE")


def last_line(pairs, expects):
    """Prints `name=value ...` (floats with 3 decimals) and checks `expects` against it."""
    shown = {k: (f"{v:.3f}" if isinstance(v, float) else str(v)) for k, v in pairs.items()}
    print(" ".join(f"{k}={v}" for k, v in shown.items()), flush=True)
    failed = []
    for e in expects:
        name, text, op, want = _parse(e)
        if name not in pairs:
            sys.exit(f"--expect {e}: the last line has no '{name}' (it has {', '.join(pairs)})")
        have = pairs[name]
        ok = op(str(have), want) if text == "=" else op(float(have), float(want))
        if not ok:
            failed.append(f"{name}={shown[name]}, expected {text}{want}")
    for f in failed:
        print(f"FAILED claim: {f}", file=sys.stderr)
    if failed:
        sys.exit(1)
