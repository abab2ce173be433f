"""``ColumnTransforms``: the layout of the input comes back out (NumPy, pandas, polars),
overflow and values without an inverse are named."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import boxcoxstat as bcs

X = np.random.default_rng(4).lognormal(size=(60, 2))


def test_polars_in_polars_out_in_fit_transform_and_inverse():
    import polars as pl
    df = pl.DataFrame({"a": X[:, 0], "b": X[:, 1]})
    r = bcs.fit(df)
    assert list(r.lmbda.index) == ["a", "b"]
    np.testing.assert_allclose(r.lmbda.to_numpy(), bcs.fit(X).lmbda, rtol=1e-14)
    z = r.transform(df.select(["b", "a"]))  # matched by name, returned in the fitted order
    assert isinstance(z, pl.DataFrame) and z.columns == ["a", "b"]
    back = r.inverse_transform(z)
    assert isinstance(back, pl.DataFrame)
    np.testing.assert_allclose(back.to_numpy(), X, rtol=1e-12)
    one = bcs.fit(df["a"])
    assert isinstance(one.transform(df["a"]), pl.Series) and one.transform(df["a"]).name == "a"
    with pytest.raises(bcs.BoxCoxError, match=r"lack column\(s\) \['b'\]"):
        r.transform(df.select("a"))


def test_pandas_and_numpy_layouts_unchanged():
    df = pd.DataFrame(X, columns=["a", "b"], index=list(range(100, 160)))
    r = bcs.fit(df)
    out = r.transform(df)
    assert isinstance(out, pd.DataFrame) and list(out.index) == list(df.index)
    assert isinstance(bcs.fit(X).transform(X), np.ndarray)


def test_values_without_an_inverse_and_overflow_are_named():
    r = bcs.fit(pd.DataFrame(X, columns=["a", "b"]))
    lam = float(r.lmbda["a"])
    bad = pd.DataFrame({"a": [-2.0 / lam if lam > 0 else 2.0 / -lam * 10], "b": [0.0]})
    with pytest.raises(bcs.BoxCoxError, match="column 'a'.*no inverse"):
        r.inverse_transform(bad)
    big = bcs.fit(np.array([0.1, 0.1, 0.1, 0.101]))
    with pytest.raises(bcs.TransformOverflowError, match="column 'x'.*ymax="):
        big.transform([0.1, 0.2])
