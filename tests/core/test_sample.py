"""Tests for boxcoxstat.core.sample: log-ratios that keep every digit, side layout, references."""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest

from boxcoxstat.core.sample import Sample


def test_log_ratios_keep_the_digits_of_clustered_data():
    mp.mp.dps = 40
    x = np.array([2.0, 2.0000001, 2.0, 1.9999999999, 2.0 + 2**-51])
    side = Sample.from_array(x).pos
    ref = mp.mpf(2.0)
    for xi, vi in zip(x, side.v[:, 0], strict=True):
        exact = mp.log(mp.mpf(float(xi)) / ref)
        assert float(vi) == pytest.approx(float(exact), rel=1e-15, abs=1e-300)
    assert side.log_ref[0] == pytest.approx(np.log(2.0), rel=1e-16)


def test_yeojohnson_sides_hold_only_their_values():
    x = np.array([-3.0, 0.0, 5.0, -0.5, 2.0, 7.0])
    s = Sample.from_array(x, "yeojohnson")
    assert s.pos.v.shape == (4, 1) and s.neg.v.shape == (2, 1)
    # bases 1 + x on the x >= 0 side, 1 - x on the other, relative to each side's median
    np.testing.assert_allclose(s.pos.log_ref + s.pos.v[:, 0], np.log1p([0.0, 5.0, 2.0, 7.0]),
                               rtol=1e-15, atol=1e-16)
    np.testing.assert_allclose(s.neg.log_ref + s.neg.v[:, 0], np.log1p([3.0, 0.5]), rtol=1e-15)
    assert s.neg.negative and not s.pos.negative


def test_columns_with_missing_values_are_padded_with_zero_weight():
    X = np.array([[1.0, -1.0], [np.nan, 2.0], [3.0, -4.0], [5.0, np.nan]])
    s = Sample.from_array(X, "yeojohnson")
    np.testing.assert_array_equal(s.nobs(), [3.0, 3.0])
    np.testing.assert_array_equal(s.pos.wsum, [3.0, 1.0])
    np.testing.assert_array_equal(s.neg.wsum, [0.0, 2.0])
    # the reference is each side's median
    np.testing.assert_allclose(np.expm1(s.pos.log_ref), [3.0, 2.0])


def test_weights_follow_their_values():
    x = np.array([4.0, -1.0, 2.0, -3.0])
    w = np.array([1.0, 2.0, 3.0, 4.0])
    s = Sample.from_array(x, "yeojohnson", weights=w)
    np.testing.assert_array_equal(s.pos.w[:, 0], [1.0, 3.0])
    np.testing.assert_array_equal(s.neg.w[:, 0], [2.0, 4.0])


def test_extreme_ranges_do_not_overflow_the_log_ratios_gh1():
    """Values 1e308 apart: log-ratios to the median stay finite (was log1p(inf))."""
    x = np.array([3.470275520442747e82, 1.9304048355886574e-226, 1.9304048355886574e-226])
    v = Sample.from_array(x).pos.v[:, 0]
    np.testing.assert_allclose(v, np.log(x) - np.log(x[1]), rtol=1e-15)


def test_systematic_subsample_keeps_the_frame():
    x = np.random.default_rng(0).lognormal(size=1000)
    s = Sample.from_array(x)
    sub = s.every(10)
    assert sub.nrows == 100
    np.testing.assert_array_equal(sub.pos.log_ref, s.pos.log_ref)
    np.testing.assert_array_equal(sub.pos.v[:, 0], s.pos.v[::10, 0])


def test_median_reference_of_values_near_float_max_does_not_overflow():
    """Regression (found by hypothesis): np.median formed lo + hi and overflowed."""
    import boxcoxstat as bcs

    x = [0.0, -8.988465674311579e307, -8.98846567431158e307]
    r = bcs.fit(x, family="yeojohnson")
    assert np.isfinite(r.lmbda) and np.isfinite(r.llf)
    big = np.array([1.7e308, 1.75e308, 1.79e308, 1.6e308])
    r = bcs.fit(big, family="boxcox")
    assert np.isfinite(r.lmbda)


@pytest.mark.parametrize("n", [9, 40, 600])  # 600 rows: the transposed column-by-column path
def test_short_matrices_compact_each_side_and_take_its_median(n):
    """Matrices of few rows are compacted and take their medians in one sort; each side's
    reference is the median of its own values (NumPy's) and its log-ratios hold exactly that
    side's values, in their order."""
    rng = np.random.default_rng(n)
    X = rng.normal(size=(n, 30))
    X[rng.random(X.shape) < 0.2] = np.nan
    X[:, 3] = np.abs(X[:, 3]) + 0.1  # a column with no negative values
    s = Sample.from_array(X, "yeojohnson")
    for j in range(X.shape[1]):
        col = X[~np.isnan(X[:, j]), j]
        for side, vals, base in ((s.pos, col[col >= 0], np.log1p(col[col >= 0])),
                                 (s.neg, col[col < 0], np.log1p(-col[col < 0]))):
            k = vals.size
            if side.w is not None:  # the side's values on top, padding with weight 0 below
                np.testing.assert_array_equal(side.w[:, j], np.arange(side.w.shape[0]) < k)
            if k == 0:
                continue
            ref = np.log1p(abs(np.median(vals)))
            # medians agree to rounding of lo/2 + hi/2 against NumPy's (lo + hi)/2
            assert side.log_ref[j] == pytest.approx(ref, rel=1e-15, abs=1e-300)
            # log-ratios: log1p of the exact difference, within a few eps of log b - log ref
            np.testing.assert_allclose(side.v[:k, j] + side.log_ref[j], base, rtol=1e-14,
                                       atol=1e-15)


