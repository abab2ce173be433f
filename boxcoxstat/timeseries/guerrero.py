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

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._special import A2_SERIES_RADIUS
from ..core.kernel import phi_chi
from ..core.roots import find_root

__all__ = ["Subseries", "subseries", "subseries_matrix", "guerrero_cv", "guerrero_lambda",
           "guerrero_lambdas", "loglik_lambdas"]

GRID = 61  # criterion values scanned on [lower, upper] before the root is closed
_GRID_SERIES = 256  # series per block of the scan: 10 subseries x 256 x 61 values (1.2 MB)
# stay in cache, where one (10, 10000, 61) array took twice the time (45 -> 23 ms)


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
    cv = np.empty((s, GRID))
    for j in range(0, s, _GRID_SERIES):  # blocks of series: (subseries, series, GRID) in cache
        cols = slice(j, j + _GRID_SERIES)
        cv[cols] = _cv(lm[:, cols], ls[:, cols], np.broadcast_to(grid, (cv[cols].shape[0], GRID)))
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
MODEL_TERMS = 10  # K: the Taylor model of phi at lambda = 0 keeps lambda^0 ... lambda^K
MODEL_REACH = 2.0  # |lambda| max|v| up to which the model's root starts the score's solver
MODEL_XTOL = 1e-14  # a model root is accepted when its proven truncation error is below this
_BLOCK = 256  # series per block of the model's pass (its temporaries stay in cache)
_CELLS = 1 << 15  # values per series and block (longer series: blocks of rows)
_PROJ_BLOCK = 160  # columns per product with the design's basis (one BLAS thread each)


def _qt(q: NDArray[np.float64], a: NDArray[np.float64]) -> NDArray[np.float64]:
    """``q.T @ a`` in blocks of columns small enough for BLAS to run each in one thread (the
    one threaded product costs ten times more on a busy machine)."""
    out = np.empty((q.shape[1], a.shape[1]))
    qt = np.ascontiguousarray(q.T)
    for j in range(0, a.shape[1], _PROJ_BLOCK):
        np.matmul(qt, a[:, j : j + _PROJ_BLOCK], out=out[:, j : j + _PROJ_BLOCK])
    return out


def _resid(q: NDArray[np.float64], a: NDArray[np.float64]) -> NDArray[np.float64]:
    """``a - q (q' a)``, both products in one-thread column blocks (see ``_qt``)."""
    c = _qt(q, a)
    out = np.empty(a.shape)
    for j in range(0, a.shape[1], _PROJ_BLOCK):
        cols = slice(j, j + _PROJ_BLOCK)
        np.matmul(q, c[:, cols], out=out[:, cols])
        np.subtract(a[:, cols], out[:, cols], out=out[:, cols])
    return out


