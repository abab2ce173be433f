"""The shifted Box-Cox family bcnPower: a Profile with the shift gamma profiled out.

Hawkins & Weisberg (2017) transform any real ``u`` by the Box-Cox power of the
positive base ``b = (u + sqrt(u^2 + gamma^2))/2`` (``families.bcnpower``), with the shift
``gamma > 0`` estimated jointly with ``lambda``; car's ``powerTransform(family = "bcnPower")``
computes it, with ``gamma >= gamma_min`` (0.1 by default). For a response regressed on a design
(an intercept-only design for a sample) the negative log-likelihood is

.. math::

    \\mathrm{NLL}(\\lambda, \\gamma) = \\mathrm{NLL}_{BC}(\\lambda; b(\\gamma))
        + \\sum_i (\\log s_i - \\log b_i), \\qquad s_i = \\sqrt{u_i^2 + \\gamma^2},

the Box-Cox profile NLL of ``b`` (``response.ResponseProfile``: stable, never overflows) plus
the log-Jacobian of ``u -> b`` (``db/du = b/s``). Its derivative in ``gamma`` is

.. math::

    \\partial_\\gamma \\mathrm{NLL} = \\sum_i \\Bigl(n \\frac{w_i^{1/2} r_i e^{\\lambda d_i}}
        {\\sum_k r_k^2} - \\lambda\\Bigr) \\partial_\\gamma \\log b_i + \\sum_i \\gamma / s_i^2,

with ``r`` the (scaled) residuals of ``phi(d) = expm1(lambda d)/lambda`` in the response
profile's frame (``d = log(b/b_ref) - shift``, so no exponent overflows).

:class:`ShiftedProfile` presents ``lambda -> min over gamma in [gamma_min, gamma_max] of
NLL(lambda, gamma)`` as a :class:`~boxcoxstat.core.profile.Profile`: its score is
``d NLL / d lambda`` at the inner minimiser (envelope theorem), so the one solver gives the
estimate, and the one inference module the standard error (the profile's curvature is
``1 / [H^-1]_{lambda lambda}`` of the joint information), profile intervals and LR tests with
gamma profiled out. The inner minimum is the root of the gamma-score in ``log gamma``,
bracketed from a warm start and closed by the solver's root finder, so the score in lambda is
exact to rounding. :class:`JointShiftedProfile` is the multivariate likelihood of several
columns (``fit_joint``), every gamma profiled out together.

References
----------
Hawkins, D. M. and Weisberg, S. (2017). Combining the Box-Cox power and generalised log
transformations to accommodate nonpositive responses in linear and mixed-effects linear models.
South African Statistical Journal 51, 317-328.
Fox, J. and Weisberg, S. (2019). An R Companion to Applied Regression, 3rd ed. (car's
``bcnPower``).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._special import exprel
from .._validation.columns import BoxCoxError
from ..families import bcnpower_log_base, shifted_base
from .column_profiles import ColumnProfiles
from .curvature import richardson_slope
from .design import Design
from .joint import JointProfile
from .joint_solve import hessian as numerical_hessian
from .likelihood import choose_shift, llf_constant
from .profile import evaluate_pairs
from .response import ResponseProfile
from .roots import find_root

__all__ = ["GAMMA_MIN", "GAMMA_SPAN", "GRID_STEP", "Optimum", "ShiftedColumn", "ShiftedProfile",
           "JointShiftedProfile", "gamma_summary", "shifted_bases"]

GAMMA_MIN = 0.1  # car's default lower bound for gamma
GAMMA_SPAN = 1e6  # gamma's upper limit, in units of the data's range: the transform is then
# linear to about 1e-6 and the likelihood that of the untransformed data
GRID_STEP = 0.5  # spacing in log gamma of the grid that locates the global maximum
GRID_POINTS = 200  # the most points of that grid (data near 1e308 and 1e-308: ~1,400 else)
GRID_REACH = 1e3  # the grid's top, in units of max|u| (beyond it: only while still falling)
FLAT_BELOW = 1e-8  # gamma below this times a positive column's minimum leaves its NLL flat
RUNAWAY_GAMMA = 100.0  # gamma beyond this times max|u|: the transform is nearly Manly's
LIMIT_RTOL = 1e-6  # an interior maximum must beat the gamma -> inf limit by this (relative)


@dataclass(frozen=True)
class Optimum:
    """A column's global maximum of the bcnPower likelihood over (lambda, gamma).

    ``status`` is ``"estimated"``, ``"lower bound"`` (gamma at ``gamma_min``), ``"fixed"`` or
    ``"infinite"``: the likelihood has no maximum and rises towards ``nll_limit`` as
    ``gamma -> inf`` with ``lambda / gamma -> kappa`` (Manly's exponential transformation,
    see :meth:`ShiftedColumn.limit`); ``lmbda``, ``gamma`` and ``nll`` are then the best finite
    local maximum (NaN if there is none).
    """

    lmbda: float
    gamma: float
    nll: float
    status: str
    kappa: float
    nll_limit: float


@dataclass(frozen=True)
class _Frame:
    """One column at one gamma: the Box-Cox profile of ``b`` and the gamma-derivative parts."""

    prof: ResponseProfile
    dlog_b: NDArray[np.float64]  # d log b_i / d gamma
    extra: float  # sum(log s - log b): the part of the NLL beyond the Box-Cox of b
    sum_dlog_b: float
    sum_dlog_s: float  # sum(gamma / s^2)


def base_frame(profile_of: Callable[[NDArray[np.float64]], Any], u: NDArray[np.float64],
               gamma: float) -> _Frame:
    """The frame of ``gamma`` for the values ``u``: ``profile_of`` the bcnPower base ``b``
    (a Box-Cox response profile: the sample's, or a mixed model's), with the base's log
    derivative in gamma, the Jacobian's log term and the curvature term."""
    log_b, log_s = bcnpower_log_base(u, gamma)
    # d log b / d gamma = gamma / (2 b s) on both sides of 0 (as s - u = gamma^2 / (2 b));
    # formed in logs, so values near float64's end do not overflow
    log_g = float(np.log(gamma))
    dlog_b = np.exp(log_g - np.log(2.0) - log_b - log_s)
    curv = float(np.sum(np.exp(log_g - 2.0 * log_s)))
    return _Frame(profile_of(np.exp(log_b)), dlog_b, float(np.sum(log_s - log_b)),
                  float(np.sum(dlog_b)), curv)


