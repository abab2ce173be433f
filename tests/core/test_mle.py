"""Tests for boxcoxstat.core.mle: the large-sample path and the observed information."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from boxcoxstat.core.likelihood import nll
from boxcoxstat.core.mle import SUBSAMPLE_FROM, curvature, mle_lambda
from boxcoxstat.core.sample import Sample


@pytest.mark.parametrize("family", ["boxcox", "yeojohnson"])
def test_subsample_then_polish_matches_direct_solution(family):
    rng = np.random.default_rng(21)
    n = 3 * SUBSAMPLE_FROM
    x = rng.lognormal(sigma=0.7, size=n) if family == "boxcox" else rng.normal(size=n) ** 3
    fit = mle_lambda(Sample.from_array(x, family))
    ref = stats.boxcox_normmax(x, method="mle") if family == "boxcox" else (
        stats.yeojohnson_normmax(x))
    assert fit.converged[0]
    assert fit.lmbda[0] == pytest.approx(ref, abs=1e-6)
    # the polished root is a true root: the NLL is larger on both sides at 1e-7
    lam = fit.lmbda[0]
    vals = nll(x, [lam - 1e-6, lam, lam + 1e-6], family)
    assert vals[1] < vals[0] and vals[1] < vals[2]


def test_curvature_matches_finite_difference_of_nll():
    x = np.random.default_rng(5).gamma(3.0, size=300)
    sample = Sample.from_array(x)
    lam = mle_lambda(sample).lmbda
    h = 1e-3
    v = nll(x, [lam[0] - h, lam[0], lam[0] + h])
    fd = (v[0] - 2 * v[1] + v[2]) / h**2
    assert curvature(sample, lam)[0] == pytest.approx(fd, rel=1e-5)


def test_score_evaluations_are_few_on_ordinary_data():
    x = np.random.default_rng(0).lognormal(size=(500, 40))
    fit = mle_lambda(Sample.from_array(x))
    assert fit.converged.all()
    assert fit.nfev.max() <= 16
