"""R's optimize() (Brent's fmin), batched: boxcoxstat.robust._rfmin."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import optimize

from boxcoxstat.robust._rfmin import DBL_MAX, fmin


def test_fmin_agrees_with_scipy_bounded():
    # scipy's "bounded" method is the same fmin variant (Brent 1973); the same steps give
    # the same point up to rounding (1e-9)
    f = [lambda t: np.sin(3 * t) + 0.1 * t**2, lambda t: np.abs(t - 0.7) ** 1.5 + np.cos(t)]
    got = fmin(lambda u, idx: np.array([f[i](v) for v, i in zip(u, idx, strict=True)]),
               [-4, -4], [6, 6])
    for j in range(2):
        ref = optimize.minimize_scalar(f[j], bounds=(-4, 6), method="bounded",
                                       options={"xatol": 2**-13})
        assert got[j] == pytest.approx(ref.x, abs=1e-9)


def test_non_finite_values_count_as_the_largest_double():
    # R replaces NA/Inf by DBL_MAX; the minimum of the finite part is still found
    def f(u, idx):
        return np.where(u > 2.0, np.inf, (u - 1.0) ** 2)

    assert fmin(f, [-4.0], [6.0])[0] == pytest.approx(1.0, abs=2**-13)
    assert DBL_MAX == np.finfo(np.float64).max
