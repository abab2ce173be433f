"""Joint (multivariate) lambda: the multivariate normal profile likelihood of several columns.

Layer 3. Columns ``y_1 .. y_p`` are transformed with their own powers ``lambda_j`` and the
transformed matrix is assumed multivariate normal around a linear model ``X B`` (``X`` the
design, an intercept at least). Profiling out ``B`` and the covariance gives the negative
log-likelihood (constants dropped)

.. math::

    \\mathrm{NLL}(\\lambda) = \\tfrac{n}{2} \\log\\det \\widehat\\Sigma(\\lambda)
        - \\sum_j (\\lambda_j - 1) J_j,
    \\qquad \\widehat\\Sigma = \\tfrac1n\\, R^\\top R ,

with ``R`` the residual matrix of the transformed columns on ``X`` and ``J_j`` the log-Jacobian
sum of column j (``sum log x`` for Box-Cox, ``sum sign(x) log(1 + |x|)`` for Yeo-Johnson). This is
the objective of R's ``car::powerTransform`` with a matrix response (``estimateTransform
.default``, Fox & Weisberg 2019) up to a constant; Velilla (1993) and Andrews, Gnanadesikan &
Warner (1971) describe it.

Numerics: each column is one regression response (``response.ResponseProfile``), whose scaled
residual vectors (and those of the derivative in lambda) never overflow; their scales are
logarithms. The log determinant is the log of the diagonal of the triangular factor of a QR
decomposition of the scaled residual matrix, and the gradient is analytic:

.. math:: \\partial_j \\mathrm{NLL} = n\\,[T^{-1} Q^\\top r'_j]_j - J_j ,

``Q T`` the QR factors of the scaled residuals and ``r'_j`` the scaled residual of the
derivative of column j's transform. With one column this is exactly the response's own profile,
and a one-column joint fit is solved by the one solver on it (``fit_joint`` of one column =
``lm`` with the same design = ``fit`` for an intercept-only design). The Hessian (observed
information) is a Richardson-extrapolated central difference of the gradient
(``solve.richardson_slope``).

Inference on one power at a time profiles the others out: :class:`ColumnProfiles` presents
``t -> min over the other powers of NLL(lambda_j = t, others)`` as a
:class:`~boxcoxstat.core.profile.Profile` with one column per power, so the one inference
module (``inference.profile_interval``) gives the joint fit's profile-likelihood intervals. With
one column it is the column's own profile (``JointProfile.single``).

References
----------
Andrews, D. F., Gnanadesikan, R. and Warner, J. L. (1971). Transformations of multivariate
data. Biometrics 27, 825-840.
Velilla, S. (1993). A note on the multivariate Box-Cox transformation to normality.
Statistics & Probability Letters 17, 259-263.
Fox, J. and Weisberg, S. (2019). An R Companion to Applied Regression, 3rd ed. Sage.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import optimize

from .._validation import BoxCoxError
from .design import Design, qr_design
from .likelihood import llf_constant
from .profile import Profile, SampleProfile, evaluate_pairs
from .response import ResponseProfile, response_profile, spans_constant_only
from .solve import curvature, richardson_slope, solve

__all__ = ["JointObjective", "JointProfile", "ColumnProfiles", "JointFit",
           "design_with_intercept", "fit_joint_lambda", "hessian"]


class JointObjective(Protocol):
    """What the joint solver, its Hessian and :class:`ColumnProfiles` need from a joint
    likelihood: :class:`JointProfile`, or one with nuisance parameters profiled out
    (``shifted.JointShiftedProfile``)."""

    @property
    def nobs(self) -> int: ...

    @property
    def ncols(self) -> int: ...

    @property
    def single(self) -> Profile | None: ...

    def llf_constant(self) -> float: ...

    def nll(self, lmbda: ArrayLike, grad: bool = False) -> Any: ...

    def score(self, lmbda: ArrayLike) -> NDArray[np.float64]: ...

    def hessian(self, lmbda: ArrayLike) -> NDArray[np.float64]: ...


def design_with_intercept(x: ArrayLike) -> Design:
    """The factorised design (R's aliasing rule), which must contain the constant.

    Raises
    ------
    BoxCoxError
        If the constant vector is not in the column space (the transformed values are only
        defined up to a shift, so the model needs an intercept).
    """
    design = qr_design(x)
    one = np.ones(design.nobs)
    if np.linalg.norm(design.resid(one)) > 1e-8 * np.sqrt(design.nobs):
        raise BoxCoxError(
            "the design has no intercept (the constant is not in its column space); the "
            "transformed values are defined only up to a shift, so keep the intercept "
            "(for example '~ group' rather than '~ 0 + x')"
        )
    return design


@dataclass(frozen=True)
class JointProfile:
    """The joint profile likelihood of one power per column around one design.

    Build with :meth:`build`. ``columns`` holds one response profile per column; ``single``
    is the one-column profile (the sample's for an intercept-only design), through which a
    one-column problem is evaluated, so it is the same computation as ``fit`` / ``lm``.
    """

    columns: tuple[ResponseProfile, ...]
    single: Profile | None
    family: str

    @classmethod
    def build(cls, y: ArrayLike, design: Design, family: str) -> JointProfile:
        """Prepare the columns of ``y`` (n, p) (complete, validated rows) for ``design``."""
        y = np.asarray(y, dtype=np.float64)
        if y.ndim == 1:
            y = y[:, None]
        cols = tuple(ResponseProfile.build(y[:, j], design, family) for j in range(y.shape[1]))
        single = response_profile(y[:, 0], design, family) if y.shape[1] == 1 else None
        return cls(cols, single, family)

    @property
    def nobs(self) -> int:
        return int(self.columns[0].n)

    @property
    def ncols(self) -> int:
        return len(self.columns)

    @property
    def rank(self) -> int:
        return self.columns[0].design.rank

    @property
    def intercept_only(self) -> bool:
        return spans_constant_only(self.columns[0].design)

    def llf_constant(self) -> float:
        """``llf = llf_constant - nll``: the Gaussian constant ``-n p (log(2 pi) + 1) / 2``."""
        return float(self.ncols * llf_constant(self.nobs))

    def nll(self, lmbda: ArrayLike, grad: bool = False):
        """Profile NLL (constants dropped) and, if ``grad``, its gradient.

        ``inf`` (and a NaN gradient) where lambda is not finite or the residual matrix is
        singular.
        """
        lam = np.asarray(lmbda, dtype=np.float64).reshape(-1)
        p, n = self.ncols, float(self.nobs)
        bad = (np.inf, np.full(p, np.nan)) if grad else np.inf
        if lam.shape != (p,) or not np.all(np.isfinite(lam)):
            return bad
        if self.single is not None:
            with np.errstate(all="ignore"):
                v, s = self.single.evaluate(lam, 0, score=grad)
            if not np.isfinite(v[0]) or (grad and not np.isfinite(s[0])):
                return bad
            return (float(v[0]), s.copy()) if grad else float(v[0])
        with np.errstate(all="ignore"):  # absurd lambdas give inf/NaN, refused below
            parts = [c._vectors(lam[j : j + 1], grad) for j, c in enumerate(self.columns)]
            r = np.column_stack([q[0][:, 0] for q in parts])
            m = np.array([q[2][0] for q in parts])
            if not (np.all(np.isfinite(r)) and np.all(np.isfinite(m))):
                return bad
            q, t = np.linalg.qr(r)
            diag = np.abs(np.diag(t))
            if not np.all(diag > 0):
                return bad
            jac = np.array([c.jacobian for c in self.columns])
            val = float(np.sum((1.0 - lam) * jac) + n * np.sum(m) + n * np.sum(np.log(diag))
                        - 0.5 * n * p * np.log(n))
            if not np.isfinite(val):
                return bad
            if not grad:
                return val
            rd = np.column_stack([q_[1][:, 0] for q_ in parts])
            coef = np.linalg.solve(t, q.T @ rd)
            g = n * np.diag(coef) - jac
        if not np.all(np.isfinite(g)):
            return bad
        return val, g

    def score(self, lmbda: ArrayLike) -> NDArray[np.float64]:
        """Gradient of :meth:`nll`."""
        return self.nll(lmbda, grad=True)[1]

    def hessian(self, lmbda: ArrayLike) -> NDArray[np.float64]:
        """Hessian of :meth:`nll` (two or more columns), analytic in the residual matrices.

        With ``A = Psi' M Psi`` (``M`` the residual projector, ``Psi`` the transformed
        columns), ``D`` and ``E`` the first and second derivatives of each column in its own
        power, ``P = A^-1``, ``B = Psi' M D``, ``Q = P B``, ``S = B' P B``, ``C = D' M D`` and
        ``G = Psi' M E``, the NLL ``n/2 log det A - sum (lambda_j - 1) J_j`` has gradient
        ``n diag(Q) - J`` and Hessian

        ``H = n (P o C - Q o Q' - P o S + diag(diag(P G)))``

        (``o`` the elementwise product; from ``d log det A = tr(A^-1 dA)`` twice). Every
        term is invariant to the per-column scale factors, so the scaled residuals of
        :meth:`ResponseProfile._vectors` are used as they are, after each column is rescaled
        by ``exp(-alpha_j lambda_j)`` with ``alpha_j`` the coefficient of its derivative on
        itself (a rescaling by a linear function of lambda leaves the Hessian unchanged and
        keeps its terms from cancelling). ``E`` is the central
        difference of the scaled ``M D`` in the column's own power, Richardson-extrapolated
        from steps ``h`` and ``h/2`` with ``h = 1e-3 max(1, |lambda_j|)`` (error about 1e-12
        relative: a derivative of vectors, not of the NLL, so 4 vector evaluations per
        column instead of 10 gradients per column).
        """
        lam = np.asarray(lmbda, dtype=np.float64).reshape(-1)
        n = float(self.nobs)
        with np.errstate(all="ignore"):
            parts = [c._vectors(lam[j : j + 1], True) for j, c in enumerate(self.columns)]
            r = np.column_stack([q[0][:, 0] for q in parts])
            rd = np.column_stack([q[1][:, 0] for q in parts])
            # take out of each derivative its own column's direction (the log of the data's
            # scale, 690 for values near 1e-300, would otherwise make the terms of H cancel)
            alpha = np.einsum("ij,ij->j", r, rd) / np.einsum("ij,ij->j", r, r)
            rd = rd - alpha * r
            rdd = np.column_stack([self._second(j, lam[j], parts[j][2][0], alpha[j])
                                   for j in range(self.ncols)])
            pm = np.linalg.inv(np.einsum("ij,ik->jk", r, r))
            b = np.einsum("ij,ik->jk", r, rd)
            q = pm @ b
            smat = b.T @ pm @ b
            c = np.einsum("ij,ik->jk", rd, rd)
            g = np.einsum("ij,ik->jk", r, rdd)
            h = n * (pm * c - q * q.T - pm * smat + np.diag(np.diag(pm @ g)))
        return 0.5 * (h + h.T)

    def _second(self, j: int, lam: float, m0: float, alpha: float) -> NDArray[np.float64]:
        """Scaled residuals of the second derivative of column ``j``'s transform, for the
        column rescaled by ``exp(-alpha (lambda_j - lam))`` (which leaves the Hessian of the
        NLL unchanged: ``log det A`` moves by a linear function of lambda)."""
        col = self.columns[j]
        step = 1e-3 * max(1.0, abs(lam))

        def vec(t: float) -> NDArray[np.float64]:
            r_t, rd_t, m_t = col._vectors(np.array([t]), True)
            return (rd_t[:, 0] - alpha * r_t[:, 0]) * np.exp(m_t[0] - m0 - alpha * (t - lam))

        diffs = [(vec(lam + h) - vec(lam - h)) / (2.0 * h) for h in (step, step / 2)]
        return (4.0 * diffs[1] - diffs[0]) / 3.0

    def column_profiles(self, lmbda: ArrayLike, cov: ArrayLike) -> Profile:
        """The NLL profiled to one power at a time, around the joint MLE ``lmbda`` with
        inverse Hessian ``cov``: the column's own profile for one column, else
        :class:`ColumnProfiles`."""
        if self.single is not None:
            return self.single
        return ColumnProfiles(self, np.asarray(lmbda, dtype=np.float64).copy(),
                              np.asarray(cov, dtype=np.float64).copy())


VALUE_TOL = 1e-13  # profile NLL within this of the inner minimum (LR statistics to 2e-13)


@dataclass(frozen=True)
class ColumnProfiles:
    """The joint NLL profiled to each power in turn: a Profile with one column per power.

    ``evaluate(t, j)`` is ``min over lambda_{-j} of NLL(lambda_j = t, lambda_{-j})`` and its
    derivative in ``t``, which by the envelope theorem is the ``j``-th entry of the analytic
    gradient at the inner minimum. The inner (p-1)-dimensional minimisation is BFGS with the
    analytic gradient, started from the nearest point already solved for column ``j`` moved
    along the regression of the other powers on ``lambda_j`` (``cov[-j, j] / cov[j, j]``),
    with the inverse of the other powers' block of the Hessian (the Schur complement of
    ``cov``) as its first inverse-Hessian estimate. Its curvature at the MLE is
    ``1 / cov[j, j]``, so the profile interval and the standard error describe one likelihood.

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.core.design import qr_design
    >>> from boxcoxstat.core.joint import JointProfile, fit_joint_lambda
    >>> y = np.random.default_rng(0).lognormal(size=(50, 2))
    >>> prob = JointProfile.build(y, qr_design(np.ones((50, 1))), "boxcox")
    >>> fit = fit_joint_lambda(prob)
    >>> prof = prob.column_profiles(fit.lmbda, np.linalg.inv(fit.hessian))
    >>> val, _ = prof.evaluate(fit.lmbda, [0, 1], score=False)
    >>> bool(np.allclose(val, fit.nll, rtol=1e-13))
    True
    """

    joint: JointObjective
    lmbda: NDArray[np.float64]
    cov: NDArray[np.float64]
    # per column: the values t solved so far and the other powers' minimiser at each
    _seen: dict[int, tuple[list[float], list[NDArray[np.float64]]]] = field(
        default_factory=dict, repr=False, compare=False)

    @property
    def ncols(self) -> int:
        return self.joint.ncols

    def nobs(self) -> NDArray[np.float64]:
        return np.full(self.ncols, float(self.joint.nobs))

    def llf_offset(self) -> NDArray[np.float64]:
        return np.full(self.ncols, self.joint.llf_constant())

    def subsample(self) -> None:
        return None

    def evaluate(
        self, lmbda: ArrayLike, cols: ArrayLike, *, score: bool = True
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        return evaluate_pairs(lmbda, cols, self._minimise, score)

    def _start(self, j: int, t: float, others: NDArray[np.bool_]):
        """Warm start and initial inverse Hessian of the inner minimisation."""
        cjj, coj = self.cov[j, j], self.cov[others, j]
        usable = bool(np.isfinite(cjj) and cjj > 0 and np.all(np.isfinite(self.cov)))
        slope = coj / cjj if usable else np.zeros(int(others.sum()))
        ts, mins = self._seen.get(j, ([], []))
        if ts:
            k = int(np.argmin(np.abs(np.asarray(ts) - t)))
            start = mins[k] + slope * (t - ts[k])
        else:
            start = self.lmbda[others] + slope * (t - self.lmbda[j])
        hinv = None
        if usable:
            hinv = self.cov[np.ix_(others, others)] - np.outer(coj, coj) / cjj
            hinv = 0.5 * (hinv + hinv.T)  # exactly symmetric, as BFGS requires
            try:
                np.linalg.cholesky(hinv)
            except np.linalg.LinAlgError:
                hinv = None
        return start, hinv

    def _minimise(self, j: int, t: float) -> tuple[float, float]:
        """Profile value at ``lambda_j = t`` and its derivative (inf, NaN where undefined).

        BFGS stops when the gradient ``g`` of the other powers is so small that the value is
        within ``g' H^-1 g / 2 <= VALUE_TOL`` of the minimum (``H^-1`` taken as the Schur
        complement); a looser gradient costs nothing in the value, which is all an interval
        endpoint needs.
        """
        if not np.isfinite(t):
            return np.inf, np.nan
        p = self.ncols
        others = np.arange(p) != j
        full = np.empty(p)
        full[j] = t
        seen: dict[bytes, tuple[float, NDArray[np.float64]]] = {}

        def fun(o: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
            full[others] = o
            v, g = self.joint.nll(full, grad=True)
            seen[np.asarray(o, dtype=np.float64).tobytes()] = (v, g)
            return v, (g[others] if np.isfinite(v) else np.zeros(p - 1))

        start, hinv = self._start(j, t, others)
        opts: dict = {"gtol": 1e-9, "maxiter": 500}
        if hinv is not None:
            opts["hess_inv0"] = hinv
            opts["gtol"] = float(np.sqrt(2.0 * VALUE_TOL / np.max(np.diag(hinv))))
        # a line search that stops short only ends the inner minimisation early (its value
        # is then slightly high); nothing for the user to act on, so no warning
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            res = optimize.minimize(fun, start, jac=True, method="BFGS", options=opts)
        best = np.asarray(res.x, dtype=np.float64)
        val, g = seen.get(best.tobytes()) or fun(best)
        if not np.isfinite(val):
            return np.inf, np.nan
        ts, mins = self._seen.setdefault(j, ([], []))
        ts.append(t)
        mins.append(best.copy())
        return float(val), float(g[j])


def hessian(problem: JointObjective, lmbda: NDArray[np.float64], h: float = 0.02,
            levels: int = 5) -> NDArray[np.float64]:
    """Hessian of the NLL: central differences of the analytic gradient at steps h, h/2, ...
    (``levels`` of them), Richardson-extrapolated, then symmetrised."""
    p = lmbda.shape[0]
    cols = []
    for k in range(p):
        central = []
        for step in h / 2.0 ** np.arange(levels):
            e = np.zeros(p)
            e[k] = step
            central.append((problem.score(lmbda + e) - problem.score(lmbda - e)) / (2.0 * step))
        cols.append(richardson_slope(central))
    hmat = np.column_stack(cols)
    return 0.5 * (hmat + hmat.T)


@dataclass(frozen=True)
class JointFit:
    """Result of :func:`fit_joint_lambda` (plain arrays; the public result wraps it)."""

    lmbda: NDArray[np.float64]
    nll: float
    hessian: NDArray[np.float64]
    start: NDArray[np.float64]
    converged: bool
    gradient: NDArray[np.float64]


def _one_column(problem: JointObjective) -> JointFit:
    """One column: the one solver on the column's own profile (exact to rounding), and its
    curvature as ``bcs.fit`` / ``bcs.lm`` compute it (``solve.curvature``)."""
    assert problem.single is not None
    sol = solve(problem.single)
    lam = sol.lmbda.copy()
    val, g = problem.nll(lam, grad=True)
    hmat = curvature(problem.single, lam).reshape(1, 1)
    ok = bool(sol.converged[0]) and np.isfinite(val) and bool(hmat[0, 0] > 0)
    return JointFit(lam, float(sol.nll[0]), hmat, lam.copy(), ok, np.atleast_1d(g))


def _own_profile(column: ResponseProfile) -> Profile:
    """A column's own profile: the sample's for an intercept-only design (which starts from
    a subsample on large data), else the response profile."""
    if column.design.sw is None and spans_constant_only(column.design):
        return SampleProfile(column.sample_of_response())
    return column


def fit_joint_lambda(problem: JointObjective,
                     start: NDArray[np.float64] | None = None) -> JointFit:
    """Minimise the joint NLL: quasi-Newton from the per-column MLEs, then Newton polish.

    One column is solved as a sample or a regression (the one solver). Otherwise the start is
    each column's own ML power given the design; BFGS with the analytic gradient brings
    lambda close (seeded with the inverse analytic Hessian at the start), and Newton steps with
    the analytic Hessian (each accepted only if the NLL
    does not rise beyond rounding) make the gradient vanish to rounding level.
    """
    if problem.single is not None and start is None:
        return _one_column(problem)
    if start is None:
        columns = problem.columns  # type: ignore[attr-defined]
        start = np.array([solve(_own_profile(c)).lmbda[0] for c in columns])
        start = np.where(np.isfinite(start), np.clip(start, -10.0, 10.0), 1.0)
    start = np.asarray(start, dtype=np.float64)

    def fun(lam):
        val, g = problem.nll(lam, grad=True)
        return val, g

    opts: dict = {"gtol": 1e-9, "maxiter": 2000}
    with np.errstate(all="ignore"):
        h0 = problem.hessian(start)  # the analytic Hessian at the start seeds BFGS
    try:
        hinv = np.linalg.inv(h0)
        np.linalg.cholesky(hinv)
        opts["hess_inv0"] = 0.5 * (hinv + hinv.T)
    except np.linalg.LinAlgError:
        pass
    res = optimize.minimize(fun, start, jac=True, method="BFGS", options=opts)
    lam = np.asarray(res.x, dtype=np.float64)
    val, g = problem.nll(lam, grad=True)
    noise = 1e-13 * max(1.0, abs(val))
    # one analytic Hessian at the BFGS point serves the Newton steps (they move lambda by
    # about 1e-9, which changes the Hessian by as little) and the standard errors
    hmat = problem.hessian(lam)
    for _ in range(30):
        try:
            step = np.linalg.solve(hmat, g)
        except np.linalg.LinAlgError:
            break
        new = lam - step
        nval, ng = problem.nll(new, grad=True)
        if not np.isfinite(nval) or nval > val + noise:
            break
        lam, val, g = new, nval, ng
        if np.max(np.abs(step)) <= 1e-12 * max(1.0, float(np.max(np.abs(lam)))):
            break
    scale = np.sqrt(np.abs(np.diag(hmat)))
    ok = bool(np.all(np.isfinite(lam)) and np.all(np.abs(g) <= 1e-6 * np.maximum(scale, 1.0)
                                                  * problem.nobs ** 0.5))
    try:
        np.linalg.cholesky(hmat)
    except np.linalg.LinAlgError:
        ok = False
    return JointFit(lam, float(val), hmat, start, ok, g)
