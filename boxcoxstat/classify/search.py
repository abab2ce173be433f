"""Searches over the Box-Cox lambda vector: exhaustive grid, iterative coordinate search, 1-D.

A search maximises ``evaluate(lmbda) -> float`` over lambda vectors of
length ``p`` and returns a :class:`SearchOutcome` holding the best vector, its score, a trace
(best score after every epoch) and every evaluation made.

* :func:`grid_search` tries every combination of a grid (Blum, Menon & Elgendi, Optimization
  1); it costs ``len(grid) ** p`` evaluations, so it refuses more than ``max_evals``.
* :func:`coordinate_search` is their iterative method (Optimization 2, "Basic"): one direction
  at a time, a 1-D grid search with the other directions fixed, repeated for ``epochs``; with
  the options *Shift* (restart from a random grid point, Optimization 2.1), *Shuffle* (random
  direction order, 2.2) and *Finer* (grid scaled by ``finer`` and centred on the current
  value, 2.3).
* :func:`scalar_search` is a continuous 1-D optimiser for the spherical mode: a grid scan
  followed by bounded Brent minimisation (``scipy.optimize.minimize_scalar``) in the cells
  next to the best grid point.
* :func:`nelder_mead_search` maximises over the whole vector with the Nelder-Mead simplex,
  as Bicego & Baldo (2016, footnote 7) do with Matlab's ``fminsearch`` (same initial simplex
  and tolerances).

A candidate replaces the incumbent only if its score is strictly larger, as in the paper.
Evaluations are cached by lambda vector, so re-visiting a point costs nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation.columns import BoxCoxError
from ..base import jsonio
from ..base.jsonio import saved

__all__ = ["SearchOutcome", "grid_search", "coordinate_search", "scalar_search",
           "nelder_mead_search", "default_grid"]

Evaluate = Callable[[NDArray[np.float64]], float]

#: How the lambda vector is parametrised (see :func:`boxcoxstat.classify.tune`).
MODES = ("spherical", "diagonal", "full")
#: The searches of this module, by the name ``tune(search=...)`` gives them.
SEARCHES = ("iterative", "grid", "continuous", "nelder-mead")
#: Acceptance rules of :func:`coordinate_search`.
RULES = ("incumbent", "paper")


def default_grid(size: int = 11, low: float = -5.0, high: float = 5.0) -> NDArray[np.float64]:
    """Evenly spaced candidate powers, by default ``-5, -4, ..., 5`` (Blum et al., Table 3)."""
    if size < 2:
        raise BoxCoxError("a lambda grid needs at least 2 points")
    return np.linspace(low, high, int(size))


@dataclass(frozen=True)
class SearchOutcome:
    """Best lambda vector, its score, the per-epoch trace and every evaluation.

    A record saved inside :class:`~boxcoxstat.classify.TuningResult`'s JSON document: its
    fields are declared here, once (``jsonio.saved``). Every score is finite (a criterion
    that is not raises while searching).
    """

    lmbda: NDArray[np.float64] = saved(jsonio.Floats(finite=True))
    score: float = saved(jsonio.Float(finite=True))
    trace_scores: NDArray[np.float64] = saved(jsonio.Floats(finite=True))
    trace_lmbda: NDArray[np.float64] = saved(
        jsonio.Matrix(length_of="trace_scores", finite=True))
    evaluated: NDArray[np.float64] = saved(jsonio.Matrix(finite=True))
    evaluated_scores: NDArray[np.float64] = saved(
        jsonio.Floats(length_of="evaluated", finite=True))

    @staticmethod
    def _check_loaded(values: dict[str, Any]) -> None:
        """Every lambda vector in a loaded document has the length of ``lmbda``."""
        p = values["lmbda"].size
        if p == 0:
            raise jsonio._Bad("field 'lmbda' must hold at least one value")
        for name in ("trace_lmbda", "evaluated"):
            rows = values[name]
            if rows.shape[0] and rows.shape[1] != p:
                raise jsonio._Bad(f"field {name!r} must have {p} columns (the length of "
                                  f"'lmbda'), got {rows.shape[1]}")


class _Cache:
    """Memoised, optionally parallel (joblib) and progress-reporting (tqdm) evaluations.

    ``progress`` may be a string: the bar's description (what is being tuned); the bar's
    postfix says where the search is (epoch, direction) and how many evaluations were new.
    """

    def __init__(self, evaluate: Evaluate, n_jobs: int | None, progress: Any, total: int):
        self.evaluate = evaluate
        self.n_jobs = n_jobs
        self.store: dict[tuple[float, ...], float] = {}
        self.order: list[tuple[float, ...]] = []
        self.bar = None
        if progress:
            from tqdm.auto import tqdm

            desc = progress if isinstance(progress, str) else "lambda search"
            self.bar = tqdm(total=total, desc=desc, leave=False)

    def describe(self, epoch: int, epochs: int, step: int, p: int) -> None:
        """Say on the bar which epoch and direction the search is in."""
        if self.bar is not None:
            self.bar.set_postfix_str(f"epoch {epoch}/{epochs}, direction {step}/{p}, "
                                     f"{len(self.order)} evaluated", refresh=False)

    def skip(self, n: int) -> None:
        """Advance the bar over ``n`` candidates that need no evaluation."""
        if self.bar is not None:
            self.bar.update(n)

    def many(self, points: Sequence[NDArray[np.float64]]) -> NDArray[np.float64]:
        keys = [tuple(np.round(np.asarray(q, dtype=np.float64), 12).tolist()) for q in points]
        todo = list(dict.fromkeys(k for k in keys if k not in self.store))
        if todo:
            if self.n_jobs is not None and self.n_jobs != 1 and len(todo) > 1:
                from joblib import Parallel, delayed

                vals = Parallel(n_jobs=self.n_jobs)(
                    delayed(self.evaluate)(np.array(k)) for k in todo)
            else:
                vals = [self.evaluate(np.array(k)) for k in todo]
            for k, v in zip(todo, vals, strict=True):
                self.store[k] = float(v)
                self.order.append(k)
        if self.bar is not None:
            self.bar.update(len(keys))
        return np.array([self.store[k] for k in keys])

    def one(self, point: NDArray[np.float64]) -> float:
        """One evaluation; ``-inf`` where the criterion is not finite (outside its domain)."""
        try:
            return float(self.many([point])[0])
        except BoxCoxError:
            return -np.inf

    def close(self, best: NDArray[np.float64], score: float, trace: list) -> SearchOutcome:
        if self.bar is not None:
            self.bar.close()
        p = best.size
        ev = np.array(self.order, dtype=np.float64).reshape(-1, p)
        return SearchOutcome(
            lmbda=best.copy(), score=float(score),
            trace_scores=np.array([t[0] for t in trace], dtype=np.float64),
            trace_lmbda=np.array([t[1] for t in trace], dtype=np.float64).reshape(-1, p),
            evaluated=ev, evaluated_scores=np.array([self.store[k] for k in self.order]))


def _grid_array(grid: ArrayLike | None) -> NDArray[np.float64]:
    g = default_grid() if grid is None else np.asarray(grid, dtype=np.float64).reshape(-1)
    if g.size < 1 or not np.all(np.isfinite(g)):
        raise BoxCoxError("grid must hold at least one finite lambda value")
    return g


def grid_search(
    evaluate: Evaluate,
    p: int,
    *,
    grid: ArrayLike | None = None,
    max_evals: int = 100_000,
    n_jobs: int | None = None,
    progress: bool = False,
) -> SearchOutcome:
    """Exhaustive search over ``grid ** p`` (Blum, Menon & Elgendi, Optimization 1).

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.classify.search import grid_search
    >>> out = grid_search(lambda l: -np.sum((l - [2.0, -3.0]) ** 2), 2)
    >>> out.lmbda.tolist(), len(out.evaluated)
    ([2.0, -3.0], 121)
    """
    g = _grid_array(grid)
    total = g.size ** int(p)
    if total > max_evals:
        raise BoxCoxError(f"an exhaustive grid of {g.size} values over {p} features needs "
                          f"{total} evaluations (max_evals={max_evals}); use "
                          "search='iterative' or fewer grid points")
    mesh = np.stack(np.meshgrid(*([g] * int(p)), indexing="ij"), axis=-1).reshape(-1, int(p))
    cache = _Cache(evaluate, n_jobs, progress, total)
    scores = cache.many(list(mesh))
    k = int(np.argmax(scores))
    return cache.close(mesh[k], scores[k], [(scores[k], mesh[k])])


def _fires(epoch: int, every: int | None) -> bool:
    """Whether an option set to act every ``every`` epochs acts at 0-based ``epoch``.

    Options act at the start of epochs ``every, 2 every, ...`` (never in the first), so
    ``every >= epochs`` (or ``None``) switches an option off, as in Blum et al.'s Table 3,
    whose *Basic* row sets all three options to its number of epochs.
    """
    return every is not None and epoch > 0 and epoch % int(every) == 0


def coordinate_search(
    evaluate: Evaluate,
    start: ArrayLike,
    *,
    grid: ArrayLike | None = None,
    epochs: int = 4,
    shift_epoch: int | None = None,
    shuffle_epoch: int | None = None,
    finer_epoch: int | None = None,
    finer: float = 0.5,
    rule: Literal["incumbent", "paper"] = "incumbent",
    random_state: int | np.random.Generator | None = None,
    n_jobs: int | None = None,
    progress: bool | str = False,
) -> SearchOutcome:
    """Iterative coordinate search of Blum, Menon & Elgendi (Optimization 2, 2.1-2.3).

    Parameters
    ----------
    evaluate : callable
        ``evaluate(lmbda) -> float`` for a length-``p`` vector; larger is better.
    start : array_like of shape (p,)
        The initial point ``G`` (the paper uses the per-feature ML lambdas).
    grid : array_like, default=None
        Candidate values for one direction; default ``-5, -4, ..., 5``.
    epochs : int, default=4
        Number of sweeps over all directions.
    shift_epoch, shuffle_epoch, finer_epoch : int or None, default=None
        Every this many epochs: restart from a random grid point (*Shift*), shuffle the
        direction order (*Shuffle*), or scale the grid by ``finer`` and centre it on the
        current value of each direction (*Finer*, cumulative). ``None`` turns an option off.
    finer : float, default=0.5
        Grid scale factor of *Finer*.
    rule : {"incumbent", "paper"}, default="incumbent"
        When a candidate is accepted. ``"incumbent"``: the start is scored, and a candidate
        replaces the current point when it scores strictly more than the current point
        (after a *Shift*, the restarted point), so a restart explores its own
        neighbourhood; the best point ever seen is returned. ``"paper"``: the pseudo-code of
        Optimization 2 and 2.1 as printed: the best value ``A`` starts below every score
        (the paper's ``A <- 0`` for accuracies), the start is not scored, and a candidate
        is accepted only when it beats the best value found so far; after a *Shift* the
        directions are searched around the new point until a candidate beats that best.
    random_state : int, Generator or None
        Seeds *Shift* and *Shuffle*.
    n_jobs : int or None
        Candidates of one direction are evaluated in parallel with joblib.
    progress : bool or str
        Show a tqdm progress bar (a string is the bar's description, e.g. what is tuned).

    Returns
    -------
    SearchOutcome

    Notes
    -----
    Evaluations are cached by lambda vector. An epoch in which no direction moved is
    followed by identical epochs until *Shift* or *Finer* acts (a shuffled order over an
    unmoved point visits the same candidates), so those epochs are skipped and their trace
    entries repeat the last value.

    With ``rule="paper"`` the first candidate of the first direction is always accepted,
    so the start matters only through the directions not yet searched (and those where
    no candidate beats the best value keep their start value, so :func:`.tune` does not
    clip the ML start to the grid under this rule). On the paper's folds (sonar, Gaussian
    naive Bayes, training accuracy, 10-fold x 5, test values not clipped) this rule gives
    the paper's +7.919 points (Table 4); with the test values clipped into the training
    range, +8.01, and with the start clipped to the grid as well, +7.99.

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.classify.search import coordinate_search
    >>> f = lambda l: -np.sum((l - [2.0, -3.0, 0.5]) ** 2)
    >>> out = coordinate_search(f, [1.0, 1.0, 1.0], epochs=3, finer_epoch=1)
    >>> out.lmbda.tolist(), out.trace_scores.size
    ([2.0, -3.0, 0.5], 3)
    """
    g = _grid_array(grid)
    cur = np.asarray(start, dtype=np.float64).reshape(-1).copy()
    p = cur.size
    if int(epochs) < 1:
        raise BoxCoxError("epochs must be >= 1")
    if rule not in RULES:
        raise BoxCoxError(f"rule must be one of {', '.join(map(repr, RULES))}, got {rule!r}")
    rng = np.random.default_rng(random_state)
    cache = _Cache(evaluate, n_jobs, progress, int(epochs) * p * g.size)
    paper = rule == "paper"
    best = cur.copy()
    best_score = cur_score = -np.inf if paper else float(cache.many([cur])[0])
    order = np.arange(p)
    local = False
    moved = True
    restarting = False  # rule="paper": searching around a Shift point not yet improved on
    trace: list[tuple[float, NDArray[np.float64]]] = []
    for epoch in range(int(epochs)):
        shift, refine = _fires(epoch, shift_epoch), _fires(epoch, finer_epoch)
        if _fires(epoch, shuffle_epoch):
            order = rng.permutation(p)
        if not (moved or shift or refine):  # the same candidates as the last epoch
            cache.skip(p * g.size)
            trace.append((best_score, best.copy()))
            continue
        if shift:
            cur, restarting = rng.choice(g, size=p), True
            if not paper:
                cur_score = float(cache.many([cur])[0])
        if refine:
            g = g * float(finer)
            local = True
        moved = False
        for step, j in enumerate(order):
            cache.describe(epoch + 1, int(epochs), step + 1, p)
            centre = best[j] if paper else cur[j]  # Optimization 2.3 centres on Lambda_opt
            points = []
            for value in (g + centre if local else g):
                q = cur.copy()
                q[j] = value
                points.append(q)
            scores = cache.many(points)
            k = int(np.argmax(scores))
            if paper:
                if scores[k] > best_score:
                    best, best_score = points[k].copy(), float(scores[k])
                    moved, restarting = True, False
                if not restarting:
                    cur = best.copy()
                continue
            if scores[k] > cur_score:
                cur, cur_score = points[k], float(scores[k])
                moved = True
            if cur_score > best_score:
                best, best_score = cur.copy(), cur_score
        trace.append((best_score, best.copy()))
    return cache.close(best, best_score, trace)


def scalar_search(
    evaluate: Callable[[float], float],
    *,
    bounds: tuple[float, float] = (-5.0, 5.0),
    grid_size: int = 41,
    xatol: float = 1e-4,
) -> SearchOutcome:
    """Continuous 1-D maximisation for one lambda (the spherical mode).

    A scan of ``grid_size`` points over ``bounds`` finds the best cell; bounded Brent search
    (``scipy.optimize.minimize_scalar``) then refines it between the neighbouring grid
    points. Robust to criteria with several local maxima at the scale of the grid.

    Examples
    --------
    >>> from boxcoxstat.classify.search import scalar_search
    >>> out = scalar_search(lambda l: -(l - 1.2345) ** 2)
    >>> round(float(out.lmbda[0]), 3)
    1.234
    """
    from scipy.optimize import minimize_scalar

    lo, hi = float(bounds[0]), float(bounds[1])
    if not lo < hi:
        raise BoxCoxError(f"bounds must be (low, high) with low < high, got {bounds!r}")
    cache = _Cache(lambda v: evaluate(float(v[0])), None, False, grid_size)
    g = np.linspace(lo, hi, int(grid_size))
    scores = cache.many([np.array([v]) for v in g])
    k = int(np.argmax(scores))
    a, b = g[max(k - 1, 0)], g[min(k + 1, g.size - 1)]
    best, best_score = float(g[k]), float(scores[k])
    res = minimize_scalar(lambda v: -cache.many([np.array([v])])[0], bounds=(a, b),
                          method="bounded", options={"xatol": xatol})
    if -float(res.fun) > best_score:
        best, best_score = float(res.x), -float(res.fun)
    lam = np.array([best])
    return cache.close(lam, best_score, [(best_score, lam)])


def nelder_mead_search(
    evaluate: Evaluate,
    start: ArrayLike,
    *,
    xatol: float = 1e-4,
    fatol: float = 1e-4,
    maxfev: int | None = None,
    progress: bool | str = False,
) -> SearchOutcome:
    """Maximise over the whole lambda vector with the Nelder-Mead simplex.

    Bicego & Baldo (2016) optimise each criterion with Matlab's ``fminsearch`` (their
    footnote 7); ``scipy.optimize.minimize(method="Nelder-Mead")`` builds the same initial
    simplex (5% steps, 0.00025 for a zero coordinate) and is run with ``fminsearch``'s
    defaults: ``TolX = TolFun = 1e-4`` and at most ``200 p`` iterations and evaluations.
    The search is unbounded, as theirs; a point where the criterion is not finite (a power
    so large that the transformed data overflow) counts as the worst possible.

    Parameters
    ----------
    evaluate : callable
        ``evaluate(lmbda) -> float`` for a length-``p`` vector; larger is better.
    start : array_like of shape (p,)
        The first vertex of the simplex.
    xatol, fatol : float, default=1e-4
        ``fminsearch``'s ``TolX`` and ``TolFun``.
    maxfev : int, default=None
        At most this many evaluations (and iterations); ``None`` means ``200 p``.
    progress : bool or str
        Show a tqdm progress bar over the evaluations.

    Returns
    -------
    SearchOutcome
        The trace holds the best value after each iteration of the simplex.

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.classify.search import nelder_mead_search
    >>> out = nelder_mead_search(lambda l: -np.sum((l - [2.0, -3.0]) ** 2), [1.0, 1.0])
    >>> np.round(out.lmbda, 2).tolist()
    [2.0, -3.0]
    """
    from scipy.optimize import minimize

    x0 = np.asarray(start, dtype=np.float64).reshape(-1)
    p = x0.size
    limit = 200 * p if maxfev is None else int(maxfev)
    cache = _Cache(evaluate, None, progress, limit)
    trace: list[tuple[float, NDArray[np.float64]]] = []

    def record(xk: NDArray[np.float64]) -> None:
        if cache.store:
            v, k = max((v, k) for k, v in cache.store.items())
            trace.append((v, np.array(k)))

    res = minimize(lambda v: -cache.one(v), x0, method="Nelder-Mead", callback=record,
                   options={"xatol": xatol, "fatol": fatol, "maxiter": limit,
                            "maxfev": limit})
    cache.one(np.asarray(res.x, dtype=np.float64))
    if not cache.store:
        raise BoxCoxError("the Nelder-Mead search found no lambda where the criterion is "
                          "finite; start it elsewhere")
    score, key = max((v, k) for k, v in cache.store.items())  # points as evaluated (rounded)
    best = np.array(key)
    trace.append((score, best))
    return cache.close(best, score, trace)
