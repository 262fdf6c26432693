"""DataFrames in, fits and predictions out, through the C++ core (_perfit)."""
import contextlib
import html
import json
import math
import re
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
        column = df[name]
        if pd.api.types.is_bool_dtype(column.dtype) or not pd.api.types.is_numeric_dtype(column.dtype):
            values = column.to_numpy()
        elif isinstance(column.dtype, np.dtype):
            values = column.to_numpy()  # NumPy's own buffer: no copy here
        else:  # pandas' nullable Int64/Float64: missing values become NaN, as in a CSV import
            values = column.to_numpy(dtype="float64", na_value=np.nan)
        if values.dtype.kind == "O":  # text (or mixed): one text column, as a CSV import makes it
            values = np.asarray([str(v) for v in values], dtype=object)
        out[name] = values
    return out


# The CLI's words for what Python passes as keyword arguments: messages name what the user typed.
_PYTHON_WORDS = [
    (re.compile(r"--factors (\w+)=<column> or \1=<number>"),
     lambda m: f"factors={{'{m[1]}': '<column>'}} or factors={{'{m[1]}': <number>}}"),
    (re.compile(r"--factors (\w+)=([^\s:;,)]+)"), lambda m: f"factors={{'{m[1]}': '{m[2]}'}}"),
    (re.compile(r"--drop-invalid"), lambda m: "drop_invalid=True"),
    (re.compile(r"--append\b"), lambda m: "append=True"),
    (re.compile(r"--force (to replace it|exclude)"), lambda m: f"replace=True {m[1]}"),
    (re.compile(r"--bootstrap\b"), lambda m: "bootstrap="),
    (re.compile(r"--(target|unit)\b"), lambda m: f"{m[1]}="),
]


@contextlib.contextmanager
def _python_words():
    """Re-raises the core's errors with Python's spelling of the options they name."""
    try:
        yield
    except _perfit.PerfitError as e:
        text = str(e)
        for pattern, word in _PYTHON_WORDS:
            text = pattern.sub(word, text)
        if text == str(e):
            raise
        raise type(e)(text) from None


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
    df.attrs["set"] = set  # fit, select and validate name the rows by it
    return df


def _from_attrs(df, target, unit, set):
    """A DataFrame read with read_store carries its target, unit and set in attrs: they are the
    defaults (an explicit argument wins)."""
    attrs = getattr(df, "attrs", {}) or {}
    return (target if target is not None else attrs.get("target", "time"),
            unit if unit is not None else attrs.get("unit", "s"),
            set if set is not None else attrs.get("set", "/dataframe/rows"))


def write_store(df, path, set, target, unit="s", replace=False, append=False, source=None):
    """Writes `df` as set `set` of the store `path` (created, or added to: the other sets are
    kept), with `perfit import`'s checks: `target` names the measured-time column (finite and
    > 0). An existing set is refused unless replace=True or append=True. Returns its rows."""
    with _python_words():
        return _perfit.write_store(_columns(df), str(path), set, target, unit, replace, append, source or "")


def options():
    """Every option of a fit: Python name, config key, default, accepted values, meaning."""
    rows = _perfit.options()
    return pd.DataFrame(rows, columns=["name", "key", "default", "expected", "doc"]).set_index("name")


def fit(df, model="generic", target=None, factors=None, unit=None, set=None, verbose=False, **options):
    """Fits `model` (a built-in name or a YAML file) to the rows of `df`, `target` being the
    measured-time column in `unit` (default: what read_store put in df.attrs, else "time" in
    "s"); `factors` binds model factors to columns or values ({"p": "gpus", "epochs": 1}).
    Other keyword arguments are the options of `perfit fit` by flag name (seed=1,
    max_generations=500, bootstrap=100, residual="sq", ...; perfit.options() lists them).
    Returns a Fit. Raises ConfigError, DataError, ... with the CLI's messages."""
    target, unit, set = _from_attrs(df, target, unit, set)
    opts = {k: _option_text(v) for k, v in options.items()}
    opts["model"] = str(model)
    bound = _factors_text(factors)
    if bound:
        opts["factors"] = bound
    columns = _columns(df)
    if verbose:  # the CLI's set-up and progress lines, on stderr
        _perfit.set_log_level("info")
    try:
        with _python_words():
            result = _perfit.fit(columns, set, target, unit, opts, verbose)
    finally:
        if verbose:
            _perfit.set_log_level("warn")
    return Fit(result)


