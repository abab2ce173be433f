"""Guerrero's (1993) criterion for a time series' Box-Cox power, as forecast defines it.

Layer 3. The series is cut into consecutive subseries of ``period`` observations (at least 2;
leading observations that do not fill a subseries are dropped, so the last observation ends
the last subseries: forecast's ``guer.cv``). With ``m_k`` and ``s_k`` the mean and standard
deviation (divisor ``len - 1``) of subseries k, the power that stabilises the variance makes
``r_k = s_k / m_k^(1 - lambda)`` constant; the criterion is their coefficient of variation

.. math:: \\mathrm{CV}(\\lambda) = \\mathrm{sd}(r) / \\mathrm{mean}(r),

``sd`` with divisor ``K - 1`` (a subseries of equal values has ``r_k = 0`` at every lambda
and is kept, as forecast keeps it). It is scale-free in ``r``, so it is evaluated on ``w_k =
r_k / max r`` from ``log r_k = log s_k + (lambda - 1) log m_k`` (no power is formed), and its
derivative ``d log CV / d lambda = Cov(w, w a)/Var(w) - sum(w a)/sum(w)`` (``a = log m``) is
exact, so the minimiser is the root of that derivative, bracketed on a grid and closed by the
solver's root finder (forecast uses R's ``optimize``, good to about 1e-4).

References
----------
Guerrero, V. M. (1993). Time-series analysis supported by power transformations. Journal of
Forecasting 12, 37-48.
Hyndman, R. J. and Khandakar, Y. (2008). Automatic time series forecasting: the forecast
package for R. Journal of Statistical Software 27(3).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .roots import find_root

__all__ = ["Subseries", "subseries", "guerrero_cv", "guerrero_lambda"]

GRID = 401  # criterion values scanned on [lower, upper] before the root is closed


@dataclass(frozen=True)
class Subseries:
    """Means and standard deviations of the subseries (logs), and how the series was cut."""

    log_mean: NDArray[np.float64]
    log_sd: NDArray[np.float64]
    period: int
    n_used: int
    n_dropped: int


def subseries(x: ArrayLike, period: int) -> Subseries:
    """forecast's cut: subseries of ``max(2, period)`` values ending at the last observation.

    The series must be positive and hold at least two subseries (callers check). A subseries
    of equal values has standard deviation 0 (``log_sd = -inf``): its ratio ``r_k`` is 0 at
    every lambda and still counts in the criterion's mean and standard deviation, as in
    forecast's ``guer.cv``.
    """
    x = np.asarray(x, dtype=np.float64).reshape(-1)
    length = int(round(max(2, period)))
    k = x.size // length
    used = x[x.size - k * length:].reshape(k, length)
    mean = used.mean(axis=1)
    dev = used - mean[:, None]
    dev -= dev.mean(axis=1)[:, None]
    sd = np.sqrt(np.sum(dev * dev, axis=1) / (length - 1))
    sd[used.min(axis=1) == used.max(axis=1)] = 0.0  # exactly, as R's two-pass sd gives
    with np.errstate(divide="ignore"):  # log 0 = -inf: that ratio is 0 at every lambda
        return Subseries(np.log(mean), np.log(sd), length, k * length, x.size - k * length)


def _w(sub: Subseries, lmbda: NDArray[np.float64]) -> NDArray[np.float64]:
    """``r_k / max r`` for each lambda (rows)."""
    log_r = sub.log_sd[None, :] + (lmbda[:, None] - 1.0) * sub.log_mean[None, :]
    return np.exp(log_r - np.max(log_r, axis=1, keepdims=True))


def guerrero_cv(sub: Subseries, lmbda: ArrayLike) -> NDArray[np.float64]:
    """The criterion ``sd(r)/mean(r)`` at each ``lmbda``.

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.core.guerrero import guerrero_cv, subseries
    >>> x = np.repeat([1.0, 4.0, 9.0], 4) * np.tile([0.9, 1.1, 1.0, 1.0], 3)
    >>> guerrero_cv(subseries(x, 4), [0.0, 1.0]).round(4)    # sd proportional to the mean
    array([0.   , 0.866])
    """
    lam = np.atleast_1d(np.asarray(lmbda, dtype=np.float64))
    w = _w(sub, lam)
    mean = w.mean(axis=1)
    dev = w - mean[:, None]
    return np.sqrt(np.sum(dev * dev, axis=1) / (w.shape[1] - 1)) / mean


def _dlog_cv(sub: Subseries, lmbda: NDArray[np.float64]) -> NDArray[np.float64]:
    w = _w(sub, lmbda)
    wa = w * sub.log_mean[None, :]
    dw = w - w.mean(axis=1, keepdims=True)
    dwa = wa - wa.mean(axis=1, keepdims=True)
    return np.sum(dw * dwa, axis=1) / np.sum(dw * dw, axis=1) - wa.sum(axis=1) / w.sum(axis=1)


def guerrero_lambda(sub: Subseries, lower: float, upper: float) -> tuple[float, float]:
    """The lambda in ``[lower, upper]`` that minimises the criterion, and the criterion there.

    The criterion is scanned on a grid; around the smallest value the root of its derivative
    is closed by Chandrupatla's method (``roots.find_root``); a minimum at an end of the
    interval is reported there.
    """
    grid = np.linspace(lower, upper, GRID)
    cv = guerrero_cv(sub, grid)
    k = int(np.argmin(cv))
    lo, hi = grid[max(k - 1, 0)], grid[min(k + 1, GRID - 1)]
    d = _dlog_cv(sub, np.array([lo, hi]))
    if k == 0 and d[0] >= 0:
        return float(lower), float(cv[0])
    if k == GRID - 1 and d[1] <= 0:
        return float(upper), float(cv[-1])
    if d[0] >= 0 or d[1] <= 0:  # the minimum is at a grid point next to an end
        lam = float(lower if d[0] >= 0 else upper)
        return lam, float(guerrero_cv(sub, lam)[0])

    def f(t: NDArray[np.float64], idx: NDArray[np.intp]) -> NDArray[np.float64]:
        return _dlog_cv(sub, t)

    res = find_root(f, np.array([lo]), np.array([hi]), d[:1], d[1:], xatol=1e-14)
    lam = float(res.x[0])
    return lam, float(guerrero_cv(sub, lam)[0])
