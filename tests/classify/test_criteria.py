"""Criteria of boxcoxstat.classify.criteria against independent computations."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from boxcoxstat import BoxCoxError
from boxcoxstat.classify.criteria import (
    fisher_criterion,
    get_criterion,
    margin_criterion,
    ml_criterion,
    ml_lambdas,
    pcml_criterion,
)
from boxcoxstat.classify.search import scalar_search
from tests.classify.synth import italy_corsica


@pytest.fixture(scope="module")
def lognormal2():
    rng = np.random.default_rng(3)
    X = np.exp(0.3 * rng.normal(size=(150, 2)))
    y = np.repeat([0, 1, 2], 50)
    X[y == 1] *= 1.4
    return X, y


def test_ml_criterion_is_mean_of_scipy_boxcox_llf(lognormal2):
    X, _ = lognormal2
    lam = np.array([0.3, -1.7])
    ref = np.mean([stats.boxcox_llf(lam[j], X[:, j]) for j in range(2)])
    assert ml_criterion(X, None, lam) == pytest.approx(ref, rel=1e-10)


def test_ml_lambdas_match_scipy_normmax(lognormal2):
    X, _ = lognormal2
    ref = [stats.boxcox_normmax(X[:, j], method="mle") for j in range(2)]
    np.testing.assert_allclose(ml_lambdas(X), ref, atol=1e-5)


def test_ml_criterion_spherical_best_is_scipy_optimum(lognormal2):
    """Known best: the spherical ML lambda maximises the summed scipy log-likelihoods."""
    X, _ = lognormal2
    out = scalar_search(lambda v: ml_criterion(X, None, v))
    from scipy.optimize import minimize_scalar

    ref = minimize_scalar(lambda v: -sum(stats.boxcox_llf(v, X[:, j]) for j in range(2)),
                          bounds=(-5, 5), method="bounded", options={"xatol": 1e-8}).x
    assert out.lmbda[0] == pytest.approx(ref, abs=1e-3)


def test_pcml_is_sum_over_classes(lognormal2):
    X, y = lognormal2
    lam = np.array([0.5, 2.0])
    ref = sum(np.mean([stats.boxcox_llf(lam[j], X[y == c, j]) for j in range(2)])
              for c in range(3))
    assert pcml_criterion(X, y, lam) == pytest.approx(ref, rel=1e-10)


def test_constant_column_does_not_break_ml():
    X = np.column_stack([np.linspace(1, 2, 20), np.ones(20)])
    y = np.repeat([0, 1], 10)
    v = ml_criterion(X, y, [1.0, 1.0])
    assert v == pytest.approx(stats.boxcox_llf(1.0, X[:, 0]) / 2)
    assert np.isfinite(pcml_criterion(X, y, [0.5, 3.0]))


def _fisher_two_class(Z, y):
    """Two-class closed form P0 P1 d^T Sw^-1 d (Fukunaga 1990), an independent route."""
    a, b = Z[y == 0], Z[y == 1]
    p0, p1 = len(a) / len(Z), len(b) / len(Z)
    sw = p0 * np.cov(a.T, bias=True) + p1 * np.cov(b.T, bias=True)
    d = a.mean(0) - b.mean(0)
    return p0 * p1 * d @ np.linalg.solve(sw, d)


def test_fisher_matches_two_class_closed_form():
    X, y = italy_corsica(200, seed=1)
    for lam in ([1.0, 1.0], [3.0, -2.0], [0.0, 0.5]):
        Z = stats.boxcox(X[:, 0], lam[0]), stats.boxcox(X[:, 1], lam[1])
        ref = _fisher_two_class(np.column_stack(Z), y)
        assert fisher_criterion(X, y, lam) == pytest.approx(ref, rel=1e-9)


def test_fisher_known_best_one_feature():
    """Class 0 tight at the low end, class 1 spread at the top: a negative lambda compresses
    the top, so the best lambda (from an independent variance-ratio computation) is far
    below 1, and the continuous search finds it."""
    rng = np.random.default_rng(0)
    x = np.r_[1.0 + 0.05 * rng.random(40), 1.5 + 0.5 * rng.random(40)]
    y = np.repeat([0, 1], 40)
    grid = np.linspace(-5, 5, 101)
    ref = [np.var(np.r_[stats.boxcox(x[:40], v).mean(), stats.boxcox(x[40:], v).mean()])
           / (0.5 * stats.boxcox(x[:40], v).var() + 0.5 * stats.boxcox(x[40:], v).var())
           for v in grid]
    got = [fisher_criterion(x[:, None], y, v) for v in grid]
    np.testing.assert_allclose(got, ref, rtol=1e-8)
    best = grid[int(np.argmax(ref))]
    assert best < -2.0
    out = scalar_search(lambda v: fisher_criterion(x[:, None], y, v))
    assert out.lmbda[0] == pytest.approx(best, abs=0.1)


def _margin_loops(Z, y):
    Z = (Z - Z.mean(0)) / Z.std(0)
    total = []
    for i in range(len(Z)):
        d = np.sqrt(((Z - Z[i]) ** 2).sum(1))
        d[i] = np.inf
        total.append(0.5 * (d[y != y[i]].min() - d[y == y[i]].min()))
    return np.mean(total)


def test_margin_matches_loops_and_prefers_separating_lambda():
    X, y = italy_corsica(120, seed=2)
    for lam in (1.0, 4.0):
        Z = np.column_stack([stats.boxcox(X[:, j], lam) for j in range(2)])
        assert margin_criterion(X, y, lam) == pytest.approx(_margin_loops(Z, y), rel=1e-9)
    grid = np.arange(-5.0, 5.5, 1.0)
    vals = [margin_criterion(X, y, v) for v in grid]
    assert grid[int(np.argmax(vals))] >= 2.0


def test_cv_criterion_equals_manual_cross_validation():
    X, y = italy_corsica(120, seed=3)
    crit = get_criterion("cv", classifier=GaussianNB(), cv=4, random_state=5)
    Z = np.column_stack([stats.boxcox(X[:, j], 2.0) for j in range(2)])
    ref = cross_val_score(make_pipeline(StandardScaler(), GaussianNB()), Z, y,
                          cv=StratifiedKFold(4, shuffle=True, random_state=5)).mean()
    assert crit(X, y, [2.0, 2.0]) == pytest.approx(ref, abs=1e-12)


def test_minmax_rescale_equals_scikit_learn_pipeline():
    """rescale="minmax" (Bicego & Baldo 2016: the transformed features scaled into [1, 2]
    again) is scikit-learn's MinMaxScaler((1, 2)) fitted on each training fold; 1-NN sees a
    different geometry than after standardising, so the value depends on the option."""
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.preprocessing import MinMaxScaler

    X, y = italy_corsica(120, seed=3)
    knn = KNeighborsClassifier(1)
    Z = np.column_stack([stats.boxcox(X[:, j], lam) for j, lam in enumerate([3.0, -2.0])])
    folds = StratifiedKFold(4, shuffle=True, random_state=5)
    for rescale, scaler in (("minmax", MinMaxScaler((1, 2))), ("standard", StandardScaler())):
        crit = get_criterion("cv", classifier=knn, cv=4, random_state=5, rescale=rescale)
        ref = cross_val_score(make_pipeline(scaler, knn), Z, y, cv=folds).mean()
        assert crit(X, y, [3.0, -2.0]) == pytest.approx(ref, abs=1e-12)
    train = get_criterion("train", classifier=knn, rescale="minmax")
    assert train(X, y, [3.0, -2.0]) == 1.0  # 1-NN on its own training points
    with pytest.raises(BoxCoxError, match="rescale"):
        get_criterion("cv", classifier=knn, rescale="unit")


def test_margin_minmax_by_hand():
    """Margin after re-scaling into [1, 2]: lambda = 3 maps 1, 1.1, 1.9, 2 to
    (x**3 - 1) / 3, and the re-scaling to 1 + (x**3 - 1) / 7 = 1, 1.0473, 1.8370, 2: hits
    0.0473, 0.0473, 0.1630, 0.1630, misses 0.8370, 0.7897, 0.7897, 0.9527."""
    X = np.array([[1.0], [1.1], [1.9], [2.0]])
    hit = np.array([0.331, 0.331, 1.141, 1.141]) / 7
    miss = np.array([5.859, 5.528, 5.528, 6.669]) / 7
    got = margin_criterion(X, [0, 0, 1, 1], 3.0, rescale="minmax")
    assert got == pytest.approx(np.mean((miss - hit) / 2), abs=1e-12)
    assert got != pytest.approx(margin_criterion(X, [0, 0, 1, 1], 3.0), abs=1e-3)


def test_train_criterion_only_large_lambda_separates():
    """Italy/Corsica: a linear classifier reaches 100% only after a large lambda."""
    X, y = italy_corsica()
    crit = get_criterion("train", classifier=LogisticRegression(C=1e4, max_iter=5000))
    assert crit(X, y, [1.0, 1.0]) < 1.0
    assert crit(X, y, [5.0, 5.0]) == 1.0


def test_bad_criterion_names_raise():
    with pytest.raises(BoxCoxError, match="unknown criterion"):
        get_criterion("gaussianity")
    with pytest.raises(BoxCoxError, match="needs a scikit-learn classifier"):
        get_criterion("cv")
    with pytest.raises(BoxCoxError, match="features"):
        ml_criterion(np.ones((5, 2)) + np.arange(5)[:, None], None, [1.0, 2.0, 3.0])


def test_pcml_known_best_is_scipy_optimum(lognormal2):
    """Spherical PCML optimum = maximiser of the per-class scipy log-likelihoods, which for
    lognormal classes is near 0 (the log)."""
    X, y = lognormal2
    from scipy.optimize import minimize_scalar

    def ref_obj(v):
        return -sum(np.mean([stats.boxcox_llf(v, X[y == c, j]) for j in range(2)])
                    for c in range(3))

    ref = minimize_scalar(ref_obj, bounds=(-5, 5), method="bounded",
                          options={"xatol": 1e-8}).x
    out = scalar_search(lambda v: pcml_criterion(X, y, v))
    assert out.lmbda[0] == pytest.approx(ref, abs=1e-3)
    assert abs(ref) < 1.0


def test_cv_criterion_uses_same_folds_without_random_state():
    """Without random_state the folds are not reshuffled between lambdas."""
    X, y = italy_corsica(120, seed=6)
    crit = get_criterion("cv", classifier=GaussianNB(), cv=4)
    assert crit(X, y, [0.5, 2.0]) == crit(X, y, [0.5, 2.0])
