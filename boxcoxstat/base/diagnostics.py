"""Diagnostics computed for display: normal QQ coordinates and reference lines.

Layer 4. Plotting draws what these functions return; it computes nothing itself.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import stats

__all__ = ["normal_qq", "qq_line", "profile_cutoff", "studentized_residuals", "qq_envelope",
           "lowess_curve"]


def normal_qq(y: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Theoretical normal quantiles and sorted data, with R's ``ppoints`` positions.

    ``p_i = (i - a) / (n + 1 - 2a)`` with ``a = 3/8`` for ``n <= 10`` and ``1/2`` otherwise
    (as R's ``qqnorm``).

    Examples
    --------
    >>> from boxcoxstat.base.diagnostics import normal_qq
    >>> z, y = normal_qq([3.0, 1.0, 2.0])
    >>> z.round(3), y
    (array([-0.869,  0.   ,  0.869]), array([1., 2., 3.]))
    """
    y = np.sort(np.asarray(y, dtype=np.float64))
    n = y.size
    a = 3.0 / 8.0 if n <= 10 else 0.5
    p = (np.arange(1, n + 1) - a) / (n + 1 - 2 * a)
    return stats.norm.ppf(p), y


def qq_line(y: ArrayLike) -> tuple[float, float]:
    """Intercept and slope of the line through the first and third quartiles (R's ``qqline``)."""
    y = np.asarray(y, dtype=np.float64)
    q1, q3 = np.quantile(y, [0.25, 0.75])
    z1, z3 = stats.norm.ppf([0.25, 0.75])
    slope = (q3 - q1) / (z3 - z1)
    return float(q1 - slope * z1), float(slope)


def profile_cutoff(llf_max: float, alpha: float = 0.05) -> float:
    """Log-likelihood level ``llf_max - chi2_1(1 - alpha)/2`` that bounds the profile interval."""
    return float(llf_max - 0.5 * stats.chi2.isf(alpha, 1))


def studentized_residuals(resid: ArrayLike, q: ArrayLike, scale: float) -> NDArray[np.float64]:
    """Internally studentized residuals ``e_i / (s sqrt(1 - h_ii))`` of a least-squares fit.

    ``resid`` are the (weighted) residuals, ``q`` an orthonormal basis of the (weighted)
    design's column space (so the leverages are the row norms of ``q``), ``scale`` = s^2.
    """
    q = np.asarray(q, dtype=np.float64)
    h = np.einsum("ij,ij->i", q, q)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(resid, dtype=np.float64) / np.sqrt(scale * (1.0 - h))


def qq_envelope(q: ArrayLike, *, nsim: int = 199, alpha: float = 0.05,
                random_state: Any = None) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Pointwise simulated envelope of the sorted studentized residuals (Atkinson 1985).

    Normal responses are simulated ``nsim`` times for the design spanned by ``q``, their
    studentized residuals sorted, and the ``alpha/2`` and ``1 - alpha/2`` quantiles of each
    order statistic returned (what R's ``car::qqPlot(..., simulate=TRUE)`` draws).

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.base.diagnostics import qq_envelope
    >>> q, _ = np.linalg.qr(np.column_stack([np.ones(20), np.arange(20.0)]))
    >>> lo, hi = qq_envelope(q, nsim=99, random_state=0)
    >>> lo.shape, bool(np.all(lo < hi))
    ((20,), True)
    """
    q = np.asarray(q, dtype=np.float64)
    n, k = q.shape
    rng = np.random.default_rng(random_state)
    z = rng.standard_normal((n, nsim))
    e = z - q @ (q.T @ z)
    s2 = np.einsum("ij,ij->j", e, e) / (n - k)
    h = np.einsum("ij,ij->i", q, q)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.sort(e / np.sqrt(np.outer(1.0 - h, s2)), axis=0)
    lo, hi = np.quantile(r, [alpha / 2.0, 1.0 - alpha / 2.0], axis=1)
    return lo, hi


def lowess_curve(x: ArrayLike, y: ArrayLike, frac: float = 2.0 / 3.0
                 ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """statsmodels' lowess smoother of ``y`` on ``x`` (R's ``lowess`` default span 2/3),
    sorted by ``x``."""
    from statsmodels.nonparametric.smoothers_lowess import lowess

    out = lowess(np.asarray(y, dtype=np.float64), np.asarray(x, dtype=np.float64), frac=frac)
    return out[:, 0], out[:, 1]
