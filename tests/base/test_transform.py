"""boxcoxstat.base.transform (``ColumnTransforms``): estimates shaped like the input, column
lookup, null values for tests, and transforming new data with the fitted powers -- labels and
layout kept, columns matched by name, missing values kept, input checked as fit's input is.

The first tests go through ``bcs.fit``; the rest build a ``ColumnTransforms`` directly and
check it against the transforms written out in mpmath (``_bc``, ``_yj``).
"""

from __future__ import annotations

import re

import mpmath as mp
import numpy as np
import pandas as pd
import pytest

import boxcoxstat as bcs
from boxcoxstat import BoxCoxError
from boxcoxstat.base.transform import ColumnTransforms


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


# --- ColumnTransforms built directly ------------------------------------------------------

def _ct(layout="frame", names=("a", "b"), families=("boxcox", "yeojohnson"),
        lmbda=(0.5, 1.5)):
    return ColumnTransforms(names=tuple(names), _layout=layout, _families=tuple(families),
                            _lmbda_used=np.array(lmbda, dtype=np.float64))


def _bc(x, lam):
    """Box-Cox written out: (x**lam - 1) / lam, log x at 0 (mpmath, 30 digits)."""
    with mp.workdps(30):
        x, lam = mp.mpf(float(x)), mp.mpf(float(lam))
        return float(mp.log(x) if lam == 0 else (x**lam - 1) / lam)


def _yj(x, lam):
    """Yeo-Johnson written out (mpmath, 30 digits)."""
    with mp.workdps(30):
        x, lam = mp.mpf(float(x)), mp.mpf(float(lam))
        if x >= 0:
            return float(mp.log1p(x) if lam == 0 else ((1 + x) ** lam - 1) / lam)
        return float(-mp.log1p(-x) if lam == 2 else -((1 - x) ** (2 - lam) - 1) / (2 - lam))


def _expected(ct, x):
    """The transform of each column of ``x`` (NaN stays NaN), from the written-out formulas."""
    out = np.full(x.shape, np.nan)
    for j, (fam, lam) in enumerate(zip(ct._families, ct._lmbda_used, strict=True)):
        f = _bc if fam == "boxcox" else _yj
        for i in np.flatnonzero(~np.isnan(x[:, j])):
            out[i, j] = f(x[i, j], lam)
    return out


# a pow and an expm1 in float64 against 30 digits: a few ulps; 1e-13 relative allowed
RTOL = 1e-13


@pytest.mark.parametrize(
    ("layout", "names", "kind"),
    [("series", ("s",), float), ("array1d", ("x",), float), ("frame", ("a", "b"), pd.Series),
     ("array2d", ("x0", "x1"), np.ndarray)],
)
def test_estimates_are_shaped_like_the_input(layout, names, kind):
    lam = [0.25, -1.5][: len(names)]
    fams = ["boxcox", "yeojohnson"][: len(names)]
    ct = _ct(layout, names, fams, lam)
    assert type(ct.lmbda) is kind
    if kind is float:
        assert ct.lmbda == 0.25 and ct.family == "boxcox"
    elif kind is pd.Series:
        pd.testing.assert_series_equal(ct.lmbda, pd.Series(lam, index=list(names), name="lmbda"))
        pd.testing.assert_series_equal(
            ct.family, pd.Series(np.array(fams, dtype=object), index=list(names), name="family"))
        assert ct._shape(np.array([1, 2])).name is None  # no name given: an unnamed Series
    else:
        np.testing.assert_array_equal(ct.lmbda, lam)
        ct.lmbda[0] = 99.0  # a copy: the result cannot be changed through it
        assert ct._lmbda_used[0] == 0.25
    # params is labelled whatever the layout
    pd.testing.assert_series_equal(ct.params, pd.Series(lam, index=list(names), name="lmbda"))


def test_column_index_by_name_position_or_none():
    ct = _ct()
    assert ct._column_index("a") == 0 and ct._column_index("b") == 1
    assert ct._column_index(1) == 1 and ct._column_index(np.int64(0)) == 0
    assert _ct("series", ("s",), ("boxcox",), (0.5,))._column_index(None) == 0
    with pytest.raises(BoxCoxError, match=re.escape("the result has 2 columns; pass column= "
                                                    "one of ['a', 'b']")):
        ct._column_index(None)
    for bad in (2, -1):
        with pytest.raises(BoxCoxError, match=f"column index {bad} is out of range"):
            ct._column_index(bad)
    with pytest.raises(BoxCoxError, match=re.escape("unknown column 'zz'; the result has "
                                                    "['a', 'b']")):
        ct._column_index("zz")
    with pytest.raises(BoxCoxError, match="unknown column True"):  # a bool is not a position
        ct._column_index(True)


