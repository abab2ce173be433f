"""Regression tests of the hardening issue ("every entry point refuses bad input clearly,
nothing hangs"), one per reported example, for the core entry points: ``bcs.fit``, the fit
result's methods, ``from_json``, ``core.likelihood`` and the families' transforms.

Each bad input must raise :class:`~boxcoxstat.BoxCoxError` with a message naming the problem
(the column, the row, the option) and what to do; nothing else may escape, and the caller's
object is never modified. Reference values for the tiny-scale Yeo-Johnson fits come from
``tests/mpref.py`` (mpmath at 60 digits), those for the 2-D likelihood from SciPy.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import boxcoxstat as bcs
from boxcoxstat import BoxCoxError, families
from boxcoxstat.core import likelihood
from boxcoxstat.core.sample import Sample
from boxcoxstat.univariate.results import PowerTransformResult
from tests.mpref import exact_lambda

X = np.random.default_rng(0).lognormal(size=50)


# ----------------------------------------------------------------------------- bcs.fit
def test_tiny_ymax_is_refused_not_nan_gh_hardening():
    """fit(x, ymax=1e-300) returned lambda NaN; no lambda keeps both ends within 1e-300."""
    with pytest.raises(BoxCoxError, match="no lambda keeps every transformed value"):
        bcs.fit(X, ymax=1e-300)
    with pytest.raises(BoxCoxError, match="ymax = 1e-300 is too small for column 'x'"):
        bcs.fit(X + 1.0, ymax=1e-300)  # one-sided bound at -1e300: beyond the core's range


@pytest.mark.parametrize("bad", ["1e10", [1e10], float("nan"), -1.0, 0.0, True, np.inf])
def test_ymax_of_the_wrong_type_or_value_is_named(bad):
    with pytest.raises(BoxCoxError, match="ymax must be a positive"):
        bcs.fit(X, ymax=bad)


def test_datetime_and_duration_columns_are_refused_by_dtype_gh_hardening():
    """A datetime Series was fitted as nanoseconds (lambda 0.72)."""
    when = pd.Series(pd.Timestamp("2020-01-01") + pd.to_timedelta(X, "D"), name="when")
    with pytest.raises(BoxCoxError, match="column 'when' is not numeric: it holds dates"):
        bcs.fit(when)
    with pytest.raises(BoxCoxError, match="dates/times"):
        bcs.fit(when.dt.tz_localize("UTC"))
    with pytest.raises(BoxCoxError, match="dates/times"):
        bcs.fit(when.to_numpy())
    with pytest.raises(BoxCoxError, match=r"durations \(timedelta64\).*np.timedelta64"):
        bcs.fit(pd.to_timedelta(X, "D").to_numpy())
    with pytest.raises(BoxCoxError, match="column 'x' is not numeric: it holds text"):
        bcs.fit(np.array(["1.5", "2.5", "3.5"]))


def test_booleans_are_refused_for_fitting():
    """An indicator has two values: no power is determined (decided in the issue)."""
    with pytest.raises(BoxCoxError, match="column 'b' is not numeric: it holds booleans"):
        bcs.fit(pd.DataFrame({"a": X[:10], "b": X[:10] > 1}), family="yeojohnson")
    with pytest.raises(BoxCoxError, match="booleans"):
        bcs.fit(np.array([True, False, True, True]), family="yeojohnson")


def test_masked_array_honours_its_mask_gh_hardening():
    """A masked array's mask was ignored; masked entries are missing values."""
    data = np.r_[X, 1e6, -5.0]
    masked = np.ma.masked_array(data, mask=[False] * 50 + [True, True])
    before = masked.copy()
    r = bcs.fit(masked)
    # the same 50 values in the same order: the same arithmetic, to the last bits
    assert r.lmbda == pytest.approx(bcs.fit(X).lmbda, rel=1e-14, abs=1e-14)
    assert int(r.n_missing[0]) == 2 and r.nobs == 50
    assert np.array_equal(masked.mask, before.mask) and np.array_equal(masked.data, before.data)
    two = np.ma.masked_array(np.c_[X, X + 1], mask=np.zeros((50, 2), bool))
    two[3, 1] = np.ma.masked
    assert list(bcs.fit(two).n_missing) == [0, 1]