def _taylor_model(v: NDArray[np.float64], span: NDArray[np.float64], q: NDArray[np.float64]
                  ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The residual sum of squares of each series' Taylor model of ``phi`` at lambda = 0, as
    a polynomial in ``tau = lambda * span`` (one row of coefficients per series, lowest first).

    With ``w = v/span`` (``|w| <= 1``), ``phi(lambda) = span sum_k tau^k u_k`` with ``u_k =
    w^(k+1)/(k+1)!``; the model keeps ``k <= K`` (``MODEL_TERMS``), so ``RSS(phi) = span^2
    sum_m H_m tau^m`` with ``H_m = sum_(j+k=m) <M u_j, M u_k>``. Each ``<M u_j, M u_k> =
    <u_j, u_k> - <Q'u_j, Q'u_k>`` takes the power sum ``sum w^(j+k+2)`` and the projections
    ``Q'w^(k+1)``: one pass of products over the data, no transcendental function, in
    blocks of at most ``_BLOCK`` series and ``_CELLS`` values per series. Returns the
    coefficients and each series' ``sum w^2`` (the scale of ``|phi|^2/span^2`` near lambda
    = 0, against which ``H`` cancels).
    """
    n, s = v.shape
    k1 = MODEL_TERMS + 1
    inv = np.array([1.0 / math.factorial(k + 1) for k in range(k1)])
    c = np.zeros(2 * k1 - 1)  # sum over j + k = m of 1/((j+1)! (k+1)!)
    for k in range(k1):
        c[k : k + k1] += inv[k] * inv
    H = np.empty((s, 2 * k1 - 1))
    gross = np.empty(s)
    b0 = max(1, min(_BLOCK, s, _CELLS // n))  # series per block
    r0 = min(n, _CELLS)  # rows per block (long series: several blocks, sums added up)
    pw = np.empty((k1, b0, r0))  # w, w^2, ..., w^(K+1) of the block's series (rows)
    sums = np.empty((2 * k1 + 1, b0))  # sums[p] = sum w^p
    proj = np.empty((k1, b0, q.shape[1]))
    part = np.empty((k1, b0, q.shape[1]))
    rinv = 1.0 / span
    for j in range(0, s, b0):
        b = min(b0, s - j)
        cols = slice(j, j + b)
        sums[:, :b] = 0.0
        proj[:, :b] = 0.0
        for i in range(0, n, r0):
            r = min(r0, n - i)
            p = pw[:, :b, :r]
            np.multiply(v[i : i + r, cols].T, rinv[cols, None], out=p[0])
            for k in range(1, k1):
                np.multiply(p[k - 1], p[0], out=p[k])
            sums[1 : k1 + 1, :b] += p.sum(axis=2)
            sums[k1 + 1 :, :b] += np.vecdot(p[k1 - 1], p)  # w^(K+1) w^(k+1)
            for k in range(k1):
                np.matmul(p[k], q[i : i + r], out=part[k, :b])
            proj[:, :b] += part[:, :b]
        gross[cols] = sums[2, :b]
        pk = proj[:, :b].transpose(1, 0, 2) * inv[None, :, None]  # (series, k, basis)
        gram = np.matmul(pk, pk.transpose(0, 2, 1))
        hb = H[cols]
        np.multiply(sums[2:, :b].T, c, out=hb)
        for k in range(k1):  # the anti-diagonals j + k = m
            hb[:, k : k + k1] -= gram[:, k]
    return H, gross


def _model_score(H: NDArray[np.float64], t: NDArray[np.float64], scale: float,
                 sum_v: NDArray[np.float64]) -> tuple[NDArray, NDArray, NDArray]:
    """The model's RSS polynomial ``P = sum H_m t^m`` and its score and the score's
    derivative in ``t``: ``scale P'/P - sum_v`` and ``scale (P'' P - P'^2)/P^2`` (``scale =
    n/2``, ``sum_v`` the series' ``sum(v)/span``: the score in ``tau``, the score in lambda
    divided by ``span``)."""
    p = H[:, -1].copy()
    d1 = np.zeros_like(p)
    d2 = np.zeros_like(p)
    for m in range(H.shape[1] - 2, -1, -1):
        d2 = d2 * t + 2.0 * d1
        d1 = d1 * t + p
        p = p * t + H[:, m]
    with np.errstate(divide="ignore", invalid="ignore"):
        return p, scale * d1 / p - sum_v, scale * (d2 * p - d1 * d1) / (p * p)


def _model_bound(tau: NDArray[np.float64], p: NDArray[np.float64], n: int,
                 sum_v: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Bounds on the error of the model's score at ``tau`` in units of ``span`` (the score
    in ``tau``) and on the relative error of its RSS, from the Taylor remainders of ``phi``
    and ``chi = d phi/d lambda``.

    Per value, ``|w| <= 1``: ``phi``'s remainder is at most ``span |tau|^(K+1)/(K+2)! /
    (1 - |tau|/(K+3))`` and ``chi``'s ``span^2 (K+1)|tau|^K/(K+2)! / (1 - |tau|/(K+1))``
    (ratios of consecutive terms); ``|chi| <= span^2 e^|tau|/2`` (``exprel'(a) <= e^|a|/2``)
    and ``M`` does not lengthen a vector. With ``N = <M phi, chi>`` and ``D = |M phi|^2``
    the score is ``n N/D`` and its error at most ``n (dN + |N| dD/D)/(D - dD)``; the RSS's
    relative error at most ``dD/(D - dD)``. Lengths are in units of ``span sqrt(n)`` (``D =
    p/n``). Rounding is not counted: the caller keeps the model only where ``H`` has not
    cancelled to below ``1e-6`` of its scale (as the score's ``close`` test)."""
    K = MODEL_TERMS
    a = np.abs(tau)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        e_phi = a ** (K + 1) / math.factorial(K + 2) / (1.0 - a / (K + 3))
        e_chi = (K + 1) * a ** K / math.factorial(K + 2) / (1.0 - a / (K + 1))
        d = p / n
        r = np.sqrt(d)
        dN = r * e_chi + e_phi * 0.5 * np.exp(a) + e_phi * e_chi
        dD = 2.0 * r * e_phi + e_phi * e_phi
        N = np.abs(sum_v) * d / n
        out = n * (dN + N * dD / d) / (d - dD)
        rel = dD / (d - dD)
    fine = (a < MODEL_TERMS) & (d > dD) & np.isfinite(out)
    return np.where(fine, out, np.inf), np.where(fine, rel, np.inf)


