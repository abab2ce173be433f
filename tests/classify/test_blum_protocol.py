"""Blum, Menon & Elgendi's iterative search as printed (``rule="paper"``), against a literal
transcription of their pseudo-code (Optimization 2 and 2.1-2.3, uncached, so the cached
search that skips unmoved epochs is checked against it) and their printed tables: Table 4
(sonar, naive Bayes, Basic and Shuffle; SVC, Finer), Table 6 (wdbc, naive Bayes, Shuffle;
KNN and SVC, Finer), Tables 5 and 7 (two-feature subsets, KNN and naive Bayes; Table 7's
SVC tuned accuracy) and Table 2 (half circles, the perceptron), each slow."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special, stats
from sklearn.model_selection import RepeatedStratifiedKFold, cross_val_score
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler, StandardScaler
from threadpoolctl import threadpool_limits  # installed with scikit-learn

import boxcoxstat as bcs
from boxcoxstat.classify import BoxCoxTunedClassifier, tune


@pytest.fixture(autouse=True)
def _one_thread():
    """One BLAS / OpenMP thread, as the vignette runs: the searches make thousands of tiny
    fits, where threads only add overhead, and a slow test should take one core of CI."""
    with threadpool_limits(1):
        yield


def _sonar(columns=None):
    df = bcs.datasets.load("sonar")
    X = df.drop(columns="Class").to_numpy(float)
    return (X if columns is None else X[:, columns]), df["Class"].to_numpy()


def literal_basic(X, y, epochs, finer_epoch=None):
    """Optimization 2 (Basic) of the paper line by line, with Optimization 2.3 (Finer):
    min-max into [1, 2] (Algorithm 2), G = each column's ML lambda (scipy), A <- 0, for each
    epoch and direction a 1-D grid over -5..5 replacing one coordinate of Lambda_opt, and
    Lambda_opt <- Lambda_tmp whenever the training accuracy of the standard-scaled data
    beats A. Finer scales the grid by 0.5 and centres it on Lambda_opt[dir]; it acts once
    ``finer_epoch`` epochs have run (Table 3 sets an option to the number of epochs to
    switch it off)."""
    Xs = MinMaxScaler((1, 2)).fit_transform(X)
    p = Xs.shape[1]
    lam_opt = np.array([stats.boxcox(Xs[:, j])[1] for j in range(p)])
    grid = np.linspace(-5.0, 5.0, 11)
    local = False
    A = 0.0
    for epoch in range(epochs):
        if finer_epoch is not None and epoch > 0 and epoch % finer_epoch == 0:
            grid, local = 0.5 * grid, True
        for d in range(p):
            lam_tmp = lam_opt.copy()
            for value in grid + (lam_opt[d] if local else 0.0):
                lam_tmp[d] = value
                XB = np.column_stack([special.boxcox(Xs[:, j], lam_tmp[j]) for j in range(p)])
                XS = StandardScaler().fit_transform(XB)
                A_tmp = GaussianNB().fit(XS, y).score(XS, y)
                if A_tmp > A:
                    A, lam_opt = A_tmp, lam_tmp.copy()
    return lam_opt, A


@pytest.mark.parametrize("finer_epoch", [None, 1])
def test_paper_rule_is_the_printed_pseudo_code(finer_epoch):
    """Seven sonar features, three epochs: the same lambda vector and training accuracy as
    the literal transcription (ties in accuracy are exact: counts over the same rows)."""
    X, y = _sonar([0, 1, 2, 10, 20, 44, 59])  # 1-based 1-3, 11, 21, 45 and 60
    ref_lam, ref_acc = literal_basic(X, y, 3, finer_epoch)
    res = tune(X, y, GaussianNB(), criterion="train", rule="paper", epochs=3,
               finer_epoch=finer_epoch, grid=np.linspace(-5, 5, 11))
    # the start (ML lambdas) is solved by another routine than scipy's; 1e-6 covers the
    # two solvers' tolerances, every searched coordinate is a grid value and equal exactly
    np.testing.assert_allclose(res._lmbda_used, ref_lam, rtol=0, atol=1e-6)
    assert res.score == ref_acc
    assert np.any(np.abs(ref_lam) > 5)  # a start value outside the grid is kept unclipped


@pytest.mark.slow
def test_table4_naive_bayes_basic_on_the_papers_folds():
    """Table 4, sonar, Bayesian: base accuracy 67.7 and Basic +7.919 points on their 10-fold
    x 5 folds, with their rule, unclipped start and unclipped test values (about 4 minutes
    of CPU). Clipping the test values gives +8.01, clipping the start as well +7.99."""
    X, y = _sonar()
    folds = RepeatedStratifiedKFold(n_splits=10, n_repeats=5, random_state=42)
    base = cross_val_score(make_pipeline(MinMaxScaler((1, 2)), StandardScaler(),
                                         GaussianNB()), X, y, cv=folds).mean()
    tuned = cross_val_score(
        BoxCoxTunedClassifier(GaussianNB(), criterion="train", rule="paper", clip=False,
                              grid=np.linspace(-5, 5, 11), epochs=4, shift_epoch=4,
                              shuffle_epoch=4, finer_epoch=4, random_state=42),
        X, y, cv=folds).mean()
    # the paper prints three decimals; one test prediction changed in any of the 50 folds
    # would move the mean by about 0.095 points, so 5e-4 checks every fold's outcome
    assert 100 * base == pytest.approx(67.700, abs=5e-4)
    assert 100 * (tuned - base) == pytest.approx(7.919, abs=5e-4)


def literal_combined(f, start, grid, epochs, shift_epoch, shuffle_epoch, finer_epoch, seed):
    """Optimization 2 with 2.1 (Shift), 2.2 (Shuffle) and 2.3 (Finer) as printed, without a
    cache and without skipping any epoch: every candidate of every direction of every epoch
    is evaluated. The random draws follow the package's order (the new direction order,
    then the new start G from the current grid), so both searches see the same restarts.
    After a Shift each direction is searched around G until a candidate beats the best
    accuracy A; Finer centres the scaled grid on Lambda_opt[dir]."""
    rng = np.random.default_rng(seed)
    g = np.asarray(grid, dtype=float)
    p = len(start)
    lam_opt, A = np.array(start, dtype=float), -np.inf
    order, local, shift, calls = np.arange(p), False, False, 0
    for epoch in range(epochs):
        if epoch > 0 and epoch % shuffle_epoch == 0:
            order = rng.permutation(p)
        if epoch > 0 and epoch % shift_epoch == 0:
            G, shift = rng.choice(g, size=p), True
        if epoch > 0 and epoch % finer_epoch == 0:
            g, local = 0.5 * g, True
        for d in order:
            lam_tmp = (G if shift else lam_opt).copy()
            for value in g + (lam_opt[d] if local else 0.0):
                lam_tmp[d] = value
                calls += 1
                a = f(lam_tmp)
                if a > A:
                    A, lam_opt, shift = a, lam_tmp.copy(), False
    return lam_opt, A, calls


SETTINGS = {"Shift": (11, 8, 4, 8, 8), "Shuffle": (11, 8, 8, 2, 8), "Finer": (11, 8, 8, 8, 4),
            "Combined 1": (11, 16, 8, 2, 4), "Combined 2": (21, 16, 8, 2, 4)}  # Table 3


def _trap(lam):
    """A coordinate trap: from (1, 1, 1, 1) the search climbs to 5 at (3, 1, 2, 0); the peak
    (above 9) needs lambda_1 in [3.45, 4.05] and lambda_2 in [-1.6, -0.4] together, so only
    a restart (Shift) with lambda_2 there reaches it, and with Finer only if the refined
    grid is centred on Lambda_opt (3), not on the restart point. Floors make plateaus,
    where the strict acceptance rule decides."""
    a, b, c, d = lam
    v = 5 - 0.25 * np.floor(abs(a - 3)) - 0.25 * np.floor(abs(c - 2)) - 0.1 * np.floor(abs(d))
    if abs(a - 3.75) <= 0.3 and abs(b + 1) <= 0.6:
        v += 10 - abs(a - 1) - abs(b + 1.2) - 0.5 * abs(d - 1.5)
    return float(v)


def _compare(f, p, setting, seed):
    from boxcoxstat.classify.search import coordinate_search

    size, epochs, shift, shuffle, finer = setting
    grid = np.linspace(-5, 5, size)
    ref_lam, ref_score, ref_calls = literal_combined(f, [1.0] * p, grid, epochs, shift,
                                                     shuffle, finer, seed)
    calls = []

    def counted(lam):
        calls.append(1)
        return f(lam)

    out = coordinate_search(counted, [1.0] * p, grid=grid, epochs=epochs, shift_epoch=shift,
                            shuffle_epoch=shuffle, finer_epoch=finer, rule="paper",
                            random_state=seed)
    # grid values and their halves are exact in binary and both searches compute the same
    # expression at the same points: equal without a tolerance
    assert out.lmbda.tolist() == ref_lam.tolist()
    assert out.score == ref_score
    assert len(calls) == len(out.evaluated) < ref_calls
    return ref_calls, len(calls)


@pytest.mark.parametrize("name", list(SETTINGS))
def test_cached_search_equals_the_uncached_pseudo_code(name):
    """Table 3's settings on a coordinate trap, twenty seeds: the cached search that skips
    unmoved epochs ends where the uncached transcription does, with fewer evaluations, and
    where a setting restarts (Shift, Combined 1-2) some seeds escape the trap, so the
    restarts and their refined grids are compared too."""
    scores = []
    for seed in range(20):
        _compare(_trap, 4, SETTINGS[name], seed)
        scores.append(literal_combined(_trap, [1.0] * 4, np.linspace(-5, 5, SETTINGS[name][0]),
                                       *SETTINGS[name][1:], seed)[1])
    assert min(scores) == 5.0  # the trap
    assert (max(scores) > 9) == (name in ("Shift", "Combined 1", "Combined 2"))


def test_cached_search_equals_the_uncached_pseudo_code_on_sonar():
    """Combined 1 on sonar features 11 and 45 (1-based), naive Bayes training accuracy after
    min-max into [1, 2], Box-Cox and standard scaling: same lambdas, same accuracy, and
    each distinct point fitted once (under half the uncached fits)."""
    X, y = _sonar([10, 44])
    Xs = MinMaxScaler((1, 2)).fit_transform(X)

    def accuracy(lam):
        XB = np.column_stack([special.boxcox(Xs[:, j], lam[j]) for j in range(len(lam))])
        XS = StandardScaler().fit_transform(XB)
        return GaussianNB().fit(XS, y).score(XS, y)

    uncached, cached = _compare(accuracy, 2, SETTINGS["Combined 1"], 42)
    assert 2 * cached < uncached


# ------------------------------------------------- Tables 5 and 7: two-feature subsets
def _paper_cells(X, y, clf, settings):
    """Base accuracy and the improvement of each setting (percentage points) on the paper's
    folds, with its pipeline, rule, unclipped start and test values (Table 3 settings)."""
    folds = RepeatedStratifiedKFold(n_splits=10, n_repeats=5, random_state=42)
    base = cross_val_score(make_pipeline(MinMaxScaler((1, 2)), StandardScaler(), clf), X, y,
                           cv=folds).mean()
    out = {"Base accuracy": 100 * base}
    for name in settings:
        if name == "Gridsearch":
            est = BoxCoxTunedClassifier(clf, criterion="train", search="grid", clip=False)
        else:
            size, epochs, shift, shuffle, finer = {"Basic": (11, 4, 4, 4, 4),
                                                   **SETTINGS}[name]
            est = BoxCoxTunedClassifier(
                clf, criterion="train", rule="paper", clip=False,
                grid=np.linspace(-5, 5, size), epochs=epochs, shift_epoch=shift,
                shuffle_epoch=shuffle, finer_epoch=finer, random_state=42)
        out[name] = 100 * (cross_val_score(est, X, y, cv=folds).mean() - base)
    return out


def _assert_as_printed(ours, paper):
    for key, value in paper.items():
        # the paper prints three decimals; one test prediction changed in any of the 50
        # folds moves a mean by at least 100 / (50 * 57) = 0.035 points (wdbc; sonar 0.095)
        assert ours[key] == pytest.approx(value, abs=5e-4), key


TABLE5 = {  # sonar, 1-based features: KNN and Bayesian base accuracy and improvements
    (8, 41): {"KNN": [54.09, -0.924, -1.195, -1.195, -1.200],
              "Bayesian": [57.39, 3.476, 3.481, 3.481, 3.386]},
    (2, 48): {"KNN": [64.862, 0.090, -0.014, -0.014, 0.567],
              "Bayesian": [62.59, 5.224, 4.633, 4.633, 4.448]},
    (11, 45): {"KNN": [71.371, -0.186, -0.957, -0.957, -0.567],
               "Bayesian": [64.805, 8.886, 9.462, 9.462, 9.562]},
    (12, 36): {"KNN": [70.443, 0.681, 1.733, 1.733, 1.924],
               "Bayesian": [70.705, -0.695, -1.543, -1.543, -1.929]},
}
DETERMINISTIC = ["Gridsearch", "Basic", "Shuffle", "Finer"]


TABLE7 = {  # wdbc, 1-based features: KNN and Bayesian base accuracy and improvements
    (2, 6): {"KNN": [79.615, 0.176, 0.034, 0.034, 0.068],
             "Bayesian": [81.622, 1.019, 0.635, 0.635, 0.635]},
    (5, 27): {"KNN": [84.538, 0.072, 0.071, 0.071, 0.036],
              "Bayesian": [84.677, -0.034, -0.034, -0.034, -0.174]},
    (4, 24): {"KNN": [92.864, -0.211, -0.140, -0.140, -0.246],
              "Bayesian": [90.893, 0.140, -0.246, -0.246, -0.246]},
    (14, 23): {"KNN": [90.439, -0.315, -0.386, -0.386, -0.352],
               "Bayesian": [90.966, 0.385, 0.349, 0.349, 0.384]},
}


def _wdbc(columns):
    df = bcs.datasets.load("wdbc")
    return (df.drop(columns=["ID", "Diagnosis"]).to_numpy(float)[:, columns],
            df["Diagnosis"].to_numpy())


def _check_pair(X, y, printed):
    from sklearn.neighbors import KNeighborsClassifier

    for name, clf in (("KNN", KNeighborsClassifier(n_neighbors=5)), ("Bayesian", GaussianNB())):
        ours = _paper_cells(X, y, clf, DETERMINISTIC)
        _assert_as_printed(ours, dict(zip(["Base accuracy", *DETERMINISTIC], printed[name],
                                          strict=True)))


@pytest.mark.slow
@pytest.mark.parametrize("pair", list(TABLE5), ids=lambda p: f"{p[0]}-{p[1]}")
def test_table5_knn_and_naive_bayes_as_printed(pair):
    """Table 5 (sonar two-feature subsets): base accuracy and the improvement of the
    gridsearch (Optimization 1) and of the settings without random restarts, for KNN and
    naive Bayes, to the paper's three decimals (about 70 s of CPU per pair)."""
    _check_pair(*_sonar([pair[0] - 1, pair[1] - 1]), TABLE5[pair])


