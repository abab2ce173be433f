"""Criteria for choosing Box-Cox lambdas for classification, as functions of the lambda vector.

Every criterion is "higher is better" and is evaluated on
data already min-max scaled into ``[1, 2]`` (Bicego & Baldo 2016, section 2; Blum, Menon &
Elgendi, Algorithm 2), so every Box-Cox power in the usual range is finite.

* ``"ml"``: mean over features of the profile log-likelihood ``L_max`` (Bicego & Baldo 2016,
  eq. 7), computed by the package's overflow-free likelihood (``likelihood.nll_score``).
* ``"pcml"``: the sum over classes of the ML criterion on each class (eq. 8).
* ``"fisher"``: ``tr(S_w^{-1} S_b)`` with prior-weighted class scatter matrices (Fukunaga
  1990, ch. 10.2; Bicego & Baldo 2016, eqs. 10-12).
* ``"margin"``: the 1-NN hypothesis margin (Gilad-Bachrach et al. 2004; Bicego & Baldo 2016,
  eq. 14), averaged over points, on standardised transformed features so that lambdas with
  different output scales compare fairly.
* ``"cv"``: the cross-validated score of a scikit-learn classifier on the standard-scaled
  transformed data (Blum, Menon & Elgendi); ``"train"``: the same classifier's score on the
  data it was trained on (the papers' Optimization 1-2, which overfits; an explicit option).

Any callable ``f(X, y, lmbda) -> float`` can be used as a custom criterion.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation.columns import BoxCoxError
from ..core.likelihood import nll_score
from ..core.profile import SampleProfile
from ..core.sample import Sample
from ..core.solve import solve
from ..families import transform

__all__ = [
    "CRITERIA",
    "RESCALES",
    "scale_unit_range",
    "Criterion",
    "ml_criterion",
    "pcml_criterion",
    "fisher_criterion",
    "margin_criterion",
    "ClassifierScore",
    "get_criterion",
    "ml_lambdas",
]

CRITERIA = ("ml", "pcml", "fisher", "margin", "cv", "train")
#: How transformed features are scaled before a classifier or the margin sees them:
#: standardised (Blum, Menon & Elgendi, Algorithm 2) or min-max into [1, 2] again (Bicego &
#: Baldo 2016, section 2).
RESCALES = ("standard", "minmax")
CriterionFunc = Callable[[NDArray[np.float64], NDArray[Any], NDArray[np.float64]], float]


def scale_unit_range(
    X: ArrayLike, low: ArrayLike, high: ArrayLike, *, clip: bool = True
) -> NDArray[np.float64]:
    """Map ``[low, high]`` of each column onto ``[1, 2]``; clip values outside into it.

    Constant columns (``high == low``) map to 1. With ``clip=True`` values beyond the
    training range are set to the nearest end (1 or 2), which keeps every Box-Cox power
    finite and positive; with ``clip=False`` they are left alone (values <= 0 then fail).

    Examples
    --------
    >>> from boxcoxstat.classify.criteria import scale_unit_range
    >>> scale_unit_range([[0.0], [5.0], [10.0], [12.0]], [0.0], [10.0]).ravel().tolist()
    [1.0, 1.5, 2.0, 2.0]
    """
    X = np.asarray(X, dtype=np.float64)
    lo = np.asarray(low, dtype=np.float64)
    span = np.asarray(high, dtype=np.float64) - lo
    out = 1.0 + (X - lo) / np.where(span > 0, span, 1.0)
    out = np.where(span > 0, out, 1.0)
    return np.clip(out, 1.0, 2.0) if clip else out


def _lambda_vector(lmbda: ArrayLike, p: int) -> NDArray[np.float64]:
    lam = np.asarray(lmbda, dtype=np.float64).reshape(-1)
    if lam.size == 1:
        lam = np.full(p, float(lam[0]))
    if lam.size != p:
        raise BoxCoxError(f"lmbda has {lam.size} values but the data have {p} features")
    return lam


def _varying(X: NDArray[np.float64]) -> NDArray[np.bool_]:
    """Columns with at least two distinct values (a constant column has no likelihood)."""
    if X.shape[0] < 2:
        return np.zeros(X.shape[1], dtype=bool)
    return np.asarray(np.ptp(X, axis=0) > 0)


def ml_lambdas(X: ArrayLike) -> NDArray[np.float64]:
    """Per-feature maximum-likelihood Box-Cox lambda (1.0 for constant features).

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.classify.criteria import ml_lambdas
    >>> x = np.exp(np.random.default_rng(0).normal(size=(200, 1)))
    >>> ml_lambdas(np.hstack([x, np.ones((200, 1))])).round(2)
    array([0.08, 1.  ])
    """
    X = np.asarray(X, dtype=np.float64)
    out = np.ones(X.shape[1])
    keep = _varying(X)
    if keep.any():
        out[keep] = solve(SampleProfile.from_array(X[:, keep], "boxcox")).lmbda
    return out


def _profile_llf(X: NDArray[np.float64], lam: NDArray[np.float64]) -> NDArray[np.float64]:
    """``L_max`` (Bicego & Baldo 2016, eq. 2) of every varying column; 0 for constant ones."""
    out = np.zeros(X.shape[1])
    keep = _varying(X)
    if keep.any():
        val, _ = nll_score(Sample.from_array(X[:, keep], "boxcox"), lam[keep], score=False)
        out[keep] = -val
    return out


def ml_criterion(X: ArrayLike, y: ArrayLike, lmbda: ArrayLike) -> float:
    """ML criterion: mean per-feature profile log-likelihood (Bicego & Baldo 2016, eq. 7).

    ``J_ML = (1/d) sum_k [-(N/2) log sigma_k^2(lambda_k) + (lambda_k - 1) sum_i log x_ik]``;
    ``y`` is ignored.

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.classify.criteria import ml_criterion
    >>> x = np.exp(np.random.default_rng(0).normal(size=(100, 1)))
    >>> ml_criterion(x, None, 0.0) > ml_criterion(x, None, 1.0)
    True
    """
    X = np.asarray(X, dtype=np.float64)
    return float(np.mean(_profile_llf(X, _lambda_vector(lmbda, X.shape[1]))))


def pcml_criterion(X: ArrayLike, y: ArrayLike, lmbda: ArrayLike) -> float:
    """Per-class ML criterion: ``sum_l J_ML(lambda, X_l)`` (Bicego & Baldo 2016, eq. 8).

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.classify.criteria import pcml_criterion
    >>> rng = np.random.default_rng(1)
    >>> X = np.exp(rng.normal(size=(100, 1)))
    >>> y = np.repeat([0, 1], 50)
    >>> pcml_criterion(X, y, 0.0) > pcml_criterion(X, y, 2.0)
    True
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    lam = _lambda_vector(lmbda, X.shape[1])
    return float(sum(np.mean(_profile_llf(X[y == c], lam)) for c in np.unique(y)))