def _in_memory(run):
    """Runs run() on rows given in memory, its errors in Python's words and naming the DataFrame
    (the core names the rows "'DataFrame' set '/dataframe/rows'")."""
    try:
        with _python_words():
            return run()
    except _perfit.PerfitError as e:
        text = str(e).replace("'DataFrame' set '/dataframe/rows'", "the DataFrame")
        if text == str(e):
            raise
        raise type(e)(text) from None


def _run_options(model, factors, options):
    opts = {k: _option_text(v) for k, v in options.items()}
    if model is not None:
        opts["model"] = str(model)
    bound = _factors_text(factors)
    if bound:
        opts["factors"] = bound
    return opts


def select(df, models=None, criterion="extrapolation", target=None, factors=None, unit=None, **options):
    """Ranks candidate models as `perfit select` does (criterion extrapolation, kfold, aic or
    bic; models: names or YAML files, default every built-in whose factors df has; folds=,
    holdout=, negative_exponents= and every fit option) and fits the winner on every row.
    With by= each model competes as a joint fit of the groups, every constant pooled, shared and
    per group (or the kinds shared=, per_group=, pooled= give): the ranking's `kinds` column.
    Returns a Selection: .ranking (DataFrame, best first), .fit (the winner's Fit), .how."""
    target, unit, _ = _from_attrs(df, target, unit, None)
    opts = _run_options(None, factors, options)
    if models is not None:
        opts["models"] = models if isinstance(models, str) else ",".join(str(m) for m in models)
    opts["criterion"] = str(criterion)
    columns = _columns(df)
    got = _in_memory(lambda: _perfit.select(columns, "/dataframe/rows", target, unit, opts))
    return Selection(got)


def validate(df, model="generic", split="kfold:5", target=None, factors=None, unit=None, **options):
    """How well `model` predicts rows it was not fitted on, as `perfit validate` (split kfold:K,
    group:COLUMN[:K], scale:COLUMN[:K] or forward:COLUMN; a factor name works for its column).
    With by= (and shared=, per_group=, pooled=, pool_strength= as in perfit.fit) each fold is a
    joint fit of the groups; split="group:framework:2" predicts each group from its two
    smallest scales and the other groups. Returns a DataFrame, one row per fold (train/test
    rows, held-out cost, metrics, constants: param_c1__2 is group 2's c1), with the pooled
    held-out metrics in attrs["summary"] and a joint fit's groups in attrs["groups"]."""
    target, unit, _ = _from_attrs(df, target, unit, None)
    opts = _run_options(model, factors, options)
    columns = _columns(df)
    got = json.loads(_in_memory(lambda: _perfit.validate(columns, "/dataframe/rows", target, unit, split, opts)))
    rows = []
    for f in got["folds"]:
        row = {"fold": f["fold"], "train_rows": f["train_rows"], "test_rows": f["test_rows"],
               "train_cost": f["train_cost"], "held_out_cost": f["held_out_cost"], **f["metrics"]}
        row.update({f"param_{k}": v for k, v in f["params"].items()})
        rows.append(row)
    out = pd.DataFrame(rows).set_index("fold")
    out.attrs["summary"] = got["summary"]
    out.attrs["split"] = got["split"]
    out.attrs["model"] = got["model"]
    if "groups" in got:
        out.attrs["groups"] = got["groups"]
    return out


def _constants_in_columns(summary):
    """summary.csv's `params` cell ("t1=1451.5;s=0.0747") as one column per constant, param_t1,
    param_s (NaN where a fit has no such constant), as validate names them."""
    if "params" not in summary.columns:
        return summary
    cells = [dict(item.split("=", 1) for item in str(v).split(";") if "=" in item) if isinstance(v, str) else {}
             for v in summary["params"]]
    names = list(dict.fromkeys(k for c in cells for k in c))
    at = summary.columns.get_loc("params")
    out = summary.drop(columns=["params"])
    for k, name in enumerate(names):
        out.insert(at + k, f"param_{name}", [float(c[name]) if name in c else math.nan for c in cells])
    return out


