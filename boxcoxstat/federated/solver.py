"""Finding lambda over rounds: each objective call is one round of the protocol.

Layer 6 (``federated``). The objective is any ``evaluate(lmbda, score=...) -> (nll, score)``
(the federated server, or a Dask graph). Three optimisers:

``"score"`` (default)
    The root of the score dNLL/dlambda, one lambda per round: geometric bracketing from
    [0, 1], then Chandrupatla's bracketing root finder. The score is computed from the same
    mergeable moments as the NLL and is accurate to rounding error, so lambda is resolved to
    ~1e-13 relative, where a minimiser on NLL values stops near sqrt(eps) in flat regions.
``"brent"``
    Xu & Cormode's (2025) choice: Brent's minimiser on NLL values alone (``scipy``), one
    lambda per round, after bracketing the minimum by geometric steps. Kept for comparison;
    it reaches about 1e-8 relative.
``"grid"``
    Section 7's variant, G lambdas per round: a geometric grid over +-[1e-3, 1e15] brackets
    the score's sign change in the first round, then each round evaluates G equally spaced
    interior points and keeps the sub-interval with the sign change, shrinking the bracket
    G + 1 fold; a final secant step inside the tiny bracket gives lambda.

References
----------
Xu, X. and Cormode, G. (2025). Power transform revisited: numerically stable, and federated.
Brent, R. P. (1973). Algorithms for Minimization Without Derivatives.
Chandrupatla, T. R. (1997). Advances in Engineering Software 28, 145-149.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import optimize as sopt
from scipy import stats

from .._validation import BoxCoxError
from ..core.optimize import bracket_increasing, find_root

__all__ = ["Solution", "solve", "inference", "curvature", "polish_start"]

Evaluate = Callable[..., tuple[NDArray[np.float64], NDArray[np.float64]]]

XRTOL = 1e-13
LIMIT = 1e18


@dataclass(frozen=True)
class Solution:
    lmbda: float
    nll: float
    converged: bool


class _Memo:
    """Calls ``evaluate`` and remembers every NLL it returned (no round is repeated)."""

    def __init__(self, evaluate: Evaluate):
        self.evaluate = evaluate
        self.nll: dict[float, float] = {}

    def __call__(self, lam: NDArray[np.float64], score: bool = True):
        val, sc = self.evaluate(np.asarray(lam, dtype=np.float64), score=score)
        for x, v in zip(np.atleast_1d(lam).tolist(), val.tolist(), strict=True):
            self.nll[x] = v
        return val, sc

    def nll_at(self, lam: float) -> float:
        if lam not in self.nll:
            self(np.array([lam]), score=False)
        return self.nll[lam]


def _solve_score(memo: _Memo, start: tuple | None = None) -> Solution:
    def f(lam: NDArray, idx: NDArray) -> NDArray:
        return memo(lam)[1]

    a, b, fa, fb = (0.0, 1.0, np.nan, np.nan) if start is None else start
    lo, hi, flo, fhi, ok, _ = bracket_increasing(
        f, np.array([a]), np.array([b]), flo=np.array([fa]), fhi=np.array([fb]), limit=LIMIT
    )
    if not ok[0]:
        return Solution(float(lo[0] if flo[0] > 0 else hi[0]), np.nan, False)
    res = find_root(f, lo, hi, flo, fhi, xatol=0.0, xrtol=XRTOL)
    lam = float(res.x[0])
    return Solution(lam, memo.nll_at(lam), bool(res.converged[0]))


def _solve_brent(memo: _Memo) -> Solution:
    def g(x: float) -> float:
        return float(memo(np.array([x]), score=False)[0][0])

    a, b = 0.0, 1.0
    fa, fb = g(a), g(b)
    if fb > fa:
        a, b, fa, fb = b, a, fb, fa
    c = b + 2.0 * (b - a)
    fc = g(c)
    while fc < fb:
        if abs(c) > LIMIT:
            return Solution(c, fc, False)
        a, b, fa, fb = b, c, fb, fc
        c = b + 2.0 * (b - a)
        fc = g(c)
    res = sopt.minimize_scalar(g, bracket=(a, b, c), method="brent", tol=1e-12)
    return Solution(float(res.x), float(res.fun), bool(res.success))


def _grid_bracket(memo: _Memo, grid: int) -> tuple[float, float, float, float] | None:
    """Bracket the score's sign change with ``grid`` lambdas per round.

    A geometric ladder 0, +-1e-3, ..., +-1e15 (ratio 10, or finer when one round can hold
    more points) is evaluated from small magnitudes outwards, ``grid`` points per round,
    until both signs of the score have been seen.
    """
    per_side = (grid - 1) // 2
    mags = np.geomspace(1e-3, 1e15, max(per_side, 19))
    ladder = np.r_[0.0, np.column_stack([-mags, mags]).ravel()]
    xs: list[float] = []
    fs: list[float] = []
    for i in range(0, ladder.size, grid):
        batch = ladder[i : i + grid]
        xs += batch.tolist()
        fs += memo(batch)[1].tolist()
        if min(fs) < 0 <= max(fs):
            order = np.argsort(xs)
            x, f = np.asarray(xs)[order], np.asarray(fs)[order]
            k = int(np.flatnonzero(f >= 0)[0])
            if k > 0:
                return float(x[k - 1]), float(x[k]), float(f[k - 1]), float(f[k])
    return None


def _solve_grid(memo: _Memo, grid: int) -> Solution:
    if grid < 2:
        raise BoxCoxError(f"grid must be at least 2, got {grid!r}")
    bracket = _grid_bracket(memo, grid)
    if bracket is None:
        return Solution(np.nan, np.nan, False)
    a, b, fa, fb = bracket
    for _ in range(60):
        if fb == 0 or b - a <= XRTOL * max(abs(a), abs(b)):
            break
        inner = np.linspace(a, b, grid + 2)[1:-1]
        inner = inner[(inner > a) & (inner < b)]
        if inner.size == 0:
            break
        si = memo(inner)[1]
        xs = np.r_[a, inner, b]
        fs = np.r_[fa, si, fb]
        k = int(np.flatnonzero(fs >= 0)[0])
        a, b, fa, fb = xs[k - 1], xs[k], fs[k - 1], fs[k]
    lam = float(b if fb == 0 else a - fa * (b - a) / (fb - fa))
    lam = min(max(lam, a), b)
    nll = min((v, x) for x, v in memo.nll.items() if a <= x <= b)[0] if lam not in memo.nll \
        else memo.nll[lam]
    return Solution(lam, nll, True)


def solve(
    evaluate: Evaluate, method: str = "score", grid: int = 1000, start: tuple | None = None
) -> Solution:
    """Maximum-likelihood lambda with the chosen optimiser (see the module docstring).

    ``start`` = ``(lo, hi, f(lo), f(hi))`` (NaN for unknown values) replaces the score
    method's initial interval [0, 1].
    """
    memo = _Memo(evaluate)
    if method == "score":
        return _solve_score(memo, start)
    if method == "brent":
        return _solve_brent(memo)
    return _solve_grid(memo, grid)


def curvature(evaluate: Evaluate, lam: float) -> float:
    """Observed information at ``lam`` in two rounds, as :func:`boxcoxstat.core.mle.curvature`:
    central differences of the score, Richardson-extrapolated."""
    scale = max(1.0, abs(lam))
    h0 = 1e-4 * scale
    _, s0 = evaluate(np.array([lam + h0, lam - h0]))
    c0 = abs((s0[0] - s0[1]) / (2 * h0))
    h = 1e-2 / np.sqrt(c0) if c0 > 0 else 1e-2 * scale
    h = min(max(h, 1e-6 * scale), 1e-2 * scale)
    _, s = evaluate(np.array([lam + h, lam - h, lam + h / 2, lam - h / 2]))
    return float((4 * (s[2] - s[3]) / h - (s[0] - s[1]) / (2 * h)) / 3)


def polish_start(evaluate: Evaluate, lam: float, info: float) -> tuple:
    """A starting bracket on the full data from a subsample's root and (scaled) curvature.

    One score round at ``lam`` and a Newton step overshooting by 20% usually bracket the
    full-data root (the in-memory ``mle._polish_start`` does the same).
    """
    s0 = float(evaluate(np.array([lam]))[1][0])
    if not (np.isfinite(info) and info > 0):
        return (lam, lam + 1.0, s0, np.nan)
    step = -1.2 * s0 / info
    if step == 0:
        step = 1e-12 * max(1.0, abs(lam))
    if step > 0:
        return (lam, lam + step, s0, np.nan)
    return (lam + step, lam, np.nan, s0)


def inference(evaluate: Evaluate, lam: float, nll_hat: float,
              alpha: float = 0.05) -> dict[str, NDArray[np.float64]]:
    """Standard error, profile interval and LR statistics at 0 and 1, in a few batched rounds.

    The same quantities as :mod:`boxcoxstat.core.inference`: the curvature from central
    differences of the score with Richardson extrapolation (2 rounds), the interval endpoints
    as roots of ``NLL(lambda) - NLL(hat) - chi2/2`` solved for both ends at once (one round
    per step), the NLL at 0 and 1 (1 round).
    """
    scale = max(1.0, abs(lam))
    info = curvature(evaluate, lam)
    bse = 1 / np.sqrt(info) if info > 0 else np.nan
    half_q = 0.5 * stats.chi2.isf(alpha, 1)
    direction = np.array([1.0, -1.0])
    step0 = 2 * bse if np.isfinite(bse) else 1e-3 * scale

    def f(t: NDArray, idx: NDArray) -> NDArray:
        val, _ = evaluate(lam + direction[idx] * t, score=False)
        return val - nll_hat - half_q

    a, b, fa, fb, ok, _ = bracket_increasing(
        f, np.zeros(2), np.full(2, step0), flo=np.full(2, -half_q), limit=1e300
    )
    # the endpoints are roots of NLL differences, which carry rounding noise of a few ulp of
    # the NLL; 1e-10 of the half-width is far below any reported digit
    res = find_root(f, a, b, fa, fb, xatol=0.0, xrtol=1e-10)
    if not np.all(ok & res.converged):
        raise BoxCoxError("the profile likelihood does not fall to the interval's cut-off "
                          "within any finite range of lambda")
    v01, _ = evaluate(np.array([0.0, 1.0]), score=False)
    lr = np.maximum(2 * (v01 - nll_hat), 0.0)
    return {
        "bse": np.array([bse]),
        "lower": np.array([lam - res.x[1]]),
        "upper": np.array([lam + res.x[0]]),
        "lr0": lr[:1],
        "lr1": lr[1:],
    }
