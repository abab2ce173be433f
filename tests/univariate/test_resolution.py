"""A power that destroys the data, and the safe power (issue 27, item 3).

The exact MLE can map distinct values to one float64 (scikit-learn #29595, #23319; SciPy
#19016). These tests pin what the package does about it: a ``ResolutionWarning`` naming the
column (at the fit, in ``transform``, in ``lm``, in ``PowerTransformer``), and the safe power
(``lmbda="safe"``, ``r.safe``, ``r.at("safe")``, ``PowerTransformer(lmbda="safe")``).

Reference facts are independent of the code under test: transformed values and likelihoods in
mpmath (``tests/mpref.py``), counts of distinct outputs by NumPy on the returned arrays, round
trips measured with the package's inverse against the input.
"""

from __future__ import annotations

import json
import warnings

import mpmath
import numpy as np
import pandas as pd
import pytest

import boxcoxstat as bcs
from tests import mpref

SKLEARN_29595 = np.array([4.61, 4.60, 4.60, 4.62, 4.61])  # the data


def _offset_lognormal() -> np.ndarray:
    """40 distinct values of ``1e6 + lognormal``: they agree to about 5 digits."""
    return 1e6 + np.random.default_rng(0).lognormal(size=40)


def _psi(x: float, lmbda: float) -> mpmath.mpf:
    """Box-Cox in mpmath, on the float64 inputs taken exactly."""
    with mpmath.workdps(60):
        xm, lm = mpmath.mpf(float(x)), mpmath.mpf(float(lmbda))
        return mpmath.log(xm) if lm == 0 else (xm ** lm - 1) / lm


