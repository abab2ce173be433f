"""Diagnostics computed for display: normal QQ coordinates and reference lines.

Layer 4. Plotting draws what these functions return; it computes nothing itself.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import stats

__all__ = ["normal_qq", "qq_line", "profile_cutoff"]


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
