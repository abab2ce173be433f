"""Tests for boxcoxstat._validation.columns: input shapes, copies, family names, error messages."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from boxcoxstat._validation.columns import (
    BoxCoxError,
    as_columns,
    case_weights,
    check_option,
    normalize_family,
)


@pytest.mark.parametrize("alias,name", [("Box-Cox", "boxcox"), ("bc", "boxcox"),
                                        ("yeo-johnson", "yeojohnson"), ("YJ", "yeojohnson"),
                                        ("auto", "auto")])
def test_family_aliases(alias, name):
    assert normalize_family(alias) == name


def test_auto_can_be_refused():
    with pytest.raises(BoxCoxError, match="unknown family"):
        normalize_family("auto", allow_auto=False)


def test_kinds_names_and_missing_counts():
    df = pd.DataFrame({"a": [1.0, np.nan, 3.0, 4.0], "b": [2.0, 3.0, 4.0, 5.0]})
    cols = as_columns(df, family="boxcox")
    assert cols.layout == "frame" and cols.names == ["a", "b"]
    np.testing.assert_array_equal(cols.n_missing, [1, 0])
    np.testing.assert_array_equal(cols.column(0), [1.0, 3.0, 4.0])
    assert as_columns(df["a"], family="boxcox").layout == "series"
    assert as_columns([1.0, 2.0, 3.0], family="boxcox").layout == "array1d"
    arr = as_columns(np.ones((3, 2)) + np.arange(6).reshape(3, 2), family="boxcox")
    assert arr.layout == "array2d" and arr.names == ["x0", "x1"]


def test_values_cannot_change_the_callers_data():
    """float64 data that nobody can change later are read without a copy (issue 31: a copy of
    1e7 values costs about one np.log pass), as a read-only view: a read-only array none of
    whose bases is writeable. A writeable array and pandas data are copied: the result keeps
    its data, and the caller could change them in place after the fit (pandas' copy-on-write
    does not cover a NumPy view of a Series). Converted data are a new array too."""
    x = np.array([1.0, 2.0, 3.0])
    for data in (x, x[:, None]):  # writeable: a private copy
        cols = as_columns(data, family="boxcox")
        assert not np.shares_memory(cols.values, x)
    frozen = np.array([1.0, 2.0, 3.0])
    frozen.flags.writeable = False
    cols = as_columns(frozen, family="boxcox")
    assert np.shares_memory(cols.values, frozen)
    with pytest.raises(ValueError, match="read-only"):
        cols.values[0, 0] = 99.0
    view = x[:]  # read-only itself, but its base is writeable: copied
    view.flags.writeable = False
    assert not np.shares_memory(as_columns(view, family="boxcox").values, x)
    series = pd.Series([1.0, 2.0, 3.0], name="s")
    frame = pd.DataFrame({"a": [1.0, 2.0, 3.0]})
    for data, memory in ((series, series.to_numpy()), (frame, frame["a"].to_numpy())):
        assert not np.shares_memory(as_columns(data, family="boxcox").values, memory)
    assert x.flags.writeable
    converted = [1, 2, 3]  # ints: converted into a new array
    ints = np.array(converted)
    cols = as_columns(ints, family="boxcox")
    assert not np.shares_memory(cols.values, ints)
    masked = np.ma.masked_array([1.0, 2.0, 3.0, 4.0], mask=[0, 1, 0, 0])
    cols = as_columns(masked, family="boxcox")  # the masked entry becomes NaN in a copy
    assert np.isnan(cols.values[1, 0]) and masked.data[1] == 2.0


def test_a_result_does_not_change_when_the_callers_data_do():
    """A fit result is immutable: changing the caller's array or Series in place after the
    fit changes nothing the result draws or computes later from its data (its QQ figure of
    the transformed values; with a view of a writeable array it did). The reference is the
    figure drawn before the change."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    import boxcoxstat as bcs

    def points(r):
        fig, axes = plt.subplots(1, 2)
        r.qqplot(ax=axes)
        out = [line.get_ydata().copy() for ax in axes for line in ax.lines]
        plt.close(fig)
        return out

    x = np.random.default_rng(31).lognormal(size=200)
    for data in (x.copy(), pd.Series(x.copy(), name="x")):
        r = bcs.fit(data)
        before = points(r)
        if isinstance(data, pd.Series):
            data.iloc[:] = 1.0  # seen through a NumPy view of the Series, copy-on-write or not
        else:
            data[:] = 1.0
        after = points(r)
        assert len(before) == len(after) > 0
        assert all(np.array_equal(a, b) for a, b in zip(before, after, strict=True))


