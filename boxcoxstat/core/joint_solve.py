"""The joint solver: Newton's method with the closed-form Hessian, from the columns' own fits.

:func:`fit_joint_lambda` minimises a joint NLL (:class:`~boxcoxstat.core.joint.
JointObjective`: :class:`~boxcoxstat.core.joint.JointProfile`, its form in units
``JointInUnits``, bcnPower's ``shifted.JointShiftedProfile``, Box-Tidwell's profile) and
returns a :class:`JointFit`; :func:`hessian` is the numerical Hessian of problems without a
closed-form one. One column is solved by the one solver (``solve.solve``) on its own profile.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import optimize

from .curvature import curvature, richardson_slope
from .joint import JointObjective
from .solve import solve

__all__ = ["JointFit", "fit_joint_lambda", "hessian"]


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
    # per column, the unit the solver worked in (``JointInUnits``); None: lambda itself
    unit: NDArray[np.float64] | None = None

    def covariance(self) -> NDArray[np.float64]:
        """The inverse of :attr:`hessian`, formed in the solver's units (where the Hessian in
        lambda may be near 1e-300); raises ``LinAlgError`` if it is singular."""
        if self.unit is None:
            return np.asarray(np.linalg.inv(self.hessian), dtype=np.float64)
        uu = np.outer(self.unit, self.unit)
        with np.errstate(all="ignore"):
            return np.asarray(np.linalg.inv(self.hessian / uu) / uu, dtype=np.float64)


def _one_column(problem: JointObjective) -> JointFit:
    """One column: the one solver on the column's own profile (exact to rounding), and its
    curvature as ``bcs.fit`` / ``bcs.lm`` compute it (``curvature.curvature``)."""
    assert problem.single is not None
    sol = solve(problem.single)
    lam = sol.lmbda.copy()
    val, g = problem.nll(lam, grad=True)
    hmat = curvature(problem.single, lam).reshape(1, 1)
    ok = bool(sol.converged[0]) and np.isfinite(val) and bool(hmat[0, 0] > 0)
    return JointFit(lam, float(sol.nll[0]), hmat, lam.copy(), ok, np.atleast_1d(g))


NEWTON_SWITCH = 1e-4  # Gram-matrix Newton steps until a step is this small (relative) ...
NEWTON_DONE = 1e-11  # ... then QR-based steps until one is this small
NEWTON_LAST = 1e-7  # a QR-based step this small is the last (quadratic model at its start)
NEWTON_MAX_ITER = 50


def _converged(problem: JointObjective, lam: NDArray[np.float64], g: NDArray[np.float64],
               hmat: NDArray[np.float64]) -> bool:
    """The gradient vanishes to rounding level and the Hessian is positive definite."""
    scale = np.sqrt(np.abs(np.diag(hmat)))
    ok = bool(np.all(np.isfinite(lam)) and np.all(np.abs(g) <= 1e-6 * np.maximum(scale, 1.0)
                                                  * problem.nobs ** 0.5))
    try:
        np.linalg.cholesky(hmat)
    except np.linalg.LinAlgError:
        ok = False
    return ok


def _newton_step(g: NDArray[np.float64], hmat: NDArray[np.float64],
                 lam: NDArray[np.float64]) -> tuple[NDArray[np.float64], float] | None:
    """The Newton step and its size relative to lambda; ``None`` unless the Hessian is
    positive definite and everything finite."""
    if not (np.all(np.isfinite(g)) and np.all(np.isfinite(hmat))):
        return None
    try:
        np.linalg.cholesky(hmat)
    except np.linalg.LinAlgError:
        return None
    step = -np.asarray(np.linalg.solve(hmat, g), dtype=np.float64)
    return step, float(np.max(np.abs(step))) / max(1.0, float(np.max(np.abs(lam))))


def _newton(problem: JointObjective, start: NDArray[np.float64]) -> JointFit | None:
    """Newton's method with the exact Hessian (``second_order``), or ``None`` if the problem
    has none or a step fails (a Hessian that is not positive definite, a line search that
    finds no decrease): the caller then falls back to BFGS.

    Each iteration is one evaluation of the columns and their first two derivatives. Steps
    use the Gram-matrix form (one matrix product) while they are longer than
    ``NEWTON_SWITCH`` relative to lambda, each halved until the NLL falls by at least
    ``1e-4`` of the decrease its gradient promises (Armijo; within rounding of the value)
    and at most ``max(1, |lambda|)`` long. A shorter step is in Newton's quadratic region
    (its error after the step is of the order of its square): it is taken as it is, and the
    QR form follows. A QR-form step below ``NEWTON_DONE`` ends the fit where it is; one
    below ``NEWTON_LAST`` is the last: the fit ends at its end, with the NLL, gradient and
    Hessian of the quadratic model at its start (exact there to far below rounding for the
    NLL and the gradient, and to the order of the step, 1e-7 relative at most, for the
    Hessian). Typically two evaluations of the data after the starts: the Gram form at the
    start, the QR form after one step.
    """
    second = getattr(problem, "second_order", None)
    if second is None:
        return None
    start = np.asarray(start, dtype=np.float64)
    lam = start.copy()
    exact = False
    val, g, hmat = second(lam, exact=False)
    for _ in range(NEWTON_MAX_ITER):
        got = _newton_step(g, hmat, lam) if np.isfinite(val) else None
        if got is None:
            return None
        step, size = got
        if exact and size <= NEWTON_DONE:
            return JointFit(lam, float(val), hmat, start, True, g)
        if exact and size <= NEWTON_LAST:
            # the last step: Newton's error after it is of the order of its square (below
            # 1e-13), and the NLL there is the quadratic model's, val + g.step / 2, whose
            # error (the step cubed times the third derivative, 1e-21 n at most) lies far
            # below the NLL's rounding (1e-16 |NLL|)
            new = lam + step
            return JointFit(new, float(val + 0.5 * float(g @ step)), hmat, start, True,
                            g + hmat @ step)
        if not exact and size <= NEWTON_SWITCH:
            exact = True
            lam = lam + step
            val, g, hmat = second(lam, exact=True)
            continue
        if size > 1.0:
            step = step / size
        slope = float(g @ step)
        noise = 1e-12 * max(1.0, abs(val))
        t = 1.0
        for _ in range(40):
            new = lam + t * step
            nval, ng, nh = second(new, exact=exact)
            if np.isfinite(nval) and nval <= val + 1e-4 * t * slope + noise:
                break
            t *= 0.5
        else:
            return None
        lam, val, g, hmat = new, nval, ng, nh
    return None


def fit_joint_lambda(problem: JointObjective,
                     start: NDArray[np.float64] | None = None) -> JointFit:
    """Minimise the joint NLL: Newton with the exact Hessian from the per-column MLEs
    (:func:`_newton`), else quasi-Newton and a Newton polish.

    One column is solved as a sample or a regression (the one solver). Otherwise the start is
    each column's own ML power given the design (:meth:`JointProfile.own_powers`). A problem
    with a closed-form Hessian (``second_order``) is solved by Newton's method, typically
    two evaluations of the columns and their derivatives after the starts (more where the
    columns are strongly dependent and the joint powers far from their own). Otherwise (or if
    a Newton step fails) BFGS with the analytic gradient brings lambda close (seeded with the
    inverse Hessian at the start), and Newton steps with the Hessian at that point (each
    accepted only if the NLL does not rise beyond rounding) make the gradient vanish to
    rounding level.
    """
    if problem.single is not None and start is None:
        return _one_column(problem)
    scaled = getattr(problem, "in_units", lambda: None)()
    if scaled is not None:  # in lambda * unit, where gradient and Hessian are of order one
        u = scaled.unit
        mu = fit_joint_lambda(scaled, None if start is None else np.asarray(start) * u)
        uu = np.outer(u, u)
        with np.errstate(all="ignore"):
            return JointFit(mu.lmbda / u, mu.nll, mu.hessian * uu, mu.start / u,
                            mu.converged, mu.gradient * u, u)
    if start is None:
        start = problem.own_powers()  # type: ignore[attr-defined]
    start = np.asarray(start, dtype=np.float64)
    fit = _newton(problem, start)
    if fit is not None and _converged(problem, fit.lmbda, fit.gradient, fit.hessian):
        return fit

    def fun(lam):
        val, g = problem.nll(lam, grad=True)
        return val, g

    opts: dict = {"gtol": 1e-9, "maxiter": 2000}
    with np.errstate(all="ignore"):
        h0 = problem.hessian(start)  # the analytic Hessian at the start seeds BFGS
    try:  # symmetric before the test: scipy checks the matrix it is given, all of it
        hinv = np.linalg.inv(h0)
        hinv = 0.5 * (hinv + hinv.T)
        if np.all(np.isfinite(hinv)) and np.all(np.linalg.eigvalsh(hinv) > 0):
            opts["hess_inv0"] = hinv
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
    return JointFit(lam, float(val), hmat, start, _converged(problem, lam, g, hmat), g)