class ShiftedColumn:
    """One column's bcnPower likelihood around a design, as a function of (lambda, gamma).

    ``gamma_fixed`` makes gamma known (the inner minimisation is skipped). Frames (the Box-Cox
    profile of the base at one gamma) and the inner minimisers are cached, so the solver's
    and the interval's evaluations start from the nearest gamma already found.
    """

    def __init__(self, u: ArrayLike, design: Design, *, gamma_min: float = GAMMA_MIN,
                 gamma_fixed: float | None = None, weights: ArrayLike | None = None):
        self.u = np.asarray(u, dtype=np.float64).reshape(-1)
        self.design = design
        self.weights = weights
        self.gamma_min = float(gamma_min)
        self.gamma_fixed = None if gamma_fixed is None else float(gamma_fixed)
        # at most 1e300: beyond, the base of data near float64's end would overflow (the
        # gamma -> inf limit is handled analytically, see limit())
        self.gamma_max = min(GAMMA_SPAN * float(np.ptp(self.u)), 1e300)
        self._frames: dict[float, _Frame] = {}
        self._by_gamma: dict[float, tuple[float, float]] = {}  # gamma -> (lambda_hat, NLL)
        self._limit: tuple[float, float, float] | None = None
        self._identity: tuple[ResponseProfile, float] | None = None
        self._optimum: Optimum | None = None

    @property
    def n(self) -> int:
        return int(self.u.shape[0])

    def frame(self, gamma: float) -> _Frame:
        got = self._frames.get(gamma)
        if got is not None:
            return got
        return self._keep(gamma, base_frame(
            lambda b: ResponseProfile.build(b, self.design, "boxcox", self.weights), self.u,
            gamma))

    def _keep(self, gamma: float, frame: _Frame) -> _Frame:
        """Cache ``frame`` as gamma's (the cache is emptied past 4096 gammas) and return it."""
        if len(self._frames) > 4096:
            self._frames.clear()
            self._by_gamma.clear()
        self._frames[gamma] = frame
        return frame

    def nll(self, lmbda: float, gamma: float) -> tuple[float, float, float]:
        """``NLL(lambda, gamma)``, its derivative in lambda and in gamma."""
        f = self.frame(gamma)
        lam = np.array([lmbda])
        with np.errstate(all="ignore"):
            val, dl = f.prof.evaluate(lam)
            side = f.prof.sides[0].sample.sides[0]
            d = side.v[:, 0] - choose_shift(side, lam)[0]
            r = self.design.resid(d * exprel(lmbda * d))
            weight = r * np.exp(lmbda * d)
            if self.design.sw is not None:
                weight = weight * self.design.sw
            n = float(self.n)
            dg = (n * float(weight @ f.dlog_b) / float(r @ r) - lmbda * f.sum_dlog_b
                  + f.sum_dlog_s)
        return float(val[0]) + f.extra, float(dl[0]), float(dg)

    def log_bounds(self) -> tuple[float, float]:
        """``log gamma``'s range (one point when gamma is fixed)."""
        if self.gamma_fixed is not None:
            return float(np.log(self.gamma_fixed)), float(np.log(self.gamma_fixed))
        return float(np.log(self.gamma_min)), float(np.log(self.gamma_max))

    def grid(self, lmbda: float = 0.0) -> NDArray[np.float64]:
        """``log gamma`` from its lower bound in steps of :data:`GRID_STEP` to ``GRID_REACH``
        times ``max|u|`` (times ``|lmbda|`` where larger than 1: at ``gamma`` far beyond
        ``|lmbda| max|u|`` the NLL has reached its limit), or ``gamma_max``; at most
        :data:`GRID_POINTS` points (a wider step on spans beyond 100). A positive
        column's grid starts at ``FLAT_BELOW`` times its smallest value: below that every
        base is its value to rounding (``b = u (1 + O(gamma^2 / u^2))``), so the NLL is flat
        there, and data near 1e300 need tens of points, not the ~1,400 from gamma_min."""
        t_lo, t_hi = self.log_bounds()
        low = float(np.min(self.u))
        if low > 0 and t_hi > t_lo:
            t_lo = min(max(t_lo, float(np.log(low) + np.log(FLAT_BELOW))), t_hi)
        top = min(t_hi, float(np.log(GRID_REACH) + np.log(np.max(np.abs(self.u)))
                              + np.log(max(1.0, abs(lmbda)))))  # in logs: data near 1e308
        if not top > t_lo:
            return np.array([t_lo])
        # at most GRID_POINTS points: a span beyond 100 in log gamma (data spanning more than
        # about 40 orders of magnitude) is covered with a proportionally wider step
        step = max(GRID_STEP, (top - t_lo) / GRID_POINTS)
        return np.r_[np.arange(t_lo, top, step), top]

    def limit(self) -> tuple[float, float, float]:
        """The likelihood's limit as ``gamma -> inf``: ``(kappa, NLL_kappa, NLL_0)``.

        With ``a_i = asinh(u_i / gamma)`` the base is exactly ``b_i = (gamma/2) e^{a_i}``, so at
        ``lambda = kappa gamma`` the transformation is, up to an affine map,
        ``e^{lambda a_i} -> e^{kappa u_i}`` and the NLL tends to that of Manly's (1976)
        exponential transformation ``(e^{kappa u} - 1)/kappa`` (Jacobian ``e^{kappa u}``); at a
        fixed lambda (``kappa = 0``) to that of the untransformed ``u``, whatever lambda is.
        Manly's family of ``u`` is the Box-Cox family of ``x = e^{u'}``, ``u' = (u - m)/c``
        (``m`` the median, ``c`` the largest ``|u - m|``, so no exponent exceeds 1), with
        ``kappa = lambda_x / c`` and ``NLL_u = NLL_x - sum u' + n log c``; it is solved by the
        one solver. Returns Manly's best ``kappa``, its NLL and the NLL at ``kappa = 0``.
        """
        if self._limit is None:
            from .solve import solve

            prof, shift = self.identity()
            sol = solve(prof)
            c = float(np.max(np.abs(self.u - np.median(self.u))))
            nll0 = float(prof.evaluate(np.zeros(1))[0][0]) + shift
            self._limit = (float(sol.lmbda[0]) / c, float(sol.nll[0]) + shift, nll0)
        return self._limit

    def identity(self) -> tuple[ResponseProfile, float]:
        """The limit ``gamma -> inf`` as a Box-Cox profile: that of ``x = e^{u'}`` (see
        :meth:`limit`) and the constant ``n log c - sum u'`` to add to its NLL; at lambda = 0
        it is the NLL of the untransformed column (cached)."""
        if self._identity is None:
            m = float(np.median(self.u))
            c = float(np.max(np.abs(self.u - m)))
            up = (self.u - m) / c
            prof = ResponseProfile.build(np.exp(up), self.design, "boxcox", self.weights)
            self._identity = (prof, float(self.n * np.log(c) - np.sum(up)))
        return self._identity

    def optimum(self) -> Optimum:
        """The global maximum over (lambda, gamma) (cached).

        The profile over gamma, ``P(gamma) = min_lambda NLL(lambda, gamma)`` (the Box-Cox MLE
        of the base at each gamma, by the one solver), is evaluated on the grid of ``log
        gamma`` (:attr:`grid`); its lowest point is compared with the limit as ``gamma -> inf``
        (:meth:`limit`) and, if lower, polished by the root of ``dP / d log gamma`` (by the
        envelope theorem, ``gamma`` times the gamma-score at ``lambda_hat(gamma)``) between
        its grid neighbours.
        """
        if self._optimum is not None:
            return self._optimum
        kappa, nll_kappa, _ = self.limit() if self.gamma_fixed is None else (np.nan,) * 3
        if self.gamma_fixed is not None:
            lam, val = self._lambda_at(self.gamma_fixed)
            self._optimum = Optimum(lam, self.gamma_fixed, val, "fixed", np.nan, np.nan)
            return self._optimum
        tol = LIMIT_RTOL * max(1.0, abs(nll_kappa))
        t_hi = self.log_bounds()[1]
        ts = [float(t) for t in self.grid()]
        vals = [self._lambda_at(float(np.exp(t)))[1] for t in ts]
        while (ts[-1] < t_hi and abs(vals[-1] - nll_kappa) > tol and len(vals) > 1
               and vals[-1] < vals[-2]):  # still falling, away from the limit: go on
            ts.append(min(ts[-1] + GRID_STEP, t_hi))
            vals.append(self._lambda_at(float(np.exp(ts[-1])))[1])
        grid, prof = np.array(ts), np.array(vals)
        k = int(np.nanargmin(prof))
        top = len(grid) - 1
        if k == top or not prof[k] < nll_kappa - tol:
            loc = [i for i in range(1, top) if prof[i] <= prof[i - 1] and prof[i] <= prof[i + 1]]
            if loc:  # the best finite local maximum, for the message
                i = min(loc, key=lambda j: prof[j])
                t = self._polish(grid, i)
                gam = float(np.exp(t))
                lam, val = self._lambda_at(gam)
            else:
                lam = gam = val = np.nan
            self._optimum = Optimum(lam, gam, val, "infinite", kappa, nll_kappa)
            return self._optimum
        if k == 0 and self._dprofile(grid[0]) >= 0:
            t, status = grid[0], "lower bound"
        else:
            t, status = self._polish(grid, k), "estimated"
        gam = self.gamma_min if t <= grid[0] else float(np.exp(t))
        lam, val = self._lambda_at(gam)
        self._optimum = Optimum(lam, gam, val, status, kappa, nll_kappa)
        return self._optimum

    def _lambda_at(self, gamma: float) -> tuple[float, float]:
        """The Box-Cox MLE of the base at ``gamma`` and the NLL there."""
        from .solve import solve

        got = self._by_gamma.get(gamma)
        if got is None:
            f = self.frame(gamma)
            near = min(self._by_gamma, key=lambda g: abs(np.log(g / gamma)), default=None)
            start = None
            if near is not None:  # from the nearest gamma's lambda: a short bracket
                lam0 = self._by_gamma[near][0] * (gamma / near if gamma > near else 1.0)
                h = 0.05 * max(1.0, abs(lam0))
                start = (np.array([lam0 - h]), np.array([lam0 + h]), None, None)
            sol = solve(f.prof, start=start)
            got = (float(sol.lmbda[0]), float(sol.nll[0]) + f.extra)
            self._by_gamma[gamma] = got
        return got

    def _dprofile(self, t: float) -> float:
        """``d P / d log gamma`` at ``log gamma = t`` (envelope theorem)."""
        gam = float(np.exp(t))
        return gam * self.nll(self._lambda_at(gam)[0], gam)[2]

    def _polish(self, grid: NDArray[np.float64], k: int) -> float:
        """The minimum of the gamma-profile near grid point ``k``: the sign change of its
        derivative between the neighbours of ``k`` (or ``grid[k]`` when there is none)."""
        a, b = grid[max(k - 1, 0)], grid[min(k + 1, len(grid) - 1)]
        fa, fb = self._dprofile(a), self._dprofile(b)
        if not (fa < 0 < fb):
            fk = self._dprofile(grid[k])
            if fa < 0 <= fk:
                b, fb = grid[k], fk
            elif fk <= 0 < fb:
                a, fa = grid[k], fk
            else:
                return float(grid[k])
        return self._root(self._dprofile, a, b, fa, fb)

    def gamma_hat(self, lmbda: float) -> tuple[float, float, float]:
        """The gamma that minimises the NLL at ``lmbda`` (globally, within its bounds, with
        the limit ``gamma -> inf`` as a candidate: then ``inf``), the NLL there and its
        derivative in lambda.

        The NLL is evaluated on the grid of ``log gamma`` (:attr:`grid`, frames cached), and
        the root of the gamma-score is bracketed from the best grid point downhill and closed
        by the solver's root finder, so the score in lambda is exact to rounding.
        """
        if self.gamma_fixed is not None:
            v, dl, _ = self.nll(lmbda, self.gamma_fixed)
            return self.gamma_fixed, v, dl

        def g(t: float) -> float:  # d NLL / d log gamma
            gam = float(np.exp(t))
            return gam * self.nll(lmbda, gam)[2]

        t_lo, t_hi = self.log_bounds()
        ta, floor = self._gamma_start(lmbda)
        fa = g(ta)
        t = ta
        if fa != 0:
            direction = -1.0 if fa > 0 else 1.0  # towards a smaller NLL
            step = GRID_STEP / 4.0
            while True:
                tb = float(np.clip(ta + direction * step, t_lo, t_hi))
                if tb == ta:  # already at a bound and the NLL falls beyond it
                    t = ta
                    break
                fb = g(tb)
                if fb * direction >= 0:  # the gamma-score changed sign: bracketed
                    t = self._root(g, ta, tb, fa, fb)
                    break
                if tb in (t_lo, t_hi):
                    t = tb
                    break
                ta, fa, step = tb, fb, 2.0 * step
        # at or below the grid's floor (gamma_min, or where a positive column's NLL is flat):
        # the lower bound, as car reports it
        gam = self.gamma_min if t <= max(t_lo, floor) else float(np.exp(min(t, t_hi)))
        v, dl, _ = self.nll(lmbda, gam)
        if t >= t_hi:  # the limit gamma -> inf: the untransformed data, whatever lambda is
            nll0 = self.limit()[2]
            if nll0 < v:
                return np.inf, nll0, 0.0
        return gam, v, dl

    def _gamma_start(self, lmbda: float) -> tuple[float, float]:
        """Where :meth:`gamma_hat` starts its search in ``log gamma`` at ``lmbda`` (the best
        point of the grid) and the grid's floor (a hook: a costlier likelihood may start from
        a neighbouring lambda's minimiser instead)."""
        grid = self.grid(lmbda)
        vals = np.array([self.nll(lmbda, float(np.exp(t)))[0] for t in grid])
        return float(grid[int(np.nanargmin(vals))]), float(grid[0])

    @staticmethod
    def _root(g, ta: float, tb: float, fa: float, fb: float) -> float:
        """The sign change of ``g`` between ``ta`` and ``tb`` (the solver's root finder)."""
        lo, hi, flo, fhi = (ta, tb, fa, fb) if ta < tb else (tb, ta, fb, fa)

        def vec(x: NDArray, idx: NDArray) -> NDArray:
            return np.array([g(float(v)) for v in x])

        res = find_root(vec, np.array([lo]), np.array([hi]), np.array([flo]),
                        np.array([fhi]), xatol=1e-13)
        return float(res.x[0])

    def information(self, lmbda: float, gamma: float) -> NDArray[np.float64]:
        """The 2 x 2 observed information of (lambda, gamma): Richardson-extrapolated central
        differences of the analytic gradient."""
        def grad(x: NDArray) -> NDArray:
            _, dl, dg = self.nll(float(x[0]), float(x[1]))
            return np.array([dl, dg])

        point = np.array([lmbda, gamma])
        steps = np.array([0.02 * max(1.0, abs(lmbda)), 0.02 * gamma])
        cols = []
        for k in range(2):
            central = []
            for h in steps[k] / 2.0 ** np.arange(5):
                e = np.zeros(2)
                e[k] = h
                central.append((grad(point + e) - grad(point - e)) / (2.0 * h))
            cols.append(richardson_slope(central))
        hmat = np.column_stack(cols)
        return 0.5 * (hmat + hmat.T)


