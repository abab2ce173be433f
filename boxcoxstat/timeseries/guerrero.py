"""Guerrero's (1993) criterion for a time series' Box-Cox power, as forecast defines it.

The series is cut into consecutive subseries of ``period`` observations (at least 2;
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
solver's root finder (forecast uses R's ``optimize``, good to about 1e-4). Every step works on a
matrix of series at once (one row per series, :func:`guerrero_lambdas`): one series is a
matrix of one row.

:func:`loglik_lambdas` is forecast's other method (``bcloglik``) for many series of one length:
the profile likelihood of the Box-Cox power of the response of one regression (trend and
seasonal dummies, the same design for every series), each series' score solved on
``[lower, upper]`` at once.

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

from ..core.kernel import phi_chi
from ..core.roots import find_root

__all__ = ["Subseries", "subseries", "subseries_matrix", "guerrero_cv", "guerrero_lambda",
           "guerrero_lambdas", "loglik_lambdas"]

GRID = 61  # criterion values scanned on [lower, upper] before the root is closed


@dataclass(frozen=True)
class Subseries:
    """Means and standard deviations of the subseries (logs), and how the series was cut.

    ``log_mean`` and ``log_sd`` are vectors for one series (:func:`subseries`) and matrices
    with one row per series for many (:func:`subseries_matrix`)."""

    log_mean: NDArray[np.float64]
    log_sd: NDArray[np.float64]
    period: int
    n_used: int
    n_dropped: int


def subseries_matrix(x: ArrayLike, period: int) -> Subseries:
    """forecast's cut of every column of ``x`` (one series per column, all of one length,
    oldest first, as a wide DataFrame holds them).

    Subseries of ``max(2, period)`` values end at the last observation; the columns must be
    positive and hold at least two subseries (callers check). ``log_mean`` and ``log_sd`` have
    shape (subseries, series). A subseries of equal values has standard deviation 0
    (``log_sd = -inf``): its ratio ``r_k`` is 0 at every lambda and still counts in the
    criterion's mean and standard deviation, as in forecast's ``guer.cv``.
    """
    x = np.asarray(x, dtype=np.float64)
    length = int(round(max(2, period)))
    k = x.shape[0] // length
    used = x[x.shape[0] - k * length:].reshape(k, length, x.shape[1])
    mean = used.mean(axis=1)
    dev = used - mean[:, None, :]
    dev -= dev.mean(axis=1)[:, None, :]
    dev *= dev
    sd = np.sqrt(dev.sum(axis=1) / (length - 1))
    sd[used.min(axis=1) == used.max(axis=1)] = 0.0  # exactly, as R's two-pass sd gives
    with np.errstate(divide="ignore"):  # log 0 = -inf: that ratio is 0 at every lambda
        return Subseries(np.log(mean), np.log(sd), length, k * length,
                         x.shape[0] - k * length)


def subseries(x: ArrayLike, period: int) -> Subseries:
    """forecast's cut of one series: :func:`subseries_matrix` of one column, as vectors."""
    sub = subseries_matrix(np.asarray(x, dtype=np.float64).reshape(-1, 1), period)
    return Subseries(sub.log_mean[:, 0], sub.log_sd[:, 0], sub.period, sub.n_used,
                     sub.n_dropped)


def _w(log_mean: NDArray[np.float64], log_sd: NDArray[np.float64],
       lmbda: NDArray[np.float64]) -> NDArray[np.float64]:
    """``r_k / max r`` with the subseries first: ``log_mean``/``log_sd`` of shape (subseries,
    series), ``lmbda`` (series, lambdas) -> (subseries, series, lambdas). Reductions over
    the first axis are then elementwise operations on whole (series, lambdas) planes."""
    log_r = log_sd[:, :, None] + (lmbda[None, :, :] - 1.0) * log_mean[:, :, None]
    log_r -= np.max(log_r, axis=0)
    return np.exp(log_r, out=log_r)


def _cv(log_mean: NDArray[np.float64], log_sd: NDArray[np.float64],
        lmbda: NDArray[np.float64]) -> NDArray[np.float64]:
    """The criterion, (series, lambdas), from the subseries-first logs (see ``_w``)."""
    w = _w(log_mean, log_sd, lmbda)
    mean = w.mean(axis=0)
    w -= mean
    w *= w
    return np.sqrt(w.sum(axis=0) / (w.shape[0] - 1)) / mean


