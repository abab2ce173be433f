"""Tests for boxcoxstat._arrays: the one column reduction of the gate and the core."""

from __future__ import annotations

import numpy as np
import pytest

from boxcoxstat._arrays import FEW_COLUMNS, column_range


@pytest.mark.parametrize("shape", [(5, 3), (2000, 5), (2000, FEW_COLUMNS + 1), (3000, 1)])
def test_column_range_is_numpys_min_and_max(shape):
    """Both branches (strided columns, one reduction) give NumPy's own extremes exactly."""
    x = np.random.default_rng(sum(shape)).standard_normal(shape)
    lo, hi = column_range(x)
    np.testing.assert_array_equal(lo, x.min(axis=0))  # exact: a min is a value of x
    np.testing.assert_array_equal(hi, x.max(axis=0))


@pytest.mark.parametrize("n", [4, 2000])
def test_a_column_with_nan_has_nan_extremes_and_no_warning(n):
    x = np.ones((n, 2))
    x[1, 1] = np.nan
    with np.errstate(all="raise"):
        lo, hi = column_range(x)
    assert lo[0] == hi[0] == 1.0 and np.isnan(lo[1]) and np.isnan(hi[1])


def test_long_columns_are_reduced_block_by_block_to_numpys_extremes(monkeypatch):
    """Issue 31: a long column's minimum and maximum come from one read, block by block
    (``RANGE_ROWS``, made small here): the same values as NumPy's, NaN in a later block
    still NaN, extremes in the last, partial block found."""
    import boxcoxstat._arrays as A

    monkeypatch.setattr(A, "RANGE_ROWS", 1000)
    x = np.random.default_rng(9).standard_normal((3500, 3))
    x[3499, 0], x[3498, 0] = 50.0, -50.0  # in the last, partial block
    x[2500, 2] = np.nan
    with np.errstate(all="raise"):
        lo, hi = column_range(x)
    assert lo[:2].tolist() == x[:, :2].min(axis=0).tolist() and lo[0] == -50.0
    assert hi[:2].tolist() == x[:, :2].max(axis=0).tolist() and hi[0] == 50.0
    assert np.isnan(lo[2]) and np.isnan(hi[2])
