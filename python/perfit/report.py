"""One self-contained HTML report of a fit, a selection store or a batch directory: figures
inline as SVG, no network, readable without JavaScript.

    python3 -m perfit.report RESULT.h5 | SELECTION.h5 | BATCH_DIR --out report.html [--force]

(`perfit report` runs this.) A fit: the data, the model, the constants with their intervals and
diagnostics, the metrics, what is extrapolation, and the figures of perfit.figures. A selection
store or a batch: one row per set (status, chosen model, constants, metrics) with a small
figure each. Errors: one line on stderr naming the file, exit code by error class as the CLI.
"""
import argparse
import json
import base64
import html
import io
import math
import os
import sys
import tempfile
import time

import pandas as pd

from . import _api, figures
from ._perfit import ConfigError, DataError, IoError, PerfitError

_STYLE = """
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2em auto;max-width:96em;color:#222;padding:0 1em}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;font-size:.9em}td,th{padding:.25em .6em;border-bottom:1px solid #eee;text-align:right}
th{background:#f4f4f4}td.l,th.l{text-align:left}.warn{color:#8a4b00}.err{color:#a00}
figure{display:inline-block;margin:.5em 1em .5em 0;vertical-align:top}figure svg{max-width:100%;height:auto}
td.fig svg{width:150px;height:auto}td.fig{padding:0}pre{background:#f7f7f7;padding:.6em;overflow-x:auto}
.wide{overflow-x:auto;max-width:100%}
"""


def _svg(fig):
    """The figure as an inline <svg> element (text kept as text: smaller, and searchable)."""
    import matplotlib
    import matplotlib.pyplot as plt
    buf = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none"}):
        fig.savefig(buf, format="svg", bbox_inches="tight")
    plt.close(fig)
    text = buf.getvalue()
    return text[text.index("<svg"):]


def _num(v, digits=6):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    if isinstance(v, (int, float)):
        return f"{v:.{digits}g}"
    return html.escape(str(v))


def _seconds(s):
    """"0.18 s", "3.1 ms", "45 us": a fit's time, never "0.00 s"."""
    if s >= 0.1:
        return f"{s:.3g} s"
    if s >= 1e-4:
        return f"{1e3 * s:.3g} ms"
    return f"{1e6 * s:.3g} us"


def _constants(cell):
    """A batch summary's params cell, "t1=1451.527...;s=0.0747..." -> one constant per line."""
    out = []
    for item in str(cell).split(";"):
        name, _, value = item.partition("=")
        try:
            out.append(f"{html.escape(name)}={float(value):.6g}")
        except ValueError:
            out.append(html.escape(item))
    return "<br>".join(out)


def _table(df, left=()):
    head = "".join(f'<th class="{"l" if c in left else ""}">{html.escape(str(c))}</th>' for c in df.columns)
    body = []
    for _, row in df.iterrows():
        cells = "".join(f'<td class="{"l" if c in left else ""}">{_num(row[c])}</td>' for c in df.columns)
        body.append(f"<tr>{cells}</tr>")
    return f'<div class="wide"><table><tr>{head}</tr>{"".join(body)}</table></div>'


def _page(title, body):
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
            f"<style>{_STYLE}</style></head><body><h1>{html.escape(title)}</h1>{body}"
            f"<p><small>made by perfit {html.escape(_version())} on "
            f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}</small></p></body></html>\n")


def _version():
    try:
        return _api._perfit.version()
    except AttributeError:
        return ""


def _expression(fit):
    for line in fit.info.get("model_yaml", "").splitlines():
        if line.strip().startswith("expression:"):
            return line.split(":", 1)[1].strip().strip("'\"")
    return fit.model


