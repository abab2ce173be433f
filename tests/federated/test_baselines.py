"""The failing baselines reproduce the failures Xu & Cormode (2025) report (section 6.2,
Table 3, Figures 3, 5, 8 and 14); the stable protocol does not fail on the same data."""

from __future__ import annotations

import numpy as np
import pytest

import boxcoxstat as bcs
from boxcoxstat.core.likelihood import nll, score
from boxcoxstat.federated.baselines import expsearch, linear_nll, naive_nll, naive_score
from tests import mpref

# Table 3, "ExpSearch" column: the seven (feature, family) pairs where ExpSearch fails
EXPSEARCH_FAILS = {("lip", "yeojohnson"), ("chg", "yeojohnson"), ("YearRemodAdd", "boxcox"),
                   ("YrSold", "boxcox"), ("Street", "yeojohnson"),
                   ("YearRemodAdd", "yeojohnson"), ("YrSold", "yeojohnson")}
CASES = [
    pytest.param(feat, arr, fam, id=f"{feat}-{fam}")
    for _, feat, arr, fams in mpref.unstable_features()
    for fam in fams
]


def _clients(x, k=100):
    return np.array_split(np.random.default_rng(0).permutation(x), k)


@pytest.mark.parametrize(("feature", "x", "family"), CASES)
def test_expsearch_fails_where_the_paper_says(feature, x, family):
    exact = float(mpref.exact_lambda(x, family))
    lam = expsearch(_clients(x), family)
    failed = abs(lam - exact) > 1e-3 * max(1.0, abs(exact))
    assert failed == ((feature, family) in EXPSEARCH_FAILS)
    fed = bcs.federated.fit(_clients(x), family=family)
    assert abs(fed.lmbda - exact) < 1e-10 * abs(exact)


@pytest.mark.parametrize("row", mpref.table1()[:4], ids=lambda r: str(r["data"]))
def test_expsearch_fails_on_figure3_data(row):
    lam = expsearch(row["data"], row["family"])
    assert abs(lam - row["paper_lambda"]) > 100


def test_naive_aggregation_spikes_on_figure5_data():
    """N(1e4, 1e-3), 100 points: the one-pass variance is noise, the pairwise one is exact."""
    x = mpref.tight_gaussian_case()
    lam = np.linspace(-2e5, 1e5, 61)
    clients = _clients(x, 10)
    exact = np.array([float(mpref.exact_nll(x, v, "boxcox")) for v in lam[::10]])
    stable = bcs.federated.nll_curve(clients, lam)
    np.testing.assert_allclose(stable[::10], exact, rtol=1e-9)
    naive = naive_nll(clients, lam)
    bad = ~np.isfinite(naive) | (np.abs(naive - stable) > 1.0)
    assert bad.mean() > 0.5
    assert np.all(np.diff(stable, 2) > 0)  # smooth and convex


def test_linear_domain_overflows_on_yrsold():
    """Table 3, "Linear" column: YrSold fails in the linear domain for both families."""
    x = next(a for _, f, a, _ in mpref.unstable_features() if f == "YrSold")
    for family in ("boxcox", "yeojohnson"):
        lam = bcs.fit(x, family=family).lmbda
        grid = np.linspace(1.5 * lam, 0.5 * lam, 21)
        assert not np.all(np.isfinite(linear_nll(x, grid, family)))
        assert np.all(np.isfinite(nll(x, grid, family)))


def test_baselines_agree_with_stable_code_on_easy_data():
    x = np.random.default_rng(2).lognormal(size=200)
    lam = np.array([-0.5, 0.0, 0.7])
    np.testing.assert_allclose(linear_nll(x, lam), nll(x, lam), rtol=1e-10)
    np.testing.assert_allclose(naive_nll(_clients(x, 5), lam), nll(x, lam), rtol=1e-8)
    np.testing.assert_allclose(naive_score(x, lam), score(x, lam), rtol=1e-7, atol=1e-8)
    assert expsearch(x) == pytest.approx(bcs.fit(x).lmbda, abs=1e-8)
