"""boxcoxstat.univariate.model (``fit_columns``): maximum-likelihood powers of validated
columns -- against scipy, column by column, ``family="auto"``'s choice, overflowing estimates
and ``ymax``, scale invariance, recovery of a known lambda, the published Darwin example."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import stats

import boxcoxstat as bcs
from boxcoxstat import TransformOverflowError


@pytest.mark.parametrize("family", ["boxcox", "yeojohnson"])
def test_agrees_with_scipy_on_ordinary_data(family):
    x = np.random.default_rng(3).lognormal(size=400)
    ref = stats.boxcox_normmax(x, method="mle") if family == "boxcox" else (
        stats.yeojohnson_normmax(x))
    assert bcs.fit(x, family=family).lmbda == pytest.approx(ref, abs=1e-6)


def test_dataframe_columns_match_separate_fits(frame):
    r = bcs.fit(frame)
    for name in frame:
        single = bcs.fit(frame[name])
        assert r.lmbda[name] == pytest.approx(single.lmbda, rel=1e-12)
        upper = single.conf_int().loc[name, "upper"]
        assert r.conf_int().loc[name, "upper"] == pytest.approx(upper, rel=1e-10)


def test_auto_family_explains_choice():
    rng = np.random.default_rng(5)
    df = pd.DataFrame({"pos": rng.lognormal(size=200), "mixed": rng.normal(size=200)})
    r = bcs.fit(df, family="auto")
    assert r.family["mixed"] == "yeojohnson"
    assert r.family["pos"] in ("boxcox", "yeojohnson")
    bc = bcs.fit(df["pos"], family="boxcox")
    yj = bcs.fit(df["pos"], family="yeojohnson")
    best = "boxcox" if bc.llf >= yj.llf else "yeojohnson"
    assert r.family["pos"] == best
    assert set(r._families) <= {"boxcox", "yeojohnson"}
    # a positive column where Yeo-Johnson has the larger likelihood is labelled so
    sym = rng.normal(10.0, 1.0, size=300)
    r2 = bcs.fit(pd.Series(sym, name="sym"), family="auto")
    yj2 = bcs.fit(sym, family="yeojohnson")
    assert r2.family == ("yeojohnson" if yj2.llf > bcs.fit(sym).llf else "boxcox")
    text = str(r.summary())
    assert "values <= 0" in text and "log-likelihood" in text


# --- adversarial data and overflow --------------------------------------------------------

def test_overflowing_mle_is_reported_and_transform_refuses():
    x = np.array([10.0, 10.0, 10.0, 9.9])
    with pytest.warns(bcs.ResolutionWarning, match=r"column 'x'.*2 overflow float64") as rec:
        r = bcs.fit(x)  # 10**357.55 is beyond float64: said at the fit, no other warning
    assert [w.category for w in rec] == [bcs.ResolutionWarning]
    assert r.lmbda == pytest.approx(357.55, abs=0.01)
    assert np.isfinite(r.llf) and np.isfinite(r.bse).all()
    with pytest.raises(TransformOverflowError, match=r"column 'x'.*ymax="):
        r.transform(x)


def test_ymax_bounds_lambda_and_summary_says_so():
    x = np.array([10.0, 10.0, 10.0, 9.9])
    r = bcs.fit(x, ymax=1e300)
    assert r.bound_active
    assert r.lmbda < 357.55
    y = r.transform(x)
    assert np.all(np.isfinite(y)) and np.max(np.abs(y)) <= 1e300 * (1 + 1e-9)
    assert np.max(np.abs(y)) == pytest.approx(1e300, rel=1e-9)
    assert "bound active" in str(r.summary())
    free = bcs.fit(x)
    assert r.llf < free.llf
    loose = bcs.fit(np.random.default_rng(0).lognormal(size=50), ymax=1e10)
    assert not loose.bound_active


@pytest.mark.parametrize("scale", [1e-200, 1e-5, 3.7, 1e150])
def test_boxcox_lambda_invariant_to_scale_extremes(scale):
    x = np.random.default_rng(9).lognormal(size=80)
    assert bcs.fit(x * scale).lmbda == pytest.approx(bcs.fit(x).lmbda, rel=1e-9, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    scale=st.floats(1e-6, 1e6),
)
def test_boxcox_lambda_invariant_to_rescaling(seed, scale):
    x = np.random.default_rng(seed).lognormal(sigma=0.8, size=30)
    assert bcs.fit(x * scale).lmbda == pytest.approx(bcs.fit(x).lmbda, rel=1e-8, abs=1e-10)


@settings(max_examples=30, deadline=None)
@given(true_lmbda=st.floats(-1.5, 2.5), seed=st.integers(0, 1000))
def test_recovers_known_lambda(true_lmbda, seed):
    rng = np.random.default_rng(seed)
    z = rng.normal(0.5, 0.1, size=4000)
    assume(np.all(1 + true_lmbda * z > 0.05))
    x = bcs.families.boxcox_inverse(z, true_lmbda)
    r = bcs.fit(x)
    lo, hi = r.conf_int(alpha=1e-4).iloc[0]
    assert lo < true_lmbda < hi


def test_yeojohnson_published_example():
    """Yeo & Johnson (2000) Darwin data: lambda-hat is about 1.305."""
    darwin = np.array([6.1, -8.4, 1.0, 2.0, 0.7, 2.9, 3.5, 5.1, 1.8, 3.6, 7.0, 3.0, 9.3, 7.5,
                       -6.0])
    assert bcs.fit(darwin, family="yeojohnson").lmbda == pytest.approx(1.305, abs=5e-4)


def _no_second_look(monkeypatch):
    """Make the fit's own range pass and NaN search fail loudly: the gate has both."""
    from boxcoxstat.core import estimate

    def refuse(*args, **kwargs):
        raise AssertionError("the fit passed over the data for their range again")

    monkeypatch.setattr(estimate, "data_range", refuse)


