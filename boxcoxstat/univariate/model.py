"""``bcs.fit`` by maximum likelihood: validated columns to a ``PowerTransformResult``.

Every column goes through the core's one solver on the sample's
profile (:class:`~boxcoxstat.core.profile.SampleProfile`); ``family="auto"`` compares the two
families' likelihoods per column; ``ymax`` bounds lambda by the Lambert W inverse.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._validation.columns import LAMBDA_MAX, BoxCoxError, ColumnReport, Columns
from .._validation.routes import Request
from ..base.transform import Provenance, power_values
from ..core import inference as inf
from ..core.bounds import lambda_bounds
from ..core.design import qr_design
from ..core.likelihood import llf_constant
from ..core.profile import Profile, SampleProfile
from ..core.resolution import data_range, loses_resolution, min_relative_gap, safe_powers
from ..core.response import response_profile
from ..core.sample import Sample
from ..core.shifted import ShiftedColumn, ShiftedProfile
from ..core.solve import Solution, bounded_solution, solve
from ..exceptions import ResolutionWarning
from .results import PowerTransformResult

__all__ = ["fit_columns", "auto_family", "fixed_columns", "fit_shifted_columns",
           "gamma_summary", "check_shift", "fit_request", "fixed_request", "shifted_request"]


def _fit_family(x: NDArray[np.float64], family: str,
                weights: NDArray[np.float64] | None = None,
                case_weights: NDArray[np.float64] | None = None,
                bounds: NDArray[np.float64] | None = None) -> dict[str, Any]:
    """ML estimate and log-likelihood of each column of ``x`` (NaN = missing) in one family
    (within ``bounds``, (p, 2), where given). ``weights`` are frequency weights (one
    sample profile); ``case_weights`` are ``lm(weights=)``'s: each column gets its own
    profile, the regression of its present, positively weighted values on the constant."""
    profile: Any
    if case_weights is None:
        profile = SampleProfile(Sample.from_array(x, family, weights))
        free = solve(profile)
        sol = free if bounds is None else bounded_solution(profile, free, bounds)
        profiles = None
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
    return {
        "lmbda": sol.lmbda,
        "nll": sol.nll,
        "llf": llf,
        "converged": sol.converged,
        "slope": slope,
        "free": free.lmbda,
        "profile": profile,
    }


def _stacked(parts: list[Solution]) -> Solution:
    """One-column solutions side by side."""
    slopes = [np.full(1, np.nan) if s.slope is None else s.slope for s in parts]
    return Solution(lmbda=np.concatenate([s.lmbda for s in parts]),
                    nll=np.concatenate([s.nll for s in parts]),
                    converged=np.concatenate([s.converged for s in parts]),
                    nfev=np.concatenate([s.nfev for s in parts]), slope=np.concatenate(slopes))


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


def _choose(x: NDArray[np.float64], family: str, weights: NDArray[np.float64] | None = None,
            case_weights: NDArray[np.float64] | None = None,
            bounds: NDArray[np.float64] | None = None):
    """Fit every column; under ``"auto"`` pick the family per column and say why."""
    p = x.shape[1]
    fams = [family] * p
    reasons = [""] * p
    if family != "auto":
        return _fit_family(x, family, weights, case_weights, bounds), fams, reasons
    positive = np.nanmin(x, axis=0) > 0
    yj = _fit_family(x, "yeojohnson", weights, case_weights, bounds)
    yj.pop("profile")
    out = {k: v.copy() for k, v in yj.items()}
    for j in np.flatnonzero(~positive):
        fams[j], reasons[j] = auto_family(None, float(yj["llf"][j]))
    if positive.any():
        idx = np.flatnonzero(positive)
        bc = _fit_family(x[:, idx], "boxcox", weights, case_weights,
                         None if bounds is None else bounds[idx])
        bc.pop("profile")
        for k, j in enumerate(idx):
            fams[j], reasons[j] = auto_family(float(bc["llf"][k]), float(yj["llf"][j]))
            if fams[j] == "boxcox":
                for key in out:
                    out[key][j] = bc[key][k]
    return out, fams, reasons


def auto_family(llf_boxcox: float | None, llf_yeojohnson: float) -> tuple[str, str]:
    """The rule of ``family="auto"`` for one column, and the reason shown in the summary.

    Box-Cox where the column is positive (``llf_boxcox`` is given) and its log-likelihood is
    at least Yeo-Johnson's; Yeo-Johnson otherwise. Shared by every path that fits a column
    (in memory, federated, Dask).

    Examples
    --------
    >>> from boxcoxstat.univariate.model import auto_family
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