def guerrero_cv(sub: Subseries, lmbda: ArrayLike) -> NDArray[np.float64]:
    """The criterion ``sd(r)/mean(r)`` at each ``lmbda`` (one series).

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.timeseries.guerrero import guerrero_cv, subseries
    >>> x = np.repeat([1.0, 4.0, 9.0], 4) * np.tile([0.9, 1.1, 1.0, 1.0], 3)
    >>> guerrero_cv(subseries(x, 4), [0.0, 1.0]).round(4)    # sd proportional to the mean
    array([0.   , 0.866])
    """
    lam = np.atleast_1d(np.asarray(lmbda, dtype=np.float64))
    return _cv(sub.log_mean.reshape(-1, 1), sub.log_sd.reshape(-1, 1), lam[None, :])[0]


def _dlog_cv(log_mean: NDArray[np.float64], log_sd: NDArray[np.float64],
             lmbda: NDArray[np.float64]) -> NDArray[np.float64]:
    """``d log CV / d lambda`` for each series at its own ``lmbda`` (series, lambdas), from
    the subseries-first logs (see ``_w``)."""
    w = _w(log_mean, log_sd, lmbda)
    wa = w * log_mean[:, :, None]
    sw, swa = w.sum(axis=0), wa.sum(axis=0)
    k = w.shape[0]
    w -= sw / k
    wa -= swa / k
    wa *= w
    w *= w
    cov = wa.sum(axis=0)
    return cov / w.sum(axis=0) - swa / sw