@pytest.mark.parametrize("family", ["boxcox", "yeojohnson", "auto"])
def test_no_columns_or_no_rows_are_refused_gh_hardening(family):
    """fit(np.empty((5, 0))) returned an empty result (Yeo-Johnson: IndexError)."""
    with pytest.raises(BoxCoxError, match=r"no columns \(shape \(5, 0\)\)"):
        bcs.fit(np.empty((5, 0)), family=family)
    with pytest.raises(BoxCoxError, match="no rows"):
        bcs.fit(np.empty((0, 2)), family=family)
    with pytest.raises(BoxCoxError, match="no columns"):
        bcs.fit(pd.DataFrame(index=range(4)), family=family)


def test_integers_beyond_float64_are_refused_gh_hardening():
    """fit([10**400, 1, 2, 3]) raised OverflowError."""
    with pytest.raises(BoxCoxError, match="row 0 holds an integer beyond the float64 range"):
        bcs.fit([10**400, 1, 2, 3])


def test_ragged_lists_are_refused_gh_hardening():
    """A ragged list gave NumPy's message."""
    with pytest.raises(BoxCoxError, match="different lengths"):
        bcs.fit([[1.0, 2.0], [3.0]])


@pytest.mark.parametrize("kwargs,pattern", [
    ({"family": 3}, "family must be a string"),
    ({"family": ["boxcox"]}, "family must be a string"),
    ({"method": None}, "method=None is not valid; use one of .mle."),
    ({"missing": np.array(["drop"])}, "missing="),
    ({"gamma": "1"}, "gamma must be a finite number"),
    ({"gamma": float("nan")}, "gamma must be a finite"),
    ({"gamma_min": -1.0, "family": "bcnpower"}, "gamma_min must be a positive"),
    ({"lmbda": "0"}, "lmbda must be a number"),
    ({"lmbda": float("nan")}, "lmbda must be finite"),
    ({"lmbda": 1e200}, "beyond 1e"),
])
def test_options_of_the_wrong_type_are_named(kwargs, pattern):
    with pytest.raises(BoxCoxError, match=pattern):
        bcs.fit(X, **kwargs)


def test_the_callers_data_are_never_modified():
    frame = pd.DataFrame({"a": X[:20].copy(), "b": -X[:20].copy()})
    frame.iloc[2, 0] = np.nan
    before = frame.copy()
    r = bcs.fit(frame, family="yeojohnson")
    r.transform(frame)
    r.inverse_transform(r.transform(frame))
    pd.testing.assert_frame_equal(frame, before)


# ----------------------------------------------------------------------------- result methods
def test_result_options_of_the_wrong_type_are_named_gh_hardening():
    """r.test([0, 1]) was a broadcast error and r.conf_int("0.05") a TypeError."""
    r = bcs.fit(X)
    with pytest.raises(BoxCoxError, match=r"lmbda0 must be a number or 1 numbers"):
        r.test([0, 1])
    with pytest.raises(BoxCoxError, match="lmbda0 must be a number"):
        r.test("0")
    with pytest.raises(BoxCoxError, match="lmbda0 must be finite"):
        r.test(np.nan)
    with pytest.raises(BoxCoxError, match="beyond 1e"):
        r.test(1e300)  # the likelihood's moments would leave float64
    with pytest.raises(BoxCoxError, match="alpha must be a number"):
        r.conf_int("0.05")
    for alpha in (np.nan, 0.0, 1.0, 5e-324):
        with pytest.raises(BoxCoxError, match="alpha must lie strictly between"):
            r.conf_int(alpha)
    with pytest.raises(BoxCoxError, match="interval="):
        r.conf_int(interval=["wald"])
    with pytest.raises(BoxCoxError, match="lmbda must be an array of numbers"):
        r.profile(lmbda=["a"])
    with pytest.raises(BoxCoxError, match="lmbda must be finite"):
        r.profile(lmbda=[0.0, np.inf])
    with pytest.raises(BoxCoxError, match="lmbda must be a number"):
        r.at(True)


