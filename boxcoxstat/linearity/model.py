"""``box_tidwell`` and ``inverse_response``: powers that make a regression linear.

Formulas and fitted models become arrays (``regression.formula``), the validation gate
checks them, and the objectives (``linearity.boxtidwell``, ``linearity.inverse``) are solved by the
one solver (one power) or the joint solver (several).
"""

from __future__ import annotations

import warnings
from typing import Any, Literal

import numpy as np
import pandas as pd

from .._validation.columns import BoxCoxError, ColumnReport, check_column, normalize_family
from .._validation.containers import to_matrix
from ..core import inference as inf
from ..core.joint_solve import fit_joint_lambda
from ..core.solve import solve
from ..regression.formula import caller_environment, model_frame
from .boxtidwell import BoxTidwellProfile, score_tests
from .inverse import InverseResponseProfile
from .results import BoxTidwellResult, InverseResponseResult

__all__ = ["box_tidwell", "inverse_response"]


def _rhs(other: str) -> str:
    if not isinstance(other, str) or not other.strip().startswith("~"):
        raise BoxCoxError(f"other must be a one-sided formula such as '~ type + women', got "
                          f"{other!r}")
    return other.strip()[1:].strip()


def box_tidwell(formula: str, data: pd.DataFrame, other: str | None = None, *,
                missing: Literal["drop", "raise"] = "drop") -> BoxTidwellResult:
    """Powers of predictors that make a regression linear (Box & Tidwell 1962; car's
    ``boxTidwell``).

    The model is ``y = b0 + sum_j beta_j x_j^lambda_j + (other terms) + e`` with normal
    errors; the powers maximise its likelihood (Box-Cox powers of the predictors, so lambda =
    0 is the log). Box & Tidwell's iteration, which car runs to a tolerance of 1e-3, converges
    to this maximum; here it is solved to full precision.

    Parameters
    ----------
    formula : str
        ``"y ~ x1 + x2"``: the response and the predictors to transform (numeric, > 0).
    data : DataFrame
    other : str, optional
        A one-sided formula of predictors that stay untransformed (car's ``other.x``), e.g.
        ``"~ type + women + I(women**2)"``.
    missing : {"drop", "raise"}, default="drop"
        Rows with a missing value in any variable of either formula are dropped, or refused.

    Returns
    -------
    BoxTidwellResult
        Powers, standard errors, profile intervals, car's score tests, LR tests, summary.

    Raises
    ------
    BoxCoxError
        A transformed predictor with values <= 0 (the predictor and row are named), unknown
        names, or too few rows.

    References
    ----------
    - Box, G. E. P. and Tidwell, P. W. (1962). Transformation of the independent variables.
      Technometrics 4, 531-550.
    - Fox, J. and Weisberg, S. (2019). An R Companion to Applied Regression, 3rd ed.

    Examples
    --------
    >>> import numpy as np, pandas as pd, boxcoxstat as bcs
    >>> rng = np.random.default_rng(1)
    >>> df = pd.DataFrame({"x": rng.uniform(1, 9, 200), "z": rng.normal(size=200)})
    >>> df["y"] = 2 + 3 * np.sqrt(df["x"]) + df["z"] + rng.normal(scale=0.2, size=200)
    >>> r = bcs.box_tidwell("y ~ x", df, other="~ z")
    >>> round(float(r.lmbda["x"]), 2), r.conf_int().round(2).values.tolist()
    (0.5, [[0.44, 0.57]])
    """
    if not isinstance(formula, str) or "~" not in formula:
        raise BoxCoxError("formula must be a string such as 'y ~ x1 + x2'")
    env = caller_environment(1)
    full = formula if other is None else f"{formula} + {_rhs(other)}"
    frame, _ = model_frame(full, data, missing=missing, eval_env=env)
    own, _ = model_frame(formula, data.iloc[frame.rows] if isinstance(data, pd.DataFrame)
                         else data, missing=missing, eval_env=env)
    names = [c for c in own.column_names if c != "Intercept"]
    if not names:
        raise BoxCoxError(f"the formula {formula!r} names no predictor to transform")
    cols = list(frame.column_names)
    x1 = frame.x[:, [cols.index(c) for c in names]]
    x2 = frame.x[:, [j for j, c in enumerate(cols) if c not in names]]
    if "Intercept" not in cols:
        x2 = np.column_stack([np.ones(frame.y.size), x2])
    for j, name in enumerate(names):
        report = ColumnReport.of(x1[:, j], lambda i: frame.index[i])
        if report.n_nonpositive:
            raise BoxCoxError(
                f"predictor {name!r} has {report.n_nonpositive} value(s) <= 0, first at row "
                f"{report.first_nonpositive!r}; Box-Tidwell powers need positive predictors "
                "(shift it, or move it to other=)")
        check_column(report, name, family="boxcox", min_n=3, noun="predictor")
    n, k = x1.shape
    if n <= x2.shape[1] + 2 * k:
        raise BoxCoxError(f"{n} rows are too few for {k} power(s) and {x2.shape[1] + k} "
                          "coefficients")
    problem = BoxTidwellProfile.build(frame.y, x1, x2)
    if k == 1:
        assert problem.single is not None
        sol = solve(problem.single)
        lam, nll, ok = sol.lmbda, float(sol.nll[0]), bool(sol.converged[0])
        cov = np.array([[inf.standard_error(problem.single, lam)[0] ** 2]])
    else:
        fit = fit_joint_lambda(problem, np.ones(k))
        lam, nll, ok = fit.lmbda, fit.nll, fit.converged
        try:
            cov = np.linalg.inv(fit.hessian)
        except np.linalg.LinAlgError:
            cov = np.full((k, k), np.nan)
    if not ok:
        warnings.warn("the Box-Tidwell powers did not converge", RuntimeWarning, stacklevel=2)
    z, _ = score_tests(frame.y, x1, x2)
    return BoxTidwellResult(
        formula=formula, other=other, names=tuple(names), lmbda_values=np.asarray(lam),
        cov_values=np.asarray(cov), score_z=z, nll_hat=nll,
        llf_constant=problem.llf_constant(), nobs=n, n_dropped=frame.n_dropped,
        converged=ok, problem=problem)