@pytest.mark.slow
@pytest.mark.parametrize("pair", list(TABLE7), ids=lambda p: f"{p[0]}-{p[1]}")
def test_table7_knn_and_naive_bayes_as_printed(pair):
    """Table 7 (wdbc two-feature subsets), the same cells as Table 5's test (about 100 s
    of CPU per pair)."""
    _check_pair(*_wdbc([pair[0] - 1, pair[1] - 1]), TABLE7[pair])


TABLE7_SVC = {  # wdbc, 1-based features: SVC base accuracy, Basic, Shuffle, Finer (printed)
    (2, 6): [82.678, 0.455, 0.455, 0.490],
    (4, 24): [92.439, -0.175, -0.175, -0.175],
    (14, 23): [92.407, -0.350, -0.350, -0.350],
}


@pytest.mark.slow
@pytest.mark.parametrize("pair", list(TABLE7_SVC), ids=lambda p: f"{p[0]}-{p[1]}")
def test_table7_svc_tuned_accuracy_as_printed(pair):
    """Table 7, SVC, the settings without random restarts: the tuned mean test accuracy
    (base + improvement) is the paper's on three of the four pairs, although the base
    accuracy is one test prediction off on 2/6 and 4/24 (82.643 vs 82.678, 92.404 vs
    92.439); *Shuffle* equals *Basic*, as in the paper (about 40 s of CPU per pair). On
    5/27 the base is the paper's and the tuned accuracies one prediction apart (README)."""
    from sklearn.svm import SVC

    X, y = _wdbc([pair[0] - 1, pair[1] - 1])
    ours = _paper_cells(X, y, SVC(kernel="rbf", random_state=42), ["Basic", "Shuffle", "Finer"])
    base, *gains = TABLE7_SVC[pair]
    for name, gain in zip(["Basic", "Shuffle", "Finer"], gains, strict=True):
        # the printed base and improvement are each rounded to three decimals, so their sum
        # is within 1e-3 of the paper's tuned accuracy; one test prediction moves it 0.035
        assert ours["Base accuracy"] + ours[name] == pytest.approx(base + gain, abs=1.5e-3)
    assert ours["Shuffle"] == ours["Basic"]


