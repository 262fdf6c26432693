"""DataFrames in, fits and predictions out, through the C++ core (_perfit)."""
import html
import json
import math
import warnings

import numpy as np
import pandas as pd

from . import _perfit


def _columns(df, what="the DataFrame"):
    """The DataFrame's columns as NumPy arrays (no copy for numeric columns)."""
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"{what}: expected a pandas DataFrame, found {type(df).__name__}")
    out = {}
    for name in df.columns:
        if not isinstance(name, str):
            raise _perfit.ConfigError(f"{what} column {name!r}: column names must be text")
        values = df[name].to_numpy()
        if values.dtype.kind == "O":  # text (or mixed): one text column, as a CSV import makes it
            values = np.asarray([str(v) for v in values], dtype=object)
        out[name] = values
    return out


def _option_text(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return ",".join(_option_text(v) for v in value)
    return str(value)


def _factors_text(factors):
    if factors is None:
        return None
    if isinstance(factors, str):
        return factors
    return ",".join(f"{k}={_option_text(v)}" for k, v in factors.items())


def read_store(path, set):
    """The set `set` of the HDF5 store `path` as a DataFrame; the set's attributes (target,
    unit, checksum, provenance) in `df.attrs`."""
    got = _perfit.read_store(str(path), set)
    df = pd.DataFrame(got["columns"], copy=False)
    df.attrs.update(got["attributes"])
    return df


def write_store(df, path, set, target, unit="s", replace=False, append=False, source=None):
    """Writes `df` as set `set` of the store `path` (created, or added to: the other sets are
    kept), with `perfit import`'s checks: `target` names the measured-time column (finite and
    > 0). An existing set is refused unless replace=True or append=True. Returns its rows."""
    return _perfit.write_store(_columns(df), str(path), set, target, unit, replace, append, source or "")


def options():
    """Every option of a fit: Python name, config key, default, accepted values, meaning."""
    rows = _perfit.options()
    return pd.DataFrame(rows, columns=["name", "key", "default", "expected", "doc"]).set_index("name")


def fit(df, model="generic", target="time", factors=None, unit="s", set="/dataframe/rows",
        verbose=False, **options):
    """Fits `model` (a built-in name or a YAML file) to the rows of `df`, `target` being the
    measured-time column; `factors` binds model factors to columns or values ({"p": "gpus",
    "epochs": 1}). Other keyword arguments are the options of `perfit fit` by flag name
    (seed=1, max_generations=500, bootstrap=100, residual="rel", ...; perfit.options() lists
    them). Returns a Fit. Raises ConfigError, DataError, ... with the CLI's messages."""
    opts = {k: _option_text(v) for k, v in options.items()}
    opts["model"] = str(model)
    bound = _factors_text(factors)
    if bound:
        opts["factors"] = bound
    columns = _columns(df)
    if verbose:  # the CLI's set-up and progress lines, on stderr
        _perfit.set_log_level("info")
    try:
        result = _perfit.fit(columns, set, target, unit, opts, verbose)
    finally:
        if verbose:
            _perfit.set_log_level("warn")
    return Fit(result)


def load(path, set=""):
    """A result file written by `perfit fit --out` or Fit.save (or, with `set`, one winner of
    a selection store) as a Fit."""
    return Fit(_perfit.load(str(path), set), path=str(path))


class Fit:
    """A fitted model: its constants, metrics and how the search stopped; predictions with
    intervals, term contributions and extrapolation flags."""

    def __init__(self, result, path=""):
        self._result = result
        self._path = path
        self._json = json.loads(result.json(path))

    @property
    def model(self):
        return self._json["model"]

    @property
    def target(self):
        return self._json["target"]

    @property
    def params(self):
        """One row per constant: value, lo, hi, log_scale, at_bound, determined, linear,
        ci_lo, ci_hi (NaN without bootstrap refits, or when the data do not determine it)."""
        return pd.DataFrame(self._result.params()).set_index("name")

    @property
    def values(self):
        """{constant: value}."""
        return dict(self._json["params"])

    @property
    def metrics(self):
        return dict(self._json["metrics"])

    @property
    def stop_reason(self):
        return self._json["stop_reason"]

    @property
    def warnings(self):
        return list(self._json["warnings"])

    @property
    def ranges(self):
        """{factor: (lo, hi)} as measured; predictions outside are flagged."""
        return {k: tuple(v) for k, v in self._json["ranges"].items()}

    @property
    def path(self):
        """The result file it was loaded from or saved to ("" for a fit not yet saved)."""
        return self._path

    @property
    def bindings(self):
        """{factor: column or value} as the fit bound them (factors=, --factors)."""
        text = (self._json.get("config") or {}).get("factors", "") or ""
        pairs = (item.split("=", 1) for item in text.split(",") if "=" in item)
        return {k.strip(): v.strip() for k, v in pairs}

    @property
    def rows(self):
        """The rows as fitted: each factor column the model reads, the target, `predicted` and
        `residual` (measured - predicted); past 10,000 rows every k-th (info["rows_kept_stride"]).
        Empty for results that keep none (older files, winners of a selection store)."""
        return pd.DataFrame(self._result.rows(), copy=False)

    @property
    def info(self):
        """Every field of the result, as `perfit fit --json` prints it."""
        return dict(self._json)

    def predict(self, df, interval=0.0):
        """Predictions at the configurations of `df` (columns named as the model's factors or
        as the columns they were bound to; other columns are kept). Adds predicted_<target>,
        lo_/hi_<target> (an interval: the bootstrap refits' by default, or with interval=0.9
        a prediction interval for a run; attrs["interval_contains"] says what it holds),
        extrapolated (bool), outside ("gpus>4x") and term_<name> columns. Points outside the
        measured range give one warnings.warn line."""
        got = self._result.predict(self._path or "result", _columns(df), float(interval))
        out = df.copy()
        t = self.target
        out[f"predicted_{t}"] = got["predicted"]
        if "lo" in got:
            out[f"lo_{t}"] = got["lo"]
            out[f"hi_{t}"] = got["hi"]
        out["extrapolated"] = got["extrapolated"]
        out["outside"] = got["outside"]
        for name, values in got["terms"].items():
            out[f"term_{name}"] = values
        out.attrs["interval_level"] = got["level"]
        out.attrs["interval_contains"] = got["contains"]
        out.attrs["range_known"] = got["range_known"]
        if got["interval_unavailable"]:
            warnings.warn(f"perfit predict: {got['contains']}", stacklevel=2)
        if got["warning"]:
            warnings.warn(got["warning"], stacklevel=2)
        return out

    def report(self):
        """The table `perfit fit` prints."""
        return self._result.text()

    def save(self, path, force=False):
        """Writes the result file `perfit fit --out` writes (show, predict, explain read it)."""
        self._result.save(str(path), force)
        self._path = str(path)

    def __repr__(self):
        return self.report()

    def _repr_html_(self):
        m = self.metrics
        head = (f"<p><b>perfit fit</b> of model <code>{html.escape(self.model)}</code>: "
                f"stopped {html.escape(self.stop_reason)}; MAPE {m['mape']:.3g}%, "
                f"R<sup>2</sup> {m['r2']:.6f}</p>")
        warn = "".join(f"<p>warning: {html.escape(w)}</p>" for w in self.warnings)
        return head + self.params.to_html(float_format=lambda v: "" if math.isnan(v) else f"{v:.6g}") + warn