def batch_summary(directory):
    """The summary of a `perfit batch` or `perfit select --set GLOB` output directory as a
    DataFrame: summary.csv (fits: one row per fit, each constant in a column param_<name>) or
    selection.csv (one row per set: chosen model, hypothesis, scores, metrics, each constant in
    its own column)."""
    import os
    for name in ("summary.csv", "selection.csv"):
        path = os.path.join(str(directory), name)
        if os.path.exists(path):
            return _constants_in_columns(pd.read_csv(path))
    if not os.path.isdir(str(directory)):
        raise _perfit.IoError(f"'{directory}' is not a directory; pass the --out directory of perfit batch or select")
    raise _perfit.DataError(f"'{directory}' holds neither summary.csv nor selection.csv: not the output of "
                            "perfit batch or perfit select --set GLOB")


def load(path, set=""):
    """A result file written by `perfit fit --out` or Fit.save (or, with `set`, one winner of
    a selection store) as a Fit."""
    return Fit(_perfit.load(str(path), set), path=str(path))


class Selection:
    """A model selection: the ranking (best first) and the winner fitted on every row.
    Unpacks as (ranking, fit)."""

    def __init__(self, got):
        rows = []
        for r in json.loads(got["ranking"]):
            row = {"model": r["model"], "source": r["source"], "score": r["score"], "params": r["params"],
                   "failed": r["failed"], "determined": r["determined"],
                   "hypothesis": (r.get("hypothesis") or {}).get("expression", ""), "why": r.get("why", "")}
            if "kinds" in r:  # a joint selection (by=): which kinds of constant
                row["kinds"] = r["kinds"]
            row.update(r.get("metrics", {}))
            rows.append(row)
        self.ranking = pd.DataFrame(rows)
        self.ranking.index = pd.RangeIndex(1, len(rows) + 1, name="rank")
        self.fit = Fit(got["winner"])
        self.how = got["how"]
        self.criterion = got["criterion"]

    def __iter__(self):
        return iter((self.ranking, self.fit))

    def __repr__(self):
        return f"model selection by {self.criterion} ({self.how}):\n{self.ranking.to_string()}"

    def _repr_html_(self):
        return (f"<p><b>perfit select</b> by {html.escape(self.criterion)} ({html.escape(self.how)}); "
                f"lower score is better</p>" + self.ranking.to_html(na_rep=""))


def _with_group_columns(rows, groups):
    """A joint fit's kept rows mark their group by indicator columns (_group1, ...: what the
    model reads); figures and predict() need the group's own values in the `by` columns."""
    indicators = [c for c in rows.columns if re.fullmatch(r"_group\d+", c)]
    labels, by = groups.get("labels") or [], groups.get("by") or []
    if not indicators or not labels or not by:
        return rows
    which = np.zeros(len(rows), dtype=int)
    for c in indicators:
        which[rows[c].to_numpy() == 1] = int(c[len("_group"):]) - 1
    parts = [label.split(" / ") for label in labels]
    out = rows.drop(columns=indicators)
    for j, col in enumerate(by):
        values = pd.Series([parts[k][j] for k in which], index=out.index)
        numeric = pd.to_numeric(values, errors="coerce")
        out.insert(j, col, numeric if numeric.notna().all() else values)
    return out


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
        Empty for results that keep none (older files, winners of a selection store). A joint
        fit's rows carry their group in the `by` columns, as predict() takes them."""
        return _with_group_columns(pd.DataFrame(self._result.rows(), copy=False), self._json.get("groups") or {})

    @property
    def candidates(self):
        """A selection's candidates (`perfit select --out`, perfit.select), best first: rank,
        model, source, score, held_out_mape, curve (fitted on every row). Empty otherwise."""
        return pd.DataFrame(self._result.candidates(),
                            columns=["rank", "model", "source", "score", "held_out_mape", "curve"])

    def candidate(self, rank):
        """The candidate of that rank (1: this fit) as a Fit, for its predictions and figures."""
        return Fit(self._result.candidate(int(rank) - 1), path=self._path)

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
        with _python_words():
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
        if got["note"]:
            warnings.warn(f"perfit predict: {got['note']}", stacklevel=2)
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
