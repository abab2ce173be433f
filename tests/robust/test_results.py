"""RobustTransformResult: weights, outliers, cut-offs, transforms, reports (the QQ plot:
test_plotting.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import boxcoxstat as bcs
from boxcoxstat import families
from boxcoxstat.datasets import load


def test_weights_and_outliers_use_the_callers_index(mpg):
    r, cars = mpg
    assert isinstance(r, bcs.RobustTransformResult)
    assert sorted(r.outliers) == ["BMW i3", "Chevrolet Volt", "Vauxhall Ampera"]
    w = r.weights
    assert isinstance(w, pd.Series) and w.index.equals(cars.index)
    assert w.isna().sum() == cars["MPG"].isna().sum()
    assert set(w.dropna().unique()) == {0.0, 1.0}


def test_prestandardization_is_recorded_and_applied(mpg):
    r, cars = mpg
    x = cars["MPG"].dropna()
    assert r.locx_values[0] == 0 and r.scalex_values[0] == pytest.approx(x.median())
    # transform(new) = Box-Cox of x / median at the fitted lambda
    new = pd.Series([20.0, 47.0, 90.0])
    expect = families.boxcox(new / x.median(), r.lmbda)
    np.testing.assert_allclose(r.transform(new), expect, rtol=1e-13)
    np.testing.assert_allclose(r.inverse_transform(r.transform(new)), new, rtol=1e-12)
    z = r.transform(new, standardized=True)
    np.testing.assert_allclose(r.inverse_transform(z, standardized=True), new, rtol=1e-12)


def test_standardized_values_follow_the_weight_one_points(mpg):
    r, _ = mpg
    z = r.standardized
    kept = z[r.weights == 1]
    assert kept.mean() == pytest.approx(0, abs=1e-12)
    assert kept.std(ddof=1) == pytest.approx(1, rel=1e-12)
    # the three plug-in cars stand far out on the transformed scale
    assert (z[r.weights == 0] > 3).all()


def test_cutoffs_separate_flagged_from_kept_rows(mpg):
    r, cars = mpg
    lo, hi = r.cutoffs().loc["MPG"]
    x = cars["MPG"]
    flagged = x[r.weights == 0]
    kept = x[r.weights == 1]
    assert ((flagged < lo) | (flagged > hi)).all()
    assert kept.between(lo, hi).all()
    assert 90 < hi < 235  # between the largest kept MPG and the plug-in hybrids


def test_paper_cutoffs_are_median_and_two_mads_mapped_back(mpg):
    # Raymaekers & Rousseeuw (2021), section 5: median -+ 2 MAD of the transformed data,
    # carried back through the (increasing) inverse transform
    r, cars = mpg
    y = np.asarray(r.transform(cars["MPG"].dropna()))
    med = np.median(y)
    mad = 1.4826 * np.median(np.abs(y - med))
    want = np.asarray(r.inverse_transform(np.array([med - 2 * mad, med + 2 * mad])))
    got = r.cutoffs("paper").loc["MPG"].to_numpy()
    # the same numbers through transform/inverse_transform: rounding only
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert got[0] > r.cutoffs().loc["MPG", "lower"] and got[1] < r.cutoffs().loc["MPG", "upper"]
    wide = r.cutoffs("paper", width=3.0).loc["MPG"].to_numpy()
    assert wide[0] < got[0] and wide[1] > got[1]
    with pytest.raises(bcs.BoxCoxError, match="rule='iqr' is not valid"):
        r.cutoffs("iqr")
    with pytest.raises(bcs.BoxCoxError, match="width must be a positive number"):
        r.cutoffs(width=-1.0)


def test_summary_lists_flagged_rows(mpg):
    r, _ = mpg
    text = str(r.summary())
    assert "reweighted ML (RewML)" in text
    assert "BMW i3" in text and "Vauxhall Ampera" in text
    assert "x/median" in text
    assert "RewML" in repr(r) or "rewml" in repr(r)


def test_likelihood_inference_is_refused(mpg):
    r, _ = mpg
    for call in (r.conf_int, lambda: r.test(0), r.profile, lambda: r.bse):
        with pytest.raises(bcs.BoxCoxError, match="method='mle'"):
            call()


def test_dataframe_fit_with_auto_family_and_dict_outliers():
    cars = load("topgear")
    r = bcs.fit(cars[["MPG", "Weight"]], family="auto", method="rewml")
    assert isinstance(r.lmbda, pd.Series)
    assert set(r.outliers) == {"MPG", "Weight"}
    assert len(r.outliers["Weight"]) >= 5
    assert "robust criterion" in str(r.summary())


def test_yeojohnson_prestandardization_median_mad():
    x = np.r_[np.linspace(-2, 3, 50), 40.0]
    r = bcs.fit(x, family="yeojohnson", method="rewml")
    med = np.median(x)
    mad = 1.4826 * np.median(np.abs(x - med))
    assert r.locx_values[0] == pytest.approx(med) and r.scalex_values[0] == pytest.approx(mad)
    assert r.outliers == [50]
    np.testing.assert_allclose(r.transform(x), families.yeojohnson((x - med) / mad, r.lmbda))


def test_paper_prestandardization_option_for_boxcox():
    x = np.exp(np.linspace(-2, 2, 60))
    r = bcs.fit(x, method="rewml", prestandardize="paper")
    assert r.prestandardize == "paper"
    u = np.exp((np.log(x) - np.median(np.log(x))) / (1.4826 * np.median(
        np.abs(np.log(x) - np.median(np.log(x))))))
    np.testing.assert_allclose(r.transform(x), families.boxcox(u, r.lmbda), rtol=1e-12)


def test_bad_robust_arguments():
    x = np.exp(np.linspace(-2, 2, 60))
    with pytest.raises(bcs.BoxCoxError, match=r"method='mle' takes no options, got \['c'\]"):
        bcs.fit(x, c=0.4)
    # the lambda search range is lmbda_range (interval= is the interval type everywhere)
    with pytest.raises(bcs.BoxCoxError, match=r"\['interval'\].*'lmbda_range'"):
        bcs.fit(x, method="rewml", interval=(-4, 6))
    with pytest.raises(bcs.BoxCoxError, match="lmbda_range must be finite and contain 1"):
        bcs.fit(x, method="rewml", lmbda_range=(2, 6))
    with pytest.raises(bcs.BoxCoxError, match=r"method='carroll' does not take .*\['h'\]"):
        bcs.fit(x, method="carroll", h=0.9)
    with pytest.raises(bcs.BoxCoxError, match="is not valid; use one of 'mle'"):  # keywords
        bcs.fit(x, method=("mtl", {"h": 0.9}))
    with pytest.raises(bcs.BoxCoxError, match="ymax"):
        bcs.fit(x, method="rewml", ymax=1e10)
    with pytest.raises(bcs.BoxCoxError, match="method"):
        bcs.fit(x, method="robust")
    with pytest.raises(bcs.BoxCoxError, match="quant"):
        bcs.fit(x, method="rewml", quant=1.5)


def test_json_round_trip_keeps_the_transform(mpg):
    r, cars = mpg
    back = bcs.RobustTransformResult.from_json(r.to_json())
    new = pd.Series([12.0, 47.0, 300.0])
    np.testing.assert_array_equal(back.transform(new), r.transform(new))
    np.testing.assert_array_equal(back.transform(new, standardized=True),
                                  r.transform(new, standardized=True))
    pd.testing.assert_frame_equal(back.cutoffs(), r.cutoffs())
    assert back.lmbda == r.lmbda and back.prestandardize == "cellwise"
    # the flagged rows are saved: a loaded result names them and reports as the original
    assert back.outliers == r.outliers == ["BMW i3", "Chevrolet Volt", "Vauxhall Ampera"]
    assert str(back.summary()) == str(r.summary())
    with pytest.raises(bcs.BoxCoxError, match="weights is not available"):
        _ = back.weights
    with pytest.raises(bcs.BoxCoxError, match="not a RobustTransformResult JSON document"):
        bcs.RobustTransformResult.from_json(bcs.fit(cars["MPG"]).to_json())
