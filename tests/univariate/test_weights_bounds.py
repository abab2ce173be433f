"""``bcs.fit(..., weights=)`` (lm(y ~ 1, weights=w)'s likelihood) and ``bounds=(lo, hi)``.

References: R (car::powerTransform, lm, uniroot; tests/reference/
weights_bounds_compare_reference.R and its JSON) and an mpmath maximum of the weighted profile.
"""

import json
from pathlib import Path

import mpmath
import numpy as np
import pandas as pd
import pytest

import boxcoxstat as bcs

REF = json.loads((Path(__file__).resolve().parents[1] / "reference"
                  / "weights_bounds_compare_reference.json").read_text())


def _mp_weighted_max(y, w, lo=-3, hi=3):
    """lm(y ~ 1, weights=w)'s profile maximum in mpmath (50 digits): the root of the derivative
    of -(n/2) log sum w (psi - mean_w psi)^2 + (lambda - 1) sum log y."""
    mpmath.mp.dps = 50
    ys = [mpmath.mpf(float(v)) for v in y]
    ws = [mpmath.mpf(float(v)) for v in w]
    logs = [mpmath.log(v) for v in ys]
    n, jac, W = len(ys), mpmath.fsum(logs), mpmath.fsum(ws)

    def f(lam):
        z = [(mpmath.expm1(lam * lg)) / lam if lam != 0 else lg for lg in logs]
        m = mpmath.fsum(wi * zi for wi, zi in zip(ws, z, strict=True)) / W
        rss = mpmath.fsum(wi * (zi - m) ** 2 for wi, zi in zip(ws, z, strict=True))
        return -n / 2 * mpmath.log(rss) + (lam - 1) * jac

    x0 = mpmath.findroot(lambda t: mpmath.diff(f, t), mpmath.mpf("-0.2"))
    return float(x0)


def _intercept_only(ref):
    return len(ref["X"]) == len(ref["y"])


@pytest.mark.parametrize("case", sorted(c for c in REF["weighted"]
                                        if _intercept_only(REF["weighted"][c])))
def test_weighted_fit_equals_r(case):
    ref = REF["weighted"][case]
    r = bcs.fit(np.array(ref["y"]), weights=np.array(ref["w"]), family=ref["family"])
    t = ref["tight"]
    # the tight R value is the analytic score's root (uniroot tol 1e-15): 1e-10 covers both
    assert r.lmbda == pytest.approx(t["lambda"], abs=1e-10)
    assert float(r.llf) == pytest.approx(t["llf"], abs=1e-9)  # logLik(lm) + Jacobian
    ci = r.conf_int()
    assert ci.iloc[0].tolist() == pytest.approx([t["lower"], t["upper"]], abs=1e-10)
    assert r.test(0).statistic == pytest.approx(t["lr0"], abs=1e-9)
    assert r.test(1).statistic == pytest.approx(t["lr1"], abs=1e-9)
    # car maximises with optim's default tolerance and a numerical Hessian: 1e-3 of lambda,
    # 2e-4 relative in the SE
    assert r.lmbda == pytest.approx(ref["car"]["lambda"], abs=1e-3)
    assert float(r.bse.iloc[0]) == pytest.approx(ref["car"]["se"], rel=2e-4)
    assert "Case weights" in str(r.summary())
    back = bcs.PowerTransformResult.from_json(r.to_json())
    assert str(back.summary()) == str(r.summary())


def test_weighted_fit_equals_mpmath_maximum():
    ref = REF["weighted"]["lognormal_60"]
    y, w = np.array(ref["y"]), np.array(ref["w"])
    exact = _mp_weighted_max(y, w)
    assert bcs.fit(y, weights=w).lmbda == pytest.approx(exact, abs=1e-9)  # the brief's 1e-9


def test_weights_scale_free_zero_rows_dropped_and_ones_unweighted():
    ref = REF["weighted"]["trees_volume_by_height"]
    y, w = np.array(ref["y"]), np.array(ref["w"])
    base = bcs.fit(y, weights=w)
    # proportional weights: the same lambda (to rounding of the scaled sums)
    assert bcs.fit(y, weights=7.5 * w).lmbda == pytest.approx(base.lmbda, abs=1e-12)
    # weight 0 leaves the row out, as logLik.lm does
    yy, ww = np.r_[y, 1e3], np.r_[w, 0.0]
    r = bcs.fit(yy, weights=ww)
    assert r.lmbda == pytest.approx(base.lmbda, abs=1e-12) and int(r.nobs) == y.size
    assert float(r.llf) == pytest.approx(float(base.llf), abs=1e-9)
    # unit weights are the unweighted fit (a different code path: the response profile)
    plain = bcs.fit(y)
    ones = bcs.fit(y, weights=np.ones(y.size))
    assert ones.lmbda == pytest.approx(plain.lmbda, abs=1e-12)
    assert float(ones.llf) == pytest.approx(float(plain.llf), abs=1e-9)
    assert ones.conf_int().to_numpy() == pytest.approx(plain.conf_int().to_numpy(), abs=1e-10)