def test_profile_and_test_far_from_the_optimum_stay_finite():
    """|lambda| up to 1e100 is evaluated exactly (the log-domain NLL grows like |lambda|)."""
    r = bcs.fit(X)
    far = r.profile(lmbda=[-1e100, 1e20, 1e100])
    assert np.all(np.isfinite(far["llf"])) and np.all(far["llf"] < r.llf)
    assert np.isfinite(r.test(1e100).statistic)


# ----------------------------------------------------------------------------- from_json
def _document() -> dict:
    return json.loads(bcs.fit(pd.DataFrame({"a": X, "b": X + 1})).to_json())


@pytest.mark.parametrize("mutate,pattern", [
    (lambda d: "[]", "expected an object"),
    (lambda d: {k: v for k, v in d.items() if k != "lmbda_used"}, "'lmbda_used' is missing"),
    (lambda d: json.dumps(d)[:200], "not a valid PowerTransformResult JSON document"),
    (lambda d: {**d, "names": ["a"]}, "has 2 entries but 'names' has 1"),
    (lambda d: {**d, "lmbda_used": [0.5]}, "has 1 entries but 'names' has 2"),
    (lambda d: {**d, "families": ["boxcox", "logit"]}, "field 'families'"),
    (lambda d: {**d, "lmbda_mle": [None, 1.0]}, "field 'lmbda_mle': expected finite"),
    (lambda d: {**d, "stored": None}, "field 'stored'"),
    (lambda d: {**d, "lmbda_used": [0.1, 0.2]}, "no bound"),
    (lambda d: {**d, "federated": {}}, "'clients' and 'rounds'"),
])
def test_from_json_refuses_broken_documents_by_name_gh_hardening(mutate, pattern):
    """'[]', a missing field, a truncated document, lengths that disagree and an unknown family
    were accepted or raised raw errors (then summary() failed)."""
    doc = mutate(_document())
    with pytest.raises(BoxCoxError, match=pattern):
        PowerTransformResult.from_json(doc if isinstance(doc, (dict, str)) else json.dumps(doc))


# ----------------------------------------------------------------------------- likelihood
def test_nll_of_two_columns_is_one_value_per_column_gh_hardening():
    """nll pooled both columns of a 2-D array into one number; SciPy gives one per column."""
    x = np.random.default_rng(3).lognormal(size=(30, 2))
    for lam in (0.0, 0.7):
        # SciPy's llf has the same constants dropped; 1e-12: two summation orders of 30 logs
        np.testing.assert_allclose(likelihood.nll(x, lam), -stats.boxcox_llf(lam, x),
                                   rtol=1e-12)
    per_column = likelihood.nll(x, [0.0, 0.7])
    np.testing.assert_allclose(per_column, [likelihood.nll(x[:, 0], 0.0),
                                            likelihood.nll(x[:, 1], 0.7)], rtol=1e-12)
    assert likelihood.score(x, 0.3).shape == (2,)
    with pytest.raises(BoxCoxError, match="with 2 columns, lmbda must be one number or 2"):
        likelihood.nll(x, [0.0, 0.5, 1.0])
    with pytest.raises(BoxCoxError, match="lmbda must be finite"):
        likelihood.nll(x[:, 0], np.nan)
    with pytest.raises(BoxCoxError, match="missing value"):
        likelihood.nll([1.0, np.nan, 2.0, 3.0], 0.5)


def test_log_ratios_of_column_selections_keep_their_far_values():
    """A column selection (``x[:, idx]``, not C-contiguous) lost the log fix-up of values
    below half the reference (v = -inf for 1e-300; found by the hypothesis suite)."""
    d = np.random.default_rng(0).lognormal(size=(3, 2))
    d[0, 0] = 1e-300
    sel = d[:, np.arange(2)]
    assert not sel.flags["C_CONTIGUOUS"]
    # 1e-15: the same log per value, but strided and contiguous loops may use different SIMD
    # kernels (last-bit differences); the bug gave -inf
    np.testing.assert_allclose(Sample.from_array(sel, "boxcox").pos.v,
                               Sample.from_array(d, "boxcox").pos.v, rtol=1e-15)
    assert np.isfinite(bcs.fit(d, lmbda=0.0).llf).all()


