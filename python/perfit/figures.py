"""Figures of a fit for papers (matplotlib): time against workers on log-log axes with the
measured points, one fitted line per measured value of another factor, the bootstrap band and
the extrapolated range; measured against predicted; residuals against each factor; the terms'
shares along workers. Every function takes a Fit (perfit.fit or perfit.load) and returns a
matplotlib Figure; save(fig, path) writes SVG, PDF or 300-dpi PNG by the path's suffix.

Other factors are held at measured values only: each point of a line takes the combination of
the other factors measured most often at the nearest measured worker count of its group.
"""
import math

import numpy as np
import pandas as pd

from . import _api

_RESERVED = ("predicted", "residual")


def _pyplot():
    import matplotlib
    if matplotlib.get_backend().lower() not in ("agg", "svg", "pdf") and not _interactive():
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _interactive():
    try:
        from IPython import get_ipython
        return get_ipython() is not None
    except ImportError:
        return False


def rows_of(fit, rows=None):
    """`rows` when given (a DataFrame with the fit's factor and target columns), else the fit's
    rows (kept in the result); for results written before perfit kept them, the store's rows,
    found as recorded or relative to the result. Raises DataError saying what is missing when
    none is there."""
    if rows is not None:
        return rows
    rows = fit.rows
    if len(rows):
        return rows
    info = fit.info
    import os
    candidates = [info.get("data_file", "")]
    rel = info.get("data_file_from_result", "")
    if rel and fit.path:
        candidates.append(os.path.join(os.path.dirname(os.path.abspath(fit.path)), rel))
    for c in candidates:
        if c and os.path.isfile(c):
            df = _api.read_store(c, info["set"])
            return df
    raise _api._perfit.DataError(
        f"'{fit.path or 'the result'}' keeps no rows (written before perfit kept them) and its data "
        f"'{info.get('data_file', '')}' set '{info.get('set', '')}' is not found from here: refit it, "
        f"or run where the data is")


def factor_columns(fit, rows=None):
    """The columns of the model's factors in the rows (the bound names, e.g. gpus)."""
    rows = rows_of(fit) if rows is None else rows
    skip = {fit.target, *_RESERVED}
    ranges = fit.ranges
    if ranges:
        return [c for c in rows.columns if c not in skip and c in ranges]
    # a result of an older perfit keeps no ranges: every numeric column of its store stands in
    return [c for c in rows.columns if c not in skip and pd.api.types.is_numeric_dtype(rows[c].dtype)]


def workers_column(fit, rows=None, workers=None):
    """The column of workers: `workers` (a factor or its column), else the one bound to p (or
    named p), else the first that varies."""
    rows = rows_of(fit) if rows is None else rows
    cols = factor_columns(fit, rows)
    bound = fit.bindings
    if workers is not None:
        col = bound.get(workers, workers)
        if col not in cols:
            raise _api._perfit.ConfigError(f"{workers!r}: not a factor of model '{fit.model}' ({', '.join(cols)})")
        return col
    for name in (bound.get("p"), "p", bound.get("gpus"), "gpus", "workers"):
        if name and name in cols:
            return name
    varying = [c for c in cols if rows[c].nunique() > 1]
    if not varying:
        raise _api._perfit.ConfigError("no factor of the fit varies: nothing to plot against")
    return varying[0]


def _group_column(fit, rows, workers, by, at=None):
    """`by`'s column, else the batch size's when it varies and `at` does not hold it."""
    held = {fit.bindings.get(k, k) for k in (at or {})}
    if by is not None:
        col = fit.bindings.get(by, by)
        if col not in rows.columns:
            raise _api._perfit.ConfigError(f"by={by!r}: not a factor column of the fit "
                                           f"({', '.join(factor_columns(fit, rows))})")
        return col
    for name in (fit.bindings.get("b"), "b", "batch_per_gpu", "batch"):
        if name and name != workers and name not in held and name in rows.columns and rows[name].nunique() > 1:
            return name
    return None