def fit_html(fit, name):
    """The report of one fit."""
    info, m = fit.info, fit.metrics
    p = fit.params.reset_index()
    cols = ["name", "value", "lo", "hi"] + (["ci_lo", "ci_hi"] if info.get("bootstrap_requested") else [])
    consts = p[cols].copy()
    notes = []
    for _, row in p.iterrows():
        if not row["determined"]:
            notes.append("not determined by this data")
        elif row["at_bound"]:
            notes.append("at a bound")
        else:
            notes.append("")
    consts["note"] = notes
    ranges = ", ".join(f"{html.escape(k)} {lo:g}..{hi:g}" for k, (lo, hi) in fit.ranges.items())
    kept = len(fit.rows)
    parts = [
        "<h2>Data</h2>",
        f"<p>{info['rows']} rows of set <code>{html.escape(info['set'])}</code> of "
        f"<code>{html.escape(info['data_file'])}</code> (checksum <code>{html.escape(info['data_checksum'])}</code>), "
        f"target <code>{html.escape(fit.target)}</code> in {html.escape(info['unit'])}; "
        f"{kept} rows kept in the result" + (f" (every {info['rows_kept_stride']}th)" if info.get("rows_kept_stride", 1) > 1 else "") + ".</p>",
        f"<p>Measured range: {ranges or 'unknown (an older result)'}.</p>",
        "<h2>Model</h2>",
        f"<p><code>{html.escape(fit.model)}</code>: <code>{html.escape(_expression(fit))}</code></p>",
        "<h2>Constants</h2>", _table(consts, left=("name", "note")),
        (f"<p>Intervals: {100 * info['ci']:g}% percentile intervals of {info['bootstrap_requested']} bootstrap refits "
         "(the constants' uncertainty).</p>" if info.get("bootstrap_requested") else
         "<p>No intervals: fit with <code>bootstrap=</code> (<code>--bootstrap</code>) for them.</p>"),
        "<h2>Fit</h2>",
        f"<p>MAPE {m['mape']:.3g}%, RMSE {m['rmse']:.4g} {html.escape(info['unit'])}, R<sup>2</sup> {m['r2']:.6f}, "
        f"largest relative error {m['max_rel_err']:.3g}%. Stopped: {html.escape(fit.stop_reason)} after "
        f"{info['generations']} generations ({_seconds(info['seconds'])}).</p>",
    ]
    cands = fit.candidates
    if len(cands):
        parts.append("<h2>Selection</h2><p>Candidates ranked by the selection (lower score is better); "
                     "each fitted on every row for the figure below.</p>")
        parts.append(_table(cands.drop(columns=["curve"]), left=("model", "source")))
        try:
            parts.append(f"<figure>{_svg(figures.candidates(fit))}</figure>")
        except PerfitError as e:
            parts.append(f'<p class="err">no figure of the candidates: {html.escape(str(e))}</p>')
    warns = list(fit.warnings)
    if fit.ranges:
        warns.append("predictions outside the measured range (" + ", ".join(
            f"{k} {lo:g}..{hi:g}" for k, (lo, hi) in fit.ranges.items()) +
            ") are extrapolations: perfit predict flags them; the shaded part of the first figure is one")
    parts.append("<h2>Warnings</h2>" + ("".join(f'<p class="warn">{html.escape(w)}</p>' for w in warns) or "<p>none</p>"))
    parts.append("<h2>Figures</h2>")
    try:
        joint = (fit.info.get("groups") or {}).get("by")
        for fn in (figures.scaling, *([figures.groups] if joint else []), figures.measured_vs_predicted,
                   figures.residuals, figures.term_shares):
            parts.append(f"<figure>{_svg(fn(fit))}</figure>")
    except PerfitError as e:
        parts.append(f'<p class="err">no figures: {html.escape(str(e))}</p>')
    return _page(f"perfit: {fit.model} on {info['set']} ({name})", "".join(parts))


class _Thumbnails:
    """One small figure redrawn per set (time against workers, log-log, the extrapolated part
    shaded): for each measured series (figures.measured_series: batch size and any factor
    measured at several values at one worker count) its means and the fitted line through the
    same factors, one colour a series. A thousand sets in seconds, a few KB each."""

    def __init__(self):
        import matplotlib.pyplot as plt
        self.fig, self.ax = plt.subplots(figsize=(1.9, 1.2))
        from matplotlib import ticker
        self.ax.set_xscale("log")
        self.ax.set_yscale("log")
        for axis in (self.ax.xaxis, self.ax.yaxis):  # tick labels cost 9/10 of the time; the table has the numbers
            axis.set_major_locator(ticker.NullLocator())
            axis.set_minor_locator(ticker.NullLocator())
        self.fig.subplots_adjust(left=0.02, right=0.98, bottom=0.03, top=0.97)
        self.pairs = []  # (points, line) artists, reused from set to set
        self.shade = None

    def _pair(self, i):
        while len(self.pairs) <= i:
            color = f"C{len(self.pairs) % 10}"
            points, = self.ax.plot([], [], "o", ms=2.5, color=color)
            line, = self.ax.plot([], [], "-", lw=1, color=color)
            self.pairs.append((points, line))
        return self.pairs[i]

    def draw(self, fit):
        """Draws the set's series on the reused axes (gids as perfit.figures names them)."""
        rows = figures.rows_of(fit)
        workers = figures.workers_column(fit, rows)
        series = figures.measured_series(fit, rows, workers)
        t = fit.target
        for i, (key, sub) in enumerate(series):
            points, line = self._pair(i)
            means = sub.groupby(workers)[t].mean()
            pred = figures._curve(fit, rows, workers, key, 2.0, points=24, sub=sub)
            points.set_data(means.index.to_numpy(float), means.to_numpy(float))
            line.set_data(pred[workers].to_numpy(float), pred[f"predicted_{t}"].to_numpy(float))
            points.set_gid("points|" + figures._gid_key(key))
            line.set_gid("line|" + figures._gid_key(key))
            points.set_visible(True)
            line.set_visible(True)
        for points, line in self.pairs[len(series):]:
            points.set_visible(False)
            line.set_visible(False)
            points.set_data([], [])
            line.set_data([], [])
        if self.shade is not None:
            self.shade.remove()
        top = float(rows[workers].max())
        self.shade = self.ax.axvspan(top, 2 * top, color="0.85", lw=0, zorder=0)
        self.ax.relim(visible_only=True)
        self.ax.autoscale_view()
        return self.ax

    def svg(self, fit):
        import matplotlib
        self.draw(fit)
        buf = io.StringIO()
        with matplotlib.rc_context({"svg.fonttype": "none"}):
            self.fig.savefig(buf, format="svg")
        text = buf.getvalue()
        return text[text.index("<svg"):]