# ----------------------------------------------------------------------------- families
@pytest.mark.parametrize("family", ["boxcox", "yeojohnson"])
def test_families_pass_nan_through_like_result_transform_gh_hardening(family):
    """families.yeojohnson refused NaN while result.transform passed it through."""
    x = np.array([0.5, np.nan, 2.0])
    y = families.transform(x, 0.3, family)
    np.testing.assert_array_equal(np.isnan(y), [False, True, False])
    r = bcs.fit(X, family=family)
    np.testing.assert_array_equal(np.isnan(r.transform(x)), np.isnan(y))
    back = families.inverse_transform(y, 0.3, family)
    np.testing.assert_array_equal(np.isnan(back), [False, True, False])
    # round trip of the finite values; 1e-14: a few roundings of exp/log1p
    np.testing.assert_allclose(back[[0, 2]], x[[0, 2]], rtol=1e-14)
    with pytest.raises(BoxCoxError, match="lmbda must be finite"):
        families.transform(x, np.nan, family)
    for lam in (0.0, 0.3, 2.0):
        with pytest.raises(BoxCoxError, match="infinite"):
            families.transform([1.0, np.inf], lam, family)
        with pytest.raises(BoxCoxError, match="infinite"):
            families.inverse_transform([np.inf, 0.5], lam, family)
    with pytest.raises(BoxCoxError, match="does not broadcast"):
        families.transform(np.ones((4, 2)), [0.1, 0.2, 0.3], family)
    with pytest.raises(BoxCoxError, match="real numbers"):
        families.transform(["a"], 0.3, family)


# ----------------------------------------------------------------------------- tiny scales
def test_yeojohnson_on_data_scaled_by_1e32_is_fitted_gh_hardening():
    """Yeo-Johnson on data scaled by 1e-32 was refused ("float64 cannot determine lambda")
    though the optimum is well defined; the reference is mpmath at 60 digits."""
    x = X * 1e-32
    r = bcs.fit(x, family="yeojohnson")
    want = float(exact_lambda(x, "yeojohnson"))
    assert want == pytest.approx(-5.3320930938292e31, rel=1e-12)
    # 1e-11: the solver's tolerance (1e-12 relative) plus the log1p of values near 1e-32
    assert r.lmbda == pytest.approx(want, rel=1e-11)
    assert r.converged
    lo, hi = r.conf_int().iloc[0]
    assert np.isfinite(lo) and np.isfinite(hi) and lo < r.lmbda < hi
    assert np.all(np.isfinite(r.transform(x)))


@pytest.mark.slow
@pytest.mark.parametrize("scale", [1e-60, -1e-32])
def test_yeojohnson_on_tiny_scales_matches_mpmath(scale):
    """Further down (1e-60) and on the negative side (lambda = 2 - ...)."""
    x = X * scale
    want = float(exact_lambda(x, "yeojohnson"))
    # 1e-11 as above
    assert bcs.fit(x, family="yeojohnson").lmbda == pytest.approx(want, rel=1e-11)