def fit_columns(cols: Columns, family: str, ymax: float | None = None,
                stacklevel: int = 3, shift: float | None = None,
                weights: NDArray[np.float64] | None = None, *, safe: bool = False,
                safe_option: str = "bcs.fit(..., lmbda='safe')",
                case_weights: NDArray[np.float64] | None = None,
                bounds: NDArray[np.float64] | None = None) -> PowerTransformResult:
    """Maximum-likelihood power of every column of validated data (``family`` may be
    ``"auto"``; ``shift`` is added first, car's ``bcPower(gamma=)``); the result keeps the
    data (and the case ``weights``, frequency weights of the rows, validated by
    ``_validation.columns.case_weights``) for inference on demand.

    Every column's safe power is computed from its extremes
    (:func:`~boxcoxstat.core.resolution.safe_powers`); ``safe`` transforms with it. A power
    used that loses the data's resolution gives a :class:`~boxcoxstat.ResolutionWarning`
    naming the column and ``safe_option``, the caller's spelling of the safe power.

    ``case_weights`` (validated, length n) are ``lm(weights=)``'s, not frequency weights:
    each column's profile is that of ``lm(x ~ 1, weights=w)`` (:func:`case_profile`).
    ``bounds`` ((p, 2), ``core.bounds.check_bounds``) restricts every lambda to its interval:
    the result's estimate, interval and tests are then the bounded maximum's."""
    fam = family
    x = cols.values
    x.setflags(write=False)  # the result keeps these data; nobody may change them
    if weights is not None:
        weights = np.array(weights, dtype=np.float64)
        weights.setflags(write=False)
    xs = x if shift is None else x + shift
    if case_weights is not None:
        case_weights = np.array(case_weights, dtype=np.float64)
        case_weights.setflags(write=False)
    est, fams, reasons = _choose(xs, fam, weights, case_weights, bounds)
    profiles: tuple[Profile, ...] | None = None
    if case_weights is not None:
        profiles = (est["profile"] if fam != "auto" else
                    tuple(case_profile(xs[:, j], case_weights, fams[j])
                          for j in range(x.shape[1])))

    def one_profile(j: int) -> Profile:
        if profiles is not None:
            return profiles[j]
        return SampleProfile(Sample.from_array(xs[:, j], fams[j], weights))

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
                    f"ymax = {ymax:g} is too small for column {cols.names[j]!r}: it bounds "
                    f"lambda to [{limits[j, 0]:.6g}, {limits[j, 1]:.6g}], beyond "
                    f"{LAMBDA_MAX:g} in magnitude, where the likelihood leaves float64; use "
                    "a larger ymax")
            if lam_used[j] != lam_mle[j]:
                one = one_profile(j)
                val, _ = one.evaluate(lam_used[j : j + 1], 0, score=False)
                llf[j] = one.llf_offset()[0] - val[0]
    if not np.all(est["converged"]):
        bad = [cols.names[j] for j in np.flatnonzero(~est["converged"])]
        warnings.warn(f"lambda did not converge for column(s) {bad}", RuntimeWarning,
                      stacklevel=stacklevel)
    extremes = data_range(xs)  # one pass: the resolution checks need the extremes only
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
                f"no power keeps column(s) {[cols.names[j] for j in np.flatnonzero(none)]} "
                "finite and resolved in float64 (Yeo-Johnson data of both signs beyond about "
                "1e50 in magnitude): rescale the data")
        for j in np.flatnonzero(safe_values != lam_used).tolist():
            lam_used[j] = safe_values[j]
            one = one_profile(j)
            val, _ = one.evaluate(lam_used[j : j + 1], 0, score=False)
            llf[j] = one.llf_offset()[0] - val[0]
    res = PowerTransformResult._build(
        cols.names, cols.layout, fams, lam_mle, lmbda_used=lam_used, nll=est["nll"], llf=llf,
        nobs=((~np.isnan(x)).sum(axis=0) if case_weights is None else  # rows of weight > 0
              (~np.isnan(x) & (case_weights[:, None] > 0)).sum(axis=0)),
        n_missing=cols.n_missing, converged=est["converged"], reasons=reasons, requested=fam,
        ymax=ymax, limits=limits,
        shift=None if shift is None else {"gamma_values": np.full(p, shift),
                                          "gamma_status": ("fixed",) * p},
        bounds=bounds, lmbda_free=None if bounds is None else est["free"],
        safe=safe_values, safe_used=safe, weighted=case_weights is not None,
        source=Provenance(
            data=x, weights=weights, case_weights=case_weights, data_range=extremes,
            profiles=profiles,
            fitted=None if fam == "auto" or ymax is not None or profiles is not None else (
                est["profile"], est["slope"])),
    )
    if safe:
        _warn_safe_outside(res, stacklevel)
    elif lost.any():
        res._warn_resolution(stacklevel, f"the safe power is {{safe}}: refit with "
                             f"{safe_option}, or use a rounded power", lost=lost)
    return res


