"""``lmer``: a linear mixed model whose response power is estimated (car's definition).

The formula's random-effect terms are read by ``mixed.formula``, its fixed part and
the data by the linear model's ``model_frame``; the fixed-effects design is factorised once
(``design.qr_design``) and the response's residuals on it come from the linear model's
profile (``core.response``). ``mixed.profile.MixedProfile`` adds the random effects and is
solved by the one solver (``core.solve``) and the one inference module, as ``bcs.lm``'s
profile is; the result is a :class:`~boxcoxstat.mixed.results.LmerResult`.
"""

from __future__ import annotations

import warnings
from dataclasses import replace
from typing import Any, Literal

import numpy as np
import pandas as pd
import patsy
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
from ..core.resolution import data_range
from ..core.response import ResponseProfile
from ..core.shifted import GAMMA_MIN
from ..core.solve import bounded_solution, solve
from ..families import bcnpower, transform
from ..regression.formula import caller_environment, model_frame
from ..regression.model import _fixed_power
from ..univariate.model import gamma_summary
from ..univariate.results import PowerTransformResult
from .formula import RandomTerm, split_random
from .profile import MixedProfile, MixedShiftedColumn, MixedShiftedProfile, Structure
from .results import LmerResult, RandomDesign

__all__ = ["lmer"]