@pytest.mark.slow
def test_table2_half_circles_linear_diagonal_loses():
    """Table 2, interleaving half circles, linear classifier (Algorithm 1 heatmap over the
    11 x 11 grid on the paper's folds): the full optimum gains about as printed, the best
    shared lambda less, and the diagonal setting (each lambda chosen with the other at 1,
    then combined) loses accuracy, the paper's own example of section 3 (about 20 s of CPU)."""
    from sklearn.datasets import make_moons
    from sklearn.linear_model import SGDClassifier

    X, y = make_moons(n_samples=300, noise=0.1, random_state=42)
    folds = RepeatedStratifiedKFold(n_splits=10, n_repeats=5, random_state=42)
    res = tune(X, y, SGDClassifier(loss="perceptron", random_state=42), mode="full",
               search="grid", criterion="cv", cv=folds, grid=np.linspace(-5, 5, 11))
    ev = res.evaluations
    A = 100 * ev.pivot_table(index=ev.columns[0], columns=ev.columns[1], values="score")
    base = A.loc[1.0, 1.0]
    spherical = max(A.iloc[k, k] for k in range(11)) - base
    l1 = A[1.0].idxmax()  # lambda_1 with lambda_2 = 1 (the first maximum: no ties here)
    l2 = A.loc[1.0].idxmax()
    assert (A[1.0] == A[1.0].max()).sum() == 1 and (A.loc[1.0] == A.loc[1.0].max()).sum() == 1
    # the generator's size and noise are not printed (ours: chosen so that the base
    # accuracies of four classifiers are within 1 point of the paper's), so the gains are
    # compared to 0.5 points: about five of the 300 points over the 50 folds
    assert base == pytest.approx(83.5, abs=0.5)
    assert A.to_numpy().max() - base == pytest.approx(2.0, abs=0.5)
    assert spherical == pytest.approx(0.5, abs=0.5)
    assert A.loc[l1, l2] - base < 0 < spherical < A.to_numpy().max() - base


