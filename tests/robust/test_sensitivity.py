"""Sensitivity curves (Raymaekers & Rousseeuw 2021, section 2.6 and Fig. 5)."""

from __future__ import annotations

import json

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest
from scipy import stats

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
    # X_0 are exact quantiles of the model: the MLE is the true lambda up to the
    # discreteness of n - 1 = 99 quantiles (1e-9 is the core's root tolerance scale)
    assert curve.baseline["mle"] == pytest.approx(expect, abs=1e-9)


def test_estimators_come_from_the_registry():
    z = [-6.0, 0.3, 6.0]
    sc = bcs.sensitivity_curve(["mle", ("mtl", {"h": 0.9}), ("rewml", {"rectified": False})],
                               "yeojohnson", z=z)
    assert list(sc.values.columns) == ["mle", "mtl(h=0.9)", "rewml(rectified=False)"]
    assert sc.estimators["mtl(h=0.9)"] == {"method": "mtl", "options": {"h": 0.9}}
    # options of a single estimator go as keywords, with the same meaning as in fit
    one = bcs.sensitivity_curve("mtl", "yeojohnson", z=z, h=0.9)
    pd.testing.assert_series_equal(one.values["mtl(h=0.9)"], sc.values["mtl(h=0.9)"])
    # and they are the estimator bcs.fit runs: SC(z) = n (T(X_z) - T(X_0)) with T the fit
    # (prestandardization off, as the curve's robust estimators run); equal up to the
    # rounding of the criterion's values in a batch of columns (Brent's path: 1e-7)
    x0 = bcs.families.yeojohnson_inverse(stats.norm.ppf(np.arange(1, 100) / 100), 1.0)
    t0, tz = (bcs.fit(x, family="yeojohnson", method="mtl", h=0.9, prestandardize="none").lmbda
              for x in (x0, np.r_[x0, 6.0]))
    assert sc.values.loc[6.0, "mtl(h=0.9)"] == pytest.approx(100 * (tz - t0), abs=1e-7)


def test_summary_and_json_round_trip(curve, tmp_path):
    text = str(curve.summary())
    assert "Sensitivity curves" in text and "rewml" in text and "T(X0)" in text
    summary = curve.summary()
    table = summary.tables[0][1]
    # RewML's curve is exactly 0 beyond |z| (or |log z|) = 4 on this grid, ML's nowhere
    assert table.iloc[1, -1] <= 4 and np.isnan(table.iloc[0, -1])
    assert "<table" in summary.as_html() and "tabular" in summary.as_latex()
    assert curve._repr_html_().startswith("<h4>")
    doc = curve.to_json()
    path = tmp_path / "sc.json"
    path.write_text(doc)
    for source in (doc, json.loads(doc), path, str(path)):
        back = bcs.SensitivityCurve.from_json(source)
        pd.testing.assert_frame_equal(back.values, curve.values)
        pd.testing.assert_series_equal(back.baseline, curve.baseline)
        assert (back.family, back.lmbda, back.n) == (curve.family, curve.lmbda, curve.n)
        assert str(back.summary()) == text


def test_malformed_json_names_the_field(curve):
    doc = json.loads(curve.to_json())
    bad = dict(doc, baseline_values=[0.0])
    with pytest.raises(bcs.BoxCoxError, match="baseline_values"):
        bcs.SensitivityCurve.from_json(bad)
    bad = dict(doc, n=3)
    with pytest.raises(bcs.BoxCoxError, match="'n'"):
        bcs.SensitivityCurve.from_json(bad)
    bad = dict(doc, estimators={"mle": {}})
    with pytest.raises(bcs.BoxCoxError, match="estimators"):
        bcs.SensitivityCurve.from_json(bad)
    bad = {k: v for k, v in doc.items() if k != "values"}
    with pytest.raises(bcs.BoxCoxError, match="'values' is missing"):
        bcs.SensitivityCurve.from_json(bad)


def test_plot_and_bad_input(curve):
    ax = curve.plot()
    assert len(ax.get_lines()) == 3
    matplotlib.pyplot.close("all")
    with pytest.raises(bcs.BoxCoxError, match=r"unknown method 'huber'.*'mle', 'rewml'"):
        bcs.sensitivity_curve("huber", "yeojohnson", z=[1.0])
    with pytest.raises(bcs.BoxCoxError, match=r"does not take option\(s\) \['h'\].*nbsteps"):
        bcs.sensitivity_curve("rewml", "yeojohnson", z=[1.0], h=0.9)
    with pytest.raises(bcs.BoxCoxError, match="single estimator"):
        bcs.sensitivity_curve(["mle", "mtl"], "yeojohnson", z=[1.0], h=0.9)
    with pytest.raises(bcs.BoxCoxError, match="more than once"):
        bcs.sensitivity_curve(["mtl", ("mtl", {})], "yeojohnson", z=[1.0])
    with pytest.raises(bcs.BoxCoxError, match="positive"):
        bcs.sensitivity_curve("mle", "boxcox", z=[-1.0])
    with pytest.raises(bcs.BoxCoxError, match="n must be"):
        bcs.sensitivity_curve("mle", "boxcox", n=5)


@pytest.mark.parametrize("family", ["yeojohnson", "boxcox"])
def test_carroll_is_unbounded_smooth_and_below_ml(family):
    # Raymaekers & Rousseeuw (2021), Fig. 5: Carroll's curve is unbounded like ML's but
    # smaller for large |z| (|log z| for Box-Cox), and it has no jumps of MTL's kind
    grid = np.linspace(-10, 10, 81)
    z = grid if family == "yeojohnson" else np.exp(grid)
    sc = bcs.sensitivity_curve(["mle", "carroll"], family, z=z)
    ml, car = sc.values["mle"].to_numpy(), sc.values["carroll"].to_numpy()
    t = np.abs(sc.x_axis)
    assert sc.baseline["carroll"] == pytest.approx(sc.baseline["mle"], abs=1e-6)
    for side in (sc.x_axis >= 3, sc.x_axis <= -3):
        order = np.argsort(t[side])
        assert np.all(np.diff(np.abs(car[side][order])) > 0)  # keeps growing
    far = t >= 4
    assert np.all((np.abs(car[far]) < np.abs(ml[far])) & (np.abs(car[far]) > 5))
    # steps between neighbouring z (0.25 apart) stay below 3 (MTL's reach 7 and more): the
    # largest, 2.5 near |z| = 2.4 for Yeo-Johnson, is where two shallow maxima of the
    # criterion trade places (proposal 2's scale is only piecewise smooth in lambda)
    assert np.abs(np.diff(car)).max() < 3