def test_weights_as_a_column_name_and_per_column_missing():
    ref = REF["weighted"]["lognormal_60"]
    y, w = np.array(ref["y"]), np.array(ref["w"])
    y2 = y[::-1].copy()
    y2[[3, 10]] = np.nan
    df = pd.DataFrame({"a": y, "b": y2, "w": w})
    before = df.copy()
    r = bcs.fit(df, weights="w")
    pd.testing.assert_frame_equal(df, before)  # the caller's frame is untouched
    assert list(r.lmbda.index) == ["a", "b"]
    assert r.lmbda["a"] == pytest.approx(bcs.fit(y, weights=w).lmbda, abs=1e-12)
    keep = ~np.isnan(y2)
    assert r.lmbda["b"] == pytest.approx(bcs.fit(y2[keep], weights=w[keep]).lmbda, abs=1e-12)
    assert r.nobs.tolist() == [60, 58]


@pytest.mark.parametrize("weights, message", [
    (np.r_[-1.0, np.ones(59)], "row 0 has -1"),
    (np.zeros(60), "all weights are zero"),
    (np.r_[np.ones(59), np.nan], "row 59 has nan"),
    (np.ones(59), "length 59, but the data have 60 rows"),
    ("nope", "not a DataFrame"),
    (np.array(["a"] * 60), "real numbers"),
])
def test_bad_weights_are_named(weights, message):
    y = np.array(REF["weighted"]["lognormal_60"]["y"])
    with pytest.raises(bcs.BoxCoxError, match=message):
        bcs.fit(y, weights=weights)


def test_weights_refused_where_they_do_not_apply():
    y = np.array(REF["weighted"]["lognormal_60"]["y"])
    w = np.ones(y.size)
    for kw, message in (
            ({"method": "rewml"}, "weights= needs method='mle'"),
            ({"family": "bcnpower"}, "weights= needs method='mle' with family 'boxcox', "
                                     "'yeojohnson' or 'auto'"),
            ({"lmbda": 0}, r"lmbda= \(a fixed power\) and weights= do not go together.*"
                           r"bcs.fit\(x, weights=w\).at\(power\)")):
        with pytest.raises(bcs.BoxCoxError, match=message):  # the estimator table's words
            bcs.fit(y, weights=w, **kw)
    with pytest.raises(bcs.BoxCoxError, match="not in the data"):
        bcs.fit(pd.DataFrame({"a": y}), weights="w")


@pytest.mark.parametrize("case", sorted(c for c in REF["bounded"]
                                        if _intercept_only(REF["bounded"][c])))
def test_bounded_fit_equals_r(case):
    ref = REF["bounded"][case]
    w = None if ref.get("w") is None else np.array(ref["w"])
    r = bcs.fit(np.array(ref["y"]), weights=w, bounds=(ref["lo"], ref["hi"]))
    # lambda on a bound is exact; an interior one is the score's root (uniroot 1e-15)
    assert r.lmbda == pytest.approx(ref["lambda"], abs=1e-10)
    assert float(r.lmbda_free[0]) == pytest.approx(ref["free"], abs=1e-10)
    assert float(r.llf) == pytest.approx(ref["llf"], abs=1e-9)
    ci = r.conf_int()
    assert ci.iloc[0].tolist() == pytest.approx([ref["lower"], ref["upper"]], abs=1e-10)
    for key, value in (ref["tests"] or {}).items():
        assert r.test(int(key[2])).statistic == pytest.approx(value, abs=1e-9)
    active = ref["lambda"] in (ref["lo"], ref["hi"])
    assert bool(r.bound_active) is active
    text = str(r.summary())
    assert ("bound active" in text) is active
    if active:
        assert np.isnan(r.bse.iloc[0])  # no observed information at a bound
        assert f"{ref['free']:.10g}" in text  # the unconstrained maximum is named


def test_bounded_interval_is_not_the_free_interval_cut():
    ref = REF["bounded"]["trees_volume_above"]
    y = np.array(ref["y"])
    free_ci = bcs.fit(y).conf_int().iloc[0]
    lo, hi = bcs.fit(y, bounds=(0.5, 2)).conf_int().iloc[0]
    # cutting the free interval at 0.5 would give [0.5, 0.565]; the bounded one is measured
    # from the bounded maximum at 0.5, whose likelihood is lower, and reaches 0.79
    assert free_ci["upper"] < 0.6 and lo == 0.5 and hi > 0.79


def test_bounds_level_json_and_tests_outside():
    y = np.array(REF["bounded"]["trees_volume_above"]["y"])
    r = bcs.fit(y, bounds=(0.5, 2))
    lo90, hi90 = r.conf_int(alpha=0.1).iloc[0]
    lo95, hi95 = r.conf_int().iloc[0]
    assert lo90 == lo95 == 0.5 and 0.5 < hi90 < hi95
    back = bcs.PowerTransformResult.from_json(r.to_json())
    assert str(back.summary()) == str(r.summary())
    with pytest.raises(bcs.BoxCoxError, match="outside the bounds"):
        r.test(0)
    # at(...) fixes a power: no bounds left on the fixed result
    assert r.at(1).bounds is None


