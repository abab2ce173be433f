"""The shifted Box-Cox family bcnPower: a Profile with the shift gamma profiled out.

Layer 3. Hawkins & Weisberg (2017) transform any real ``u`` by the Box-Cox power of the
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

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._special import exprel
from ..families import bcnpower_log_base
from .column_profiles import ColumnProfiles
from .curvature import richardson_slope
from .design import Design
from .joint import JointProfile
from .joint_solve import hessian as numerical_hessian
from .likelihood import choose_shift, llf_constant
from .profile import evaluate_pairs
from .response import ResponseProfile
from .roots import find_root

__all__ = ["GAMMA_MIN", "GAMMA_SPAN", "ShiftedColumn", "ShiftedProfile", "JointShiftedProfile"]

GAMMA_MIN = 0.1  # car's default lower bound for gamma
GAMMA_SPAN = 1e6  # gamma's upper limit, in units of the data's range: the transform is then
# linear to about 1e-6 and the likelihood that of the untransformed data


@dataclass(frozen=True)
class _Frame:
    """One column at one gamma: the Box-Cox profile of ``b`` and the gamma-derivative parts."""

    prof: ResponseProfile
    dlog_b: NDArray[np.float64]  # d log b_i / d gamma
    extra: float  # sum(log s - log b): the part of the NLL beyond the Box-Cox of b
    sum_dlog_b: float
    sum_dlog_s: float  # sum(gamma / s^2)


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
        self.gamma_max = GAMMA_SPAN * float(np.ptp(self.u))
        self._frames: dict[float, _Frame] = {}
        self._solved: dict[float, float] = {}  # lambda -> gamma minimiser

    @property
    def n(self) -> int:
        return int(self.u.shape[0])

    def frame(self, gamma: float) -> _Frame:
        got = self._frames.get(gamma)
        if got is not None:
            return got
        log_b, log_s = bcnpower_log_base(self.u, gamma)
        s = np.exp(log_s)
        pos = self.u >= 0
        with np.errstate(divide="ignore", invalid="ignore"):
            dlog_b = np.where(pos, gamma / (s * (self.u + s)), (s - self.u) / (gamma * s))
        prof = ResponseProfile.build(np.exp(log_b), self.design, "boxcox", self.weights)
        out = _Frame(prof, dlog_b, float(np.sum(log_s - log_b)), float(np.sum(dlog_b)),
                     float(np.sum(gamma / (s * s))))
        if len(self._frames) > 4096:
            self._frames.clear()
        self._frames[gamma] = out
        return out

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

    def _start(self, lmbda: float) -> float:
        if self._solved:
            near = min(self._solved, key=lambda k: abs(k - lmbda))
            return self._solved[near]
        positive = self.u[self.u > 0]
        if self.u.min() <= 0 and positive.size:  # car's start (bcn.sv)
            return float(np.clip(max(positive.min(), 5 * self.gamma_min), self.gamma_min,
                                 self.gamma_max))
        return self.gamma_min

    def gamma_hat(self, lmbda: float) -> tuple[float, float, float]:
        """The gamma that minimises the NLL at ``lmbda`` (within its bounds), the NLL there and
        its derivative in lambda."""
        if self.gamma_fixed is not None:
            v, dl, _ = self.nll(lmbda, self.gamma_fixed)
            return self.gamma_fixed, v, dl

        def g(t: float) -> float:  # d NLL / d log gamma
            gam = float(np.exp(t))
            return gam * self.nll(lmbda, gam)[2]

        t_lo, t_hi = self.log_bounds()
        ta = float(np.clip(np.log(self._start(lmbda)), t_lo, t_hi))
        fa = g(ta)
        t = ta
        if fa != 0:
            direction = -1.0 if fa > 0 else 1.0  # towards a smaller NLL
            step = 0.25
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
        gam = self.gamma_min if t <= t_lo else float(np.exp(min(t, t_hi)))
        v, dl, _ = self.nll(lmbda, gam)
        self._solved[float(lmbda)] = gam
        return gam, v, dl

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
    # log gamma minimisers by lambda (exact repeats only)
    _seen: dict[bytes, NDArray[np.float64]] = field(default_factory=dict, repr=False,
                                                    compare=False)

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
        """NLL at (lambda, gamma) with its gradients in lambda and in gamma."""
        frames = [c.frame(float(g)) for c, g in zip(self.columns, gamma, strict=True)]
        bad = (np.inf, np.full(self.ncols, np.nan), np.full(self.ncols, np.nan))
        val, gl = JointProfile(tuple(f.prof for f in frames), None, "boxcox").nll(
            lmbda, grad=True)
        if not np.isfinite(val):
            return bad
        n = float(self.nobs)
        with np.errstate(all="ignore"):
            parts = [f.prof._vectors(lmbda[j : j + 1]) for j, f in enumerate(frames)]
            r = np.column_stack([q[0][:, 0] for q in parts])
            w = np.empty_like(r)
            for j, f in enumerate(frames):
                side = f.prof.sides[0].sample.sides[0]
                d = side.v[:, 0] - choose_shift(side, lmbda[j : j + 1])[0]
                w[:, j] = np.exp(lmbda[j] * d) * f.dlog_b
            q, t = np.linalg.qr(r)
            coef = np.linalg.solve(t, q.T @ w)
        gg = np.array([n * coef[j, j] - lmbda[j] * f.sum_dlog_b + f.sum_dlog_s
                       for j, f in enumerate(frames)])
        return val + sum(f.extra for f in frames), gl, gg

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
            return np.exp(self._seen[key])
        free = np.array([c.gamma_fixed is None for c in self.columns])
        lo, hi = np.array([c.log_bounds() for c in self.columns]).T
        t = np.log([c.gamma_hat(float(v))[0] for c, v in zip(self.columns, lam, strict=True)])

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
            done = np.max(np.abs(new - t)) <= 1e-12
            t, val, grad = new, nval, ngrad
            if done:
                break
        if len(self._seen) > 4096:
            self._seen.clear()
        self._seen[key] = t
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

    def column_profiles(self, lmbda: ArrayLike, cov: ArrayLike):
        """Each power's profile (the others and every gamma maximised out)."""
        if self.single is not None:
            return self.single
        return ColumnProfiles(self, np.asarray(lmbda, dtype=np.float64).copy(),
                              np.asarray(cov, dtype=np.float64).copy())
