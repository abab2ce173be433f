"""Maximum likelihood of a matrix of columns: the whole computation of ``bcs.fit`` in memory.

The model (``univariate.model``) hands this module validated columns and checked, canonical
options and gets back one record (:class:`Estimate`) holding every number its result needs:
each column's power solved on its family's profile (one sample profile for all columns,
frequency weights included; one response profile per column under case weights, as
``lm(x ~ 1, weights=w)`` has it), the bounded maximum within ``bounds``, ``family="auto"``'s
choice per column (:func:`auto_family`), ``ymax``'s limits by the Lambert W inverse (Xu &
Cormode 2025), the resolution check and the safe power (``core.resolution``), and the
likelihood at the power used. Nothing here reads options or data again: the gate has.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..exceptions import BoxCoxError
from .bounds import lambda_bounds
from .design import qr_design
from .likelihood import llf_constant
from .profile import Profile, SampleProfile
from .resolution import (
    LAMBDA_MAX,
    data_range,
    loses_resolution,
    min_relative_gap,
    safe_powers,
)
from .response import response_profile
from .sample import Sample
from .solve import Solution, bounded_solution, solve

__all__ = ["Estimate", "estimate_columns", "auto_family", "case_profile", "fixed_power"]

@dataclass(slots=True)
class Estimate:
    """Everything ``bcs.fit`` by maximum likelihood computes for its columns.

    ``lmbda`` the maximum (bounded where ``bounds`` were given; ``free`` the unconstrained
    one), ``used`` the power the result transforms with (``ymax``'s bound or the safe
    power where they apply), ``llf`` the log-likelihood at ``used``; ``families`` and
    ``reasons`` each column's family (``"auto"`` resolved) and why; ``limits`` ``ymax``'s
    interval per column; ``extremes`` the data's ``(p, 2)`` range, ``lost`` whether
    ``used`` loses the data's resolution and ``safe`` the safe power; ``profiles`` the
    case-weighted columns' profiles (else ``None``) and ``fitted`` the sample profile and
    slopes a result may reuse for its inference (``None`` where it may not);
    ``unconverged`` the names of the columns whose solver did not converge. (Not frozen:
    a frozen dataclass's ``__init__`` costs 3 us, half a percent of a fit of 50 values.)
    """

    lmbda: NDArray[np.float64]
    used: NDArray[np.float64]
    nll: NDArray[np.float64]
    llf: NDArray[np.float64]
    converged: NDArray[np.bool_]
    free: NDArray[np.float64]
    families: list[str]
    reasons: list[str]
    limits: NDArray[np.float64]
    extremes: NDArray[np.float64]
    lost: NDArray[np.bool_]
    safe: NDArray[np.float64]
    profiles: tuple[Profile, ...] | None
    fitted: tuple[Any, Any] | None
    unconverged: list[str]


def auto_family(llf_boxcox: float | None, llf_yeojohnson: float) -> tuple[str, str]:
    """The rule of ``family="auto"`` for one column, and the reason shown in the summary.

    Box-Cox where the column is positive (``llf_boxcox`` is given) and its log-likelihood is
    at least Yeo-Johnson's; Yeo-Johnson otherwise. Shared by every path that fits a column
    (in memory, federated, Dask).

    Examples
    --------
    >>> from boxcoxstat.core.estimate import auto_family
    >>> auto_family(-10.0, -10.5)[0], auto_family(None, -3.0)[0]
    ('boxcox', 'yeojohnson')
    """
    if llf_boxcox is None:
        return "yeojohnson", "Yeo-Johnson: the column has values <= 0"
    if llf_boxcox >= llf_yeojohnson:
        return "boxcox", (f"Box-Cox: log-likelihood {llf_boxcox:.4f} >= Yeo-Johnson "
                          f"{llf_yeojohnson:.4f}")
    return "yeojohnson", (f"Yeo-Johnson: log-likelihood {llf_yeojohnson:.4f} > Box-Cox "
                          f"{llf_boxcox:.4f}")


def case_profile(x: NDArray[np.float64], weights: NDArray[np.float64], family: str) -> Profile:
    """The profile of one column (NaN = missing) under case weights as ``lm(y ~ 1,
    weights=w)`` has them: rows missing or of weight 0 left out (as ``logLik.lm`` leaves
    zero weights out), the Jacobian unweighted, the variance weighted (car's
    ``powerTransform(lm(y ~ 1, weights=w))``; :mod:`~boxcoxstat.core.response`)."""
    rows = ~np.isnan(x) & (weights > 0)
    y, w = x[rows], weights[rows]
    if y.size < 3:
        raise BoxCoxError(f"only {y.size} value(s) have a positive weight and are not missing; "
                          "a power needs at least 3")
    return response_profile(y, qr_design(np.ones((y.size, 1)), w), family, w)


def _stacked(parts: list[Solution]) -> Solution:
    """One-column solutions side by side."""
    slopes = [np.full(1, np.nan) if s.slope is None else s.slope for s in parts]
    return Solution(lmbda=np.concatenate([s.lmbda for s in parts]),
                    nll=np.concatenate([s.nll for s in parts]),
                    converged=np.concatenate([s.converged for s in parts]),
                    nfev=np.concatenate([s.nfev for s in parts]), slope=np.concatenate(slopes))


def _fit_family(x: NDArray[np.float64], family: str,
                weights: NDArray[np.float64] | None = None,
                case_weights: NDArray[np.float64] | None = None,
                bounds: NDArray[np.float64] | None = None,
                complete: bool = False) -> dict[str, Any]:
    """ML estimate and log-likelihood of each column of ``x`` (NaN = missing) in one family
    (within ``bounds``, (p, 2), where given). ``weights`` are frequency weights (one
    sample profile); ``case_weights`` are ``lm(weights=)``'s: each column gets its own
    profile, the regression of its present, positively weighted values on the constant.
    ``complete``: the gate found no missing value (the sample need not look for one)."""
    profile: Any
    if case_weights is None:
        profile = SampleProfile(Sample.from_array(x, family, weights, complete=complete))
        free = solve(profile)
        sol = free if bounds is None else bounded_solution(profile, free, bounds)
        llf = -sol.nll + llf_constant(profile.sample.nobs())
    else:
        profiles = tuple(case_profile(x[:, j], case_weights, family)
                         for j in range(x.shape[1]))
        parts = [solve(prof) for prof in profiles]
        free = sol = _stacked(parts)
        if bounds is not None:
            sol = _stacked([bounded_solution(prof, one, bounds[j : j + 1]) for j, (prof, one)
                            in enumerate(zip(profiles, parts, strict=True))])
        profile = profiles
        llf = -sol.nll + np.concatenate([prof.llf_offset() for prof in profiles])
    slope = np.full(x.shape[1], np.nan) if sol.slope is None else sol.slope
    return {"lmbda": sol.lmbda, "nll": sol.nll, "llf": llf, "converged": sol.converged,
            "slope": slope, "free": free.lmbda, "profile": profile}


def _choose(x: NDArray[np.float64], family: str, weights: NDArray[np.float64] | None = None,
            case_weights: NDArray[np.float64] | None = None,
            bounds: NDArray[np.float64] | None = None, *,
            extremes: NDArray[np.float64], complete: bool = False):
    """Fit every column (``extremes`` their ``(p, 2)`` ranges); under ``"auto"`` pick the
    family per column and say why."""
    p = x.shape[1]
    fams = [family] * p
    reasons = [""] * p
    if family != "auto":
        return (_fit_family(x, family, weights, case_weights, bounds, complete), fams,
                reasons)
    positive = extremes[:, 0] > 0
    yj = _fit_family(x, "yeojohnson", weights, case_weights, bounds, complete)
    yj.pop("profile")
    out = {k: v.copy() for k, v in yj.items()}
    for j in np.flatnonzero(~positive):
        fams[j], reasons[j] = auto_family(None, float(yj["llf"][j]))
    if positive.any():
        idx = np.flatnonzero(positive)
        bc = _fit_family(x[:, idx], "boxcox", weights, case_weights,
                         None if bounds is None else bounds[idx], complete)
        bc.pop("profile")
        for k, j in enumerate(idx):
            fams[j], reasons[j] = auto_family(float(bc["llf"][k]), float(yj["llf"][j]))
            if fams[j] == "boxcox":
                for key in out:
                    out[key][j] = bc[key][k]
    return out, fams, reasons


def estimate_columns(x: NDArray[np.float64], family: str, names: list[str], *,
                     shift: float | None = None,
                     weights: NDArray[np.float64] | None = None,
                     case_weights: NDArray[np.float64] | None = None,
                     bounds: NDArray[np.float64] | None = None,
                     ymax: float | None = None, safe: bool = False,
                     extremes: NDArray[np.float64] | None = None,
                     complete: bool = False) -> Estimate:
    """The maximum-likelihood power of every column of validated data ``x`` (NaN =
    missing; ``shift`` added first, car's ``bcPower(gamma=)``) in a canonical ``family``
    (or ``"auto"``), with checked options: frequency ``weights`` or ``case_weights``
    (length n), ``bounds`` ((p, 2)), ``ymax``, and ``safe`` (transform with the safe power).
    ``names`` name the columns in errors. What the gate already knows saves passes over the
    data: ``extremes``, each column's ``(p, 2)`` range of present values (before the
    shift; taken from the data where ``None``), and ``complete``, no value is missing.

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.core.estimate import estimate_columns
    >>> x = np.random.default_rng(0).lognormal(size=(200, 1))
    >>> est = estimate_columns(x, "boxcox", ["x"])
    >>> est.families, bool(abs(est.lmbda[0]) < 0.2), bool(est.lost[0])
    (['boxcox'], True, False)
    """
    xs = x if shift is None else x + shift
    # the extremes of x + shift are those of x plus the shift (rounding is monotone)
    extremes = data_range(xs) if extremes is None else (
        np.array(extremes, dtype=np.float64) if shift is None else extremes + shift)
    est, fams, reasons = _choose(xs, family, weights, case_weights, bounds,
                                 extremes=extremes, complete=complete)
    profiles: tuple[Profile, ...] | None = None
    if case_weights is not None:
        profiles = (est["profile"] if family != "auto" else
                    tuple(case_profile(xs[:, j], case_weights, fams[j])
                          for j in range(x.shape[1])))

    def one_profile(j: int) -> Profile:
        if profiles is not None:
            return profiles[j]
        return SampleProfile(Sample.from_array(xs[:, j], fams[j], weights, complete=complete))

    p = x.shape[1]
    lam_mle = est["lmbda"]
    lam_used = lam_mle.copy()
    llf = est["llf"].copy()
    limits = np.tile([-np.inf, np.inf], (p, 1))
    if ymax is not None:
        for j in range(p):
            col = x[:, j]
            limits[j] = lambda_bounds(col[~np.isnan(col)], float(ymax), fams[j])
            lam_used[j] = float(np.clip(lam_mle[j], limits[j, 0], limits[j, 1]))
            if lam_used[j] != lam_mle[j] and abs(lam_used[j]) > LAMBDA_MAX:
                raise BoxCoxError(
                    f"ymax = {ymax:g} is too small for column {names[j]!r}: it bounds "
                    f"lambda to [{limits[j, 0]:.6g}, {limits[j, 1]:.6g}], beyond "
                    f"{LAMBDA_MAX:g} in magnitude, where the likelihood leaves float64; use "
                    "a larger ymax")
            if lam_used[j] != lam_mle[j]:
                one = one_profile(j)
                val, _ = one.evaluate(lam_used[j : j + 1], 0, score=False)
                llf[j] = one.llf_offset()[0] - val[0]
    lost = loses_resolution(extremes[:, 0], extremes[:, 1], lam_used, fams)
    gaps = np.full(p, np.inf)  # a sort of the columns that need a safe power, only
    for j in np.flatnonzero(lost).tolist():
        gaps[j] = min_relative_gap(xs[:, j])
    safe_values = safe_powers(lam_used, extremes[:, 0], extremes[:, 1], fams, ymax, lost,
                              gaps)
    if safe:
        none = np.isnan(safe_values)
        if none.any():
            raise BoxCoxError(
                f"no power keeps column(s) {[names[j] for j in np.flatnonzero(none)]} "
                "finite and resolved in float64 (Yeo-Johnson data of both signs beyond about "
                "1e50 in magnitude): rescale the data")
        for j in np.flatnonzero(safe_values != lam_used).tolist():
            lam_used[j] = safe_values[j]
            one = one_profile(j)
            val, _ = one.evaluate(lam_used[j : j + 1], 0, score=False)
            llf[j] = one.llf_offset()[0] - val[0]
    return Estimate(
        lmbda=lam_mle, used=lam_used, nll=est["nll"], llf=llf, converged=est["converged"],
        free=est["free"], families=fams, reasons=reasons, limits=limits, extremes=extremes,
        lost=lost, safe=safe_values, profiles=profiles,
        fitted=None if family == "auto" or ymax is not None or profiles is not None else (
            est["profile"], est["slope"]),
        unconverged=[] if est["converged"].all() else
        [names[j] for j in np.flatnonzero(~est["converged"])])


def fixed_power(x: NDArray[np.float64], family: str, lmbda: NDArray[np.float64], *,
                extremes: NDArray[np.float64] | None = None, complete: bool = False
                ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64],
                           NDArray[np.bool_]]:
    """A given power per column of validated data ``x`` (NaN = missing) in a canonical
    ``family``: the negative log-likelihood and log-likelihood there, the data's ``(p, 2)``
    extremes and whether the power loses their resolution (``core.resolution``).
    ``extremes`` and ``complete``: the gate's, as :func:`estimate_columns` takes them.

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.core.estimate import fixed_power
    >>> nll, llf, ext, lost = fixed_power(np.array([[1.0], [2.0], [4.0]]), "boxcox",
    ...                                   np.array([0.0]))
    >>> ext.tolist(), lost.tolist()
    ([[1.0, 4.0]], [False])
    """
    extremes = data_range(x) if extremes is None else np.array(extremes, dtype=np.float64)
    profile = SampleProfile(Sample.from_array(x, family, complete=complete))
    nll, _ = profile.evaluate(lmbda, np.arange(x.shape[1]), score=False)
    llf = profile.llf_offset() - nll
    lost = loses_resolution(extremes[:, 0], extremes[:, 1], lmbda, [family] * x.shape[1])
    return nll, llf, extremes, lost