def _measured_combos(rows, others, workers):
    """Per measured worker count, the other factors' most frequent measured combination."""
    if not others:
        return {w: {} for w in rows[workers].unique()}
    counts = rows.groupby([workers, *others], sort=False).size().reset_index(name="_n")
    best = counts.sort_values("_n", ascending=False, kind="stable").drop_duplicates(workers)
    return {r[workers]: {c: r[c] for c in others} for _, r in best.iterrows()}


def _curve(fit, rows, workers, group, value, extend, points=80, at=None):
    """Predictions along workers from the smallest measured count of the group to `extend`
    times the largest: each point takes the other factors' combination measured most often at
    the nearest measured worker count (in log), or the values `at` asks for ({factor: value})."""
    sub = rows if group is None else rows[rows[group] == value]
    lo, hi = float(sub[workers].min()), float(sub[workers].max())
    top = max(hi, float(rows[workers].max())) * extend
    xs = np.unique(np.concatenate([np.geomspace(lo, top, points), sub[workers].unique().astype(float)]))
    others = [c for c in factor_columns(fit, rows) if c not in (workers, group)]
    combos = _measured_combos(sub, others, workers)
    levels = np.array(sorted(combos), dtype=float)
    nearest = levels[np.abs(np.log(levels)[None, :] - np.log(xs)[:, None]).argmin(axis=1)]
    lookup = {float(k): v for k, v in combos.items()}
    grid = pd.DataFrame([lookup[n] for n in nearest]) if others else pd.DataFrame(index=range(len(xs)))
    grid[workers] = xs
    if group is not None:
        grid[group] = value
    for name, v in (at or {}).items():
        col = fit.bindings.get(name, name)
        if col not in others:
            raise _api._perfit.ConfigError(f"at={{{name!r}: ...}}: not a factor held along the curve "
                                           f"({', '.join(others) or 'none'})")
        grid[col] = v
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the extrapolated part is drawn as such
        return fit.predict(grid)


