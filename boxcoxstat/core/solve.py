"""The one solver: the maximum-likelihood lambda of every column of any profile.

The profile NLL is strictly convex in lambda (Kouider & Chen 1995), so its score is
increasing with one sign change. :func:`solve` brackets that sign change by doubling from
[0, 1] (one short sample column: from the neighbours of the sign change on a ladder of 40
lambdas, all evaluated in one call, narrowed by three more around the interpolated root) and
closes it with Chandrupatla's method, all columns at once; a large sample is first solved on a
systematic subsample, whose root and score derivatives start a polish on the full data: one
column with a derivative pass (``SampleProfile.evaluate_slope``) by Newton's method and the
Hermite cubic through two points (two evaluations, :func:`_newton_polish`), other profiles by
quadratic model steps (usually three, :func:`_secant_polish`); bracketing is the fallback.
This resolves lambda to a few units in the last place of the score's accuracy, where a
minimiser working on NLL values alone stops near the square root of machine precision (Xu &
Cormode 2025 use Brent's minimiser; it is kept as ``optimizer="brent"``, with their grid
variant of section 7 as ``optimizer="grid"``).

The functions never loop over columns: each step evaluates the profile once for every column
that has not converged. On a federated or Dask profile one evaluation is one round.

References
----------
Chandrupatla, T. R. (1997). A new hybrid quadratic/bisection algorithm for finding the zero of
a nonlinear function without using derivatives. Advances in Engineering Software 28, 145-149.
Kouider, E. and Chen, H. (1995). Concavity of Box-Cox log-likelihood function. Statistics &
Probability Letters 25, 171-175.
Xu, X. and Cormode, G. (2025). Power transform revisited: numerically stable, and federated.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import optimize as sopt

from .._validation.columns import BoxCoxError, check_option
from .profile import Profile, rescaled, steering
from .roots import bracket_increasing, find_root

__all__ = [
    "Solution",
    "solve",
    "bounded_solution",
    "OPTIMIZERS",
    "LIMIT",
    "XATOL",
    "XRTOL",
]

LIMIT = 1e18  # largest |lambda| the bracket may reach before the column is declared unbounded
XATOL = 1e-13  # absolute and relative bracket widths at which a root is accepted
XRTOL = 4 * np.finfo(float).eps
OPTIMIZERS = ("score", "brent", "grid")

# ----------------------------------------------------------------------------- the solver
def bounded_solution(profile: Profile, free: Solution, limits: NDArray[np.float64]
                     ) -> Solution:
    """The maximum of ``profile`` on ``[limits[:, 0], limits[:, 1]]`` from its unconstrained
    solution ``free``: the clipped estimate, or (profiles not known to be convex) a finite end
    of smaller NLL. One evaluation of the profile where any bound is active."""
    lam = np.clip(free.lmbda, limits[:, 0], limits[:, 1])
    moved = lam != free.lmbda
    convex = _is_convex(profile)
    if not moved.any() and convex:
        return free
    p = profile.ncols
    cand_lam = [lam]
    if not convex:
        cand_lam += [np.where(np.isfinite(limits[:, 0]), limits[:, 0], lam),
                     np.where(np.isfinite(limits[:, 1]), limits[:, 1], lam)]
    todo = np.concatenate(cand_lam)
    cols = np.tile(np.arange(p), len(cand_lam))
    need = np.r_[moved, np.ones(todo.size - p, dtype=bool)]
    vals = np.concatenate([free.nll] * len(cand_lam))
    if need.any():
        vals[need] = profile.evaluate(todo[need], cols[need], score=False)[0]
    table = vals.reshape(len(cand_lam), p)
    best = np.argmin(table, axis=0)
    lam = todo.reshape(len(cand_lam), p)[best, np.arange(p)]
    nll = table[best, np.arange(p)]
    active = lam != free.lmbda
    slope = None if free.slope is None else np.where(active, np.nan, free.slope)
    return Solution(lam, nll, free.converged | active, free.nfev, slope)


def _is_convex(profile: Profile) -> bool:
    """Whether the profile is one whose NLL is known to be convex in lambda (a sample's, a
    linear model's response)."""
    from .profile import RescaledProfile, SampleProfile
    from .response import ResponseProfile

    return isinstance(profile, (SampleProfile, ResponseProfile, RescaledProfile))


@dataclass(frozen=True)
class Solution:
    """The maximiser of the profile likelihood, per column.

    ``lmbda`` the roots of the score, ``nll`` the profile NLL there, ``converged`` whether a
    sign change was bracketed and closed (and the NLL is finite), ``nfev`` evaluations per
    column on the full profile (rounds, for a federated profile).
    """

    lmbda: NDArray[np.float64]
    nll: NDArray[np.float64]
    converged: NDArray[np.bool_]
    nfev: NDArray[np.int64]
    # the polish's last model slope of the score near the root (NaN where unknown): an
    # estimate of the curvature (1e-3 or better), which sets curvature()'s steps
    slope: NDArray[np.float64] | None = None


class _Recorder:
    """Evaluates a profile, counts evaluations per column and remembers every NLL seen."""

    def __init__(self, profile: Profile):
        self.profile = profile
        p = profile.ncols
        self.seen: list[tuple[NDArray, NDArray, NDArray]] = []  # (columns, lambdas, NLLs)
        self.last = np.full((3, p), np.nan)  # per column: the last (x, nll, score) evaluated
        self.nfev = np.zeros(p, dtype=np.int64)

    def values(self, lam: NDArray, idx: NDArray, score: bool = True,
               steer: bool = False) -> tuple[NDArray, NDArray]:
        """NLL and score at the pairs, counted and remembered; ``steer``: the scores only set
        a step (``profile.steering``: a sample may skip the small-argument series)."""
        val, sc = self.profile.evaluate(lam, idx, score=score,
                                        **(steering(self.profile) if steer else {}))
        idx = np.asarray(idx, dtype=np.intp)
        lam = np.asarray(lam, dtype=np.float64)
        self.seen.append((idx, lam, val))
        if self.nfev.size == 1 and idx.size:  # one column: its last pair is the last
            self.nfev += 1
            if score:
                self.last[:, 0] = (lam[-1], val[-1], sc[-1])
            return val, sc
        if idx.size > 1 and np.any(idx[1:] <= idx[:-1]):  # a column may appear twice
            self.nfev[np.unique(idx)] += 1
            if score:  # the later pair is the column's last
                last = idx.size - 1 - np.unique(idx[::-1], return_index=True)[1]
                self.last[:, idx[last]] = (lam[last], val[last], sc[last])
            return val, sc
        self.nfev[idx] += 1  # increasing columns: each once
        if score:
            self.last[:, idx] = (lam, val, sc)
        return val, sc

    def __call__(self, lam: NDArray[np.float64], idx: NDArray[np.intp]) -> NDArray[np.float64]:
        return self.values(lam, idx)[1]

    def slope_values(self, lam: float, exact: bool,
                     keep: bool | None = None) -> tuple[float, float, float, float] | None:
        """NLL, score, its derivative and a bound of the score's error (0 when ``exact``) of
        the one column at ``lam`` in one pass (``profile.evaluate_slope``), or None where the
        profile has no such pass; counted as an evaluation, and remembered (as
        :meth:`values` does) when ``keep`` (default: ``exact``)."""
        method = getattr(self.profile, "evaluate_slope", None)
        out = None if method is None else method(np.array([lam]), np.zeros(1, dtype=np.intp),
                                                  exact=exact)
        if out is None:
            return None
        self.nfev += 1
        v, f, g, err = (float(q[0]) for q in out)
        if exact if keep is None else keep:
            self.seen.append((np.zeros(1, dtype=np.intp), np.array([lam]), np.array([v])))
            self.last[:, 0] = (lam, v, f)
        return v, f, g, err


    def nll_at(self, lam: NDArray[np.float64]) -> NDArray[np.float64]:
        """The NLL of column j at ``lam[j]``, evaluated (in one call) only where not seen."""
        out = np.full(lam.shape, np.nan)
        for idx, x, v in self.seen:
            hit = x == lam[idx]
            out[idx[hit]] = v[hit]
        # a root accepted unevaluated: the last evaluated NLL, corrected by the score
        # (NLL(x) - f(x) (x - root)/2, exact for a quadratic), when it is that close
        x, v, f = self.last
        with np.errstate(invalid="ignore"):
            near = (np.isnan(out) & np.isfinite(lam) & np.isfinite(v + f)
                    & (np.abs(x - lam) <= 1e-6 * np.maximum(1.0, np.abs(lam))))
        out[near] = v[near] - 0.5 * f[near] * (x[near] - lam[near])
        need = np.flatnonzero(np.isnan(out) & np.isfinite(lam))
        if need.size:
            out[need] = self.values(lam[need], need, score=False)[0]
        return out


SUB_XRTOL = 1e-9  # the subsample's root only starts the full data: its own error is ~n^-1/2
POLISH_STEPS = 6  # full-data evaluations the secant polish may take before the fallback


def _subsample_start(sub: Profile, scale: NDArray[np.float64], fourth: bool = False):
    """Root and the score's first three derivatives on the subsample, to the accuracy a start
    needs (cheaply).

    The root is closed to ``SUB_XRTOL`` (its distance from the full-data root is about
    ``n_sub^-1/2`` anyway). One evaluation of the score at ``lambda +- h`` and
    ``lambda +- 2h`` per column (``h = 1e-3 max(1, |lambda|)``) gives its central
    differences: the slope (the curvature of the NLL) and the second and third derivatives,
    each scaled to the full size by ``scale``. Returns the root, the slope, and an array
    ``(2, p)`` of the higher two (NaN where not finite); the polish uses them for its model
    of the score and its error estimate. With ``fourth`` the score is also evaluated at
    ``lambda +- 3h`` (in the same evaluation) and ``higher`` has a third row, the score's
    fourth derivative ``[3 (E3 - E2) - 5 (E2 - E1)] / (10 h^4)`` with ``Ej = f(jh) + f(-jh)``
    (exact for a polynomial of degree 5; it bounds the Newton polish's interpolation error).
    """
    rec = _Recorder(sub)
    s = _solve_score(sub, rec, None, xrtol=SUB_XRTOL, xatol=SUB_XRTOL)
    p = s.lmbda.shape[0]
    h = 1e-3 * np.maximum(1.0, np.abs(s.lmbda))
    cols = np.arange(p)
    lam = np.r_[s.lmbda + h, s.lmbda - h, s.lmbda + 2 * h, s.lmbda - 2 * h]
    if fourth:
        lam = np.r_[lam, s.lmbda + 3 * h, s.lmbda - 3 * h]
    _, sc = sub.evaluate(lam, np.tile(cols, lam.size // p))
    sp, sm, sp2, sm2 = sc[: 4 * p].reshape(4, p)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        c = (8.0 * (sp - sm) - (sp2 - sm2)) / (12.0 * h) * scale  # O(h^4)
        # the score at lambda (about 0 at the root) from the four, O(h^4) as well
        s0 = (4.0 * (sp + sm) - (sp2 + sm2)) / 6.0
        c2 = (sp + sm - 2.0 * s0) / (h * h) * scale
        c3 = ((sp2 - sm2) - 2.0 * (sp - sm)) / (2.0 * h ** 3) * scale
        rows = [c2, c3]
        if fourth:
            sp3, sm3 = sc[4 * p :].reshape(2, p)
            e1, e2, e3 = sp + sm, sp2 + sm2, sp3 + sm3
            rows.append((3.0 * (e3 - e2) - 5.0 * (e2 - e1)) / (10.0 * h ** 4) * scale)
    good = s.converged & np.isfinite(c) & (c > 0)
    higher = np.where(np.all(np.isfinite(rows), axis=0) & good, np.stack(rows), np.nan)
    return np.where(good, s.lmbda, np.nan), np.where(good, c, np.nan), higher


def _model_step(f: NDArray, b: NDArray, q: NDArray) -> NDArray:
    """The root ``t`` nearest 0 of ``f + b t + q t^2`` (``|q t| << |b|``) by two fixed-point
    steps from Newton's ``-f/b``; ``q`` NaN means the linear step."""
    t = -f / b
    q = np.where(np.isfinite(q), q, 0.0)
    for _ in range(2):
        t = -f / (b + q * t)
    return t


def _secant_polish(rec: _Recorder, x0: NDArray[np.float64], c: NDArray[np.float64],
                   xatol: float, xrtol: float, higher: NDArray[np.float64] | None = None):
    """Model steps on the full profile from ``x0`` (first slope ``c``), all columns.

    Each step goes to the root of a quadratic model of the score around the last point:
    with the subsample's second derivative ``higher[0]`` (when given), the model through
    the first point with slope ``c``, then through the first two points; from the third
    point on, the parabola through the last three (Newton's divided differences). Without
    ``higher`` the steps are Newton's with ``c`` and then the secant's.

    A column stops when the next iterate's error is estimated below half of
    ``xrtol |lambda| + xatol`` by either of two estimates. The first, conservative for
    steps of at least the secant's order, is ``|step_k|^2 / |step_{k-1}|``. The second
    applies to the parabola through three points ``x_i``: its root ``x`` errs by
    ``f3(xi) / 6 prod(x - x_i) / f'`` (the interpolation remainder; ``f3`` the score's third
    derivative), estimated with ``4 max(|f3|, f''^2 / f')`` from the subsample's derivatives
    (a factor 4 for safety, and a floor at the size the lower derivatives imply), and only
    where the parabola's own curvature is within 50% of the subsample's. The
    next iterate is then accepted without evaluating it (as ``scipy.optimize.newton``
    accepts a step below its tolerance), and its NLL is the last evaluated one corrected by
    the score, ``NLL(x) - f(x) (x - lambda)/2`` (exact for a quadratic; the cubic remainder
    is below rounding at such distances). Returns the roots, NLLs, a done flag, the
    tightest bracket seen per column (``lo, hi, flo, fhi``, NaN where a side is unknown)
    for the fallback, and the last model slope (the NLL's curvature there).
    """
    p = x0.shape[0]
    lam = np.full(p, np.nan)
    nll = np.full(p, np.nan)
    done = np.zeros(p, dtype=bool)
    lo, hi = np.full(p, -np.inf), np.full(p, np.inf)
    flo, fhi = np.full(p, np.nan), np.full(p, np.nan)
    xp, fp = np.full(p, np.nan), np.full(p, np.nan)  # the previous point
    xq, fq = np.full(p, np.nan), np.full(p, np.nan)  # the one before
    step_p = np.full(p, np.nan)
    c2, c3 = (np.full(p, np.nan), np.full(p, np.nan)) if higher is None else higher
    with np.errstate(divide="ignore", invalid="ignore"):
        d3 = 4.0 * np.fmax(np.abs(c3), c2 * c2 / c)  # |f3| with its safety factor
    x = x0.copy()
    act = np.flatnonzero(np.isfinite(x0) & np.isfinite(c) & (c > 0))
    last_slope = np.full(p, np.nan)
    for it in range(POLISH_STEPS):
        if act.size == 0:
            break
        # the first point (the subsample's root, ~1e-3 away) only sets the first step: its
        # scores may skip the series (an error d there moves the parabola two steps later by
        # about d step^2 / (x0 - x1)^2, far below rounding); the later points' are exact
        v, f = rec.values(x[act], act, steer=it == 0)
        xa = x[act]
        neg, pos = f < 0, f > 0
        upd = act[neg & (xa > lo[act])]
        lo[upd], flo[upd] = x[upd], f[neg & (xa > lo[act])]
        upd = act[pos & (xa < hi[act])]
        hi[upd], fhi[upd] = x[upd], f[pos & (xa < hi[act])]
        three = np.zeros(act.size, dtype=bool)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            half = np.where(np.isfinite(c2[act]), 0.5 * c2[act], 0.0)  # 0: secant, Newton
            if it == 0:
                slope = c[act]
            else:
                s1 = (f - fp[act]) / (xa - xp[act])  # f[x_k-1, x_k]
                slope = s1 + half * (xa - xp[act])  # the model's slope at x_k
                if it >= 2:  # the parabola through the last three points
                    q = (s1 - (fp[act] - fq[act]) / (xp[act] - xq[act])) / (xa - xq[act])
                    use = np.isfinite(q)
                    half = np.where(use, q, half)
                    slope = np.where(use, s1 + q * (xa - xp[act]), slope)
                    # its error estimate needs the subsample's derivatives to describe
                    # these data: the curvatures must agree within a factor 2
                    three = use & (np.abs(2.0 * q - c2[act]) <= 0.5 * np.abs(c2[act]))
            step = _model_step(f, slope, half)
            nxt = xa + step
            model_err = np.where(three, d3[act] / 6.0 * np.abs(step) * np.abs(nxt - xp[act])
                                 * np.abs(nxt - xq[act]) / np.abs(slope), np.inf)
            ratio = np.abs(step) / np.abs(step_p[act]) if it else np.full(act.size, np.inf)
        last_slope[act] = slope
        tol = xrtol * np.abs(nxt) + xatol
        exact = f == 0
        conv = exact | ((np.fmin(np.abs(step) * np.minimum(ratio, 1.0), model_err)
                         <= 0.5 * tol) & (ratio < 0.5))
        bad = ~np.isfinite(nxt) | ~(slope > 0) | ~np.isfinite(v)
        inside = (nxt > lo[act]) & (nxt < hi[act])
        fin = conv & ~bad & (inside | exact)
        j = act[fin]
        lam[j] = np.where(exact[fin], xa[fin], nxt[fin])
        nll[j] = np.where(exact[fin], v[fin], v[fin] + 0.5 * f[fin] * (nxt[fin] - xa[fin]))
        done[j] = True
        xq[act], fq[act] = xp[act], fp[act]
        xp[act], fp[act], step_p[act] = xa, f, step
        keep = ~fin & ~bad & inside
        x[act] = nxt
        act = act[keep]
    return lam, nll, done, (lo, hi, flo, fhi), last_slope


def _hermite_root(u0: float, f0: float, g0: float, f1: float, g1: float
                  ) -> tuple[float, float, float]:
    """The root ``u`` nearest 0 of the cubic ``H(u) = f1 + g1 u + A u^2 + B u^3`` with
    ``H(u0) = f0`` and ``H'(u0) = g0`` (Hermite interpolation of the score on two points,
    ``u`` measured from the second), and ``A``, ``B``: three fixed-point steps from Newton's
    ``-f1 / g1``."""
    dd = (f0 - f1 - g1 * u0) / (u0 * u0)  # A + B u0
    ee = (g0 - g1) / u0  # 2A + 3B u0
    b = (ee - 2.0 * dd) / u0
    a = dd - b * u0
    u = -f1 / g1
    for _ in range(3):
        u = -f1 / (g1 + a * u + b * u * u)
    return u, a, b


NEWTON_SLOPE_REL = 1e-10  # relative error allowed for the score's derivative (K's closed form)
SERIES_SHARE = 0.1  # share of the tolerance a pass without the series may cost the root


def _newton_polish(rec: _Recorder, x0: float, c: float, higher: NDArray[np.float64],
                   xatol: float, xrtol: float):
    """Newton's method with the score's derivative on the full data, one column, from the
    subsample's root ``x0``: two passes where :func:`_secant_polish` takes three.

    The first pass (``exact=False``: no series for small ``|lambda d|``; it only starts the
    second) gives the score ``f0`` and its derivative ``g0`` at ``x0``; the step is the
    root of the cubic model ``f0 + g0 t + c2 t^2/2 + c3 t^3/6`` with the subsample's
    derivatives (on Box-Cox 1e6 its error is about 3e-6, where Newton's step with the
    subsample's slope left 4e-5). The second pass evaluates ``f1``, ``g1`` exactly at
    ``x1``; the cubic through both points with both slopes (Hermite) has its root ``r``
    within ``|f4| / 24 (r - x0)^2 (r - x1)^2 / f'`` (the interpolation remainder, ``f4`` the
    score's fourth derivative; about 1e-4 x 1e-11 x f4 / f'), plus the derivative's rounding
    (``NEWTON_SLOPE_REL |r - x1|``). With ``f4`` estimated as ``4 max(|c4|, |c2 c3| / c,
    |c2|^3 / c^2)`` from the subsample (as :func:`_secant_polish` estimates the third), and
    the cubic's own curvature at ``x1`` within 50% of the subsample's, ``r`` is accepted
    unevaluated when that bound is below half the tolerance. Otherwise the next pass is
    exact at ``r`` and the Hermite cubic of the last two points is tried again. Returns
    what :func:`_secant_polish` returns (one column), or None where the profile has no
    derivative pass (no evaluation is spent then).
    """
    lo, hi, flo, fhi = -np.inf, np.inf, np.nan, np.nan
    c2, c3, c4 = (float(q) for q in higher[:, 0])
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        d4 = 4.0 * max(abs(c4), abs(c2 * c3) / c, abs(c2) ** 3 / (c * c))
    if not (math.isfinite(d4) and math.isfinite(x0)):
        return None
    first = rec.slope_values(x0, exact=False)
    if first is None:
        return None
    xp, (_, fp, gp, _) = x0, first
    if not (math.isfinite(fp) and gp > 0 and math.isfinite(gp)):
        return _undone(lo, hi, flo, fhi)
    t = -fp / gp
    for _ in range(3):
        t = -fp / (gp + 0.5 * c2 * t + c3 / 6.0 * t * t)
    x = x0 + t
    a = b = math.nan
    for _ in range(POLISH_STEPS - 1):
        # without the series where that cannot move the root by more than a tenth of the
        # tolerance (the bound of the score's error over the slope); else exactly
        got = rec.slope_values(x, exact=False, keep=False)
        if got is None:
            return _undone(lo, hi, flo, fhi)
        if not (got[3] <= SERIES_SHARE * (xrtol * abs(x) + xatol) * abs(got[2])):
            got = rec.slope_values(x, exact=True)
            if got is None:
                return _undone(lo, hi, flo, fhi)
        else:
            rec.seen.append((np.zeros(1, dtype=np.intp), np.array([x]), np.array([got[0]])))
            rec.last[:, 0] = (x, got[0], got[1])
        v, f, g, _ = got
        if f < 0 and x > lo:
            lo, flo = x, f
        elif f > 0 and x < hi:
            hi, fhi = x, f
        if f == 0 and math.isfinite(v):
            return _single(x, v, True, (lo, hi, flo, fhi), g)
        if not (math.isfinite(f) and math.isfinite(v) and g > 0 and math.isfinite(g)):
            break
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            if math.isnan(a) or abs(x - xp) > 1e3 * abs(f / g):
                u, a, b = _hermite_root(xp - x, fp, gp, f, g)
                d4h = max(d4, 4.0 * abs(2.0 * a * 6.0 * b) / g, 4.0 * abs(2.0 * a) ** 3 / g ** 2)
                # the subsample's curvature is known to its sampling error (a few % of c)
                agree = abs(2.0 * a - c2) <= 0.5 * abs(c2) + abs(c3 * (x - xp)) + 0.05 * c
                err = d4h / 24.0 * (x + u - xp) ** 2 * u * u / g
            else:  # the points are too close for the cubic: Newton's step, its model kept
                u = -f / g
                for _ in range(3):
                    u = -f / (g + a * u + b * u * u)
                agree, err = False, math.inf
            # Newton's step with the model's curvature known within a factor 2
            err = min(err if agree else math.inf,
                      2.0 * (abs(a) + 0.5 * abs(c2)) * u * u / g + abs(b * u ** 3) / g)
            err += NEWTON_SLOPE_REL * abs(u)
            r = x + u
        if not math.isfinite(r):
            break
        if err <= 0.5 * (xrtol * abs(r) + xatol) and lo < r < hi:
            return _single(r, v + 0.5 * f * u, True, (lo, hi, flo, fhi), g + 2.0 * a * u)
        xp, fp, gp, x = x, f, g, r
    return _undone(lo, hi, flo, fhi)


def _single(lam: float, nll: float, done: bool, bracket: tuple, slope: float):
    """One column's polish result, shaped as :func:`_secant_polish` returns it."""
    one = np.array
    return (one([lam]), one([nll]), one([done]), tuple(one([q]) for q in bracket),
            one([slope]))


def _undone(lo: float, hi: float, flo: float, fhi: float):
    """A polish that did not finish: the bracket it saw, for the fallback."""
    return _single(np.nan, np.nan, False, (lo, hi, flo, fhi), np.nan)


# lambdas -3.1, -2.9, ..., 3.9 (where most columns' roots are) and a few beyond; none near 0,
# where the likelihood's small-exponent regime would make the evaluation a second pass
LADDER = np.r_[-8.0, -5.0, np.linspace(-3.1, 3.9, 36), 6.0, 9.0]
LADDER_ROWS = 500  # one column of at most this many rows starts from the whole ladder


def _ladder_ok(profile: Profile) -> bool:
    """Whether the profile is one short sample column, where an evaluation costs its Python
    calls rather than its arithmetic, so the ladder's twelve lambdas cost about one."""
    from .profile import SampleProfile

    return (isinstance(profile, SampleProfile) and profile.ncols == 1
            and profile.sample.nrows <= LADDER_ROWS)


def _ladder_start(rec: _Recorder) -> tuple:
    """The starting bracket of one column from the score on :data:`LADDER` (one evaluation):
    the two neighbouring lambdas where it changes sign, narrowed by :func:`_zoom` (one more),
    or the two outermost on the side it keeps (doubling goes on from there)."""
    f = rec(LADDER, np.zeros(LADDER.size, dtype=np.intp))
    up = np.flatnonzero(f >= 0)
    k = int(up[0]) if up.size else LADDER.size - 1
    k = min(max(k, 1), LADDER.size - 1)
    if not np.all(np.isfinite(f[k - 1 : k + 1])):
        return (np.zeros(1), np.ones(1), None, None)
    if f[k - 1] < 0 <= f[k]:
        return _zoom(rec, f, k)
    return (LADDER[k - 1 : k], LADDER[k : k + 1], f[k - 1 : k], f[k : k + 1])


def _inverse_interpolate(xs: list[float], fs: list[float]) -> float:
    """Where the polynomial through the points ``(f_i, x_i)`` meets ``f = 0`` (Lagrange's
    form; NaN when two ``f_i`` coincide)."""
    out = 0.0
    for i, (xi, fi) in enumerate(zip(xs, fs, strict=True)):
        term = xi
        for j, fj in enumerate(fs):
            if j != i:
                if fj == fi:
                    return math.nan
                term *= fj / (fj - fi)
        out += term
    return out


ZOOM_FLOOR = 1e-8  # the zoom's half-width is at least this times max(1, |lambda|)


def _zoom(rec: _Recorder, f: NDArray[np.float64], k: int) -> tuple:
    """Narrow the ladder's bracket ``LADDER[k-1:k+1]`` in one evaluation of three lambdas.

    The score's root is interpolated from the (up to) four ladder lambdas around it (inverse
    cubic) and its error judged by the interpolant without the point of largest ``|f|``; the
    zoom evaluates the estimate and the estimate plus and minus that difference (at least
    ``ZOOM_FLOOR`` times ``max(1, |lambda|)``), inside the bracket. The narrowest bracket among
    the ladder's ends and these is returned with the third point beside it, so Chandrupatla's
    method starts by inverse quadratic interpolation on a bracket of typically 1e-5 to 1e-2;
    its first step then lands within about 1e-9 of the root or closer, and its prediction test
    accepts the next iterate unevaluated. On 120 random short samples (5-120 values, both
    families) a fit took 3 evaluations in 107 (4 or more before in all but 7), mean 3.36
    (was 4.32), with errors against mpmath of at most 1.7e-14 relative (5e-15 before).
    """
    lo, hi = float(LADDER[k - 1]), float(LADDER[k])
    i0, i1 = max(k - 2, 0), min(k + 2, LADDER.size)
    xs, fs = LADDER[i0:i1].tolist(), f[i0:i1].tolist()
    est = _inverse_interpolate(xs, fs)
    drop = max(range(len(xs)), key=lambda i: abs(fs[i]))  # the farthest, by |f|
    rough = _inverse_interpolate(xs[:drop] + xs[drop + 1 :], fs[:drop] + fs[drop + 1 :])
    if not (lo < est < hi and math.isfinite(rough)):
        est, rough = 0.5 * (lo + hi), lo
    half = min(max(abs(est - rough), ZOOM_FLOOR * max(1.0, abs(est))), 0.25 * (hi - lo))
    z = [x for x in (est - half, est, est + half) if lo < x < hi]
    fz = rec(np.array(z), np.zeros(len(z), dtype=np.intp)).tolist()
    if not all(math.isfinite(v) for v in fz):
        return (np.array([lo]), np.array([hi]), f[k - 1 : k], f[k : k + 1])
    pts, fv = [lo, *z, hi], [float(f[k - 1]), *fz, float(f[k])]
    j = next(i for i in range(1, len(pts)) if fv[i] >= 0)
    near = [i for i in (j - 2, j + 1) if 0 <= i < len(pts)]
    m = min(near, key=lambda i: min(abs(pts[i] - pts[j - 1]), abs(pts[i] - pts[j])))
    one = np.array
    return (one([pts[j - 1]]), one([pts[j]]), one([fv[j - 1]]), one([fv[j]]), one([pts[m]]),
            one([fv[m]]))


def _solve_score(profile: Profile, rec: _Recorder, start: tuple | None, *,
                 xatol: float = XATOL, xrtol: float = XRTOL) -> Solution:
    p = profile.ncols
    lam = np.full(p, np.nan)
    val = np.full(p, np.nan)
    done = np.zeros(p, dtype=bool)
    slope = np.full(p, np.nan)
    if start is None:
        start = (np.zeros(p), np.ones(p), None, None)
        if _ladder_ok(profile):
            start = _ladder_start(rec)
        sub = None if start[2] is not None else profile.subsample()
        if sub is not None:
            newton = p == 1 and hasattr(profile, "evaluate_slope")
            x0, c, higher = _subsample_start(sub, profile.nobs() / sub.nobs(), newton)
            polished = None
            if newton and np.isfinite(x0[0]) and np.isfinite(c[0]):
                polished = _newton_polish(rec, float(x0[0]), float(c[0]), higher, xatol,
                                          xrtol)
            if polished is None:
                polished = _secant_polish(rec, x0, c, xatol, xrtol, higher[:2])
            lam, val, done, (blo, bhi, bflo, bfhi), slope = polished
            slope = np.where(done, slope, np.nan)
            # the fallback starts from what the polish learnt: the bracket, or one side of it
            has_lo, has_hi = np.isfinite(blo), np.isfinite(bhi)
            known = np.where(has_lo, blo, np.where(has_hi, bhi, 0.0))
            w = 1e-2 * np.maximum(1.0, np.abs(known))
            start = (np.where(has_lo, blo, np.where(has_hi, bhi - w, 0.0)),
                     np.where(has_hi, bhi, np.where(has_lo, blo + w, 1.0)),
                     np.where(has_lo, bflo, np.nan), np.where(has_hi, bfhi, np.nan))
    todo = np.flatnonzero(~done)
    ok = done.copy()
    if todo.size:  # bracket by doubling and close with Chandrupatla's method
        lo = np.asarray(start[0], dtype=np.float64)[todo]
        hi = np.asarray(start[1], dtype=np.float64)[todo]
        flo, fhi = (None if a is None else np.asarray(a, dtype=np.float64)[todo]
                    for a in start[2:4])

        def f(x: NDArray, idx: NDArray) -> NDArray:
            return rec(x, todo[idx])

        if flo is not None and fhi is not None and np.all((flo <= 0) & (fhi >= 0)):
            okb = np.ones(todo.size, dtype=bool)  # bracketed already (a short column's start)
        else:
            lo, hi, flo, fhi, okb, _ = bracket_increasing(f, lo, hi, flo=flo, fhi=fhi,
                                                          limit=lambda_limit(profile)[todo])
        third = (None, None) if len(start) < 6 else (np.asarray(start[4])[todo],
                                                      np.asarray(start[5])[todo])
        res = find_root(f, lo, hi, flo, fhi, xatol=xatol, xrtol=xrtol, predict=True,
                        c=third[0], fc=third[1])
        lam[todo] = np.where(okb, res.x, np.where(flo > 0, lo, hi))
        ok[todo] = okb & res.converged
        val[todo] = rec.nll_at(np.where(done, np.nan, lam))[todo]
    return Solution(lam, val, ok & np.isfinite(val), rec.nfev, slope)


def lambda_limit(profile: Profile) -> NDArray[np.float64]:
    """Per column, the largest ``|lambda|`` the bracket may reach: ``LIMIT``, or the profile's
    own larger limits (``profile.lambda_limit()``, where defined: data on a tiny log scale
    have their optimum near the inverse of that scale)."""
    own = getattr(profile, "lambda_limit", None)
    base = np.full(profile.ncols, LIMIT)
    return base if own is None else np.maximum(base, own())


def _solve_brent(rec: _Recorder, j: int) -> tuple[float, float, bool]:
    """Xu & Cormode's (2025) optimiser for column ``j``: Brent's minimiser on NLL values,
    after bracketing the minimum by geometric steps (resolves lambda to about 1e-8)."""
    col = np.array([j])

    def g(x: float) -> float:
        return float(rec.values(np.array([x]), col, score=False)[0][0])

    reach = float(lambda_limit(rec.profile)[j])
    a, b = 0.0, max(1.0, reach / LIMIT)  # lambda's natural scale: 1, or 1/span (tiny data)
    fa, fb = g(a), g(b)
    if fb > fa:
        a, b, fa, fb = b, a, fb, fa
    c = b + 2.0 * (b - a)
    fc = g(c)
    while fc < fb:
        if abs(c) > reach:
            return c, fc, False
        a, b, fa, fb = b, c, fb, fc
        c = b + 2.0 * (b - a)
        fc = g(c)
    try:
        res = sopt.minimize_scalar(g, bracket=(a, b, c), method="brent", tol=1e-12)
    except ValueError:  # no bracket: the NLL is flat to rounding between the points
        return b, fb, False
    return float(res.x), float(res.fun), bool(res.success)


def _grid_bracket(rec: _Recorder, j: int, grid: int) -> tuple[float, float, float, float] | None:
    """Bracket the score's sign change with ``grid`` lambdas per evaluation.

    A geometric ladder 0, +-1e-3, ..., +-1e15 (ratio 10, or finer when one evaluation can
    hold more points) is evaluated from small magnitudes outwards until both signs of the
    score have been seen.
    """
    per_side = (grid - 1) // 2
    mags = np.geomspace(1e-3, 1e15, max(per_side, 19))
    ladder = np.r_[0.0, np.column_stack([-mags, mags]).ravel()]
    xs: list[float] = []
    fs: list[float] = []
    for i in range(0, ladder.size, grid):
        batch = ladder[i : i + grid]
        xs += batch.tolist()
        fs += rec(batch, np.full(batch.size, j)).tolist()
        if min(fs) < 0 <= max(fs):
            order = np.argsort(xs)
            x, f = np.asarray(xs)[order], np.asarray(fs)[order]
            k = int(np.flatnonzero(f >= 0)[0])
            if k > 0:
                return float(x[k - 1]), float(x[k]), float(f[k - 1]), float(f[k])
    return None


def _solve_grid(rec: _Recorder, j: int, grid: int) -> tuple[float, float, bool]:
    """Section 7 of Xu & Cormode (2025): ``grid`` lambdas per evaluation; each evaluation
    shrinks the bracket of the score's sign change ``grid + 1`` fold, and a secant step inside
    the final bracket gives lambda."""
    bracket = _grid_bracket(rec, j, grid)
    if bracket is None:
        return np.nan, np.nan, False
    a, b, fa, fb = bracket
    for _ in range(60):
        if fb == 0 or b - a <= 1e-13 * max(abs(a), abs(b)):
            break
        inner = np.linspace(a, b, grid + 2)[1:-1]
        inner = inner[(inner > a) & (inner < b)]
        if inner.size == 0:
            break
        si = rec(inner, np.full(inner.size, j))
        xs, fs = np.r_[a, inner, b], np.r_[fa, si, fb]
        k = int(np.flatnonzero(fs >= 0)[0])
        a, b, fa, fb = xs[k - 1], xs[k], fs[k - 1], fs[k]
    lam = float(b if fb == 0 else a - fa * (b - a) / (fb - fa))
    return min(max(lam, a), b), np.nan, True


def solve(
    profile: Profile,
    *,
    optimizer: str = "score",
    grid: int = 1000,
    start: tuple | None = None,
    xrtol: float = XRTOL,
    bounds: ArrayLike | None = None,
) -> Solution:
    """Maximum-likelihood lambda of every column of ``profile`` (within ``bounds``).

    Parameters
    ----------
    profile : Profile
    optimizer : {"score", "brent", "grid"}, default="score"
        ``"score"``: the root of the score, bracketed by doubling and closed by Chandrupatla's
        method (exact to rounding; large samples start from a subsample). ``"brent"``: Brent's
        minimiser on NLL values, one lambda per evaluation (Xu & Cormode 2025; about 1e-8
        relative). ``"grid"``: ``grid`` lambdas per evaluation (their section 7): fewer,
        larger evaluations.
    grid : int, default=1000
        Lambdas per evaluation for ``optimizer="grid"``.
    start : tuple, optional
        ``(lo, hi, f(lo), f(hi))`` per column (``None`` or NaN for unknown score values)
        replaces the starting interval [0, 1] of ``"score"``.
    xrtol : float, default=XRTOL
        ``"score"`` only: the relative tolerance of the root (and its absolute one, where
        larger than ``XATOL``). The default is rounding level; a looser one serves a start
        that another solver refines (the joint fit's Newton iterations).
    bounds : (lo, hi) or array of shape (p, 2), optional
        Restrict lambda to ``[lo, hi]`` (validated by :func:`~boxcoxstat.core.bounds.
        check_bounds`): the maximum of the profile on the interval. The profile NLL of a
        sample or a linear model's response is convex (Kouider & Chen 1995), so that is the
        unconstrained maximum clipped to the interval; for any other profile the clipped
        point is compared with both ends and the smallest NLL wins. ``Solution.slope`` is
        then NaN where a bound is active (the curvature there is no observed information).

    Examples
    --------
    >>> from boxcoxstat.core.profile import SampleProfile
    >>> from boxcoxstat.core.sample import Sample
    >>> from boxcoxstat.core.solve import solve
    >>> sol = solve(SampleProfile(Sample.from_array([0.1, 0.1, 0.1, 0.101], "boxcox")))
    >>> round(float(sol.lmbda[0]), 3), bool(sol.converged[0])
    (-361.145, True)
    """
    if not (isinstance(optimizer, str) and optimizer in OPTIMIZERS):
        check_option("optimizer", optimizer, OPTIMIZERS)
    if bounds is not None:
        from .bounds import check_bounds

        limits = check_bounds(bounds, profile.ncols)
        assert limits is not None
        free = solve(profile, optimizer=optimizer, grid=grid, start=start, xrtol=xrtol)
        return bounded_solution(profile, free, limits)
    if start is None and hasattr(profile, "solver_start"):  # bcnPower: near its global optimum
        start = profile.solver_start()
    scaled = rescaled(profile)
    if scaled is not None:  # tiny-scale columns: solve in lambda * unit, convert back
        u = scaled.unit
        st = None if start is None else (
            np.asarray(start[0]) * u, np.asarray(start[1]) * u,
            None if start[2] is None else np.asarray(start[2]) / u,
            None if start[3] is None else np.asarray(start[3]) / u)
        sol = solve(scaled, optimizer=optimizer, grid=grid, start=st, xrtol=xrtol)
        with np.errstate(under="ignore"):
            slope = None if sol.slope is None else sol.slope * u * u
        return Solution(sol.lmbda / u, sol.nll, sol.converged, sol.nfev, slope)
    rec = _Recorder(profile)
    if optimizer == "score":
        return _solve_score(profile, rec, start, xatol=max(XATOL, xrtol), xrtol=xrtol)
    if optimizer == "grid" and (isinstance(grid, bool) or not isinstance(grid, (int, np.integer))
                                or grid < 2):
        raise BoxCoxError(f"grid must be an integer of at least 2, got {grid!r}")
    p = profile.ncols
    lam, val, ok = np.empty(p), np.empty(p), np.zeros(p, dtype=bool)
    for j in range(p):
        lam[j], val[j], ok[j] = (_solve_brent(rec, j) if optimizer == "brent"
                                 else _solve_grid(rec, j, int(grid)))
    need = np.isnan(val) & np.isfinite(lam)
    if need.any():
        val[need] = rec.nll_at(np.where(need, lam, np.nan))[need]
    return Solution(lam, val, ok & np.isfinite(val), rec.nfev)
