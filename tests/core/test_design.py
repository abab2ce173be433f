"""boxcoxstat.core.design: ``qr_design`` drops aliased columns by R's rule, and
``Design.resid`` is the residual of the (weighted) least-squares projection.

R's rule (LINPACK ``dqrdc2``, as ``lm.fit`` uses it with ``tol = 1e-7``): columns are taken in
order, and one whose part orthogonal to the columns kept so far has a norm below ``tol`` times
its own norm is aliased. The references here build designs whose ratio is known by
construction (a column plus a multiple of a unit vector orthogonal to the kept ones), and
compute residuals independently with ``numpy.linalg.lstsq``.
"""

from __future__ import annotations

import numpy as np
import pytest

from boxcoxstat import BoxCoxError
from boxcoxstat.core.design import LONG_ROWS, R_TOLERANCE, qr_design


def _base(n=30, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.uniform(0, 3, n)
    z = rng.normal(size=n)
    return np.column_stack([np.ones(n), x, z])


def _orthogonal_unit(x, seed=1):
    """A unit vector orthogonal to the columns of ``x`` (projected out twice)."""
    e = np.random.default_rng(seed).normal(size=x.shape[0])
    for _ in range(2):
        e -= x @ np.linalg.lstsq(x, e, rcond=None)[0]
    return e / np.linalg.norm(e)


def test_exact_linear_combinations_are_aliased_as_r_reports_them():
    x = _base()
    design = np.column_stack([x, 2 * x[:, 1] - 0.5 * x[:, 2] + 3, x[:, 1], np.zeros(len(x))])
    d = qr_design(design)
    # columns 3 (a combination of 0, 1, 2), 4 (a copy of 1) and 5 (zero) are aliased; the
    # earlier column of each dependent set is kept, as lm() keeps it
    assert d.kept.tolist() == [0, 1, 2] and d.aliased.tolist() == [3, 4, 5]
    assert d.rank == 3 and d.nobs == len(x) and d.sw is None
    # the combination placed first keeps it and aliases the last of the set instead
    d2 = qr_design(design[:, [3, 0, 1, 2]])
    assert d2.kept.tolist() == [0, 1, 2] and d2.aliased.tolist() == [3]


@pytest.mark.parametrize(("ratio", "aliased"), [(2e-7, False), (5e-8, True)])
def test_near_collinear_column_either_side_of_the_tolerance(ratio, aliased):
    """A column whose orthogonal part is ``ratio`` times its norm: kept above 1e-7, aliased
    below (rounding moves the ratio by about 1e-16, far from the factor 2 to the bound)."""
    x = _base()
    c = x @ np.array([1.0, 2.0, -1.0])
    e = _orthogonal_unit(x)
    # ||r|| / ||c + t e|| = ratio with r = t e, c orthogonal to e: t = ratio ||c|| / sqrt(1-r^2)
    t = ratio * np.linalg.norm(c) / np.sqrt(1 - ratio**2)
    col = c + t * e
    resid = col - x @ np.linalg.lstsq(x, col, rcond=None)[0]
    assert np.linalg.norm(resid) / np.linalg.norm(col) == pytest.approx(ratio, rel=1e-6)
    d = qr_design(np.column_stack([x, col]))
    assert d.aliased.tolist() == ([3] if aliased else [])
    assert d.rank == (3 if aliased else 4)
    assert R_TOLERANCE == 1e-7  # lm()'s documented default, the one these ratios straddle


def test_tolerance_is_an_argument():
    x = _base()
    e = _orthogonal_unit(x)
    col = x[:, 1] + 1e-4 * np.linalg.norm(x[:, 1]) * e  # ratio about 1e-4
    design = np.column_stack([x, col])
    assert qr_design(design).aliased.tolist() == []
    assert qr_design(design, tol=1e-3).aliased.tolist() == [3]


def test_weights_decide_aliasing_and_scale_the_basis():
    """Rows of weight 0 do not count: a column that equals another except on those rows is
    aliased in the weighted design and kept in the unweighted one."""
    x = _base()
    w = np.random.default_rng(4).uniform(0.5, 2.0, len(x))
    w[[3, 17]] = 0.0
    col = x[:, 1].copy()
    col[[3, 17]] += [1.0, -2.0]
    design = np.column_stack([x, col])
    assert qr_design(design).aliased.tolist() == []
    dw = qr_design(design, w)
    assert dw.aliased.tolist() == [3]
    np.testing.assert_allclose(dw.sw, np.sqrt(w), rtol=1e-15)
    # q is an orthonormal basis of sqrt(w) X (rounding of a 30 x 3 QR: 1e-14 allowed)
    xw = design[:, :3] * np.sqrt(w)[:, None]
    np.testing.assert_allclose(dw.q.T @ dw.q, np.eye(3), atol=1e-14)
    coef = np.linalg.lstsq(dw.q, xw, rcond=None)[0]
    np.testing.assert_allclose(dw.q @ coef, xw, atol=1e-13 * np.abs(xw).max())


def _lstsq_resid(x, u):
    """``u - X b`` with ``b`` the least-squares coefficients (numpy's SVD solver)."""
    return u - x @ np.linalg.lstsq(x, u, rcond=None)[0]


@pytest.mark.parametrize("shape", [(30,), (30, 4)])
def test_resid_is_the_least_squares_residual(shape):
    """Design.resid(u) = (I - X (X'X)^-1 X') u. Both routes are backward stable on this
    well-conditioned design (condition number about 10): 1e-12 of ||u|| allowed."""
    x = _base()
    u = np.random.default_rng(7).normal(5.0, 2.0, size=shape)
    got = qr_design(x).resid(u)
    assert got.shape == u.shape
    want = _lstsq_resid(x, u)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12 * np.linalg.norm(u))
    # the residual is orthogonal to every column of X
    np.testing.assert_allclose(x.T @ got, 0.0, atol=1e-11 * np.linalg.norm(u))


