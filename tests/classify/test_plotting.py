"""boxcoxstat.classify.plotting on the Agg backend: trace, heat map and criterion curves."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from boxcoxstat import BoxCoxError  # noqa: E402
from boxcoxstat.classify import criterion_curves, tune  # noqa: E402
from boxcoxstat.classify.plotting import plot_criterion_curves  # noqa: E402


def test_trace_plot(data):
    res = tune(*data, mode="full", criterion="pcml", epochs=3)
    ax = res.plot_trace()
    assert len(ax.lines) == 1 and ax.get_xlabel() == "epoch"
    plt.close("all")


def test_heatmap_needs_2d_grid(data):
    res = tune(*data, mode="full", criterion="fisher", search="grid")
    ax = res.plot_heatmap()
    assert ax.images[0].get_array().shape == (11, 11)
    plt.close("all")
    with pytest.raises(BoxCoxError, match="grid search"):
        tune(*data, mode="full", criterion="fisher").plot_heatmap()


def test_heatmap_marks_label_lambda_pairs(data):
    """Blum et al.'s Figure 2 marks: labels at (lambda_1, lambda_2), rows the first
    feature's lambda; two labels on one cell are joined, and no star is drawn."""
    res = tune(*data, mode="full", criterion="fisher", search="grid")
    ax = res.plot_heatmap(marks={"1": (2.0, 2.0), "2": (-3, 4), "3": [2.0, 2.0]})
    texts = {t.get_text(): t.get_position() for t in ax.texts}
    assert texts == {"1,3": (2.0, 2.0), "2": (4.0, -3.0)}  # (x, y) = (lambda_2, lambda_1)
    assert len(ax.lines) == 0 and ax.get_xticks().tolist() == list(np.linspace(-5, 5, 11))
    plt.close("all")
    for bad in ((1.0,), (1.0, np.nan), "ab", (1.0, "x")):
        with pytest.raises(BoxCoxError, match="mark 'b' must be a pair of finite lambdas"):
            res.plot_heatmap(marks={"b": bad})
        plt.close("all")


def test_curve_plots(data):
    res = tune(*data, mode="spherical", criterion="fisher", search="continuous")
    ax = res.plot_curve()
    assert ax.get_xlabel() == "lambda" and len(ax.lines) == 3
    curves = criterion_curves(*data, lmbda=np.arange(-5, 5.5, 1.0))
    ax = plot_criterion_curves(curves)
    assert len(ax.lines) == 4
    y = ax.lines[0].get_ydata()
    assert min(y) == 0.0 and max(y) == 1.0
    plt.close("all")


def test_curve_plot_with_one_feature():
    """A one-feature spherical search still labels its evaluations ``lmbda``."""
    X = np.array([[1.0], [1.1], [1.2], [1.9], [2.0], [2.2]])
    res = tune(X, [0, 0, 0, 1, 1, 1], mode="spherical", criterion="fisher", search="grid")
    assert list(res.evaluations.columns) == ["lmbda", "score"]
    assert len(res.plot_curve().lines) == 3
    plt.close("all")
