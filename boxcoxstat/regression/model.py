"""``lm``: a linear model whose response power is estimated by maximum likelihood.

The formula and data become ``(y, X, w, names)`` (``formula.py``), the design is
factorised once (``design.qr_design``) and the response power solved from the stable score
(``regression.solve_lambda``); the result is an :class:`~boxcoxstat.regression.results.LmResult`.
"""

from __future__ import annotations

import warnings
from dataclasses import replace
from typing import Any, Literal

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from .._validation.columns import (
    BoxCoxError,
    ColumnReport,
    check_column,
    check_option,
    check_response_scale,
    normalize_family,
)
from .._validation.containers import as_pandas_frame
from ..base.transform import Provenance
from ..core.bounds import check_bounds
from ..core.design import qr_design
from ..core.profile import Profile
from ..core.resolution import data_range, loses_resolution, min_relative_gap, safe_powers
from ..core.response import ResponseProfile, response_profile
from ..core.shifted import GAMMA_MIN, ShiftedColumn, ShiftedProfile
from ..core.solve import bounded_solution, solve
from ..univariate.model import check_shift, gamma_summary
from ..univariate.results import PowerTransformResult
from .formula import caller_environment, model_frame, term_lambdas
from .results import LmResult

__all__ = ["lm"]


def lm(
    formula: str,
    data: pd.DataFrame,
    *,
    family: Literal["boxcox", "yeojohnson", "bcnpower"] | None = None,
    weights: Any = None,
    missing: Literal["drop", "raise"] = "drop",
    gamma: float | None = None,
    gamma_min: float = GAMMA_MIN,
    lmbda: float | None = None,
    bounds: Any = None,
) -> LmResult:
    """Fit a linear model with a Box-Cox (or Yeo-Johnson) transformed response.

    The power of the response is the maximiser of the profile likelihood of the normal linear
    model (Box & Cox 1964), as ``MASS::boxcox(lm(...))`` and ``car::powerTransform(lm(...))``
    compute it, but solved exactly; the model is then refitted at that power. A fixed power
    (``lmbda=``, or ``bc(y, lmbda=0)`` on the left) is fitted without estimation.

    Parameters
    ----------
    formula : str
        A patsy formula. The response may be written plainly (``y ~ x``) or as ``bc(y)`` /
        ``yj(y)``: either way its power is estimated conditional on the predictors (MASS
        semantics); the wrapper chooses the family, and ``bc(y, lmbda=0)`` fixes the
        power. Predictors may use ``bc(x)`` and
        ``yj(x)`` (their powers are estimated marginally, once, and reused in ``predict``),
        ``bc(x, lmbda=0.5)`` (a fixed power), ``np.log(x)``, ``C(g)`` and the variables of
        the calling scope.
    data : DataFrame
        pandas, or another library's DataFrame (polars, pyarrow...; read by column name).
    family : {"boxcox", "yeojohnson", "bcnpower"}, optional
        The response's family; default Box-Cox, or the one the response's wrapper names.
        ``"bcnpower"``: car's Box-Cox with a shift estimated jointly (Hawkins & Weisberg
        2017), for responses of any sign; ``m.power`` then carries ``gamma``.
    weights : str or array_like, optional
        Case weights (a column name or a vector aligned with ``data``), as ``lm(weights=)``:
        weighted least squares; the Jacobian is not weighted (as ``car::powerTransform``).
    missing : {"drop", "raise"}, default="drop"
        Rows with a missing value in any used variable (or weight) are left out and counted
        (``n_dropped``), or refused; ``predict`` follows the same policy for new data
        (NaN in place, or refused).
    lmbda : float, optional
        Fit at this response power instead of estimating it (``lmbda=0``: the log). The
        same as writing the response as ``bc(y, lmbda=0)``. The result's ``power.fixed``
        is True, and the power has no standard error, interval or test.
    gamma : float, optional
        A known shift: Box-Cox of ``y + gamma`` (``family="boxcox"``), or bcnPower's gamma
        held fixed (``family="bcnpower"``).
    gamma_min : float, default=0.1
        bcnPower's lower bound for gamma (car's default).
    bounds : (lo, hi), optional
        Estimate the response power on ``[lo, hi]`` only (as :func:`boxcoxstat.fit`'s
        ``bounds``): the profile maximum on the interval; ``m.power``'s interval and tests
        are measured from it and its summary says when a bound is active.

    Returns
    -------
    LmResult

    Raises
    ------
    BoxCoxError
        For unknown names in the formula, a Box-Cox response with values <= 0, missing
        values under ``missing="raise"``, non-positive weights, or no residual degrees of
        freedom.

    Notes
    -----
    .. math:: \\ell(\\lambda) = -\\tfrac{n}{2}\\log(\\mathrm{RSS}_w(\\lambda)/n)
              + (\\lambda - 1)\\sum_i \\log y_i + \\text{const}

    is evaluated from one QR factorisation of the design with the transformed response's scale
    kept on the log scale, so no lambda overflows; lambda is the root of the score. Aliased
    design columns are dropped as ``lm`` drops them (tolerance 1e-7) and listed in
    ``aliased``. Without an intercept the profile likelihood is that of ``y`` itself; MASS's
    ``boxcox`` then differs because it rescales ``y`` by its geometric mean first.

    References
    ----------
    - Box, G. E. P. and Cox, D. R. (1964). An analysis of transformations. JRSS B 26, 211-243.
    - Venables, W. N. and Ripley, B. D. (2002). Modern Applied Statistics with S, 4th ed.
      (``MASS::boxcox``).

    Examples
    --------
    >>> import numpy as np, pandas as pd, boxcoxstat as bcs
    >>> rng = np.random.default_rng(1)
    >>> df = pd.DataFrame({"x": rng.uniform(1, 3, 150)})
    >>> df["y"] = np.exp(1 + 0.5 * df["x"] + rng.normal(scale=0.2, size=150))
    >>> m = bcs.lm("y ~ x", df)
    >>> round(m.lmbda, 3), m.power.rounded
    (-0.094, 0.0)
    >>> m.power.conf_int().round(2)
       lower  upper
    y  -0.41   0.23
    """
    check_option("missing", missing, ("drop", "raise"))
    if not isinstance(formula, str):
        raise BoxCoxError("formula must be a string such as 'y ~ x1 + x2'")
    env = caller_environment(1)
    data = as_pandas_frame(data)  # a polars (or other) DataFrame: its columns, by name
    frame, w = model_frame(formula, data, weights=weights, missing=missing, eval_env=env)
    fam = _response_family(frame.response_family, family, formula)
    with_shift = fam == "bcnpower" or gamma is not None
    check_column(ColumnReport.of(frame.y, lambda i: frame.index[i]), frame.response,
                 family="yeojohnson" if with_shift else fam, missing="raise", min_n=3,
                 tiny_scale=not with_shift)  # the response's profile reaches 1 / range
    if not with_shift and fam != "boxcox":
        check_response_scale(frame.y, f"response {frame.response!r}", "the linear model's")
    fixed = _fixed_power(lmbda, frame.response_lmbda)
    limits = check_bounds(bounds)
    if limits is not None and fixed is not None:
        raise BoxCoxError("bounds= restricts an estimated power; the response power is fixed "
                          "(lmbda= or bc(y, lmbda=...)), so there is nothing to bound")
    if fixed is not None and (fam == "bcnpower" or gamma is not None):
        raise BoxCoxError("a fixed response power is not available with family='bcnpower' or "
                          "gamma= yet; fit the shift, or transform with the power you chose")
    if gamma is not None and fam == "yeojohnson":
        raise BoxCoxError("gamma= applies to family='boxcox' (a fixed shift) or 'bcnpower'")
    if gamma is not None and fam == "boxcox":
        check_shift(frame.y, float(gamma), frame.response, lambda i: frame.index[i])
    design = qr_design(frame.x, w)
    likelihood: Profile
    if fam == "bcnpower":
        column = ShiftedColumn(frame.y, design, gamma_min=gamma_min, gamma_fixed=gamma,
                               weights=w)
        likelihood = ShiftedProfile((column,))
        likelihood.check_maximum([frame.response], "response")
    else:
        y = frame.y if gamma is None else frame.y + float(gamma)
        likelihood = response_profile(y, design, fam, w)
    aliased = tuple(frame.column_names[j] for j in design.aliased)
    scaled = None  # the response on the scale its power applies to (bcnPower: not checked)
    if fam != "bcnpower":
        scaled = (frame.y if gamma is None else frame.y + float(gamma))[:, None]
    common: dict[str, Any] = {
        "names": (frame.response,), "layout": "series", "families": (fam,),
        "nobs": [frame.y.shape[0]], "n_missing": [frame.n_dropped], "model": formula,
        "source": Provenance(profile=likelihood,
                             data_range=None if scaled is None else data_range(scaled))}
    if fixed is not None:
        power = PowerTransformResult._build(lmbda=[fixed], fixed=True, **common)
        power._warn_resolution(2, "fit another power (e.g. lmbda=0, the log), or estimate it "
                               "(no lmbda=) and refit at m.at('safe')", "response", scaled)
    else:
        power = _estimated(common, likelihood, formula, gamma, gamma_min, limits)
    if isinstance(likelihood, ResponseProfile) and likelihood.fits_exactly_at(power.lmbda):
        raise BoxCoxError(
            f"the model fits the transformed response exactly at lambda = {power.lmbda:.6g}; "
            "the likelihood is unbounded there" + (" and no power can be estimated"
                                                   if fixed is None else "")
        )
    if fixed is None and scaled is not None and power._source.data_range is not None:
        ext = power._source.data_range
        lost = loses_resolution(ext[:, 0], ext[:, 1], power._lmbda_used, (fam,))
        gaps = [min_relative_gap(scaled)] if lost[0] else None  # a sort only when needed
        power = replace(power, _safe_values=safe_powers(power._lmbda_used, ext[:, 0],
                                                       ext[:, 1], (fam,), None, lost, gaps))
        power._warn_resolution(2, "the safe power is {safe}: refit at it with m.at('safe'), "
                               "or at a rounded power, m.at('rounded')", "response", scaled,
                               lost)
    return LmResult(
        formula=formula, family=fam, response=frame.response, power=power,
        n_dropped=frame.n_dropped, term_lambdas=term_lambdas(frame.design_info),
        column_names=tuple(frame.column_names), aliased=aliased, missing=missing,
        design_info=frame.design_info, index=frame.index, y=frame.y, x=frame.x, weights=w,
    )


