"""``tune``: choose Box-Cox lambdas for classification (spherical, diagonal or full).

The data are min-max scaled into ``[1, 2]`` (Bicego & Baldo 2016;
Blum, Menon & Elgendi, Algorithm 2), a criterion is chosen (:mod:`.criteria`) and a search
(:mod:`.search`) maximises it over the lambda vector in one of three modes:

* ``"spherical"``: one lambda for every feature (Bicego & Baldo 2016, eq. 3);
* ``"diagonal"``: one lambda per feature, each chosen alone on its own column (eq. 4; Blum et
  al., eq. 1);
* ``"full"``: the whole vector jointly (Blum et al., eq. 3).

Bicego & Baldo (2016) call "diagonal" any per-feature vector: for ML and PCML, which add up
per feature, the joint optimum is the per-feature one, so their diagonal ML / PCML is our
``"diagonal"`` (and ``"full"`` gives the same vector); their diagonal Fisher and 1-NN margin
maximise the criterion of the whole vector at once (``fminsearch`` over ``Lambda``), which
is our ``mode="full"`` (``search="nelder-mead"`` is their optimiser).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from .._validation.columns import BoxCoxError, check_option
from .._validation.containers import to_matrix
from .criteria import RESCALES, Criterion, get_criterion, ml_lambdas, scale_unit_range
from .results import TuningResult
from .search import (
    MODES,
    RULES,
    SEARCHES,
    SearchOutcome,
    coordinate_search,
    default_grid,
    grid_search,
    nelder_mead_search,
    scalar_search,
)

__all__ = ["tune", "criterion_curves", "linf_distance"]


def _as_xy(X: Any, y: Any) -> tuple[NDArray[np.float64], NDArray[Any], list[str], str]:
    """Features as a float matrix, labels, feature names and the layout of ``X``."""
    Xa, names, _, layout = to_matrix(X)
    if layout not in ("frame", "array2d"):
        raise BoxCoxError("X must be 2-D (n_samples, n_features): a DataFrame or a 2-D array, "
                          "got 1-D data")
    if Xa.shape[1] == 0:
        raise BoxCoxError("X has no features (columns)")
    ya = np.asarray(y).reshape(-1)
    if ya.shape[0] != Xa.shape[0]:
        raise BoxCoxError(f"X has {Xa.shape[0]} rows but y has {ya.shape[0]} labels")
    if not np.all(np.isfinite(Xa)):
        raise BoxCoxError("X contains NaN or infinite values; impute or drop them first")
    big = np.flatnonzero(np.abs(Xa).max(axis=0, initial=0.0) > 1e300)
    if big.size:
        raise BoxCoxError(f"feature {names[big[0]]!r} has values beyond 1e300 in size, where "
                          "its range overflows float64; rescale it (tuning min-max scales "
                          "every feature, so the scale does not matter)")
    if np.unique(ya).size < 2:
        raise BoxCoxError("y has only one class; tuning lambda for classification needs at "
                          "least two classes")
    return Xa, ya, names, layout


def _search_vector(
    evaluate: Callable[[NDArray[np.float64]], float], p: int, start: NDArray[np.float64],
    search: str, opts: dict[str, Any],
) -> SearchOutcome:
    progress = opts["progress"]
    if progress is True:  # say what is running
        progress = f"{opts['what']}, {search} search"
    if search == "grid":
        return grid_search(evaluate, p, grid=opts["grid"], n_jobs=opts["n_jobs"],
                           progress=progress)
    if search == "nelder-mead":
        return nelder_mead_search(evaluate, start, progress=progress)
    if search == "continuous":
        if p != 1:
            raise BoxCoxError("search='continuous' optimises one lambda; use it with "
                              "mode='spherical' or 'diagonal'")
        g = opts["grid"]
        return scalar_search(lambda v: evaluate(np.array([v])), bounds=(g.min(), g.max()))
    return coordinate_search(
        evaluate, start, grid=opts["grid"], epochs=opts["epochs"],
        shift_epoch=opts["shift_epoch"], shuffle_epoch=opts["shuffle_epoch"],
        finer_epoch=opts["finer_epoch"], rule=opts["rule"],
        random_state=opts["random_state"], n_jobs=opts["n_jobs"], progress=progress)


def _known(outcomes: list[SearchOutcome], lam: NDArray[np.float64]) -> float | None:
    """The criterion at ``lam`` if the (one, full-width) search evaluated it."""
    if len(outcomes) != 1 or outcomes[0].evaluated.shape[1] != lam.size:
        return None
    o = outcomes[0]
    hit = np.flatnonzero(np.all(np.abs(o.evaluated - lam) <= 1e-12, axis=1))
    return float(o.evaluated_scores[hit[0]]) if hit.size else None


def tune(
    X: Any,
    y: Any,
    classifier: Any = None,
    *,
    mode: Literal["spherical", "diagonal", "full"] = "full",
    criterion: str | Callable[..., float] | Criterion = "cv",
    search: Literal["iterative", "grid", "continuous", "nelder-mead"] = "iterative",
    cv: Any = 5,
    scoring: Any = None,
    grid: ArrayLike | None = None,
    epochs: int = 4,
    shift_epoch: int | None = None,
    shuffle_epoch: int | None = None,
    finer_epoch: int | None = None,
    start: ArrayLike | Literal["ml"] = "ml",
    rule: Literal["incumbent", "paper"] = "incumbent",
    rescale: Literal["standard", "minmax"] = "standard",
    clip: bool = True,
    random_state: int | None = None,
    n_jobs: int | None = None,
    progress: bool = False,
) -> TuningResult:
    """Choose Box-Cox lambdas that make a classification problem easy.

    Parameters
    ----------
    X : array_like or DataFrame of shape (n_samples, n_features)
        Features (any real values: they are min-max scaled into ``[1, 2]`` first).
    y : array_like of shape (n_samples,)
        Class labels.
    classifier : scikit-learn classifier, default=None
        Needed by ``criterion="cv"`` (the default) and ``"train"``.
    mode : {"spherical", "diagonal", "full"}, default="full"
    criterion : str or callable, default="cv"
        ``"ml"``, ``"pcml"``, ``"fisher"``, ``"margin"``, ``"cv"`` (cross-validated score of
        ``classifier``), ``"train"`` (its training score, as in Blum et al.) or a callable
        ``f(X_scaled, y, lmbda) -> float``; larger is better.
    search : {"iterative", "grid", "continuous", "nelder-mead"}, default="iterative"
        Coordinate search (Blum et al.), exhaustive grid, (one lambda only) continuous 1-D
        optimiser, or the Nelder-Mead simplex over the whole vector (Bicego & Baldo 2016,
        who use Matlab's ``fminsearch``; unbounded, started at ``start``).
    cv, scoring : inner cross-validation folds and scorer of ``criterion="cv"``.
    grid : array_like, default=None
        Candidate lambdas per direction (default ``-5, -4, ..., 5``); its range bounds the
        continuous search.
    epochs, shift_epoch, shuffle_epoch, finer_epoch :
        Options of the iterative search (see :func:`.search.coordinate_search`).
    start : "ml" or array_like, default="ml"
        Start of the iterative and Nelder-Mead searches: the per-feature ML lambdas
        (clipped to the grid's range; with ``rule="paper"`` as they are, Blum et al.'s
        ``G``), or a vector.
    rule : {"incumbent", "paper"}, default="incumbent"
        Acceptance rule of the iterative search (see :func:`.search.coordinate_search`):
        ``"paper"`` is Blum et al.'s pseudo-code as printed (the start is not scored; a
        candidate must beat the best value so far, also after a *Shift*; ``start="ml"``
        is not clipped). With ``criterion="train"``, ``clip=False`` and their folds it
        reproduces their Table 4 (naive Bayes on sonar: +7.919 points).
    rescale : {"standard", "minmax"}, default="standard"
        How the transformed features are scaled before a classifier (``"cv"``, ``"train"``)
        or the 1-NN margin sees them: standardised (Blum et al., Algorithm 2), or min-max
        scaled into ``[1, 2]`` again (Bicego & Baldo 2016, section 2).
    clip : bool, default=True
        How the result's ``transform`` scales new data: values outside the training range
        are clipped to its ends (every power stays finite), or with ``False`` scaled
        outside ``[1, 2]`` as Blum et al.'s Algorithm 3 (a fitted ``MinMaxScaler``) does;
        a value that then lands at or below 0 raises :class:`~boxcoxstat.BoxCoxError`.
        The tuning itself sees only the training data and does not depend on it.
    random_state : int, default=None
        Seeds the inner folds and the Shift / Shuffle options.
    n_jobs : int, default=None
        Parallel evaluations (joblib).
    progress : bool, default=False
        tqdm progress bar.

    Returns
    -------
    TuningResult

    Notes
    -----
    The modes of Bicego & Baldo (2016) map onto these: their spherical is ``"spherical"``;
    their diagonal ML and PCML (per-feature sums) are ``"diagonal"``; their diagonal Fisher
    and 1-NN margin optimise the whole vector jointly, which is ``mode="full"`` here (with
    ``search="nelder-mead"`` to use their optimiser).

    Examples
    --------
    >>> import numpy as np
    >>> import boxcoxstat as bcs
    >>> rng = np.random.default_rng(0)
    >>> X = np.exp(rng.normal(size=(80, 2)))
    >>> y = (X[:, 0] > 1.5).astype(int)
    >>> res = bcs.classify.tune(X, y, mode="spherical", criterion="fisher",
    ...                         search="continuous")
    >>> res.lmbda.shape, res.score >= res.baseline
    ((2,), True)
    """
    Xa, ya, names, layout = _as_xy(X, y)
    mode = check_option("mode", mode, MODES)
    search = check_option("search", search, SEARCHES)
    rule = check_option("rule", rule, RULES)
    rescale = check_option("rescale", rescale, RESCALES)
    crit = get_criterion(criterion, classifier=classifier, cv=cv, scoring=scoring,
                         random_state=random_state, rescale=rescale)
    low, high = Xa.min(axis=0), Xa.max(axis=0)
    Xs = scale_unit_range(Xa, low, high)
    g = default_grid() if grid is None else np.asarray(grid, dtype=np.float64).reshape(-1)
    p = Xs.shape[1]
    ml = ml_lambdas(Xs)
    if isinstance(start, str):
        if start != "ml":
            raise BoxCoxError(f"start must be 'ml' or a vector of {p} lambdas, got {start!r}")
        # the paper's G is the ML estimate itself; otherwise it is clipped to the grid's range
        g0 = ml.copy() if rule == "paper" else np.clip(ml, g.min(), g.max())
    else:
        g0 = np.asarray(start, dtype=np.float64).reshape(-1)
        if g0.size != p:
            raise BoxCoxError(f"start has {g0.size} values but X has {p} features")
    opts = {"grid": g, "epochs": epochs, "shift_epoch": shift_epoch,
            "shuffle_epoch": shuffle_epoch, "finer_epoch": finer_epoch,
            "rule": rule, "random_state": random_state, "n_jobs": n_jobs,
            "progress": progress, "what": f"{mode}, criterion {crit.name}"}
    outcomes: list[SearchOutcome] = []
    if mode == "full":
        out = _search_vector(lambda lam: crit(Xs, ya, lam), p, g0, search, opts)
        lam = out.lmbda
        outcomes.append(out)
    elif mode == "spherical":
        out = _search_vector(lambda lam: crit(Xs, ya, np.full(p, lam[0])), 1,
                             np.array([np.median(g0)]), search, opts)
        lam = np.full(p, out.lmbda[0])
        outcomes.append(out)
    else:
        lam = np.empty(p)
        for j in range(p):
            col = Xs[:, [j]]
            def on_column(v: NDArray[np.float64], c: NDArray[np.float64] = col) -> float:
                return crit(c, ya, v)

            opts["what"] = f"diagonal, criterion {crit.name}, feature {j + 1}/{p}"
            out = _search_vector(on_column, 1, g0[[j]], search, opts)
            lam[j] = out.lmbda[0]
            outcomes.append(out)
    width = p if mode == "full" else 1  # spherical: the search saw the one lambda
    baseline = _known(outcomes, np.ones(width))
    score = _known(outcomes, lam[:width])
    return TuningResult(
        names=tuple(names), _layout=layout, _families=("boxcox",) * p, _lmbda_used=lam,
        criterion=crit.name, mode=mode, search=search,
        baseline=crit(Xs, ya, np.ones(p)) if baseline is None else baseline,
        score=crit(Xs, ya, lam) if score is None else score, ml_lmbda=ml,
        outcomes=tuple(outcomes), data_min=low, data_max=high, grid=g, nobs=Xs.shape[0],
        rule=rule, rescale=rescale, clip=bool(clip))


def criterion_curves(
    X: Any,
    y: Any,
    criteria: tuple[str | Callable[..., float], ...] = ("ml", "pcml", "fisher"),
    *,
    lmbda: ArrayLike | None = None,
    classifier: Any = None,
    cv: Any = 5,
    random_state: int | None = None,
    rescale: Literal["standard", "minmax"] = "standard",
) -> pd.DataFrame:
    """Each criterion as a function of one spherical lambda (Bicego & Baldo 2016, Figs 4-6).

    Returns a DataFrame indexed by ``lmbda`` (default ``-5, -4.9, ..., 5``) with one column
    per criterion; :func:`linf_distance` compares two columns.

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.classify import criterion_curves
    >>> rng = np.random.default_rng(0)
    >>> X = np.exp(rng.normal(size=(60, 2)))
    >>> y = np.repeat([0, 1], 30)
    >>> criterion_curves(X, y, lmbda=[-1, 0, 1]).shape
    (3, 3)
    """
    Xa, ya, _, _ = _as_xy(X, y)
    Xs = scale_unit_range(Xa, Xa.min(axis=0), Xa.max(axis=0))
    grid = np.round(np.arange(-5.0, 5.0 + 1e-9, 0.1), 10) if lmbda is None else (
        np.asarray(lmbda, dtype=np.float64).reshape(-1))
    out = {}
    for c in criteria:
        crit = get_criterion(c, classifier=classifier, cv=cv, random_state=random_state,
                             rescale=rescale)
        out[crit.name] = [crit(Xs, ya, np.full(Xs.shape[1], v)) for v in grid]
    return pd.DataFrame(out, index=pd.Index(grid, name="lmbda"))


def linf_distance(a: ArrayLike, b: ArrayLike) -> float:
    """L-infinity distance between two curves after normalising each to ``[0, 1]``.

    Bicego & Baldo (2016), eq. 13 and Table 5. A constant curve normalises to zeros.

    Examples
    --------
    >>> from boxcoxstat.classify import linf_distance
    >>> linf_distance([0, 1, 2], [10, 30, 20])
    0.5
    """
    def norm(v: ArrayLike) -> NDArray[np.float64]:
        v = np.asarray(v, dtype=np.float64)
        span = v.max() - v.min()
        return (v - v.min()) / span if span > 0 else np.zeros_like(v)

    return float(np.max(np.abs(norm(a) - norm(b))))
