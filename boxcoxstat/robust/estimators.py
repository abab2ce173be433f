"""Robust estimation of the transformation parameter: RewML, Carroll and MTL.

Implements the reweighted maximum likelihood estimator (RewML) of Raymaekers &
Rousseeuw (2021) as the authors' R implementation (cellWise 2.5.3 ``transfo()``) computes it,
and the two robust competitors of the paper's section 2.5: Carroll's (1980) robustified
likelihood and the maximum trimmed likelihood (MTL) of Van der Veeken (2010). The building
blocks (Huber estimates, the robust criterion, rectified change points, prestandardization)
are in :mod:`.blocks`; every likelihood is the core's stable one (:mod:`.stable`), so nothing
overflows at large ``|lambda|``; R's ``optimize()`` (:mod:`.rfmin`) searches lambda where
cellWise parity needs it.

Huber estimates of a column with more than 25000 values use the 25000 values cellWise uses
(drawn as R draws them after ``set.seed(0)``, :mod:`.rrng`; option ``subsample``). Where this
differs from cellWise: cellWise's data checks drop discrete, zero-MAD and case-number
columns; here constant and zero-MAD columns are left out and reported by ``bcs.fit``
(:func:`zero_mad_columns`, ``as_columns(degenerate="skip")``) and refused by name by
:func:`robust_lambda`, while discrete and case-number columns are fitted;
``fmin`` steps golden where R's parabola would become NaN (only after DBL_MAX stand-ins).
Carroll's estimator is Carroll's (1980) Huber likelihood with Huber's proposal 2 (b = 1.5, as
``MASS::hubers``) for location and scale; the paper's equation (17) read as "the ML criterion
with only the scale made robust" is inconsistent away from lambda = 1 (see the README).

Every routine works on a matrix of sorted columns of equal length at once (one lambda per
column), so hundreds of columns cost little more than one. Missing values are handled by the
driver :func:`robust_lambda`, which groups columns by their number of observed values. The
options (their names, defaults and checks) are declared once in :mod:`.registry`.

References
----------
Raymaekers, J. and Rousseeuw, P. J. (2021). Transforming variables to central normality.
Machine Learning 113, 4953-4975.
Carroll, R. J. (1980). A robust method for testing transformations to achieve approximate
normality. JRSS B 42, 71-78.
Brent, R. P. (1973). Algorithms for Minimization without Derivatives. Prentice-Hall.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import families as fam
from ..core.resolution import loss_messages
from ..exceptions import BoxCoxError
from ._rfmin import fmin
from .huber import (
    MAD_R,
    PREC_SCALE,
    apply_prestandardization,
    change_points,
    huber_loc_scale,
    huber_proposal2,
    huber_rho,
    prestandardize,
    rejection_cutoff,
    robust_criterion,
)
from .likelihood import LogScale, RetainedNLL, WindowNLL

__all__ = ["RobustSolution", "RobustColumns", "robust_lambda", "robust_columns",
           "zero_mad_columns"]


def _at_most_max(y: NDArray[np.float64]) -> NDArray[np.float64]:
    """Transformed values with overflows (a far outlier's) at float64's end: still far, but
    finite, so Huber estimates and the criterion treat them as the outliers they are."""
    big = np.finfo(np.float64).max
    return np.clip(y, -big, big)


def _flag(y: NDArray, opt: Mapping[str, Any]) -> tuple[NDArray[np.bool_], NDArray, NDArray]:
    """Hard rejection: keep where ``|y - mu_H| <= cutoff * sigma_H`` (Huber location/scale)."""
    cutoff = opt["cutoff"]
    y = _at_most_max(y)
    mu, sigma = huber_loc_scale(y, opt["subsample"])
    with np.errstate(all="ignore"):
        keep = np.abs(y - mu) / sigma <= cutoff
    return keep, mu, sigma


class _TooFewKept(Exception):
    """Raised inside an estimator when a column keeps fewer than 3 regular points."""

    def __init__(self, column: int, kept: int) -> None:
        super().__init__(column, kept)
        self.column, self.kept = column, kept


def _need_kept(keep: NDArray[np.bool_]) -> None:
    kept = keep.sum(axis=0)
    if np.any(kept < 3):
        j = int(np.flatnonzero(kept < 3)[0])
        raise _TooFewKept(j, int(kept[j]))


def _rewml(xs: NDArray[np.float64], family: str, lo: NDArray[np.float64],
           hi: NDArray[np.float64], opt: Mapping[str, Any]) -> dict[str, NDArray]:
    """RewML (Raymaekers & Rousseeuw 2021, section 2.4) on sorted prestandardized columns.

    Step 1 minimises the robust criterion of the rectified transform; each reweighting step
    minimises the core's NLL of the retained points (:class:`.stable.RetainedNLL`) over the
    whole range, as cellWise does.
    """
    tol, c, sub = opt["tol"], opt["c"], opt["subsample"]

    def step1(lam, idx):
        xx = xs[:, idx]
        if not opt["rectified"]:
            return robust_criterion(fam.forward_unchecked(xx, lam, family), c, sub)
        cut = change_points(xx, lam, family, opt["rectify"], opt["rectify_factor"])
        return robust_criterion(fam.rectified_unchecked(xx, lam, cut, family), c, sub)

    lam0 = fmin(step1, lo, hi, tol)
    if opt["rectified"]:
        cut = change_points(xs, lam0, family, opt["rectify"], opt["rectify_factor"])
        y = fam.rectified_unchecked(xs, lam0, cut, family)
    else:
        y = fam.forward_unchecked(xs, lam0, family)
    keep, mu, sigma = _flag(y, opt)
    lam = lam0
    for _ in range(opt["nbsteps"]):
        _need_kept(keep)
        lam = fmin(RetainedNLL.build(xs, keep, family), lo, hi, tol)
        keep, mu, sigma = _flag(fam.forward_unchecked(xs, lam, family), opt)
    return {"lmbda": lam, "lmbda0": lam0, "weights": keep.astype(np.float64), "location": mu,
            "scale": sigma}


_GRID_VALUES = 1 << 18  # data values (rows x columns x lambdas) per batch of a lambda grid


def _grid_fmin(f: Any, n: int, lo: NDArray[np.float64], hi: NDArray[np.float64], tol: float,
               points: int) -> NDArray[np.float64]:
    """Global search for criteria with several local minima: ``f(lmbda, idx)`` on a grid of
    ``points`` values of each column's ``[lo, hi]``, then R's ``fmin`` in the two cells next
    to the best grid point; a refinement that ends above the grid's best keeps the grid
    point. The grid is evaluated a few rows at a time, all columns at once.
    """
    p = lo.size
    grid = np.linspace(0.0, 1.0, points)
    per_call = max(1, _GRID_VALUES // max(1, n * p))
    vals = np.empty((points, p))
    for g in range(0, points, per_call):
        rows = grid[g : g + per_call]
        lam = (lo + rows[:, None] * (hi - lo)).reshape(-1)
        vals[g : g + per_call] = np.asarray(f(lam, np.tile(np.arange(p), rows.size))
                                            ).reshape(rows.size, p)
    vals = np.where(np.isfinite(vals), vals, np.inf)
    best = np.argmin(vals, axis=0)
    step = (hi - lo) / (points - 1)
    centre = lo + grid[best] * (hi - lo)
    lam = fmin(f, np.maximum(centre - step, lo), np.minimum(centre + step, hi), tol)
    worse = ~(f(lam, np.arange(p)) <= vals[best, np.arange(p)])
    return np.where(worse, centre, lam)


def _carroll(xs: NDArray[np.float64], family: str, lo: NDArray[np.float64],
             hi: NDArray[np.float64], opt: Mapping[str, Any]) -> dict[str, NDArray]:
    """Carroll (1980): maximise the log-likelihood of Huber's least favourable distribution,
    ``-n log s - sum rho((psi_i - mu)/s) + sum log J_i``, with ``(mu, s)`` Huber's proposal 2
    (b = 1.5) of the transformed data, computed on the core's scale
    (:class:`.stable.LogScale`).

    The normal likelihood's ``(psi - mean)**2 / (2 sd**2)`` becomes Huber's rho, which grows
    only linearly in far residuals; with the normal's ``rho = t**2/2`` and the ML estimates it
    is the likelihood itself, so on clean data the estimate agrees with ML. Proposal 2's
    scale is only piecewise smooth in lambda (a point crossing ``mu -+ b s`` changes its
    derivative), so the criterion can have shallow local minima: lambda is located on a grid
    of ``opt["grid"]`` points and refined by Brent's method (:func:`_grid_fmin`).
    """
    n = xs.shape[0]
    lik = LogScale.build(xs, family, huber_proposal2, lambda z: huber_rho(z).sum(axis=0))
    # sum log J(lambda) = (lambda - 1) jsum
    jsum = -fam.log_jacobian_unchecked(xs, 0.0, family).sum(axis=0)

    def neg(u, idx):
        log_s, rho = lik(u, idx)
        return n * log_s + rho - (u - 1.0) * jsum[idx]

    lam = _grid_fmin(neg, n, lo, hi, opt["tol"], opt["grid"])
    keep, mu, sigma = _flag(fam.forward_unchecked(xs, lam, family), opt)
    return {"lmbda": lam, "lmbda0": lam, "weights": keep.astype(np.float64), "location": mu,
            "scale": sigma}


def _mtl(xs: NDArray[np.float64], family: str, lo: NDArray[np.float64],
         hi: NDArray[np.float64], opt: Mapping[str, Any]) -> dict[str, NDArray]:
    """Maximum trimmed likelihood (Van der Veeken 2010): the best window of ``h`` consecutive
    order statistics, by the core's NLL of each window (:class:`.stable.WindowNLL`).

    The criterion jumps as the best window changes, so lambda is located on a grid of
    ``opt["grid"]`` points and refined by Brent's method (:func:`_grid_fmin`).
    """
    n, p = xs.shape
    h = int(np.clip(np.floor(opt["h"] * n), np.ceil(n / 2) + 1, n))
    windows = WindowNLL.build(xs, family, h)
    lam = _grid_fmin(lambda u, idx: windows.best_pairs(u, idx)[0], n, lo, hi, opt["tol"],
                     opt["grid"])
    _, start = windows.best(lam)
    pos = np.arange(n)[:, None]
    wts = ((pos >= start) & (pos < start + h)).astype(np.float64)
    with np.errstate(over="ignore"):
        y = fam.forward_unchecked(xs, lam, family)
    mu, sigma = huber_loc_scale(_at_most_max(y), opt["subsample"])
    return {"lmbda": lam, "lmbda0": lam, "weights": wts, "location": mu, "scale": sigma}


_ESTIMATORS = {"rewml": _rewml, "carroll": _carroll, "mtl": _mtl}


@dataclass(frozen=True)
class RobustSolution:
    """What :func:`robust_lambda` found, one entry per column (weights: one per row).

    ``location``/``scale`` are the Huber estimates of the transformed prestandardized data
    that defined the weights; ``muhat``/``sigmahat`` the mean and sd of the weight-1 points
    (cellWise's post-standardization); ``objective`` the robust criterion at the estimate
    (unrectified transform, all points); ``lmbda_range`` the lambda range finally searched.
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
    lmbda_range: NDArray[np.float64]
    converged: NDArray[np.bool_]


def _fit_sorted(xs: NDArray[np.float64], family: str, method: str, opt: Mapping[str, Any],
                names: list[str]) -> dict[str, Any]:
    """One estimator with cellWise's interval expansion, on sorted complete columns."""
    xt, loc, scale = _prestandardized(xs, family, opt, names)
    res, lo, hi, converged = _expanded(xt, family, method, opt, names)
    lam = res["lmbda"]
    with np.errstate(over="ignore"):
        y = fam.forward_unchecked(xt, lam, family)
    # a far outlier's transformed value may overflow: at float64's end it counts as far
    objective = robust_criterion(_at_most_max(y), opt["c"], opt["subsample"])
    w = res["weights"]
    with np.errstate(all="ignore"):
        m = w.sum(axis=0)
        muhat = np.where(w > 0, y, 0.0).sum(axis=0) / m
        sigmahat = np.sqrt(np.where(w > 0, (y - muhat) ** 2, 0.0).sum(axis=0) / (m - 1))
    return {
        "lmbda": lam, "lmbda0": res["lmbda0"], "objective": objective, "weights": w,
        "location": res["location"], "scale": res["scale"], "muhat": muhat,
        "sigmahat": sigmahat, "locx": loc, "scalex": scale,
        "lmbda_range": np.column_stack([lo, hi]), "converged": converged,
    }


def _prestandardized(
    xs: NDArray[np.float64], family: str, opt: Mapping[str, Any], names: list[str],
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """The columns prestandardized as ``opt["prestandardize"]`` asks, with the location and
    scale used; refuses a column without spread or one that leaves float64's range."""
    p = xs.shape[1]
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
    with np.errstate(all="ignore"):
        xt = apply_prestandardization(xs, loc, scale, family, opt["prestandardize"])
    lost = ~np.all(np.isfinite(xt) & ((xt > 0) | (family != "boxcox")), axis=0)
    if lost.any():
        j = int(np.flatnonzero(lost)[0])
        raise BoxCoxError(
            f"column {names[j]!r} spans {xs[0, j]:.6g} to {xs[-1, j]:.6g}: prestandardized "
            f"({opt['prestandardize']!r}) its values leave float64's range; use "
            "prestandardize='paper' (the log scale), or rescale the column"
        )
    return xt, loc, scale


def _expanded(
    xt: NDArray[np.float64], family: str, method: str, opt: Mapping[str, Any], names: list[str],
) -> tuple[dict[str, NDArray[np.float64]], NDArray[np.float64], NDArray[np.float64],
           NDArray[np.bool_]]:
    """The estimator on every column, re-run where an estimate lies within 5% of the
    interval's width from an end, with that end moved twice as far from 1 (cellWise's
    expansion, at most ``opt["max_expand"]`` times). Returns the estimator's outputs, the
    final ends and which columns' estimates ended clear of the ends (``converged``)."""
    n, p = xt.shape
    lo = np.full(p, float(opt["lmbda_range"][0]))
    hi = np.full(p, float(opt["lmbda_range"][1]))
    res: dict[str, Any] = {}
    todo = np.arange(p)
    converged = np.ones(p, dtype=bool)
    for it in range(opt["max_expand"] + 1):
        try:
            part = _ESTIMATORS[method](xt[:, todo], family, lo[todo], hi[todo], opt)
        except _TooFewKept as few:
            raise BoxCoxError(
                f"column {names[int(todo[few.column])]!r}: {method} flags all but {few.kept} "
                f"of its {n} values as outlying, too few (3 needed) to estimate lambda from; "
                "use method='mle' or drop the column"
            ) from None
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
    return res, lo, hi, converged


def zero_mad_columns(x: NDArray[np.float64], family: str) -> dict[int, str]:
    """Columns whose median absolute deviation is zero (relative to the median's size), with
    the reason, by position.

    At least half of such a column's values are equal, so every robust scale of its
    transformed values is zero whatever lambda is: the robust criteria are degenerate
    (RewML and Carroll drift to ``|lambda|`` of 1e12 with every weight zero, MTL keeps a
    window of equal values). cellWise's ``checkDataSet`` drops such columns
    (``namesZeroScale``); ``bcs.fit`` leaves them out and reports them, the lower-level
    :func:`robust_lambda` refuses them.
    """
    out = {}
    for j in range(x.shape[1]):
        v = x[~np.isnan(x[:, j]), j]
        if v.size == 0:
            continue
        med = float(np.median(v))
        mad = float(np.median(np.abs(v - med)))
        size = abs(med) if family == "boxcox" else 1.0 + abs(med)
        if not mad > PREC_SCALE * size:
            out[j] = (f"at least half of its {v.size} values equal its median {med:.6g} "
                      "(MAD = 0), so a robust estimator cannot tell the bulk of the data from "
                      "outliers")
    return out


def _check_bulk(x: NDArray[np.float64], family: str, names: list[str]) -> None:
    """Refuse columns whose median absolute deviation is zero (:func:`zero_mad_columns`)."""
    for j, reason in zero_mad_columns(x, family).items():
        raise BoxCoxError(f"column {names[j]!r}: {reason}; use method='mle', or drop the "
                          "column")


def robust_lambda(
    x: ArrayLike,
    family: str,
    method: str,
    options: Mapping[str, Any],
    names: list[str] | None = None,
) -> RobustSolution:
    """Robust lambda of each column of ``x`` (NaN = missing), one family for all columns.

    Parameters
    ----------
    x : array_like of shape (n,) or (n, p)
    family : {"boxcox", "yeojohnson"}
    method : {"rewml", "carroll", "mtl"}
    options : mapping
        Every option of the method, checked: ``registry.parse_spec(method, ...).options``
        (see :mod:`boxcoxstat.robust.registry` for the names and defaults).
    names : list of str, optional
        Column names for error messages.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> from boxcoxstat.robust.estimators import robust_lambda
    >>> from boxcoxstat.robust.registry import parse_spec
    >>> x = np.exp(stats.norm.ppf((np.arange(1, 41) - 0.5) / 40))
    >>> x[-3:] = [50.0, 80.0, 120.0]
    >>> sol = robust_lambda(x, "boxcox", "rewml", parse_spec("rewml").options)
    >>> round(float(sol.lmbda[0]), 4), int(sol.weights.sum())
    (0.1748, 37)
    """
    opt = dict(options)
    opt["cutoff"] = rejection_cutoff(opt["quant"])
    x = np.asarray(x, dtype=np.float64)
    if x.ndim == 1:
        x = x[:, None]
    n, p = x.shape
    names = names or [f"x{j}" for j in range(p)]
    _check_bulk(x, family, names)
    out = {
        k: np.full(p, np.nan)
        for k in ("lmbda", "lmbda0", "objective", "location", "scale", "muhat", "sigmahat",
                  "locx", "scalex")
    }
    limits = np.full((p, 2), np.nan)
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
        limits[cols] = res["lmbda_range"]
        converged[cols] = res["converged"]
        for c, j in enumerate(cols):
            weights[order[:, c], j] = res["weights"][:, c]
    return RobustSolution(weights=weights, lmbda_range=limits, converged=converged, **out)


@dataclass(frozen=True)
class RobustColumns:
    """Everything a robust fit of several columns computes (:func:`robust_columns`).

    ``keep`` the positions of the fitted columns among those given, ``names`` their names,
    ``skipped`` every column left out with the reason; ``solution`` the estimates of the kept
    columns, ``families`` and ``reasons`` each one's family (``"auto"`` resolved) and why;
    ``median`` and ``mad`` (R's 1.4826) of each kept column's transformed prestandardized
    values; ``losses`` the resolution warnings of the fitted powers
    (``core.resolution.loss_messages``).
    """

    keep: NDArray[np.intp]
    names: list[str]
    skipped: tuple[tuple[str, str], ...]
    solution: RobustSolution
    families: list[str]
    reasons: list[str]
    median: NDArray[np.float64]
    mad: NDArray[np.float64]
    losses: list[str]


def _without_zero_mad(x: NDArray[np.float64], family: str, names: list[str],
                      skipped: tuple[tuple[str, str], ...]
                      ) -> tuple[NDArray[np.intp], tuple[tuple[str, str], ...]]:
    """The columns whose MAD is not zero, and ``skipped`` with the others added (the
    criterion is Yeo-Johnson's for ``"auto"``: a column it keeps, Box-Cox keeps too); no
    column left is refused, naming each with its reason."""
    crit = "boxcox" if family == "boxcox" else "yeojohnson"
    bad = zero_mad_columns(x, crit)
    if not bad:
        return np.arange(len(names)), skipped
    if len(bad) == len(names):
        if len(bad) == 1 and not skipped:  # one column: the estimator's own message
            _check_bulk(x, crit, names)
        listed = "; ".join(f"{n!r}: {r}" for n, r in skipped)
        listed += "; " * bool(listed) + "; ".join(f"{names[j]!r}: {r}" for j, r in bad.items())
        raise BoxCoxError(f"no column can be fitted: {listed}")
    keep = np.array([j for j in range(len(names)) if j not in bad], dtype=np.intp)
    return keep, skipped + tuple((names[j], r) for j, r in bad.items())


def _check_converged(s: RobustSolution, names: list[str], method: str) -> None:
    """Refuse a column whose lambda ran off to the end of every expanded search range.

    With the default ``max_expand`` the range doubles 40 times (to about 5e12): a lambda still
    at its end is no estimate but the criterion decreasing without bound (as when a few
    far values dominate a handful of points).
    """
    bad = np.flatnonzero(~np.asarray(s.converged, dtype=bool))
    if bad.size:
        j = int(bad[0])
        raise BoxCoxError(
            f"column {names[j]!r}: the {method} criterion keeps decreasing as lambda "
            f"grows (lambda reached {s.lmbda[j]:.3g} at the end of the widest search range), "
            "so it has no robust estimate; the column has too few values apart from its "
            "outliers. Use method='mle' or drop the column"
        )


def robust_columns(x: NDArray[np.float64], family: str, method: str,
                   options: Mapping[str, Any], names: list[str], *,
                   skipped: tuple[tuple[str, str], ...] = (), skip: bool = False,
                   strict: bool = True, remedy: str = "") -> RobustColumns:
    """Fit every column of validated data ``x`` (NaN = missing) by the robust estimator
    ``method`` with its checked ``options``, in a canonical ``family`` or ``"auto"``: the
    whole computation of a robust ``bcs.fit``.

    ``family="auto"``: Yeo-Johnson for columns with values <= 0; for positive columns the
    family with the smaller robust criterion (cellWise's ``"bestObj"``). With ``skip``,
    columns whose MAD is zero are left out and reported (after ``skipped``, those the gate
    left out already); otherwise they are refused by name. ``strict``: a lambda at the end
    of the widest search range is refused (:func:`_check_converged`; the caller's
    ``max_expand`` makes it a non-converged estimate instead). ``remedy`` ends the
    resolution warnings.

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.robust.estimators import robust_columns
    >>> from boxcoxstat.robust.registry import parse_spec
    >>> x = np.random.default_rng(1).lognormal(size=(60, 2))
    >>> fit = robust_columns(x, "auto", "rewml", parse_spec("rewml").options, ["a", "b"])
    >>> fit.names, len(fit.families), fit.losses
    (['a', 'b'], 2, [])
    """
    keep, skipped = (_without_zero_mad(x, family, names, skipped) if skip else
                     (np.arange(len(names)), skipped))
    if keep.size != len(names):
        x, names = x[:, keep], [names[j] for j in keep]
    p = x.shape[1]
    fams = [family] * p
    reasons = [""] * p
    if family == "auto":
        yj = robust_lambda(x, "yeojohnson", method, options, names)
        sol = {k: np.array(v, copy=True) for k, v in vars(yj).items()}
        positive = [j for j in range(p) if np.nanmin(x[:, j]) > 0]
        fams = ["yeojohnson"] * p
        reasons = ["Yeo-Johnson: the column has values <= 0"] * p
        if positive:
            bc = robust_lambda(x[:, positive], "boxcox", method, options,
                               [names[j] for j in positive])
            for k, j in enumerate(positive):
                o_bc, o_yj = bc.objective[k], yj.objective[j]
                if o_bc < o_yj:
                    fams[j] = "boxcox"
                    for key, val in vars(bc).items():
                        if np.ndim(val) == 2 and key == "weights":
                            sol[key][:, j] = val[:, k]
                        else:
                            sol[key][j] = val[k]
                    reasons[j] = f"Box-Cox: robust criterion {o_bc:.5f} < Yeo-Johnson {o_yj:.5f}"
                else:
                    reasons[j] = (f"Yeo-Johnson: robust criterion {o_yj:.5f} <= Box-Cox "
                                  f"{o_bc:.5f}")
        s = RobustSolution(**sol)
    else:
        s = robust_lambda(x, family, method, options, names)
    if strict:
        _check_converged(s, names, method)
    how = options["prestandardize"]
    u = np.array(x, dtype=np.float64, copy=True)  # the values the powers apply to
    med, mad = np.empty(p), np.empty(p)
    for j in range(p):
        ok = ~np.isnan(u[:, j])
        v = apply_prestandardization(u[ok, j], s.locx[j], s.scalex[j], fams[j], how)
        if fams[j] == "boxcox" and np.any(~(v > 0)):
            raise BoxCoxError(f"column {names[j]!r}: Box-Cox requires strictly positive "
                              "prestandardized values")
        u[ok, j] = v
        with np.errstate(all="ignore"):  # transformed values that overflow: NaN, as sigmahat
            y = fam.forward_unchecked(v, s.lmbda[j], fams[j])
            med[j] = np.median(y)
            mad[j] = MAD_R * np.median(np.abs(y - med[j]))
    return RobustColumns(keep=keep, names=list(names), skipped=skipped, solution=s,
                         families=fams, reasons=reasons, median=med, mad=mad,
                         losses=loss_messages(u, s.lmbda, fams, names, remedy))
