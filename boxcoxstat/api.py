"""What users call: ``fit`` turns any input into one estimation core and a result object."""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from ._validation.columns import (
    BoxCoxError,
    as_columns,
    check_number,
    check_option,
    normalize_family,
)
from .core.bounds import check_bounds
from .core.shifted import GAMMA_MIN
from .robust.model import fit_robust_columns
from .robust.registry import get_method, parse_spec
from .robust.results import RobustTransformResult
from .univariate.model import fit_columns, fit_shifted_columns, fixed_columns
from .univariate.results import PowerTransformResult

__all__ = ["fit"]


def fit(
    data: Any,
    *,
    family: Literal["boxcox", "yeojohnson", "bcnpower", "auto"] = "boxcox",
    method: Literal["mle", "rewml", "carroll", "mtl"] = "mle",
    ymax: float | None = None,
    missing: Literal["drop", "raise"] = "drop",
    gamma: float | None = None,
    gamma_min: float = GAMMA_MIN,
    lmbda: Any = None,
    weights: Any = None,
    bounds: Any = None,
    **options: Any,
) -> PowerTransformResult | RobustTransformResult:
    """Estimate the power transformation of each column.

    Parameters
    ----------
    data : array_like, pandas Series or DataFrame
        One column (1-D input, a Series or a list) or several (a DataFrame or 2-D array) of
        real numbers; NaN, None, pd.NA and a masked array's masked entries are missing.
        The caller's object is never modified. A ``dask.array`` or ``dask.dataframe``
        collection is fitted partition by partition and never gathered (see
        :mod:`boxcoxstat.federated.daskfit`; ``family`` may be ``"boxcox"``,
        ``"yeojohnson"`` or ``"auto"``, and ``ymax`` applies); a ``pyspark.sql.DataFrame``
        of numeric columns likewise, partition by partition on the cluster (the ``spark``
        extra; :mod:`boxcoxstat.federated.sparkfit`).
    family : {"boxcox", "yeojohnson", "bcnpower", "auto"}, default="boxcox"
        ``"auto"`` fits Yeo-Johnson to columns with values <= 0 and, for positive columns,
        the family with the larger log-likelihood; the summary says which and why.
        ``"bcnpower"`` is car's Box-Cox with a shift (Hawkins & Weisberg 2017): the power of
        ``(x + sqrt(x^2 + gamma^2))/2``, for data of any sign, with ``gamma`` estimated
        jointly with lambda (``gamma >= gamma_min``); ``params``, ``bse`` and ``conf_int``
        then have a ``"<column>:gamma"`` row, and lambda's SE, profile interval and tests
        have gamma maximised out.
    method : {"mle", "rewml", "carroll", "mtl"}, default="mle"
        Maximum likelihood, or a robust estimator of Raymaekers & Rousseeuw (2021):
        reweighted ML (``"rewml"``, computed as cellWise 2.5.3 ``transfo()``), Carroll's
        (1980) robustified ML, or maximum trimmed likelihood (``"mtl"``, fraction ``h``).
        Robust fits return a :class:`~boxcoxstat.robust.results.RobustTransformResult`
        with ``weights``, ``outliers``, ``cutoffs`` and ``standardized`` values; their
        lambda refers to prestandardized data (see ``boxcoxstat.robust.estimators``).
        A robust fit leaves out the columns that have no robust scale (constant, or MAD 0:
        at least half the values equal) and lists them with the reason in the result's
        ``skipped`` and summary, as cellWise's ``transfo`` drops them; the other columns
        get the numbers they get alone.
    ymax : float, optional
        Bound on the magnitude of transformed values. lambda is restricted to the interval
        where every ``|psi(lambda, x)| <= ymax`` (Lambert W inverse, Xu & Cormode 2025); the
        summary says when the bound is active. Without it the exact MLE is reported even when
        its transformed values overflow float64, and ``transform`` then refuses.
    missing : {"drop", "raise"}, default="drop"
        Missing values (NaN/None) are dropped per column and counted, or refused.
    gamma : float, optional
        A known shift. With ``family="boxcox"``: Box-Cox of ``x + gamma`` (car's
        ``bcPower(gamma=)``; every ``x + gamma`` must be > 0). With ``family="bcnpower"``:
        gamma fixed instead of estimated (> 0).
    gamma_min : float, default=0.1
        bcnPower's lower bound for gamma (car's default); at the bound gamma is reported as
        such and held fixed.
    lmbda : float, one float per column, Series by column, or "safe", optional
        A fixed power instead of an estimate (``lmbda=0`` is the log): the result evaluates
        its likelihood there and transforms with it; its ``fixed`` is True and the power's
        ``bse``, ``conf_int``, ``test`` and ``rounded`` are not available. Needs
        ``method="mle"`` and a named family (not ``"auto"``). A power whose transformed
        values lose the data's resolution in float64 gives a
        :class:`~boxcoxstat.ResolutionWarning`.
        ``"safe"``: estimate as usual, but transform with each column's safe power
        (:attr:`~boxcoxstat.PowerTransformResult.safe`): the MLE where its transformed
        values keep the data's resolution, else the most likely power that does (a round
        trip within 1e-10 relative, values within 1e100); the interval, tests and standard
        error stay the MLE's, and the summary shows both powers and the LR test between
        them. Needs ``method="mle"`` (any ``family`` but ``"bcnpower"``; ``ymax`` applies).
    weights : array_like or str, optional
        Case weights, one per row (or the name of a column of a DataFrame ``data``, which is
        then not fitted): the weighted Gaussian likelihood of ``lm(x ~ 1, weights=w)``, as
        ``car::powerTransform(lm(x ~ 1, weights=w))`` maximises it: the variance weighted,
        the Jacobian not, ``n`` the rows of positive weight (rows of weight 0 are left out,
        as ``logLik.lm`` leaves them). Weights proportional to each other give the same
        lambda. The standard error, profile interval, tests and ``llf`` (R's
        ``logLik(lm(bc(x, lambda) ~ 1, weights=w))`` plus the Jacobian) are those of that
        likelihood. Needs ``method="mle"`` and a family other than ``"bcnpower"``; not
        with ``gamma=``.
    bounds : (lo, hi), optional
        Restrict lambda to ``[lo, hi]`` (``-inf`` / ``inf`` leave a side open; one pair for
        every column, or one pair per column): lambda is the maximum of the profile
        likelihood on the interval, which is the bound when the unconstrained maximum lies
        outside it (``bound_active``; the summary says so and gives the unconstrained
        maximum). The profile interval is measured from that bounded maximum: the powers in
        ``[lo, hi]`` whose profile log-likelihood is within ``chi2(1, 1 - alpha) / 2`` of it
        (not the unconstrained interval cut at the bounds); likelihood-ratio tests compare
        with it too (a power outside the bounds is refused); a lambda on a bound has no
        standard error (NaN). Needs ``method="mle"``, no ``ymax=``, no ``lmbda=``.
    **options
        The robust estimator's options, declared once in :mod:`boxcoxstat.robust.registry`
        and meaning the same in :func:`boxcoxstat.sensitivity_curve` and
        :func:`boxcoxstat.simulate`: every robust method takes ``lmbda_range`` (the lambda
        search range, default (-4, 6), expanded as cellWise does unless ``expand=False``),
        ``tol``, ``prestandardize``, ``quant``, ``c`` and ``subsample`` (Huber estimates of a
        column with more values from the 25000 cellWise draws; 0: all); ``"rewml"`` also
        ``nbsteps``, ``rectified``, ``rectify``, ``rectify_factor``; ``"mtl"`` also ``h``
        (fraction kept, 0.95); ``"mtl"`` and ``"carroll"`` ``grid`` (lambda grid points
        before Brent's refinement, 201). ``method="mle"`` takes none (it has ``ymax``).

    Warns
    -----
    ResolutionWarning
        When the power the result transforms with (the MLE, its ``ymax`` bound or a fixed
        power) loses the data's resolution in float64: the transformed values of the data
        could not be mapped back within 1e-8 relative (distinct values then share an
        output), or they overflow. The message names the column, what the power does to
        it (distinct values in and out, the round-trip error) and what to do: the safe
        power (``lmbda="safe"``), a rounded power, or an offset.

    Returns
    -------
    PowerTransformResult or RobustTransformResult
        The estimator's own result: maximum likelihood gives a ``PowerTransformResult``
        (intervals, tests, profiles), a robust method a ``RobustTransformResult`` (weights,
        outliers, cut-offs). Both share one surface (:class:`~boxcoxstat.base.transform.
        ColumnTransforms`: ``lmbda``, ``params``, ``transform``, ``inverse_transform``,
        ``summary()``, JSON).

    Raises
    ------
    BoxCoxError
        For unusable input, named by column (and first row) or option: columns that are not real
        numbers (datetimes, durations, text, categories, complex numbers, booleans), constant
        columns (robust methods: only if no column is left), infinite values, fewer than 3 finite
        values, Box-Cox with values <= 0, missing values under ``missing="raise"``, no columns or
        no rows, ragged lists, integers beyond float64, Yeo-Johnson data spanning less than 1e-150;
        options of the wrong type or value (a string ``ymax``, a NaN ``lmbda``,
        ``|lmbda| > 1e150``, ...).
        A masked array's masked entries are missing values.

    Notes
    -----
    The profile negative log-likelihood

    .. math:: \\mathrm{NLL}(\\lambda) = (1-\\lambda)\\sum_i \\log x_i
              + \\tfrac{n}{2}\\log \\widehat{\\sigma}^2_\\lambda

    is computed in the log domain with the constant dropped and lambda factored out, and its
    derivative likewise; lambda is the root of the derivative, bracketed by doubling and
    solved by Chandrupatla's method, so it is exact to about 1e-12 relative even at
    ``|lambda|`` of 1e9 (Xu & Cormode 2025). Standard errors come from the observed
    information, intervals from the profile likelihood.

    References
    ----------
    - Box, G. E. P. and Cox, D. R. (1964). An analysis of transformations. JRSS B 26, 211-243.
    - Yeo, I.-K. and Johnson, R. A. (2000). Biometrika 87, 954-959.
    - Xu, X. and Cormode, G. (2025). Power transform revisited: numerically stable, and
      federated.

    Examples
    --------
    >>> import numpy as np, boxcoxstat as bcs
    >>> x = np.random.default_rng(0).lognormal(mean=1.0, sigma=0.5, size=500)
    >>> r = bcs.fit(x)
    >>> round(r.lmbda, 3), round(float(r.bse['x']), 3), r.rounded
    (0.092, 0.068, 0.0)
    >>> r.conf_int().round(3)
       lower  upper
    x  -0.04  0.226
    """
    from ._validation.containers import is_spark
    from .federated.daskfit import is_dask

    normalize_family(family, allow_shifted=True)  # a string naming a family, or the error
    get_method(method)  # a known estimator's name, or the registry's error
    check_option("missing", missing, ("drop", "raise"))
    ymax = None if ymax is None else check_number("ymax", ymax, positive=True)
    gamma = None if gamma is None else check_number("gamma", gamma)
    gamma_min = check_number("gamma_min", gamma_min, positive=True)
    if (weights is not None or bounds is not None) and (
            method != "mle" or (lmbda is not None and not _is_safe(lmbda)) or gamma is not None
            or str(family).strip().lower() in ("bcnpower", "bcn")):
        raise BoxCoxError(
            "weights= and bounds= apply to the estimated power of method='mle' with family "
            f"'boxcox', 'yeojohnson' or 'auto' (no gamma=, no lmbda=), got method={method!r}, "
            f"family={family!r}" + (", gamma=" if gamma is not None else "")
            + (", lmbda=" if lmbda is not None and lmbda != "safe" else "")
            + ("; a fixed power with weights: bcs.fit(x, weights=w).at(power)"
               if lmbda is not None else ""))
    if bounds is not None and (ymax is not None or lmbda is not None):
        raise BoxCoxError("bounds= and ymax= (or lmbda='safe') both restrict the power; give "
                          "one: bounds=(lo, hi) bounds lambda itself, ymax= the transformed "
                          "values")
    if not (is_dask(data) or is_spark(data)) and isinstance(weights, str):
        data, weights = _weights_column(data, weights)
    dask, spark = is_dask(data), is_spark(data)
    if dask or spark:  # partitions are merged by a tree reduction, never gathered
        what = "Dask" if dask else "Spark"
        if method != "mle":
            raise BoxCoxError(f"method={method!r} is not available for {what} input, which "
                              "is fitted by maximum likelihood (method='mle') only; to use "
                              f"{method!r}, bring the data into memory first")
        if options:
            raise BoxCoxError(f"{_keywords(options)} not available for {what} input; {what} "
                              "input takes family=, ymax= and missing= (method='mle')")
        if gamma is not None or str(family).strip().lower() in ("bcnpower", "bcn"):
            raise BoxCoxError(f"family='bcnpower' and gamma= are not available for {what} "
                              "input yet; fit a pandas or NumPy column")
        if lmbda is not None:
            raise BoxCoxError(f"lmbda= (a fixed power) is not available for {what} input; "
                              "transform the collection with boxcoxstat.families.transform"
                              if dask else "lmbda= (a fixed power) is not available for "
                              "Spark input; fit, then transform with the result")
        if bounds is not None or (spark and weights is not None):
            raise BoxCoxError(f"bounds= is not available for {what} input yet (weights= is for "
                              "Dask); bring the data into memory first")
        if spark:
            from .federated.sparkfit import fit_spark

            return fit_spark(data, family=family, missing=missing, ymax=ymax)
        if weights is not None:
            from .federated.daskweights import fit_dask_weighted

            return fit_dask_weighted(data, weights, family=family, missing=missing, ymax=ymax)
        from .federated.daskfit import fit_dask

        return fit_dask(data, family=family, missing=missing, ymax=ymax)
    fam = normalize_family(family, allow_shifted=True)
    spec = parse_spec(get_method(method).name, **options)
    safe = isinstance(lmbda, str) and lmbda == "safe"
    if isinstance(lmbda, str) and not safe:
        raise BoxCoxError(f"lmbda must be a number, one number per column, a Series by "
                          f"column or 'safe', got {lmbda!r:.40}")
    if safe:
        if spec.method != "mle" or fam == "bcnpower":
            raise BoxCoxError("lmbda='safe' (the safe power of an ML estimate) needs "
                              f"method='mle' and family 'boxcox', 'yeojohnson' or 'auto', got "
                              f"method={method!r}, family={family!r}")
        if gamma is not None:
            check_option("family", fam, ("boxcox",))
            cols = as_columns(data, family="yeojohnson", missing=missing)
            return fit_shifted_columns(cols, fam, gamma=gamma, gamma_min=float(gamma_min),
                                       safe=True)
        cols = as_columns(data, family="yeojohnson" if fam == "auto" else fam,
                          missing=missing, tiny_scale=True)
        return fit_columns(cols, fam, ymax, safe=True,
                           case_weights=case_weights(weights, cols.values.shape[0]))
    if lmbda is not None and (fam == "bcnpower" or gamma is not None):
        raise BoxCoxError("lmbda= (a fixed power) is not available with family='bcnpower' or "
                          "gamma= yet; fit the shift, or transform with the power you chose")
    if fam == "bcnpower" or gamma is not None:
        if spec.method != "mle" or options or ymax is not None:
            raise BoxCoxError("family='bcnpower' and gamma= are available for method='mle' "
                              "without ymax= only")
        if fam not in ("boxcox", "bcnpower"):
            raise BoxCoxError(f"gamma= applies to family='boxcox' (a fixed shift) or "
                              f"'bcnpower', not {family!r}")
        if gamma is not None and fam == "bcnpower" and gamma <= 0:
            raise BoxCoxError(f"gamma must be a finite number (> 0 for bcnpower), got {gamma!r}")
        cols = as_columns(data, family="yeojohnson", missing=missing)
        return fit_shifted_columns(cols, fam, gamma=gamma, gamma_min=float(gamma_min))
    if lmbda is not None:
        if spec.method != "mle" or ymax is not None or fam == "auto":
            raise BoxCoxError(
                "lmbda= fixes the power, so there is nothing to estimate: it needs "
                "method='mle', no ymax=, and a named family ('boxcox' or 'yeojohnson'), "
                f"got method={method!r}, ymax={ymax!r}, family={family!r}"
            )
        cols = as_columns(data, family=fam, missing=missing, tiny_scale=True)
        return fixed_columns(cols, fam, lmbda)
    if spec.method != "mle":
        if ymax is not None:
            raise BoxCoxError("ymax= applies to method='mle' only")
        cols = as_columns(data, family="yeojohnson" if fam == "auto" else fam, missing=missing,
                          degenerate="skip")  # constant or MAD-0 columns: reported, not fitted
        return fit_robust_columns(cols, fam, spec, skip=True)
    cols = as_columns(data, family="yeojohnson" if fam == "auto" else fam, missing=missing,
                      tiny_scale=True)  # the sample's profile reaches lambda ~ 1/range
    return fit_columns(cols, fam, ymax,
                       case_weights=case_weights(weights, cols.values.shape[0]),
                       bounds=check_bounds(bounds, len(cols.names)))


