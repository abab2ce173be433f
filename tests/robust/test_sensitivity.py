"""Sensitivity curves (Raymaekers & Rousseeuw 2021, section 2.6 and Fig. 5)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest

import boxcoxstat as bcs


@pytest.fixture(scope="module", params=["yeojohnson", "boxcox"])
def curve(request):
    grid = np.linspace(-10, 10, 81)
    z = grid if request.param == "yeojohnson" else np.exp(grid)
    return bcs.sensitivity_curve(["mle", "rewml"], request.param, z=z)


def test_ml_is_unbounded(curve):
    sc = curve.values["mle"].to_numpy()
    t = np.abs(curve.x_axis)
    # |SC| keeps growing with |z| (or |log z|) in both tails
    for side in (curve.x_axis > 2, curve.x_axis < -2):
        order = np.argsort(t[side])
        assert np.all(np.diff(np.abs(sc[side][order])) > 0)
    assert np.abs(sc).max() > 20


def test_rewml_redescends_to_exactly_zero(curve):
    sc = curve.values["rewml"].to_numpy()
    far = np.abs(curve.x_axis) >= 4
    assert np.all(sc[far] == 0.0)
    assert np.any(sc[~far] != 0.0)  # but it does react to moderate z, like ML


def test_baseline_is_the_true_lambda_for_ml(curve):
    expect = 1.0 if curve.family == "yeojohnson" else 0.0
    assert curve.baseline["mle"] == pytest.approx(expect, abs=1e-9)


def test_plot_and_bad_input(curve):
    ax = curve.plot()
    assert len(ax.get_lines()) == 3
    matplotlib.pyplot.close("all")
    with pytest.raises(bcs.BoxCoxError, match="unknown estimator"):
        bcs.sensitivity_curve("huber", "yeojohnson", z=[1.0])
    with pytest.raises(bcs.BoxCoxError, match="positive"):
        bcs.sensitivity_curve("mle", "boxcox", z=[-1.0])
