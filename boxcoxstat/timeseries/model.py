"""``guerrero`` and ``inv_boxcox``: forecast's ``BoxCox.lambda`` and ``InvBoxCox`` in Python.

A series (pandas Series with a regular index, or array-like) becomes a positive,
complete vector and a period; Guerrero's criterion (``timeseries.guerrero``) or the seasonal-trend
regression's profile likelihood (``core.response``, solved by the one solver) gives lambda.
"""

from __future__ import annotations

import warnings
from typing import Any, Literal

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from .. import families
from .._validation.columns import BoxCoxError, ColumnReport, check_column, check_option
from .._validation.containers import to_matrix
from ..base.transform import rows_text
from ..core.bounds import check_bounds
from ..core.design import qr_design
from ..core.response import response_profile
from ..core.solve import solve
from .guerrero import (
    guerrero_lambda,
    guerrero_lambdas,
    loglik_lambdas,
    subseries,
    subseries_matrix,
)
from .results import GuerreroFrameResult, GuerreroResult

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
    id: str | None = None,  # noqa: A002 - the column's role, as in long-format tools
    time: str | None = None,
    value: str | None = None,
    bounds: Any = None,
) -> Any:
    """The Box-Cox power of a time series, as forecast's ``BoxCox.lambda`` chooses it, or of
    each of many series at once.

    Parameters
    ----------
    series : pandas Series, DataFrame or array_like
        A positive series without missing values, oldest first. A DataFrame (or 2-D array)
        of several columns is one series per column (all of one length, rows oldest first);
        with ``id=`` and ``time=`` it is long data, one row per observation. Many series are
        solved together, vectorised (10,000 monthly series of 10 years take about the time
        of one ``bcs.fit`` of their 1.2 million values), each lambda the same as for the
        series alone.
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
    id, time : str, optional
        Long data: the columns naming each row's series and its time. Rows are ordered by
        time within each series; series may differ in length. Without ``period=`` the period
        comes from the times' frequency (as :func:`period_of`; numbers: period 1).
    value : str, optional
        Long data: the column of values (default: the one column besides ``id`` and ``time``).
    bounds : (lo, hi), optional
        The same range in the spelling of :func:`boxcoxstat.fit` and :func:`boxcoxstat.lm`
        (``bounds=(lo, hi)`` is ``lower=lo, upper=hi``; both ends finite); give it or
        ``lower``/``upper``, not both.

    Returns
    -------
    GuerreroResult
        For one series.
    GuerreroFrameResult
        For many: ``lmbda`` and ``criterion`` as Series by series name, ``to_frame()`` the
        table.

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

    Many series, one per column, or long data:

    >>> frame = pd.DataFrame({"a": x, "b": x ** 2, "c": x + 1.0})
    >>> bcs.guerrero(frame).lmbda.round(3).tolist()
    [0.015, 0.009, -0.373]
    >>> long = frame.melt(ignore_index=False, var_name="store").reset_index(names="month")
    >>> bcs.guerrero(long, id="store", time="month").lmbda.round(3).tolist()
    [0.015, 0.009, -0.373]
    """
    if bounds is not None:
        if (lower, upper) != (-1.0, 2.0):
            raise BoxCoxError("give bounds=(lo, hi) or lower=/upper=, not both")
        limits = check_bounds(bounds)
        assert limits is not None
        lower, upper = float(limits[0, 0]), float(limits[0, 1])
    if id is not None or time is not None or value is not None:
        return _guerrero_long(series, period, method, lower, upper, id, time, value)
    shape: tuple[int, ...] = (np.shape(series) if isinstance(series, (list, tuple))
                              else tuple(getattr(series, "shape", ())))
    if len(shape) == 2 and shape[1] > 1:
        return _guerrero_wide(series, period, method, lower, upper)
    _check_options(method, lower, upper)
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
        lam, crit = guerrero_lambda(sub, float(lower), float(upper))
    else:
        lam, crit = _loglik_one(x, int(per), float(lower), float(upper))
    return GuerreroResult(
        names=(name,), _layout="series", _families=("boxcox",),
        _lmbda_used=np.array([lam]), method=method, period=int(per), lower=float(lower),
        upper=float(upper), criterion=float(crit), nobs=int(x.size),
        n_used=int(sub.n_used if method == "guerrero" else x.size),
        n_dropped=int(sub.n_dropped if method == "guerrero" else 0),
        subseries_length=int(sub.period))