def _scatter(Z: NDArray[np.float64], y: NDArray[Any]) -> tuple[NDArray, NDArray]:
    classes, counts = np.unique(y, return_counts=True)
    priors = counts / counts.sum()
    m0 = Z.mean(axis=0)
    p = Z.shape[1]
    sw = np.zeros((p, p))
    sb = np.zeros((p, p))
    for c, prior in zip(classes, priors, strict=True):
        Zc = Z[y == c]
        mc = Zc.mean(axis=0)
        dev = Zc - mc
        sw += prior * (dev.T @ dev) / Zc.shape[0]
        diff = (mc - m0)[:, None]
        sb += prior * (diff @ diff.T)
    return sw, sb


def fisher_criterion(X: ArrayLike, y: ArrayLike, lmbda: ArrayLike) -> float:
    """Fisher criterion ``tr(S_w^{-1} S_b)`` of the transformed data (Fukunaga 1990, ch. 10.2).

    ``S_w = sum_l P_l Sigma_l`` and ``S_b = sum_l P_l (M_l - M_0)(M_l - M_0)^T``
    (Bicego & Baldo 2016, eqs. 10-12). A singular ``S_w`` (constant or collinear features) is
    inverted by the Moore-Penrose pseudo-inverse. The criterion is invariant to per-feature
    affine rescaling, so the features are standardised first for conditioning.

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.classify.criteria import fisher_criterion
    >>> X = np.array([[1.0], [1.1], [1.9], [2.0]])
    >>> round(fisher_criterion(X, [0, 0, 1, 1], 1.0), 6)  # 0.45**2 / 0.05**2
    81.0
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    Z = transform(X, _lambda_vector(lmbda, X.shape[1]), "boxcox")
    sd = Z.std(axis=0)
    Z = (Z - Z.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    sw, sb = _scatter(Z, y)
    return float(np.trace(np.linalg.pinv(sw, hermitian=True) @ sb))


def _rescaled(Z: NDArray[np.float64], rescale: str) -> NDArray[np.float64]:
    """Each column standardised, or min-max scaled into ``[1, 2]``; constants left at 0 / 1."""
    if rescale == "minmax":
        lo, span = Z.min(axis=0), np.ptp(Z, axis=0)
        return 1.0 + (Z - lo) / np.where(span > 0, span, 1.0) * (span > 0)
    sd = Z.std(axis=0)
    return (Z - Z.mean(axis=0)) / np.where(sd > 0, sd, 1.0)


def margin_criterion(X: ArrayLike, y: ArrayLike, lmbda: ArrayLike, *,
                     rescale: str = "standard") -> float:
    """1-NN hypothesis margin ``mean_x (||x - nearmiss(x)|| - ||x - nearhit(x)||) / 2``.

    Gilad-Bachrach, Navot & Tishby (2004); Bicego & Baldo (2016, eq. 14), who sum instead of
    averaging (same maximiser). Distances are Euclidean on the transformed features after
    standardising each to unit variance (``rescale="standard"``) or scaling each into
    ``[1, 2]`` again (``rescale="minmax"``, Bicego & Baldo's re-normalisation), so that
    lambdas with different output scales compare fairly; points whose class has no other
    member are skipped.

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.classify.criteria import margin_criterion
    >>> X = np.array([[1.0], [1.1], [1.9], [2.0]])
    >>> round(margin_criterion(X, [0, 0, 1, 1], 1.0, rescale="minmax"), 9)
    0.375

    (misses 0.9, 0.8, 0.8, 0.9 and hits 0.1 each: the mean of half the differences.)
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    Z = _rescaled(transform(X, _lambda_vector(lmbda, X.shape[1]), "boxcox"), rescale)
    sq = np.sum(Z * Z, axis=1)
    d2 = np.maximum(sq[:, None] + sq[None, :] - 2.0 * (Z @ Z.T), 0.0)
    dist = np.sqrt(d2)
    np.fill_diagonal(dist, np.inf)
    same = y[:, None] == y[None, :]
    hit = np.where(same, dist, np.inf).min(axis=1)
    miss = np.where(~same, dist, np.inf).min(axis=1)
    ok = np.isfinite(hit) & np.isfinite(miss)
    if not ok.any():
        return 0.0
    return float(np.mean(0.5 * (miss[ok] - hit[ok])))


@dataclass(frozen=True)
class ClassifierScore:
    """Score of a classifier on Box-Cox transformed, standard-scaled data.

    With ``cv`` an int or splitter, the mean cross-validated score (Blum, Menon & Elgendi,
    with cross-validation instead of their training accuracy); with ``cv=None``, the score on
    the training data itself (their Optimization 1-2). The same folds are used for every
    lambda (shuffled with ``random_state``, unshuffled when it is None), so scores of
    different lambdas compare on equal terms. The transformed features are standardised
    before the classifier (``rescale="standard"``, Blum et al.) or min-max scaled into
    ``[1, 2]`` (``rescale="minmax"``, Bicego & Baldo 2016), the scaler fitted on the
    training rows.
    """

    classifier: Any
    cv: Any = 5
    scoring: Any = None
    random_state: Any = None
    rescale: str = "standard"

    def _splitter(self, y: NDArray[Any]) -> Any:
        from sklearn.model_selection import StratifiedKFold, check_cv

        if isinstance(self.cv, (int, np.integer)):
            n_min = int(np.unique(y, return_counts=True)[1].min())
            k = max(2, min(int(self.cv), n_min))
            if self.random_state is None:  # unshuffled: the same folds for every lambda
                return StratifiedKFold(n_splits=k)
            return StratifiedKFold(n_splits=k, shuffle=True, random_state=self.random_state)
        return check_cv(self.cv, y, classifier=True)

    def __call__(self, X: ArrayLike, y: ArrayLike, lmbda: ArrayLike) -> float:
        from sklearn import config_context
        from sklearn.base import clone
        from sklearn.metrics import check_scoring

        X = np.asarray(X, dtype=np.float64)
        y = np.asarray(y)
        Z = transform(X, _lambda_vector(lmbda, X.shape[1]), "boxcox")  # finite or raises
        folds = [(slice(None), slice(None))] if self.cv is None else self._splitter(
            y).split(Z, y)
        scores = []
        # the scaler's statistics on the training rows, applied to both (what a Pipeline
        # of the scaler and the classifier does), without scikit-learn's per-call checks
        with config_context(assume_finite=True, skip_parameter_validation=True):
            for train, test in folds:
                lo, span = _fit_rescale(Z[train], self.rescale)
                model = clone(self.classifier).fit((Z[train] - lo) / span, y[train])
                zt, yt = (Z[test] - lo) / span, y[test]
                scorer = check_scoring(model, scoring=self.scoring)
                scores.append(scorer(model, zt, yt))
        return float(np.mean(scores))


def _fit_rescale(Z: NDArray[np.float64], rescale: str) -> tuple[NDArray, NDArray]:
    """Offset and divisor of scikit-learn's ``StandardScaler`` (``MinMaxScaler((1, 2))``
    for ``rescale="minmax"``): ``(Z - offset) / divisor``, constant columns left unscaled."""
    if rescale == "minmax":
        lo, span = Z.min(axis=0), np.ptp(Z, axis=0)
        span = np.where(span > 0, span, 1.0)
        return lo - span, span
    sd = Z.std(axis=0)
    return Z.mean(axis=0), np.where(sd > 10 * np.finfo(float).eps * np.abs(Z.mean(axis=0)),
                                    sd, 1.0)


def output_scaler(rescale: str) -> Any:
    """The scikit-learn scaler for transformed features: ``StandardScaler`` or
    ``MinMaxScaler((1, 2))`` (see :data:`RESCALES`)."""
    from sklearn.preprocessing import MinMaxScaler, StandardScaler

    if rescale not in RESCALES:
        raise BoxCoxError(f"rescale={rescale!r} is not valid; use one of "
                          f"{', '.join(map(repr, RESCALES))}")
    return MinMaxScaler((1, 2)) if rescale == "minmax" else StandardScaler()


@dataclass(frozen=True)
class Criterion:
    """A named criterion: ``func(X, y, lmbda) -> float``, larger is better."""

    name: str
    func: CriterionFunc
    supervised: bool = True

    def __call__(self, X: ArrayLike, y: ArrayLike, lmbda: ArrayLike) -> float:
        value = float(self.func(np.asarray(X, dtype=np.float64), np.asarray(y),
                                np.asarray(lmbda, dtype=np.float64)))
        if not np.isfinite(value):
            raise BoxCoxError(f"criterion {self.name!r} is not finite at lmbda={lmbda!r}")
        return value


def get_criterion(
    criterion: str | Callable[..., float] | Criterion,
    *,
    classifier: Any = None,
    cv: Any = 5,
    scoring: Any = None,
    random_state: Any = None,
    rescale: str = "standard",
) -> Criterion:
    """Turn a criterion name (see :data:`CRITERIA`) or a callable into a :class:`Criterion`.

    ``"cv"`` and ``"train"`` need ``classifier``; ``"train"`` ignores ``cv``. ``rescale``
    (see :data:`RESCALES`) applies to ``"cv"``, ``"train"`` and ``"margin"``; the others do
    not depend on it (ML and PCML see the transformed data, Fisher is affine invariant).

    Examples
    --------
    >>> from boxcoxstat.classify.criteria import get_criterion
    >>> get_criterion("fisher").name
    'fisher'
    """
    if isinstance(criterion, Criterion):
        return criterion
    if callable(criterion):
        return Criterion(getattr(criterion, "__name__", "custom"), criterion)
    simple: dict[str, tuple[CriterionFunc, bool]] = {
        "ml": (ml_criterion, False),
        "pcml": (pcml_criterion, True),
        "fisher": (fisher_criterion, True),
        "margin": (margin_criterion, True),
    }
    name = str(criterion).lower()
    if rescale not in RESCALES:
        raise BoxCoxError(f"rescale={rescale!r} is not valid; use one of "
                          f"{', '.join(map(repr, RESCALES))}")
    if name == "margin" and rescale != "standard":
        return Criterion(name, functools.partial(margin_criterion, rescale=rescale))
    if name in simple:
        func, sup = simple[name]
        return Criterion(name, func, sup)
    if name in ("cv", "train"):
        if classifier is None:
            raise BoxCoxError(f"criterion={name!r} needs a scikit-learn classifier; pass "
                              "classifier=...")
        scorer = ClassifierScore(classifier, cv if name == "cv" else None, scoring,
                                 random_state, rescale)
        return Criterion(name, scorer)
    raise BoxCoxError(f"unknown criterion {criterion!r}; use one of {', '.join(CRITERIA)} "
                      "or a callable f(X, y, lmbda) -> float")
