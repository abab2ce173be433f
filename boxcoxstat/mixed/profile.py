"""The response power of a linear mixed model: a Profile for the one solver.

The model is lme4's (Bates et al. 2015): ``y = X beta + Z Lambda_theta u + e`` with
``u ~ N(0, sigma^2 I)``, ``e ~ N(0, sigma^2 I)``; ``Lambda_theta`` is block diagonal, one
lower-triangular ``T`` per random term repeated for each level of its grouping factor. For
fixed ``theta`` the profiled deviances are

.. math::

    -2\\ell_{ML} = \\log|\\Lambda^T Z^T Z \\Lambda + I| + n (1 + \\log(2\\pi r^2 / n)),\\qquad
    -2\\ell_{R} = \\log|\\Lambda^T Z^T M Z \\Lambda + I| + \\log|X^T X|
                 + (n - p)(1 + \\log(2\\pi r^2 / (n - p))),

with ``r^2 = min_u ||M z - M Z Lambda u||^2 + ||u||^2`` and ``M`` the residual projection of
the fixed-effects design (the REML determinant is lme4's ``log|L|^2 + log|R_X|^2`` by the
block-determinant identity). Because only ``M z`` enters, the transformed response's
residuals on ``X`` come from the linear model's own scaled, overflow-free computation
(:meth:`~boxcoxstat.core.response.ResponseProfile.derivative_vectors`); everything else is a
``q x q`` problem (``q`` random effects).

The power follows car's definition (``car:::estimateTransform.lmerMod``): the response is
replaced by its Jacobian-adjusted transform ``z = psi(y, lambda) / gm^(lambda - 1)`` and the
model (REML or ML) refitted, its log-likelihood the objective. For ML this is the Box-Cox
likelihood of ``y`` (the Jacobian included); for REML it is the REML criterion of ``z``, in
which the Jacobian enters with weight ``(n - p)/n``. ``theta`` is maximised at every lambda
(L-BFGS-B with the analytic gradient), and by the envelope theorem the score in lambda is the
partial derivative at that ``theta``: ``dNLL/dlambda = -(df/n) J + df <r', e> / r^2`` with
``e`` the penalised residuals and ``r'`` the residuals of the transform's derivative.

References
----------
Bates, D., Maechler, M., Bolker, B. and Walker, S. (2015). Fitting linear mixed-effects
models using lme4. Journal of Statistical Software 67(1), 1-48.
Fox, J. and Weisberg, S. (2019). An R Companion to Applied Regression, 3rd ed. (car).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import optimize

from .._validation.columns import BoxCoxError
from ..core.design import Design
from ..core.likelihood import choose_shift
from ..core.profile import evaluate_pairs
from ..core.response import ResponseProfile
from ..core.shifted import GAMMA_MIN, ShiftedColumn, ShiftedProfile, base_frame

__all__ = ["Structure", "MixedProfile", "ThetaFit", "MixedShiftedColumn",
           "MixedShiftedProfile"]

GTOL = 1e-10  # L-BFGS-B's projected-gradient tolerance on the deviance in theta
CONVERGED_GRAD = 1e-4  # a projected gradient above this (after scaling) is a failed fit
BOUNDARY_PROBES = (1e-3, 1e-2, 0.1, 0.3, 1.0, 3.0)  # theta values (sd / residual sd) tried off 0
NEAR_LAMBDA = 0.02  # bcnPower: gamma's search starts from a lambda this close (relative)


@dataclass(frozen=True)
class Structure:
    """Where ``theta`` sits in ``Lambda``: per parameter, its (row, column) positions.

    ``dims[t]`` is term ``t``'s number of effects per level, ``levels[t]`` its number of
    levels, ``offsets[t]`` its first column of ``Z``. ``theta`` lists, term by term, the
    lower triangle of ``T_t`` column by column (lme4's order); diagonal entries are bounded
    below by 0.
    """

    dims: tuple[int, ...]
    levels: tuple[int, ...]
    offsets: tuple[int, ...]
    q: int
    rows: NDArray[np.intp]  # every position of every parameter
    cols: NDArray[np.intp]
    which: NDArray[np.intp]  # the parameter at each position
    lower: NDArray[np.float64]  # per parameter: 0 (diagonal) or -inf
    term_of: NDArray[np.intp]  # per parameter: its term

    @classmethod
    def build(cls, dims: list[int], levels: list[int]) -> Structure:
        rows, cols, which, lower, term_of = [], [], [], [], []
        offsets, off, k = [], 0, 0
        for t, (p, nl) in enumerate(zip(dims, levels, strict=True)):
            offsets.append(off)
            base = off + p * np.arange(nl)
            for b in range(p):  # column of T
                for a in range(b, p):  # row of T
                    rows.append(base + a)
                    cols.append(base + b)
                    which.append(np.full(nl, k))
                    lower.append(0.0 if a == b else -np.inf)
                    term_of.append(t)
                    k += 1
            off += p * nl
        return cls(tuple(dims), tuple(levels), tuple(offsets), off,
                   np.concatenate(rows).astype(np.intp), np.concatenate(cols).astype(np.intp),
                   np.concatenate(which).astype(np.intp), np.array(lower),
                   np.array(term_of, dtype=np.intp))

    @property
    def ntheta(self) -> int:
        return int(self.lower.shape[0])

    def start(self) -> NDArray[np.float64]:
        """lme4's start: ``T = I``."""
        return np.where(self.lower == 0.0, 1.0, 0.0)

    def lam(self, theta: NDArray[np.float64]) -> NDArray[np.float64]:
        out = np.zeros((self.q, self.q))
        out[self.rows, self.cols] = theta[self.which]
        return out

    def grad_sum(self, m: NDArray[np.float64]) -> NDArray[np.float64]:
        """``sum over the positions (i, j) of each parameter of m[i, j]``."""
        return np.bincount(self.which, weights=m[self.rows, self.cols],
                           minlength=self.ntheta).astype(np.float64)

    def factor(self, theta: NDArray[np.float64], t: int) -> NDArray[np.float64]:
        """Term ``t``'s ``T`` (p x p, lower triangular)."""
        p = self.dims[t]
        out = np.zeros((p, p))
        vals = theta[self.term_of == t]
        k = 0
        for b in range(p):
            for a in range(b, p):
                out[a, b] = vals[k]
                k += 1
        return out


@dataclass(frozen=True)
class ThetaFit:
    """``theta`` maximised at one lambda: the value, whether the fit converged, and the
    largest projected gradient at the end."""

    theta: NDArray[np.float64]
    converged: bool
    grad: float


def _logdet_chol(s: NDArray[np.float64]) -> tuple[NDArray[np.float64], float]:
    """``s`` (symmetric positive definite) and its log-determinant from its Cholesky factor
    (NumPy's LAPACK calls: SciPy's ``cho_solve`` is far slower on these small systems)."""
    c = np.linalg.cholesky(s)
    return s, 2.0 * float(np.sum(np.log(np.diag(c))))


@dataclass(frozen=True)
class _State:
    """The mixed model's NLL at one lambda and its parts (:meth:`MixedProfile.state`)."""

    nll: float
    score: float
    fit: ThetaFit
    r: NDArray[np.float64]  # scaled residuals of the transform on the fixed effects
    lmat: NDArray[np.float64]  # Lambda_theta
    w: NDArray[np.float64]  # the penalised solution
    r2: float  # the penalised residual sum of squares (scaled)
    m: float  # log of the scale


class MixedProfile:
    """The profile likelihood of the response power of a linear mixed model (see the module
    docstring). ``evaluate`` refits ``theta`` at every lambda, starting from the fit at the
    nearest lambda seen so far; fits that did not converge are recorded in ``failures``."""

    def __init__(self, response: ResponseProfile, z: NDArray[np.float64],
                 structure: Structure, x_kept: NDArray[np.float64], reml: bool):
        self.response = response
        self.structure = structure
        self.reml = bool(reml)
        self.n = response.n
        self.p = int(response.design.rank)
        self.df = float(self.n - self.p) if reml else float(self.n)
        self.z = z
        mz = response.design.resid(z)
        self.g = mz.T @ mz  # Z' M Z
        self.h = z.T @ z
        self.logdet_xtx = float(np.linalg.slogdet(x_kept.T @ x_kept)[1]) if reml else 0.0
        self.fits: dict[float, ThetaFit] = {}
        self.failures: list[float] = []
        self.seed: NDArray[np.float64] | None = None  # a start when no fit is cached yet

    # ------------------------------------------------------------------ theta
    def _deviance(self, theta: NDArray[np.float64], b: NDArray[np.float64], rr: float,
                  grad: bool = True) -> tuple[float, NDArray[np.float64]]:
        """``logdet + df log r^2`` (the part of the deviance that depends on theta) and its
        gradient, for the scaled residuals with ``Z' r = b`` and ``r'r = rr``."""
        st = self.structure
        lam = st.lam(theta)
        glam = self.g @ lam
        s = lam.T @ glam + np.eye(st.q)
        c, logdet = _logdet_chol(s)
        lb = lam.T @ b
        w = np.linalg.solve(c, lb)
        r2 = rr - float(lb @ w)
        if not self.reml:
            hlam = self.h @ lam
            ch, logdet = _logdet_chol(lam.T @ hlam + np.eye(st.q))
        if r2 <= 0 or not np.isfinite(r2):
            return np.inf, np.full(st.ntheta, np.nan)
        val = logdet + self.df * np.log(r2)
        if not grad:
            return val, np.empty(0)
        if self.reml:
            m = np.linalg.solve(c, glam.T)  # S^-1 Lam' G
        else:
            m = np.linalg.solve(ch, hlam.T)
        # positions (i, j) read m[j, i]
        d_logdet = 2.0 * st.grad_sum(np.asarray(m.T, dtype=np.float64))
        resid = b - glam @ w
        d_r2 = -2.0 * st.grad_sum(np.outer(resid, w))
        return val, d_logdet + self.df * d_r2 / r2

    def fit_theta(self, b: NDArray[np.float64], rr: float,
                  start: NDArray[np.float64] | None = None) -> ThetaFit:
        """Maximise the likelihood in theta (L-BFGS-B, analytic gradient, lme4's bounds)."""
        st = self.structure
        x0 = st.start() if start is None else start.copy()
        diag = st.lower == 0.0
        x0[diag] = np.maximum(x0[diag], 0.05)  # theta = 0 is a stationary point: start off it
        bounds = [(0.0, None) if lo == 0.0 else (None, None) for lo in st.lower]

        def fun(t: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
            return self._deviance(t, b, rr)

        def run(start: NDArray[np.float64]) -> Any:
            return optimize.minimize(fun, start, jac=True, method="L-BFGS-B", bounds=bounds,
                                     options={"gtol": GTOL, "ftol": 0.0, "maxiter": 5000})

        res = run(x0)
        # A variance at its bound 0 is a stationary point whatever the data say (the
        # deviance is even in a scalar term's theta), so a descent can stop there with a
        # zero gradient while a positive variance is better (a saddle, as on lme4's cake
        # data, ~ temp + (1 | recipe) + (1 | replicate), at lambda = 0). Probe each such
        # parameter off the bound and restart from the best probe that lowers the deviance.
        for _ in range(3):
            at_bound = np.flatnonzero(diag & (res.x <= 0.0))
            best, best_x = float(res.fun), None
            for k in at_bound:
                for step in BOUNDARY_PROBES:
                    trial = np.asarray(res.x, dtype=np.float64).copy()
                    trial[k] = step
                    val = self._deviance(trial, b, rr, grad=False)[0]
                    if val < best - 1e-12 * max(1.0, abs(best)):
                        best, best_x = val, trial
            if best_x is None:
                break
            res = run(best_x)
        theta = self._newton_polish(np.asarray(res.x, dtype=np.float64), b, rr, diag)
        _, g = fun(theta)
        proj = np.where(diag & (theta <= 0.0), np.minimum(g, 0.0), g)
        gmax = float(np.max(np.abs(proj))) if proj.size else 0.0
        ok = bool(np.isfinite(res.fun)) and gmax <= CONVERGED_GRAD * max(1.0, self.df)
        return ThetaFit(theta, ok, gmax)

    def _newton_polish(self, theta: NDArray[np.float64], b: NDArray[np.float64], rr: float,
                       diag: NDArray[np.bool_]) -> NDArray[np.float64]:
        """Newton steps on the parameters off their bounds, with the Hessian from central
        differences of the analytic gradient: L-BFGS-B stops where its line search can no
        longer tell values apart, a few units in the 8th digit of theta from the optimum,
        and the score in lambda (an envelope derivative) inherits that error."""
        free = np.flatnonzero(~(diag & (theta <= 0.0)))
        if free.size == 0:
            return theta
        f0, g0 = self._deviance(theta, b, rr)
        for _ in range(3):
            h = 1e-5 * np.maximum(1.0, np.abs(theta[free]))
            hess = np.empty((free.size, free.size))
            for a, k in enumerate(free):
                up, down = theta.copy(), theta.copy()
                up[k] += h[a]
                down[k] -= h[a]
                if diag[k] and down[k] < 0.0:
                    return theta  # too near the bound for a central difference
                hess[:, a] = (self._deviance(up, b, rr)[1][free]
                              - self._deviance(down, b, rr)[1][free]) / (2.0 * h[a])
            hess = 0.5 * (hess + hess.T)
            try:
                if np.min(np.linalg.eigvalsh(hess)) <= 0.0:
                    return theta
                step = np.linalg.solve(hess, g0[free])
            except np.linalg.LinAlgError:
                return theta
            new = theta.copy()
            new[free] -= step
            if np.any(diag & (new < 0.0)):
                return theta
            f1, g1 = self._deviance(new, b, rr)
            if not f1 <= f0:
                return theta
            theta, f0, g0 = new, f1, g1
            if np.max(np.abs(step)) <= 1e-13 * (1.0 + np.max(np.abs(theta))):
                break
        return theta

    def _start_near(self, lam: float) -> NDArray[np.float64] | None:
        if not self.fits:
            return self.seed
        key = min(self.fits, key=lambda k: abs(k - lam))
        return self.fits[key].theta

    # ------------------------------------------------------------------ the Profile
    @property
    def ncols(self) -> int:
        return 1

    def nobs(self) -> NDArray[np.float64]:
        return np.array([float(self.n)])

    def llf_offset(self) -> NDArray[np.float64]:
        """``llf = -nll + offset``: ``-df/2 (1 + log 2 pi)`` (``df`` = n, or n - p for REML)."""
        return np.array([-0.5 * self.df * (1.0 + np.log(2.0 * np.pi))])

    def subsample(self) -> None:
        return None

    def lambda_limit(self) -> NDArray[np.float64]:
        return self.response.lambda_limit()

    def at(self, lam: float) -> tuple[float, float, ThetaFit]:
        """NLL, score and the theta fit at ``lam``."""
        st = self.state(lam)
        return st.nll, st.score, st.fit

    def state(self, lam: float) -> _State:
        """Everything the NLL at ``lam`` is made of (the theta fit, the penalised solution and
        the scaled residuals), so a derivative in another parameter of the response can reuse
        it (:meth:`penalised_dot`)."""
        r, rd, _, m = self.response.derivative_vectors(np.array([lam]), 1)
        r, rd = r[:, 0], rd[:, 0]
        b, bd = self.z.T @ r, self.z.T @ rd
        rr, rrd = float(r @ r), float(r @ rd)
        fit = self.fits.get(lam)
        if fit is None:
            fit = self.fit_theta(b, rr, self._start_near(lam))
            self.fits[lam] = fit
            if not fit.converged:
                self.failures.append(lam)
        st = self.structure
        lmat = st.lam(fit.theta)
        glam = self.g @ lmat
        s = lmat.T @ glam + np.eye(st.q)
        c, logdet = _logdet_chol(s)
        lb = lmat.T @ b
        w = np.linalg.solve(c, lb)
        r2 = rr - float(lb @ w)
        rde = rrd - float((lmat.T @ bd) @ w)
        if not self.reml:
            _, logdet = _logdet_chol(lmat.T @ (self.h @ lmat) + np.eye(st.q))
        frac = self.df / self.n
        jac = self.response.jacobian
        nll = (frac * (1.0 - lam) * jac + 0.5 * self.df * (2.0 * float(m[0]) + np.log(r2)
                                                           - np.log(self.df))
               + 0.5 * (logdet + self.logdet_xtx))
        score = -frac * jac + self.df * rde / r2
        return _State(float(nll), float(score), fit, r, lmat, w, r2, float(m[0]))

    def penalised_dot(self, st: _State, rv: NDArray[np.float64]) -> float:
        """``<e, rv>`` for the penalised residuals ``e`` at ``st`` and residuals ``rv`` (on
        the fixed-effects design, in ``st``'s scale): half the derivative of ``r^2`` along
        ``rv`` at fixed theta (the penalised solution is optimal, so it does not move)."""
        return float(st.r @ rv) - float((st.lmat.T @ (self.z.T @ rv)) @ st.w)

    def evaluate(self, lmbda: ArrayLike, cols: ArrayLike = 0, *,
                 score: bool = True) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        def one(_: int, lam: float) -> tuple[float, float]:
            nll, sc, _fit = self.at(lam)
            return nll, sc

        return evaluate_pairs(lmbda, cols, one, score)


# ---------------------------------------------------------------------- bcnPower
class MixedShiftedColumn(ShiftedColumn):
    """The bcnPower likelihood of a mixed model's response as a function of (lambda, gamma):
    :class:`~boxcoxstat.core.shifted.ShiftedColumn` (its gamma grid, inner minimisation,
    global optimum and ``gamma -> inf`` limit) with the linear model's profile of the base
    ``b`` replaced by the mixed model's (:class:`MixedProfile`).

    car's objective (``car:::estimateTransform.bcnPowerlmer``) is the REML or ML
    log-likelihood of ``bcnPower(y, lambda, gamma, jacobian.adjusted = TRUE)``: the base's
    Box-Cox objective plus the log-Jacobian of ``u -> b``, ``sum(log s - log b)``, which REML
    weights by ``(n - p)/n`` as it weights the Box-Cox Jacobian. Its derivative in gamma at
    the fitted theta (envelope theorem) is ``df <e, r_gamma> / r^2`` plus the Jacobians'
    parts, with ``r_gamma`` the residuals of ``d psi / d gamma = b^lambda d log b / d gamma``
    in the profile's scale (Hawkins & Weisberg 2017).
    """

    def __init__(self, u: ArrayLike, design: Design, z: NDArray[np.float64],
                 structure: Structure, x_kept: NDArray[np.float64], reml: bool, *,
                 gamma_min: float = GAMMA_MIN):
        super().__init__(u, design, gamma_min=gamma_min)
        self.z = z
        self.structure = structure
        self.x_kept = x_kept
        self.reml = bool(reml)
        df = self.n - int(design.rank) if self.reml else self.n
        self.frac = float(df) / self.n
        self._gamma_seen: dict[float, float] = {}  # lambda -> log gamma_hat

    def mixed(self, y: NDArray[np.float64]) -> MixedProfile:
        """The mixed model's profile of a positive response ``y`` (a base, or the limit's)."""
        resp = ResponseProfile.build(y, self.design, "boxcox")
        if resp.unit != 1.0:
            raise BoxCoxError("the bcnPower base is on a scale below about 1e-20; rescale the "
                              "response (multiply by a power of ten)")
        return MixedProfile(resp, self.z, self.structure, self.x_kept, self.reml)

    def frame(self, gamma: float) -> Any:
        got = self._frames.get(gamma)
        if got is not None:
            return got
        frame = base_frame(self.mixed, self.u, gamma)
        fitted = [g for g, f in self._frames.items() if f.prof.fits]  # type: ignore[attr-defined]
        if fitted:  # theta from the nearest gamma's latest fit: a short refit
            near = self._frames[min(fitted, key=lambda g: abs(np.log(g / gamma)))].prof
            frame.prof.seed = list(near.fits.values())[-1].theta  # type: ignore[attr-defined]
        return self._keep(gamma, frame)

    def nll(self, lmbda: float, gamma: float) -> tuple[float, float, float]:
        """``NLL(lambda, gamma)`` (theta maximised), its derivative in lambda and in gamma."""
        f = self.frame(gamma)
        prof: MixedProfile = f.prof
        st = prof.state(float(lmbda))
        info = prof.response.sides[0]
        side = info.sample.sides[0]
        lam = np.array([float(lmbda)])
        shift = float(choose_shift(side, lam)[0])
        d = side.v[:, 0] - shift
        a = float(lmbda) * (float(side.log_ref[0]) + shift)
        raw = np.zeros(self.n)
        with np.errstate(under="ignore"):
            raw[info.rows] = np.exp(a - st.m + float(lmbda) * d) * f.dlog_b[info.rows]
        rg = self.design.resid(raw)
        dg = (prof.df * prof.penalised_dot(st, rg) / st.r2
              + self.frac * (f.sum_dlog_s - float(lmbda) * f.sum_dlog_b))
        return st.nll + self.frac * f.extra, st.score, float(dg)

    def identity(self) -> tuple[Any, float]:
        """The limit ``gamma -> inf``: the mixed profile of ``x = e^{u'}`` and the constant
        to add, ``(df/n)(n log c - sum u')`` (the Jacobian of ``u -> x``, REML-weighted)."""
        if self._identity is None:
            m = float(np.median(self.u))
            c = float(np.max(np.abs(self.u - m)))
            up = (self.u - m) / c
            self._identity = (self.mixed(np.exp(up)),  # type: ignore[assignment]
                              self.frac * float(self.n * np.log(c) - np.sum(up)))
        return self._identity  # type: ignore[return-value]

    def gamma_hat(self, lmbda: float) -> tuple[float, float, float]:
        """:meth:`ShiftedColumn.gamma_hat`, remembering each lambda's minimiser."""
        out = super().gamma_hat(lmbda)
        if np.isfinite(out[0]):
            self._gamma_seen[float(lmbda)] = float(np.log(out[0]))
        return out

    def _gamma_start(self, lmbda: float) -> tuple[float, float]:
        """Start from the minimiser at a lambda seen within ``NEAR_LAMBDA`` (every NLL here
        refits the random effects, and the solver's polish and the curvature's steps come
        close together); the grid's best point (~30 refits) elsewhere, so a lambda far from
        the others (an LR test's, an interval's first steps) finds the global minimiser."""
        if self._gamma_seen:
            near = min(self._gamma_seen, key=lambda v: abs(v - lmbda))
            if abs(near - lmbda) <= NEAR_LAMBDA * max(1.0, abs(lmbda)):
                t = float(np.clip(self._gamma_seen[near], *self.log_bounds()))
                return t, float(self.grid(lmbda)[0])
        return super()._gamma_start(lmbda)

    def failures(self) -> list[float]:
        """The lambdas at which some theta fit (at any gamma) did not converge."""
        out = [v for f in self._frames.values() for v in f.prof.failures]  # type: ignore
        if self._identity is not None:
            out += list(self._identity[0].failures)  # type: ignore[attr-defined]
        return out


@dataclass(frozen=True)
class MixedShiftedProfile(ShiftedProfile):
    """bcnPower for a mixed model's response, gamma profiled out: a Profile for the one solver
    (:class:`~boxcoxstat.core.shifted.ShiftedProfile` with the mixed model's constant)."""

    def llf_offset(self) -> NDArray[np.float64]:
        """``-df/2 (1 + log 2 pi)`` (``df`` = n, or n - p for REML)."""
        col = self.columns[0]
        assert isinstance(col, MixedShiftedColumn)
        df = col.frac * col.n
        return np.array([-0.5 * df * (1.0 + np.log(2.0 * np.pi))])