def _model_roots(H: NDArray[np.float64], gross: NDArray[np.float64], span: NDArray[np.float64],
                 n: int, sum_v: NDArray[np.float64], lower: float, upper: float
                 ) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.float64],
                            NDArray[np.float64]]:
    """Each series' lambda from its Taylor model (``_taylor_model``), whether it is proven
    to ``MODEL_XTOL``, the RSS polynomial's value there (NaN unless proven, with a relative
    error below ``1e-13``) and the root's error bound (in lambda; inf where the model has
    none). ``sum_v`` is each series' ``sum(v)/span``, the score's linear term in ``tau``;
    ``gross`` each series' ``sum w^2``: where the model's RSS falls below ``1e-6 gross
    e^(2|tau|)`` (the fit explains almost all; ``H`` has cancelled) nothing is proven.

    On ``[lower, upper] span`` cut to ``|tau| <= MODEL_REACH`` the model's score (in ``tau``)
    is solved by Newton's method safeguarded by bisection. The root is accepted when the
    model's proven score error (``_model_bound``) divided by the score's slope (halved for
    safety) is below ``MODEL_XTOL``; an end of ``[lower, upper]`` when the score there
    points outwards by more than its error. The rest return the root (or the end of the
    cut interval) as a start."""
    s = H.shape[0]
    scale = 0.5 * n
    a = np.maximum(lower * span, -MODEL_REACH)
    b = np.minimum(upper * span, MODEL_REACH)
    pa, ga, _ = _model_score(H, a, scale, sum_v)
    pb, gb, _ = _model_score(H, b, scale, sum_v)
    tau = np.full(s, np.nan)
    proven = np.zeros(s, dtype=bool)
    pval = np.full(s, np.nan)
    bound = np.full(s, np.inf)
    for end, ptv, gv, sign, at_end in ((a, pa, ga, 1.0, a == lower * span),
                                       (b, pb, gb, -1.0, b == upper * span)):
        out = np.isnan(tau) & (sign * gv >= 0)
        tau[out] = end[out]
        dg, rel = _model_bound(end, ptv, n, sum_v)
        sure = out & at_end & (sign * gv > dg) & (ptv > 1e-6 * gross * np.exp(2 * np.abs(end)))
        proven |= sure
        pval[sure & (rel <= 1e-13)] = ptv[sure & (rel <= 1e-13)]
    act = np.flatnonzero(np.isnan(tau) & (ga < 0) & (gb > 0))

    def found(done: NDArray[np.intp], tf: NDArray, pf: NDArray, dg: NDArray) -> None:
        dgb, rel = _model_bound(tf, pf, n, sum_v[done])
        with np.errstate(divide="ignore", invalid="ignore"):  # in units of lambda
            err = 2.0 * dgb / dg / span[done]
        fine = (pf > 1e-6 * gross[done] * np.exp(2.0 * np.abs(tf))) & (err >= 0)
        sure = fine & (err <= MODEL_XTOL)
        bound[done] = np.where(fine, err, np.inf)
        proven[done[sure]] = True
        pval[done[sure & (rel <= 1e-13)]] = pf[sure & (rel <= 1e-13)]

    act, t = _safeguarded_newton(lambda t, idx: _model_score(H[idx], t, scale, sum_v[idx]),
                                 act, a[act], b[act], np.clip(np.zeros(act.size), a[act],
                                                              b[act]), span, tau, found)
    tau[act] = t  # (not reached: bisection alone closes 1e-15 in 60 steps) a start
    return tau / span, proven, pval, bound


