"""Figures of a fit for papers (matplotlib): time against workers on log-log axes with the
measured points, one fitted line per measured value of another factor, the bootstrap band and
the extrapolated range; measured against predicted; residuals against each factor; the terms'
shares along workers. Every function takes a Fit (perfit.fit or perfit.load) and returns a
matplotlib Figure; save(fig, path) writes SVG, PDF or 300-dpi PNG by the path's suffix.

Like is compared with like: a figure draws one series per measured combination of the other
factors (measured_series), its points and its line through the same factors, so that a point
and the line at it differ only by the model's error; between measured worker counts a line
holds the values of the nearest one. Lines run over whole worker counts where every measured
count is whole.
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


def _joint_columns(fit, rows):
    """A joint fit's `by` columns (each group its own constants: its own series), else []."""
    by = (fit.info.get("groups") or {}).get("by") or []
    return [c for c in by if c in rows.columns]


def _series_columns(fit, rows, workers, group=None, at=None):
    """The columns that tell the measured series apart: a joint fit's groups, `group`'s, then
    every other factor that takes more than one value at one worker count of a series. A factor
    that follows the workers (nodes = gpus / 8) stays along its series' line; one that `at` holds
    is left to `at`."""
    held = {fit.bindings.get(k, k) for k in (at or {})}
    key = _joint_columns(fit, rows)
    key += [group] if group is not None and group not in key else []
    others = [c for c in factor_columns(fit, rows) if c not in (workers, group) and c not in held]
    while True:
        split = [c for c in others if c not in key and rows.groupby([workers, *key])[c].nunique().max() > 1]
        if not split:
            return key
        key.append(split[0])


def _key_text(key):
    return ", ".join(f"{c}={v:g}" if isinstance(v, (int, float, np.number)) else f"{c}={v}" for c, v in key.items())


def measured_series(fit, rows=None, workers=None, by=None, at=None):
    """The measured series along workers, as figures draw them: a list of (key, rows) where key
    is {column: value} of the factors that tell the series apart (`by`'s, then any other factor
    measured at more than one value at one worker count) and rows are that series' rows. Within a
    series each worker count has one value of every other factor, so a line drawn through the
    series' own factors passes through like-for-like points. In the order of the key's values."""
    rows = rows_of(fit, rows)
    workers = workers_column(fit, rows, workers)
    key = _series_columns(fit, rows, workers, _group_column(fit, rows, workers, by, at), at)
    if not key:
        return [({}, rows)]
    return [(dict(zip(key, values if isinstance(values, tuple) else (values,))), sub)
            for values, sub in rows.groupby(key if len(key) > 1 else key[0], sort=True)]


def _line_xs(sub, rows, workers, extend, points):
    """From the series' smallest measured worker count to `extend` times the largest measured one,
    the measured counts included; whole numbers only where every measured count is whole (a GPU
    count of 1.3 is no configuration, and models with log2(p) or ceil() bend there)."""
    measured = sub[workers].unique().astype(float)
    lo, top = float(measured.min()), max(float(measured.max()), float(rows[workers].max())) * extend
    xs = np.unique(np.concatenate([np.geomspace(lo, top, points), measured]))
    if np.all(np.equal(np.mod(rows[workers].to_numpy(float), 1.0), 0.0)):
        xs = np.unique(np.round(xs))
    return xs


def _curve(fit, rows, workers, key, extend, points=80, at=None, sub=None):
    """Predictions along workers for the series `key` ({column: value}; `sub` its rows): at each
    measured worker count the series' own values of the other factors, between them the values of
    the nearest measured count (in log), or the values `at` asks for ({factor: value})."""
    if sub is None:
        sub = rows
        for c, v in key.items():
            sub = sub[sub[c] == v]
    xs = _line_xs(sub, rows, workers, extend, points)
    others = [c for c in factor_columns(fit, rows) if c != workers and c not in key]
    per_count = sub.drop_duplicates(workers).set_index(workers)[others] if others else None
    levels = np.array(sorted(sub[workers].unique()), dtype=float)
    nearest = levels[np.abs(np.log(levels)[None, :] - np.log(xs)[:, None]).argmin(axis=1)]
    grid = (per_count.loc[nearest].reset_index(drop=True) if others else pd.DataFrame(index=range(len(xs))))
    grid[workers] = xs
    for c, v in key.items():
        grid[c] = v
    for name, v in (at or {}).items():
        col = fit.bindings.get(name, name)
        if col not in others and col not in key:
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


def _measured_points(ax, rows, workers, target, key=None, **style):
    """Means of the repetitions per worker count, bars from the smallest to the largest. The
    marker line's gid, "points|b=32", names the series (tests read it back)."""
    stats = rows.groupby(workers)[target].agg(["mean", "min", "max"])
    bars = ax.errorbar(stats.index, stats["mean"], yerr=[stats["mean"] - stats["min"], stats["max"] - stats["mean"]],
                       fmt="o", ms=4, capsize=2, **style)
    bars[0].set_gid("points|" + _gid_key(key or {}))