def test_resid_with_aliased_columns_projects_on_the_same_space():
    x = _base()
    design = np.column_stack([x, x[:, 1] + x[:, 2]])
    u = np.random.default_rng(8).lognormal(size=len(x))
    got = qr_design(design).resid(u)
    # lstsq handles the rank deficiency itself (minimum-norm solution, same fitted values)
    want = _lstsq_resid(design, u)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12 * np.linalg.norm(u))


@pytest.mark.parametrize("shape", [(30,), (30, 2)])
def test_weighted_resid(shape):
    """With weights: sqrt(w) u minus its projection on sqrt(w) X (weighted least squares)."""
    x = _base()
    w = np.random.default_rng(9).uniform(0.2, 3.0, len(x))
    u = np.random.default_rng(10).normal(size=shape)
    sw = np.sqrt(w)
    uw = u * (sw if u.ndim == 1 else sw[:, None])
    want = _lstsq_resid(x * sw[:, None], uw)
    got = qr_design(x, w).resid(u)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12 * np.linalg.norm(uw))


def test_a_design_that_is_not_2d_is_refused():
    with pytest.raises(BoxCoxError, match="the design matrix must be 2-D"):
        qr_design(np.ones(5))


@pytest.mark.parametrize("scale", [1e200, 1e-200])
def test_columns_near_the_ends_of_float64_give_the_same_basis(scale):
    """Column norms of values beyond 1e154 overflowed ('overflow encountered in dot', then a
    basis of NaN); each column is now measured in a power of two near its largest value.
    The reference is least squares on the unscaled design (the column space is the same)."""
    x = _base()
    u = np.random.default_rng(11).normal(size=len(x))
    d = qr_design(x * scale)
    assert d.kept.tolist() == qr_design(x).kept.tolist()
    # 1e-12 of |u|: two orthogonalisations against an orthonormal basis, rounding only
    np.testing.assert_allclose(d.resid(u), _lstsq_resid(x, u), rtol=0,
                               atol=1e-12 * np.linalg.norm(u))