def test_null_values_one_per_column():
    ct = _ct()
    np.testing.assert_array_equal(ct._null_values(0.3), [0.3, 0.3])
    np.testing.assert_array_equal(ct._null_values([1, -2]), [1.0, -2.0])
    np.testing.assert_array_equal(ct._null_values(np.array([0.0, 1.0])), [0.0, 1.0])
    # a Series is matched by name (order and extra entries do not matter)
    s = pd.Series({"zz": 9.0, "b": 2.0, "a": 1.0})
    np.testing.assert_array_equal(ct._null_values(s), [1.0, 2.0])
    with pytest.raises(BoxCoxError, match=re.escape("lmbda0 has no value for column(s) ['b']")):
        ct._null_values(pd.Series({"a": 1.0}))
    with pytest.raises(BoxCoxError, match=re.escape("lmbda0 must be a number or 2 numbers "
                                                    "(one per column ['a', 'b']), got shape "
                                                    "(3,)")):
        ct._null_values([0.0, 1.0, 2.0])
    for bad in (np.nan, [0.0, np.nan], [np.inf, 1.0]):
        with pytest.raises(BoxCoxError, match="lmbda0 must be finite"):
            ct._null_values(bad)
    for bad in ("abc", ["a", "b"]):
        with pytest.raises(BoxCoxError, match="lmbda0 must be a number or 2 numbers, got"):
            ct._null_values(bad)


def test_dataframe_columns_are_matched_by_name():
    ct = _ct()
    df = pd.DataFrame({"a": [0.5, 2.0, 7.5, 1.2], "b": [-3.0, 0.0, 0.4, 6.0]},
                      index=["p", "q", "r", "s"])
    in_order = ct.transform(df)
    shuffled = ct.transform(df[["b", "a"]].assign(extra=1.0))
    assert list(shuffled.columns) == ["a", "b"] and shuffled.index.equals(df.index)
    pd.testing.assert_frame_equal(shuffled, in_order)
    np.testing.assert_allclose(in_order.to_numpy(), _expected(ct, df.to_numpy()), rtol=RTOL)
    with pytest.raises(BoxCoxError, match=re.escape("the data lack column(s) ['b']")):
        ct.transform(df[["a"]])


def test_one_dimensional_input_for_two_columns_is_refused():
    ct = _ct()
    msg = re.escape("1-D data given, but the result has 2 columns ['a', 'b']")
    for bad in ([1.0, 2.0], np.array([1.0, 2.0, 3.0]), pd.Series([1.0, 2.0], name="a")):
        with pytest.raises(BoxCoxError, match=msg):
            ct.transform(bad)
        with pytest.raises(BoxCoxError, match=msg):
            ct.inverse_transform(bad)
    with pytest.raises(BoxCoxError, match=re.escape("3 column(s) given, but the result has 2 "
                                                    "columns ['a', 'b']")):
        ct.transform(np.ones((4, 3)))


def test_boxcox_values_le_0_are_refused_naming_column_and_row():
    ct = _ct()
    df = pd.DataFrame({"a": [1.0, 2.0, -0.5, 0.0], "b": [-1.0, -2.0, 3.0, 4.0]},
                      index=["p", "q", "r", "s"])
    with pytest.raises(BoxCoxError, match=r"column 'a' has 2 value\(s\) <= 0, first at row 'r'"):
        ct.transform(df)
    x = np.array([[1.0, -1.0], [0.0, 2.0]])  # zero is refused too; rows are positions
    with pytest.raises(BoxCoxError, match=r"column 'a' has 1 value\(s\) <= 0, first at row 1"):
        ct.transform(x)
    # the Yeo-Johnson column takes any finite value
    ok = ct.transform(df.assign(a=[1.0, 2.0, 3.0, 4.0]))
    np.testing.assert_allclose(ok["b"], [_yj(v, 1.5) for v in df["b"]], rtol=RTOL)


