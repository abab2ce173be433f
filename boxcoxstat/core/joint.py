"""Joint (multivariate) lambda: the multivariate normal profile likelihood of several columns.

Layer 3. Columns ``y_1 .. y_p`` are transformed with their own powers ``lambda_j`` and the
transformed matrix is assumed multivariate normal around a linear model ``X B`` (``X`` the
design, an intercept at least). Profiling out ``B`` and the covariance gives the negative
log-likelihood (constants dropped)

.. math::

    \\mathrm{NLL}(\\lambda) = \\tfrac{n}{2} \\log\\det \\widehat\\Sigma(\\lambda)
        - \\sum_j (\\lambda_j - 1) \\sum_i \\log J_{ij},
    \\qquad \\widehat\\Sigma = \\tfrac1n\\, Y_\\lambda^\\top M Y_\\lambda ,

with ``M = I - X X^+`` and ``log J`` the log-derivative of the base (``log x`` for Box-Cox,
``sign(x) log(1 + |x|)`` for Yeo-Johnson). This is the objective of R's
``car::powerTransform`` with a matrix response (``estimateTransform.default``, Fox & Weisberg
2019) up to a constant; Velilla (1993) and Andrews, Gnanadesikan & Warner (1971) describe it.

Numerics. Nothing large is ever formed: every column is computed in scaled form
``w_j = psi_j / s_j`` with ``log s_j`` the largest ``log |psi_ij|`` (evaluated in the log
domain, so ``psi`` itself may exceed float64). Box-Cox columns are first divided by their
geometric mean (the Jacobian adjustment), which only adds a constant to ``psi`` and multiplies
it by ``G^lambda``; both are accounted for analytically. The log determinant comes from the
triangular factor of a QR decomposition of the residual matrix. The gradient is analytic:

.. math:: \\partial_j \\mathrm{NLL} = n\\,[T^{-1} Q^\\top \\partial_j w]_{jj} - S_j ,

``Q T`` the QR factors of ``M W`` (for Box-Cox the ``-S_j`` cancels against the geometric-mean
factor). The Hessian (observed information) is a Richardson-extrapolated central difference
of this gradient.

References
----------
Andrews, D. F., Gnanadesikan, R. and Warner, J. L. (1971). Transformations of multivariate
data. Biometrics 27, 825-840.
Velilla, S. (1993). A note on the multivariate Box-Cox transformation to normality.
Statistics & Probability Letters 17, 259-263.
Fox, J. and Weisberg, S. (2019). An R Companion to Applied Regression, 3rd ed. Sage.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray
from scipy import optimize

from .._special import log_dexprel, log_exprel
from .._validation import BoxCoxError
from .design import qr_design
from .mle import mle_lambda
from .sample import Sample

__all__ = ["JointProblem", "JointFit", "design_basis", "fit_joint_lambda"]


def design_basis(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """Orthonormal basis (n, rank) of the column space of the design ``x``.

    Raises
    ------
    BoxCoxError
        If the constant vector is not in the column space (the transformed values are only
        defined up to a shift, so the model needs an intercept).
    """
    basis = qr_design(x).q  # aliased columns dropped by R's rule, as car's lm() fit does
    one = np.ones(x.shape[0])
    resid = one - basis @ (basis.T @ one)
    if np.linalg.norm(resid) > 1e-8 * np.sqrt(x.shape[0]):
        raise BoxCoxError(
            "the design has no intercept (the constant is not in its column space); the "
            "transformed values are defined only up to a shift, so keep the intercept "
            "(for example '~ group' rather than '~ 0 + x')"
        )
    return basis


@dataclass(frozen=True)
class JointProblem:
    """Data of a joint fit: the columns, their family and the design's orthonormal basis.

    Attributes
    ----------
    y : ndarray (n, p)
        The columns (complete rows only).
    family : {"boxcox", "yeojohnson"}
    basis : ndarray (n, r)
        Orthonormal basis of the design's column space (contains the constant).
    """

    y: NDArray[np.float64]
    family: str
    basis: NDArray[np.float64]
    S: NDArray[np.float64] = field(init=False, repr=False)  # sum of log J per column
    _u: NDArray[np.float64] = field(init=False, repr=False)
    _logu: NDArray[np.float64] = field(init=False, repr=False)
    _sign: NDArray[np.float64] = field(init=False, repr=False)
    _ksign: NDArray[np.float64] = field(init=False, repr=False)
    _koff: NDArray[np.float64] = field(init=False, repr=False)
    _shifted: NDArray[np.bool_] = field(init=False, repr=False)
    _const: NDArray[np.float64] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        y = self.y
        if self.family == "boxcox":
            mag = np.log(y)  # log of the base b = x
            side = np.ones_like(y)
            logjac_sum = mag.sum(axis=0)
        else:
            mag = np.log1p(np.abs(y))  # log of the base b = 1 + |x|
            side = np.where(y >= 0, 1.0, -1.0)  # exponent lambda, or 2 - lambda negated
            logjac_sum = (side * mag).sum(axis=0)
        # Columns with one side only (every Box-Cox column) are shifted to the mean log base:
        # psi = side * b_G^k * bc(b / b_G, k) + constant, and the factor b_G^k is accounted
        # for analytically (it cancels the Jacobian term's lambda dependence).
        shifted = np.all(side == side[:1], axis=0) if y.shape[0] else np.ones(y.shape[1], bool)
        centre = np.where(shifted, mag.mean(axis=0), 0.0)
        base = mag - centre
        sgn = np.where(base < 0, -1.0, 1.0)
        sign = side * sgn
        # t = k * base with k = lambda (side +1) or 2 - lambda (side -1), as koff + ksign*lambda
        # times |base|
        koff = (1.0 - side) * sgn
        ksign = side * sgn
        with np.errstate(divide="ignore"):
            logabs = np.log(np.abs(base))
        const = np.where(shifted, y.shape[0] * centre, 0.0)
        for name, val in (("_u", np.abs(base)), ("_logu", logabs), ("_sign", sign),
                          ("_ksign", ksign), ("_koff", koff), ("S", logjac_sum),
                          ("_shifted", shifted), ("_const", const)):
            object.__setattr__(self, name, val)

    @property
    def nobs(self) -> int:
        return int(self.y.shape[0])

    @property
    def ncols(self) -> int:
        return int(self.y.shape[1])

    @property
    def rank(self) -> int:
        return int(self.basis.shape[1])

    def _scaled(self, lmbda: NDArray[np.float64], deriv: bool):
        """Scaled columns ``w = psi / s``, ``log s`` and (optionally) ``d psi / d lambda / s``."""
        kappa = self._koff + self._ksign * lmbda
        t = kappa * self._u
        zero = self._u == 0
        with np.errstate(invalid="ignore"):
            logabs = np.where(zero, -np.inf, self._logu + log_exprel(t))
        logs = logabs.max(axis=0)
        w = self._sign * np.exp(logabs - logs)
        if not deriv:
            return w, logs, None
        with np.errstate(invalid="ignore"):
            logd = np.where(zero, -np.inf, 2.0 * self._logu + log_dexprel(t))
        return w, logs, np.exp(logd - logs)

    def _residual(self, a: NDArray[np.float64]) -> NDArray[np.float64]:
        """``M a`` with ``M = I - basis basis'`` (projected twice for accuracy)."""
        b = self.basis
        r = a - b @ (b.T @ a)
        return r - b @ (b.T @ r)

    def nll(self, lmbda: NDArray[np.float64], grad: bool = False):
        """Profile NLL (constants dropped) and, if ``grad``, its gradient.

        ``inf`` (and a NaN gradient) where the residual matrix is singular.
        """
        lmbda = np.asarray(lmbda, dtype=np.float64)
        n, p = self.nobs, self.ncols
        bad = (np.inf, np.full(p, np.nan)) if grad else np.inf
        if not np.all(np.isfinite(lmbda)):
            return bad
        with np.errstate(all="ignore"):  # absurd lambdas give inf/NaN, refused below
            w, logs, dw = self._scaled(lmbda, grad)
        if not (np.all(np.isfinite(w)) and np.all(np.isfinite(logs))
                and (dw is None or np.all(np.isfinite(dw)))):
            return bad
        q, t = np.linalg.qr(self._residual(w))
        diag = np.abs(np.diag(t))
        if not np.all(diag > 0):
            return bad
        with np.errstate(over="ignore", invalid="ignore"):
            val = n * np.sum(np.log(diag)) + n * np.sum(logs) - 0.5 * n * p * np.log(n)
            val += np.sum(self._const)
            val -= np.sum(np.where(self._shifted, 0.0, (lmbda - 1.0) * self.S))
        if not np.isfinite(val):
            return bad
        if not grad:
            return float(val)
        a = np.linalg.solve(t, q.T @ dw)
        g = n * np.diag(a)
        g = g - np.where(self._shifted, 0.0, self.S)
        return float(val), g

    def score(self, lmbda: NDArray[np.float64]) -> NDArray[np.float64]:
        """Gradient of :meth:`nll`."""
        return self.nll(lmbda, grad=True)[1]

    def llf_constant(self) -> float:
        """``llf = llf_constant - nll``: the Gaussian constant ``-n p (log(2 pi) + 1) / 2``."""
        return -0.5 * self.nobs * self.ncols * (np.log(2.0 * np.pi) + 1.0)


