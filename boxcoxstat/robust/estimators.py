"""Robust estimation of the transformation parameter: RewML, Carroll and MTL.

Layer 3. Implements the reweighted maximum likelihood estimator (RewML) of Raymaekers &
Rousseeuw (2021) as the authors' R implementation (cellWise 2.5.3 ``transfo()``) computes it,
together with its building blocks (one-step Huber location and scale, the Tukey bisquare
criterion on the rectified transform, R's ``optimize()`` = Brent's ``fmin``), and the two
robust competitors of the paper's section 2.5: Carroll's (1980) robustified likelihood and the
maximum trimmed likelihood (MTL) of Van der Veeken (2010).

Where this differs from cellWise: Huber estimates always use all values (cellWise subsamples
25000 values with R's RNG above that size); cellWise's data checks (dropping discrete,
zero-MAD and case-number columns) are replaced by the package's errors naming the column;
``fmin`` steps golden where R's parabola would become NaN (only after DBL_MAX stand-ins).
Carroll's estimator uses Huber's proposal-2 scale (b = 1.5, fully iterated); the paper does
not say which Huber scale it used, and with this one the estimator is not consistent away
from lambda = 1 (see the README).

Every routine works on a matrix of sorted columns of equal length at once (one lambda per
column), so hundreds of columns cost little more than one. Missing values are handled by the
driver :func:`robust_lambda`, which groups columns by their number of observed values.

References
----------
Raymaekers, J. and Rousseeuw, P. J. (2021). Transforming variables to central normality.
Machine Learning 113, 4953-4975.
Carroll, R. J. (1980). A robust method for testing transformations to achieve approximate
normality. JRSS B 42, 71-78.
Brent, R. P. (1973). Algorithms for Minimization without Derivatives. Prentice-Hall.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from .. import families as fam
from .._validation import BoxCoxError, check_option
from .rfmin import DBL_MAX, TOL_R, fmin

__all__ = [
    "DBL_MAX",
    "fmin",
    "huber_loc_scale",
    "huber_scale",
    "bisquare_rho",
    "robust_criterion",
    "change_points",
    "prestandardize",
    "RobustSolution",
    "robust_lambda",
]

K_MAD = 1.482602218505602  # 1 / Phi^-1(0.75), inside the Huber estimators
MAD_R = 1.4826  # R's mad() constant, used for prestandardization
HUBER_B = 1.5
HUBER_SCALE_NORM = 1.556931
PREC_SCALE = 1e-12

METHODS = ("rewml", "carroll", "mtl")
PRESTANDARDIZE = ("cellwise", "paper", "none")
RECTIFY = ("cellwise", "quartile")


# --------------------------------------------------------------------------- robust blocks
def huber_loc_scale(v: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """One-step Huber location and scale of each column (cellWise ``estLocScale`` "hubhub").

    Location: one reweighting step (Huber weights, b = 1.5) from the median and MAD. Scale:
    one step of the Huber-rho scale (b = 1.5, normalised by 1.556931) around that location,
    started from the MAD about it. A scale below 1e-12 is returned as 0.

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.robust.estimators import huber_loc_scale
    >>> mu, sigma = huber_loc_scale(np.array([[1.0], [2.0], [3.0], [4.0], [100.0]]))
    >>> round(float(mu[0]), 4), round(float(sigma[0]), 4)
    (3.0557, 1.7372)
    """
    v = np.asarray(v, dtype=np.float64)
    if v.ndim == 1:
        v = v[:, None]
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


def huber_scale(v: ArrayLike, maxiter: int = 200, rtol: float = 1e-10
                ) -> NDArray[np.float64]:
    """Huber's proposal 2 scale (b = 1.5, consistent at the normal), fully iterated, per column.

    Location and scale are iterated jointly from the median and MAD: Huber-weighted mean for
    the location and ``s <- s sqrt(mean(min((r/s)^2, b^2)) / delta)``, ``delta = 1.556931/2``,
    for the scale (Huber 1964). Used by Carroll's estimator, which needs a scale that is a
    smooth function of lambda (the one-step version inherits the median's kinks).
    """
    v = np.asarray(v, dtype=np.float64)
    if v.ndim == 1:
        v = v[:, None]
    delta = 0.5 * HUBER_SCALE_NORM
    with np.errstate(all="ignore"):
        mu = np.median(v, axis=0)
        s = K_MAD * np.median(np.abs(v - mu), axis=0)
        for _ in range(maxiter):
            t = (v - mu) / s
            wt = np.minimum(1.0, HUBER_B / np.abs(t))
            mu_new = (wt * v).sum(axis=0) / wt.sum(axis=0)
            new = s * np.sqrt(np.minimum(((v - mu_new) / s) ** 2, HUBER_B**2).mean(axis=0)
                              / delta)
            new = np.where(s > 0, new, 0.0)
            done = np.all((np.abs(new - s) <= rtol * s) & (np.abs(mu_new - mu) <= rtol * s)
                          | ~np.isfinite(new))
            s, mu = new, mu_new
            if done:
                break
    return s


def bisquare_rho(d: ArrayLike, c: float = 0.5) -> NDArray[np.float64]:
    """Tukey's bisquare rho scaled by ``c``: ``c (1 - (1 - (d/c)^2)^3)``, ``c`` beyond ``|d| = c``.

    Examples
    --------
    >>> from boxcoxstat.robust.estimators import bisquare_rho
    >>> bisquare_rho([0.0, 0.25, 2.0]).round(6)
    array([0.      , 0.289062, 0.5     ])
    """
    d = np.asarray(d, dtype=np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        t = np.minimum((d / c) ** 2, 1.0)
        return np.where(np.isnan(d), np.nan, c * (1.0 - (1.0 - t) ** 3))


def robust_criterion(y_sorted: ArrayLike, c: float = 0.5) -> NDArray[np.float64]:
    """The robust normality criterion of Raymaekers & Rousseeuw (2021), eq. (5), per column.

    ``mean_i rho((y_(i) - mu_H)/sigma_H - Phi^-1(p_i))`` with ``p_i = (i - 1/3)/(n + 1/3)``,
    Huber location and scale and the bisquare rho (cellWise's scaling, in ``[0, c]``). The
    columns must be sorted. NaN when the Huber scale is 0.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> from boxcoxstat.robust.estimators import robust_criterion
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
    mu, sigma = huber_loc_scale(y)
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


# --------------------------------------------------------------------------- estimators
def _logjac_terms(xs: NDArray[np.float64], family: str) -> NDArray[np.float64]:
    if family == "boxcox":
        return np.log(xs)
    return np.sign(xs) * np.log1p(np.abs(xs))


def _seqsum(a: NDArray[np.float64]) -> NDArray[np.float64]:
    """Column sums accumulated strictly row by row (``cumsum``), whatever the array's layout.

    Pairwise summation groups terms by the column length, so adding a zero-weight row would
    change the rounding; sequential sums are unchanged by zero terms, which makes a rejected
    point have exactly no influence (the redescending sensitivity curve is exactly 0).
    """
    return np.cumsum(a, axis=0)[-1]


def _weighted_llf(y, jac, wts, lmbda):
    """``-(m/2) log var_w(y) + (lmbda - 1) sum_w J`` per column (0/1 weights)."""
    with np.errstate(all="ignore"):
        m = wts.sum(axis=0)
        mean = _seqsum(np.where(wts > 0, y, 0.0)) / m
        var = _seqsum(np.where(wts > 0, (y - mean) ** 2, 0.0)) / m
        return -0.5 * m * np.log(var) + (lmbda - 1.0) * _seqsum(np.where(wts > 0, jac, 0.0))


def _flag(y, cutoff):
    """Hard rejection: 1 where ``|y - mu_H| <= cutoff * sigma_H`` (Huber location/scale)."""
    mu, sigma = huber_loc_scale(y)
    with np.errstate(all="ignore"):
        keep = np.abs(y - mu) / sigma <= cutoff
    return keep.astype(np.float64), mu, sigma


def _rewml(xs, jac, family, lo, hi, opt):
    """RewML (Raymaekers & Rousseeuw 2021, section 2.4) on sorted prestandardized columns."""
    tol, c = opt["tol"], opt["c"]

    def step1(lam, idx):
        xx = xs[:, idx]
        cut = change_points(xx, lam, family, opt["rectify"], opt["rectify_factor"])
        if not opt["rectified"]:
            return robust_criterion(fam.forward_unchecked(xx, lam, family), c)
        return robust_criterion(fam.rectified_transform(xx, lam, cut, family), c)

    lam0 = fmin(step1, lo, hi, tol)
    if opt["rectified"]:
        cut = change_points(xs, lam0, family, opt["rectify"], opt["rectify_factor"])
        y = fam.rectified_transform(xs, lam0, cut, family)
    else:
        y = fam.forward_unchecked(xs, lam0, family)
    wts, mu, sigma = _flag(y, opt["cutoff"])
    lam = lam0
    for _ in range(opt["nbsteps"]):
        cur = wts

        def negllf(u, idx, cur=cur):
            yy = fam.forward_unchecked(xs[:, idx], u, family)
            return -_weighted_llf(yy, jac[:, idx], cur[:, idx], u)

        lam = fmin(negllf, lo, hi, tol)
        y = fam.forward_unchecked(xs, lam, family)
        wts, mu, sigma = _flag(y, opt["cutoff"])
    return {"lmbda": lam, "lmbda0": lam0, "weights": wts, "location": mu, "scale": sigma}


def _carroll(xs, jac, family, lo, hi, opt):
    """Carroll (1980): the ML criterion with the Huber scale of the transformed data."""
    n = xs.shape[0]

    def neg(u, idx):
        y = fam.forward_unchecked(xs[:, idx], u, family)
        sigma = huber_scale(y)
        with np.errstate(divide="ignore", invalid="ignore"):
            return n * np.log(sigma) - (u - 1.0) * jac[:, idx].sum(axis=0)

    lam = fmin(neg, lo, hi, opt["tol"])
    wts, mu, sigma = _flag(fam.forward_unchecked(xs, lam, family), opt["cutoff"])
    return {"lmbda": lam, "lmbda0": lam, "weights": wts, "location": mu, "scale": sigma}


def _trimmed_llf(xs, jac, lam, h, family):
    """Best ML criterion over windows of ``h`` consecutive order statistics, and its start."""
    y = fam.forward_unchecked(xs, lam, family)
    with np.errstate(all="ignore"):
        y = y - np.median(y, axis=0)
        zero = np.zeros((1, y.shape[1]))
        s1 = np.concatenate([zero, np.cumsum(y, axis=0)])
        s2 = np.concatenate([zero, np.cumsum(y * y, axis=0)])
        sj = np.concatenate([zero, np.cumsum(jac, axis=0)])
        sum1, sum2, sumj = s1[h:] - s1[:-h], s2[h:] - s2[:-h], sj[h:] - sj[:-h]
        var = np.maximum(sum2 / h - (sum1 / h) ** 2, 0.0)
        with np.errstate(divide="ignore"):
            llf = -0.5 * h * np.log(var) + (lam - 1.0) * sumj
    llf = np.where(np.isfinite(llf), llf, -np.inf)
    start = np.argmax(llf, axis=0)
    return llf[start, np.arange(llf.shape[1])], start


def _mtl(xs, jac, family, lo, hi, opt):
    """Maximum trimmed likelihood (Van der Veeken 2010): best window of ``h`` order statistics.

    The criterion jumps as the best window changes, so lambda is located on a grid of
    ``opt["mtl_grid"]`` points and refined by Brent's method in the neighbouring cells.
    """
    n, p = xs.shape
    h = int(np.clip(np.floor(opt["h"] * n), np.ceil(n / 2) + 1, n))
    grid = np.linspace(0.0, 1.0, opt["mtl_grid"])
    vals = np.empty((grid.size, p))
    for g, t in enumerate(grid):
        lam = lo + t * (hi - lo)
        vals[g], _ = _trimmed_llf(xs, jac, lam, h, family)
    best = np.argmax(vals, axis=0)
    step = (hi - lo) / (grid.size - 1)
    centre = lo + grid[best] * (hi - lo)
    a, b = np.maximum(centre - step, lo), np.minimum(centre + step, hi)

    def neg(u, idx):
        val, _ = _trimmed_llf(xs[:, idx], jac[:, idx], u, h, family)
        return -val

    lam = fmin(neg, a, b, opt["tol"])
    worse = -neg(lam, np.arange(p)) < vals[best, np.arange(p)]
    lam = np.where(worse, centre, lam)
    _, start = _trimmed_llf(xs, jac, lam, h, family)
    pos = np.arange(n)[:, None]
    wts = ((pos >= start) & (pos < start + h)).astype(np.float64)
    y = fam.forward_unchecked(xs, lam, family)
    mu, sigma = huber_loc_scale(y)
    return {"lmbda": lam, "lmbda0": lam, "weights": wts, "location": mu, "scale": sigma}


_ESTIMATORS = {"rewml": _rewml, "carroll": _carroll, "mtl": _mtl}


@dataclass(frozen=True)
class RobustSolution:
    """What :func:`robust_lambda` found, one entry per column (weights: one per row).

    ``location``/``scale`` are the Huber estimates of the transformed prestandardized data
    that defined the weights; ``muhat``/``sigmahat`` the mean and sd of the weight-1 points
    (cellWise's post-standardization); ``objective`` the robust criterion at the estimate
    (unrectified transform, all points); ``interval`` the lambda range finally searched.
    """

    lmbda: NDArray[np.float64]
    lmbda0: NDArray[np.float64]
    objective: NDArray[np.float64]
    weights: NDArray[np.float64]
    location: NDArray[np.float64]
    scale: NDArray[np.float64]
    muhat: NDArray[np.float64]
    sigmahat: NDArray[np.float64]
    locx: NDArray[np.float64]
    scalex: NDArray[np.float64]
    interval: NDArray[np.float64]
    converged: NDArray[np.bool_]


def _fit_sorted(xs, family, method, opt, names):
    """One estimator with cellWise's interval expansion, on sorted complete columns."""
    n, p = xs.shape
    if opt["prestandardize"] != "none" or family == "yeojohnson":
        loc, scale = prestandardize(xs, family, opt["prestandardize"])
    else:
        loc, scale = np.zeros(p), np.ones(p)
    bad = ~(scale > PREC_SCALE)
    if family == "boxcox" and opt["prestandardize"] == "paper":
        bad |= ~np.isfinite(scale)
    if bad.any():
        raise BoxCoxError(
            f"column(s) {[names[j] for j in np.flatnonzero(bad)]} have (almost) no spread "
            "around the median (MAD = 0), so they cannot be prestandardized; pass "
            "prestandardize='none' or drop them"
        )
    xt = apply_prestandardization(xs, loc, scale, family, opt["prestandardize"])
    jac = _logjac_terms(xt, family)
    lo = np.full(p, float(opt["interval"][0]))
    hi = np.full(p, float(opt["interval"][1]))
    res: dict[str, Any] = {}
    todo = np.arange(p)
    converged = np.ones(p, dtype=bool)
    for it in range(opt["max_expand"] + 1):
        part = _ESTIMATORS[method](xt[:, todo], jac[:, todo], family, lo[todo], hi[todo], opt)
        for key, val in part.items():
            if key not in res:
                res[key] = np.empty((n, p)) if np.ndim(val) == 2 else np.empty(p)
            if np.ndim(val) == 2:
                res[key][:, todo] = val
            else:
                res[key][todo] = val
        if not opt["expand"]:
            break
        lam = part["lmbda"]
        dlo, dhi = np.abs(lam - lo[todo]), np.abs(lam - hi[todo])
        dmin = np.minimum(dlo, dhi)
        redo = ~(dmin > 0.05 * (hi[todo] - lo[todo]))
        if not redo.any():
            break
        if it == opt["max_expand"]:
            converged[todo[redo]] = False
            break
        sel = todo[redo]
        lo[sel] = np.where(dlo[redo] == dmin[redo], 1 + 2 * (lo[sel] - 1), lo[sel])
        hi[sel] = np.where(dhi[redo] == dmin[redo], 1 + 2 * (hi[sel] - 1), hi[sel])
        todo = sel
    lam = res["lmbda"]
    y = fam.forward_unchecked(xt, lam, family)
    objective = robust_criterion(y, opt["c"])
    w = res["weights"]
    with np.errstate(all="ignore"):
        m = w.sum(axis=0)
        muhat = np.where(w > 0, y, 0.0).sum(axis=0) / m
        sigmahat = np.sqrt(np.where(w > 0, (y - muhat) ** 2, 0.0).sum(axis=0) / (m - 1))
    return {
        "lmbda": lam, "lmbda0": res["lmbda0"], "objective": objective, "weights": w,
        "location": res["location"], "scale": res["scale"], "muhat": muhat,
        "sigmahat": sigmahat, "locx": loc, "scalex": scale,
        "interval": np.column_stack([lo, hi]), "converged": converged,
    }


def default_options(**kwargs: Any) -> dict[str, Any]:
    """Tuning constants with cellWise 2.5.3's defaults, overridden by ``kwargs``."""
    opt: dict[str, Any] = {
        "c": 0.5, "quant": 0.99, "nbsteps": 2, "interval": (-4.0, 6.0), "tol": TOL_R,
        "prestandardize": "cellwise", "rectify": "cellwise", "rectify_factor": 1.5,
        "rectified": True, "expand": True, "max_expand": 40, "h": 0.95, "mtl_grid": 201,
    }
    unknown = sorted(set(kwargs) - set(opt))
    if unknown:
        raise BoxCoxError(f"unknown tuning option(s) {unknown}; valid ones are {sorted(opt)}")
    opt.update(kwargs)
    check_option("prestandardize", opt["prestandardize"], PRESTANDARDIZE)
    check_option("rectify", opt["rectify"], RECTIFY)
    if not 0 < float(opt["quant"]) < 1:
        raise BoxCoxError(f"quant must lie strictly between 0 and 1, got {opt['quant']!r}")
    if int(opt["nbsteps"]) < 1:
        raise BoxCoxError(f"nbsteps must be at least 1, got {opt['nbsteps']!r}")
    if not float(opt["c"]) > 0:
        raise BoxCoxError(f"c must be positive, got {opt['c']!r}")
    if not 0.5 < float(opt["h"]) <= 1:
        raise BoxCoxError(f"h (the MTL fraction kept) must lie in (0.5, 1], got {opt['h']!r}")
    lo, hi = (float(v) for v in opt["interval"])
    if not (np.isfinite(lo) and np.isfinite(hi) and lo < 1 < hi):
        raise BoxCoxError(f"interval must be finite and contain 1, got {opt['interval']!r}")
    opt["interval"] = (lo, hi)
    opt["cutoff"] = float(stats.norm.ppf((1 + float(opt["quant"])) / 2))
    return opt


def robust_lambda(
    x: ArrayLike,
    family: str,
    method: str = "rewml",
    names: list[str] | None = None,
    **options: Any,
) -> RobustSolution:
    """Robust lambda of each column of ``x`` (NaN = missing), one family for all columns.

    Parameters
    ----------
    x : array_like of shape (n,) or (n, p)
    family : {"boxcox", "yeojohnson"}
    method : {"rewml", "carroll", "mtl"}
    names : list of str, optional
        Column names for error messages.
    **options
        Tuning constants (see :func:`default_options`): ``c`` (bisquare, 0.5), ``quant``
        (0.99: hard rejection at ``Phi^-1((1 + quant)/2)``), ``nbsteps`` (2 reweighting
        steps), ``interval`` ((-4, 6), expanded as cellWise does unless ``expand=False``),
        ``tol`` (2**-13), ``prestandardize`` ("cellwise", "paper", "none"), ``rectify``
        ("cellwise" change points or the paper's "quartile"), ``rectified`` (False gives the
        paper's RewMLnr), ``h`` (MTL fraction kept, 0.95).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> from boxcoxstat.robust.estimators import robust_lambda
    >>> x = np.exp(stats.norm.ppf((np.arange(1, 41) - 0.5) / 40))
    >>> x[-3:] = [50.0, 80.0, 120.0]
    >>> sol = robust_lambda(x, "boxcox")
    >>> round(float(sol.lmbda[0]), 4), int(sol.weights.sum())
    (0.1748, 37)
    """
    check_option("method", method, METHODS)
    opt = default_options(**options)
    x = np.asarray(x, dtype=np.float64)
    if x.ndim == 1:
        x = x[:, None]
    n, p = x.shape
    names = names or [f"x{j}" for j in range(p)]
    out = {
        k: np.full(p, np.nan)
        for k in ("lmbda", "lmbda0", "objective", "location", "scale", "muhat", "sigmahat",
                  "locx", "scalex")
    }
    interval = np.full((p, 2), np.nan)
    converged = np.ones(p, dtype=bool)
    weights = np.full((n, p), np.nan)
    ok = ~np.isnan(x)
    counts = ok.sum(axis=0)
    if family == "boxcox" and np.any(x[ok] <= 0):
        bad = [names[j] for j in range(p) if np.any(x[ok[:, j], j] <= 0)]
        raise BoxCoxError(f"Box-Cox requires strictly positive data; column(s) {bad} have "
                          "values <= 0 (use family='yeojohnson')")
    for m in np.unique(counts):
        cols = np.flatnonzero(counts == m)
        order = np.argsort(np.where(ok[:, cols], x[:, cols], np.inf), axis=0, kind="stable")[:m]
        xs = np.take_along_axis(x[:, cols], order, axis=0)
        res = _fit_sorted(xs, family, method, opt, [names[j] for j in cols])
        for k in out:
            out[k][cols] = res[k]
        interval[cols] = res["interval"]
        converged[cols] = res["converged"]
        for c, j in enumerate(cols):
            weights[order[:, c], j] = res["weights"][:, c]
    return RobustSolution(weights=weights, interval=interval, converged=converged, **out)