def _gid_key(key):
    return ",".join(f"{c}={float(v)!r}" if isinstance(v, (int, float, np.number)) else f"{c}={v}"
                    for c, v in key.items())


def _measured_at(fit, rows, at, who):
    """The rows measured at the values `at` asks for; one warning line when there are none."""
    held = {fit.bindings.get(k, k): v for k, v in (at or {}).items()}
    mask = np.ones(len(rows), dtype=bool)
    for c, v in held.items():
        if c in rows.columns:
            mask &= rows[c].to_numpy() == v
    if held and not mask.any():
        import warnings
        measured = "; ".join(f"{c}: " + ", ".join(f"{x:g}" for x in sorted(rows[c].unique())[:12])
                             for c in held if c in rows.columns)
        warnings.warn(f"perfit.figures.{who}: no run was measured at " +
                      ", ".join(f"{c}={v:g}" for c, v in held.items()) +
                      f" (measured {measured}): lines only, no points", stacklevel=3)
    return rows[mask]


def _plot_line(ax, pred, workers, target, key, tag="", **style):
    """The model's line of one series; its gid "line|b=32|tag" names the series it belongs to."""
    line, = ax.plot(pred[workers], pred[f"predicted_{target}"], "-", **style)
    line.set_gid("line|" + _gid_key(key) + (f"|{tag}" if tag else ""))
    return line


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
    """Time against workers, log-log: one series per measured combination of the other factors
    (measured_series: `by`'s values, batch size by default when it varies, and any factor
    measured at several values at one worker count), each with its points (mean of the
    repetitions, bars from their smallest to their largest) and the fitted line through the same
    factors, the bootstrap band when the fit has refits, and the range beyond the largest
    measured worker count (up to `extend` times it) shaded as extrapolated. `at` holds factors
    at asked values instead ({"nodes": 4}): only runs measured at those values are drawn as
    points, and one warning line says when there are none."""
    plt = _pyplot()
    rows = rows_of(fit, rows)
    workers = workers_column(fit, rows, workers)
    series = measured_series(fit, rows, workers, by, at)
    fig = None
    if ax is None:
        fig, ax = plt.subplots(figsize=(6.4, 4.4), constrained_layout=True)
    t = fit.target
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    points = _measured_at(fit, rows, at, "scaling")
    for i, (key, sub) in enumerate(series):
        color = colors[i % len(colors)]
        shown = points.loc[points.index.intersection(sub.index)]
        if len(shown):
            _measured_points(ax, shown, workers, t, key, color=color, label=_key_text(key) or None)
        pred = _curve(fit, rows, workers, key, extend, at=at, sub=sub)
        _plot_line(ax, pred, workers, t, key, color=color, lw=1.4)
        if f"lo_{t}" in pred:
            ax.fill_between(pred[workers], pred[f"lo_{t}"], pred[f"hi_{t}"], color=color, alpha=0.18, lw=0)
    _workers_axes(ax, fit, rows, workers, extend)
    band = " (band: bootstrap interval)" if fit.info.get("bootstrap_requested") else ""
    asked = ", ".join(f"{k}={v:g}" for k, v in (at or {}).items())
    ax.set_title(f"{fit.model}: {t} against {workers}{band}" +
                 (f"\n(lines at {asked} as asked; points: the runs measured there)" if at else ""), fontsize=10)
    if len(series) > 1:
        ax.legend(fontsize=8, ncol=2 if len(series) > 8 else 1)
    return fig if fig is not None else ax.figure


def groups(fit, extend=4.0, cols=4, most=24, workers=None):
    """A joint fit's small multiples: one scaling panel per group (the `most` groups with the most
    rows), each with that group's series through its own constants, sharing the axes so that
    groups compare at a glance. Raises ConfigError for a fit that has no groups."""
    plt = _pyplot()
    rows = rows_of(fit)
    by = _joint_columns(fit, rows)
    if not by:
        raise _api._perfit.ConfigError(f"model '{fit.model}' was not fitted with groups (by=): use scaling()")
    parts = sorted(rows.groupby(by if len(by) > 1 else by[0], sort=True), key=lambda g: -len(g[1]))[:most]
    parts.sort(key=lambda g: str(g[0]))
    n = len(parts)
    ncols = min(cols, n)
    nrows = -(-n // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(0.4 + 3.6 * ncols, 0.6 + 3.0 * nrows), sharex=True, sharey=True,
                             constrained_layout=True, squeeze=False)
    for ax, (label, sub) in zip(axes.flat, parts):
        scaling(fit, extend=extend, ax=ax, rows=sub, workers=workers)
        ax.set_title(" / ".join(map(str, label)) if isinstance(label, tuple) else str(label), fontsize=9)
        if ax is not axes.flat[0] and ax.get_legend():
            ax.get_legend().remove()
    for ax in list(axes.flat)[n:]:
        ax.set_visible(False)
    total = rows.groupby(by).ngroups
    fig.suptitle(f"{fit.model}: one panel per group of {', '.join(by)}" +
                 (f" (the {n} of {total} with the most rows)" if n < total else ""), fontsize=10)
    return fig


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
            ax.xaxis.set_major_locator(ticker.LogLocator(base=2, numticks=40))  # every power of two
            ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
            ax.xaxis.set_minor_formatter(ticker.NullFormatter())
        ax.set_xlabel(c)
        ax.grid(True, alpha=0.3)
    axes[0][0].set_ylabel("residual [% of predicted]")
    fig.suptitle(f"{fit.model}: residuals", fontsize=10)
    return fig


