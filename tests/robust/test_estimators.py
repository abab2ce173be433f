"""RewML, Carroll and MTL (boxcoxstat.robust.estimators) against cellWise 2.5.3 and the paper.

Reference numbers: the test vectors of ``RewML_SPEC.md`` section 10 (R 4.2.2 + cellWise 2.5.3
``transfo()``, all defaults), copied below with the data recipe, and the TopGear numbers
printed in Raymaekers & Rousseeuw (2021), sections 1 and 4.1.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, stats

import boxcoxstat as bcs
from boxcoxstat.datasets import load
from boxcoxstat.robust import estimators as robust


def _q(n):
    return stats.norm.ppf((np.arange(1, n + 1) - 0.5) / n)


def _data(name):
    if name == "T1":
        x = np.exp(_q(40))
        x[37:] = [50.0, 80.0, 120.0]
    elif name == "T2":
        x = _q(60).copy()
        x[:4] = -10.0
    elif name == "T3":
        x = 10 - np.exp(0.5 * _q(50))
    else:
        x = np.exp(np.exp(_q(45)))
    return x


# data, family, lambda0, lambda, objective, muhat, sigmahat, locx, scalex, sum of weights
ROBUST = [
    ("T1", "boxcox", 0.026906, 0.174798, 0.061602, -0.086504, 0.838517, 0, 1.000491, 37),
    ("T1", "yeojohnson", -0.246915, 0.034460, 0.083392, -0.075658, 0.807425, 1.000491,
     0.900997, 37),
    ("T2", "yeojohnson", 0.963445, 0.745188, 0.060529, 0.066087, 0.852477, 0, 1.000343, 56),
    ("T3", "boxcox", 5.999944, 7.839457, 0.023021, -0.002184, 0.050720, 0, 8.999921, 50),
    ("T3", "yeojohnson", 1.815481, 1.704293, 0.006097, 0.012832, 0.969426, 8.999921,
     0.482282, 50),
    ("T4", "boxcox", -0.964849, -0.525072, 0.096565, 0.135933, 0.844418, 0, 2.718282, 45),
    ("T4", "yeojohnson", -0.757448, -0.418531, 0.094980, 0.151913, 1.026067, 2.718282,
     2.004156, 45),
]

# non-robust rows: data, family, lambda (of cellWise's prestandardized data)
NONROBUST = [
    ("T1", "boxcox", -0.285663), ("T1", "yeojohnson", -4.876586),
    ("T2", "yeojohnson", 2.497476), ("T3", "boxcox", 7.839457),
    ("T3", "yeojohnson", 1.773438), ("T4", "boxcox", -0.525072),
    ("T4", "yeojohnson", -13.766860),
]


@pytest.mark.parametrize("row", ROBUST, ids=[f"{r[0]}-{r[1]}" for r in ROBUST])
def test_rewml_reproduces_cellwise_test_vectors(row):
    name, family, lam0, lam, obj, mu, sd, locx, scalex, nw = row
    x = _data(name)
    sol = robust.robust_lambda(x, family)
    first = robust.robust_lambda(x, family, expand=False)  # lambda0 is on [-4, 6]
    got = [first.lmbda0[0], sol.lmbda[0], sol.objective[0], sol.muhat[0], sol.sigmahat[0],
           sol.locx[0], sol.scalex[0]]
    np.testing.assert_allclose(got, [lam0, lam, obj, mu, sd, locx, scalex], atol=2e-6)
    assert int(np.sum(sol.weights)) == nw


@pytest.mark.parametrize("row", NONROBUST, ids=[f"{r[0]}-{r[1]}" for r in NONROBUST])
def test_mle_matches_cellwise_nonrobust_rows(row):
    # cellWise prestandardizes (BC: x / median, YJ: mean/sd) and stops Brent at 2**-13;
    # Box-Cox lambda is scale invariant, so the exact MLE must agree to that tolerance.
    name, family, lam = row
    x = _data(name)
    if family == "yeojohnson":
        x = (x - x.mean()) / x.std(ddof=1)
    assert bcs.fit(x, family=family).lmbda == pytest.approx(lam, abs=3e-4)


def test_fmin_agrees_with_scipy_bounded():
    # scipy's "bounded" method is the same fmin variant (Brent 1973)
    f = [lambda t: np.sin(3 * t) + 0.1 * t**2, lambda t: np.abs(t - 0.7) ** 1.5 + np.cos(t)]
    got = robust.fmin(lambda u, idx: np.array([f[i](v) for v, i in zip(u, idx, strict=True)]),
                      [-4, -4], [6, 6])
    for j in range(2):
        ref = optimize.minimize_scalar(f[j], bounds=(-4, 6), method="bounded",
                                       options={"xatol": 2**-13})
        assert got[j] == pytest.approx(ref.x, abs=1e-9)


def test_huber_loc_scale_by_hand():
    v = np.array([1.0, 2.0, 3.0, 4.0, 100.0])
    # median 3, MAD 1 * 1.4826...: |u| = 1.349 for 1, 4 -> weight 1; 100 -> 1.5/65.4
    s0 = robust.K_MAD
    w100 = 1.5 / (97 / s0)
    mu = (1 + 2 + 3 + 4 + w100 * 100) / (4 + w100)
    got_mu, got_s = robust.huber_loc_scale(v)
    assert got_mu[0] == pytest.approx(mu, rel=1e-14)
    r = v - mu
    s1 = s0 * np.median(np.abs(r))
    rho = np.minimum((r / s1) ** 2, 2.25) / 1.556931
    assert got_s[0] == pytest.approx(s1 * np.sqrt(rho.sum() / 2.5), rel=1e-14)


@pytest.fixture(scope="module")
def cars():
    return load("topgear")


def _flagged(cars, result):
    labels = result.outliers
    return sorted((cars.Maker[i] + " " + cars.Model[i]) for i in labels)


def test_topgear_mpg_paper_numbers(cars):
    ml = bcs.fit(cars["MPG"], family="boxcox")
    rew = bcs.fit(cars["MPG"], family="boxcox", method="rewml")
    assert round(ml.lmbda, 2) == -0.11
    assert round(rew.lmbda, 2) == 0.84
    assert _flagged(cars, rew) == ["BMW i3", "Chevrolet Volt", "Vauxhall Ampera"]


def test_topgear_weight_paper_numbers(cars):
    ml = bcs.fit(cars["Weight"], family="boxcox")
    rew = bcs.fit(cars["Weight"], family="boxcox", method="rewml")
    assert round(ml.lmbda, 2) == 0.83
    assert round(rew.lmbda, 2) == 0.09
    flagged = _flagged(cars, rew)
    assert len(flagged) == 5
    assert "Peugeot 107" in flagged and "Renault Twizy" in flagged
    # they are the five lightest cars (outliers at the bottom)
    light = cars.dropna(subset=["Weight"]).nsmallest(5, "Weight")
    assert sorted(light.index) == sorted(rew.outliers)


def test_rewml_without_outliers_equals_ml_for_boxcox():
    # spec 6: when nothing is flagged, robust BC is plain ML on x / median(x)
    x = _data("T4")
    sol = robust.robust_lambda(x, "boxcox")
    assert np.all(sol.weights == 1)
    assert sol.lmbda[0] == pytest.approx(bcs.fit(x).lmbda, abs=3e-4)


def test_columns_are_fitted_independently_with_missing_values():
    x = np.column_stack([_data("T1"), _data("T1")[::-1]])
    x = np.vstack([x, [[np.nan, 2.0]]])
    both = robust.robust_lambda(x, "yeojohnson")
    one = robust.robust_lambda(_data("T1"), "yeojohnson")
    assert both.lmbda[0] == pytest.approx(one.lmbda[0], abs=1e-12)
    assert np.isnan(both.weights[-1, 0]) and both.weights[-1, 1] in (0.0, 1.0)


def test_bad_options_raise():
    with pytest.raises(bcs.BoxCoxError, match="unknown tuning"):
        robust.robust_lambda(_data("T1"), "boxcox", cc=1)
    with pytest.raises(bcs.BoxCoxError, match="strictly positive"):
        robust.robust_lambda(_data("T2"), "boxcox")
    with pytest.raises(bcs.BoxCoxError, match="MAD"):
        robust.robust_lambda(np.r_[np.ones(30), 2.0, 3.0], "yeojohnson")


def test_robust_estimators_resist_far_outliers():
    rng = np.random.default_rng(3)
    y = rng.standard_normal(200)
    y[:20] = 10.0
    x = np.exp(y)
    lam = {m: bcs.fit(x, method=m).lmbda for m in ("mle", "carroll", "mtl", "rewml")}
    assert abs(lam["rewml"]) < 0.1
    assert abs(lam["mle"]) > 0.15
    frame = pd.Series(lam)
    assert frame.abs().idxmin() == "rewml"
    # MTL keeping 90% discards the 10% of outliers
    assert abs(bcs.fit(x, method="mtl", h=0.9).lmbda) < 0.1


def test_mtl_keeping_everything_is_ml():
    # h = 1 keeps all n points: the trimmed likelihood is the likelihood
    x = _data("T4")
    mtl = bcs.fit(x, method="mtl", h=1.0, prestandardize="none").lmbda
    assert mtl == pytest.approx(bcs.fit(x).lmbda, abs=1e-3)


def test_rectified_quartile_rule_and_rewmlnr_run():
    x = _data("T1")
    a = robust.robust_lambda(x, "boxcox", rectify="quartile").lmbda[0]
    b = robust.robust_lambda(x, "boxcox", rectified=False).lmbda[0]
    assert np.isfinite(a) and np.isfinite(b)
    # the change points of the paper's rule are the quartiles themselves
    xs = np.sort(x)[:, None]
    cut = robust.change_points(xs, np.array([0.5]), "boxcox", "quartile")
    assert cut[0] == xs[40 - 10, 0]


def test_rectified_transform_by_hand():
    from boxcoxstat import families as fam

    x = np.array([0.5, 2.0, 4.0, 9.0])
    got = fam.rectified_transform(x, 0.5, 4.0, "boxcox")
    expect = np.r_[2 * (np.sqrt(x[:3]) - 1), 2 * (2 - 1) + (9 - 4) * 4**-0.5]
    np.testing.assert_allclose(got, expect, rtol=1e-14)
    # lambda > 1, Yeo-Johnson: linear below the change point with slope h'(C)
    xy = np.array([-5.0, -1.0, 0.0, 3.0])
    got = fam.rectified_transform(xy, 1.5, -1.0, "yeojohnson")
    h_c = -((2.0) ** 0.5 - 1) / 0.5
    slope = 2.0 ** -0.5  # (1 + |C|)^(sign(C)(lambda - 1)) = 2^(-0.5)
    assert got[0] == pytest.approx(h_c + (-5.0 + 1.0) * slope, rel=1e-14)
    np.testing.assert_allclose(got[1:], fam.yeojohnson(xy[1:], 1.5), rtol=1e-14)
    # lambda = 1: linear everywhere
    np.testing.assert_array_equal(fam.rectified_transform(x, 1.0, 4.0, "boxcox"), x - 1)


def test_auto_family_matches_cellwise_bestobj():
    # spec section 10: robust bestObj picks BC for T1, YJ for T3 and T4 (smaller criterion)
    frame = pd.DataFrame({"T1": np.r_[_data("T1"), [np.nan] * 10], "T3": _data("T3"),
                          "T4": np.r_[_data("T4"), [np.nan] * 5]})
    r = bcs.fit(frame, family="auto", method="rewml")
    assert list(r.families) == ["boxcox", "yeojohnson", "yeojohnson"]
    np.testing.assert_allclose(r.lmbda, [0.174798, 1.704293, -0.418531], atol=2e-6)
