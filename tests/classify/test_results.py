"""TuningResult: summary rendering and plots (Agg backend)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from boxcoxstat import BoxCoxError  # noqa: E402
from boxcoxstat.classify import criterion_curves, tune  # noqa: E402
from boxcoxstat.classify.plotting import plot_criterion_curves  # noqa: E402
from tests.classify.synth import italy_corsica  # noqa: E402


@pytest.fixture(scope="module")
def data():
    return italy_corsica(120)


def test_summary_text_and_html(data):
    res = tune(*data, mode="full", criterion="fisher", epochs=2)
    text = str(res.summary())
    assert "criterion" in text and "fisher" in text and "ML lambda" in text
    assert "Trace" in text and "improvement" in text
    assert res.summary().as_html().count("<table") == 3
    assert "TuningResult(mode='full'" in repr(res)


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


def test_summary_snapshot():
    """Fixed 1-D data: the text report, line by line."""
    X = np.array([[1.0], [1.1], [1.2], [1.9], [2.0], [2.2]])
    y = np.array([0, 0, 0, 1, 1, 1])
    res = tune(X, y, mode="spherical", criterion="fisher", search="grid",
               grid=[-1.0, 1.0, 3.0])
    lines = str(res.summary()).splitlines()
    assert lines[0] == "Box-Cox lambdas tuned for classification"
    assert lines[3].split() == ["criterion", "fisher"]
    assert lines[4].split() == ["mode", "spherical"]
    assert lines[5].split() == ["search", "grid"]
    assert lines[6].split() == ["observations", "6"]
    assert lines[8].split() == ["tuned", "19.6000"]  # by hand: 0.25 * (2.0333 - 1.1)**2 / 0.011111
    assert lines[12].split() == ["lmbda", "ML", "lambda"]


def test_curve_plot_with_one_feature():
    """A one-feature spherical search still labels its evaluations ``lmbda``."""
    X = np.array([[1.0], [1.1], [1.2], [1.9], [2.0], [2.2]])
    res = tune(X, [0, 0, 0, 1, 1, 1], mode="spherical", criterion="fisher", search="grid")
    assert list(res.evaluations.columns) == ["lmbda", "score"]
    assert len(res.plot_curve().lines) == 3
    plt.close("all")


def test_json_round_trip(data):
    res = tune(*data, mode="full", criterion="fisher", epochs=2)
    back = type(res).from_json(res.to_json())
    np.testing.assert_array_equal(back.lmbda, res.lmbda)
    np.testing.assert_array_equal(back.transform(data[0]), res.transform(data[0]))
    assert str(back.summary()) == str(res.summary())
    np.testing.assert_array_equal(back.outcomes[0].evaluated, res.outcomes[0].evaluated)