def test_numeric_frame_is_read_in_one_private_c_ordered_copy():
    """A DataFrame of NumPy int and float columns is converted at once (the fast path): the
    values equal each column read on its own, are C-ordered and never share the caller's
    memory."""
    df = pd.DataFrame({"i": np.array([1, 2, 3, 4], dtype=np.int32), "f": [0.5, 2.0, 3.0, 9.0],
                       "u": np.array([7, 8, 9, 10], dtype=np.uint64)})
    cols = as_columns(df, family="boxcox")
    expected = np.column_stack([df[c].to_numpy(dtype=np.float64) for c in df.columns])
    np.testing.assert_array_equal(cols.values, expected)
    assert cols.values.flags.c_contiguous and cols.names == ["i", "f", "u"]
    floats = pd.DataFrame(np.arange(1.0, 13.0).reshape(4, 3))
    got = as_columns(floats, family="boxcox").values
    got[0, 0] = -1.0
    assert floats.iloc[0, 0] == 1.0
    # nullable and object columns still take the checked column-by-column path
    mixed = pd.DataFrame({"a": pd.array([1, None, 3, 4], dtype="Int64"), "b": [1.0, 2, 3, 4]})
    np.testing.assert_array_equal(as_columns(mixed, family="boxcox").n_missing, [1, 0])


def test_messages_name_column_and_row():
    s = pd.Series([1.0, 2.0, np.inf, 4.0], index=list("pqrs"), name="v")
    msg = r"column 'v' has 1 infinite value\(s\), first at row 'r'"
    with pytest.raises(BoxCoxError, match=msg):
        as_columns(s, family="boxcox")
    with pytest.raises(BoxCoxError, match="3 dimensions"):
        as_columns(np.ones((2, 2, 2)), family="boxcox")
    with pytest.raises(BoxCoxError, match="scalar"):
        as_columns(3.0, family="boxcox")
    with pytest.raises(BoxCoxError, match="complex"):
        as_columns(np.array([1 + 1j, 2, 3]), family="boxcox")


def test_yeojohnson_spread_is_judged_on_its_own_scale():
    with pytest.raises(BoxCoxError, match="Yeo-Johnson scale"):
        as_columns([1e-20, 2e-20, 3e-20], family="yeojohnson")
    # the same values are fine for Box-Cox, which is scale-invariant
    assert as_columns([1e-20, 2e-20, 3e-20], family="boxcox").values.shape == (3, 1)


def test_yeojohnson_on_a_tiny_scale_for_a_sample_profile():
    """A sample's profile reaches lambda ~ 1/range (bcs.fit), so its gate accepts tiny
    Yeo-Johnson data down to a range of 1e-300; values equal to 12 digits still fail."""
    ok = as_columns([1e-20, 2e-20, 3e-20], family="yeojohnson", tiny_scale=True)
    assert ok.values.shape == (3, 1)
    assert as_columns([1e-299, 2e-299, 3e-299], family="yeojohnson",
                      tiny_scale=True).values.shape == (3, 1)
    with pytest.raises(BoxCoxError, match="span less than 1e-300"):
        as_columns([1e-302, 2e-302, 3e-302], family="yeojohnson", tiny_scale=True)
    with pytest.raises(BoxCoxError, match="12th significant digit"):
        as_columns([1.0, 1.0 + 1e-14, 1.0 + 2e-14], family="yeojohnson", tiny_scale=True)


def test_weights_and_options():
    np.testing.assert_array_equal(case_weights([1, 2, 0], 3), [1.0, 2.0, 0.0])
    assert case_weights(None, 3) is None
    for bad, msg in (([1, 2], "has length 2, but the data have 3 rows"),
                     ([1, -1, 2], r"must be >= 0: row 1 has -1"),
                     ([1, np.nan, 2], "must be finite: row 1 has nan"),
                     ([0, 0, 0], "all weights are zero")):
        with pytest.raises(BoxCoxError, match=msg):
            case_weights(bad, 3)
    with pytest.raises(BoxCoxError, match="kind='x'"):
        check_option("kind", "x", ("a", "b"))


