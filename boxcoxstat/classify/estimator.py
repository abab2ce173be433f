"""``BoxCoxTunedTransformer`` and ``BoxCoxTunedClassifier``: Box-Cox lambdas tuned for a
classifier, as a transformer and with the classifier behind it.

The pipeline of Blum, Menon & Elgendi (Algorithms 2-3) and Bicego &
Baldo (2016) as scikit-learn estimators: min-max scaling into ``[1, 2]``, the Box-Cox
transform with lambdas chosen by :func:`boxcoxstat.classify.tune` on the training data only,
standard scaling (:class:`BoxCoxTunedTransformer`), then the classifier
(:class:`BoxCoxTunedClassifier`, which is the transformer followed by the classifier).
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    OneToOneFeatureMixin,
    TransformerMixin,
    clone,
)
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from .._validation.columns import BoxCoxError
from .criteria import output_scaler
from .model import tune

__all__ = ["BoxCoxTunedTransformer", "BoxCoxTunedClassifier"]

try:  # scikit-learn >= 1.6
    from sklearn.utils.validation import validate_data as _sk_validate_data
except ImportError:  # pragma: no cover - older scikit-learn
    def _sk_validate_data(est: Any, X: Any, y: Any = "no_validation", **kw: Any) -> Any:
        return est._validate_data(X, y, **kw)


def _validate_data(est: Any, X: Any, y: Any = "no_validation", **kw: Any) -> Any:
    """scikit-learn's input check, its ValueError (NaN, wrong width...) as the package's
    BoxCoxError (a ValueError too, so scikit-learn's conventions still hold)."""
    try:
        return _sk_validate_data(est, X, y, **kw)
    except BoxCoxError:
        raise
    except ValueError as exc:
        raise BoxCoxError(" ".join(str(exc).split())) from None


_TUNING = ("mode", "criterion", "search", "cv", "scoring", "grid", "epochs", "shift_epoch",
           "shuffle_epoch", "finer_epoch", "start", "rule", "rescale", "clip", "random_state",
           "n_jobs", "progress")


def _default_classifier(classifier: Any) -> Any:
    if classifier is None:
        from sklearn.linear_model import LogisticRegression

        return LogisticRegression()
    return classifier


class _Tuned(BaseEstimator):
    """The settings both estimators share (scikit-learn reads them from ``__init__``)."""

    def __init__(
        self,
        classifier: Any = None,
        *,
        mode: Literal["spherical", "diagonal", "full"] = "full",
        criterion: Any = "cv",
        search: Literal["iterative", "grid", "continuous", "nelder-mead"] = "iterative",
        cv: Any = 5,
        scoring: Any = None,
        grid: Any = None,
        epochs: int = 4,
        shift_epoch: int | None = None,
        shuffle_epoch: int | None = None,
        finer_epoch: int | None = None,
        start: Any = "ml",
        rule: Literal["incumbent", "paper"] = "incumbent",
        rescale: Literal["standard", "minmax"] = "standard",
        clip: bool = True,
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
        self.rule = rule
        self.rescale = rescale
        self.clip = clip
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.progress = progress

    def _base(self) -> Any:
        return _default_classifier(self.classifier)


class BoxCoxTunedTransformer(OneToOneFeatureMixin, TransformerMixin, _Tuned):
    """Box-Cox transform with lambdas tuned for a classifier, as a pipeline step.

    The transformer half of :class:`BoxCoxTunedClassifier`: ``fit(X, y)`` scales each
    feature into ``[1, 2]`` with the training minimum and maximum and chooses the lambdas
    with :func:`boxcoxstat.classify.tune` for ``classifier`` (by default its inner
    cross-validated score, on the data passed to ``fit`` only); ``transform`` scales (values
    outside the training range clipped to its ends unless ``clip=False``), Box-Cox
    transforms and standardises
    (``rescale="standard"``, Blum et al.) or scales into ``[1, 2]`` again
    (``rescale="minmax"``, Bicego & Baldo 2016). Put it in front of any classifier in a
    ``Pipeline``.

    Parameters
    ----------
    classifier : scikit-learn classifier, default=None
        The classifier the lambdas are tuned for (``criterion="cv"``); it is not fitted for
        prediction. ``None`` means ``LogisticRegression()``.
    mode, criterion, search, cv, scoring, grid, epochs, shift_epoch, shuffle_epoch,
    finer_epoch, start, rule, rescale, clip, random_state, n_jobs, progress :
        As :class:`BoxCoxTunedClassifier` (passed to :func:`boxcoxstat.classify.tune`).

    Attributes
    ----------
    lmbda_ : ndarray of shape (n_features,)
    tuning_ : TuningResult
        The full record (criterion, trace, ``summary()``, plots, JSON).
    data_min_, data_max_ : ndarray of shape (n_features,)
    scaler_ : the fitted ``StandardScaler`` (or ``MinMaxScaler`` for ``rescale="minmax"``)
    n_features_in_, feature_names_in_ : as in scikit-learn.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from sklearn.pipeline import make_pipeline
    >>> from boxcoxstat.classify import BoxCoxTunedTransformer
    >>> rng = np.random.default_rng(0)
    >>> X = np.exp(rng.normal(size=(120, 2)))
    >>> y = (np.log(X[:, 0]) + 0.3 * rng.normal(size=120) > 0).astype(int)
    >>> step = BoxCoxTunedTransformer(GaussianNB(), epochs=1, cv=3, random_state=0)
    >>> pipe = make_pipeline(step, GaussianNB()).fit(X, y)
    >>> pipe[0].lmbda_.shape, pipe.score(X, y) > 0.8
    ((2,), True)
    """

    def fit(self, X: ArrayLike, y: ArrayLike) -> BoxCoxTunedTransformer:
        """Tune lambdas on ``(X, y)`` and fit the standardiser."""
        Xv, y = _validate_data(self, X, y, dtype=np.float64)
        X = np.asarray(Xv, dtype=np.float64)
        check_classification_targets(y)
        self.tuning_ = tune(X, y, self._base(),
                            **{k: getattr(self, k) for k in _TUNING})
        self.lmbda_ = self.tuning_._lmbda_used.copy()
        self.data_min_ = self.tuning_.data_min.copy()
        self.data_max_ = self.tuning_.data_max.copy()
        self.scaler_ = output_scaler(self.rescale).fit(self._boxcox(X))
        return self

    def _boxcox(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.asarray(self.tuning_.transform(X), dtype=np.float64)

    def transform(self, X: ArrayLike) -> NDArray[np.float64]:
        """Scale into ``[1, 2]`` (clipped), Box-Cox transform with the tuned lambdas and
        standardise."""
        check_is_fitted(self)
        Z = self._boxcox(np.asarray(_validate_data(self, X, reset=False, dtype=np.float64)))
        return self.scaler_.transform(Z)

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags


def _has(method: str) -> Any:
    def check(self: BoxCoxTunedClassifier) -> bool:
        est = self.classifier_ if hasattr(self, "classifier_") else self._base()
        return hasattr(est, method)

    return check


class BoxCoxTunedClassifier(ClassifierMixin, _Tuned):
    """Classifier on Box-Cox transformed features, lambdas tuned for that classifier.

    ``fit`` scales each feature into ``[1, 2]`` with the training minimum and maximum,
    chooses lambdas with :func:`boxcoxstat.classify.tune` (by default the inner
    cross-validated score of ``classifier``, so only the data passed to ``fit`` decide them),
    transforms, standard-scales and fits a clone of ``classifier``. ``predict`` applies the
    same fitted steps. New values outside the training range are clipped to its ends (1 or
    2 after scaling) so every power stays finite; the classifier then sees them as the most
    extreme training values. With ``clip=False`` they are scaled beyond ``[1, 2]``, as in
    Blum et al.'s Algorithm 3 (a value that lands at or below 0 raises
    :class:`~boxcoxstat.BoxCoxError`).

    Parameters
    ----------
    classifier : scikit-learn classifier, default=None
        ``None`` means ``LogisticRegression()``.
    mode : {"spherical", "diagonal", "full"}, default="full"
    criterion : str or callable, default="cv"
        See :func:`boxcoxstat.classify.tune`. ``"train"`` (training accuracy, as in Blum et
        al.) is available but optimistic.
    search : {"iterative", "grid", "continuous", "nelder-mead"}, default="iterative"
    cv : int or splitter, default=5
        Inner cross-validation of ``criterion="cv"``.
    scoring : str or callable, default=None
        Inner scorer (``None``: the classifier's ``score``, i.e. accuracy).
    grid, epochs, shift_epoch, shuffle_epoch, finer_epoch, start, rule, clip, random_state,
    n_jobs, progress :
        Passed to :func:`boxcoxstat.classify.tune`.
    rescale : {"standard", "minmax"}, default="standard"
        Scaling of the transformed features before the classifier: standardised (Blum et
        al., Algorithm 2) or min-max into ``[1, 2]`` (Bicego & Baldo 2016).

    Attributes
    ----------
    lmbda_ : ndarray of shape (n_features,)
    tuning_ : TuningResult
    classifier_ : the fitted clone of ``classifier``
    scaler_ : the fitted ``StandardScaler`` (``MinMaxScaler`` for ``rescale="minmax"``)
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

    def fit(self, X: ArrayLike, y: ArrayLike) -> BoxCoxTunedClassifier:
        """Tune lambdas on ``(X, y)`` (a :class:`BoxCoxTunedTransformer`), then fit the
        classifier to the transformed features."""
        Xv, yv = _validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(yv)
        self.transformer_ = BoxCoxTunedTransformer(
            self._base(), **{k: getattr(self, k) for k in _TUNING}).fit(Xv, yv)
        t = self.transformer_
        self.tuning_, self.lmbda_ = t.tuning_, t.lmbda_
        self.data_min_, self.data_max_, self.scaler_ = t.data_min_, t.data_max_, t.scaler_
        self.classifier_ = clone(self._base()).fit(t.transform(Xv), yv)
        self.classes_ = self.classifier_.classes_
        return self

    def transform_features(self, X: ArrayLike) -> NDArray[np.float64]:
        """The features the classifier sees: scaled, Box-Cox transformed, standardised.

        (Not named ``transform``: this estimator is a classifier, not a transformer; its
        transformer half is :class:`BoxCoxTunedTransformer`, in ``transformer_``.)
        """
        check_is_fitted(self)
        Xv = _validate_data(self, X, reset=False, dtype=np.float64)
        return self.transformer_.transform(np.asarray(Xv, dtype=np.float64))

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