def _loglik_one(x: NDArray[np.float64], per: int, lower: float, upper: float
                ) -> tuple[float, float]:
    """forecast's ``loglik`` lambda of one series by the one solver, and the log-likelihood."""
    prof = response_profile(x, qr_design(_seasonal_trend(x.size, per)), "boxcox")
    sol = solve(prof)
    lam = float(np.clip(sol.lmbda[0], lower, upper))
    val, _ = prof.evaluate(np.array([lam]), 0, score=False)
    return lam, float(prof.llf_offset()[0] - float(val[0]))


def _check_options(method: str, lower: float, upper: float) -> None:
    check_option("method", method, ("guerrero", "loglik"))
    if not (np.isfinite(lower) and np.isfinite(upper) and lower < upper):
        raise BoxCoxError(f"need finite lower < upper, got {lower!r} and {upper!r}")


def _check_period(per: Any, given: Any) -> int:
    if isinstance(per, bool) or not isinstance(per, (int, np.integer)) or per < 1:
        raise BoxCoxError(f"period must be a whole number >= 1, got {given!r}")
    return int(per)


def _listed(names: list[str], mask: Any, most: int = 5) -> str:
    bad = [names[i] for i in np.flatnonzero(mask)]
    more = f" and {len(bad) - most} more" if len(bad) > most else ""
    return ", ".join(repr(b) for b in bad[:most]) + more


def _solve_many(x: NDArray[np.float64], names: list[str], per: int, method: str,
                lower: float, upper: float) -> dict[str, Any]:
    """Lambdas of the columns of ``x`` (complete, one length), with the checks of one series
    made for all at once; returns the result's per-series fields."""
    n, s = x.shape
    missing = np.isnan(x).any(axis=0)
    if missing.any():
        raise BoxCoxError(
            f"series {_listed(names, missing)} have missing values; fill or interpolate them "
            "first (a time series cannot skip a value), or pass series of different lengths "
            "as long data (id=, time=)")
    bad = (~np.isfinite(x) | (x <= 0)).any(axis=0)
    if bad.any():
        raise BoxCoxError(
            f"series {_listed(names, bad)} have values that are not positive and finite; the "
            "Box-Cox power needs positive data (add a constant, or drop those series)")
    if n <= 2 * per:
        raise BoxCoxError(
            f"the series have {n} values, not more than two periods (2 x {per}); lambda "
            "cannot be chosen from them (forecast's BoxCox.lambda returns 1 here)")
    flat = (x.min(axis=0) == x.max(axis=0))
    if flat.any():
        raise BoxCoxError(f"series {_listed(names, flat)} are constant; a power cannot be "
                          "chosen for them (drop them)")
    if method == "guerrero":
        top = x.max(axis=0)
        big = top > 1e300  # scale free: those columns scaled by a power of two (exact)
        if big.any():
            x = x.copy()
            x[:, big] = np.ldexp(x[:, big], -np.frexp(top[big])[1])
        sub = subseries_matrix(x, per)
        varying = np.isfinite(sub.log_sd).sum(axis=0)
        if (varying < 2).any():
            raise BoxCoxError(
                f"series {_listed(names, varying < 2)}: fewer than two of their subseries of "
                f"{sub.period} values vary, so Guerrero's criterion does not depend on lambda; "
                "use method='loglik' or a shorter period=")
        lam, crit = guerrero_lambdas(sub, lower, upper)
        used = np.full(s, sub.n_used)
        dropped = np.full(s, sub.n_dropped)
        length = sub.period
    else:
        lam, crit, ok = loglik_lambdas(x, _seasonal_trend(n, per), lower, upper)
        for j in np.flatnonzero(~ok):  # extreme ranges: the one-series solver
            lam[j], crit[j] = _loglik_one(x[:, j], per, lower, upper)
        used, dropped, length = np.full(s, n), np.zeros(s), max(2, per)
    return {"lmbda": lam, "criterion": crit, "nobs": np.full(s, n), "used": used,
            "dropped": dropped, "length": length}


def _frame_result(names: list[str], layout: str, parts: dict[str, Any], method: str,
                  per: int, lower: float, upper: float) -> GuerreroFrameResult:
    return GuerreroFrameResult(
        names=tuple(names), _layout=layout, _families=("boxcox",) * len(names),
        _lmbda_used=np.asarray(parts["lmbda"], dtype=np.float64), method=method, period=per,
        lower=float(lower), upper=float(upper),
        criterion_values=np.asarray(parts["criterion"], dtype=np.float64),
        nobs_values=np.asarray(parts["nobs"], dtype=np.int64),
        n_used_values=np.asarray(parts["used"], dtype=np.int64),
        n_dropped_values=np.asarray(parts["dropped"], dtype=np.int64),
        subseries_length=int(parts["length"]))


