"""``guerrero`` and ``inv_boxcox``: forecast's ``BoxCox.lambda`` and ``InvBoxCox`` in Python.

Layer 6. A series (pandas Series with a regular index, or array-like) becomes a positive,
complete vector and a period; Guerrero's criterion (``core.guerrero``) or the seasonal-trend
regression's profile likelihood (``core.response``, solved by the one solver) gives lambda.
"""

from __future__ import annotations

import warnings
from typing import Any, Literal

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from .. import families
from .._input import to_matrix
from .._validation import BoxCoxError, ColumnReport, check_column, check_option
from ..base.transform import rows_text
from ..core.bounds import check_bounds
from ..core.design import qr_design
from ..core.guerrero import guerrero_lambda, subseries
from ..core.response import response_profile
from ..core.solve import solve
from .results import GuerreroResult

__all__ = ["guerrero", "inv_boxcox", "period_of"]

# seasonal periods by pandas frequency (the conventions of forecast, sktime and statsforecast)
_PERIODS = {"Y": 1, "A": 1, "Q": 4, "M": 12, "W": 52, "D": 7, "B": 5, "H": 24, "h": 24,
            "T": 60, "min": 60, "S": 60, "s": 60}


def period_of(series: Any) -> int:
    """The seasonal period of a series from its time index.

    A ``DatetimeIndex``, ``PeriodIndex`` or ``TimedeltaIndex`` gives it by its frequency
    (set, or inferred by pandas from regular times): yearly 1, quarterly 4, monthly 12, weekly
    52, daily 7, business-daily 5, hourly 24, minutely and secondly 60. A series without time
    information (a NumPy array, a list, a polars Series, a pandas index of numbers such as
    years) has period 1, as an R ``ts`` made without ``frequency``.

    Raises
    ------
    BoxCoxError
        A time index whose frequency cannot be told (irregular times), or an index of text or
        other labels (dates as strings): pass ``period=`` or give the series a DatetimeIndex
        or PeriodIndex.

    Examples
    --------
    >>> import pandas as pd
    >>> from boxcoxstat.timeseries.model import period_of
    >>> period_of(pd.Series(range(30), index=pd.date_range("2000-01", periods=30, freq="MS")))
    12
    >>> period_of(pd.Series(range(8), index=pd.period_range("2000Q1", periods=8, freq="Q")))
    4
    """
    index = getattr(series, "index", None)
    if not isinstance(index, pd.Index) or (pd.api.types.is_numeric_dtype(index.dtype)
                                           and not pd.api.types.is_bool_dtype(index.dtype)):
        return 1
    if not isinstance(index, (pd.DatetimeIndex, pd.PeriodIndex, pd.TimedeltaIndex)):
        first = repr(index[0]) if len(index) else ""
        raise BoxCoxError(
            f"the series' index holds {index.dtype} labels (such as {first:.40}), not times, so "
            "its seasonal period cannot be told; pass period= (12 for monthly data, 4 for "
            "quarterly, 1 for none) or give the series a DatetimeIndex or PeriodIndex "
            "(pd.to_datetime on the labels)")
    freq = index.freqstr
    if freq is None and len(index) >= 3 and not isinstance(index, pd.PeriodIndex):
        try:  # freq="infer" gives the string on pandas 2 and 3 alike (infer_freq warns)
            freq = type(index)(index, freq="infer").freqstr
        except (TypeError, ValueError):
            freq = None
    if not freq:
        raise BoxCoxError(
            "the series' time index has no regular frequency (pandas cannot infer one from "
            "its times: a gap, a repeated or an unsorted time), so its seasonal period cannot "
            "be told; pass period= (12 for monthly data, 4 for quarterly, 1 for none)")
    base = freq.split("-")[0].lstrip("0123456789")
    for key in sorted(_PERIODS, key=len, reverse=True):
        if base.startswith(key):
            return _PERIODS[key]
    raise BoxCoxError(f"cannot tell the seasonal period of frequency {freq!r}; pass period=")


def _series(series: Any) -> tuple[NDArray[np.float64], str]:
    columns = getattr(series, "columns", None)
    if columns is not None and len(columns) != 1:
        raise BoxCoxError(
            f"a time series is one column, got a table of {len(columns)} "
            f"({[str(c) for c in columns][:4]}); pass the values as a Series indexed by their "
            "times, e.g. df.set_index(pd.to_datetime(df['month']))['value'], or the values "
            "with period=")
    values, names, index, layout = to_matrix(series)
    if values.shape[1] != 1:
        raise BoxCoxError(f"a time series is one column, got {values.shape[1]}")
    name = names[0]
    report = ColumnReport.of(values[:, 0], (lambda i: index[i]) if index is not None else None)
    check_column(report, name, family="boxcox", missing="raise", min_n=3, noun="series",
                 missing_remedy="fill or interpolate them first (a time series cannot skip "
                 "a value: its subseries and seasons would shift)")
    return values[:, 0], name