def lmer(
    formula: str,
    data: pd.DataFrame,
    *,
    family: Literal["boxcox", "yeojohnson", "bcnpower"] | None = None,
    REML: bool = True,  # noqa: N803 - lme4's name
    missing: Literal["drop", "raise"] = "drop",
    lmbda: float | None = None,
    bounds: Any = None,
) -> LmerResult:
    """Fit a linear mixed model with a Box-Cox (or Yeo-Johnson) transformed response.

    The power of the response maximises the objective of ``car::powerTransform`` for an
    ``lme4::lmer`` model: at each lambda the Jacobian-adjusted transformed response is refitted
    by REML (lme4's default) or ML and its log-likelihood taken (Fox & Weisberg 2019). Here the
    random-effect parameters are maximised tightly at each lambda and lambda is the root of
    the exact score, found by the same solver as ``bcs.lm``'s; the standard error, profile
    interval, LR tests and rounded power come from the same inference.

    Parameters
    ----------
    formula : str
        A formula with lme4's random-effect terms: ``y ~ x + (1 | g)`` (random intercepts),
        ``(1 + x | g)`` (correlated intercepts and slopes), ``(x || g)`` (uncorrelated),
        ``(1 | a/b)`` (``b`` nested in ``a``), ``(1 | a:b)``, and several terms for crossed
        factors. The fixed part is read as ``bcs.lm`` reads it (``C(f)``, ``np.log(x)``,
        ``bc(y)`` / ``yj(y)`` on the left to name the family).
    data : DataFrame
        pandas, or another library's DataFrame (read by column name).
    family : {"boxcox", "yeojohnson", "bcnpower"}, optional
        The response's family (default Box-Cox, or the one ``bc(y)`` / ``yj(y)`` names).
        ``"bcnpower"`` is car's ``powerTransform(lmer(...), family = "bcnPower")``
        (Hawkins & Weisberg 2017): Box-Cox of ``(y + sqrt(y^2 + gamma^2))/2``, any real
        response, the shift ``gamma >= 0.1`` profiled out of lambda's likelihood by the
        engine of ``bcs.lm(family="bcnpower")`` (``m.power.gamma``); a likelihood
        without a maximum (rising towards Manly's exponential transformation) is refused.
        Not with ``lmbda=``.
    REML : bool, default=True
        Fit by restricted maximum likelihood (as ``lmer``), or by maximum likelihood. With
        REML the objective is car's: the REML criterion of the Jacobian-adjusted response.
    missing : {"drop", "raise"}, default="drop"
        Rows with a missing value in any used variable (grouping factors included) are left
        out and counted (``n_dropped``), or refused.
    lmbda : float, optional
        Fit at this response power instead of estimating it.
    bounds : (lo, hi), optional
        Restrict the estimated power to ``[lo, hi]`` (``-inf`` / ``inf`` leave a side open;
        as forecast's ``lower`` / ``upper``): the maximum of car's objective on the interval.
        When the unconstrained maximum lies outside, lambda is the bound and the summary says
        so; ``m.power``'s interval is the powers within the bounds whose profile
        log-likelihood is within ``chi2(1, 0.95)/2`` of the bounded maximum (not the
        unconstrained interval cut at the bounds), its LR tests compare with the bounded
        maximum (a power outside the bounds is refused), and a power on a bound has no
        standard error. Not with ``lmbda=``.

    Returns
    -------
    LmerResult

    Raises
    ------
    BoxCoxError
        For a formula without random-effect terms or with one lme4 syntax this engine does
        not fit (a grouping expression that is not data columns), a grouping factor with one
        level or with as many levels as observations, unknown names, a Box-Cox response
        with values <= 0, or missing values under ``missing="raise"``.

    Warns
    -----
    RuntimeWarning
        When the random-effect parameters did not converge at some lambda the fit evaluated
        (the lambdas are listed in ``m.nonconverged``), or the power did not converge.

    Notes
    -----
    The model is lme4's (Bates et al. 2015): ``y = X beta + Z b + e``, ``b ~ N(0, sigma^2
    Lambda Lambda')`` with ``Lambda`` block diagonal (one lower-triangular factor per term,
    parameters bounded as lme4 bounds them), and its profiled deviance is evaluated with the
    transformed response's residuals on ``X`` taken from the linear model's overflow-free
    computation. When the random effects' variance is zero at every lambda the ML fit is
    exactly ``bcs.lm``'s (same lambda, standard error and log-likelihood); the REML fit has
    ``bcs.lm``'s lambda and its log-likelihood is scaled by ``(n - p)/n``.

    References
    ----------
    - Bates, D., Maechler, M., Bolker, B. and Walker, S. (2015). Fitting linear mixed-effects
      models using lme4. Journal of Statistical Software 67(1), 1-48.
    - Box, G. E. P. and Cox, D. R. (1964). An analysis of transformations. JRSS B 26, 211-243.
    - Fox, J. and Weisberg, S. (2019). An R Companion to Applied Regression, 3rd ed. (car).

    Examples
    --------
    >>> import numpy as np, pandas as pd, boxcoxstat as bcs
    >>> rng = np.random.default_rng(0)
    >>> g = np.repeat(np.arange(12), 8)
    >>> x = np.tile(np.arange(8.0), 12)
    >>> eta = 2 + 0.1 * x + rng.normal(scale=0.3, size=12)[g] + rng.normal(scale=0.1, size=96)
    >>> df = pd.DataFrame({"y": np.exp(eta), "x": x, "g": g})
    >>> m = bcs.lmer("y ~ x + (1 | g)", df)
    >>> round(m.lmbda, 2), m.power.rounded
    (-0.06, 0.0)
    >>> m.params.round(3)  # on the transformed scale
    Intercept    1.894
    x            0.091
    Name: coef, dtype: float64
    >>> m.predict(pd.DataFrame({"x": [0.0, 7.0], "g": [0, 99]})).round(3)  # 99: a new group
    0     7.231
    1    15.294
    Name: y, dtype: float64
    """
    check_option("missing", missing, ("drop", "raise"))
    if not isinstance(REML, (bool, np.bool_)):
        raise BoxCoxError(f"REML must be True or False, got {REML!r}")
    fixed_formula, terms = split_random(formula)
    env = caller_environment(1)
    data = as_pandas_frame(data)
    if not isinstance(data, pd.DataFrame) or len(data) == 0:
        raise BoxCoxError("data must be a DataFrame with at least one row")
    keep = _complete_random_rows(data, terms, missing)
    sub = data.iloc[keep]
    frame, _ = model_frame(fixed_formula, sub, missing=missing, eval_env=env)
    n_dropped = len(data) - frame.y.shape[0]
    rdata = sub.iloc[frame.rows]
    fam = _family(frame.response_family, family, formula)
    shifted = fam == "bcnpower"
    check_column(ColumnReport.of(frame.y, lambda i: frame.index[i]), frame.response,
                 family="yeojohnson" if shifted else fam, missing="raise", min_n=3,
                 tiny_scale=not shifted)
    if fam == "yeojohnson":
        check_response_scale(frame.y, f"response {frame.response!r}", "the mixed model's")
    fixed = _fixed_power(lmbda, frame.response_lmbda)
    if fixed is not None and shifted:
        raise BoxCoxError("a fixed response power is not available with family='bcnpower' "
                          "(as for bcs.lm); fit the power and the shift, or transform the "
                          "response with the power and shift you chose")
    limits = check_bounds(bounds)
    if limits is not None and fixed is not None:
        raise BoxCoxError("bounds= restricts an estimated power; the response power is fixed "
                          "(lmbda= or bc(y, lmbda=...)), so there is nothing to bound")
    design = qr_design(frame.x)
    n = frame.y.shape[0]
    if n - design.rank < 1:
        raise BoxCoxError(f"the model has {design.rank} fixed coefficients for {n} "
                          "observations; no residual degrees of freedom are left")
    rdesign = RandomDesign.build(terms, rdata, n)
    kept = [j for j in range(frame.x.shape[1]) if j not in set(design.aliased)]
    x_kept = frame.x[:, kept]
    structure = Structure.build(list(rdesign.dims), list(rdesign.nlevels))
    profile: MixedProfile | MixedShiftedProfile
    if shifted:
        column = MixedShiftedColumn(frame.y, design, rdesign.matrix(), structure, x_kept,
                                    bool(REML))
        profile = MixedShiftedProfile((column,))
        profile.check_maximum([frame.response], "response")
    else:
        resp = ResponseProfile.build(frame.y, design, fam)
        if resp.unit != 1.0:
            raise BoxCoxError(f"the response {frame.response!r} is on a scale below about "
                              "1e-20; rescale it (multiply by a power of ten) before fitting "
                              "a mixed model")
        profile = MixedProfile(resp, rdesign.matrix(), structure, x_kept, bool(REML))
    shape: dict[str, Any] = {"names": (frame.response,), "layout": "series",
                             "families": (fam,)}
    common: dict[str, Any] = {
        "nobs": [n], "n_missing": [n_dropped], "model": formula,
        "source": Provenance(profile=profile,
                             data_range=None if shifted else data_range(frame.y[:, None]))}
    if fixed is not None:
        power = PowerTransformResult._build(**shape, lmbda=[fixed], fixed=True, **common)
        power._warn_resolution(2, "fit another power (e.g. lmbda=0, the log)", "response",
                               frame.y[:, None])
    else:
        sol = free = solve(profile)
        bounded: dict[str, Any] = {}
        if limits is not None:  # the profile is not known to be convex: both ends compared
            sol = bounded_solution(profile, free, limits)
            bounded = {"bounds": limits, "lmbda_free": free.lmbda.copy()}
        if isinstance(profile, MixedShiftedProfile):
            gam, gse, status, gcov = gamma_summary(list(profile.columns), sol.lmbda,
                                                   profile.gamma_at(sol.lmbda), with_cov=True)
            bounded.update(shift={"gamma_values": gam, "gamma_bse": gse,
                                  "gamma_status": status, "gamma_min": GAMMA_MIN},
                           gamma_cov=gcov)
        power = PowerTransformResult._build(**shape, lmbda=sol.lmbda, nll=sol.nll,
                                            converged=sol.converged, **bounded, **common)
        if not sol.converged[0]:
            warnings.warn(f"the response power did not converge for {formula!r}",
                          RuntimeWarning, stacklevel=2)
        power._inference  # noqa: B018 - the interval and tests now, so failures are known
    lam_used = float(power._lmbda_used[0])
    if isinstance(profile, MixedShiftedProfile):
        col = profile.columns[0]
        assert isinstance(col, MixedShiftedColumn) and power._gamma_values is not None
        gamma_used = float(power._gamma_values[0])
        if not np.isfinite(gamma_used):
            raise BoxCoxError(f"the bcnPower likelihood of {formula!r} rises towards the "
                              "untransformed response (gamma -> infinity) at the estimated "
                              "power; fit the response untransformed or use "
                              "family='yeojohnson'")
        tfit = col.frame(gamma_used).prof.at(lam_used)[2]
        failures = tuple(sorted(set(col.failures())))
        psi = bcnpower(frame.y, lam_used, gamma_used)
    else:
        nll, _, tfit = profile.at(lam_used)
        if fixed is not None:
            power = replace(power, _llf_values=profile.llf_offset() - nll)
        failures = tuple(sorted(set(profile.failures)))
        psi = transform(frame.y, lam_used, fam)
    if failures:
        shown = ", ".join(f"{v:.6g}" for v in failures[:5])
        warnings.warn(
            f"the random-effect parameters of {formula!r} did not converge at lambda = "
            f"{shown}{' ...' if len(failures) > 5 else ''}; the likelihood there (and what "
            "uses it: the estimate, interval or tests) is not reliable; see m.nonconverged",
            RuntimeWarning, stacklevel=2)
    df = float(n - design.rank) if REML else float(n)
    fit = rdesign.fit(psi, x_kept, structure, tfit.theta, df)
    names = [frame.column_names[j] for j in kept]
    return LmerResult.assemble(
        formula=formula, fixed_formula=fixed_formula, family=fam, response=frame.response,
        reml=bool(REML), power=power, n_dropped=n_dropped, names=names,
        aliased=tuple(frame.column_names[j] for j in design.aliased), rdesign=rdesign,
        structure=structure, theta=tfit.theta, fit=fit, nonconverged=failures,
        missing=missing, design_info=frame.design_info, index=frame.index, y=frame.y,
        x=x_kept, profile=profile, data=rdata, refit=lmer,
    )