def test_long_matrix_sides_with_weights_keep_values_and_weights_together():
    """The transposed split of long matrices (more than SORT_ROWS rows) moves each side's
    values and their weights together, in order, and pads both with zeros."""
    from boxcoxstat.core.sample import SORT_ROWS

    rng = np.random.default_rng(5)
    n = SORT_ROWS + 100
    X = rng.normal(size=(n, 3))
    X[rng.random(X.shape) < 0.1] = np.nan
    w = rng.random(n) + 0.5
    s = Sample.from_array(X, "yeojohnson", w)
    for j in range(3):
        keep = ~np.isnan(X[:, j])
        for side, sel, base in ((s.pos, keep & (X[:, j] >= 0), 1.0 + X[:, j]),
                                (s.neg, keep & (X[:, j] < 0), 1.0 - X[:, j])):
            k = int(sel.sum())
            np.testing.assert_array_equal(side.w[:k, j], w[sel])
            np.testing.assert_array_equal(side.w[k:, j], 0.0)
            # log-ratios to the side's median, in the original order
            np.testing.assert_allclose(side.v[:k, j] + side.log_ref[j], np.log(base[sel]),
                                       rtol=1e-14, atol=1e-15)
            assert side.log_ref[j] == pytest.approx(np.log(np.median(base[sel])), rel=1e-15)


@pytest.mark.parametrize("family, make", [
    ("boxcox", lambda r, n: 1 + r.lognormal(size=n)),
    ("boxcox", lambda r, n: np.r_[1e-300, 1 + r.lognormal(size=n - 2), 1e300]),  # far values
    ("yeojohnson", lambda r, n: r.permutation(np.r_[r.normal(size=n // 2),
                                                    r.exponential(size=n - n // 2)])),
    # blocks of one sign (taken without a split) before, between and after mixed ones
    ("yeojohnson", lambda r, n: np.r_[-r.exponential(size=n // 4), r.normal(size=n // 4),
                                      r.exponential(size=n // 4),
                                      r.normal(size=n - 3 * (n // 4))]),
])
def test_one_long_column_is_prepared_in_one_pass_with_the_same_values(family, make,
                                                                        monkeypatch):
    """A column above FUSE_FROM rows is split by sign and turned into log-ratios block by
    block, its extremes and sum kept from the same blocks: the sides hold the same values
    (bases log b = log_ref + v, to rounding) as the unfused preparation, and the cached
    extremes and sum are those of the stored log-ratios."""
    from boxcoxstat._arrays import column_range
    from boxcoxstat.core import sample as S

    x = make(np.random.default_rng(4), S.FUSE_FROM + 12345)
    fused = Sample.from_array(x, family)
    assert fused.pos is not None and "vrange" in fused.pos.__dict__  # the fused path ran
    monkeypatch.setattr(S, "FUSE_FROM", 10**12)  # the unfused preparation
    plain = Sample.from_array(x, family)
    assert "vrange" not in plain.sides[0].__dict__
    for a, b in zip(fused.sides, plain.sides, strict=True):
        assert a.v.shape == b.v.shape and a.negative == b.negative
        la, lb = np.sort(a.v[:, 0]) + a.log_ref[0], np.sort(b.v[:, 0]) + b.log_ref[0]
        # log b from two references: each log-ratio exact to rounding of its own size
        assert np.max(np.abs(la - lb)) <= 8 * np.finfo(float).eps * np.max(np.abs(lb))
        lo, hi = column_range(a.v)
        assert a.vrange[0][0] == lo[0] and a.vrange[1][0] == hi[0]  # min / max: exact
        # summed by blocks: rounding of the sum of the magnitudes
        assert a.vsum[0] == pytest.approx(a.v.sum(), rel=0, abs=1e-13 * np.abs(a.v).sum())


@pytest.mark.parametrize("ref_x, kind", [(0.7, "pos"), (3.0, "pos"), (-0.6, "neg"),
                                         (-2.5, "neg")])
def test_yeojohnson_sides_skip_the_far_value_search_only_where_none_can_be(ref_x, kind):
    """A Yeo-Johnson side whose ratio at x = 0 is >= -0.5 has no far value (bases >= 1,
    ratios monotone in x): its blocks skip the search, and the log-ratios are those of the
    unfused formula (log b - log b_ref to rounding); a side whose reference is far from 0
    (ratio at 0 below -0.5) still searches and fixes its values near 0."""
    from boxcoxstat.core.sample import _RatioBlocks

    rng = np.random.default_rng(11)
    sign = 1.0 if kind == "pos" else -1.0
    x = sign * np.r_[0.0, 1e-300, rng.exponential(2.0, 5000), 1e300]
    if kind == "neg":
        x = x[1:]  # x < 0 only
    blocks = _RatioBlocks(ref_x, kind, 1024)
    assert blocks.near == (abs(ref_x) <= 1.0)
    v = np.empty_like(x)
    for i in range(0, x.size, 1024):
        blocks.add(x[i : i + 1024], v[i : i + 1024])
    base, ref = np.log1p(np.abs(x)), np.log1p(abs(ref_x))
    # each log-ratio to a few ulps of the larger of log b and log b_ref
    assert np.all(np.abs(v - (base - ref)) <= 8e-16 * (np.abs(base) + ref))
    assert blocks.lo == v.min() and blocks.hi == v.max()
