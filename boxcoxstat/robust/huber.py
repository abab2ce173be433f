"""Building blocks of the robust estimators: Huber estimates, the robust normality criterion,
rectified change points and prestandardization.

As the authors' R implementation (cellWise 2.5.3 ``transfo()``) computes them
(``../shared/RewML_SPEC.md``, sections 2 and 4), vectorised over the columns of a matrix of
sorted columns.

References
----------
Raymaekers, J. and Rousseeuw, P. J. (2021). Transforming variables to central normality.
Machine Learning 113, 4953-4975.
Huber, P. J. (1964). Robust estimation of a location parameter. Ann. Math. Statist. 35, 73-101.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from .. import families as fam
from ._rrng import r_sample_no_replace

__all__ = [
    "K_MAD",
    "PRESTANDARDIZE",
    "rejection_cutoff",
    "RECTIFY",
    "huber_loc_scale",
    "huber_proposal2",
    "huber_rho",
    "bisquare_rho",
    "robust_criterion",
    "change_points",
    "prestandardize",
    "apply_prestandardization",
    "undo_prestandardization",
]

K_MAD = 1.482602218505602  # 1 / Phi^-1(0.75), inside the Huber estimators
MAD_R = 1.4826  # R's mad() constant, used for prestandardization
HUBER_B = 1.5
HUBER_SCALE_NORM = 1.556931
PREC_SCALE = 1e-12

PRESTANDARDIZE = ("cellwise", "paper", "none")
RECTIFY = ("cellwise", "quartile")


# --------------------------------------------------------------------------- robust blocks
def rejection_cutoff(quant: float) -> float:
    """The hard-rejection cut-off ``sqrt(chi2_1(quant)) = Phi^-1((1 + quant)/2)``.

    Examples
    --------
    >>> from boxcoxstat.robust.huber import rejection_cutoff
    >>> round(rejection_cutoff(0.99), 6)
    2.575829
    """
    return float(stats.norm.ppf((1.0 + float(quant)) / 2.0))


def huber_loc_scale(v: ArrayLike, subsample: int = 0
                    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """One-step Huber location and scale of each column (cellWise ``estLocScale`` "hubhub").

    Location: one reweighting step (Huber weights, b = 1.5) from the median and MAD. Scale:
    one step of the Huber-rho scale (b = 1.5, normalised by 1.556931) around that location,
    started from the MAD about it. A scale below 1e-12 is returned as 0.

    With ``subsample > 0`` and more rows than that, both come from the rows cellWise uses:
    ``subsample`` positions drawn by RcppArmadillo's ``sample()`` right after R's
    ``set.seed(0)`` (:func:`.rrng.r_sample_no_replace`; cellWise resets the seed on every
    call, so every column of a given length uses the same positions). cellWise draws from
    the finite values only; here the columns are finite.

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.robust.huber import huber_loc_scale
    >>> mu, sigma = huber_loc_scale(np.array([[1.0], [2.0], [3.0], [4.0], [100.0]]))
    >>> round(float(mu[0]), 4), round(float(sigma[0]), 4)
    (3.0557, 1.7372)
    """
    v = np.asarray(v, dtype=np.float64)
    if v.ndim == 1:
        v = v[:, None]
    if 0 < subsample < v.shape[0]:
        v = v[r_sample_no_replace(v.shape[0], subsample)]
    m = v.shape[0]
    with np.errstate(all="ignore"):
        m0 = np.median(v, axis=0)
        s0 = K_MAD * np.median(np.abs(v - m0), axis=0)
        u = np.abs(v - m0) / s0
        wt = np.where(u < HUBER_B, 1.0, HUBER_B / u)
        mu = np.where(s0 > PREC_SCALE, (wt * v).sum(axis=0) / wt.sum(axis=0), m0)
        r = v - mu
        s1 = K_MAD * np.median(np.abs(r), axis=0)
        rho = np.minimum((r / s1) ** 2, HUBER_B**2) / HUBER_SCALE_NORM
        sigma = np.where(s1 < PREC_SCALE, 0.0, s1 * np.sqrt(rho.sum(axis=0) / (0.5 * m)))
    return mu, sigma


def huber_proposal2(v: ArrayLike, maxiter: int = 500, rtol: float = 1e-13
                    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Huber's proposal 2 location and scale (b = 1.5) of each column, as ``MASS::hubers``.

    The joint solution of ``sum psi_b((v - mu)/s) = 0`` and
    ``sum psi_b((v - mu)/s)**2 = (m - 1) beta`` with ``psi_b(t) = max(-b, min(t, b))`` and
    ``beta = E min(Z**2, b**2) = 2 Phi(b) - 1 + b**2 (2 - 2 Phi(b)) - 2 b phi(b)``
    (0.778465..., exactly as MASS computes it: consistent for sigma at the normal; the
    ``m - 1`` is Venables & Ripley's, so the scale of normal data is the sd's analogue).
    Solved by MASS's iteration (winsorize at ``mu -+ b s``, mean, winsorized sum of squares)
    from the median and MAD, run to ``rtol`` instead of MASS's 30 steps. Used by Carroll's
    (1980) estimator.

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.robust.huber import huber_proposal2
    >>> mu, s = huber_proposal2(np.array([1.0, 2.0, 3.0, 4.0, 100.0]))
    >>> round(float(mu[0]), 4), round(float(s[0]), 4)  # converged (MASS stops at 30 steps)
    (4.0275, 4.0733)
    """
    v = np.asarray(v, dtype=np.float64)
    if v.ndim == 1:
        v = v[:, None]
    m = v.shape[0]
    th = 2.0 * stats.norm.cdf(HUBER_B) - 1.0
    beta = th + HUBER_B**2 * (1.0 - th) - 2.0 * HUBER_B * stats.norm.pdf(HUBER_B)
    with np.errstate(all="ignore"):
        mu = np.median(v, axis=0)
        s = MAD_R * np.median(np.abs(v - mu), axis=0)
        for _ in range(maxiter):
            yy = np.clip(v, mu - HUBER_B * s, mu + HUBER_B * s)
            mu_new = yy.mean(axis=0)
            s_new = np.sqrt(((yy - mu_new) ** 2).sum(axis=0) / (m - 1) / beta)
            done = (np.abs(mu_new - mu) <= rtol * s) & (np.abs(s_new - s) <= rtol * s)
            mu, s = mu_new, s_new
            if np.all(done | ~(s > 0)):
                break
    return mu, s