def _is_safe(lmbda: Any) -> bool:
    return isinstance(lmbda, str) and lmbda == "safe"


def _weights_column(data: Any, name: str) -> tuple[Any, Any]:
    """``weights="w"``: the column ``w`` of a DataFrame as the weights, and the other columns
    as the data."""
    columns = getattr(data, "columns", None)
    if columns is None or getattr(data, "ndim", 2) != 2:
        raise BoxCoxError(f"weights={name!r} names a column, but the data are not a DataFrame; "
                          "pass the weights as an array")
    if name not in list(columns):
        raise BoxCoxError(f"weights column {name!r} is not in the data; its columns are "
                          f"{[str(c) for c in columns][:10]}")
    if len(columns) < 2:
        raise BoxCoxError(f"weights column {name!r} is the data's only column; nothing is "
                          "left to fit")
    w = data[name]
    w = w.to_numpy() if hasattr(w, "to_numpy") else np.asarray(w)
    import pandas as pd

    rest = data.drop(columns=[name]) if isinstance(data, pd.DataFrame) else data.drop(name)
    return rest, w  # (polars: drop takes the names)


def case_weights(weights: Any, n: int) -> NDArray[np.float64] | None:
    """Validated case weights (finite, >= 0, not all 0, length ``n``), a new array; the
    error names the first offending row.

    Examples
    --------
    >>> from boxcoxstat.api import case_weights
    >>> case_weights([1, 2, 0.5], 3).tolist()
    [1.0, 2.0, 0.5]
    >>> case_weights([1, -2, 1], 3)
    Traceback (most recent call last):
    ...
    boxcoxstat.exceptions.BoxCoxError: weights must be >= 0: row 1 has -2
    """
    if weights is None:
        return None
    if isinstance(weights, (str, bytes)):
        raise BoxCoxError(f"weights must be numbers, one per row (or a DataFrame column's "
                          f"name), got {weights!r:.40}")
    try:
        raw = np.asarray(weights.to_numpy() if hasattr(weights, "to_numpy") else weights)
        w = np.array(raw, dtype=np.float64, copy=True).reshape(-1)
    except (TypeError, ValueError):
        raise BoxCoxError("weights must be real numbers, one per row") from None
    if raw.dtype.kind in "bcmMOSUV" and raw.dtype != object or raw.dtype.kind == "b":
        raise BoxCoxError(f"weights must be real numbers, got dtype {raw.dtype}")
    if w.shape[0] != n:
        raise BoxCoxError(f"weights has length {w.shape[0]}, but the data have {n} rows; give "
                          "one weight per row")
    bad = np.flatnonzero(~np.isfinite(w))
    if bad.size:
        raise BoxCoxError(f"weights must be finite: row {int(bad[0])} has {float(w[bad[0]])} "
                          f"({bad.size} such row(s)); drop those rows or give them a weight")
    neg = np.flatnonzero(w < 0)
    if neg.size:
        raise BoxCoxError(f"weights must be >= 0: row {int(neg[0])} has {w[neg[0]]:g}")
    if not np.any(w > 0):
        raise BoxCoxError("all weights are zero: at least 3 rows need a positive weight")
    return w


def _keywords(options: dict[str, Any]) -> str:
    """``keyword 'h'= is`` or ``keywords 'h'=, 'c'= are``, for an error message."""
    names = ", ".join(f"{k}=" for k in sorted(options))
    return f"keyword {names} is" if len(options) == 1 else f"keywords {names} are"