def _counts(summary, failed):
    """"12 fits and 3 selections of 3 sets; 1 not ok." (a selection store: "3 sets; all ok.")"""
    def n(k, word):
        return f"{k} {word}{'' if k == 1 else 's'}"
    sets = summary["set"].nunique() if "set" in summary.columns else len(summary)
    kinds = summary["kind"].value_counts() if "kind" in summary.columns else {}
    what = " and ".join(n(int(kinds[k]), k) for k in ("fit", "selection") if k in kinds)
    head = f"{what} of {n(sets, 'set')}" if what else n(sets, "set")
    return head + ("; all ok." if not failed else f"; {failed} not ok.")


def table_html(summary, fits, title, name):
    """A batch or selection: one row per set (set, status, a thumbnail when the set has a fit,
    then the summary's columns: model, hypothesis, scores, metrics, constants), its message last."""
    rows = []
    first = [c for c in ("set", "kind", "status") if c in summary.columns]
    rest = [c for c in summary.columns if c not in (*first, "result", "message")]
    head = ("".join(f'<th class="l">{html.escape(c)}</th>' for c in first) + "<th>time against workers</th>" +
            "".join(f'<th class="l">{html.escape(c)}</th>' for c in rest) + '<th class="l">message</th>')
    failed = 0
    thumbs = _Thumbnails()
    for _, row in summary.iterrows():
        status = str(row.get("status", "ok"))
        failed += status != "ok"
        thumb = ""
        fit = fits(row)
        if fit is not None:
            try:
                thumb = thumbs.svg(fit)
            except PerfitError as e:
                thumb = f'<span class="err">{html.escape(str(e))}</span>'
        msg = row.get("message", "")
        cls = "" if status == "ok" else " err"
        rows.append("<tr>" + "".join(f'<td class="l{cls if c == "status" else ""}">{_num(row[c])}</td>' for c in first) +
                    f'<td class="fig">{thumb}</td>' +
                    "".join(f'<td class="l">{_constants(row[c]) if c == "params" else _num(row[c])}</td>' for c in rest) +
                    f'<td class="l{cls}">{html.escape(msg) if isinstance(msg, str) else ""}</td></tr>')
    body = (f"<p>{_counts(summary, failed)} Source: <code>{html.escape(name)}</code>. Each thumbnail: "
            "measured means (points) and the fitted model (line) against workers, log-log, one colour per "
            "measured combination of the other factors (line and points at the same factors), the "
            "extrapolated part shaded.</p>"
            f'<div class="wide"><table><tr>{head}</tr>{"".join(rows)}</table></div>')
    return _page(title, body)


def _kind(path):
    if os.path.isdir(path):
        return "dir"
    try:
        import h5py
        with h5py.File(path, "r") as h:
            if "perfit_selection" in h.attrs:
                return "selection"
            if "perfit_result" in h.attrs:
                return "result"
    except OSError:
        if not os.path.exists(path):
            raise IoError(f"'{path}' does not exist; pass a result file, a selection store or a batch directory")
        _api.load(path)  # not HDF5 to h5py: the reader's own words (truncated, not HDF5, ...)
    raise DataError(f"'{path}' is neither a perfit result, a selection store nor a batch directory")


def _selection_summary(store):
    csv = os.path.join(os.path.dirname(store), "selection.csv")
    if os.path.exists(csv):
        return pd.read_csv(csv, keep_default_na=False)
    import h5py
    with h5py.File(store, "r") as h:
        sets = [s.decode() if isinstance(s, bytes) else str(s) for s in h["winners/set"][:]]
    return pd.DataFrame({"set": sets, "status": "ok"})