def term_shares(fit, by=None, ax=None, rows=None, along=None, at=None):
    """Each term's share of the predicted time along workers (or the factor `along`), stacked,
    the other factors at the measured values of the series with the most rows (measured_series,
    the title names it), or at the values `at` asks for."""
    plt = _pyplot()
    rows = rows_of(fit, rows)
    workers = workers_column(fit, rows, along)
    key, sub = max(measured_series(fit, rows, workers, by, at), key=lambda s: len(s[1]))
    pred = _curve(fit, rows, workers, key, 1.0, at=at, sub=sub)
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
    held = f" ({_key_text(key)})" if key else ""
    ax.set_title(f"{fit.model}: terms along {workers}{held}", fontsize=10)
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    return fig if fig is not None else ax.figure


def _hidden_under(y, drawn):
    """The label of an earlier line within 0.5% of `y` everywhere, else None."""
    for label, other in drawn:
        if len(other) == len(y) and np.all(np.abs(np.asarray(y) / np.asarray(other) - 1.0) < 0.005):
            return label
    return None


def candidates(fit, extend=4.0, ax=None, rows=None, most=4):
    """A selection's candidates (fit.candidates), each fitted on every row, against the measured
    points, along workers, the extrapolated range shaded: one panel per measured series
    (measured_series), the `most` with the most rows (one on a given `ax`), every line through
    its panel's own factors. A candidate whose line lies under another's says so in the legend;
    candidates that read a factor the kept rows lack are left out (named in the title)."""
    plt = _pyplot()
    rows = rows_of(fit, rows)
    workers = workers_column(fit, rows)
    series = sorted(measured_series(fit, rows, workers), key=lambda s: -len(s[1]))
    shown = series[:1] if ax is not None else series[:most]
    if ax is None:
        fig, axes = plt.subplots(1, len(shown), figsize=(1.6 + 4.4 * len(shown), 4.4), sharey=True,
                                 squeeze=False, constrained_layout=True)
        axes = list(axes[0])
    else:
        fig, axes = None, [ax]
    t = fit.target
    left, fits = [], []
    for _, c in fit.candidates.iterrows():
        if c["curve"]:
            fits.append((c, fit.candidate(c["rank"])))
        else:
            left.append(c["model"])
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for panel, (key, sub) in zip(axes, shown):
        _measured_points(panel, sub, workers, t, key, color="k", label="measured", zorder=5)
        drawn = []
        for i, (c, cand) in enumerate(fits):
            try:
                pred = _curve(cand, rows, workers, key, extend, sub=sub)
            except _api._perfit.PerfitError:
                if c["model"] not in left:
                    left.append(c["model"])
                continue
            label = f"{c['rank']}. {c['source']}" + (" (chosen)" if c["rank"] == 1 else "")
            under = _hidden_under(pred[f"predicted_{t}"].to_numpy(float), drawn)
            _plot_line(panel, pred, workers, t, key, tag=str(c["rank"]), color=colors[i % len(colors)],
                       lw=2.2 if c["rank"] == 1 else 1.2, label=label + (f" (under {under.split('.')[0]}.)" if under else ""))
            drawn.append((label, pred[f"predicted_{t}"].to_numpy(float)))
        _workers_axes(panel, fit, rows, workers, extend)
        panel.set_title(_key_text(key) or "every row", fontsize=9)
    axes[-1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    title = "candidates fitted on every row"
    if len(shown) < len(series):
        title += f", {len(shown)} of the {len(series)} measured series (those with the most rows)"
    title += f" (no curve: {', '.join(left)})" if left else ""
    (fig.suptitle if fig is not None else axes[0].set_title)(title, fontsize=10)
    return fig if fig is not None else axes[0].figure


def save(fig, path):
    """SVG, PDF or PNG (300 dpi) by the suffix of path."""
    import os
    ext = os.path.splitext(str(path))[1].lower()
    if ext not in (".svg", ".pdf", ".png"):
        raise _api._perfit.ConfigError(f"'{path}': expected a .svg, .pdf or .png file name")
    fig.savefig(path, dpi=300 if ext == ".png" else None, bbox_inches="tight")
    return str(path)
