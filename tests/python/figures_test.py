#!/usr/bin/env python3
"""Figures compare like with like: on a study where batch size varies and nodes take two values
at some GPU counts, every point a figure draws (scaling, candidates, the report's thumbnails)
lies beside a line drawn through that point's own factors: the model at the point's runs is
within the fit's largest residual of the line there. Lines run over whole GPU counts from the
series' smallest measured one. The check is shown to catch the old fault (means over batch
sizes against one batch size's line).

Run by pytest with the harness of tests/conftest.py (--perfit, --work).
"""
import os
import warnings

import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")

import perfit  # noqa: E402
import perfit.figures as figures  # noqa: E402
import perfit.report as report  # noqa: E402
import ranks  # noqa: E402

# Per-epoch time: compute split over the GPUs, a per-step cost, and a per-step exchange that grows
# with the nodes a run spans.
MODEL = """name: nodes_epoch
factors: [p, b, n]
expression: "compute + steps + exchange"
terms:
  compute: "c1*1e5/p"
  steps: "c2*1e5/(b*p)"
  exchange: "c3*log2(2*n)*1e5/(b*p)"
params:
  c1: [1e-5, 1, log]
  c2: [1e-5, 1, log]
  c3: [1e-6, 1, log]
"""
FACTORS = {"p": "gpus", "b": "batch", "n": "nodes"}


@pytest.fixture(scope="module")
def work():
    return ranks.arguments()[1]


@pytest.fixture(scope="module")
def model_file(work):
    path = os.path.join(work, "nodes_epoch.yaml")
    with open(path, "w") as f:
        f.write(MODEL)
    return path


@pytest.fixture(scope="module")
def study():
    """gpus 1..32 at batch 32 and 128, three repetitions; 8 GPUs measured on 1 and 2 nodes, 16 on
    2 and 4, so nodes is not a function of gpus and batch."""
    rng = np.random.default_rng(40)
    nodes_at = {1: [1], 2: [1], 4: [1], 8: [1, 2], 16: [2, 4], 32: [4]}
    rows = [(g, b, n) for g, ns in nodes_at.items() for b in (32, 128) for n in ns for _ in range(3)]
    g, b, n = (np.array(c, dtype=float) for c in zip(*rows))
    t = (2e-3 * 1e5 / g + 0.05 * 1e5 / (b * g) + 0.02 * np.log2(2 * n) * 1e5 / (b * g)) * np.exp(
        rng.normal(0.0, 0.02, len(g)))
    return pd.DataFrame({"gpus": g, "batch": b, "nodes": n, "epoch_s": t})


@pytest.fixture(scope="module")
def fitted(study, model_file):
    return perfit.fit(study, model=model_file, target="epoch_s", factors=FACTORS, seed=3)


@pytest.fixture(scope="module")
def selected(study, model_file):
    return perfit.select(study, models=[model_file, "amdahl", "power"], target="epoch_s", factors=FACTORS, seed=3)


def parse_key(text):
    def value(v):
        try:
            return float(v)
        except ValueError:  # a joint fit's group label
            return v
    return {c: value(v) for c, v in (item.split("=", 1) for item in text.split(",") if item)}


def drawn(ax):
    """{series key text: points artist} and {series key text: [(tag, line artist)]} by gid."""
    points, lines = {}, {}
    for artist in ax.lines:
        gid = artist.get_gid() or ""
        if gid.startswith("points|") and artist.get_visible():
            points[gid.split("|")[1]] = artist
        elif gid.startswith("line|") and artist.get_visible():
            parts = gid.split("|")
            lines.setdefault(parts[1], []).append((parts[2] if len(parts) > 2 else "", artist))
    return points, lines


def unlike_points(ax, rows, fit_of, workers="gpus"):
    """Every drawn point whose own runs the model puts farther from the line at it than the fit's
    largest residual: [(series, x, the model at its runs, the line there)]."""
    points, lines = drawn(ax)
    assert points, "no point series with a gid was drawn"
    tol = float(rows["residual"].abs().max())
    bad = []
    for key_text, artist in points.items():
        key = parse_key(key_text)
        sub = rows
        for c, v in key.items():
            sub = sub[sub[c] == v]
        assert key_text in lines, f"points of {key_text!r} have no line"
        for tag, line in lines[key_text]:
            lx, ly = np.asarray(line.get_xdata(), float), np.asarray(line.get_ydata(), float)
            for x in np.asarray(artist.get_xdata(), float):
                runs = sub[sub[workers] == x]
                assert len(runs), f"a point at {workers}={x:g} of {key_text!r} has no measured run"
                at = np.flatnonzero(lx == x)
                assert len(at), f"the line of {key_text!r} does not pass {workers}={x:g}"
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    model = fit_of(tag).predict(runs)[f"predicted_{fit_of(tag).target}"].to_numpy(float)
                far = np.abs(model - ly[at[0]]) > tol * (1 + 1e-9)
                if far.any():
                    bad.append((key_text + (f" candidate {tag}" if tag else ""), x, model[far][0], ly[at[0]]))
    return bad


