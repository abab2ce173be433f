"""Tests for boxcoxstat.core.bounds: the Lambert-W inverse on both branches, against mpmath."""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest

from boxcoxstat import BoxCoxError
from boxcoxstat.core.bounds import FLOAT_MAX, boxcox_lambda_at, lambda_bounds


def _psi(b, lam):
    B, L = mp.mpf(b), mp.mpf(lam)
    return mp.log(B) if lam == 0 else (B**L - 1) / L


@pytest.mark.parametrize(
    "b,y",
    [
        (10.0, FLOAT_MAX),  # branch -1, lambda >> 1
        (0.1, -FLOAT_MAX),  # branch -1, lambda << -1
        (1.0001, 1e308),  # z underflows: asymptotic start + Newton
        (100.0, 2.0),  # branch 0 (log b / y > 1), negative lambda
        (100.0, 50.0),  # branch 0
        (0.5, -2.0),
        (0.999, -1e-5),
        (1.5, 1e3),
    ],
)
def test_inverse_solves_the_transform(b, y):
    mp.mp.dps = 60
    lam = boxcox_lambda_at(b, y)
    assert float(_psi(b, lam) / y) == pytest.approx(1.0, rel=1e-11)
    # it is not the spurious root lambda = 0 unless log b == y
    assert lam != 0.0


def test_branch_choice_at_the_double_root():
    assert boxcox_lambda_at(np.e, 1.0) == pytest.approx(0.0, abs=1e-7)


def test_wrong_sign_is_refused():
    with pytest.raises(BoxCoxError, match="sign"):
        boxcox_lambda_at(10.0, -1.0)


def test_bounds_keep_transformed_values_inside():
    mp.mp.dps = 60
    x = np.array([0.1, 0.1, 0.1, 0.101])
    lo, hi = lambda_bounds(x, 1e300, "boxcox")
    assert hi == np.inf
    assert abs(float(_psi(0.1, lo))) == pytest.approx(1e300, rel=1e-11)
    lo, hi = lambda_bounds([-10.0, -9.9, 9.9], 1e300, "yeojohnson")
    assert float(_psi(10.9, hi)) == pytest.approx(1e300, rel=1e-11)
    assert float(_psi(11.0, 2 - lo)) == pytest.approx(1e300, rel=1e-11)


def test_bad_ymax():
    with pytest.raises(BoxCoxError, match="ymax"):
        lambda_bounds([1.0, 2.0], -1.0)


def test_infeasible_ymax_is_refused():
    with pytest.raises(BoxCoxError, match="use a larger ymax"):
        lambda_bounds([0.01, 1.0, 100.0], 0.1)


@pytest.mark.parametrize("scale", [1e-32, 1e-200])
def test_yeojohnson_bounds_of_data_on_a_tiny_scale(scale):
    """1 + x rounds to 1 for such data, which raised "the transform of b has the sign of
    log(b)" for any ymax; the bounds now come from log1p(|x|). The reference is the
    transform in mpmath at 60 digits: |psi| reaches ymax exactly at each bound."""
    mp.mp.dps = 60
    x = np.array([-0.4, 0.2, 6.6]) * scale
    lo, hi = lambda_bounds(x, 1e100, "yeojohnson")
    k_hi, k_lo = mp.mpf(hi), 2 - mp.mpf(lo)  # log1p: 1 + 1e-200 needs 200 digits
    top = mp.expm1(k_hi * mp.log1p(mp.mpf(float(x[2])))) / k_hi
    low = mp.expm1(k_lo * mp.log1p(-mp.mpf(float(x[0])))) / k_lo
    assert float(top / mp.mpf(1e100)) == pytest.approx(1.0, rel=1e-11)
    assert float(low / mp.mpf(1e100)) == pytest.approx(1.0, rel=1e-11)
