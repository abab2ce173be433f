"""What users call: ``fit`` turns any input into one estimation core and a result object.

Layer 6.
"""

from __future__ import annotations

from typing import Any, Literal

from ._validation import BoxCoxError, as_columns, normalize_family
from .robust.model import fit_robust_columns
from .robust.registry import get_method, parse_spec
from .robust.results import RobustTransformResult
from .univariate.model import fit_columns
from .univariate.results import PowerTransformResult

__all__ = ["fit"]


def fit(
    data: Any,
    *,
    family: Literal["boxcox", "yeojohnson", "auto"] = "boxcox",
    method: Literal["mle", "rewml", "carroll", "mtl"] = "mle",
    ymax: float | None = None,
    missing: Literal["drop", "raise"] = "drop",
    **options: Any,
) -> PowerTransformResult | RobustTransformResult:
    """Estimate the power transformation of each column.

    Parameters
    ----------
    data : array_like, pandas Series or DataFrame
        One column (1-D input, a Series or a list) or several (a DataFrame or 2-D array).
        The caller's object is never modified. A ``dask.array`` or ``dask.dataframe``
        collection is fitted partition by partition and never gathered (see
        :mod:`boxcoxstat.federated.daskfit`; ``family="auto"`` and ``ymax`` are not available
        for it).
    family : {"boxcox", "yeojohnson", "auto"}, default="boxcox"
        ``"auto"`` fits Yeo-Johnson to columns with values <= 0 and, for positive columns,
        the family with the larger log-likelihood; the summary says which and why.
    method : {"mle", "rewml", "carroll", "mtl"}, default="mle"
        Maximum likelihood, or a robust estimator of Raymaekers & Rousseeuw (2021):
        reweighted ML (``"rewml"``, computed as cellWise 2.5.3 ``transfo()``), Carroll's
        (1980) robustified ML, or maximum trimmed likelihood (``"mtl"``, fraction ``h``).
        Robust fits return a :class:`~boxcoxstat.robust.results.RobustTransformResult`
        with ``weights``, ``outliers``, ``cutoffs`` and ``standardized`` values; their
        lambda refers to prestandardized data (see ``boxcoxstat.robust.estimators``).
    ymax : float, optional
        Bound on the magnitude of transformed values. lambda is restricted to the interval
        where every ``|psi(lambda, x)| <= ymax`` (Lambert W inverse, Xu & Cormode 2025); the
        summary says when the bound is active. Without it the exact MLE is reported even when
        its transformed values overflow float64, and ``transform`` then refuses.
    missing : {"drop", "raise"}, default="drop"
        Missing values (NaN/None) are dropped per column and counted, or refused.
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
        For unusable input: non-numeric or constant columns, infinite values, fewer than 3
        finite values, Box-Cox with values <= 0, missing values under ``missing="raise"``.

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
    Box, G. E. P. and Cox, D. R. (1964). An analysis of transformations. JRSS B 26, 211-243.
    Yeo, I.-K. and Johnson, R. A. (2000). Biometrika 87, 954-959.
    Xu, X. and Cormode, G. (2025). Power transform revisited: numerically stable, and
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

    if is_dask(data):  # partitions are merged by Dask's tree reduction, never gathered
        from .federated.daskfit import fit_dask

        if method != "mle" or options:
            raise BoxCoxError(f"method={method!r} is not available for Dask input; use 'mle'")
        return fit_dask(data, family=family, missing=missing, ymax=ymax)
    fam = normalize_family(family)
    spec = parse_spec(get_method(method).name, **options)
    if spec.method != "mle":
        if ymax is not None:
            raise BoxCoxError("ymax= applies to method='mle' only")
        cols = as_columns(data, family="yeojohnson" if fam == "auto" else fam, missing=missing)
        return fit_robust_columns(cols, fam, spec)
    cols = as_columns(data, family="yeojohnson" if fam == "auto" else fam, missing=missing)
    return fit_columns(cols, fam, ymax)