def _complete_random_rows(data: pd.DataFrame, terms: list[RandomTerm],
                          missing: str) -> NDArray[np.intp]:
    """Positions of the rows whose grouping factors and random-effect variables are all
    present (refused under ``missing="raise"``); unknown columns are refused by name."""
    ok = np.ones(len(data), dtype=bool)
    for t in terms:
        for col in t.columns:
            if col not in data.columns:
                raise BoxCoxError(f"the grouping factor {col!r} of the random-effect term "
                                  f"{t.label} is not a column of the data")
            ok &= data[col].notna().to_numpy()
        if t.expr.strip() not in ("1", "0 + 1"):
            try:
                mat = patsy.dmatrix(t.expr, data.reset_index(drop=True),
                                    NA_action=patsy.NAAction(NA_types=["NaN", "None"]),
                                    return_type="dataframe")
            except Exception as err:  # patsy's errors: unknown names, bad expressions
                msg = str(err).split("\n")[0]
                raise BoxCoxError(f"cannot evaluate the random-effect term {t.label}: "
                                  f"{msg}") from None
            present = np.zeros(len(data), dtype=bool)
            present[mat.index.to_numpy(dtype=np.intp)] = True
            ok &= present
    if missing == "raise" and not ok.all():
        first = data.index[int(np.flatnonzero(~ok)[0])]
        raise BoxCoxError(f"the random-effect terms' variables have missing values (first in "
                          f"row {first!r}); use missing='drop' to leave those rows out")
    if not ok.any():
        raise BoxCoxError("no complete rows: every row misses a grouping factor or a "
                          "random-effect variable")
    return np.flatnonzero(ok)


def _family(in_formula: str | None, family: str | None, formula: str) -> str:
    if family is None:
        chosen = in_formula or "boxcox"
    else:
        chosen = normalize_family(family, allow_auto=False, allow_shifted=True)
        if in_formula is not None and chosen != in_formula:
            raise BoxCoxError(f"family={family!r} contradicts the response "
                              f"{formula.split('~')[0].strip()!r}")
    return chosen
