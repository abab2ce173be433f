"""Tests for boxcoxstat.api.fit and the result object it returns."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import stats

import boxcoxstat as bcs
from boxcoxstat import BoxCoxError, TransformOverflowError


@pytest.fixture
def frame():
    rng = np.random.default_rng(42)
    return pd.DataFrame(
        {"a": rng.lognormal(size=120), "b": rng.gamma(2.0, size=120) + 0.1},
        index=pd.RangeIndex(100, 220, name="row"),
    )


@pytest.mark.parametrize("family", ["boxcox", "yeojohnson"])
def test_agrees_with_scipy_on_ordinary_data(family):
    x = np.random.default_rng(3).lognormal(size=400)
    ref = stats.boxcox_normmax(x, method="mle") if family == "boxcox" else (
        stats.yeojohnson_normmax(x))
    assert bcs.fit(x, family=family).lmbda == pytest.approx(ref, abs=1e-6)


def test_return_types_follow_the_input(frame):
    r1 = bcs.fit(frame["a"])
    # estimates follow the input's layout; params, bse and conf_int are always labelled
    assert isinstance(r1.lmbda, float) and isinstance(r1.bse, pd.Series)
    ci1 = r1.conf_int()
    assert list(ci1.columns) == ["lower", "upper"] and list(ci1.index) == ["a"]
    assert list(bcs.fit(frame["a"].to_numpy()).conf_int().index) == ["x"]
    r2 = bcs.fit(frame)
    assert isinstance(r2.lmbda, pd.Series) and list(r2.lmbda.index) == ["a", "b"]
    assert list(r2.conf_int().columns) == ["lower", "upper"]
    r3 = bcs.fit(frame.to_numpy())
    assert isinstance(r3.lmbda, np.ndarray) and r3.conf_int().shape == (2, 2)
    assert list(r3.bse.index) == ["x0", "x1"]
    r4 = bcs.fit(frame["a"].tolist())
    assert r4.lmbda == pytest.approx(r1.lmbda, rel=1e-14)
    np.testing.assert_allclose(r2.lmbda.to_numpy(), r3.lmbda, rtol=1e-14)
    assert isinstance(r2.params, pd.Series)


def test_dataframe_columns_match_separate_fits(frame):
    r = bcs.fit(frame)
    for name in frame:
        single = bcs.fit(frame[name])
        assert r.lmbda[name] == pytest.approx(single.lmbda, rel=1e-12)
        upper = single.conf_int().loc[name, "upper"]
        assert r.conf_int().loc[name, "upper"] == pytest.approx(upper, rel=1e-10)


def test_transform_round_trip_keeps_labels(frame):
    r = bcs.fit(frame)
    y = r.transform(frame)
    assert isinstance(y, pd.DataFrame) and y.index.equals(frame.index)
    assert list(y.columns) == ["a", "b"]
    back = r.inverse_transform(y)
    np.testing.assert_allclose(back.to_numpy(), frame.to_numpy(), rtol=1e-12)
    s = bcs.fit(frame["a"]).transform(frame["a"])
    assert isinstance(s, pd.Series) and s.name == "a" and s.index.equals(frame.index)


def test_transform_leaves_missing_values_missing():
    x = pd.Series([1.0, 2.0, np.nan, 4.0, 8.0])
    r = bcs.fit(x)
    y = r.transform(x)
    assert np.isnan(y.iloc[2]) and np.isfinite(y.drop(2)).all()


def test_caller_data_is_never_modified(frame):
    frame.iloc[3, 0] = np.nan
    before = frame.copy()
    arr = frame.to_numpy().copy()
    arr_before = arr.copy()
    r = bcs.fit(frame)
    r.transform(frame)
    bcs.fit(arr)
    pd.testing.assert_frame_equal(frame, before)
    np.testing.assert_array_equal(arr, arr_before)


def test_missing_drop_counts_and_raise_refuses():
    x = pd.Series([1.0, 2.5, np.nan, 4.0, None, 8.0, 3.0], dtype=float)
    r = bcs.fit(x)
    assert r.nobs == 5
    assert "missing" in str(r.summary())
    with pytest.raises(BoxCoxError, match="2 missing value"):
        bcs.fit(x, missing="raise")


def test_summary_reports_everything(frame):
    r = bcs.fit(frame)
    text = str(r.summary())
    for token in ("lambda", "std err", "[0.025", "0.975]", "rounded", "LR(l=0)", "LR(l=1)",
                  "llf", "boxcox", "a", "b"):
        assert token in text
    assert f"{r.lmbda['a']:.4f}" in text
    html = r.summary()._repr_html_()
    assert html.count("<table") == 3
    from html.parser import HTMLParser

    HTMLParser().feed(html)


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
    assert set(r.families) <= {"boxcox", "yeojohnson"}
    # a positive column where Yeo-Johnson has the larger likelihood is labelled so
    r2 = bcs.fit(pd.Series(rng.normal(10.0, 1.0, size=300), name="sym"), family="auto")
    yj2 = bcs.fit(r2.data[:, 0], family="yeojohnson")
    assert r2.family == ("yeojohnson" if yj2.llf > bcs.fit(r2.data[:, 0]).llf else "boxcox")
    text = str(r.summary())
    assert "values <= 0" in text and "log-likelihood" in text


def test_result_is_immutable(frame):
    r = bcs.fit(frame["a"])
    with pytest.raises(AttributeError):
        r.lmbda_used = np.array([1.0])


def test_json_round_trip(frame):
    r = bcs.fit(frame, family="yeojohnson")
    r2 = bcs.PowerTransformResult.from_json(r.to_json())
    pd.testing.assert_series_equal(r2.lmbda, r.lmbda)
    pd.testing.assert_frame_equal(r2.transform(frame), r.transform(frame))
    pd.testing.assert_frame_equal(r2.conf_int(), r.conf_int())
    assert str(r2.summary()) == str(r.summary())
    with pytest.raises(BoxCoxError, match="not available: the result holds no data"):
        r2.conf_int(alpha=0.1)
    json.loads(r.to_json())


# --- adversarial data and overflow --------------------------------------------------------

def test_overflowing_mle_is_reported_and_transform_refuses():
    x = np.array([10.0, 10.0, 10.0, 9.9])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = bcs.fit(x)
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


# --- bad input ------------------------------------------------------------------------------

@pytest.mark.parametrize(
    "data,kwargs,pattern",
    [
        ([1.0, 2.0, 0.0, -1.0, 5.0], {}, r"2 value\(s\) <= 0, first at row 2"),
        ([1.0, np.inf, 3.0, 4.0], {}, "infinite"),
        ([2.0, 2.0, 2.0, 2.0], {}, "constant"),
        ([1.0, 2.0], {}, "at least 3"),
        ([1.0, np.nan, np.nan, 3.0], {}, "at least 3"),
        (["a", "b", "c"], {}, "not numeric"),
        ([1.0, 2.0, 3.0], {"family": "logit"}, "unknown family"),
        ([1.0, 2.0, 3.0], {"method": "magic"}, "method"),
        ([1.0, 2.0, 3.0], {"missing": "ignore"}, "missing"),
        ([1.0, 1.0 + 1e-15, 1.0, 1.0 + 2e-15], {}, "12th significant digit"),
        ([1.0, 2.0, 3.0], {"ymax": -5.0}, "ymax"),
    ],
)
def test_bad_input_raises_package_error(data, kwargs, pattern):
    with pytest.raises(BoxCoxError, match=pattern):
        bcs.fit(data, **kwargs)


def test_bad_input_names_column_and_row_label():
    df = pd.DataFrame({"ok": [1.0, 2.0, 3.0, 4.0], "bad": [1.0, 2.0, -3.0, 4.0]},
                      index=["w", "x", "y", "z"])
    with pytest.raises(BoxCoxError, match=r"column 'bad'.*first at row 'y'"):
        bcs.fit(df)
    df2 = pd.DataFrame({"num": [1.0, 2.0, 3.0], "txt": ["a", "b", "c"]})
    with pytest.raises(BoxCoxError, match="column 'txt' is not numeric"):
        bcs.fit(df2)


def test_package_error_is_a_valueerror():
    assert issubclass(BoxCoxError, ValueError)
    assert issubclass(TransformOverflowError, BoxCoxError)


@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(
        st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.just(0.0)),
        min_size=0, max_size=8,
    ),
    family=st.sampled_from(["boxcox", "yeojohnson"]),
)
def test_any_input_gives_finite_numbers_or_package_error(values, family):
    try:
        r = bcs.fit(values, family=family)
    except BoxCoxError:
        return
    assert np.isfinite(r.lmbda) and np.isfinite(r.llf)
    lo, hi = r.conf_int().iloc[0]
    assert np.isfinite(lo) and np.isfinite(hi)


def test_unknown_column_and_wrong_shapes(frame):
    r = bcs.fit(frame)
    with pytest.raises(BoxCoxError, match="pass column="):
        r.profile()
    with pytest.raises(BoxCoxError, match="unknown column"):
        r.profile("zzz")
    with pytest.raises(BoxCoxError, match="lack column"):
        r.transform(frame[["a"]])
    with pytest.raises(BoxCoxError, match="interval"):
        r.conf_int(interval="bootstrap")
    with pytest.raises(BoxCoxError, match="alpha"):
        r.conf_int(alpha=1.5)


def test_pandas_nullable_and_object_columns():
    s = pd.Series([1, 2, None, 4, 7], dtype="Int64", name="n")
    r = bcs.fit(s)
    assert r.nobs == 4
    assert r.lmbda == pytest.approx(bcs.fit([1.0, 2.0, 4.0, 7.0]).lmbda, rel=1e-14)
    obj = pd.Series([1.0, 2, None, 4.5, 3], dtype=object)
    assert bcs.fit(obj).nobs == 4
    with pytest.raises(BoxCoxError, match="categorical"):
        bcs.fit(pd.Series(pd.Categorical([1, 2, 3, 4])))
    with pytest.raises(BoxCoxError, match="duplicate column names"):
        bcs.fit(pd.DataFrame([[1.0, 2.0], [2.0, 3.0], [3.0, 5.0]], columns=["a", "a"]))


def test_transform_input_is_checked_like_fit_input(frame):
    r = bcs.fit(frame)
    nullable = frame.astype("Float64")
    nullable.iloc[0, 0] = pd.NA
    y = r.transform(nullable)
    assert np.isnan(y.iloc[0, 0]) and np.isfinite(y.iloc[1:, 0]).all()
    with pytest.raises(BoxCoxError, match="column 'a' is not numeric"):
        r.transform(frame.assign(a="text"))
    with pytest.raises(BoxCoxError, match="1-D data given, but the result has 2 columns"):
        r.transform(frame["a"])


def test_fit_at_a_fixed_power_evaluates_the_likelihood_there():
    """fit(x, lmbda=0): no estimation; llf is the normal log-likelihood of log x at its ML
    variance plus the Jacobian -sum(log x) (written out here; 1e-12 relative: the same sum
    in another order)."""
    x = np.random.default_rng(4).lognormal(1.0, 0.5, 300)
    r = bcs.fit(x, lmbda=0)
    z = np.log(x)
    n = x.size
    want = -n / 2 * (np.log(2 * np.pi * z.var()) + 1) - z.sum()
    assert r.fixed and r.lmbda == 0.0 and r.llf == pytest.approx(want, rel=1e-12)
    np.testing.assert_allclose(r.transform(x), z, rtol=1e-15)
    for what, call in (("bse", lambda: r.bse), ("conf_int", r.conf_int),
                       ("test", lambda: r.test(1)), ("rounded", lambda: r.rounded),
                       ("at\\('rounded'\\)", lambda: r.at("rounded"))):
        with pytest.raises(bcs.BoxCoxError, match=f"PowerTransformResult.{what} is not "
                                                  "available: the power was fixed at 0"):
            call()
    text = str(r.summary())
    assert "fixed power" in text and "not estimated" in text
    back = bcs.PowerTransformResult.from_json(r.to_json())
    assert back.fixed and str(back.summary()) == text
    assert r.profile()["llf"].max() >= r.llf  # the profile is still there to look at


def test_fixed_powers_by_column_and_refusals():
    cars = bcs.datasets.load("topgear")[["MPG", "Weight"]]
    r = bcs.fit(cars, lmbda=pd.Series({"Weight": 1.0, "MPG": 0.0}))
    assert list(r.lmbda) == [0.0, 1.0]
    est = bcs.fit(cars)
    np.testing.assert_allclose(est.at([0.0, 1.0]).llf, r.llf, rtol=1e-13)
    np.testing.assert_allclose(est.at("rounded").lmbda, est.rounded)
    with pytest.raises(bcs.BoxCoxError, match="lmbda has no value for column"):
        bcs.fit(cars, lmbda=pd.Series({"MPG": 0.0}))
    with pytest.raises(bcs.BoxCoxError, match="lmbda must be a number or 2 numbers"):
        bcs.fit(cars, lmbda=[0.0, 1.0, 2.0])
    for bad in ({"family": "auto"}, {"ymax": 1e300}, {"method": "rewml"}):
        with pytest.raises(bcs.BoxCoxError, match="lmbda= fixes the power"):
            bcs.fit(cars["MPG"], lmbda=0, **bad)
    with pytest.raises(bcs.BoxCoxError, match="strictly positive"):
        bcs.fit([1.0, -2.0, 3.0], lmbda=0)