@pytest.mark.parametrize("bounds, message", [
    ((2, 1), "lower end must be below"),
    ((1, 1), "lower end must be below"),
    ((np.nan, 1), "not NaN"),
    ((np.inf, np.inf), "lower end must be below|no finite power"),
    ((-np.inf, -np.inf), "lower end must be below|no finite power"),
    ((1e200, 1e201), "no finite power"),
    ((1,), "pair of numbers"),
    ("ab", "pair of numbers"),
])
def test_bad_bounds(bounds, message):
    y = np.array(REF["bounded"]["trees_volume_above"]["y"])
    with pytest.raises(bcs.BoxCoxError, match=message):
        bcs.fit(y, bounds=bounds)


def test_bounds_refused_with_ymax_and_open_sides_work():
    y = np.array(REF["bounded"]["trees_volume_above"]["y"])
    with pytest.raises(bcs.BoxCoxError, match="give one"):
        bcs.fit(y, bounds=(0, 1), ymax=1e10)
    free = bcs.fit(y)
    r = bcs.fit(y, bounds=(-np.inf, np.inf))
    assert r.lmbda == free.lmbda
    assert r.conf_int().to_numpy() == pytest.approx(free.conf_int().to_numpy(), abs=1e-10)
    half = bcs.fit(y, bounds=(0.5, np.inf))
    assert half.lmbda == 0.5 and half.conf_int().iloc[0, 1] == pytest.approx(
        REF["bounded"]["trees_volume_above"]["upper"], abs=1e-10)


def test_polars_weights_column():
    pl = pytest.importorskip("polars")
    ref = REF["weighted"]["lognormal_60"]
    y, w = np.array(ref["y"]), np.array(ref["w"])
    df = pl.DataFrame({"a": y, "w": w})
    r = bcs.fit(df, weights="w")
    assert float(r.lmbda.iloc[0]) == pytest.approx(ref["tight"]["lambda"], abs=1e-10)
    assert df.columns == ["a", "w"]  # the caller's frame keeps its weights column
    assert bcs.fit(df.select("a"), weights=df["w"]).lmbda.iloc[0] == pytest.approx(
        float(r.lmbda.iloc[0]), abs=0)


def test_safe_power_and_at_with_weights():
    x = np.array([4.61, 4.60, 4.60, 4.62, 4.61, 4.63])  # clustered: the MLE loses resolution
    w = np.array([1.0, 2.0, 1.0, 1.0, 3.0, 1.0])
    r = bcs.fit(x, weights=w, lmbda="safe")
    with pytest.warns(bcs.ResolutionWarning):
        mle = bcs.fit(x, weights=w)
    assert r.lmbda_mle[0] == mle.lmbda_mle[0] and r.lmbda != mle.lmbda
    # the safe fit's llf is the weighted profile at the safe power (at() keeps the weights)
    assert float(r.llf) == pytest.approx(float(mle.at(r.lmbda).llf), abs=1e-10)
    # and that is lm's weighted logLik at the fixed power plus the Jacobian, computed in
    # mpmath (the clustered values' transforms differ in the 9th digit: float64 sums of
    # squares of their deviations would lose ~1e-8 of the result)
    mpmath.mp.dps = 50
    lam = mpmath.mpf(float(r.lmbda))
    xs = [mpmath.mpf(float(v)) for v in x]
    ws = [mpmath.mpf(float(v)) for v in w]
    z = [(xi ** lam - 1) / lam for xi in xs]
    zbar = mpmath.fsum(wi * zi for wi, zi in zip(ws, z, strict=True)) / mpmath.fsum(ws)
    rss = mpmath.fsum(wi * (zi - zbar) ** 2 for wi, zi in zip(ws, z, strict=True))
    n = len(xs)
    loglik = (mpmath.fsum(mpmath.log(wi) for wi in ws) / 2
              - n / mpmath.mpf(2) * (mpmath.log(2 * mpmath.pi) + 1 - mpmath.log(n)
                                     + mpmath.log(rss))
              + (lam - 1) * mpmath.fsum(mpmath.log(xi) for xi in xs))
    assert float(r.llf) == pytest.approx(float(loglik), abs=1e-9)


def test_documents_with_bad_bounds_are_refused():
    y = np.array(REF["bounded"]["trees_volume_above"]["y"])
    doc = json.loads(bcs.fit(y, bounds=(0.5, 2)).to_json())
    doc["bounds"] = [[2.0, 0.5]]
    with pytest.raises(bcs.BoxCoxError, match="bounds"):
        bcs.PowerTransformResult.from_json(json.dumps(doc))
    pytest.importorskip("sklearn")
    pt = bcs.PowerTransformer("box-cox", bounds=(0.5, 2)).fit(y[:, None])
    doc = json.loads(pt.to_json())
    doc["bounds"] = [1.0]
    with pytest.raises(bcs.BoxCoxError, match="bounds"):
        bcs.PowerTransformer.from_json(json.dumps(doc))