def build(path):
    """The report's HTML for a result file, a selection store or a batch directory."""
    kind = _kind(path)
    name = os.path.basename(os.path.normpath(path))
    if kind == "result":
        return fit_html(_api.load(path), name)
    if kind == "selection":
        summary = _selection_summary(path)
        return table_html(summary, lambda r: _api.load(path, r["set"]) if r.get("status", "ok") == "ok" else None,
                          f"perfit: selection {name}", path)
    return _batch_html(path, name)


def _batch_html(path, name):
    """Every fit (summary.csv) and every selection (selection.csv) of a batch directory, one row
    each, grouped by set: a batch of fits and `select:` entries shows both."""
    parts = []
    summary_csv = os.path.join(path, "summary.csv")
    if os.path.exists(summary_csv):
        fits = pd.read_csv(summary_csv, keep_default_na=False)
        parts.append(fits.assign(kind="fit"))
    selection = os.path.join(path, "selection.h5")
    selection_csv = os.path.join(path, "selection.csv")
    if os.path.exists(selection_csv) and os.path.exists(selection):
        parts.append(pd.read_csv(selection_csv, keep_default_na=False).assign(kind="selection"))
    if not parts:
        raise DataError(f"'{path}' holds no summary.csv nor selection.csv: not a perfit batch directory")
    rows = pd.concat(parts, ignore_index=True, sort=False)
    rows = rows[["set", "kind", *[c for c in rows.columns if c not in ("set", "kind")]]]
    rows = rows.sort_values("set", kind="stable").reset_index(drop=True).fillna("")

    def result_of(r):
        if r.get("status") != "ok":
            return None
        if r["kind"] == "selection":
            return _api.load(selection, r["set"])
        f = str(r.get("result", ""))
        if not f:
            return None
        return _api.load(f if os.path.isabs(f) or os.path.exists(f) else os.path.join(path, os.path.basename(f)))

    what = "batch" if os.path.exists(summary_csv) else "selection in"
    return table_html(rows, result_of, f"perfit: {what} {name}", path)


def check_out(out, force=False, inputs=()):
    """Before any work: never over an input, a file that is not HTML, or a report without force."""
    out = os.path.abspath(out)
    for i in inputs:
        if os.path.exists(i) and os.path.exists(out) and os.path.samefile(i, out):
            raise ConfigError(f"--out '{out}' is an input of the report; pass another file")
    if os.path.exists(out) and not force:
        raise ConfigError(f"--out '{out}' exists; pass --force to replace it")
    if os.path.exists(out):
        with open(out, "rb") as f:
            head = f.read(256).lstrip().lower()
        if not (head.startswith(b"<!doctype html") or head.startswith(b"<html") or not head):
            raise ConfigError(f"--out '{out}' exists and is not an HTML file; it is not replaced")
    d = os.path.dirname(out)
    if not os.path.isdir(d):
        raise IoError(f"--out '{out}': directory '{d}' does not exist")


def write(html_text, out):
    """Writes out under a temporary name in its directory, then renames it."""
    out = os.path.abspath(out)
    fd, tmp = tempfile.mkstemp(prefix=".report.", suffix=".html", dir=os.path.dirname(out))
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(html_text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp's 0600 is for the temporary name only
        os.replace(tmp, out)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def make(path, out, force=False):
    """Writes the report of `path` (a result file, a selection store or a batch directory) to
    `out`; returns out. Raises the package's errors with the CLI's messages."""
    check_out(out, force, [path])
    write(build(path), out)
    return out


_EXIT = {"ConfigError": 2, "DataError": 3, "H5Error": 4, "MpiError": 5, "IoError": 6}


def main(argv=None):
    ap = argparse.ArgumentParser(prog="perfit report", description=__doc__.split("\n\n")[0])
    ap.add_argument("input", help="a result file, a selection store or a batch directory")
    ap.add_argument("--out", required=True, help="the HTML file to write")
    ap.add_argument("--force", action="store_true", help="replace an existing report at --out")
    ap.add_argument("--json", action="store_true", help="print one JSON object on stdout instead of the line")
    a = ap.parse_args(argv)
    try:
        import matplotlib
        matplotlib.use("Agg")
        started = time.monotonic()
        make(a.input, a.out, a.force)
    except PerfitError as e:
        print(f"perfit report: error: {e}", file=sys.stderr)
        return _EXIT.get(type(e).__name__, 1)
    size, seconds = os.path.getsize(a.out), time.monotonic() - started
    if a.json:
        print(json.dumps({"input": a.input, "out": a.out, "bytes": size, "seconds": round(seconds, 3)}))
    else:
        print(f"wrote {a.out} ({size / 1e6:.2f} MB, {seconds:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