def _response_family(in_formula: str | None, family: str | None, formula: str) -> str:
    """The response's family: the formula's (``bc(y)``, ``yj(y)``, ...), ``family=``, which
    must agree with it, or Box-Cox."""
    if family is None:
        return in_formula or "boxcox"
    chosen = normalize_family(family, allow_auto=False, allow_shifted=True)
    if in_formula is not None and chosen != in_formula:
        raise BoxCoxError(
            f"family={family!r} contradicts the response {formula.split('~')[0].strip()!r}"
        )
    return chosen


def _estimated(common: dict[str, Any], likelihood: Profile, formula: str,
               gamma: float | None, gamma_min: float,
               limits: NDArray[np.float64] | None = None) -> PowerTransformResult:
    """The response power at its MLE (with bcnPower's shift, or the fixed one; within
    ``limits``, (1, 2), where given); ``common``: the result's other settings."""
    sol = free = solve(likelihood)
    bounded: dict[str, Any] = {}
    if limits is not None:
        sol = bounded_solution(likelihood, free, limits)
        bounded = {"bounds": limits, "lmbda_free": free.lmbda.copy()}
    if not sol.converged[0]:
        warnings.warn(f"the response power did not converge for {formula!r}",
                      RuntimeWarning, stacklevel=3)  # lm's caller
    shift: dict[str, Any] | None = None
    if isinstance(likelihood, ShiftedProfile):
        gam, gse, status, gcov = gamma_summary(list(likelihood.columns), sol.lmbda,
                                               likelihood.gamma_at(sol.lmbda), with_cov=True)
        shift = {"gamma_values": gam, "gamma_bse": gse, "gamma_status": status,
                 "gamma_min": float(gamma_min)}
        bounded["gamma_cov"] = gcov
    elif gamma is not None:
        shift = {"gamma_values": np.array([float(gamma)]), "gamma_status": ("fixed",)}
    if sol.slope is not None and np.all(np.isfinite(sol.slope)):
        # the solver's curvature estimate: the inference starts from the interval's
        # quadratic guess instead of differences of its own (two evaluations fewer)
        common = {**common, "source": replace(common["source"], fitted=(likelihood,
                                                                         sol.slope))}
    return PowerTransformResult._build(lmbda=sol.lmbda, nll=sol.nll, converged=sol.converged,
                                       shift=shift, **bounded, **common)


def _fixed_power(lmbda: Any, in_formula: float | None) -> float | None:
    """The fixed response power from ``lmbda=`` and/or ``bc(y, lmbda=...)`` (they must agree)."""
    if lmbda is None:
        return in_formula
    if isinstance(lmbda, bool) or not isinstance(lmbda, (int, float, np.integer, np.floating)) \
            or not np.isfinite(lmbda):
        raise BoxCoxError(f"lmbda must be a finite number (a fixed response power), got "
                          f"{lmbda!r}")
    if in_formula is not None and float(lmbda) != in_formula:
        raise BoxCoxError(f"lmbda={lmbda!r} contradicts the formula's response power "
                          f"{in_formula!r}")
    return float(lmbda)