def test_missing_values_stay_missing_in_both_directions():
    ct = _ct("array2d", ("x0", "x1"), ("boxcox", "yeojohnson"), (-0.7, 0.0))
    x = np.array([[0.5, np.nan], [np.nan, -1.5], [3.0, 2.0], [1.7, 0.0]])
    y = ct.transform(x)
    assert isinstance(y, np.ndarray) and y.shape == x.shape
    np.testing.assert_array_equal(np.isnan(y), np.isnan(x))
    np.testing.assert_allclose(y, _expected(ct, x), rtol=RTOL, equal_nan=True)
    back = ct.inverse_transform(y)
    np.testing.assert_array_equal(np.isnan(back), np.isnan(x))
    # the inverse of a float64 transform: a few ulps of the value, 1e-12 relative allowed
    np.testing.assert_allclose(back, x, rtol=1e-12, equal_nan=True)
    one = _ct("series", ("s",), ("boxcox",), (2.0,))
    s = pd.Series([4.0, np.nan, 0.25], index=[10, 11, 12], name="s")
    ys = one.transform(s)
    assert isinstance(ys, pd.Series) and ys.name == "s" and ys.index.equals(s.index)
    assert np.isnan(ys[11])
    np.testing.assert_allclose(ys[[10, 12]], [_bc(4.0, 2.0), _bc(0.25, 2.0)], rtol=RTOL)


# --- layouts of other libraries, values without an inverse ---------------------------------

X_LOG = np.random.default_rng(4).lognormal(size=(60, 2))


def test_polars_in_polars_out_in_fit_transform_and_inverse():
    import polars as pl
    df = pl.DataFrame({"a": X_LOG[:, 0], "b": X_LOG[:, 1]})
    r = bcs.fit(df)
    assert list(r.lmbda.index) == ["a", "b"]
    np.testing.assert_allclose(r.lmbda.to_numpy(), bcs.fit(X_LOG).lmbda, rtol=1e-14)
    z = r.transform(df.select(["b", "a"]))  # matched by name, returned in the fitted order
    assert isinstance(z, pl.DataFrame) and z.columns == ["a", "b"]
    back = r.inverse_transform(z)
    assert isinstance(back, pl.DataFrame)
    np.testing.assert_allclose(back.to_numpy(), X_LOG, rtol=1e-12)
    one = bcs.fit(df["a"])
    assert isinstance(one.transform(df["a"]), pl.Series) and one.transform(df["a"]).name == "a"
    with pytest.raises(bcs.BoxCoxError, match=r"lack column\(s\) \['b'\]"):
        r.transform(df.select("a"))


def test_pandas_and_numpy_layouts_unchanged():
    df = pd.DataFrame(X_LOG, columns=["a", "b"], index=list(range(100, 160)))
    r = bcs.fit(df)
    out = r.transform(df)
    assert isinstance(out, pd.DataFrame) and list(out.index) == list(df.index)
    assert isinstance(bcs.fit(X_LOG).transform(X_LOG), np.ndarray)


def test_values_without_an_inverse_and_overflow_are_named():
    r = bcs.fit(pd.DataFrame(X_LOG, columns=["a", "b"]))
    lam = float(r.lmbda["a"])
    bad = pd.DataFrame({"a": [-2.0 / lam if lam > 0 else 2.0 / -lam * 10], "b": [0.0]})
    # the package's one rule for inverses (issue 27): NaN for that value, a warning naming
    # the column and row, the rest returned
    bad = pd.DataFrame({"a": [0.0, bad["a"].iloc[0]], "b": [0.0, 0.0]}, index=["p", "q"])
    with pytest.warns(UserWarning, match=r"column 'a': 1 value\(s\) \(rows 'q'\).*no inverse"):
        back = r.inverse_transform(bad)
    assert np.isnan(back.loc["q", "a"]) and np.isfinite(back.loc["p", "a"])
    np.testing.assert_allclose(back["b"], r.inverse_transform(bad[["a", "b"]].iloc[:1])["b"]
                               .iloc[0], rtol=1e-15)  # the same arithmetic
    big = bcs.fit(np.array([0.1, 0.1, 0.1, 0.101]))
    with pytest.raises(bcs.TransformOverflowError, match="column 'x'.*ymax="):
        big.transform([0.1, 0.2])