def _from_model(model: Any) -> tuple[np.ndarray, np.ndarray, str]:
    endog = getattr(getattr(model, "model", None), "endog", None)
    fitted = getattr(model, "fittedvalues", None)
    if endog is None or fitted is None:
        raise BoxCoxError("pass a fitted statsmodels results object (with model.endog and "
                          "fittedvalues), or the fitted values and y")
    name = getattr(model.model, "endog_names", None) or "y"
    return (np.asarray(endog, dtype=np.float64).reshape(-1),
            np.asarray(fitted, dtype=np.float64).reshape(-1), str(name))


def inverse_response(model_or_fitted: Any, y: Any = None, *,
                     family: Literal["boxcox", "yeojohnson"] = "boxcox"
                     ) -> InverseResponseResult:
    """The power of the response from the inverse response plot (Cook & Weisberg 1994; car's
    ``inverseResponsePlot`` / ``invTranEstimate``).

    Fits ``yhat ~ 1 + psi(lambda, y)`` by least squares over lambda, where ``yhat`` are the
    fitted values of a regression of the untransformed ``y``: the power that makes the fitted
    values linear in the transformed response.

    Parameters
    ----------
    model_or_fitted : statsmodels results, or array_like
        A fitted statsmodels regression (its ``model.endog`` and ``fittedvalues`` are used),
        or the fitted values.
    y : array_like, optional
        The response, when fitted values are given.
    family : {"boxcox", "yeojohnson"}, default="boxcox"

    Returns
    -------
    InverseResponseResult
        ``lmbda``, ``bse``, ``conf_int(interval="profile" | "car" | "wald")``, ``rss()``,
        ``test()``, ``summary()``, ``plot()``.

    Raises
    ------
    BoxCoxError
        A Box-Cox response with values <= 0, missing or infinite values, lengths that differ.

    References
    ----------
    - Cook, R. D. and Weisberg, S. (1994). Transforming a response variable for linearity.
      Biometrika 81, 731-737.
    - Fox, J. and Weisberg, S. (2019). An R Companion to Applied Regression, 3rd ed.

    Examples
    --------
    >>> import numpy as np, boxcoxstat as bcs
    >>> rng = np.random.default_rng(2)
    >>> y = rng.uniform(1, 3, 100) ** 3
    >>> r = bcs.inverse_response(2 + np.cbrt(y) + rng.normal(scale=0.01, size=100), y)
    >>> round(r.lmbda, 2)
    0.34
    """
    fam = normalize_family(family, allow_auto=False)
    if y is None:
        yy, fitted, name = _from_model(model_or_fitted)
    else:
        fitted = to_matrix(model_or_fitted)[0][:, 0]
        values, names, _, _ = to_matrix(y)
        yy, name = values[:, 0], names[0]
    if fitted.shape != yy.shape:
        raise BoxCoxError(f"the fitted values have {fitted.size} entries but y {yy.size}")
    drop = ("leave those rows out of both the fitted values and y (inverse_response has no "
            "missing= option)")
    check_column(ColumnReport.of(yy), name, family=fam, missing="raise", missing_remedy=drop)
    check_column(ColumnReport.of(fitted), "fitted values", family="yeojohnson",
                 missing="raise", missing_remedy=drop)
    prof = InverseResponseProfile.build(yy, fitted, fam)
    sol = solve(prof)
    if not sol.converged[0]:
        warnings.warn("the inverse response power did not converge", RuntimeWarning,
                      stacklevel=2)
    se = float(inf.standard_error(prof, sol.lmbda)[0])
    return InverseResponseResult(
        response=name, family=fam, lmbda_value=float(sol.lmbda[0]), bse_value=se,
        nll_hat=float(sol.nll[0]), nobs=int(yy.size), profile_=prof, y=yy, yhat=fitted)
