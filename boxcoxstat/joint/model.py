"""What users call for a joint (multivariate) power: ``fit_joint``.

Turns a DataFrame, a column list and a one-sided design formula into complete rows,
a factorised design and a ``JointProfile``, fits it and wraps the result.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Literal

import numpy as np
import pandas as pd
from scipy import linalg

from .._validation.columns import (
    BoxCoxError,
    as_columns,
    check_option,
    check_response_scale,
    normalize_family,
)
from .._validation.containers import as_pandas_frame, to_matrix
from ..core.bounds import check_bounds
from ..core.joint import JointObjective, JointProfile, design_with_intercept
from ..core.joint_solve import fit_joint_lambda
from ..core.shifted import GAMMA_MIN, JointShiftedProfile
from ..regression.formula import design_variables, one_sided_design
from ..univariate.model import gamma_summary
from .bounded import bounded_joint
from .results import JointTransformResult

__all__ = ["fit_joint"]


def _design_text(design: str | None) -> str:
    if design is None:
        return "~ 1"
    if not isinstance(design, str):
        raise BoxCoxError(f"design must be a formula string like '~ group', got {design!r}")
    text = design.strip()
    if not text.startswith("~"):
        raise BoxCoxError(
            f"design {design!r} must be one-sided, starting with '~' (for example '~ group'); "
            "the transformed columns are given by `columns`"
        )
    return text


def fit_joint(
    data: Any,
    columns: Sequence[str] | None = None,
    *,
    family: Literal["boxcox", "yeojohnson", "bcnpower"] = "boxcox",
    design: str | None = None,
    missing: Literal["drop", "raise"] = "drop",
    gamma: float | None = None,
    gamma_min: float = GAMMA_MIN,
    weights: Any = None,
    bounds: Any = None,
) -> JointTransformResult:
    """Estimate one power per column jointly, towards multivariate normality.

    The powers maximise the multivariate normal likelihood of the transformed columns around
    a linear model in ``design`` (profiling out its coefficients and the covariance), as R's
    ``car::powerTransform(cbind(y1, y2, ...) ~ design)`` does (Fox & Weisberg 2019). This is
    a separate function, not an option of :func:`boxcoxstat.fit`, because it returns a
    different kind of result (one vector of powers with a joint covariance and joint tests,
    rows dropped together) and a function's return type should not depend on an option.

    Parameters
    ----------
    data : DataFrame (pandas, polars, ...) or 2-D array_like
        The columns to transform and the design variables. Never modified. The result's
        ``transform`` returns the type it is given (a polars DataFrame for polars input).
    columns : sequence of str, optional
        Columns to transform. Default: every column of ``data`` not used by ``design``.
    family : {"boxcox", "yeojohnson", "bcnpower"}, default="boxcox"
        One family for all columns. ``"bcnpower"`` (car's ``family = "bcnPower"``) gives each
        column a shift gamma, estimated jointly with the powers (every gamma maximised out of
        the powers' likelihood); the result carries ``gamma`` and their standard errors.
    design : str, optional
        One-sided patsy formula evaluated on ``data`` (for example ``"~ group"`` or
        ``"~ x + C(g)"``); ``None`` means ``"~ 1"``. It must keep the intercept. The
        transformed columns are taken as multivariate normal with mean depending on it.
    missing : {"drop", "raise"}, default="drop"
        Rows with a missing value in any transformed column or design variable are dropped
        (and counted in ``n_missing``), or refused.
    gamma : float, optional
        bcnPower only: every column's gamma held at this value instead of estimated.
    gamma_min : float, default=0.1
        bcnPower's lower bound for gamma (car's default).

    weights : array_like or str, optional
        Case weights, one per row of ``data`` (or the name of a column): row i's covariance
        is ``Sigma / w_i``, the likelihood of the multivariate ``lm(cbind(...) ~ design,
        weights=w)``; rows of weight 0 are left out. With one column this is
        ``bcs.fit(x, weights=w)`` (``~ 1``) or ``bcs.lm`` with those weights.
        ``car::powerTransform`` with weights and several columns centres the weighted
        residuals (``var()``), which is not this likelihood unless the weights are equal; one
        column agrees with car. Not with ``family="bcnpower"``.

    bounds : (lo, hi) or array of shape (p, 2), optional
        Restrict the powers to a box (one pair for every column, or a pair per column): the
        joint maximum on it (L-BFGS-B, then Newton on the powers inside their bounds). The
        profile interval of each power is measured from that bounded maximum, with the other
        powers maximised inside their bounds, and stays within the power's bounds; the LR
        tests compare with the bounded maximum (a null outside the bounds is refused, or
        NaN in the summary); a power on a bound has no standard error (NaN), and the others'
        come from the Hessian block of the powers inside. Not with ``family="bcnpower"``.

    Returns
    -------
    JointTransformResult

    Raises
    ------
    BoxCoxError
        Unknown column or design name, non-numeric columns, Box-Cox with values <= 0 (the
        column is named), missing values under ``missing="raise"``, a design without
        intercept, or too few rows (more rows than columns + design rank are needed).

    Notes
    -----
    The negative log-likelihood ``n/2 log det Sigma_hat(lambda) - sum_j (lambda_j - 1)
    sum_i log J_ij`` is evaluated on scaled columns with a QR log-determinant and minimised
    by Newton's method with its analytic gradient and closed-form Hessian, from the
    per-column MLEs (``bcs.fit`` of each column), so the estimate is exact to about 1e-10.
    Standard errors come from the observed information (that Hessian). ``conf_int()`` is the
    profile-likelihood interval of each power with the other powers maximised out (the core's
    ``inference.profile_interval`` on ``core.column_profiles.ColumnProfiles``);
    ``interval="wald"`` and the summary give car's Wald bounds too. With one column every
    number is the one ``bcs.fit`` (``~ 1``) or ``bcs.lm`` (another design) gives. See
    :mod:`boxcoxstat.core.joint`.

    References
    ----------
    - Andrews, D. F., Gnanadesikan, R. and Warner, J. L. (1971). Biometrics 27, 825-840.
    - Velilla, S. (1993). Statistics & Probability Letters 17, 259-263.
    - Fox, J. and Weisberg, S. (2019). An R Companion to Applied Regression, 3rd ed.

    Examples
    --------
    >>> import boxcoxstat as bcs
    >>> hw = bcs.datasets.load("highway1")
    >>> r = bcs.fit_joint(hw, ["len", "adt", "trks", "sigs1"], design="~ htype")
    >>> r.lmbda.round(4)
    len      0.1451
    adt      0.2396
    trks    -0.7336
    sigs1   -0.2959
    Name: lmbda, dtype: float64
    >>> round(r.test(0).statistic, 4), r.test(0).df
    (13.1339, 4)
    """
    fam = normalize_family(family, allow_auto=False, allow_shifted=True)
    if gamma is not None and fam != "bcnpower":
        raise BoxCoxError("gamma= applies to family='bcnpower' in fit_joint")
    check_option("missing", missing, ("drop", "raise"))
    text = _design_text(design)
    limits = None
    if bounds is not None:
        if fam == "bcnpower":
            raise BoxCoxError("bounds= is not available with family='bcnpower' in fit_joint")
    w_all = None
    if weights is not None:
        if fam == "bcnpower":
            raise BoxCoxError("weights= is not available with family='bcnpower' in fit_joint")
        from .._validation.columns import case_weights

        frame = as_pandas_frame(data)
        if isinstance(weights, str):
            if not isinstance(frame, pd.DataFrame) or weights not in frame.columns:
                raise BoxCoxError(f"weights column {weights!r} is not in the data")
            if columns is None:  # the weights are not a column to transform
                used = design_variables(text, frame)
                columns = [str(c) for c in frame.columns if c not in used and c != weights]
            weights = frame[weights].to_numpy()
        w_all = case_weights(weights, len(frame))
    cols, y, x, n_missing, kept = _complete_rows(data, columns, design, text, missing, fam,
                                                 w_all)
    w = None if w_all is None else w_all[kept]
    n, p = y.shape
    limits = check_bounds(bounds, p)
    factored = design_with_intercept(x, w)
    rank = factored.rank
    if n <= p + rank:
        raise BoxCoxError(
            f"{n} complete rows are too few for {p} columns and a design of rank {rank}: "
            f"need more than {p + rank}"
        )
    _check_dependent(x, y, cols, fam)
    y.setflags(write=False)
    shifted: dict[str, Any] = {}
    problem: JointObjective
    if fam == "bcnpower":
        problem, sol, shifted = _fit_shifted(y, factored, gamma, gamma_min, cols)
    else:
        problem = JointProfile.build(y, factored, fam, w)
        sol = fit_joint_lambda(problem)
    cov = _checked_covariance(sol, cols, fam)
    bounded: dict[str, Any] = {}
    if limits is not None:
        lam_b, nll_b = bounded_joint(problem, sol.lmbda, limits)
        inside = (lam_b > limits[:, 0]) & (lam_b < limits[:, 1])
        if not inside.all():
            cov = np.full((p, p), np.nan)
            idx = np.flatnonzero(inside)
            if idx.size:
                h = problem.hessian(lam_b)  # p >= 2: one power inside, one on a bound
                cov[np.ix_(idx, idx)] = np.linalg.inv(h[np.ix_(idx, idx)])
        bounded = {"bounds": limits, "lmbda_free": sol.lmbda.copy()}
        sol = replace(sol, lmbda=lam_b, nll=nll_b)
    res = JointTransformResult(
        names=tuple(cols), _layout="frame", _families=(fam,) * p, _lmbda_used=sol.lmbda,
        design=text, cov_values=cov, nll_hat=sol.nll, nobs=n, n_missing=n_missing,
        design_rank=rank, converged=sol.converged, start_values=sol.start, problem=problem,
        llf_weights=0.0 if w is None else float(0.5 * p * np.sum(np.log(w))), **shifted,
        **bounded,
    )
    res._check_resolution(res._prepared(y), 2, _JOINT_RESOLUTION_HINT)
    return res


_JOINT_RESOLUTION_HINT = ("use a rounded power (result.rounded_power()), or fit the column "
                          "alone with bcs.fit(..., lmbda='safe') for its safe power")


def _chosen_columns(frame: pd.DataFrame, columns: Sequence[str] | None, text: str,
                    ) -> list[str]:
    """The columns to transform: ``columns``, checked, or every column the design does not
    use."""
    if columns is None:
        used = design_variables(text, frame)
        cols = [c for c in frame.columns if c not in used]
    else:
        if isinstance(columns, str):
            columns = [columns]
        cols = [str(c) for c in columns]
        absent = [c for c in cols if c not in frame.columns]
        if absent:
            raise BoxCoxError(
                f"no column(s) {absent} in the data; the columns are {list(frame.columns)}"
            )
        if len(set(cols)) != len(cols):
            raise BoxCoxError(f"columns {cols} lists a column twice")
    if not cols:
        raise BoxCoxError("no columns to transform")
    return cols


def _complete_rows(data: Any, columns: Sequence[str] | None, design: str | None,
                   text: str, missing: str, fam: str, weights: np.ndarray | None = None,
                   ) -> tuple[list[str], np.ndarray, np.ndarray, int, np.ndarray]:
    """The columns' names, their complete rows ``y`` (n, p), the design variables' values on
    those rows, the number of rows dropped and the kept rows' positions; every column
    checked for the family, by name. Rows of weight 0 are dropped (not counted missing)."""
    data = as_pandas_frame(data)  # a polars (or other) DataFrame: its columns, by name
    if isinstance(data, pd.DataFrame):
        frame = data
    else:
        if design is not None:
            raise BoxCoxError("a design formula needs a DataFrame with named columns")
        values, names, _, _ = to_matrix(data)
        frame = pd.DataFrame(values, columns=names)
    labels = frame.index
    frame = frame.copy(deep=False).reset_index(drop=True)
    frame.columns = [str(c) for c in frame.columns]
    cols = _chosen_columns(frame, columns, text)
    y_all, _, _, _ = to_matrix(frame[cols])
    y_missing = np.isnan(y_all).any(axis=1)
    if missing == "raise" and y_missing.any():
        bad = [c for j, c in enumerate(cols) if np.isnan(y_all[:, j]).any()]
        raise BoxCoxError(f"missing values in column(s) {bad}; drop them or use missing='drop'")
    xdf = one_sided_design(text, frame, missing)
    rows = xdf.index.to_numpy()  # positions: the frame's index was reset above
    keep = np.zeros(len(frame), dtype=bool)
    keep[rows] = True
    rows_x = np.zeros(len(frame), dtype=np.intp)
    rows_x[rows] = np.arange(len(rows))
    keep &= ~y_missing
    n_absent = int(np.sum(~keep))
    if weights is not None:
        keep &= weights > 0
    complete = bool(keep.all())  # then no copies (y is never written: read-only later)
    y = y_all if complete else y_all[keep]
    x = xdf.to_numpy(dtype=np.float64)
    x = x if complete and len(rows) == len(frame) else x[rows_x[keep]]
    # per-column checks (numeric, finite, spread, Box-Cox positivity) name the column
    as_columns(pd.DataFrame(y, columns=cols, index=labels if complete else labels[keep]),
               family="yeojohnson" if fam == "bcnpower" else fam, missing="raise",
               tiny_scale=fam == "yeojohnson")  # solved in lambda * unit (JointInUnits)
    if fam == "yeojohnson":
        for j, c in enumerate(cols):
            check_response_scale(y[:, j], f"column {c!r}", "the joint model's")
    if y.shape[0] == 0:
        raise BoxCoxError("no complete rows: every row has a missing value")
    return cols, y, x, n_absent, np.flatnonzero(keep)


def _checked_covariance(sol: Any, cols: list[str], fam: str) -> np.ndarray:
    """The joint estimate's covariance (inverse observed information), refused where the
    information is singular or the solver did not converge (bcnPower: a warning)."""
    p = len(cols)
    try:
        with np.errstate(all="ignore"):
            cov = sol.covariance()
    except np.linalg.LinAlgError:
        cov = np.full((p, p), np.nan)
    if not (np.all(np.isfinite(cov)) and np.all(np.diag(cov) > 0)):
        raise BoxCoxError(
            f"the information matrix of the joint fit of {cols} is singular at lambda = "
            f"{np.round(sol.lmbda, 6).tolist()}: the transformed columns are (nearly) "
            "functions of each other or of the design, so the powers are not determined; "
            "drop the redundant column(s) or fit them separately with bcs.fit"
        )
    if not sol.converged and fam != "bcnpower":
        raise BoxCoxError(
            f"the joint likelihood of {cols} has no maximum the optimiser can reach (lambda "
            f"drifted to {np.round(sol.lmbda, 4).tolist()}): the columns are (nearly) "
            "functions of each other or have too few distinct rows; drop a column or fit "
            "them separately with bcs.fit"
        )
    if not sol.converged:
        warnings.warn("the joint lambda did not converge (the likelihood may be flat or "
                      "unbounded); treat the estimates with caution", RuntimeWarning,
                      stacklevel=3)  # fit_joint's caller
    return cov


_DEPENDENT_TOL = 1e-9  # relative residual norm: about 7 digits above float64's resolution


def _check_dependent(x: np.ndarray, y: np.ndarray, cols: list[str], fam: str) -> None:
    """Refuse a column that is a linear function of the design and the columns before it, or
    (Box-Cox) whose log is one of their logs (``c = k a**q``): the joint likelihood is then
    unbounded and the information matrix singular.

    One unpivoted QR of ``[design, columns]``: the diagonal entry of each column is the norm
    of its residual on everything to its left. Computed on the transposed data (one row per
    column), so every reduction runs along contiguous memory and the QR receives the
    column-major layout LAPACK works in.
    """
    with np.errstate(all="ignore"):
        xt = np.ascontiguousarray(x.T)
        xt = xt - xt.mean(axis=1, keepdims=True)
        xtop = np.abs(xt).max(axis=1, keepdims=True)
        xt /= np.where(xtop > 0, xtop, 1.0)
        yt = np.ascontiguousarray(y.T)
    scales = [("", yt)]
    if fam == "boxcox":
        with np.errstate(all="ignore"):
            scales.append((" (on the log scale: it is a power of them)", np.log(yt)))
    for how, values in scales:
        with np.errstate(all="ignore"):
            top = np.maximum(values.max(axis=1), -values.min(axis=1))[:, None]
            if np.all((top > 1e-150) & (top < 1e150)):  # sums of squares stay finite
                values = values - values.mean(axis=1, keepdims=True)
            else:  # values near 1e-300 or 1e300: in units of their largest first
                values = values / np.where(top > 0, top, 1.0)
                values -= values.mean(axis=1, keepdims=True)
            size = np.sqrt(np.einsum("ij,ij->i", values, values))[:, None]
            values /= np.where(size > 0, size, 1.0)
            resid = _residual_norms(xt, values)
        for j in np.flatnonzero(~(resid > _DEPENDENT_TOL)):
            others = cols[:j] if j else []
            what = f"column(s) {others} and the design" if others else "the design"
            raise BoxCoxError(
                f"column {cols[j]!r} is a linear function of {what}{how}, so the joint "
                "likelihood is unbounded and the powers are not determined; drop it or fit "
                "it separately with bcs.fit"
            )


def _residual_norms(xt: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Norm of each row of ``values`` (unit rows) minus its projection on the rows of ``xt``
    and the rows of ``values`` before it.

    First from the Cholesky factor of the Gram matrix (one matrix product), whose relative
    error is about cond * eps: when every norm is above ``1e-4`` none can be below
    ``_DEPENDENT_TOL`` (1e-9). Otherwise (or if the Gram matrix is singular, as with
    aliased design columns) an unpivoted Householder QR decides.
    """
    keep = np.abs(xt).max(axis=1) > 0  # a centred intercept is all zeros
    m = np.vstack([xt[keep], values]) if keep.any() else values
    try:
        diag = np.abs(np.diag(np.linalg.cholesky(m @ m.T)))[int(keep.sum()):]
        if np.all(np.isfinite(diag)) and np.all(diag > 1e-4):
            return diag
    except np.linalg.LinAlgError:
        pass
    r = linalg.qr(np.vstack([xt, values]).T, mode="r", check_finite=False)[0]
    return np.abs(np.diag(r))[xt.shape[0]:]


def _fit_shifted(y: np.ndarray, design: Any, gamma: float | None, gamma_min: float,
                 cols: list[str]):
    """bcnPower columns: the joint powers with every gamma maximised out, then the gammas,
    their standard errors (from the joint information of all powers and gammas) and status."""
    p = y.shape[1]
    fixed = None if gamma is None else np.full(p, float(gamma))
    problem = JointShiftedProfile.build(y, design, gamma_min=gamma_min, gamma_fixed=fixed)
    if problem.single is not None:
        problem.single.check_maximum(cols)
    sol = fit_joint_lambda(problem, None if p == 1 else problem.start())
    if problem.single is None:
        problem.check_maximum(sol.lmbda, sol.nll, cols, problem.gamma_hat(sol.lmbda))
    if problem.single is not None:
        gam, gse, status = gamma_summary(list(problem.columns), sol.lmbda,
                                         problem.single.gamma_at(sol.lmbda))
    else:
        gam = problem.gamma_hat(sol.lmbda)
        _, _, status = gamma_summary([c for c in problem.columns], sol.lmbda, list(gam))
        gse = np.full(p, np.nan)
        est = [j for j, st in enumerate(status) if st == "estimated"]
        if est:  # the information of the powers and the estimated gammas (others held)
            keep = np.r_[np.arange(p), p + np.array(est, dtype=np.intp)]
            with np.errstate(all="ignore"):
                try:
                    info = problem.information(sol.lmbda, np.where(np.isfinite(gam), gam,
                                                                   np.nan))[np.ix_(keep, keep)]
                    gse[est] = np.sqrt(np.diag(np.linalg.inv(info)))[p:]
                except np.linalg.LinAlgError:
                    pass
    return problem, sol, {"_gamma_values": gam, "_gamma_bse": gse, "_gamma_status": status,
                          "_gamma_min": float(gamma_min)}