def _safeguarded_newton(score: Callable, act: NDArray[np.intp], lo: NDArray, hi: NDArray,
                        t: NDArray, span: NDArray, tau: NDArray, found: Callable) -> tuple:
    """Newton's method safeguarded by bisection for the series ``act`` on their brackets
    ``[lo, hi]`` from ``t`` (``score(t, idx)`` gives the model's value, score and slope in
    ``tau``). A series is done when ``g = 0``, its Newton step is below ``1e-9 min(1,
    span)`` (the next error is about ``(g''/2g') 1e-18``) or its bracket is closed: its root
    goes to ``tau`` and ``found(done, t, p, dg)`` records its bound. Returns the series not
    done in 100 steps (not reached: bisection alone closes 1e-15 in 60) and their iterates."""
    for _ in range(100):
        if act.size == 0:
            break
        p, g, dg = score(t, act)
        lo, hi = np.where(g < 0, t, lo), np.where(g > 0, t, hi)
        with np.errstate(divide="ignore", invalid="ignore"):
            nxt = t - g / dg
        newton = (nxt >= lo) & (nxt <= hi) & (dg > 0)
        nxt = np.where(newton, nxt, 0.5 * (lo + hi))
        small = 1e-9 * np.minimum(1.0, span[act])
        fin = (g == 0) | (newton & (np.abs(nxt - t) <= small)) | (hi - lo <= 1e-6 * small)
        if fin.any():
            done = act[fin]
            tau[done] = np.where(g[fin] == 0, t[fin], nxt[fin])
            found(done, t[fin], p[fin], dg[fin])
        keep = ~fin
        act, t, lo, hi = act[keep], nxt[keep], lo[keep], hi[keep]
    return act, t


CENTRE_TERMS = 6  # K of the expansion at a centre lambda_c != 0
CENTRE_REACH = 0.25  # |lambda - lambda_c| max|v| over which that expansion is solved
CENTRE_FROM = 0.5  # |lambda_c| max|v| from which a centre is used (nearer 0: the score)
CENTRE_PASSES = 4  # expansions at most (each moves a start by up to CENTRE_REACH)


