"""boxcoxstat.base.transform (``ColumnTransforms``): transforming new data with the fitted
powers -- labels and layout kept, missing values kept, input checked as fit's input is."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import boxcoxstat as bcs
from boxcoxstat import BoxCoxError


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