def _guerrero_wide(frame: Any, period: Any, method: str, lower: float, upper: float
                   ) -> GuerreroFrameResult:
    """Many series, one per column of a frame or 2-D array."""
    _check_options(method, lower, upper)
    if isinstance(frame, pd.DataFrame):
        dtypes = frame.dtypes
        fine = {dt: pd.api.types.is_numeric_dtype(dt) and not pd.api.types.is_bool_dtype(dt)
                for dt in set(dtypes.tolist())}  # each distinct dtype once (10,000 columns: 20 ms)
        text = ([] if all(fine.values()) else
                [str(c) for c, dt in zip(frame.columns.tolist(), dtypes.tolist(), strict=True)
                 if not fine[dt]])
        if text:
            raise BoxCoxError(
                f"columns {text[:4]} of the frame are not numbers; many series are one numeric "
                "column each (times in the index), long data needs id= and time=, and one "
                "series is best passed as a Series indexed by their times, e.g. "
                "df.set_index(pd.to_datetime(df['month']))['value']")
    x, names, _, layout = to_matrix(frame)
    per = _check_period(period_of(frame) if period is None else period, period)
    parts = _solve_many(x, names, per, method, float(lower), float(upper))
    return _frame_result(names, layout, parts, method, per, lower, upper)


def _guerrero_long(frame: Any, period: Any, method: str, lower: float, upper: float,
                   id: str | None, time: str | None, value: str | None) -> GuerreroFrameResult:
    """Many series in long data: one row per (id, time, value)."""
    _check_options(method, lower, upper)
    if not isinstance(frame, pd.DataFrame):
        raise BoxCoxError("id= and time= name columns of a pandas DataFrame of long data "
                          f"(one row per observation), got {type(frame).__name__}")
    if id is None or time is None:
        raise BoxCoxError("long data needs both id= (the series' column) and time= (the "
                          "times' column)")
    for role, col in (("id", id), ("time", time), ("value", value)):
        if col is not None and col not in frame.columns:
            raise BoxCoxError(f"{role}={col!r} is not a column of the frame (columns: "
                              f"{[str(c) for c in frame.columns][:8]})")
    if value is None:
        rest = [c for c in frame.columns if c not in (id, time)]
        if len(rest) != 1:
            raise BoxCoxError(f"long data has {len(rest)} columns besides id and time "
                              f"({[str(c) for c in rest][:6]}); name the values with value=")
        value = rest[0]
    if frame[id].isna().any() or frame[time].isna().any():
        raise BoxCoxError(f"the id column {id!r} or the time column {time!r} has missing "
                          "entries; every row needs its series and its time")
    if frame.duplicated([id, time]).any():
        raise BoxCoxError(f"some series have two rows for one time (repeated ({id}, {time}) "
                          "pairs); aggregate them first")
    data = frame[[id, time, value]].sort_values([id, time], kind="stable")
    x_all, _, _, _ = to_matrix(data[[value]])
    codes, ids = pd.factorize(data[id], sort=False)
    order = pd.unique(frame[id])  # the series in the order they first appear
    pos = {k: i for i, k in enumerate(order)}
    counts = np.bincount(codes, minlength=len(ids))
    starts = np.r_[0, np.cumsum(counts)[:-1]]
    if period is None:
        first = data[time].to_numpy()[: counts[0]]
        per = period_of(pd.Series(np.zeros(first.size), index=pd.Index(first)))
    else:
        per = period
    per = _check_period(per, period)
    names = [str(k) for k in order]
    out: dict[str, Any] = {k: np.zeros(len(order)) for k in ("lmbda", "criterion", "nobs",
                                                              "used", "dropped")}
    length = max(2, per)
    for n in np.unique(counts):  # the series of one length together
        grp = np.flatnonzero(counts == n)
        rows = starts[grp][None, :] + np.arange(n)[:, None]
        x = x_all[rows, 0]
        targets = np.array([pos[ids[g]] for g in grp])
        parts = _solve_many(x, [names[t] for t in targets], per, method, float(lower),
                            float(upper))
        for key in out:
            out[key][targets] = parts[key]
        length = parts["length"]
    out["length"] = length
    return _frame_result(names, "frame", out, method, per, lower, upper)


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