def test_the_check_sees_means_over_batch_sizes_against_one_batch_size(fitted):
    import matplotlib.pyplot as plt
    rows = fitted.rows
    fig, ax = plt.subplots()
    means = rows.groupby("gpus")["epoch_s"].mean()  # the old thumbnails: every batch size averaged
    pts, = ax.plot(means.index, means.to_numpy(), "o", gid="points|batch=32.0")
    line_at = rows[rows["batch"] == 32].drop_duplicates("gpus")
    line, = ax.plot(line_at["gpus"], fitted.predict(line_at)["predicted_epoch_s"], "-", gid="line|batch=32.0")
    assert unlike_points(ax, rows, lambda tag: fitted), "the check did not see an average drawn against one line"
    plt.close(fig)


def test_series_split_where_nodes_take_two_values_at_one_gpu_count(fitted):
    series = figures.measured_series(fitted)
    keys = [tuple(sorted(k)) for k, _ in series]
    assert set(keys) == {("batch", "nodes")}, keys
    assert len(series) == 6, [k for k, _ in series]  # 2 batch sizes x nodes 1, 2, 4


def test_scaling_draws_like_with_like_over_whole_gpu_counts(fitted):
    fig = figures.scaling(fitted)
    ax = fig.axes[0]
    assert unlike_points(ax, fitted.rows, lambda tag: fitted) == []
    for key_text, lines in drawn(ax)[1].items():
        key = parse_key(key_text)
        sub = fitted.rows[(fitted.rows["batch"] == key["batch"]) & (fitted.rows["nodes"] == key["nodes"])]
        for _, line in lines:
            x = np.asarray(line.get_xdata(), float)
            assert np.all(x == np.round(x)), f"{key_text}: a line through fractional GPU counts"
            assert x.min() == sub["gpus"].min(), f"{key_text}: the line starts at {x.min():g}"


def test_candidates_draw_each_panel_through_its_own_factors(selected):
    fit = selected.fit
    fig = figures.candidates(fit)
    panels = [ax for ax in fig.axes if drawn(ax)[0]]
    assert len(panels) == 4, f"{len(panels)} panels, expected the 4 series with the most rows"
    for ax in panels:
        assert unlike_points(ax, fit.rows, lambda tag: fit.candidate(int(tag))) == []
        ranks_drawn = {tag for _, lines in drawn(ax)[1].items() for tag, _ in lines}
        assert "1" in ranks_drawn, "the chosen model has no line"


def test_report_thumbnails_draw_like_with_like(fitted, selected):
    thumbs = report._Thumbnails()
    for fit in (selected.fit, fitted, selected.fit):  # artists reused from set to set
        assert unlike_points(thumbs.draw(fit), fit.rows, lambda tag: fit) == []


def test_a_combination_never_measured_says_so_and_draws_no_points(fitted):
    with pytest.warns(UserWarning, match=r"no run was measured at nodes=3 \(measured nodes: 1, 2, 4\)"):
        fig = figures.scaling(fitted, at={"n": 3})
    assert not drawn(fig.axes[0])[0], "points drawn for a combination that was never measured"


def test_a_joint_fit_draws_each_group_through_its_own_constants(study, model_file):
    """Two frameworks of one study (one 30% slower per step): every series is one group's, its line
    the group's own constants, its points the group's runs; the rows name the group as given."""
    two = pd.concat([study.assign(framework="tf"),
                     study.assign(framework="pt", epoch_s=study.epoch_s * 1.3)], ignore_index=True)
    joint = perfit.fit(two, model=model_file, target="epoch_s", factors=FACTORS, by="framework", seed=3,
                       pool_strength=0)
    assert sorted(joint.rows["framework"].unique()) == ["pt", "tf"]
    assert not any(c.startswith("_group") for c in joint.rows.columns)
    ax = figures.scaling(joint).axes[0]
    assert unlike_points(ax, joint.rows, lambda tag: joint) == []
    groups = {parse_key(k)["framework"] for k in drawn(ax)[0]}
    assert groups == {"tf", "pt"}, groups
    assert unlike_points(report._Thumbnails().draw(joint), joint.rows, lambda tag: joint) == []
    panels = [ax for ax in figures.groups(joint).axes if ax.get_visible()]
    assert [ax.get_title() for ax in panels] == ["pt", "tf"]
    for ax in panels:
        assert unlike_points(ax, joint.rows, lambda tag: joint) == []
        assert {parse_key(k)["framework"] for k in drawn(ax)[0]} == {ax.get_title()}
    with pytest.raises(perfit.ConfigError, match="not fitted with groups"):
        figures.groups(perfit.fit(study, model=model_file, target="epoch_s", factors=FACTORS, seed=3))