def _centred_model(v: NDArray[np.float64], span: NDArray[np.float64], q: NDArray[np.float64],
                   lc: NDArray[np.float64], n: int, sum_v: NDArray[np.float64], lower: float,
                   upper: float) -> tuple[NDArray, NDArray, NDArray, NDArray]:
    """The lambdas of the series in the columns of ``v`` from an expansion of ``phi`` at
    each series' centre ``lc`` (``|lc| span >= CENTRE_FROM``): whether proven, the log RSS
    (NaN unless proven to 1e-13 relative) and the error bound, as ``_model_roots``.

    With ``w = v/span``, ``e = exp(lc v)`` and ``tau = (lambda - lc) span``, ``lambda phi =
    expm1(lc v) + e sum_(k>=1) tau^k w^k/k!`` up to a constant, which the intercept absorbs;
    the expansion keeps ``k <= CENTRE_TERMS`` and is solved on ``|tau| <= min(CENTRE_REACH,
    |lc| span/2)`` (``|lambda| span`` stays above half its centre's: the score's two terms
    ``n C'/(2C)`` and ``n/(lambda span)`` cancel to ``1/(|lambda| span)`` at most). Its
    residuals (formed explicitly: no
    cancellation) give ``|M lambda phi|^2 = sum_m C_m tau^m``, and the score in ``tau`` is
    ``n C'/(2C) - n/(lambda span) - sum_v`` (``sum_v = sum(v)/span``). The remainder per
    value is at most ``e |tau|^(K+1)/(K+1)! / (1 - |tau|/(K+2))`` (its ``tau``-derivative
    ``(K+1)/|tau|`` times that), bounded as ``_model_bound`` does (lengths in units of
    ``max e sqrt(n)``, ``|e w| <= max e``)."""
    K = CENTRE_TERMS
    m = v.shape[1]
    C = np.empty((m, 2 * K + 1))
    top = np.empty(m)
    b0 = max(1, min(_BLOCK, m, _CELLS // n))
    basis = np.empty((b0, K + 1, n))  # reused block by block (fresh memory costs faults)
    a0 = np.empty((b0, n))
    e = np.empty((b0, n))
    w = np.empty((b0, n))
    qt = np.ascontiguousarray(q.T)
    for j in range(0, m, b0):
        bs = min(b0, m - j)
        cols = slice(j, j + bs)
        A, E, W, B = a0[:bs], e[:bs], w[:bs], basis[:bs]
        np.multiply(v[:, cols].T, lc[cols, None], out=A)
        top[cols] = A.max(axis=1)
        np.expm1(A, out=B[:, 0])
        B[:, 0] *= np.exp(-top[cols])[:, None]
        np.subtract(A, top[cols, None], out=E)
        np.exp(E, out=E)  # e^(lc v) / max: no overflow, the scale is free
        np.multiply(v[:, cols].T, 1.0 / span[cols, None], out=W)
        np.multiply(E, W, out=B[:, 1])
        for k in range(2, K + 1):
            np.multiply(B[:, k - 1], W, out=B[:, k])
            B[:, k] *= 1.0 / k
        flat = B.reshape(-1, n)
        for i in range(0, flat.shape[0], _PROJ_BLOCK):  # residuals, in one-thread blocks
            rows = flat[i : i + _PROJ_BLOCK]
            rows -= (rows @ q) @ qt
        gram = np.matmul(B, np.ascontiguousarray(B.transpose(0, 2, 1)))
        cb = C[cols]
        cb[:] = 0.0
        for k in range(K + 1):
            cb[:, k : k + K + 1] += gram[:, k]
    reach = np.minimum(CENTRE_REACH, 0.5 * np.abs(lc) * span)  # |lambda| span stays >= half
    a = np.maximum((lower - lc) * span, -reach)
    b = np.minimum((upper - lc) * span, reach)
    half_n = 0.5 * n

    def score(t, j):
        p, g, dg = _model_score(C[j], t, half_n, sum_v[j])
        ls = lc[j] * span[j] + t
        return p, g - n / ls, dg + n / (ls * ls)

    def bound(t, p, dg, j):
        at = np.abs(t)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            e_p = at ** (K + 1) / math.factorial(K + 1) / (1.0 - at / (K + 2))
            e_d = (K + 1) * at ** K / math.factorial(K + 1) / (1.0 - at / (K + 2))
            d = p / n
            r = np.sqrt(d)
            dN = r * e_d + e_p + e_p * e_d
            dD = 2.0 * r * e_p + e_p * e_p
            N = np.abs(d / (lc[j] * span[j] + t))  # <M P, P'> at the root, same units
            dg_b = n * (dN + N * dD / d) / (d - dD)
            err = 2.0 * dg_b / dg / span[j]
            rel = dD / (d - dD)
        fine = (d > dD) & np.isfinite(err) & (err >= 0)
        return np.where(fine, err, np.inf), np.where(fine, rel, np.inf)

    tau = np.full(m, np.nan)
    err = np.full(m, np.inf)
    proven = np.zeros(m, dtype=bool)
    log_rss = np.full(m, np.nan)
    every = np.arange(m)
    pa, ga, dga = score(a, every)
    pb, gb, dgb = score(b, every)
    for end, pe, ge, _dge, sign, at_end in ((a, pa, ga, dga, 1.0, a == (lower - lc) * span),
                                          (b, pb, gb, dgb, -1.0, b == (upper - lc) * span)):
        out = np.isnan(tau) & (sign * ge >= 0)
        tau[out] = end[out]
        e_l, rel = bound(end, pe, np.ones(m), every)  # e_l: the score's bound / span
        sure = out & at_end & (sign * ge > 0.5 * e_l * span)
        proven |= sure
        keep = sure & (rel <= 1e-13)
        log_rss[keep] = np.log(pe[keep]) - 2.0 * np.log(np.abs(lc + end / span)[keep])
    act = np.flatnonzero(np.isnan(tau) & (ga < 0) & (gb > 0))

    def found(done: NDArray[np.intp], tf: NDArray, pf: NDArray, dg: NDArray) -> None:
        e_l, rel = bound(tf, pf, dg, done)
        err[done] = e_l
        sure = e_l <= MODEL_XTOL
        proven[done[sure]] = True
        keep = sure & (rel <= 1e-13)
        lam_t = lc[done] + tf / span[done]  # the RSS where it was evaluated
        log_rss[done[keep]] = np.log(pf[keep]) - 2.0 * np.log(np.abs(lam_t[keep]))

    act, t = _safeguarded_newton(score, act, a[act], b[act], np.zeros(act.size), span, tau,
                                 found)
    tau[act] = t
    lam = lc + tau / span
    # |M phi|^2 = |M lambda phi|^2 / lambda^2, times the scale e^(2 top) taken out
    log_rss += 2.0 * top
    return lam, proven, log_rss, err


def loglik_lambdas(x: ArrayLike, design: ArrayLike, lower: float, upper: float,
                   info: dict | None = None
                   ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.bool_]]:
    """forecast's ``method = "loglik"`` for many series of one length at once.

    ``x`` holds one positive series per column; ``design`` is the regression shared by all
    (forecast's trend and seasonal dummies, with an intercept). With ``v = log x - mean(log
    x)`` per series and ``phi = expm1(lambda v)/lambda``, the profile negative log-likelihood
    is ``n/2 log RSS(phi) - lambda sum(v)`` up to constants (Box & Cox 1964: the intercept
    absorbs the shift and the factor ``x_ref^lambda`` leaves the log as a term linear in
    lambda), and its score ``n <M phi, chi>/RSS(phi) - sum(v)`` (``M`` the residual
    projector, ``chi = d phi/d lambda``).

    Each series' score is first solved on its Taylor model at lambda = 0 (``phi``'s series
    ``sum lambda^k v^(k+1)/(k+1)!`` to ``MODEL_TERMS`` terms, whose RSS is a polynomial in
    lambda built in one pass of products over the data, ``_taylor_model``); a root whose
    proven truncation error is below ``MODEL_XTOL`` is the answer, as is an end of
    ``[lower, upper]`` where the model's score points outwards beyond its error. That covers
    the series whose ``|lambda| max|v|`` is below about 1/4 (the usual, near-logarithmic,
    case) without evaluating ``expm1`` at all. Series whose start is farther from 0 (``|lambda|
    max|v| >= CENTRE_FROM``) are expanded again at their starts (``_centred_model``: one
    ``exp`` per value, the residuals formed explicitly), up to ``CENTRE_PASSES`` times, and
    accepted by the same kind of bound. The rest start from the last root: the score on a
    bracket around it, widened to ``[lower, upper]`` where it does not change sign, closed
    by Chandrupatla's method; an end whose score points outwards is the answer there, as
    clipping the unconstrained optimum gives.

    Returns the lambdas, the maximised log-likelihoods (full normal constants, as
    ``response.ResponseProfile``) and a mask of the series solved here; a series whose
    log-range times ``max(|lower|, |upper|)`` exceeds ``LOGLIK_REACH`` (overflow), or below
    1e-6 (too little resolution for the plain log-ratio), is left unsolved (NaN) for the
    one-series path. ``info``, when given, receives ``"model"`` (series proven by the
    model at 0), ``"centred"`` (series expanded at a centre, summed over the passes),
    ``"rounds"`` (calls of the full score, each over the series still open) and
    ``"evaluations"`` (series-evaluations of the full score, over all rounds).

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
    stats = {"model": 0, "centred": 0, "rounds": 0, "evaluations": 0}
    if info is not None:
        info.update(stats)
    if cols.size == 0:
        return lam, llf, ok
    v = v[:, cols] if cols.size < s else v
    span, sum_v = span[cols], v.sum(axis=0)
    lower, upper = float(lower), float(upper)

    H, gross = _taylor_model(v, span, q)
    start, proven, pval, bound = _model_roots(H, gross, span, n, sum_v / span, lower, upper)
    out = np.where(proven, start, np.nan)
    log_rss = np.where(proven, np.log(pval * span * span), np.nan)
    stats["model"] = int(proven.sum())
    stats["centred"] = 0
    for _ in range(CENTRE_PASSES):  # the rest away from 0: expansions at their starts
        far = np.flatnonzero(~proven & (np.abs(start) * span >= CENTRE_FROM)
                             & np.isfinite(start))
        if far.size == 0:
            break
        lc = np.clip(start[far], lower, upper)
        got, sure, lr, err = _centred_model(v[:, far], span[far], q, lc, n,
                                            sum_v[far] / span[far], lower, upper)
        stats["centred"] += far.size
        start[far], bound[far] = got, err
        out[far[sure]], log_rss[far[sure]] = got[sure], lr[sure]
        proven[far[sure]] = True

    def ratio(phi: NDArray[np.float64], chi: NDArray[np.float64]) -> NDArray[np.float64]:
        """``<M phi, chi>/|M phi|^2`` from the projections' coefficients (13 rows, not n)."""
        pq, cq = _qt(q, phi), _qt(q, chi)
        pp = np.einsum("ij,ij->j", phi, phi)
        rss = pp - np.einsum("ij,ij->j", pq, pq)
        cross = np.einsum("ij,ij->j", phi, chi) - np.einsum("ij,ij->j", pq, cq)
        close = np.flatnonzero(rss < 1e-6 * pp)  # the fit explains almost all: cancellation
        if close.size:  # those columns' residuals formed explicitly
            r = _resid(q, phi[:, close])
            rss[close] = np.einsum("ij,ij->j", r, r)
            cross[close] = np.einsum("ij,ij->j", r, chi[:, close])
        return cross / rss

    def score(t: NDArray[np.float64], idx: NDArray[np.intp]) -> NDArray[np.float64]:
        stats["rounds"] += 1
        stats["evaluations"] += idx.size
        out = np.empty(idx.size)
        # |lambda| max|v| >= 1/8: the ratio is scale-free, so lambda phi = expm1(a) and
        # lambda^2 chi = a e^a - expm1(a) = (a - m) + a m serve (a = lambda v, m = expm1(a);
        # the kernel's regime 2, with its error of 16 eps of the column's largest value)
        wide = np.abs(t) * span[idx] >= A2_SERIES_RADIUS
        j = np.flatnonzero(wide)
        if j.size:
            a = v[:, idx[j]]
            a *= t[j]
            m = np.expm1(a)
            c = np.subtract(a, m)
            a *= m
            c += a
            out[j] = ratio(m, c) / t[j]
        j = np.flatnonzero(~wide)
        if j.size:  # near lambda = 0: the kernel's series
            out[j] = ratio(*phi_chi(v[:, idx[j]], t[j], span[idx[j]]))
        return n * out - sum_v[idx]

    rest = np.flatnonzero(~proven)
    if rest.size:
        out[rest] = _solve_rest(score, start[rest], bound[rest], rest, lower, upper)
    rest = np.flatnonzero(np.isnan(log_rss))  # also where the model's RSS is not certain
    if rest.size:
        phi, _ = phi_chi(v[:, rest], out[rest], span[rest], score=False)
        r = _resid(q, phi)
        log_rss[rest] = np.log(np.einsum("ij,ij->j", r, r))
    log_rss += 2.0 * out * ref[cols]
    lam[cols] = out
    llf[cols] = (-0.5 * n * (np.log(2.0 * np.pi) + 1.0 + log_rss - np.log(n))
                 + (out - 1.0) * logx[:, cols].sum(axis=0))
    if info is not None:
        info.update(stats)
    return lam, llf, ok


NEAR = 1e-9  # least half-width of the first bracket around a model's root (in lambda)


def _solve_rest(score, start: NDArray[np.float64], err: NDArray[np.float64],
                idx: NDArray[np.intp], lower: float, upper: float) -> NDArray[np.float64]:
    """The score's roots for the series the model did not prove: the score at the model's
    start and at both ends of a bracket around it of half-width four times its error bound
    ``err`` (at least ``NEAR``, at most 0.1; ``NEAR`` where there is no bound), cut to
    ``[lower, upper]`` (one round); the half with the sign change is kept, the other end
    serving as the first interpolation's third point. Where the bracket holds no sign
    change it moves to the far side, up to the end of ``[lower, upper]``; an end whose
    score points outwards is the answer; the rest are closed by Chandrupatla's method
    (``roots.find_root``)."""
    m = idx.size
    half = np.where(np.isfinite(err), np.clip(4.0 * err, NEAR, 0.1), NEAR)
    mid = np.clip(start, lower, upper)
    lo = np.clip(start - half, lower, upper)
    hi = np.clip(start + half, lower, upper)
    g = score(np.r_[lo, mid, hi], np.r_[idx, idx, idx])
    glo, gmid, ghi = g[:m], g[m : 2 * m], g[2 * m :]
    out = np.where(gmid == 0, mid, np.nan)
    # the start splits the bracket: keep the half with the sign change, the other end as
    # a third point for the first interpolation
    c, fc = np.full(m, np.nan), np.full(m, np.nan)
    left = (glo < 0) & (gmid > 0)
    right = (gmid < 0) & (ghi > 0)
    c[left], fc[left], hi[left], ghi[left] = hi[left], ghi[left], mid[left], gmid[left]
    c[right], fc[right], lo[right], glo[right] = lo[right], glo[right], mid[right], gmid[right]
    for _ in range(2):
        at_lo = (glo >= 0) & (lo == lower)
        at_hi = (ghi <= 0) & (hi == upper)
        out[at_lo & np.isnan(out)] = lower
        out[at_hi & np.isnan(out)] = upper
        left = np.flatnonzero(np.isnan(out) & (glo > 0))  # the root is below lo
        right = np.flatnonzero(np.isnan(out) & (ghi < 0) & ~(glo > 0))
        if left.size + right.size == 0:
            break
        hi[left], ghi[left] = lo[left], glo[left]
        lo[left] = lower
        lo[right], glo[right] = hi[right], ghi[right]
        hi[right] = upper
        g = score(np.r_[lo[left], hi[right]], np.r_[idx[left], idx[right]])
        glo[left], ghi[right] = g[: left.size], g[left.size :]
    at = np.flatnonzero(np.isnan(out))
    if at.size:
        res = find_root(lambda t, j: score(t, idx[at[j]]), lo[at], hi[at], glo[at], ghi[at],
                        xatol=1e-14, predict=True, c=c[at], fc=fc[at])
        out[at] = res.x
    return out
