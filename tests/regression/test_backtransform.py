"""Back-transformed predictions: medians, Duan's smearing and normal-theory means."""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest

from boxcoxstat import BoxCoxError
from boxcoxstat.families import transform
from boxcoxstat.regression.backtransform import mean_normal, mean_smearing, median


def _true_mean(mu: float, sigma: float, lmbda: float, family: str) -> float:
    """E[g^{-1}(mu + sigma Z)], Z normal truncated to [-12, 12] (the package's convention;
    the mass outside is below 4e-33), by mpmath quadrature at 30 digits (0 below the BC
    range)."""
    mp.mp.dps = 30

    def ginv(t):
        if family == "boxcox":
            if lmbda == 0:
                return mp.exp(t)
            base = 1 + lmbda * t
            return base ** (1 / mp.mpf(lmbda)) if base > 0 else mp.mpf(0)
        if t >= 0:
            return (1 + lmbda * t) ** (1 / mp.mpf(lmbda)) - 1 if lmbda != 0 else mp.expm1(t)
        k = 2 - lmbda
        return 1 - (1 - k * t) ** (1 / mp.mpf(k)) if k != 0 else -mp.expm1(-t)

    f = lambda z: ginv(mu + sigma * z) * mp.npdf(z)  # noqa: E731
    kink = (-mu / sigma if family == "yeojohnson"
            else (-1 / mp.mpf(lmbda) - mu) / sigma if lmbda > 0 else 0)
    pts = [-12, kink, 12] if -12 < kink < 12 else [-12, 12]
    return float(mp.quad(f, pts))


@pytest.mark.parametrize(
    ("mu", "sigma", "lmbda", "family"),
    [(3.0, 0.4, 0.0, "boxcox"), (5.0, 0.6, 0.3, "boxcox"), (1.0, 0.1, -0.4, "boxcox"),
     (0.5, 1.0, 1.0, "boxcox"),
     (2.0, 0.5, 0.7, "yeojohnson"), (0.2, 0.5, 1.3, "yeojohnson")],
)
def test_normal_mean_matches_high_precision_quadrature(mu, sigma, lmbda, family):
    got = mean_normal([mu], sigma, lmbda, family)[0]
    assert got == pytest.approx(_true_mean(mu, sigma, lmbda, family), rel=1e-10)


def test_normal_mean_truncates_below_the_boxcox_range():
    """lambda = 1, mu = 0: E[max(1 + sigma Z, 0)] has a closed form with the normal cdf."""
    sigma = 2.0
    z = 1 / sigma
    exact = sigma * float(mp.npdf(z)) + float(mp.ncdf(z))
    assert mean_normal([0.0], sigma, 1.0, "boxcox")[0] == pytest.approx(exact, rel=1e-6)


def test_normal_mean_refuses_where_it_does_not_exist():
    with pytest.raises(BoxCoxError, match="does not exist"):
        mean_normal([1.0], 2.0, -1.0, "boxcox")


def test_smearing_with_true_errors_estimates_the_mean():
    """With the true errors the smearing estimate is a sample mean of g^{-1}(mu + e): its
    error is the Monte Carlo error, sd/sqrt(n) (here about 0.25%); 5 sd allowed."""
    rng = np.random.default_rng(7)
    e = 0.5 * rng.standard_normal(40_000)
    got = mean_smearing([2.0], e, 0.0, "boxcox")[0]
    truth = np.exp(2.0 + 0.125)
    sd = np.exp(2.0) * np.sqrt(np.exp(0.5) * (np.exp(0.25) - 1)) / np.sqrt(e.size)
    assert abs(got - truth) < 5 * sd


@pytest.mark.parametrize("family", ["boxcox", "yeojohnson"])
def test_median_inverts_the_transform(family):
    x = np.array([0.3, 1.0, 7.5, 40.0])
    for lam in (-1.2, 0.0, 0.4, 2.5):
        assert np.allclose(median(transform(x, lam, family), lam, family), x, rtol=1e-12)