def _seasonal_trend(n: int, period: int) -> NDArray[np.float64]:
    """forecast's ``tslm(x ~ trend + season)`` design (``~ trend`` for period 1)."""
    cols = [np.ones(n), np.arange(1.0, n + 1.0)]
    if period > 1:
        pos = np.arange(n) % period
        cols += [(pos == k).astype(np.float64) for k in range(1, period)]
    return np.column_stack(cols)


def guerrero(
    series: Any,
    period: int | None = None,
    *,
    method: Literal["guerrero", "loglik"] = "guerrero",
    lower: float = -1.0,
    upper: float = 2.0,
    bounds: Any = None,
) -> GuerreroResult:
    """The Box-Cox power of a time series, as forecast's ``BoxCox.lambda`` chooses it.

    Parameters
    ----------
    series : pandas Series or array_like
        A positive series without missing values, oldest first.
    period : int, optional
        The seasonal period (12 for monthly data). Default: from the frequency of a pandas
        series' DatetimeIndex or PeriodIndex (:func:`period_of`); 1 for a series without times
        (an array, or an index of numbers); refused for text labels or irregular times.
    method : {"guerrero", "loglik"}, default="guerrero"
        ``"guerrero"``: Guerrero's (1993) coefficient of variation of ``sd / mean^(1 -
        lambda)`` over subseries of ``max(2, period)`` observations, minimised (forecast's
        definition: the leading observations that do not fill a subseries are dropped).
        ``"loglik"``: the maximum-likelihood power of the regression on a linear trend and
        seasonal dummies (forecast's ``bcloglik``; a trend only for period 1), solved
        exactly where forecast takes the best of a grid of step 0.05.
    lower, upper : float, default=-1, 2
        The range of lambda (forecast's defaults).
    bounds : (lo, hi), optional
        The same range in the spelling of :func:`boxcoxstat.fit` and :func:`boxcoxstat.lm`
        (``bounds=(lo, hi)`` is ``lower=lo, upper=hi``; both ends finite); give it or
        ``lower``/``upper``, not both.

    Returns
    -------
    GuerreroResult

    Raises
    ------
    BoxCoxError
        A series with values <= 0 or missing values, or not longer than two periods (forecast
        returns 1 there without a word), ``lower >= upper``, no ``period=`` for a series
        whose index is text or irregular times, or (``"guerrero"``) fewer than two subseries
        that vary (a subseries of equal values is kept, with ratio 0, as forecast keeps it).

    References
    ----------
    - Guerrero, V. M. (1993). Time-series analysis supported by power transformations. Journal
      of Forecasting 12, 37-48.
    - Hyndman, R. J. and Khandakar, Y. (2008). Automatic time series forecasting: the forecast
      package for R. Journal of Statistical Software 27(3).

    Examples
    --------
    >>> import numpy as np, pandas as pd, boxcoxstat as bcs
    >>> t = np.arange(96)
    >>> level = np.exp(0.02 * t)
    >>> noise = 1 + 0.05 * np.sin(2.1 * t) + 0.1 * np.cos(2 * np.pi * t / 12)
    >>> x = pd.Series(level * noise, index=pd.date_range("2000-01", periods=96, freq="MS"))
    >>> r = bcs.guerrero(x)
    >>> r.period, round(r.lmbda, 3)
    (12, 0.015)
    """
    check_option("method", method, ("guerrero", "loglik"))
    if bounds is not None:
        if (lower, upper) != (-1.0, 2.0):
            raise BoxCoxError("give bounds=(lo, hi) or lower=/upper=, not both")
        limits = check_bounds(bounds)
        assert limits is not None
        lower, upper = float(limits[0, 0]), float(limits[0, 1])
    if not (np.isfinite(lower) and np.isfinite(upper) and lower < upper):
        raise BoxCoxError(f"need finite lower < upper, got {lower!r} and {upper!r}")
    x, name = _series(series)
    per = period_of(series) if period is None else period
    if isinstance(per, bool) or not isinstance(per, (int, np.integer)) or per < 1:
        raise BoxCoxError(f"period must be a whole number >= 1, got {period!r}")
    if x.size <= 2 * per:
        raise BoxCoxError(
            f"series {name!r} has {x.size} values, not more than two periods (2 x {per}); "
            "lambda cannot be chosen from it (forecast's BoxCox.lambda returns 1 here)")
    # Guerrero's criterion is scale free (each subseries' ratio is multiplied by c**lambda):
    # values near float64's limit are scaled by a power of two (exact) so sums stay finite
    top = float(np.max(x))
    sub = subseries(np.ldexp(x, -int(np.frexp(top)[1])) if top > 1e300 else x, per)
    if method == "guerrero":
        varying = int(np.sum(np.isfinite(sub.log_sd)))
        if varying < 2:  # the criterion is 0/0, or the same at every lambda
            k = sub.log_sd.size
            raise BoxCoxError(
                f"series {name!r}: {k - varying} of its {k} subseries of {sub.period} values "
                "are constant, so Guerrero's criterion does not depend on lambda (it needs at "
                "least two subseries that vary); use method='loglik' or a shorter period=")
        lam, value = guerrero_lambda(sub, float(lower), float(upper))
        nll = np.nan
    else:
        prof = response_profile(x, qr_design(_seasonal_trend(x.size, int(per))), "boxcox")
        sol = solve(prof, bounds=(lower, upper))  # the profile's maximum on [lower, upper]
        lam, nll = float(sol.lmbda[0]), float(sol.nll[0])
        value = float(prof.llf_offset()[0] - nll)
    return GuerreroResult(
        names=(name,), layout="series", families=("boxcox",),
        lmbda_used=np.array([lam]), method=method, period=int(per), lower=float(lower),
        upper=float(upper), criterion=float(value), nobs=int(x.size),
        n_used=int(sub.n_used if method == "guerrero" else x.size),
        n_dropped=int(sub.n_dropped if method == "guerrero" else 0),
        subseries_length=int(sub.period))