@pytest.mark.parametrize("family", ["boxcox", "yeojohnson", "auto"])
def test_fit_reads_float_data_once_without_a_copy(family, monkeypatch):
    """Issue 31: a read-only float64 array is fitted from a view of the caller's memory (no
    copy; a writeable one is copied, as the result keeps its data); the range is the gate's
    (no second pass: ``data_range`` refuses here) and ``nobs`` is the row count less the
    gate's missing count; the caller's array is unchanged, and the result cannot write to it."""
    _no_second_look(monkeypatch)
    x = np.random.default_rng(5).lognormal(size=300)
    x[[7, 100]] = np.nan
    x.flags.writeable = False
    before = x.copy()
    res = bcs.fit(x, family=family)
    assert np.shares_memory(res._source.data, x) and not res._source.data.flags.writeable
    assert np.array_equal(x, before, equal_nan=True)
    writeable = x.copy()
    assert not np.shares_memory(bcs.fit(writeable, family=family)._source.data, writeable)
    assert res.nobs == 298 and res.n_missing == 2
    # the extremes the result keeps are the present values' own (numpy's nanmin / nanmax)
    assert res._source.data_range.tolist() == [[np.nanmin(x), np.nanmax(x)]]
    monkeypatch.undo()
    unfused = bcs.fit(x[~np.isnan(x)], family=family)
    # the missing rows are padded with zero weight there: sums in another order (1e-12)
    assert res.lmbda == pytest.approx(unfused.lmbda, rel=1e-12)


def test_fixed_shift_and_fixed_power_take_the_gates_range(monkeypatch):
    """With a known shift the extremes are the gate's plus the shift, exactly those of
    ``x + gamma`` (rounding is monotone); a fixed power's likelihood needs no range pass
    either. Several columns, one with a missing value (the gate's slow path)."""
    _no_second_look(monkeypatch)
    rng = np.random.default_rng(6)
    x = np.column_stack([rng.lognormal(size=50), 0.1 + rng.exponential(size=50)])
    x[3, 1] = np.nan
    shifted = bcs.fit(x, family="boxcox", gamma=0.3)
    expected = np.column_stack([np.nanmin(x + 0.3, axis=0), np.nanmax(x + 0.3, axis=0)])
    assert np.array_equal(shifted._source.data_range, expected)
    assert shifted.nobs.tolist() == [50, 49]
    fixed = bcs.fit(x, family="boxcox", lmbda=0.5)
    assert np.array_equal(fixed._source.data_range,
                          np.column_stack([np.nanmin(x, axis=0), np.nanmax(x, axis=0)]))
    assert fixed.nobs.tolist() == [50, 49]