def hessian(problem: JointProblem, lmbda: NDArray[np.float64], h: float = 0.02,
            levels: int = 5) -> NDArray[np.float64]:
    """Hessian of the NLL: central differences of the analytic gradient, step halved
    ``levels`` times and extrapolated (Richardson), then symmetrised."""
    p = lmbda.shape[0]
    cols = []
    for k in range(p):
        table: list[NDArray[np.float64]] = []
        step = h
        for _ in range(levels):
            e = np.zeros(p)
            e[k] = step
            d = (problem.score(lmbda + e) - problem.score(lmbda - e)) / (2.0 * step)
            row = [d]
            for m, prev in enumerate(table[-1] if table else []):
                fac = 4.0 ** (m + 1)
                row.append((fac * row[m] - prev) / (fac - 1.0))
            table.append(row)  # type: ignore[arg-type]
            step /= 2.0
        cols.append(table[-1][-1])
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


def fit_joint_lambda(problem: JointProblem, start: NDArray[np.float64] | None = None) -> JointFit:
    """Minimise the joint NLL: quasi-Newton from the per-column MLEs, then Newton polish.

    The start is each column's own ML power (``mle_lambda``, design ignored). BFGS with the
    analytic gradient brings lambda close; Newton steps with the Richardson Hessian (each
    accepted only if the NLL does not rise beyond rounding) then make the gradient vanish to
    rounding level.
    """
    if start is None:
        start = mle_lambda(Sample.from_array(problem.y, problem.family)).lmbda
        start = np.where(np.isfinite(start), np.clip(start, -10.0, 10.0), 1.0)
    start = np.asarray(start, dtype=np.float64)

    def fun(lam):
        val, g = problem.nll(lam, grad=True)
        return val, g

    res = optimize.minimize(fun, start, jac=True, method="BFGS",
                            options={"gtol": 1e-9, "maxiter": 2000})
    lam = np.asarray(res.x, dtype=np.float64)
    val, g = problem.nll(lam, grad=True)
    noise = 1e-13 * max(1.0, abs(val))
    for _ in range(30):
        hmat = hessian(problem, lam)
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
    hmat = hessian(problem, lam)
    scale = np.sqrt(np.abs(np.diag(hmat)))
    ok = bool(np.all(np.isfinite(lam)) and np.all(np.abs(g) <= 1e-6 * np.maximum(scale, 1.0)
                                                  * problem.nobs ** 0.5))
    try:
        np.linalg.cholesky(hmat)
    except np.linalg.LinAlgError:
        ok = False
    return JointFit(lam, float(val), hmat, start, ok, g)