def _warn_safe_outside(res: PowerTransformResult, stacklevel: int) -> None:
    """Under ``lmbda="safe"``: a warning for every column whose safe power differs from the
    MLE and lies outside its 95% profile interval (every power the data support loses the
    resolution)."""
    moved = np.flatnonzero(res._lmbda_used != res._bounded())
    if not moved.size:
        return
    ci = res.conf_int()
    pvalue = inf.chi2_pvalue(res._safe_statistic)
    for j in moved:
        lo, hi = float(ci["lower"].iloc[j]), float(ci["upper"].iloc[j])
        if lo <= res._lmbda_used[j] <= hi:
            continue
        warnings.warn(
            f"column {res.names[j]!r}: no power in the 95% profile interval [{lo:.6g}, "
            f"{hi:.6g}] keeps the values resolved in float64; the safe power "
            f"{res._lmbda_used[j]:.6g} lies outside it (LR test against the MLE: p = "
            f"{pvalue[j]:.2g}); subtract an offset from the data or check their units",
            ResolutionWarning, stacklevel=stacklevel + 1)


def check_shift(x: NDArray[np.float64], gamma: float, name: str, row_label: object = None
                ) -> None:
    """Refuse a fixed Box-Cox shift that leaves a value <= 0 (naming the column and row)."""
    if not (np.isfinite(gamma)):
        raise BoxCoxError(f"gamma must be a finite number, got {gamma!r}")
    report = ColumnReport.of(x + gamma, row_label)  # type: ignore[arg-type]
    if report.n_nonpositive:
        bad = float(np.nanmin(x))
        raise BoxCoxError(
            f"column {name!r} plus the shift gamma = {gamma:g} has {report.n_nonpositive} "
            f"value(s) <= 0, first at row {report.first_nonpositive!r}; Box-Cox needs "
            f"x + gamma > 0: use gamma > {-bad:g} or family='bcnpower'")


def gamma_summary(columns: list[ShiftedColumn], lmbda: NDArray[np.float64],
                  gammas: list[float], with_cov: bool = False) -> tuple[Any, ...]:
    """Each column's gamma, its standard error (from the 2 x 2 observed information of
    (lambda, gamma); NaN unless gamma is estimated inside its bounds) and its status; with
    ``with_cov``, also the covariance of lambda and gamma (the off-diagonal of the inverse
    information; NaN where the standard error is)."""
    status, bse, cov = [], [], []
    for c, lam, g in zip(columns, lmbda, gammas, strict=True):
        if c.gamma_fixed is not None:
            status.append("fixed")
        elif g <= c.gamma_min * (1 + 1e-12):
            status.append("lower bound")
        elif g >= c.gamma_max * (1 - 1e-12):
            status.append("upper limit")
        else:
            status.append("estimated")
        se = cv = np.nan
        if status[-1] == "estimated":
            with np.errstate(all="ignore"):
                info = c.information(float(lam), g)
                det = np.linalg.det(info)
                if det > 0 and info[0, 0] > 0:
                    se = float(np.sqrt(info[0, 0] / det))
                    cv = float(-info[0, 1] / det)
        bse.append(se)
        cov.append(cv)
    out = (np.array(gammas, dtype=np.float64), np.array(bse), tuple(status))
    return (*out, np.array(cov)) if with_cov else out