def test_a_regressor_on_predictors_of_1e200_equals_the_unscaled_one():
    """scikit-learn's BoxCoxRegressor on predictors of order 1e200 raised numpy's overflow
    warning; the response's power does not depend on the predictors' units."""
    from boxcoxstat.sklearn import BoxCoxRegressor

    rng = np.random.default_rng(0)
    x = rng.normal(size=(50, 2))
    y = np.exp(x @ [0.5, 0.2] + 0.3 * rng.normal(size=50))
    want = BoxCoxRegressor().fit(x, y)
    got = BoxCoxRegressor().fit(x * 1e200, y)
    # 1e-12: the same projections up to rounding; lambda solved to 1e-12 relative
    assert got.lmbda_ == pytest.approx(want.lmbda_, rel=1e-11)
    np.testing.assert_allclose(got.predict(x[:5] * 1e200), want.predict(x[:5]), rtol=1e-10)


def test_r_factor_by_blocks_is_the_householder_factor():
    """r_factor (TSQR over 8192-row blocks) equals one Householder QR up to row signs, on
    columns of very different scales and nearly dependent ones (the second is the first plus
    1e-9 noise): to 1e-12 of each row's diagonal (Householder is backward stable either way;
    the two differ only in rounding)."""
    from boxcoxstat.core.design import TSQR_ROWS, r_factor

    rng = np.random.default_rng(4)
    n = 5 * TSQR_ROWS + 17  # several blocks and a short last one
    a = rng.normal(size=(n, 4)) * np.array([1e-150, 1.0, 1e8, 3.0])
    a[:, 3] = a[:, 1] + 1e-9 * rng.normal(size=n)
    got = r_factor(a)
    want = np.linalg.qr(a, mode="r")
    signs = np.sign(np.diag(got)) * np.sign(np.diag(want))
    np.testing.assert_allclose(got * signs[:, None], want,
                               rtol=0, atol=1e-12 * np.abs(np.diag(want)).max())
    for j in range(4):
        assert abs(got[j, j]) == pytest.approx(abs(want[j, j]), rel=1e-12)


@pytest.mark.parametrize("weighted", [False, True])
def test_a_long_design_keeps_the_rule_and_gives_the_least_squares_residual(weighted):
    """From LONG_ROWS rows the basis is built by blocked Gram-Schmidt applied twice (issue 31
    item 4). The same aliasing decisions (an exact combination, a copy, a near-collinear
    column either side of 1e-7), an orthonormal basis (1e-13: twice-orthogonalised
    Gram-Schmidt on a condition number of about 1e7 reaches rounding) and the residual
    numpy's SVD solver gives (1e-11 of ||u||: the near-collinear column's 1e7 amplifies
    rounding of both routes), for one column and several."""
    n = LONG_ROWS + 4_464
    x = _base(n, seed=3)
    c = x @ np.array([1.0, 2.0, -1.0])
    e = _orthogonal_unit(x, seed=4)
    keep = c + 2e-7 * np.linalg.norm(c) / np.sqrt(1 - 4e-14) * e
    drop = c + 5e-8 * np.linalg.norm(c) / np.sqrt(1 - 2.5e-15) * _orthogonal_unit(x, seed=5)
    design = np.column_stack([x, 2 * x[:, 1] - x[:, 2], keep, x[:, 1], drop])
    w = np.random.default_rng(6).uniform(0.5, 2.0, n) if weighted else None
    d = qr_design(design, w)
    assert d.kept.tolist() == [0, 1, 2, 4] and d.aliased.tolist() == [3, 5, 6]
    np.testing.assert_allclose(d.q.T @ d.q, np.eye(4), rtol=0, atol=1e-13)
    sw = np.ones(n) if w is None else np.sqrt(w)
    xw = design[:, d.kept] * sw[:, None]
    u = np.random.default_rng(7).normal(5.0, 2.0, size=(n, 3))
    for got, want in ((d.resid(u), _lstsq_resid(xw, u * sw[:, None])),
                      (d.resid(u[:, 0]), _lstsq_resid(xw, u[:, 0] * sw))):
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-11 * np.linalg.norm(u))