@pytest.mark.slow
def test_table6_naive_bayes_shuffle_as_printed():
    """Table 6 (wdbc, 30 features), naive Bayes, *Shuffle* (8 epochs, the direction order
    drawn anew every 2 epochs, seed 42): +1.336 as printed, where *Basic* gives +1.371, so
    the shuffled order changes the result as in the paper (about 90 s of CPU)."""
    X, y = _wdbc(slice(None))
    ours = _paper_cells(X, y, GaussianNB(), ["Shuffle"])
    _assert_as_printed(ours, {"Base accuracy": 93.289, "Shuffle": 1.336})


@pytest.mark.slow
def test_table4_naive_bayes_shuffle_as_printed():
    """Table 4 (sonar, 60 features), naive Bayes, *Shuffle*: +7.919 as printed, equal to
    *Basic* as in the paper (about 150 s of CPU)."""
    X, y = _sonar()
    ours = _paper_cells(X, y, GaussianNB(), ["Shuffle"])
    _assert_as_printed(ours, {"Base accuracy": 67.700, "Shuffle": 7.919})


@pytest.mark.slow
@pytest.mark.parametrize("name, printed", [("KNN", 0.245), ("SVC", 0.211)])
def test_table6_finer_as_printed(name, printed):
    """Table 6 (wdbc, 30 features), *Finer* (8 epochs, the grid refined around the best
    lambdas after epoch 4; no randomness): KNN +0.245 and SVC +0.211 as printed, each equal
    to its *Basic* as in the paper (about 130 s of CPU for KNN, 235 s for SVC)."""
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.svm import SVC

    clf = {"KNN": KNeighborsClassifier(n_neighbors=5), "SVC": SVC(kernel="rbf",
                                                                  random_state=42)}[name]
    X, y = _wdbc(slice(None))
    ours = _paper_cells(X, y, clf, ["Finer"])
    _assert_as_printed(ours, {"Base accuracy": {"KNN": 96.838, "SVC": 97.539}[name],
                              "Finer": printed})


@pytest.mark.slow
def test_table4_svc_finer_as_printed():
    """Table 4 (sonar, 60 features), SVC, *Finer*: +2.286 as printed, equal to its *Basic*
    as in the paper (about 6 minutes of CPU)."""
    from sklearn.svm import SVC

    X, y = _sonar()
    ours = _paper_cells(X, y, SVC(kernel="rbf", random_state=42), ["Finer"])
    _assert_as_printed(ours, {"Base accuracy": 84.052, "Finer": 2.286})
