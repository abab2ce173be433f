"""``fit_joint(..., bounds=)``: the joint powers maximised on a box, and the profile of one
power at a time with the others maximised inside the box.

The joint NLL (:mod:`boxcoxstat.core.joint`) is minimised on the box by
L-BFGS-B with its analytic gradient from the clipped unconstrained solution, then polished
by Newton steps on the powers strictly inside their bounds (the closed-form Hessian's block
of those powers), so the free powers solve their score equations to rounding. The profile
of power j, ``t -> min over the other powers in the box of NLL(lambda_j = t, others)``, is a
:class:`~boxcoxstat.core.profile.Profile` (values only) for
:func:`~boxcoxstat.core.inference.bounded_interval`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import optimize

__all__ = ["bounded_joint", "BoxedColumnProfiles"]


def _minimise(problem: Any, x0: NDArray[np.float64], lo: NDArray[np.float64],
              hi: NDArray[np.float64]) -> NDArray[np.float64]:
    """The NLL's minimum on the box ``[lo, hi]`` from ``x0`` (L-BFGS-B, then Newton on the
    free coordinates)."""
    box = [(float(a) if np.isfinite(a) else None, float(b) if np.isfinite(b) else None)
           for a, b in zip(lo, hi, strict=True)]
    res = optimize.minimize(lambda v: problem.nll(v, grad=True), x0, jac=True,
                            method="L-BFGS-B", bounds=box,
                            options={"ftol": 1e-15, "gtol": 1e-11, "maxiter": 2000})
    x = np.clip(res.x, lo, hi)
    for _ in range(6):  # Newton on the coordinates inside their bounds
        _, g = problem.nll(x, grad=True)
        inside = (x > lo) & (x < hi)
        if not inside.any():
            break
        if x.size == 1:
            h = np.atleast_2d(_second(problem, x))
        else:
            h = problem.hessian(x)
        idx = np.flatnonzero(inside)
        try:
            step = np.linalg.solve(h[np.ix_(idx, idx)], g[idx])
        except np.linalg.LinAlgError:
            break
        new = x.copy()
        new[idx] = np.clip(x[idx] - step, lo[idx], hi[idx])
        if not problem.nll(new) <= problem.nll(x) + 1e-12 * abs(problem.nll(x)):
            break
        done = np.all(np.abs(new - x) <= 1e-14 * np.maximum(1.0, np.abs(x)))
        x = new
        if done:
            break
    return x


def _second(problem: Any, x: NDArray[np.float64]) -> float:
    """The second derivative of a one-column NLL by central differences of its score."""
    h = 1e-5 * max(1.0, abs(float(x[0])))
    gp = problem.nll(x + h, grad=True)[1][0]
    gm = problem.nll(x - h, grad=True)[1][0]
    return float((gp - gm) / (2 * h))


def bounded_joint(problem: Any, free: NDArray[np.float64], limits: NDArray[np.float64]
                  ) -> tuple[NDArray[np.float64], float]:
    """The joint maximum on the box ``limits`` ((p, 2)) from the unconstrained ``free``."""
    lo, hi = limits[:, 0], limits[:, 1]
    x0 = np.clip(free, lo, hi)
    if np.array_equal(x0, free):
        return free.copy(), float(problem.nll(free))
    x = _minimise(problem, x0, lo, hi)
    return x, float(problem.nll(x))


class BoxedColumnProfiles:
    """The joint NLL profiled to one power at a time, the others minimised in their bounds
    (values only: :func:`~boxcoxstat.core.inference.bounded_interval` needs no score)."""

    def __init__(self, problem: Any, lmbda: NDArray[np.float64], limits: NDArray[np.float64]):
        self.problem, self.lmbda, self.limits = problem, np.asarray(lmbda, float), limits

    @property
    def ncols(self) -> int:
        return int(self.lmbda.size)

    def nobs(self) -> NDArray[np.float64]:
        return np.full(self.ncols, float(self.problem.nobs))

    def llf_offset(self) -> NDArray[np.float64]:
        return np.full(self.ncols, float(self.problem.llf_constant()))

    def subsample(self) -> None:
        return None

    def _one(self, t: float, j: int) -> float:
        p = self.ncols
        if p == 1:
            return float(self.problem.nll(np.array([t])))
        others = np.flatnonzero(np.arange(p) != j)
        lo, hi = self.limits[others, 0], self.limits[others, 1]

        class _Sub:
            def __init__(s, base: Any):
                s.base = base

            def nll(s, v: NDArray, grad: bool = False) -> Any:
                full = self.lmbda.copy()
                full[j], full[others] = t, v
                out = s.base.nll(full, grad=grad)
                return (out[0], out[1][others]) if grad else out

            def hessian(s, v: NDArray) -> NDArray:
                full = self.lmbda.copy()
                full[j], full[others] = t, v
                return s.base.hessian(full)[np.ix_(others, others)]

        x = _minimise(_Sub(self.problem), np.clip(self.lmbda[others], lo, hi), lo, hi)
        return float(_Sub(self.problem).nll(x))

    def evaluate(self, lmbda: ArrayLike, cols: ArrayLike, *, score: bool = True,
                 score_unit: Any = None) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        lam = np.atleast_1d(np.asarray(lmbda, dtype=np.float64))
        idx = np.broadcast_to(np.asarray(cols, dtype=np.intp), lam.shape)
        val = np.array([self._one(float(t), int(j)) for t, j in zip(lam, idx, strict=True)])
        return val, np.full(lam.shape, np.nan)
