"""tune(): modes, starts, curves and the L-infinity distance."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.linear_model import LogisticRegression

import boxcoxstat as bcs
from boxcoxstat import BoxCoxError
from boxcoxstat.classify import criterion_curves, linf_distance, tune
from boxcoxstat.classify.criteria import scale_unit_range
from tests.classify.synth import italy_corsica


def test_diagonal_ml_equals_per_feature_mle_of_scaled_data():
    """Diagonal + ML + continuous search: each lambda is that column's ML lambda (scipy)."""
    rng = np.random.default_rng(0)
    X = np.exp(rng.normal(size=(200, 3)) * [0.2, 0.5, 1.0])
    y = rng.integers(0, 2, 200)
    res = tune(X, y, mode="diagonal", criterion="ml", search="continuous")
    Xs = scale_unit_range(X, X.min(0), X.max(0))
    ref = [stats.boxcox_normmax(Xs[:, j], method="mle") for j in range(3)]
    ref = np.clip(ref, -5, 5)
    np.testing.assert_allclose(res.lmbda, ref, atol=2e-3)
    np.testing.assert_allclose(np.clip(res.ml_lmbda, -5, 5), ref, atol=1e-4)


def test_full_mode_start_is_ml_and_never_worse():
    X, y = italy_corsica(200)
    res = tune(X, y, mode="full", criterion="fisher", epochs=2)
    assert res.score >= res.evaluations["score"].iloc[0]  # the first evaluation is the start
    np.testing.assert_allclose(res.evaluations.iloc[0, :2], np.clip(res.ml_lmbda, -5, 5))
    assert res.trace.shape == (2, 1)


def test_spherical_cv_finds_separating_lambda():
    X, y = italy_corsica(400)
    res = tune(X, y, LogisticRegression(C=1e4, max_iter=5000), mode="spherical",
               criterion="train", search="grid")
    assert res.baseline < 1.0 and res.score == 1.0 and res.lmbda[0] >= 2.0
    assert np.all(res.lmbda == res.lmbda[0])


def test_dataframe_names_and_reproducibility():
    X, y = italy_corsica(120)
    df = pd.DataFrame(X, columns=["lon", "lat"])
    kw = dict(mode="full", criterion="cv", epochs=2, shift_epoch=1, shuffle_epoch=1,
              random_state=7, cv=2, grid=[-2.0, 0.0, 1.0, 3.0])
    a = tune(df, y, LogisticRegression(), **kw)
    b = tune(df, y, LogisticRegression(), **kw)
    assert list(a.params.index) == ["lon", "lat"]
    np.testing.assert_array_equal(a.lmbda, b.lmbda)


def test_criterion_curves_and_linf():
    X, y = italy_corsica(120)
    curves = criterion_curves(X, y, ("ml", "pcml", "fisher"), lmbda=np.arange(-2, 2.5, 0.5))
    assert list(curves.columns) == ["ml", "pcml", "fisher"]
    assert curves.index.size == 9
    assert linf_distance(curves["ml"], curves["ml"]) == 0.0
    assert linf_distance([0, 1], [1, 0]) == 1.0
    assert linf_distance([3, 3], [0, 1]) == 1.0


def test_lazy_import_and_errors():
    assert bcs.classify.tune is tune
    X, y = italy_corsica(40)
    with pytest.raises(BoxCoxError, match="one class"):
        tune(X, np.zeros(40), mode="full", criterion="ml")
    with pytest.raises(BoxCoxError, match="mode"):
        tune(X, y, mode="banana", criterion="ml")
    with pytest.raises(BoxCoxError, match="continuous"):
        tune(X, y, mode="full", criterion="ml", search="continuous")
    with pytest.raises(BoxCoxError, match="NaN"):
        tune(np.where(X > 1.9, np.nan, X), y, criterion="ml")
    with pytest.raises(BoxCoxError, match="start"):
        tune(X, y, criterion="ml", start=[1.0])


def test_diagonal_cv_chooses_each_feature_alone():
    """Diagonal mode searches each column on its own (the criterion sees one column during
    the search; the baseline and tuned values use both). Class 1 sits at the top of feature 0,
    so the gap of class means of x**lambda grows with lambda: best is the grid's end, 5."""
    rng = np.random.default_rng(5)
    n = 300
    y = rng.integers(0, 2, n)
    x0 = np.where(y == 1, 1.9 + 0.1 * rng.random(n), 1.0 + 0.9 * rng.random(n))
    x1 = 1.0 + rng.random(n)
    X = np.column_stack([x0, x1])
    seen = []

    def crit(Xc, yc, lam):
        seen.append(Xc.shape[1])
        return float(np.mean(Xc[yc == 1, 0] ** lam[0]) - np.mean(Xc[yc == 0, 0] ** lam[0]))

    res = tune(X, y, mode="diagonal", criterion=crit, search="grid")
    assert seen.count(1) == 2 * 11 and seen.count(2) == 2
    assert res.lmbda[0] == 5.0


def test_import_boxcoxstat_does_not_import_sklearn():
    import subprocess
    import sys

    code = "import sys, boxcoxstat; print('sklearn' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "False"


def test_full_search_values_are_reused():
    """The baseline (all lambdas 1) and the tuned value come from the search's own
    evaluations when it made them: a 2-D grid that contains 1 costs 121 evaluations."""
    X, y = italy_corsica(80)
    calls = []

    def crit(Xc, yc, lam):
        calls.append(1)
        return bcs.classify.criteria.fisher_criterion(Xc, yc, lam)

    res = tune(X, y, mode="full", criterion=crit, search="grid")
    assert len(calls) == 121
    Xs = scale_unit_range(X, X.min(0), X.max(0))
    assert res.baseline == bcs.classify.criteria.fisher_criterion(Xs, y, [1.0, 1.0])
    assert res.score == bcs.classify.criteria.fisher_criterion(Xs, y, res.lmbda)


def test_nelder_mead_full_fisher_is_scipy_fmin_on_the_criterion():
    """search="nelder-mead" (Bicego & Baldo's fminsearch) from the ML start is scipy's fmin
    on the Fisher criterion of the scaled data, the peer computed here."""
    from scipy.optimize import fmin

    X, y = italy_corsica(150, seed=2)
    res = tune(X, y, mode="full", criterion="fisher", search="nelder-mead")
    Xs = scale_unit_range(X, X.min(0), X.max(0))
    f = bcs.classify.criteria.fisher_criterion
    ref = fmin(lambda v: -f(Xs, y, v), np.clip(res.ml_lmbda, -5, 5), disp=False)
    np.testing.assert_allclose(res.lmbda, ref, atol=1e-9)
    assert res.score >= res.baseline and res.search == "nelder-mead"


def test_rule_and_rescale_are_recorded():
    X, y = italy_corsica(60)
    res = tune(X, y, LogisticRegression(), criterion="train", rule="paper", rescale="minmax",
               epochs=1, grid=[0.0, 2.0])
    back = type(res).from_json(res.to_json())
    assert (back.rule, back.rescale) == ("paper", "minmax")
    assert "iterative (rule paper)" in str(res.summary())
    with pytest.raises(BoxCoxError, match="rule"):
        tune(X, y, criterion="ml", rule="global")
    with pytest.raises(BoxCoxError, match="rescale"):
        tune(X, y, criterion="ml", rescale="robust")
