"""BoxCoxTunedClassifier as a scikit-learn citizen, and no leakage from test folds."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression, Perceptron
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score, cross_validate
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import check_estimator

from boxcoxstat.classify import BoxCoxTunedClassifier
from tests.classify.synth import italy_corsica

SMALL = {"epochs": 1, "grid": [0.0, 1.0, 2.0], "cv": 2, "random_state": 0}


def test_check_estimator():
    """scikit-learn's API checks (all that apply to a classifier)."""
    check_estimator(BoxCoxTunedClassifier(GaussianNB(), **SMALL))


def test_check_estimator_fisher_spherical():
    check_estimator(BoxCoxTunedClassifier(GaussianNB(), mode="spherical", criterion="fisher",
                                          search="continuous", random_state=0))


SEEN: list[int] = []


def fold_criterion(X, y, lmbda):
    """Optimum at 4 * (share of class 1 in the data it sees); records the row count."""
    SEEN.append(len(y))
    return -float((lmbda[0] - 4.0 * np.mean(y == 1)) ** 2)


def test_no_test_fold_information_reaches_lambda():
    """By construction: the lambda equals 4 x the class-1 share of the TRAINING fold, which
    differs from fold to fold and from the whole data's share."""
    X, y = italy_corsica(120)
    y = np.r_[np.zeros(60, int), np.ones(20, int), np.zeros(20, int), np.ones(20, int)]
    cv = KFold(3)
    pipe = make_pipeline(StandardScaler(), BoxCoxTunedClassifier(
        GaussianNB(), mode="spherical", criterion=fold_criterion, search="continuous"))
    SEEN.clear()
    out = cross_validate(pipe, X, y, cv=cv, return_estimator=True)
    for est, (train, _) in zip(out["estimator"], cv.split(X), strict=True):
        lam = est[-1].lmbda_
        assert lam == pytest.approx(np.full(2, 4.0 * y[train].mean()), abs=1e-3)
    shares = np.array([y[train].mean() for train, _ in cv.split(X)])
    assert shares.tolist() == [0.5, 0.25, 0.25]  # the whole data's share is 1/3
    assert set(SEEN) == {80}  # the criterion only ever saw the 80 training rows
    SEEN.clear()
    scores = cross_val_score(pipe, X, y, cv=cv)
    assert scores.shape == (3,) and set(SEEN) == {80}


def test_pipeline_cross_val_score_and_grid_search():
    X, y = italy_corsica(200, seed=4)
    est = BoxCoxTunedClassifier(Perceptron(random_state=0), **SMALL)
    scores = cross_val_score(make_pipeline(StandardScaler(), est), X, y, cv=3)
    assert scores.shape == (3,) and np.all((scores >= 0) & (scores <= 1))
    gs = GridSearchCV(est, {"mode": ["spherical", "full"]}, cv=2).fit(X, y)
    assert gs.best_params_["mode"] in ("spherical", "full")


def test_tuned_beats_untransformed_on_italy_corsica():
    """A linear model separates Italy from Corsica only after a large lambda."""
    X, y = italy_corsica(400)
    lr = LogisticRegression(C=1e4, max_iter=5000)
    base = make_pipeline(StandardScaler(), lr).fit(X, y).score(X, y)
    est = BoxCoxTunedClassifier(lr, mode="spherical", search="grid", cv=3,
                                grid=np.arange(-5.0, 6.0), random_state=0).fit(X, y)
    assert base < 1.0 and est.score(X, y) == 1.0
    assert est.lmbda_[0] >= 2.0


def test_out_of_range_test_data_is_clipped():
    X, y = italy_corsica(120)
    est = BoxCoxTunedClassifier(GaussianNB(), **SMALL).fit(X, y)
    far = np.array([[-100.0, 1.5], [1e6, 1e6]])
    edge = np.array([[X[:, 0].min(), 1.5], [X[:, 0].max(), X[:, 1].max()]])
    np.testing.assert_allclose(est.transform_features(far), est.transform_features(edge))
    assert np.all(np.isfinite(est.predict_proba(far)))


def test_predict_proba_only_where_classifier_has_it():
    X, y = italy_corsica(80)
    est = BoxCoxTunedClassifier(Perceptron(), **SMALL).fit(X, y)
    assert not hasattr(est, "predict_proba")
    assert est.decision_function(X).shape == (80,)
    assert hasattr(BoxCoxTunedClassifier(GaussianNB()), "predict_proba")


