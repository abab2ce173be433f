"""What users call: ``fit`` turns any input into one estimation core and a result object.

Layer 6.
"""

from __future__ import annotations

from typing import Any, Literal

from ._validation import BoxCoxError, as_columns, check_number, check_option, normalize_family
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
    from .federated.daskfit import is_dask
    from .federated.sparkfit import is_spark

    normalize_family(family, allow_shifted=True)  # a string naming a family, or the error
    get_method(method)  # a known estimator's name, or the registry's error
    check_option("missing", missing, ("drop", "raise"))
    ymax = None if ymax is None else check_number("ymax", ymax, positive=True)
    gamma = None if gamma is None else check_number("gamma", gamma)
    gamma_min = check_number("gamma_min", gamma_min, positive=True)
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
        if spark:
            from .federated.sparkfit import fit_spark

            return fit_spark(data, family=family, missing=missing, ymax=ymax)
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
        return fit_columns(cols, fam, ymax, safe=True)
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
    return fit_columns(cols, fam, ymax)


def _keywords(options: dict[str, Any]) -> str:
    """``keyword 'h'= is`` or ``keywords 'h'=, 'c'= are``, for an error message."""
    names = ", ".join(f"{k}=" for k in sorted(options))
    return f"keyword {names} is" if len(options) == 1 else f"keywords {names} are"