def huber_rho(t: ArrayLike) -> NDArray[np.float64]:
    """Huber's rho (b = 1.5): ``t**2/2`` for ``|t| <= b``, ``b |t| - b**2/2`` beyond.

    ``-rho`` is the log-density (up to a constant) of Huber's least favourable distribution,
    the normal in the middle with exponential tails.

    Examples
    --------
    >>> from boxcoxstat.robust.huber import huber_rho
    >>> huber_rho([0.0, 1.0, 3.0]).tolist()
    [0.0, 0.5, 3.375]
    """
    a = np.abs(np.asarray(t, dtype=np.float64))
    with np.errstate(over="ignore"):
        return np.where(a <= HUBER_B, 0.5 * a * a, HUBER_B * a - 0.5 * HUBER_B**2)


def bisquare_rho(d: ArrayLike, c: float = 0.5) -> NDArray[np.float64]:
    """Tukey's bisquare rho scaled by ``c``: ``c (1 - (1 - (d/c)^2)^3)``, ``c`` beyond ``|d| = c``.

    Examples
    --------
    >>> from boxcoxstat.robust.huber import bisquare_rho
    >>> bisquare_rho([0.0, 0.25, 2.0]).round(6)
    array([0.      , 0.289062, 0.5     ])
    """
    d = np.asarray(d, dtype=np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        t = np.minimum((d / c) ** 2, 1.0)
        return np.where(np.isnan(d), np.nan, c * (1.0 - (1.0 - t) ** 3))


def robust_criterion(y_sorted: ArrayLike, c: float = 0.5, subsample: int = 0
                     ) -> NDArray[np.float64]:
    """The robust normality criterion of Raymaekers & Rousseeuw (2021), eq. (5), per column.

    ``mean_i rho((y_(i) - mu_H)/sigma_H - Phi^-1(p_i))`` with ``p_i = (i - 1/3)/(n + 1/3)``,
    Huber location and scale and the bisquare rho (cellWise's scaling, in ``[0, c]``). The
    columns must be sorted. NaN when the Huber scale is 0. ``subsample``: see
    :func:`huber_loc_scale`.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> from boxcoxstat.robust.huber import robust_criterion
    >>> n = 50
    >>> q = stats.norm.ppf((np.arange(1, n + 1) - 1 / 3) / (n + 1 / 3))
    >>> float(robust_criterion(3 * q + 1)[0]) < 1e-3
    True
    """
    y = np.asarray(y_sorted, dtype=np.float64)
    if y.ndim == 1:
        y = y[:, None]
    n = y.shape[0]
    q = stats.norm.ppf((np.arange(1, n + 1) - 1.0 / 3.0) / (n + 1.0 / 3.0))
    mu, sigma = huber_loc_scale(y, subsample)
    with np.errstate(all="ignore"):
        z = (y - mu) / sigma
        out = bisquare_rho(z - q[:, None], c).mean(axis=0)
    return np.where(sigma > 0, out, np.nan)


def change_points(
    xs: NDArray[np.float64],
    lmbda: NDArray[np.float64],
    family: str,
    rule: str = "cellwise",
    factor: float = 1.5,
) -> NDArray[np.float64]:
    """Change points of the rectified transforms for sorted columns ``xs`` (one per column).

    ``rule="quartile"`` is the paper's choice (section 2.2): ``C_u = Q3`` for ``lmbda < 1`` and
    ``C_l = Q1`` for ``lmbda > 1``. ``rule="cellwise"`` (the default) is what cellWise 2.5.3
    computes: ``C = T^-1(factor * T(Q))``, kept 1e-5 inside the transform's range and clamped
    to the data's range. Quartiles are the order statistics ``x_(ceil(n/4))`` and
    ``x_(n - ceil(n/4) + 1)``.
    """
    n = xs.shape[0]
    k = int(np.ceil(n / 4))
    q1, q3 = xs[k - 1], xs[n - k]
    q = np.where(lmbda < 1, q3, q1)
    if rule == "quartile":
        return q
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        t = factor * fam.forward_unchecked(q, lmbda, family)
        inv = np.where(lmbda != 0, 1.0 / np.abs(lmbda), np.inf)
        if family == "boxcox":
            t = np.where(lmbda < 0, np.minimum(t, inv - 1e-5), t)
            t = np.where(lmbda > 0, np.maximum(t, -inv + 1e-5), t)
        else:
            t = np.where(lmbda < 0, np.minimum(t, inv - 1e-5), t)
            t = np.where(lmbda > 2, np.maximum(t, 1.0 / (2.0 - lmbda) + 1e-5), t)
        cut = fam.inverse_unchecked(t, lmbda, family)
    return np.minimum(np.maximum(cut, xs[0]), xs[-1])


def prestandardize(
    xs: NDArray[np.float64], family: str, how: str = "cellwise", robust: bool = True
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Location and scale used to prestandardize each column (Raymaekers & Rousseeuw 2021, s.5).

    Yeo-Johnson: median and MAD (R's 1.4826 constant); mean and sd when ``robust=False``
    (as cellWise's non-robust path). Box-Cox ``how="cellwise"``: location 0, scale the median
    (``x / median``); ``how="paper"``: median and MAD of ``log x``, applied as
    ``exp((log x - loc)/scale)``. ``how="none"``: 0 and 1.
    """
    p = xs.shape[1]
    if how == "none":
        return np.zeros(p), np.ones(p)
    if family == "boxcox":
        if how == "paper":
            lx = np.log(xs)
            loc = np.median(lx, axis=0)
            return loc, MAD_R * np.median(np.abs(lx - loc), axis=0)
        return np.zeros(p), np.median(xs, axis=0)
    if not robust:
        return xs.mean(axis=0), xs.std(axis=0, ddof=1)
    loc = np.median(xs, axis=0)
    return loc, MAD_R * np.median(np.abs(xs - loc), axis=0)


def apply_prestandardization(
    x: ArrayLike, loc: ArrayLike, scale: ArrayLike, family: str, how: str
) -> NDArray[np.float64]:
    """``x`` on the scale the fitted lambda refers to (see :func:`prestandardize`)."""
    x = np.asarray(x, dtype=np.float64)
    loc = np.asarray(loc, dtype=np.float64)
    scale = np.asarray(scale, dtype=np.float64)
    if family == "boxcox" and how == "paper":
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.exp((np.log(x) - loc) / scale)
    return (x - loc) / scale


def undo_prestandardization(
    u: ArrayLike, loc: ArrayLike, scale: ArrayLike, family: str, how: str
) -> NDArray[np.float64]:
    """Inverse of :func:`apply_prestandardization`."""
    u = np.asarray(u, dtype=np.float64)
    loc = np.asarray(loc, dtype=np.float64)
    scale = np.asarray(scale, dtype=np.float64)
    if family == "boxcox" and how == "paper":
        with np.errstate(divide="ignore"):
            return np.exp(np.log(u) * scale + loc)
    return u * scale + loc