def inv_boxcox(
    y: ArrayLike,
    lmbda: float,
    *,
    kind: Literal["median", "mean"] = "median",
    fvar: ArrayLike | None = None,
) -> NDArray[np.float64]:
    """Back-transform forecasts from the Box-Cox scale, as forecast's ``InvBoxCox``.

    Parameters
    ----------
    y : array_like
        Values (point forecasts) on the transformed scale.
    lmbda : float
    kind : {"median", "mean"}, default="median"
        ``"median"``: ``(1 + lmbda y)^(1/lmbda)``, the median of the forecast distribution.
        ``"mean"``: forecast's bias adjustment (``biasadj = TRUE``), the second-order
        approximation of the mean ``x (1 + fvar (1 - lmbda) / (2 x^(2 lmbda)))``.
    fvar : array_like, optional
        The forecast variance on the transformed scale (needed for ``kind="mean"``).

    Returns
    -------
    ndarray
        The back-transformed values. Where ``1 + lmbda y <= 0`` no positive value transforms
        to ``y``: that value is NaN, with one ``UserWarning`` naming its positions, and the
        others are returned (the package's one rule for inverses, as ``LmResult.predict``
        and every result's ``inverse_transform``). forecast returns NA there for lambda < 0
        and ``-|1 + lmbda y|^(1/lmbda)`` for lambda > 0.

    Raises
    ------
    BoxCoxError
        For infinite ``y``, a negative ``fvar``, or ``kind="mean"`` without ``fvar``;
        ``TransformOverflowError`` where the back-transform exceeds float64.

    Examples
    --------
    >>> from boxcoxstat import inv_boxcox
    >>> inv_boxcox([4.5, 5.0], 0.0, kind="mean", fvar=[0.01, 0.04]).round(4)
    array([ 90.4672, 151.3814])
    """
    check_option("kind", kind, ("median", "mean"))
    if isinstance(lmbda, bool) or not isinstance(lmbda, (int, float, np.integer, np.floating)
                                                 ) or not np.isfinite(lmbda):
        raise BoxCoxError(f"lmbda must be a finite number, got {lmbda!r}")
    try:
        values = np.array(y, dtype=np.float64)
    except (TypeError, ValueError):
        raise BoxCoxError("y must be numbers (forecasts on the Box-Cox scale)") from None
    if np.any(np.isinf(values)):
        raise BoxCoxError("y has infinite values; remove them or mark them missing (NaN)")
    with np.errstate(invalid="ignore", over="ignore"):
        outside = float(lmbda) * values <= -1.0  # NaN (missing) compares False
    out = np.full(values.shape, np.nan)
    out[~outside] = families.boxcox_inverse(values[~outside], float(lmbda))
    if outside.any():
        warnings.warn(f"inv_boxcox: {rows_text(outside)} lie outside the range of the Box-Cox "
                      f"transform at lambda = {float(lmbda):.6g} (1 + lmbda*y <= 0), so they "
                      "have no inverse; they are NaN in the output", UserWarning, stacklevel=2)
    if kind == "median":
        return out
    if fvar is None:
        raise BoxCoxError("kind='mean' needs fvar, the forecast variance on the transformed "
                          "scale")
    v = np.asarray(fvar, dtype=np.float64)
    if np.any(~np.isfinite(v)) or np.any(v < 0):
        raise BoxCoxError("fvar must be finite and >= 0")
    with np.errstate(over="ignore"):
        factor = 1.0 + 0.5 * v * (1.0 - lmbda) * np.exp(-2.0 * lmbda * np.log(out))
    return out * factor
