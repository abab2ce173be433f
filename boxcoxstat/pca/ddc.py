"""Detecting deviating data cells (DDC, Rousseeuw & Van den Bossche 2018), as cellWise computes it.

DDC is the first step of MacroPCA (:mod:`.macropca`). Each column is standardized
by a one-step M location and scale; cells beyond ``sqrt(chi2_1(0.99))`` are set aside; each
column's robustly most correlated columns (Gnanadesikan-Kettenring correlation followed by a
weighted Pearson step, kept when ``|r| >= 0.5``) predict its cells through robust slopes
(median of ratios, then weighted least squares), combined by a weighted mean with the column
itself; the prediction is deshrunk by a robust slope, and a cell is flagged when its
standardized residual exceeds the same cut-off. A row is flagged when the mean of
``2 Phi(|r|) - 1`` over its cells, robustly standardized, exceeds the cut-off. Flagged and
missing cells are imputed by their predictions.

This module also holds cellWise's univariate estimators the two methods share: the one-step
M location (biweight weights) and scale (Huber rho, ``b = 2.5 Phi^-1(3/4)``), cellWise's
"1stepM" pair, and cellWise's reweighted univariate MCD (with its small-sample factors).
These are the estimators of cellWise 2.5.3's C++ code (``LocScaleEstimators.cpp``,
``DDC.cpp``), rewritten from their definitions; DDC's "fast" variant for thousands of
columns (nearest neighbours of columns) is not implemented (cellWise uses it only beyond 750
columns).

References
----------
Rousseeuw, P. J. and Van den Bossche, W. (2018). Detecting deviating data cells.
Technometrics 60, 135-145.
Raymaekers, J. and Rousseeuw, P. J. (2021). Fast robust correlation for high-dimensional
data. Technometrics 63, 184-198.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import special, stats

__all__ = ["DDCFit", "ddc", "loc_1step", "scale_1step", "loc_scale_1step", "unimcd_cw"]

MAD = 1.482602218505602  # cellWise's consistency factor of the MAD
PREC = 1e-12  # cellWise's precScale
_B2 = 2.8433526444973292  # (2.5 * qnorm(0.75))^2, Huber's b^2 in the scale's rho
_EHUBER = 1.688942410165249  # 2 E[min(Z^2, b^2)]: rho / this has expectation 1/2


def loc_1step(x: NDArray[np.float64]) -> float:
    """One-step M location with biweight weights from the median and MAD (cellWise's
    ``loc1StepM`` with ``locWeightBiweight``; missing values ignored)."""
    v = x[np.isfinite(x)]
    if v.size == 0:
        return 0.0
    m0 = float(np.median(v))
    s0 = MAD * float(np.median(np.abs(v - m0)))
    if s0 <= PREC:
        return m0
    u = (v - m0) / s0 * MAD / 3.0
    w = np.maximum(1.0 - u * u, 0.0) ** 2
    return float((v * w).sum() / w.sum())


def scale_1step(x: NDArray[np.float64]) -> float:
    """One-step M scale about zero with Huber's rho (cellWise's ``scale1StepM`` with
    ``rhoHuber25``; missing values ignored; 0 when the MAD about zero is below 1e-12)."""
    v = x[np.isfinite(x)]
    if v.size == 0:
        return 0.0
    s0 = MAD * float(np.median(np.abs(v)))
    if s0 < PREC:
        return 0.0
    rho = np.minimum((v / s0) ** 2, _B2) / _EHUBER
    return float(s0 * np.sqrt(rho.sum() / (0.5 * v.size)))


def loc_scale_1step(x: NDArray[np.float64], center: bool = True
                    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """cellWise's ``estLocScale(type = "1stepM")`` of each column of ``x``: the biweight
    one-step location (0 when ``center`` is False) and the Huber one-step scale about it.
    (cellWise subsamples 25000 values of longer columns; this uses all of them.)"""
    x = np.asarray(x, dtype=np.float64)
    loc = np.array([loc_1step(c) if center else 0.0 for c in x.T])
    scale = np.array([scale_1step(c - m) for c, m in zip(x.T, loc, strict=True)])
    return loc, scale


def _cfac(n: int) -> tuple[float, float]:
    if n < 10:
        c1 = (4.252, 1.970, 2.217, 1.648, 1.767, 1.482, 1.555)[n - 3]
    else:
        c1 = n / (n - 3.0) if n % 2 == 0 else n / (n - 3.4)
    if n < 16:
        c2 = (1.475, 1.223, 1.253, 1.180, 1.181, 1.140, 1.143, 1.105, 1.114, 1.098, 1.103,
              1.094, 1.093)[n - 3]
    else:
        c2 = n / (n - 1.4)
    return c1, c2


def unimcd_cw(y: NDArray[np.float64], alpha: float = 0.5
              ) -> tuple[float, float, NDArray[np.bool_]]:
    """cellWise's reweighted univariate MCD (``uniMcd``): the contiguous window of
    ``ceil(n alpha)`` sorted values of smallest variance, its raw scale with cellWise's
    small-sample factor, reweighting at ``chi2_1(0.975)``, and the reweighted location and
    scale (times 1.0835 and a second small-sample factor). Returns location, scale and the
    0/1 weights. Missing values are ignored (their weight is False)."""
    y = np.asarray(y, dtype=np.float64)
    fin = np.isfinite(y)
    v = y[fin]
    n = v.size
    quan = int(np.ceil(n * alpha))
    weights = np.zeros(y.size, dtype=bool)
    if n - quan + 1 == 1:
        weights[fin] = True
        return float(v.mean()), float(v.std(ddof=1)), weights
    ys = np.sort(v, kind="stable")
    c1 = np.concatenate([[0.0], np.cumsum(ys)])
    c2 = np.concatenate([[0.0], np.cumsum(ys * ys)])
    sh = c1[quan:] - c1[:-quan]
    sq = (c2[quan:] - c2[:-quan]) - sh**2 / quan
    best = np.flatnonzero(sq == sq.min())
    init = float(sh[best].mean() / quan)
    sqres = (v - init) ** 2
    cf1, cf2 = _cfac(n)
    raw = cf1**2 * np.sort(sqres)[quan - 1] / stats.chi2.ppf(quan / n, 1)
    w = sqres <= raw * stats.chi2.ppf(0.975, 1)
    loc = float(v[w].mean())
    tmp = np.sqrt(max(0.0, float(((v[w] - loc) ** 2).sum())) / (w.sum() - 1))
    weights[fin] = w
    return loc, float(cf2 * 1.0835 * tmp), weights


def _slope(x: NDArray[np.float64], y: NDArray[np.float64], q: float) -> float:
    """cellWise's ``slopeMedWLS``: slope of ``y ~ x + 0`` by the median of the ratios
    (clipped to [-2, 2]), then least squares on the rows whose residual is within ``q``
    robust scales."""
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = y / x
    ratio = ratio[np.isfinite(ratio)]
    if ratio.size <= 3:
        return 0.0
    b = min(max(float(np.median(ratio)), -2.0), 2.0)
    r = y - b * x
    cut = q * scale_1step(r)
    with np.errstate(invalid="ignore"):
        sel = np.abs(r) <= cut
    if not sel.any():
        return 0.0
    xw, yw = x[sel], y[sel]
    den = float(xw @ xw)
    s = float(xw @ yw) / den if den > 0 else 0.0
    return s if np.isfinite(s) else 0.0


def _corr_gkwls(a: NDArray[np.float64], b: NDArray[np.float64], qcorr: float) -> float:
    """cellWise's ``corrGKWLS``: the Gnanadesikan-Kettenring correlation of two standardized
    columns from one-step scales of their sum and difference (clipped to +-0.99), then the
    uncentred correlation of the pairs inside the tolerance ellipse ``chi2_2(0.99)``."""
    s = a + b
    if np.isfinite(s).sum() <= 3:
        return 0.0
    r = (scale_1step(s) ** 2 - scale_1step(a - b) ** 2) / 4.0
    if not np.isfinite(r):
        return 0.0
    r = min(max(r, -0.99), 0.99)
    with np.errstate(invalid="ignore"):
        d2 = (a * a - 2.0 * r * a * b + b * b) / abs(1.0 - r * r)
        sel = d2 < qcorr
    if not sel.any():
        return 0.0
    aa, bb = a[sel], b[sel]
    return float(aa @ bb / (np.sqrt(aa @ aa) * np.sqrt(bb @ bb)))


@dataclass(frozen=True)
class DDCFit:
    """What :func:`ddc` found (arrays; 0-based positions)."""

    loc: NDArray[np.float64]
    scale: NDArray[np.float64]
    ngbrs: NDArray[np.intp]  # (d, k) neighbours, by decreasing |robust correlation|
    robcors: NDArray[np.float64]
    robslopes: NDArray[np.float64]
    deshrinkage: NDArray[np.float64]  # for the connected columns
    scalestres: NDArray[np.float64]
    std_resid: NDArray[np.float64]  # standardized cell residuals (n, d)
    flagged: NDArray[np.bool_]  # outlying cells (n, d), not the missing ones
    row_stat: NDArray[np.float64]  # the standardized row statistic Ti
    med_ti: float
    mad_ti: float
    flagged_rows: NDArray[np.intp]
    predicted: NDArray[np.float64]  # Xest, the predicted cells on the data's scale
    imputed: NDArray[np.float64]  # X with flagged and missing cells replaced by Xest


def ddc(x: NDArray[np.float64], *, tol_prob: float = 0.99, corrlim: float = 0.5,
        max_neighbours: int = 100) -> DDCFit:
    """DDC of ``x`` (n, d; NaN for a missing cell) with cellWise's defaults: "1stepM"
    standardization, "gkwls" correlations, "wmean" combination including the column itself,
    one iteration.

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.pca.ddc import ddc
    >>> t = np.linspace(-2, 2, 100)
    >>> x = np.column_stack([t, t + 0.1 * np.sin(7 * t), t - 0.1 * np.cos(5 * t)])
    >>> x[10, 1] = 8.0
    >>> fit = ddc(x)
    >>> [(int(i), int(j)) for i, j in np.argwhere(fit.flagged)]
    [(10, 1)]
    """
    x = np.array(x, dtype=np.float64)
    n, d = x.shape
    qcell = float(np.sqrt(stats.chi2.ppf(tol_prob, 1)))
    qcorr = float(stats.chi2.ppf(tol_prob, 2))
    loc, scale = loc_scale_1step(x)
    z = (x - loc) / scale
    missing = ~np.isfinite(x)
    with np.errstate(invalid="ignore"):
        uni = np.abs(z) > qcell
    u = np.where(uni, np.nan, z)
    k = min(max_neighbours, d - 1)
    allc = np.zeros((d, d))
    for i in range(d):
        for j in range(i + 1, d):
            allc[i, j] = allc[j, i] = _corr_gkwls(u[:, j], u[:, i], qcorr)
    ngbrs = np.empty((d, k), dtype=np.intp)
    robcors = np.empty((d, k))
    for i in range(d):
        order = np.argsort(-np.abs(allc[i]), kind="stable")
        order = order[order != i][:k]
        ngbrs[i], robcors[i] = order, allc[i, order]
    weight = np.abs(robcors)
    weight[weight < corrlim] = 0.0
    slopes = np.zeros((d, k))
    for i in range(d):
        used = ngbrs[i][weight[i] > 0]
        for m, j in enumerate(used):  # cellWise packs the used neighbours' slopes first
            slopes[i, m] = _slope(u[:, j], u[:, i], qcell)
    standalone = weight.sum(axis=1) == 0
    connected = np.flatnonzero(~standalone)
    zest = u.copy()
    deshrink = np.zeros(connected.size)
    for m, i in enumerate(connected.tolist()):
        wts = np.concatenate([[1.0], weight[i]])
        cols = np.concatenate([[i], ngbrs[i]])
        sl = np.concatenate([[1.0], slopes[i]])
        use = wts > 0
        pred = u[:, cols[use]] * sl[use]
        prod = pred * wts[use]
        ok = np.isfinite(prod)
        with np.errstate(invalid="ignore", divide="ignore"):
            est = np.where(ok, prod, 0.0).sum(axis=1) / np.where(ok, wts[use], 0.0).sum(axis=1)
        deshrink[m] = _slope(est, z[:, i], qcell)
        zest[:, i] = est * deshrink[m]
    zest[~np.isfinite(zest)] = 0.0
    zres = z - zest
    zres[:, standalone] = z[:, standalone]
    scalest = np.zeros(connected.size)
    for m, i in enumerate(connected.tolist()):
        scalest[m] = scale_1step(zres[:, i])
        zres[:, i] = zres[:, i] / scalest[m]
    with np.errstate(invalid="ignore"):
        flagged = np.abs(zres) > qcell
    flagged[:, standalone] = uni[:, standalone]
    # row statistic: mean of 2 Phi(|r|) - 1 over the observed cells, minus 1/2
    with np.errstate(invalid="ignore"):
        e = special.erf(np.sqrt(zres**2 / 2.0))
    seen = np.isfinite(e)
    with np.errstate(invalid="ignore", divide="ignore"):
        ti = np.where(seen, e, 0.0).sum(axis=1) / seen.sum(axis=1) - 0.5
    fin = np.isfinite(ti)
    med = float(np.median(ti[fin]))
    mad = MAD * float(np.median(np.abs(ti[fin] - med)))
    ti = (ti - med) / mad
    with np.errstate(invalid="ignore"):
        rows = np.flatnonzero((np.abs(ti) > qcell) & (ti > 0))
    xest = zest * scale + loc
    ximp = x.copy()
    fill = flagged | missing
    ximp[fill] = xest[fill]
    return DDCFit(loc, scale, ngbrs, robcors, slopes, deshrink, scalest, zres, flagged, ti,
                  med, mad, rows, xest, ximp)
