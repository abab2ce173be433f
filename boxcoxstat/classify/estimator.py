"""``BoxCoxTunedClassifier``: a classifier behind Box-Cox lambdas tuned for it.

Layer 6 (``classify``). The pipeline of Blum, Menon & Elgendi (Algorithms 2-3) and Bicego &
Baldo (2016) as a scikit-learn estimator: min-max scaling into ``[1, 2]``, the Box-Cox
transform with lambdas chosen by :func:`boxcoxstat.classify.tune` on the training data only,
standard scaling, the classifier.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.preprocessing import StandardScaler
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from .model import tune

__all__ = ["BoxCoxTunedClassifier"]

try:  # scikit-learn >= 1.6
    from sklearn.utils.validation import validate_data as _validate_data
except ImportError:  # pragma: no cover - older scikit-learn
    def _validate_data(est: Any, X: Any, y: Any = "no_validation", **kw: Any) -> Any:
        return est._validate_data(X, y, **kw)


def _has(method: str) -> Any:
    def check(self: BoxCoxTunedClassifier) -> bool:
        est = self.classifier_ if hasattr(self, "classifier_") else self._base()
        return hasattr(est, method)

    return check


class BoxCoxTunedClassifier(ClassifierMixin, BaseEstimator):
    """Classifier on Box-Cox transformed features, lambdas tuned for that classifier.

    ``fit`` scales each feature into ``[1, 2]`` with the training minimum and maximum,
    chooses lambdas with :func:`boxcoxstat.classify.tune` (by default the inner
    cross-validated score of ``classifier``, so only the data passed to ``fit`` decide them),
    transforms, standard-scales and fits a clone of ``classifier``. ``predict`` applies the
    same fitted steps. New values outside the training range are clipped to its ends (1 or
    2 after scaling) so every power stays finite; the classifier then sees them as the most
    extreme training values.

    Parameters
    ----------
    classifier : scikit-learn classifier, default=None
        ``None`` means ``LogisticRegression()``.
    mode : {"spherical", "diagonal", "full"}, default="full"
    criterion : str or callable, default="cv"
        See :func:`boxcoxstat.classify.tune`. ``"train"`` (training accuracy, as in Blum et
        al.) is available but optimistic.
    search : {"iterative", "grid", "continuous"}, default="iterative"
    cv : int or splitter, default=5
        Inner cross-validation of ``criterion="cv"``.
    scoring : str or callable, default=None
        Inner scorer (``None``: the classifier's ``score``, i.e. accuracy).
    grid, epochs, shift_epoch, shuffle_epoch, finer_epoch, start, random_state, n_jobs,
    progress :
        Passed to :func:`boxcoxstat.classify.tune`.

    Attributes
    ----------
    lmbda_ : ndarray of shape (n_features,)
    tuning_ : TuningResult
    classifier_ : the fitted clone of ``classifier``
    scaler_ : the fitted ``StandardScaler``
    classes_, n_features_in_, feature_names_in_ : as in scikit-learn.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from boxcoxstat.classify import BoxCoxTunedClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = np.exp(rng.normal(size=(120, 2)))
    >>> y = (np.log(X[:, 0]) + 0.3 * rng.normal(size=120) > 0).astype(int)
    >>> clf = BoxCoxTunedClassifier(GaussianNB(), epochs=1, cv=3, random_state=0).fit(X, y)
    >>> clf.lmbda_.shape, clf.score(X, y) > 0.8
    ((2,), True)
    """

    def __init__(
        self,
        classifier: Any = None,
        *,
        mode: Literal["spherical", "diagonal", "full"] = "full",
        criterion: Any = "cv",
        search: Literal["iterative", "grid", "continuous"] = "iterative",
        cv: Any = 5,
        scoring: Any = None,
        grid: Any = None,
        epochs: int = 4,
        shift_epoch: int | None = None,
        shuffle_epoch: int | None = None,
        finer_epoch: int | None = None,
        start: Any = "ml",
        random_state: int | None = None,
        n_jobs: int | None = None,
        progress: bool = False,
    ) -> None:
        self.classifier = classifier
        self.mode = mode
        self.criterion = criterion
        self.search = search
        self.cv = cv
        self.scoring = scoring
        self.grid = grid
        self.epochs = epochs
        self.shift_epoch = shift_epoch
        self.shuffle_epoch = shuffle_epoch
        self.finer_epoch = finer_epoch
        self.start = start
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.progress = progress

    def _base(self) -> Any:
        if self.classifier is None:
            from sklearn.linear_model import LogisticRegression

            return LogisticRegression()
        return self.classifier

    def _boxcox(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.asarray(self.tuning_.transform(X), dtype=np.float64)

    def fit(self, X: ArrayLike, y: ArrayLike) -> BoxCoxTunedClassifier:
        """Tune lambdas on ``(X, y)``, then fit the scaler and the classifier."""
        Xv, y = _validate_data(self, X, y, dtype=np.float64)
        X = np.asarray(Xv, dtype=np.float64)
        check_classification_targets(y)
        base = self._base()
        self.tuning_ = tune(
            X, y, base, mode=self.mode, criterion=self.criterion, search=self.search,
            cv=self.cv, scoring=self.scoring, grid=self.grid, epochs=self.epochs,
            shift_epoch=self.shift_epoch, shuffle_epoch=self.shuffle_epoch,
            finer_epoch=self.finer_epoch, start=self.start, random_state=self.random_state,
            n_jobs=self.n_jobs, progress=self.progress)
        self.lmbda_ = self.tuning_.lmbda_used.copy()
        self.data_min_ = self.tuning_.data_min.copy()
        self.data_max_ = self.tuning_.data_max.copy()
        Z = self._boxcox(X)
        self.scaler_ = StandardScaler().fit(Z)
        self.classifier_ = clone(base).fit(self.scaler_.transform(Z), y)
        self.classes_ = self.classifier_.classes_
        return self

    def transform_features(self, X: ArrayLike) -> NDArray[np.float64]:
        """The features the classifier sees: scaled, Box-Cox transformed, standardised.

        (Not named ``transform``: this estimator is a classifier, not a transformer.)
        """
        check_is_fitted(self)
        Xv = np.asarray(_validate_data(self, X, reset=False, dtype=np.float64))
        return self.scaler_.transform(self._boxcox(Xv))

    def predict(self, X: ArrayLike) -> NDArray[Any]:
        """Class labels for ``X``."""
        check_is_fitted(self)
        return self.classifier_.predict(self.transform_features(X))

    @available_if(_has("predict_proba"))
    def predict_proba(self, X: ArrayLike) -> NDArray[np.float64]:
        """Class probabilities, where the classifier has ``predict_proba``."""
        check_is_fitted(self)
        return self.classifier_.predict_proba(self.transform_features(X))

    @available_if(_has("decision_function"))
    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """Decision function, where the classifier has one."""
        check_is_fitted(self)
        return self.classifier_.decision_function(self.transform_features(X))