@dataclass(frozen=True)
class ShiftedProfile:
    """bcnPower columns with gamma profiled out: a Profile (see the module docstring).

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.core.design import qr_design
    >>> from boxcoxstat.core.shifted import ShiftedColumn, ShiftedProfile
    >>> from boxcoxstat.core.solve import solve
    >>> u = np.random.default_rng(0).lognormal(size=300) - 0.5
    >>> prof = ShiftedProfile((ShiftedColumn(u, qr_design(np.ones((300, 1)))),))
    >>> sol = solve(prof)
    >>> round(float(sol.lmbda[0]), 3), round(prof.gamma_at(sol.lmbda)[0], 3)
    (-0.193, 0.453)
    """

    columns: tuple[ShiftedColumn, ...]

    @property
    def ncols(self) -> int:
        return len(self.columns)

    def nobs(self) -> NDArray[np.float64]:
        return np.array([float(c.n) for c in self.columns])

    def llf_offset(self) -> NDArray[np.float64]:
        """``llf = -nll + offset``: the Gaussian constant plus ``1/2 sum log w``."""
        lw = [0.0 if c.design.sw is None else float(np.sum(np.log(c.design.sw)))
              for c in self.columns]
        return llf_constant(self.nobs()) + np.array(lw)

    def subsample(self) -> None:
        return None

    def evaluate(
        self, lmbda: ArrayLike, cols: ArrayLike, *, score: bool = True
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        def one(j: int, lam: float) -> tuple[float, float]:
            return self.columns[j].gamma_hat(lam)[1:]

        return evaluate_pairs(lmbda, cols, one, score)

    def test_values(self, lmbda: ArrayLike, cols: ArrayLike) -> NDArray[np.float64]:
        """The NLL an LR test compares with: the infimum over gamma at ``lmbda``, the limit
        ``gamma -> inf`` included (the untransformed data's NLL, whatever lambda is). The
        profile itself (:meth:`evaluate`) takes the limit only where its search in gamma
        runs to the top, so that it keeps rising away from the estimate and intervals
        close; a test's supremum must not miss a limit that beats the local maximum."""
        val, _ = self.evaluate(lmbda, cols, score=False)
        cc = np.asarray(cols, dtype=np.intp).ravel()
        lim = np.array([np.inf if self.columns[j].gamma_fixed is not None
                        else self.columns[j].limit()[2] for j in cc])
        return np.minimum(val, lim.reshape(np.shape(val)))

    def optima(self) -> list[Optimum]:
        """Each column's global maximum over (lambda, gamma) (:meth:`ShiftedColumn.optimum`)."""
        return [c.optimum() for c in self.columns]

    def solver_start(self) -> tuple:
        """The solver's starting interval: a narrow one around each column's global maximum
        (the profile in lambda can have several local minima; the solver's bracket then
        closes on the global one)."""
        lam = np.array([o.lmbda if np.isfinite(o.lmbda) else 0.5 for o in self.optima()])
        h = 1e-3 * np.maximum(1.0, np.abs(lam))
        return (lam - h, lam + h, None, None)

    def check_maximum(self, names: tuple[str, ...] | list[str], what: str = "column") -> None:
        """Refuse (``BoxCoxError``) a column whose likelihood has no maximum: it rises towards
        its limit as ``gamma -> inf`` (:meth:`ShiftedColumn.limit`), so lambda and gamma run
        away together and no estimate exists. The message gives the supremum, the limit
        model, the LR statistics of lambda = 0 and 1 against that supremum, the best finite
        local maximum, and what to do instead."""
        for name, col, opt in zip(names, self.columns, self.optima(), strict=True):
            if opt.status != "infinite":
                continue
            off = float(self.llf_offset()[0]) if len(self.columns) == 1 else float(
                ShiftedProfile((col,)).llf_offset()[0])
            sup = off - opt.nll_limit
            lr = [2.0 * (col.gamma_hat(v)[1] - opt.nll_limit) for v in (0.0, 1.0)]
            local = ("" if not np.isfinite(opt.lmbda) else
                     f" (its best finite local maximum, lambda = {opt.lmbda:.4g} at gamma = "
                     f"{opt.gamma:.4g}, has llf = {off - opt.nll:.6g}, not the supremum)")
            raise BoxCoxError(
                f"{what} {name!r}: the bcnPower likelihood has no maximum: it rises towards "
                f"llf = {sup:.6g} as gamma -> infinity with lambda = kappa * gamma, kappa = "
                f"{opt.kappa:.4g}, so lambda and gamma run away together{local}. In that limit "
                "bcnPower becomes Manly's exponential transformation (exp(kappa*y) - 1)/kappa "
                "(kappa = 0: no transformation). Against the supremum the likelihood-ratio "
                f"statistics are {lr[0]:.4g} for lambda = 0 and {lr[1]:.4g} for lambda = 1. "
                "Transform with exp(kappa*y), fix the shift (gamma=...), or use "
                "family='yeojohnson'")

    def gamma_at(self, lmbda: ArrayLike) -> list[float]:
        """The profiled-out gamma of each column at its ``lmbda``."""
        lam = np.atleast_1d(np.asarray(lmbda, dtype=np.float64))
        return [c.gamma_hat(float(v))[0] for c, v in zip(self.columns, lam, strict=True)]


@dataclass(frozen=True)
class JointShiftedProfile:
    """Several bcnPower columns around one design, their powers jointly (``fit_joint``).

    The multivariate normal NLL of :mod:`~boxcoxstat.core.joint` of the bases ``b_j(gamma_j)``
    plus each column's ``sum(log s - log b)``, with the vector of gammas minimised out (bounded
    quasi-Newton in ``log gamma`` with the analytic gradient). It presents the objective
    interface of :class:`~boxcoxstat.core.joint.JointProfile` (``nll``, ``score``,
    ``column_profiles``), so the joint solver and its profile intervals serve it; with one
    column it is that column's :class:`ShiftedProfile`.
    """

    columns: tuple[ShiftedColumn, ...]
    single: ShiftedProfile | None
    family: str = "bcnpower"
    # a column held at its limit gamma -> inf with lambda = kappa * gamma (Manly's family, in
    # the Box-Cox parametrisation of ShiftedColumn.identity), or -1
    manly: int = -1
    # lambda and the log gamma minimisers there, by lambda's bytes
    _seen: dict[bytes, tuple[NDArray[np.float64], NDArray[np.float64]]] = field(
        default_factory=dict, repr=False, compare=False)

    @classmethod
    def build(cls, y: NDArray[np.float64], design: Design, *, gamma_min: float = GAMMA_MIN,
              gamma_fixed: NDArray[np.float64] | None = None) -> JointShiftedProfile:
        p = y.shape[1]
        cols = tuple(ShiftedColumn(y[:, j], design, gamma_min=gamma_min,
                                   gamma_fixed=None if gamma_fixed is None
                                   else float(gamma_fixed[j])) for j in range(p))
        return cls(cols, ShiftedProfile(cols) if p == 1 else None)

    @property
    def nobs(self) -> int:
        return self.columns[0].n

    @property
    def ncols(self) -> int:
        return len(self.columns)

    def llf_constant(self) -> float:
        return float(self.ncols * llf_constant(self.nobs))

    def start(self) -> NDArray[np.float64]:
        """Each column's own ML power (its shift profiled out): the joint solver's start."""
        from .solve import solve

        lam = np.array([solve(ShiftedProfile((c,))).lmbda[0] for c in self.columns])
        return np.where(np.isfinite(lam), np.clip(lam, -10.0, 10.0), 1.0)

    def value(self, lmbda: NDArray[np.float64], gamma: NDArray[np.float64]):
        """NLL at (lambda, gamma) with its gradients in lambda and in gamma. An infinite gamma
        is the column's limit at fixed lambda: the untransformed column
        (:meth:`ShiftedColumn.identity`, at lambda 0), whose gradients are 0."""
        inf = ~np.isfinite(gamma)
        flat = inf & (np.arange(self.ncols) != self.manly)  # limits at fixed lambda
        frames = [None if bad else c.frame(float(g))
                  for c, g, bad in zip(self.columns, gamma, inf, strict=True)]
        profs = [c.identity()[0] if f is None else f.prof
                 for c, f in zip(self.columns, frames, strict=True)]
        extra = sum(c.identity()[1] if f is None else f.extra
                    for c, f in zip(self.columns, frames, strict=True))
        lam = np.where(flat, 0.0, lmbda)
        bad = (np.inf, np.full(self.ncols, np.nan), np.full(self.ncols, np.nan))
        val, gl = JointProfile(tuple(profs), None, "boxcox").nll(lam, grad=True)
        if not np.isfinite(val):
            return bad
        n = float(self.nobs)
        with np.errstate(all="ignore"):
            parts = [pr._vectors(lam[j : j + 1]) for j, pr in enumerate(profs)]
            r = np.column_stack([q[0][:, 0] for q in parts])
            w = np.zeros_like(r)
            for j, f in enumerate(frames):
                if f is None:
                    continue
                side = f.prof.sides[0].sample.sides[0]
                d = side.v[:, 0] - choose_shift(side, lam[j : j + 1])[0]
                w[:, j] = np.exp(lam[j] * d) * f.dlog_b
            q, t = np.linalg.qr(r)
            coef = np.linalg.solve(t, q.T @ w)
        gg = np.array([0.0 if f is None else
                       n * coef[j, j] - lam[j] * f.sum_dlog_b + f.sum_dlog_s
                       for j, f in enumerate(frames)])
        gl = np.where(flat, 0.0, gl)
        return val + extra, gl, gg

    def gamma_hat(self, lmbda: NDArray[np.float64]) -> NDArray[np.float64]:
        """The gammas minimising the NLL at ``lmbda`` (within their bounds).

        Started from each column's own minimiser (the one-column bracketed root, which stays
        in the basin next to its warm start rather than running off to the limit where the
        transform is linear), then damped Newton steps in ``log gamma`` with the Jacobian of
        the analytic gradient by differences, each step at most 1 in ``log gamma`` and
        accepted only if the NLL does not rise.
        """
        lam = np.asarray(lmbda, dtype=np.float64)
        key = lam.tobytes()
        if key in self._seen:
            return np.exp(self._seen[key][1])
        free = np.array([c.gamma_fixed is None for c in self.columns])
        lo, hi = np.array([c.log_bounds() for c in self.columns]).T
        t = np.array([np.inf if j == self.manly else
                      np.log(min(c.gamma_hat(float(v))[0], c.gamma_max))
                      for j, (c, v) in enumerate(zip(self.columns, lam, strict=True))])
        if self.manly >= 0:
            free[self.manly] = False

        def fun(tt: NDArray) -> tuple[float, NDArray]:
            g = np.exp(tt)
            v, _, gg = self.value(lam, g)
            return v, gg * g

        val, grad = fun(t)
        for _ in range(100):
            move = free & ~(((t <= lo) & (grad > 0)) | ((t >= hi) & (grad < 0)))
            if not move.any() or np.max(np.abs(grad[move])) <= 1e-10 * max(1.0, abs(val)):
                break
            idx = np.flatnonzero(move)
            jac = np.empty((idx.size, idx.size))
            for a, k in enumerate(idx):
                e = np.zeros_like(t)
                e[k] = 1e-5
                jac[:, a] = (fun(t + e)[1][idx] - fun(t - e)[1][idx]) / 2e-5
            jac = 0.5 * (jac + jac.T)
            try:
                np.linalg.cholesky(jac)
                step = -np.linalg.solve(jac, grad[idx])
            except np.linalg.LinAlgError:
                step = -grad[idx] / max(1.0, float(np.max(np.abs(grad[idx]))))
            step *= min(1.0, 1.0 / float(np.max(np.abs(step))))
            for _ in range(40):
                new = t.copy()
                new[idx] = np.clip(t[idx] + step, lo[idx], hi[idx])
                nval, ngrad = fun(new)
                if np.isfinite(nval) and nval <= val + 1e-13 * max(1.0, abs(val)):
                    break
                step = step / 2.0
            else:
                break
            done = np.max(np.abs(new[idx] - t[idx])) <= 1e-12
            t, val, grad = new, nval, ngrad
            if done:
                break
        for k in np.flatnonzero(free):  # is the limit gamma_k -> inf lower? (a warm start
            # may have kept a finite local minimum)
            trial = np.exp(t)
            trial[k] = np.inf
            if self.value(lam, trial)[0] < val:
                t[k] = np.inf
                val = self.value(lam, np.exp(t))[0]
        if len(self._seen) > 4096:
            self._seen.clear()
        self._seen[key] = (lam.copy(), t)
        return np.exp(t)

    def nll(self, lmbda: ArrayLike, grad: bool = False):
        """Profile NLL in lambda (every gamma minimised out) and, if ``grad``, its gradient."""
        lam = np.asarray(lmbda, dtype=np.float64).reshape(-1)
        bad = (np.inf, np.full(self.ncols, np.nan)) if grad else np.inf
        if lam.shape != (self.ncols,) or not np.all(np.isfinite(lam)):
            return bad
        if self.single is not None:
            v, s = self.single.evaluate(lam, 0, score=grad)
            return (float(v[0]), s.copy()) if grad else float(v[0])
        val, gl, _ = self.value(lam, self.gamma_hat(lam))
        if not np.isfinite(val):
            return bad
        return (float(val), gl) if grad else float(val)

    def score(self, lmbda: ArrayLike) -> NDArray[np.float64]:
        return self.nll(lmbda, grad=True)[1]

    def hessian(self, lmbda: ArrayLike) -> NDArray[np.float64]:
        """Hessian of the profiled NLL (gammas maximised out): Richardson differences of
        :meth:`score` (no closed form with the inner maximisation)."""
        return numerical_hessian(self, np.asarray(lmbda, dtype=np.float64))

    def information(self, lmbda: NDArray[np.float64],
                    gamma: NDArray[np.float64]) -> NDArray[np.float64]:
        """Observed information of (lambda_1..p, gamma_1..p), from the analytic gradient."""
        p = self.ncols
        point = np.r_[lmbda, gamma]

        def grad(x: NDArray) -> NDArray:
            _, gl, gg = self.value(x[:p], x[p:])
            return np.r_[gl, gg]

        cols = []
        for k in range(2 * p):
            h0 = 0.02 * (max(1.0, abs(point[k])) if k < p else point[k])
            central = []
            for h in h0 / 2.0 ** np.arange(5):
                e = np.zeros(2 * p)
                e[k] = h
                central.append((grad(point + e) - grad(point - e)) / (2.0 * h))
            cols.append(richardson_slope(central))
        hmat = np.column_stack(cols)
        return 0.5 * (hmat + hmat.T)

    def check_maximum(self, lmbda: NDArray[np.float64], nll: float,
                      names: tuple[str, ...] | list[str],
                      gamma: NDArray[np.float64] | None = None) -> None:
        """Refuse (``BoxCoxError``) joint estimates that are not a maximum of the likelihood:
        where holding a column at its limit ``gamma -> inf`` (``lambda = kappa * gamma``:
        Manly's exponential transformation, :meth:`ShiftedColumn.limit`), with every other
        power and gamma maximised, gives a likelihood that ``nll`` at ``lmbda`` does not beat
        by ``LIMIT_RTOL`` (relative), the estimate is a local maximum or runs away towards
        that limit (with one column: :meth:`ShiftedProfile.check_maximum`). The limit
        likelihood can have several local maxima: it is maximised from the column's own
        Manly power and, where the estimate's gamma exceeds ``RUNAWAY_GAMMA`` times the
        column's largest ``|u|`` (a runaway estimate, on its way to the limit), from its
        ``kappa = lambda / gamma``.
        """
        from .joint_solve import fit_joint_lambda

        off = self.llf_constant()
        for j, c in enumerate(self.columns):
            if c.gamma_fixed is not None:
                continue
            variant = replace(self, single=None, manly=j, _seen={})
            m = float(np.median(c.u))
            scale = float(np.max(np.abs(c.u - m)))
            kappas = [c.limit()[0]]
            if (gamma is not None and np.isfinite(gamma[j]) and np.isfinite(lmbda[j])
                    and gamma[j] > RUNAWAY_GAMMA * float(np.max(np.abs(c.u)))):
                kappas.append(float(lmbda[j] / gamma[j]))  # on its way to the limit
            lim = None
            for kappa in kappas:
                start = np.where(np.isfinite(lmbda), lmbda, 0.0).astype(np.float64)
                start[j] = kappa * scale
                with np.errstate(all="ignore"), warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)
                    trial = fit_joint_lambda(replace(variant, _seen={}), start)
                if np.isfinite(trial.nll) and (lim is None or trial.nll < lim.nll):
                    lim = trial
            # as for one column: an interior maximum must beat the limit by LIMIT_RTOL
            if lim is None or nll < lim.nll - LIMIT_RTOL * max(1.0, abs(lim.nll)):
                continue
            kappa = float(lim.lmbda[j]) / scale
            raise BoxCoxError(
                f"column {names[j]!r}: the joint bcnPower likelihood has no maximum at these "
                f"estimates: with {names[j]!r}'s gamma -> infinity and lambda = kappa * gamma, "
                f"kappa = {kappa:.4g} (Manly's exponential transformation "
                f"(exp(kappa*y) - 1)/kappa), and the other powers and gammas re-estimated, it "
                f"rises towards llf = {off - lim.nll:.6g}, which the estimates found (lambda = "
                f"{float(lmbda[j]):.4g} for {names[j]!r}, llf = {off - nll:.6g}) do not beat: "
                "they are a local maximum or on the way to that limit. Transform "
                f"{names[j]!r} with exp(kappa*y), fix the shifts (gamma=...), or use "
                "family='yeojohnson'")

    def column_profiles(self, lmbda: ArrayLike, cov: ArrayLike):
        """Each power's profile (the others and every gamma maximised out)."""
        if self.single is not None:
            return self.single
        return ColumnProfiles(self, np.asarray(lmbda, dtype=np.float64).copy(),
                              np.asarray(cov, dtype=np.float64).copy())