def _round_trip_error(r, x) -> float:
    """Largest relative error of ``inverse_transform(transform(x))`` (inf for no inverse)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bcs.ResolutionWarning)
        y = r.transform(x)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # values without an inverse: NaN
            back = np.asarray(r.inverse_transform(y), dtype=float)
    except bcs.BoxCoxError:
        return float("inf")
    err = np.abs(back - x) / np.abs(x)
    return float("inf") if np.isnan(err).any() else float(np.max(err))


def _fit_quietly(x, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bcs.ResolutionWarning)
        return bcs.fit(x, **kw)


# --------------------------------------------------------------------------- scikit-learn #29595
def test_sklearn_29595_mle_collapses_the_data_in_any_float64_arithmetic():
    """The exact MLE (mpmath) maps the three distinct values within one ulp of each other:
    no float64 transform can keep them apart, so the warning is about the power, not a bug."""
    lam = float(mpref.exact_lambda(SKLEARN_29595, "boxcox"))
    assert lam == pytest.approx(-142.976, abs=1e-3)  # mpmath's optimum (the issue's -174 is
    # scikit-learn's Brent stop)
    vals = [_psi(v, lam) for v in (4.60, 4.61, 4.62)]
    spread = max(vals) - min(vals)
    assert spread < np.finfo(float).eps * abs(vals[0]) / 2  # below half an ulp: one float
    with pytest.warns(bcs.ResolutionWarning) as rec:
        r = bcs.fit(SKLEARN_29595)
    assert r.lmbda == pytest.approx(lam, rel=1e-9)  # the fit still reports the exact MLE
    msg = str(rec[0].message)
    assert [w.category for w in rec] == [bcs.ResolutionWarning]
    assert "column 'x'" in msg and "3 distinct values" in msg and "lmbda='safe'" in msg
    assert rec[0].filename == __file__  # stacklevel: the user's call


def test_sklearn_29595_safe_power_is_in_the_interval_and_resolves_the_data():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the safe fit warns about nothing
        r = bcs.fit(SKLEARN_29595, lmbda="safe")
    lo, hi = r.conf_int().iloc[0]
    safe = r.lmbda
    assert r.safe == safe and r.bound_active and r._safe_used
    assert lo <= safe <= hi
    assert r._lmbda_mle[0] == pytest.approx(float(mpref.exact_lambda(SKLEARN_29595, "boxcox")),
                                           rel=1e-9)
    # mpmath: at the safe power the three distinct values have distinct transforms, and the
    # package's float64 values are those, within 1e-13 relative (a few ulps of the log and exp)
    u = np.array([4.60, 4.61, 4.62])
    exact = [_psi(v, safe) for v in u]
    assert exact[0] < exact[1] < exact[2]
    got = r.transform(u)
    for g, e in zip(got, exact, strict=True):
        assert abs(g - float(e)) <= 1e-13 * abs(float(e))
    assert np.all(np.diff(got) > 0) and np.unique(r.transform(SKLEARN_29595)).size == 3
    assert _round_trip_error(r, SKLEARN_29595) <= 1e-10  # the safe power's promise
    # the MLE loses all of it: same count, independent measure
    mle = _fit_quietly(SKLEARN_29595)
    assert _round_trip_error(mle, SKLEARN_29595) > 1e-3


def test_safe_power_is_the_most_likely_resolved_power():
    """Just beyond the safe power (towards the MLE) the round trip bound is broken; further
    inside, the likelihood is lower (the profile is unimodal)."""
    r = bcs.fit(SKLEARN_29595, lmbda="safe")
    safe = r.lmbda
    beyond = safe * 1.02  # 2% towards the MLE (-143)
    with mpmath.workdps(60):  # the round trip bound 2 eps (g + |log x| + 1) at x = 4.62
        x = mpmath.mpf(4.62)
        g = abs(1 - x ** (-mpmath.mpf(beyond))) / abs(beyond)
        bound = 2 * mpmath.mpf(2) ** -52 * (g + mpmath.log(x) + 1)
        assert bound > mpmath.mpf("1e-10")
        g = abs(1 - x ** (-mpmath.mpf(safe))) / abs(safe)
        assert 2 * mpmath.mpf(2) ** -52 * (g + mpmath.log(x) + 1) <= mpmath.mpf("1e-10")
    assert r.test(safe).statistic < r.test(safe * 0.9).statistic


def test_summary_shows_the_safe_power_beside_the_mle_with_its_lr_test():
    r = _fit_quietly(SKLEARN_29595)
    text = str(r.summary())
    assert "Resolution in float64" in text and "LR(safe)" in text and "p(safe)" in text
    # LR(safe) from mpmath's likelihood: 2 (NLL(safe) - NLL(MLE))
    lam = mpref.exact_lambda(SKLEARN_29595, "boxcox")
    want = 2 * (mpref.exact_nll(SKLEARN_29595, r.safe, "boxcox")
                - mpref.exact_nll(SKLEARN_29595, lam, "boxcox"))
    assert r._safe_statistic[0] == pytest.approx(float(want), rel=1e-8)  # 1e-8: the NLL of
    # 5 values is ~ -17, the LR 0.17: the float64 NLL difference keeps 13 digits of it
    assert r.test(r.safe).statistic == pytest.approx(float(want), rel=1e-8)
    back = bcs.PowerTransformResult.from_json(r.to_json())  # saved with the result
    assert str(back.summary()) == text and back.safe == r.safe


def test_at_safe_fixes_the_safe_power():
    r = _fit_quietly(SKLEARN_29595)
    fixed = r.at("safe")
    assert fixed.fixed and fixed.lmbda == r.safe
    assert np.unique(fixed.transform(SKLEARN_29595)).size == 3
    with pytest.raises(bcs.BoxCoxError, match="fixed"):
        fixed.at("safe")


# --------------------------------------------------------------------------- 1e6 + lognormal
def test_offset_data_forty_distinct_values_come_out_as_a_few():
    x = _offset_lognormal()
    assert np.unique(x).size == 40
    with pytest.warns(bcs.ResolutionWarning, match="subtract an offset") as rec:
        r = bcs.fit(x)
    with pytest.warns(bcs.ResolutionWarning):
        y = r.transform(x)
    n_out = np.unique(y).size
    assert n_out <= 3  # NumPy's count of what the MLE gives: the data are gone
    assert f"its 40 distinct values give {n_out} distinct transformed values" in str(
        rec[0].message)
    # the collapse is the power's: in mpmath the 40 true values lie within an ulp
    lam = r.lmbda
    vals = [_psi(v, lam) for v in (x.min(), x.max())]
    assert abs(vals[1] - vals[0]) < np.finfo(float).eps * abs(vals[0])


def test_offset_data_safe_power_lies_outside_the_interval_and_says_so():
    x = _offset_lognormal()
    with pytest.warns(bcs.ResolutionWarning, match="no power in the 95% profile interval"):
        r = bcs.fit(x, lmbda="safe")
    lo, hi = r.conf_int().iloc[0]
    assert not lo <= r.lmbda <= hi
    assert np.unique(r.transform(x)).size == 40 and np.all(np.diff(r.transform(np.sort(x))) > 0)
    assert _round_trip_error(r, x) <= 1e-10
    assert "lies outside it" in str(r.summary())
    # the remedy the message gives works: the offset data keep their MLE, no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        shifted = bcs.fit(x - 1e6)
        assert shifted.safe == shifted.lmbda


# --------------------------------------------------------------------------- round trip
def test_round_trip_of_1e308_off_by_more_than_1e8_warns():
    x = np.array([0.5, 3.0, 1e308])
    with pytest.warns(bcs.ResolutionWarning, match="off by up to"):
        r = bcs.fit(x, lmbda=-0.04)
    err = _round_trip_error(r, x)
    assert err > 1e-8  # measured: the 1e308 comes back as a neighbour of 9.9e307
    with pytest.warns(bcs.ResolutionWarning, match="column 'x'"):
        r.transform(x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the log keeps it: no warning, a clean round trip
        log = bcs.fit(x, lmbda=0)
    assert _round_trip_error(log, x) <= 1e-13


def test_overflowing_mle_gets_a_finite_safe_power():
    x = np.array([10.0, 10.0, 10.0, 9.9])
    r = bcs.fit(x, lmbda="safe")
    assert r._lmbda_mle[0] == pytest.approx(float(mpref.exact_lambda(x, "boxcox")), rel=1e-9)
    assert abs(float(_psi(10.0, r.lmbda))) <= 1e100 < abs(float(_psi(10.0, 1.02 * r.lmbda)))
    y = r.transform(x)
    assert np.all(np.isfinite(y)) and np.unique(y).size == 2


# --------------------------------------------------------------------------- lm
def test_lm_response_collapsed_at_lmbda_minus_1000_warns():
    trees = bcs.datasets.load("trees")
    with pytest.warns(bcs.ResolutionWarning, match="response 'Volume'") as rec:
        m = bcs.lm("Volume ~ np.log(Height) + np.log(Girth)", trees, lmbda=-1000)
    assert rec[0].filename == __file__
    assert m.rsquared < 0  # -25: the collapsed response the warning is about
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est = bcs.lm("Volume ~ np.log(Height) + np.log(Girth)", trees)
    assert est.power.safe == est.lmbda  # the MLE keeps the response's digits
    assert est.at("safe").lmbda == est.lmbda
    with pytest.warns(bcs.ResolutionWarning, match="response 'Volume'"):
        est.at(-1000)


# --------------------------------------------------------------------------- PowerTransformer
def test_power_transformer_safe_option_matches_fit():
    pytest.importorskip("sklearn")
    X = np.c_[SKLEARN_29595, np.random.default_rng(1).lognormal(size=5)]
    with pytest.warns(bcs.ResolutionWarning, match="x0.*PowerTransformer\\(lmbda='safe'\\)"):
        plain = bcs.PowerTransformer(method="box-cox").fit(X)
    with pytest.warns(bcs.ResolutionWarning, match="x0"):
        plain.transform(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pt = bcs.PowerTransformer(method="box-cox", lmbda="safe").fit(X)
        Z = pt.transform(X)
    want = bcs.fit(pd.DataFrame(X, columns=["x0", "x1"]), lmbda="safe")
    np.testing.assert_array_equal(pt.lambdas_, want.lmbda.to_numpy())  # one engine
    assert pt.lambdas_[1] == plain.lambdas_[1]  # a resolved feature keeps its MLE
    assert np.unique(Z[:, 0]).size == 3
    back = bcs.PowerTransformer.from_json(pt.to_json())
    assert back.lmbda == "safe" and json.loads(pt.to_json())["lmbda"] == "safe"
    np.testing.assert_array_equal(back.transform(X), Z)


def test_power_transformer_refuses_a_bad_lmbda_option():
    pytest.importorskip("sklearn")
    with pytest.raises(bcs.BoxCoxError, match="lmbda"):
        bcs.PowerTransformer(lmbda="rounded").fit(np.c_[SKLEARN_29595])
    with pytest.raises(bcs.BoxCoxError, match="estimator='mle'"):
        bcs.PowerTransformer(lmbda="safe", estimator="rewml").fit(np.c_[SKLEARN_29595])


# --------------------------------------------------------------------------- no false alarms
@pytest.mark.parametrize("family", ["boxcox", "yeojohnson", "auto"])
def test_ordinary_data_do_not_warn_and_safe_is_the_mle(family):
    rng = np.random.default_rng(3)
    df = pd.DataFrame({"a": rng.lognormal(size=300), "b": 1 + rng.gamma(2.0, size=300),
                       "c": rng.uniform(1, 1e6, 300)})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = bcs.fit(df, family=family)
        s = bcs.fit(df, family=family, lmbda="safe")
        r.transform(df)
    pd.testing.assert_series_equal(r.safe, r.lmbda, check_names=False)
    np.testing.assert_array_equal(s._lmbda_used, r._lmbda_used)
    assert "Resolution" not in str(r.summary()) and not s.bound_active.any()


def test_fit_refuses_safe_where_it_does_not_apply():
    with pytest.raises(bcs.BoxCoxError, match="'safe'"):
        bcs.fit(SKLEARN_29595, lmbda="rounded")
    with pytest.raises(bcs.BoxCoxError, match="method='mle'"):
        bcs.fit(SKLEARN_29595, lmbda="safe", method="rewml")
    with pytest.raises(bcs.BoxCoxError, match="method='mle'"):
        bcs.fit(SKLEARN_29595, lmbda="safe", family="bcnpower")


# --------------------------------------------------------------------------- adversarial data
@pytest.mark.parametrize("row", mpref.table1(), ids=lambda r: f"{r['family']}-{r['data'][-1]}")
def test_table1_safe_power_keeps_the_values_apart_inside_the_interval(row):
    """Xu & Cormode (2025), Table 1: the exact MLE (|lambda| 360 to 4e5) sends the values
    beyond float64 or onto one float; the safe power keeps them, inside the interval."""
    x = np.array(row["data"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = bcs.fit(x, family=row["family"], lmbda="safe")
    assert r._lmbda_mle[0] == pytest.approx(row["paper_lambda"], rel=1e-3)  # the paper's
    # printed optimum, to its 4-5 digits
    lo, hi = r.conf_int().iloc[0]
    assert lo <= r.lmbda <= hi and abs(r.lmbda) < abs(r._lmbda_mle[0])
    y = r.transform(np.unique(x))
    assert np.all(np.isfinite(y)) and np.all(np.abs(y) <= 1e100) and np.all(np.diff(y) > 0)
    assert _round_trip_error(r, x) <= 1e-10


def test_tight_gaussian_safe_power_separates_all_hundred_values():
    """Figure 5's N(1e4, 1e-3) draws agree to 7 digits and some pairs to 11: the safe power
    holds the round trip within a quarter of the closest pair's gap, so all 100 stay apart."""
    x = mpref.tight_gaussian_case()
    u = np.unique(x)
    gap = np.min(np.diff(u) / u[1:])
    assert u.size == 100 and gap < 1e-10  # closer than the default 1e-10 tolerance
    r = bcs.fit(x, lmbda="safe")
    lo, hi = r.conf_int().iloc[0]
    assert lo <= r.lmbda <= hi
    y = r.transform(u)
    assert np.all(np.diff(y) > 0)  # NumPy on the output: 100 ordered distinct values
    assert _round_trip_error(r, u) <= gap / 4
