"""``bcs.fit`` by maximum likelihood: validated columns to a ``PowerTransformResult``.

The model of the estimator table's maximum-likelihood rows (``boxcoxstat.api.TABLE``):
estimated (``family="auto"``, ``ymax``, the safe power, frequency or case weights,
``bounds``), a fixed power, a known shift and bcnPower. It receives the gate's checked,
canonical request, hands the core the whole computation (one record back:
:func:`boxcoxstat.core.estimate.estimate_columns`, :func:`~boxcoxstat.core.estimate.
fixed_power`, bcnPower's :class:`~boxcoxstat.core.shifted.ShiftedProfile`) and builds the
result from it: door, gate, model, core, result, each once.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._validation.columns import Columns, check_shift
from .._validation.routes import Request
from ..base.transform import Provenance
from ..core.design import qr_design
from ..core.estimate import auto_family, estimate_columns, fixed_power
from ..core.resolution import loss_messages
from ..core.shifted import ShiftedColumn, ShiftedProfile, gamma_summary, shifted_bases
from ..core.solve import solve
from ..exceptions import ResolutionWarning
from .results import PowerTransformResult

__all__ = ["fit_columns", "auto_family", "fixed_columns",
           "fit_shifted_columns", "gamma_summary", "check_shift", "fit_request",
           "fixed_request", "shifted_request"]


def fit_columns(cols: Columns, family: str, ymax: float | None = None,
                stacklevel: int = 3, shift: float | None = None,
                weights: NDArray[np.float64] | None = None, *, safe: bool = False,
                safe_option: str = "bcs.fit(..., lmbda='safe')",
                case_weights: NDArray[np.float64] | None = None,
                bounds: NDArray[np.float64] | None = None) -> PowerTransformResult:
    """Maximum-likelihood power of every column of validated data (``family`` canonical, or
    ``"auto"``; ``shift`` is added first, car's ``bcPower(gamma=)``); the result keeps the
    data (and the frequency ``weights`` of the rows, or the case weights, validated by
    ``_validation.columns.case_weights``) for inference on demand.

    The core computes everything (:func:`~boxcoxstat.core.estimate.estimate_columns`),
    including every column's safe power (:func:`~boxcoxstat.core.resolution.safe_powers`);
    ``safe`` transforms with it. A power used that loses the data's resolution gives a
    :class:`~boxcoxstat.ResolutionWarning` naming the column and ``safe_option``, the
    caller's spelling of the safe power.

    ``case_weights`` (validated, length n) are ``lm(weights=)``'s, not frequency weights:
    each column's profile is that of ``lm(x ~ 1, weights=w)``
    (:func:`boxcoxstat.core.estimate.case_profile`).
    ``bounds`` ((p, 2), checked by the gate) restricts every lambda to its interval: the
    result's estimate, interval and tests are then the bounded maximum's."""
    x = cols.values
    x.setflags(write=False)  # the result keeps these data; nobody may change them
    if weights is not None:
        weights = np.array(weights, dtype=np.float64)
        weights.setflags(write=False)
    if case_weights is not None:
        case_weights = np.array(case_weights, dtype=np.float64)
        case_weights.setflags(write=False)
    complete = not cols.n_missing.any()  # the gate counted the missing values
    est = estimate_columns(x, family, cols.names, shift=shift, weights=weights,
                           case_weights=case_weights, bounds=bounds, ymax=ymax, safe=safe,
                           extremes=cols.extremes, complete=complete)
    if est.unconverged:
        warnings.warn(f"lambda did not converge for column(s) {est.unconverged}",
                      RuntimeWarning, stacklevel=stacklevel)
    p = x.shape[1]
    res = PowerTransformResult._build(
        cols.names, cols.layout, est.families, est.lmbda, lmbda_used=est.used, nll=est.nll,
        llf=est.llf,
        nobs=(x.shape[0] - cols.n_missing if case_weights is None else  # weight > 0
              (~np.isnan(x) & (case_weights[:, None] > 0)).sum(axis=0)),
        n_missing=cols.n_missing, converged=est.converged, reasons=est.reasons,
        requested=family, ymax=ymax, limits=est.limits,
        shift=None if shift is None else {"gamma_values": np.full(p, shift),
                                          "gamma_status": ("fixed",) * p},
        bounds=bounds, lmbda_free=None if bounds is None else est.free,
        safe=est.safe, safe_used=safe, weighted=case_weights is not None,
        source=Provenance(data=x, weights=weights, case_weights=case_weights,
                          data_range=est.extremes, profiles=est.profiles,
                          fitted=est.fitted),
    )
    if safe:
        res._warn_safe_outside(stacklevel)
    elif est.lost.any():
        res._warn_resolution(stacklevel, f"the safe power is {{safe}}: refit with "
                             f"{safe_option}, or use a rounded power", lost=est.lost)
    return res


def fit_shifted_columns(cols: Columns, family: str, *, gamma: float | None,
                        gamma_min: float, stacklevel: int = 3,
                        safe: bool = False) -> PowerTransformResult:
    """bcnPower (``family="bcnpower"``, gamma estimated unless given) or Box-Cox with a fixed
    shift (``family="boxcox"``, ``gamma`` given and checked by the gate, every ``x + gamma
    > 0``; ``safe``: transform with the safe power) of every column of validated data."""
    x = cols.values
    x.setflags(write=False)
    p = x.shape[1]
    if family == "boxcox":
        assert gamma is not None
        return fit_columns(cols, "boxcox", None, stacklevel=stacklevel + 1,
                           shift=float(gamma), safe=safe)
    present = [x[:, j][~np.isnan(x[:, j])] for j in range(p)]
    columns = [ShiftedColumn(v, qr_design(np.ones((v.size, 1))), gamma_min=gamma_min,
                             gamma_fixed=gamma) for v in present]
    profile = ShiftedProfile(tuple(columns))
    profile.check_maximum(cols.names)
    sol = solve(profile)
    gam, gse, status, gcov = gamma_summary(columns, sol.lmbda, profile.gamma_at(sol.lmbda),
                                           with_cov=True)
    llf = profile.llf_offset() - sol.nll
    # the resolution of the powers on their bases, decided before the result is built
    lost = loss_messages(shifted_bases(x, gam, cols.names), sol.lmbda, ["boxcox"] * p,
                         cols.names, "use a rounded power (result.at('rounded')) or "
                         "family='yeojohnson'")
    if not np.all(sol.converged):
        bad = np.asarray(cols.names, dtype=object)[~sol.converged].tolist()
        warnings.warn(f"lambda did not converge for column(s) {bad}", RuntimeWarning,
                      stacklevel=stacklevel)
    res = PowerTransformResult._build(
        cols.names, cols.layout, ("bcnpower",) * p, sol.lmbda, nll=sol.nll, llf=llf,
        nobs=x.shape[0] - cols.n_missing, n_missing=cols.n_missing, converged=sol.converged,
        shift={"gamma_values": gam, "gamma_bse": gse, "gamma_status": status,
               "gamma_min": float(gamma_min)}, gamma_cov=gcov,
        source=Provenance(data=x, profile=profile),
    )
    for text in lost:
        warnings.warn(text, ResolutionWarning, stacklevel=stacklevel)
    return res


def fixed_columns(cols: Columns, family: str, lmbda: Any,
                  stacklevel: int = 4) -> PowerTransformResult:
    """Every column of validated data at a given power (``fit(x, lmbda=...)``, one checked
    power per column: the gate's ``power_values``): no estimation; the result's likelihood
    is evaluated at that power (:func:`~boxcoxstat.core.estimate.fixed_power`) and it has no
    lambda inference. A power that loses the data's resolution gives a
    ``ResolutionWarning`` (``stacklevel`` counted from the warning's call in
    ``PowerTransformResult._warn_resolution``)."""
    x = cols.values
    x.setflags(write=False)
    p = x.shape[1]
    lam = np.array(lmbda, dtype=np.float64).reshape(-1)
    nll, llf, extremes, lost = fixed_power(x, family, lam, extremes=cols.extremes,
                                           complete=not cols.n_missing.any())
    res = PowerTransformResult._build(
        cols.names, cols.layout, (family,) * p, lam, nll=nll, llf=llf, fixed=True,
        nobs=x.shape[0] - cols.n_missing, n_missing=cols.n_missing,
        source=Provenance(data=x, data_range=extremes))
    if lost.any():
        res._warn_resolution(stacklevel - 1, "fix another power (e.g. at(0), the log, or "
                             "at('safe') of an estimated fit)", lost=lost)
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