def fit_shifted_columns(cols: Columns, family: str, *, gamma: float | None,
                        gamma_min: float, stacklevel: int = 3,
                        safe: bool = False) -> PowerTransformResult:
    """bcnPower (``family="bcnpower"``, gamma estimated unless given) or Box-Cox with a fixed
    shift (``family="boxcox"``, ``gamma`` given; ``safe``: transform with the safe power)
    of every column of validated data."""
    x = cols.values
    x.setflags(write=False)
    p = x.shape[1]
    if family == "boxcox":
        assert gamma is not None
        for j, name in enumerate(cols.names):
            check_shift(x[:, j], float(gamma), name, cols.row_label)
        res = fit_columns(cols, "boxcox", None, stacklevel=stacklevel + 1,
                          shift=float(gamma), safe=safe)
        return res
    present = [x[:, j][~np.isnan(x[:, j])] for j in range(p)]
    columns = [ShiftedColumn(v, qr_design(np.ones((v.size, 1))), gamma_min=gamma_min,
                             gamma_fixed=gamma) for v in present]
    profile = ShiftedProfile(tuple(columns))
    profile.check_maximum(cols.names)
    sol = solve(profile)
    gam, gse, status, gcov = gamma_summary(columns, sol.lmbda, profile.gamma_at(sol.lmbda),
                                           with_cov=True)
    if not np.all(sol.converged):
        bad = [cols.names[j] for j in np.flatnonzero(~sol.converged)]
        warnings.warn(f"lambda did not converge for column(s) {bad}", RuntimeWarning,
                      stacklevel=stacklevel)
    res = PowerTransformResult._build(
        cols.names, cols.layout, ("bcnpower",) * p, sol.lmbda, nll=sol.nll,
        llf=profile.llf_offset() - sol.nll, nobs=(~np.isnan(x)).sum(axis=0),
        n_missing=cols.n_missing, converged=sol.converged,
        shift={"gamma_values": gam, "gamma_bse": gse, "gamma_status": status,
               "gamma_min": float(gamma_min)}, gamma_cov=gcov,
        source=Provenance(data=x, profile=profile),
    )
    res._check_resolution(res._prepared(x), stacklevel,
                          "use a rounded power (result.at('rounded')) or "
                          "family='yeojohnson'")
    return res


def fixed_columns(cols: Columns, family: str, lmbda: Any,
                  stacklevel: int = 4) -> PowerTransformResult:
    """Every column of validated data at a given power (``fit(x, lmbda=...)``): no estimation;
    the result's likelihood is evaluated at that power and it has no lambda inference. A
    power that loses the data's resolution gives a ``ResolutionWarning`` (``stacklevel``
    counted from the warning's call in ``PowerTransformResult._at``)."""
    x = cols.values
    x.setflags(write=False)
    p = x.shape[1]
    lam = power_values(cols.names, lmbda, "lmbda")
    res = PowerTransformResult._build(
        cols.names, cols.layout, (family,) * p, lam, fixed=True,
        nobs=(~np.isnan(x)).sum(axis=0), n_missing=cols.n_missing,
        source=Provenance(data=x, data_range=data_range(x)))
    res._warn_resolution(stacklevel - 1, "fix another power (e.g. at(0), the log, or "
                         "at('safe') of an estimated fit)")
    return res


# ----------------------------------------------------------------------- the table's entries
def fit_request(req: Request) -> PowerTransformResult:
    """The estimated power of validated columns (the estimator table's row for maximum
    likelihood in memory, ``boxcoxstat.api.TABLE``): :func:`fit_columns` with the request's
    ``ymax``, safe power, case or frequency weights and bounds."""
    return fit_columns(req.data, req.family, req.ymax, stacklevel=req.stacklevel + 1,
                       weights=req.frequency, safe="safe" in req.settings,
                       safe_option=req.safe_option, case_weights=req.weights,
                       bounds=req.bounds)


def fixed_request(req: Request) -> PowerTransformResult:
    """A given power (``lmbda=``) on validated columns: :func:`fixed_columns`."""
    return fixed_columns(req.data, req.family, req.lmbda, stacklevel=req.stacklevel + 2)


def shifted_request(req: Request) -> PowerTransformResult:
    """bcnPower, or Box-Cox with a known shift (``gamma=``): :func:`fit_shifted_columns`."""
    return fit_shifted_columns(req.data, req.family, gamma=req.gamma,
                               gamma_min=req.gamma_min, stacklevel=req.stacklevel + 1,
                               safe="safe" in req.settings)
