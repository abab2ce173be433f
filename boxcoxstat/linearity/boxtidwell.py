"""Powers of predictors for linearity (Box & Tidwell 1962): the Gaussian profile likelihood.

The model ``y = X2 b + sum_j beta_j psi(lambda_j, x_j) + e`` (``X2`` holds the
intercept and the predictors that are not transformed, ``psi`` the Box-Cox power) has, with
the coefficients and the variance maximised out, the negative log-likelihood (constants
dropped)

.. math:: \\mathrm{NLL}(\\lambda) = \\tfrac{n}{2} \\log(\\mathrm{RSS}(\\lambda) / n),
   \\qquad \\partial_j \\mathrm{NLL} = -n\\, \\beta_j \\langle r, \\partial_{\\lambda_j}
   \\psi_j \\rangle / \\mathrm{RSS},

with ``r`` the residuals (``dRSS/dlambda_j = -2 beta_j <r, d psi_j/d lambda_j>`` at the least
squares coefficients). Box & Tidwell's iteration ``lambda <- lambda (1 + gamma/beta)`` (car's
``boxTidwell``) stops where the coefficient ``gamma`` of the constructed variable ``x^lambda
log x^lambda`` vanishes, which is where this gradient vanishes: its fixed point is the maximum
likelihood estimate, which is solved here to full precision.

Numerics: each predictor is kept as ``v = log(x / median x)``; ``psi(lambda, x)`` spans with
the intercept the same space as ``phi = expm1(lambda v)/lambda`` (continuous at 0, where it is
``v``), and ``d phi/d lambda = v^2 exprel'(lambda v)`` has no cancellation. One predictor is a
:class:`~boxcoxstat.core.profile.Profile` (the one solver and inference module serve it);
several present the joint objective of :mod:`~boxcoxstat.core.joint`, whose solver and
profile intervals serve them.

References
----------
Box, G. E. P. and Tidwell, P. W. (1962). Transformation of the independent variables.
Technometrics 4, 531-550.
Fox, J. and Weisberg, S. (2019). An R Companion to Applied Regression, 3rd ed. (car's
``boxTidwell``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from .._special import dexprel, exprel
from ..core.column_profiles import ColumnProfiles
from ..core.joint_solve import hessian as numerical_hessian
from ..core.likelihood import llf_constant
from ..core.profile import evaluate_pairs

__all__ = ["BoxTidwellProfile", "score_tests"]


def _ols(x: NDArray[np.float64], y: NDArray[np.float64]):
    q, r = np.linalg.qr(x)
    coef = np.linalg.solve(r, q.T @ y)
    return coef, y - x @ coef, r


def score_tests(y: NDArray[np.float64], x1: NDArray[np.float64],
                x2: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """car's score statistics: the t value of each constructed variable ``x log x`` added to
    the untransformed model (``y ~ x log x + x1 + x2``), with two-sided normal p-values."""
    xl = x1 * np.log(x1)
    design = np.column_stack([xl, x1, x2])
    coef, resid, r = _ols(design, y)
    df = y.shape[0] - design.shape[1]
    sigma2 = float(resid @ resid) / df
    rinv = np.linalg.inv(r)
    se = np.sqrt(sigma2 * np.sum(rinv * rinv, axis=1))
    k = x1.shape[1]
    z = coef[:k] / se[:k]
    return z, 2.0 * stats.norm.sf(np.abs(z))


@dataclass(frozen=True)
class BoxTidwellProfile:
    """The profile NLL of the predictors' powers (see the module docstring).

    ``x1`` (n, k) positive predictors to transform; ``x2`` (n, m) the other columns of the
    design, the intercept included.

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.linearity.boxtidwell import BoxTidwellProfile
    >>> from boxcoxstat.core.solve import solve
    >>> rng = np.random.default_rng(0)
    >>> x = rng.uniform(1, 10, 200)
    >>> y = 2 + 3 * np.sqrt(x) + rng.normal(scale=0.1, size=200)
    >>> prof = BoxTidwellProfile.build(y, x[:, None], np.ones((200, 1)))
    >>> round(float(solve(prof.single).lmbda[0]), 3)
    0.493
    """

    y: NDArray[np.float64]
    v: NDArray[np.float64]  # log(x1 / median)
    x2: NDArray[np.float64]
    family: str = "boxtidwell"

    @classmethod
    def build(cls, y: ArrayLike, x1: ArrayLike, x2: ArrayLike) -> BoxTidwellProfile:
        x1 = np.asarray(x1, dtype=np.float64)
        v = np.log(x1) - np.log(np.median(x1, axis=0))
        return cls(np.asarray(y, dtype=np.float64), v, np.asarray(x2, dtype=np.float64))

    # ------------------------------------------------------------------ the objective
    @property
    def nobs(self) -> int:
        return int(self.y.shape[0])

    @property
    def ncols(self) -> int:
        return int(self.v.shape[1])

    @property
    def single(self) -> _OnePredictor | None:
        """One predictor: its profile (a Profile for the one solver)."""
        return _OnePredictor(self) if self.ncols == 1 else None

    def llf_constant(self) -> float:
        return float(llf_constant(self.nobs))

    def fit(self, lmbda: NDArray[np.float64]) -> dict[str, Any]:
        """Least squares at ``lmbda``: coefficients of the phi columns, residuals, RSS."""
        with np.errstate(over="ignore", invalid="ignore"):
            a = lmbda * self.v
            phi = self.v * exprel(a)
        coef, resid, _ = _ols(np.column_stack([self.x2, phi]), self.y)
        return {"beta": coef[self.x2.shape[1]:], "resid": resid, "rss": float(resid @ resid),
                "a": a}

    def nll(self, lmbda: ArrayLike, grad: bool = False) -> Any:
        lam = np.asarray(lmbda, dtype=np.float64).reshape(-1)
        bad = (np.inf, np.full(self.ncols, np.nan)) if grad else np.inf
        if lam.shape != (self.ncols,) or not np.all(np.isfinite(lam)):
            return bad
        try:
            f = self.fit(lam)
        except np.linalg.LinAlgError:
            return bad
        n = float(self.nobs)
        val = 0.5 * n * (np.log(f["rss"]) - np.log(n))
        if not np.isfinite(val):
            return bad
        if not grad:
            return val
        with np.errstate(over="ignore", invalid="ignore"):
            chi = self.v * self.v * dexprel(f["a"])
        g = -n * f["beta"] * (f["resid"] @ chi) / f["rss"]
        return (val, g) if np.all(np.isfinite(g)) else bad

    def score(self, lmbda: ArrayLike) -> NDArray[np.float64]:
        return self.nll(lmbda, grad=True)[1]

    def hessian(self, lmbda: ArrayLike) -> NDArray[np.float64]:
        """Hessian of :meth:`nll`: Richardson differences of :meth:`score`."""
        return numerical_hessian(self, np.asarray(lmbda, dtype=np.float64))

    def column_profiles(self, lmbda: ArrayLike, cov: ArrayLike) -> Any:
        if self.single is not None:
            return self.single
        return ColumnProfiles(self, np.asarray(lmbda, dtype=np.float64).copy(),
                              np.asarray(cov, dtype=np.float64).copy())



@dataclass(frozen=True)
class _OnePredictor:
    """One predictor's power as a :class:`~boxcoxstat.core.profile.Profile`."""

    problem: BoxTidwellProfile

    @property
    def ncols(self) -> int:
        return 1

    def nobs(self) -> NDArray[np.float64]:
        return np.array([float(self.problem.nobs)])

    def llf_offset(self) -> NDArray[np.float64]:
        return np.array([self.problem.llf_constant()])

    def subsample(self) -> None:
        return None

    def evaluate(self, lmbda: ArrayLike, cols: ArrayLike = 0, *,
                 score: bool = True) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        def one(j: int, lam: float) -> tuple[float, float]:
            val, g = self.problem.nll([lam], grad=True)
            return val, g[0]

        return evaluate_pairs(lmbda, cols, one, score)