def test_get_set_params_and_summary():
    est = BoxCoxTunedClassifier(GaussianNB(), mode="diagonal", criterion="ml", **SMALL)
    assert est.get_params()["mode"] == "diagonal"
    est.set_params(mode="full")
    X, y = italy_corsica(80)
    est.fit(X, y)
    assert "Box-Cox lambdas tuned" in str(est.tuning_.summary())


def test_tuned_transformer_check_estimator():
    """The transformer half on its own passes scikit-learn's API checks."""
    from boxcoxstat.classify import BoxCoxTunedTransformer

    check_estimator(BoxCoxTunedTransformer(mode="spherical", criterion="fisher",
                                           search="grid", grid=[0.0, 1.0, 2.0]))


def test_tuned_transformer_is_the_classifiers_first_half_in_any_pipeline():
    """Pipeline(tuned transformer, classifier) gives the tuned classifier's lambdas and
    predictions, with names kept by set_output."""
    import pandas as pd

    from boxcoxstat.classify import BoxCoxTunedTransformer

    X, y = italy_corsica(120)
    clf = BoxCoxTunedClassifier(GaussianNB(), **SMALL).fit(X, y)
    pipe = make_pipeline(BoxCoxTunedTransformer(GaussianNB(), **SMALL), GaussianNB()).fit(X, y)
    np.testing.assert_array_equal(pipe[0].lmbda_, clf.lmbda_)
    np.testing.assert_array_equal(pipe.predict(X), clf.predict(X))
    np.testing.assert_allclose(pipe[0].transform(X), clf.transform_features(X), rtol=1e-14)
    df = pd.DataFrame(X, columns=["a", "b"])
    out = BoxCoxTunedTransformer(GaussianNB(), **SMALL).set_output(transform="pandas") \
        .fit(df, y).transform(df)
    assert list(out.columns) == ["a", "b"]


def test_minmax_rescale_puts_training_features_in_1_2():
    """rescale="minmax": the classifier sees each transformed training feature spread over
    exactly [1, 2] (Bicego & Baldo 2016), new data clipped inside it."""
    from boxcoxstat.classify import BoxCoxTunedTransformer

    X, y = italy_corsica(80)
    t = BoxCoxTunedTransformer(GaussianNB(), rescale="minmax", **SMALL).fit(X, y)
    Z = t.transform(X)
    np.testing.assert_allclose(Z.min(axis=0), 1.0, atol=1e-12)
    np.testing.assert_allclose(Z.max(axis=0), 2.0, atol=1e-12)
    far = t.transform(np.array([[100.0, -100.0]]))
    assert np.all((far >= 1.0 - 1e-12) & (far <= 2.0 + 1e-12))


def test_clip_false_is_blum_et_al_algorithm_3():
    """clip=False: new data scaled by the fitted min-max scaler without clipping, Box-Cox
    transformed and standardised, as scikit-learn's MinMaxScaler((1, 2)), scipy's boxcox and
    StandardScaler do (their Algorithm 3); clip=True (default) maps 3.0 to the value of 2.0."""
    from scipy import special
    from sklearn.preprocessing import MinMaxScaler

    from boxcoxstat import BoxCoxError
    from boxcoxstat.classify import BoxCoxTunedTransformer

    X, y = italy_corsica(80)
    new = np.array([[2.5, 1.1], [0.6, 1.9]])  # beyond the training range [1, 2] of each
    t = BoxCoxTunedTransformer(GaussianNB(), clip=False, **SMALL).fit(X, y)
    mm = MinMaxScaler((1, 2)).fit(X)
    boxcox = lambda Z: np.column_stack(  # noqa: E731
        [special.boxcox(Z[:, j], t.lmbda_[j]) for j in range(2)])
    ref = StandardScaler().fit(boxcox(mm.transform(X))).transform(boxcox(mm.transform(new)))
    np.testing.assert_allclose(t.transform(new), ref, rtol=1e-12, atol=1e-12)
    back = type(t.tuning_).from_json(t.tuning_.to_json())
    assert back.clip is False
    clipped = BoxCoxTunedTransformer(GaussianNB(), **SMALL).fit(X, y)
    np.testing.assert_allclose(clipped.transform(new), clipped.transform(np.clip(new, X.min(0),
                                                                                 X.max(0))))
    lo = X[:, 0].min() - 1.01 * np.ptp(X[:, 0])  # scales to just below 0
    with pytest.raises(BoxCoxError, match="x0.*clip=True"):
        t.transform(np.array([[lo, 1.5]]))