def gamma_summary(columns: list[ShiftedColumn], lmbda: NDArray[np.float64],
                  gammas: list[float], with_cov: bool = False) -> tuple[Any, ...]:
    """Each column's gamma, its standard error (from the 2 x 2 observed information of
    (lambda, gamma); NaN unless gamma is estimated inside its bounds) and its status; with
    ``with_cov``, also the covariance of lambda and gamma (the off-diagonal of the inverse
    information; NaN where the standard error is)."""
    status, bse, cov = [], [], []
    for c, lam, g in zip(columns, lmbda, gammas, strict=True):
        if c.gamma_fixed is not None:
            status.append("fixed")
        elif g <= c.gamma_min * (1 + 1e-12):
            status.append("lower bound")
        elif g >= c.gamma_max * (1 - 1e-12):
            status.append("upper limit")
        else:
            status.append("estimated")
        se = cv = np.nan
        if status[-1] == "estimated":
            with np.errstate(all="ignore"):
                info = c.information(float(lam), g)
                det = np.linalg.det(info)
                if det > 0 and info[0, 0] > 0:
                    se = float(np.sqrt(info[0, 0] / det))
                    cv = float(-info[0, 1] / det)
        bse.append(se)
        cov.append(cv)
    out = (np.array(gammas, dtype=np.float64), np.array(bse), tuple(status))
    return (*out, np.array(cov)) if with_cov else out


def shifted_bases(x: NDArray[np.float64], gammas: ArrayLike, names: list[str]
                  ) -> NDArray[np.float64]:
    """Every column of ``x`` (NaN = missing, kept) as bcnPower's positive base at its
    fitted shift ``gammas[j] > 0`` (``families.shifted_base``): the values a fitted
    bcnPower power applies to; an underflowing base is refused naming the column."""
    u = np.array(x, dtype=np.float64, copy=True)
    for j, g in enumerate(np.asarray(gammas, dtype=np.float64).tolist()):
        ok = ~np.isnan(u[:, j])
        try:
            u[ok, j] = shifted_base(u[ok, j], g)
        except BoxCoxError as err:
            raise type(err)(f"column {names[j]!r}: {err}") from None
    return u