def _log_axes(ax, workers_axis=True):
    from matplotlib import ticker
    ax.set_xscale("log", base=2 if workers_axis else 10)
    ax.set_yscale("log")
    plain = ticker.FuncFormatter(lambda v, _: f"{v:g}")
    if workers_axis:
        ax.xaxis.set_major_locator(ticker.LogLocator(base=2, numticks=12))
    else:
        ax.xaxis.set_major_locator(ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.xaxis.set_major_formatter(plain)
    ax.xaxis.set_minor_formatter(ticker.NullFormatter())
    ax.yaxis.set_major_locator(ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(plain)
    ax.yaxis.set_minor_formatter(ticker.NullFormatter())
    ax.grid(True, which="major", alpha=0.3)


def _measured_points(ax, rows, workers, target, **style):
    """Means of the repetitions per worker count, bars from the smallest to the largest."""
    stats = rows.groupby(workers)[target].agg(["mean", "min", "max"])
    ax.errorbar(stats.index, stats["mean"], yerr=[stats["mean"] - stats["min"], stats["max"] - stats["mean"]],
                fmt="o", ms=4, capsize=2, **style)


def _workers_axes(ax, fit, rows, workers, extend):
    """The range past the largest measured worker count shaded and labelled, log-log axes."""
    top = float(rows[workers].max())
    ax.axvspan(top, top * extend, color="0.85", alpha=0.5, lw=0, zorder=0)
    ax.text(top * math.sqrt(extend), 0.97, "extrapolated", transform=ax.get_xaxis_transform(),
            ha="center", va="top", fontsize=8, color="0.35")
    _log_axes(ax)
    ax.set_xlabel(workers)
    ax.set_ylabel(f"{fit.target} [{fit.info.get('unit', 's')}]")


def scaling(fit, by=None, extend=4.0, ax=None, rows=None, workers=None, at=None):
    """Time against workers, log-log: measured points (mean of the repetitions, bars from their
    smallest to their largest), one fitted line per measured value of `by` (batch size by
    default when it varies), the bootstrap band when the fit has refits, and the range beyond
    the largest measured worker count (up to `extend` times it) shaded as extrapolated. The
    other factors are held at measured values unless `at` asks for others ({"nodes": 4})."""
    plt = _pyplot()
    rows = rows_of(fit, rows)
    workers = workers_column(fit, rows, workers)
    group = _group_column(fit, rows, workers, by, at)
    fig = None
    if ax is None:
        fig, ax = plt.subplots(figsize=(6.4, 4.4), constrained_layout=True)
    t = fit.target
    values = [None] if group is None else sorted(rows[group].unique())
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, value in enumerate(values):
        color = colors[i % len(colors)]
        sub = rows if value is None else rows[rows[group] == value]
        _measured_points(ax, sub, workers, t, color=color, label=None if value is None else f"{value:g}")
        pred = _curve(fit, rows, workers, group, value, extend, at=at)
        ax.plot(pred[workers], pred[f"predicted_{t}"], "-", color=color, lw=1.4)
        if f"lo_{t}" in pred:
            ax.fill_between(pred[workers], pred[f"lo_{t}"], pred[f"hi_{t}"], color=color, alpha=0.18, lw=0)
    _workers_axes(ax, fit, rows, workers, extend)
    band = " (band: bootstrap interval)" if fit.info.get("bootstrap_requested") else ""
    asked = "".join(f", {k}={v:g}" for k, v in (at or {}).items())
    ax.set_title(f"{fit.model}: {t} against {workers}{band}" + (f" (lines at{asked[1:]}, as asked)" if at else ""),
                 fontsize=10)
    if group is not None:
        ax.legend(fontsize=8, title=group, title_fontsize=8)
    return fig if fig is not None else ax.figure


def measured_vs_predicted(fit, ax=None, rows=None):
    """Every kept row, measured against predicted on log-log axes, with y = x."""
    plt = _pyplot()
    rows = rows_of(fit, rows)
    t = fit.target
    pred = rows["predicted"] if "predicted" in rows else fit.predict(rows)[f"predicted_{t}"]
    fig = None
    if ax is None:
        fig, ax = plt.subplots(figsize=(4.8, 4.4), constrained_layout=True)
    ax.scatter(pred, rows[t], s=8, alpha=0.6)
    lo, hi = float(min(pred.min(), rows[t].min())), float(max(pred.max(), rows[t].max()))
    ax.plot([lo, hi], [lo, hi], "k--", lw=1, label="y = x")
    _log_axes(ax, workers_axis=False)
    unit = fit.info.get("unit", "s")
    ax.set_xlabel(f"predicted {t} [{unit}]")
    ax.set_ylabel(f"measured {t} [{unit}]")
    ax.set_title(f"{fit.model}: MAPE {fit.metrics['mape']:.3g}%", fontsize=10)
    ax.legend(fontsize=8)
    return fig if fig is not None else ax.figure


def residuals(fit, rows=None):
    """Relative residuals (measured / predicted - 1) against each factor that varies."""
    plt = _pyplot()
    from matplotlib import ticker
    rows = rows_of(fit, rows)
    t = fit.target
    pred = rows["predicted"] if "predicted" in rows else fit.predict(rows)[f"predicted_{t}"]
    rel = 100.0 * (rows[t] / pred - 1.0)
    cols = [c for c in factor_columns(fit, rows) if rows[c].nunique() > 1] or factor_columns(fit, rows)[:1]
    fig, axes = plt.subplots(1, len(cols), figsize=(3.2 * len(cols), 3.2), squeeze=False, sharey=True,
                             constrained_layout=True)
    for ax, c in zip(axes[0], cols):
        ax.scatter(rows[c], rel, s=6, alpha=0.5)
        ax.axhline(0, color="k", lw=0.8)
        if (rows[c] > 0).all() and rows[c].max() / max(rows[c].min(), 1e-300) > 20:
            ax.set_xscale("log", base=2)
            ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
            ax.xaxis.set_minor_formatter(ticker.NullFormatter())
        ax.set_xlabel(c)
        ax.grid(True, alpha=0.3)
    axes[0][0].set_ylabel("residual [% of predicted]")
    fig.suptitle(f"{fit.model}: residuals", fontsize=10)
    return fig


def term_shares(fit, by=None, ax=None, rows=None, along=None, at=None):
    """Each term's share of the predicted time along workers (or the factor `along`), stacked,
    the other factors at measured values (at the value of `by` measured most often), or at the
    values `at` asks for."""
    plt = _pyplot()
    rows = rows_of(fit, rows)
    workers = workers_column(fit, rows, along)
    group = _group_column(fit, rows, workers, by, at)
    value = None if group is None else rows[group].mode().iloc[0]
    pred = _curve(fit, rows, workers, group, value, 1.0, at=at)
    terms = [c for c in pred.columns if c.startswith("term_")]
    total = pred[f"predicted_{fit.target}"]
    shares = [100.0 * pred[c] / total for c in terms]
    fig = None
    if ax is None:
        fig, ax = plt.subplots(figsize=(6.4, 4.0), constrained_layout=True)
    ax.stackplot(pred[workers], shares, labels=[c[len("term_"):] for c in terms], alpha=0.85)
    ax.set_xscale("log", base=2)
    from matplotlib import ticker
    ax.xaxis.set_major_locator(ticker.LogLocator(base=2, numticks=12))
    ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_formatter(ticker.NullFormatter())
    ax.set_ylim(0, 100)
    ax.set_xlabel(workers)
    ax.set_ylabel("share of predicted time [%]")
    held = "" if group is None else f" ({group}={value:g})"
    ax.set_title(f"{fit.model}: terms along {workers}{held}", fontsize=10)
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    return fig if fig is not None else ax.figure


def candidates(fit, extend=4.0, ax=None, rows=None):
    """A selection's candidates (fit.candidates) against the measured points: one curve per
    candidate fitted on every row, along workers, the extrapolated range shaded. Candidates
    that read a factor the kept rows lack are left out (named in the title)."""
    plt = _pyplot()
    rows = rows_of(fit, rows)
    workers = workers_column(fit, rows)
    table = fit.candidates
    fig = None
    if ax is None:
        fig, ax = plt.subplots(figsize=(6.4, 4.4), constrained_layout=True)
    t = fit.target
    _measured_points(ax, rows, workers, t, color="k", label="measured", zorder=5)
    left = []
    for _, c in table.iterrows():
        if not c["curve"]:
            left.append(c["model"])
            continue
        try:
            pred = _curve(fit.candidate(c["rank"]), rows, workers, None, None, extend)
        except _api._perfit.PerfitError:
            left.append(c["model"])
            continue
        win = " (chosen)" if c["rank"] == 1 else ""
        ax.plot(pred[workers], pred[f"predicted_{t}"], "-", lw=2.2 if win else 1.2,
                label=f"{c['rank']}. {c['source']}{win}")
    _workers_axes(ax, fit, rows, workers, extend)
    ax.set_title("candidates fitted on every row" + (f" (no curve: {', '.join(left)})" if left else ""), fontsize=10)
    ax.legend(fontsize=8)
    return fig if fig is not None else ax.figure


def save(fig, path):
    """SVG, PDF or PNG (300 dpi) by the suffix of path."""
    import os
    ext = os.path.splitext(str(path))[1].lower()
    if ext not in (".svg", ".pdf", ".png"):
        raise _api._perfit.ConfigError(f"'{path}': expected a .svg, .pdf or .png file name")
    fig.savefig(path, dpi=300 if ext == ".png" else None, bbox_inches="tight")
    return str(path)
