"""What users call: ``fit`` turns any input into one estimation core and a result object.

The estimator table (:data:`TABLE`) is the one place that says which fits exist: estimator
(``mle``, ``rewml``, ``carroll``, ``mtl``) x family (``boxcox``, ``yeojohnson``, ``auto``,
``bcnpower``) x settings (estimated or fixed ``lmbda=``, ``lmbda="safe"``, shifted ``gamma=``,
``bounds=``, ``weights=``, ``ymax=``, scikit-learn's ``sample_weight``) x container (in memory,
Dask, Spark) -> the function that fits it. Every door (:func:`fit`, ``PowerTransformer``, the
command line) goes through :func:`_fit`: the gate (:func:`boxcoxstat._validation.routes.admit`)
checks the options, finds the row or refuses the combination with one message built from the
table, and reads the data; the row's function fits them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, Literal

from ._validation.routes import Door, Hint, Route, Table, admit
from .core.shifted import GAMMA_MIN

if TYPE_CHECKING:
    from .robust.results import RobustTransformResult
    from .univariate.results import PowerTransformResult

__all__ = ["fit", "TABLE"]

ML, ROBUST = ("mle",), ("rewml", "carroll", "mtl")
NAMED = ("boxcox", "yeojohnson")  # the families with a power of their own
ANY = ("boxcox", "yeojohnson", "auto")  # ... and "auto", which picks one per column
FIT, PT = "fit", "PowerTransformer"

#: The estimator table: every fit that exists, and the function that fits it (``None``:
#: refused for now, "not available ... yet"). A row serves a request with its container,
#: estimator and family, every setting of ``needs`` and nothing beyond ``needs`` + ``takes``.
ROUTES: tuple[Route, ...] = (
    # in memory: maximum likelihood
    Route("memory", ML, ANY, "", "weighted ymax safe", "univariate.model:fit_request"),
    Route("memory", ML, ANY, "bounded", "weighted", "univariate.model:fit_request"),
    Route("memory", ML, NAMED, "fixed", "", "univariate.model:fixed_request"),
    Route("memory", ML, ("boxcox",), "shifted", "safe", "univariate.model:shifted_request"),
    Route("memory", ML, ("bcnpower",), "", "shifted", "univariate.model:shifted_request"),
    # in memory: the robust estimators of Raymaekers & Rousseeuw (2021)
    Route("memory", ROBUST, ANY, "", "options", "robust.model:fit_request", (FIT, PT)),
    # PowerTransformer: frequency weights, and ymax (1e100 by default) with bounds=
    Route("memory", ML, ANY, "", "frequency ymax safe", "univariate.model:fit_request", (PT,)),
    Route("memory", ML, ANY, "bounded", "frequency ymax", "univariate.model:fit_request",
          (PT,)),
    # Dask and Spark: partition by partition, never gathered
    Route("dask", ML, ANY, "", "ymax", "federated.daskfit:fit_request", (FIT, PT)),
    Route("dask", ML, ANY, "weighted", "ymax", "federated.daskfit:fit_request"),
    Route("dask", ML, ANY, "bounded", "", "federated.daskfit:fit_request"),
    Route("dask", ML, ANY, "bounded weighted", "", "federated.daskfit:fit_request"),
    Route("spark", ML, ANY, "", "ymax", "federated.sparkfit:fit_request"),
    Route("spark", ML, ANY, "weighted", "ymax", "federated.sparkfit:fit_request"),
    Route("spark", ML, ANY, "bounded", "weighted", "federated.sparkfit:fit_request"),
)

#: Advice a refusal carries when the request has every token of ``when``.
HINTS: tuple[Hint, ...] = (
    Hint("fixed robust", "lmbda= fixes the power, so there is nothing to estimate",
         "memory"),
    Hint("fixed ymax", "lmbda= fixes the power, so there is nothing to estimate", "memory"),
    Hint("fixed auto", "lmbda= fixes the power, so there is nothing to estimate: name the "
         "family", "memory"),
    Hint("fixed weighted", "a fixed power with weights: bcs.fit(x, weights=w).at(power)",
         "memory"),
    Hint("bounded ymax", "bounds=(lo, hi) bounds lambda itself, ymax= the transformed "
         "values: give one", "memory"),
    Hint("bounded safe", "bounds=(lo, hi) bounds lambda itself, lmbda='safe' the "
         "transformed values: give one", "memory"),
    Hint("fixed", "transform the collection with boxcoxstat.families.transform", "dask"),
    Hint("fixed", "fit, then transform with the result", "spark"),
)

TABLE = Table(ROUTES, HINTS, {
    FIT: Door(FIT),
    PT: Door(PT, estimator="estimator", family="method",
             families={"boxcox": "box-cox", "yeojohnson": "yeo-johnson", "auto": "auto"},
             settings={"safe": "lmbda='safe'", "bounded": "bounds=",
                       "frequency": "sample_weight", "ymax": "ymax="}),
    "cli": Door("cli", estimator="--method", family="--family", quoted=False,
                settings={"fixed": "--lmbda L (a fixed power)", "safe": "--lmbda safe",
                          "ymax": "--ymax"}),
})


def _check(door: str, **options: Any) -> None:
    """The table's verdict on a combination before any data are read (the command line
    checks its options before it reads the file): the one refusal, or nothing."""
    admit(TABLE, door, None, read=False, **options)


def _fit(door: str, data: Any, **options: Any) -> Any:
    """The table's entry, for every door: the gate (options, the row or the one refusal,
    the data), then the row's function. ``options`` are :func:`~boxcoxstat._validation.
    routes.admit`'s. Returns the fitter's result (``None`` when a ``PowerTransformer`` has
    only constant features)."""
    route, request = admit(TABLE, door, data, **options)
    if request.kept is not None and request.kept.size == 0:
        return None  # PowerTransformer: every feature constant, nothing to fit
    module, name = str(route.fitter).split(":")
    return getattr(importlib.import_module(f"boxcoxstat.{module}"), name)(request)


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
    return _fit(FIT, data, family=family, estimator=method, missing=missing, ymax=ymax,
                gamma=gamma, gamma_min=gamma_min, lmbda=lmbda, weights=weights, bounds=bounds,
                options=options, stacklevel=4)


