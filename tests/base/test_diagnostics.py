"""Tests for boxcoxstat.base.diagnostics against R's qqnorm / qqline definitions."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from boxcoxstat.base.diagnostics import normal_qq, profile_cutoff, qq_line


def test_ppoints_small_and_large_n():
    z, y = normal_qq([5.0, 1.0, 3.0, 2.0])
    # R: ppoints(4) = (1:4 - 3/8) / (4 + 1 - 3/4)
    np.testing.assert_allclose(z, stats.norm.ppf((np.arange(1, 5) - 0.375) / 4.25))
    np.testing.assert_array_equal(y, [1.0, 2.0, 3.0, 5.0])
    z, _ = normal_qq(np.arange(20.0))
    np.testing.assert_allclose(z, stats.norm.ppf((np.arange(1, 21) - 0.5) / 20))


def test_qq_line_through_quartiles():
    y = np.random.default_rng(0).normal(3.0, 2.0, size=1001)
    a, b = qq_line(y)
    q1, q3 = np.quantile(y, [0.25, 0.75])
    assert a + b * stats.norm.ppf(0.25) == pytest.approx(q1)
    assert a + b * stats.norm.ppf(0.75) == pytest.approx(q3)


def test_profile_cutoff():
    assert profile_cutoff(-10.0) == pytest.approx(-10.0 - 3.841458820694124 / 2)


def test_studentized_residuals_and_envelope_against_statsmodels():
    """The internally studentized residuals are statsmodels' (its influence measures); the
    envelope's quantiles are those of statsmodels' studentized residuals of the same
    simulated responses (same random stream), to rounding."""
    import statsmodels.api as sm

    from boxcoxstat.base.diagnostics import residual_envelope, studentized_residuals

    rng = np.random.default_rng(1)
    X = np.column_stack([np.ones(30), rng.uniform(0, 1, 30), rng.normal(size=30)])
    y = X @ [1.0, 2.0, -1.0] + rng.normal(size=30)
    fit = sm.OLS(y, X).fit()
    q, _ = np.linalg.qr(X)
    np.testing.assert_allclose(studentized_residuals(fit.resid, q, fit.scale),
                               fit.get_influence().resid_studentized_internal, rtol=1e-10)
    lo, hi = residual_envelope(q, nsim=40, alpha=0.1, random_state=7)
    z = np.random.default_rng(7).standard_normal((30, 40))
    sims = np.sort([sm.OLS(z[:, k], X).fit().get_influence().resid_studentized_internal
                    for k in range(40)], axis=1)
    np.testing.assert_allclose(lo, np.quantile(sims, 0.05, axis=0), rtol=1e-9)
    np.testing.assert_allclose(hi, np.quantile(sims, 0.95, axis=0), rtol=1e-9)