def guerrero_lambdas(sub: Subseries, lower: float, upper: float
                     ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The lambda in ``[lower, upper]`` that minimises each series' criterion, and the
    criterion there (``sub`` from :func:`subseries_matrix`; every series needs two
    subseries that vary).

    The criterion is scanned on a grid of ``GRID`` points; around each series' smallest
    value the root of its derivative is closed by Chandrupatla's method (``roots.find_root``,
    all series at once); a minimum at an end of the interval is reported there.

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.timeseries.guerrero import guerrero_lambdas, subseries_matrix
    >>> level = np.repeat([1.0, 4.0, 9.0, 16.0], 4)
    >>> x = np.column_stack([level * np.tile([0.9, 1.1, 1.0, 1.0], 4),  # sd ~ mean: log
    ...                      level + np.tile([-0.1, 0.1, 0.0, 0.0], 4)])  # constant sd: none
    >>> lam, cv = guerrero_lambdas(subseries_matrix(x, 4), -1.0, 2.0)
    >>> lam.round(6), cv.round(6)
    (array([0., 1.]), array([0., 0.]))
    """
    lm = sub.log_mean.reshape(sub.log_mean.shape[0], -1)  # (subseries, series)
    ls = sub.log_sd.reshape(lm.shape)
    s = lm.shape[1]
    grid = np.linspace(lower, upper, GRID)
    cv = _cv(lm, ls, np.broadcast_to(grid, (s, GRID)))
    k = np.argmin(cv, axis=1)
    lo, hi = grid[np.maximum(k - 1, 0)], grid[np.minimum(k + 1, GRID - 1)]
    d = _dlog_cv(lm, ls, np.column_stack([lo, hi]))
    d0, d1 = d[:, 0], d[:, 1]
    end = [(k == 0) & (d0 >= 0), (k == GRID - 1) & (d1 <= 0), d0 >= 0, d1 <= 0]
    inside = ~np.logical_or.reduce(end)  # else the minimum is at (or next to) an end
    lam = np.select(end, [lower, upper, lower, upper], default=np.nan)
    at = np.flatnonzero(inside)
    if at.size:
        def f(t: NDArray[np.float64], idx: NDArray[np.intp]) -> NDArray[np.float64]:
            j = at[idx]
            return _dlog_cv(lm[:, j], ls[:, j], t[:, None])[:, 0]

        res = find_root(f, lo[at], hi[at], d[at, 0], d[at, 1], xatol=1e-14)
        lam[at] = res.x
    return lam, _cv(lm, ls, lam[:, None])[:, 0]


def guerrero_lambda(sub: Subseries, lower: float, upper: float) -> tuple[float, float]:
    """:func:`guerrero_lambdas` for one series: its lambda and criterion."""
    lam, cv = guerrero_lambdas(sub, lower, upper)
    return float(lam[0]), float(cv[0])


LOGLIK_REACH = 300.0  # |lambda| max|v| beyond this a series goes to the one-series path


def loglik_lambdas(x: ArrayLike, design: ArrayLike, lower: float, upper: float
                   ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.bool_]]:
    """forecast's ``method = "loglik"`` for many series of one length at once.

    ``x`` holds one positive series per column; ``design`` is the regression shared by all
    (forecast's trend and seasonal dummies, with an intercept). With ``v = log x - mean(log
    x)`` per series and ``phi = expm1(lambda v)/lambda``, the profile negative log-likelihood
    is ``n/2 log RSS(phi) - lambda sum(v)`` up to constants (Box & Cox 1964: the intercept
    absorbs the shift and the factor ``x_ref^lambda`` leaves the log as a term linear in
    lambda), and its score ``n <M phi, chi>/RSS(phi) - sum(v)`` (``M`` the residual
    projector, ``chi = d phi/d lambda`` from ``kernel.phi_chi``) is solved on ``[lower,
    upper]`` for all series at once by Chandrupatla's method; an end whose score points
    outwards is the answer there, as clipping the unconstrained optimum gives.

    Returns the lambdas, the maximised log-likelihoods (full normal constants, as
    ``response.ResponseProfile``) and a mask of the series solved here; a series whose
    log-range times ``max(|lower|, |upper|)`` exceeds ``LOGLIK_REACH`` (overflow), or below
    1e-6 (too little resolution for the plain log-ratio), is left unsolved (NaN) for the
    one-series path.

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.timeseries.guerrero import loglik_lambdas
    >>> t = np.arange(1.0, 41.0)
    >>> design = np.column_stack([np.ones(40), t])
    >>> x = np.column_stack([np.exp(0.05 * t + 0.1 * np.sin(t)), 1 + t + np.cos(t)])
    >>> lam, llf, ok = loglik_lambdas(x, design, -1.0, 2.0)
    >>> ok.tolist(), bool(lam[0] < 0.5 < lam[1])
    ([True, True], True)
    """
    x = np.asarray(x, dtype=np.float64)
    n, s = x.shape
    q = np.linalg.qr(np.asarray(design, dtype=np.float64))[0]
    logx = np.log(x)
    ref = logx.mean(axis=0)
    v = logx - ref
    span = np.max(np.abs(v), axis=0)
    reach = max(abs(lower), abs(upper))
    ok = (span * reach < LOGLIK_REACH) & (span > 1e-6)
    lam = np.full(s, np.nan)
    llf = np.full(s, np.nan)
    cols = np.flatnonzero(ok)
    if cols.size == 0:
        return lam, llf, ok
    v = v[:, cols] if cols.size < s else v
    span, sum_v = span[cols], v.sum(axis=0)

    def resid(phi: NDArray[np.float64]) -> NDArray[np.float64]:
        return phi - q @ (q.T @ phi)

    def score(t: NDArray[np.float64], idx: NDArray[np.intp]) -> NDArray[np.float64]:
        vv = v if idx.size == v.shape[1] else v[:, idx]
        phi, chi = phi_chi(vv, t, span[idx])
        # <M phi, chi> and |M phi|^2 from the projections' coefficients (13 rows, not n)
        pq, cq = q.T @ phi, q.T @ chi
        pp = np.einsum("ij,ij->j", phi, phi)
        rss = pp - np.einsum("ij,ij->j", pq, pq)
        cross = np.einsum("ij,ij->j", phi, chi) - np.einsum("ij,ij->j", pq, cq)
        close = np.flatnonzero(rss < 1e-6 * pp)  # the fit explains almost all: cancellation
        if close.size:  # those columns' residuals formed explicitly
            r = resid(phi[:, close])
            rss[close] = np.einsum("ij,ij->j", r, r)
            cross[close] = np.einsum("ij,ij->j", r, chi[:, close])
        return n * cross / rss - sum_v[idx]

    every = np.arange(cols.size)
    g_lo = score(np.full(cols.size, float(lower)), every)
    g_hi = score(np.full(cols.size, float(upper)), every)
    out = np.where(g_lo >= 0, float(lower), np.where(g_hi <= 0, float(upper), np.nan))
    at = np.flatnonzero(np.isnan(out))
    if at.size:
        res = find_root(lambda t, idx: score(t, at[idx]), np.full(at.size, float(lower)),
                        np.full(at.size, float(upper)), g_lo[at], g_hi[at], xatol=1e-12,
                        predict=True)
        out[at] = res.x
    phi, _ = phi_chi(v, out, span, score=False)
    r = resid(phi)
    log_rss = np.log(np.einsum("ij,ij->j", r, r)) + 2.0 * out * ref[cols]
    lam[cols] = out
    llf[cols] = (-0.5 * n * (np.log(2.0 * np.pi) + 1.0 + log_rss - np.log(n))
                 + (out - 1.0) * logx[:, cols].sum(axis=0))
    return lam, llf, ok