# ----------------------------------------------------------------------------- DataFrames of
# other libraries (polars, pyarrow) through narwhals
def test_polars_frame_keeps_names_nulls_and_is_copied():
    import polars as pl

    from boxcoxstat._validation.containers import to_matrix

    df = pl.DataFrame({"a": [1.0, None, 3.0], "b": [1, 2, None], "c": [True, False, True]})
    values, names, index, layout = to_matrix(df)
    assert names == ["a", "b", "c"] and index is None and layout == "frame"
    np.testing.assert_array_equal(np.isnan(values), [[0, 0, 0], [1, 0, 0], [0, 1, 0]])
    values[0, 0] = 99.0
    assert df["a"][0] == 1.0  # a private copy
    s_values, s_names, _, s_layout = to_matrix(df["a"])
    assert s_names == ["a"] and s_layout == "series" and s_values.shape == (3, 1)


def test_polars_non_numeric_columns_are_named():
    import polars as pl
    df = pl.DataFrame({"a": [1.0, 2.0, 3.0], "s": ["x", "y", "z"]})
    with pytest.raises(BoxCoxError, match="column 's' is not numeric"):
        as_columns(df, family="boxcox")
    cat = df.with_columns(pl.col("s").cast(pl.Categorical))
    with pytest.raises(BoxCoxError, match="column 's' is categorical"):
        as_columns(cat, family="boxcox")


def test_pyarrow_table_is_a_dataframe_too():
    import pyarrow as pa

    from boxcoxstat._validation.containers import to_matrix

    _, names, _, layout = to_matrix(pa.table({"u": [1.0, 2.0], "v": [3.0, 4.0]}))
    assert names == ["u", "v"] and layout == "frame"


def test_missing_narwhals_names_the_extra(monkeypatch):
    import sys

    import polars as pl

    from boxcoxstat._validation.containers import to_matrix

    for mod in ("narwhals", "narwhals.stable", "narwhals.stable.v1"):
        monkeypatch.setitem(sys.modules, mod, None)
    with pytest.raises(BoxCoxError, match=r"pip install 'boxcoxstat\[polars\]'"):
        to_matrix(pl.DataFrame({"a": [1.0, 2.0]}))


def test_degenerate_columns_can_be_skipped_with_the_reason_gh29():
    """as_columns(degenerate="skip"): constant and unresolvable columns leave the matrix and
    are listed with the reason; every other problem is still refused."""
    df = pd.DataFrame({"a": [1.0, 1.0, np.nan, 1.0], "b": [1.0, 2.0, 3.0, 4.0],
                       "c": [1.0, 1.0 + 1e-14, 1.0, 1.0]})
    cols = as_columns(df, family="yeojohnson", degenerate="skip")
    assert cols.names == ["b"] and cols.values.shape == (4, 1)
    assert [n for n, _ in cols.skipped] == ["a", "c"]
    assert dict(cols.skipped)["a"] == "constant (every value is 1.0)"
    assert "beyond the 12th significant digit" in dict(cols.skipped)["c"]
    with pytest.raises(BoxCoxError, match="column 'a' is constant"):
        as_columns(df, family="yeojohnson")  # the default refuses
    with pytest.raises(BoxCoxError, match="no column can be fitted: 'a': constant"):
        as_columns(df[["a", "c"]], family="yeojohnson", degenerate="skip")
    with pytest.raises(BoxCoxError, match="infinite"):
        as_columns(df.assign(b=[1.0, np.inf, 2.0, 3.0]), family="yeojohnson",
                   degenerate="skip")
    with pytest.raises(BoxCoxError, match="degenerate='maybe' is not valid"):
        as_columns(df, family="yeojohnson", degenerate="maybe")


def test_the_gate_reads_a_dask_collection_in_its_set_up_pass():
    """``_validation.partitions.read_dask``: every partition's rows and report, merged and
    checked; scikit-learn's rule leaves a constant Yeo-Johnson column out, the fit's refuses
    it by name."""
    dask = pytest.importorskip("dask")
    da = pytest.importorskip("dask.array")
    from boxcoxstat._validation.partitions import read_dask

    x = np.column_stack([np.full(300, 2.0), np.linspace(-1.0, 4.0, 300)])
    x[7, 1] = np.nan
    data = da.from_array(x, chunks=(100, 2))
    with dask.config.set(scheduler="sync"):
        read = read_dask(data, family="yeojohnson", constant="keep")
        assert read.names == ["x0", "x1"] and read.kind == "array2d"
        assert (read.clients, read.passes, read.kept.tolist()) == (3, 2, [1])
        (col,) = read.columns
        assert col.rows == (100, 100, 100) and (col.n, col.n_missing) == (299, 1)
        assert (col.lo, col.hi) == (-1.0, 4.0) and col.neg == (-1.0, x[x[:, 1] < 0, 1].max())
        with pytest.raises(BoxCoxError, match="column 'x0'.*constant"):
            read_dask(data, family="yeojohnson")