@pytest.mark.parametrize("scale", [1e-150, -1e-150, 1e-300])
def test_yeojohnson_at_1e_minus_150_and_300_is_computed_not_refused(scale):
    """Data scaled by 1e-150 were refused ("float64 cannot determine lambda") though the
    optimum (about 5e149) is representable: the likelihood now measures lengths in a unit of
    the data's size (``Sample.unit``) and the solver and inference work in lambda times that
    unit (``RescaledProfile``), where the score and curvature (1e-300 and 1e-600 in lambda)
    are of order one. The reference is mpmath at 60 digits."""
    x = X * scale
    r = bcs.fit(x, family="yeojohnson")
    want = float(exact_lambda(x, "yeojohnson"))
    assert abs(want) > 1e148
    # 1e-11 as above (the solver's 1e-12 relative tolerance and log1p's rounding)
    assert r.lmbda == pytest.approx(want, rel=1e-11)
    assert r.converged
    # the interval and SE scale with 1/scale: those of the data at 1e-32, rescaled; 1e-9:
    # both are solved to about 1e-10 relative (Newton on the score, Richardson curvature)
    ref = bcs.fit(X * np.sign(scale) * 1e-32, family="yeojohnson")
    ratio = 1e-32 / abs(scale)
    assert r.bse.iloc[0] == pytest.approx(ref.bse.iloc[0] * ratio, rel=1e-9)
    assert r.conf_int().to_numpy() == pytest.approx(ref.conf_int().to_numpy() * ratio,
                                                    rel=1e-9)
    # the LR statistics are the same numbers; 1e-9: NLL differences of about n, each NLL
    # carrying n log(unit) (up to 690 n) of rounding
    assert r.test(0).statistic == pytest.approx(ref.test(0).statistic, rel=1e-9)
    if abs(scale) == 1e-150:  # a user's lambda0 may not pass 1e150 (LAMBDA_MAX)
        assert r.test(ref.lmbda * ratio * 0.9).statistic == pytest.approx(
            ref.test(ref.lmbda * 0.9).statistic, rel=1e-9)
    assert np.all(np.isfinite(r.transform(x)))
    assert "e+" in str(r.summary())  # the rounded power in exponent form, not 300 digits


def test_yeojohnson_below_the_representable_range_is_refused_by_name():
    """At a range below 1e-300 lambda would pass 1e300, near the end of float64."""
    with pytest.raises(BoxCoxError, match="span less than 1e-300.*rescale the data"):
        bcs.fit(X * 1e-305, family="yeojohnson")
    # Box-Cox is scale invariant: the same data have the same lambda; 1e-9: the log-ratios
    # of the rescaled values agree to rounding, the solver's tolerance is 1e-12 relative
    assert bcs.fit(X * 1e-150).lmbda == pytest.approx(bcs.fit(X).lmbda, rel=1e-9)


def test_plots_check_their_arguments_before_drawing():
    """A wrong ax failed inside matplotlib ('int' object has no attribute 'plot')."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    r = bcs.fit(X)
    with pytest.raises(BoxCoxError, match="ax must be a matplotlib Axes"):
        r.plot_profile(ax=3)
    fig, one = plt.subplots()
    with pytest.raises(BoxCoxError, match="ax must be 2 matplotlib Axes"):
        r.qqplot(ax=one)
    with pytest.raises(BoxCoxError, match="unknown column"):
        r.plot_profile(column="y")
    with pytest.raises(BoxCoxError, match="alpha must be a number"):
        r.plot_profile(alpha="0.05")
    assert r.plot_profile(ax=one) is one
    plt.close("all")


def _mutations(doc: dict):
    """Every list field one entry short or one too long, every string field an unknown value."""
    for name, value in doc.items():
        if name in ("format", "version"):
            continue
        if isinstance(value, list) and value:
            yield name, {**doc, name: value[:-1]}
            yield name, {**doc, name: value + value[-1:]}
        elif isinstance(value, str):
            yield name, {**doc, name: "logit"}


@pytest.mark.parametrize("which", sorted(__import__("tests.test_conformance",
                                                    fromlist=["RESULTS"]).RESULTS))
def test_every_result_class_refuses_lengths_and_values_by_name_gh_hardening(which):
    """For every result class: names and lambdas of different lengths and unknown families
    (any string field) are refused with BoxCoxError naming the field, or give a result whose
    report works; never an error in summary() after a successful load."""
    from tests.test_conformance import RESULTS

    result = RESULTS[which]()
    cls = type(result)
    for name, doc in _mutations(json.loads(result.to_json())):
        try:
            back = cls.from_json(doc)
        except BoxCoxError as err:
            assert "JSON" in str(err), (name, err)
            continue
        assert len(str(back.summary())) > 40, name
