"""Turn user input into clean float columns, with the package's errors and missing-value policy.

The gate; imports only ``exceptions`` (re-exported here) and :mod:`.containers` (reading
any container into a float matrix). Every public entry point passes its data through
:func:`as_columns`, so the checks (and their messages) exist once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from .._arrays import column_range
from ..exceptions import BoxCoxError
from .containers import select_columns, to_matrix

Family = Literal["boxcox", "yeojohnson"]

_FAMILY_ALIASES = {
    "boxcox": "boxcox",
    "box-cox": "boxcox",
    "box_cox": "boxcox",
    "bc": "boxcox",
    "bcpower": "boxcox",
    "yeojohnson": "yeojohnson",
    "yeo-johnson": "yeojohnson",
    "yeo_johnson": "yeojohnson",
    "yj": "yeojohnson",
    "yjpower": "yeojohnson",
    "auto": "auto",
    "bcnpower": "bcnpower",
    "bcn": "bcnpower",
}

# Relative spread below which float64 cannot resolve a power (values equal to ~12 digits).
DEGENERATE_SPREAD = 1e-12
# Yeo-Johnson only: absolute range below which lambda (about the inverse of the range) would
# pass 1e300 (the likelihood, solver and inference work in a unit of the data's size, see
# core.sample.Sample.unit and core.profile.RescaledProfile, and have no other limit).
YJ_TINY_RANGE = 1e-300
# Yeo-Johnson responses of a model (``bcs.lm``, ``bcs.fit_joint``) spanning less than this are
# refused: their power is found as a sample's is, but the model's residual sums of squares
# (about n times the squared range) would underflow float64.
RESPONSE_TINY_RANGE = 1e-150


def normalize_family(family: str, *, allow_auto: bool = True,
                     allow_shifted: bool = False) -> str:
    """Return the canonical family name (``"boxcox"``, ``"yeojohnson"``, ``"auto"`` or, where
    ``allow_shifted``, ``"bcnpower"``)."""
    if not isinstance(family, str):
        raise BoxCoxError(f"family must be a string such as 'boxcox' or 'yeojohnson', got "
                          f"{family!r:.80}")
    key = family.strip().lower()
    canonical = _FAMILY_ALIASES.get(key)
    if canonical is None or (canonical == "auto" and not allow_auto) or (
            canonical == "bcnpower" and not allow_shifted):
        allowed = ["'boxcox'", "'yeojohnson'"] + (["'bcnpower'"] if allow_shifted else []) + (
            ["'auto'"] if allow_auto else [])
        raise BoxCoxError(f"unknown family {family!r}; use {', '.join(allowed)}")
    return canonical


def check_option(name: str, value: Any, allowed: tuple) -> Any:
    """Raise a clear error unless ``value`` is one of ``allowed``."""
    # same type and equal: an array, whose == is elementwise, is never an option value
    known = any(isinstance(value, type(a)) and bool(value == a) for a in allowed)
    if not known:
        choices = ", ".join(repr(a) for a in allowed)
        raise BoxCoxError(f"{name}={value!r} is not valid; use one of {choices}")
    return value


def check_number(name: str, value: Any, *, positive: bool = False) -> float:
    """``value`` as a finite float (``> 0`` where ``positive``), else an error naming the
    option: a string, a list, a boolean, NaN or an infinity is refused, not cast.

    Examples
    --------
    >>> from boxcoxstat._validation.columns import check_number
    >>> check_number("ymax", 1e10, positive=True)
    10000000000.0
    """
    kind = "a positive" if positive else "a finite"
    if isinstance(value, (bool, np.bool_)) or not isinstance(
            value, (int, float, np.integer, np.floating)):
        raise BoxCoxError(f"{name} must be {kind} number, got {value!r:.80} "
                          f"({type(value).__name__})")
    try:
        v = float(value)
    except OverflowError:
        raise BoxCoxError(f"{name} is beyond the float64 range: {value!r:.40}") from None
    if not np.isfinite(v) or (positive and not v > 0):
        raise BoxCoxError(f"{name} must be {kind} finite number, got {value!r}")
    return v


# Largest |lambda| at which the core evaluates a likelihood: on data of ordinary size its
# variance is kept in units of lambda^-2, which leave float64 beyond about 1e154.
LAMBDA_MAX = 1e150


def check_bounds(bounds: object, ncols: int = 1) -> NDArray[np.float64] | None:
    """Validate ``bounds=(lo, hi)`` on lambda (or one pair per column); ``None`` passes.

    Returns a ``(ncols, 2)`` array. ``-inf`` / ``inf`` leave a side open. Refused with a
    :class:`BoxCoxError`: not two numbers per column, NaN, ``lo >= hi``, or an interval holding
    no finite power (``lo = inf`` or ``hi = -inf``), or ends beyond ``LAMBDA_MAX`` (1e150),
    where the likelihood leaves float64.

    Examples
    --------
    >>> from boxcoxstat._validation.columns import check_bounds
    >>> check_bounds((-1, 2)).tolist()
    [[-1.0, 2.0]]
    >>> check_bounds((2, 1))
    Traceback (most recent call last):
    ...
    boxcoxstat.exceptions.BoxCoxError: bounds=(2, 1): the lower end must be below the upper end
    """
    if bounds is None:
        return None
    what = f"bounds={bounds!r:.60}"
    if isinstance(bounds, (str, bytes)):
        raise BoxCoxError(f"{what}: bounds must be a pair of numbers (lo, hi)")
    try:
        arr = np.array(bounds, dtype=np.float64)
    except (TypeError, ValueError):
        raise BoxCoxError(f"{what}: bounds must be a pair of numbers (lo, hi), such as "
                          "(-1, 2)") from None
    if arr.shape == (2,):
        arr = np.tile(arr, (ncols, 1))
    if arr.shape != (ncols, 2):
        raise BoxCoxError(f"{what}: bounds must be a pair of numbers (lo, hi)"
                          + (f" or one pair per column ({ncols} columns)" if ncols > 1 else ""))
    if np.isnan(arr).any():
        raise BoxCoxError(f"{what}: bounds must be numbers, not NaN (use -inf or inf to leave "
                          "a side open)")
    if np.any(arr[:, 0] >= arr[:, 1]):
        raise BoxCoxError(f"{what}: the lower end must be below the upper end")
    if np.any(arr[:, 0] == np.inf) or np.any(arr[:, 1] == -np.inf) or np.any(
            np.isfinite(arr) & (np.abs(arr) > LAMBDA_MAX)):
        raise BoxCoxError(f"{what}: the interval holds no finite power the likelihood can be "
                          f"evaluated at (ends must lie within +-{LAMBDA_MAX:g})")
    return arr


def check_lambdas(lmbda: NDArray[np.float64], what: str = "lmbda") -> NDArray[np.float64]:
    """Refuse powers the likelihood cannot be evaluated at: NaN, infinite, or beyond
    ``LAMBDA_MAX`` (1e150) in magnitude; returns ``lmbda``."""
    if not np.all(np.isfinite(lmbda)):
        raise BoxCoxError(f"{what} must be finite, got {lmbda!r:.80}")
    if np.any(np.abs(lmbda) > LAMBDA_MAX):
        raise BoxCoxError(f"{what} = {float(np.max(np.abs(lmbda))):g} in magnitude is beyond "
                          f"{LAMBDA_MAX:g}, where the likelihood leaves the float64 range; "
                          "use a smaller power")
    return lmbda


def power_values(names: Any, lmbda0: Any, what: str = "lmbda0") -> NDArray[np.float64]:
    """A value of lambda per column of ``names``: a number, one number per column, or a
    Series by column name (the null of ``test``, a given power; ``what`` names the argument
    in errors). The gate reads ``bcs.fit(x, lmbda=...)``'s fixed power with it, once; a
    result's ``at`` and ``test`` read theirs with it too.

    Examples
    --------
    >>> from boxcoxstat._validation.columns import power_values
    >>> power_values(["a", "b"], 0.5).tolist()
    [0.5, 0.5]
    """
    import pandas as pd

    names = list(names)
    p = len(names)
    if isinstance(lmbda0, pd.Series):
        absent = [n for n in names if n not in lmbda0.index]
        if absent:
            raise BoxCoxError(f"{what} has no value for column(s) {absent}")
        lmbda0 = lmbda0[names].to_numpy()
    arr = as_numbers(lmbda0, f"{what} must be a number or {p} numbers")
    if arr.ndim == 0:
        arr = np.full(p, float(arr))
    if arr.shape != (p,):
        raise BoxCoxError(f"{what} must be a number or {p} numbers (one per column "
                          f"{names}), got shape {arr.shape}")
    return check_lambdas(arr, what)


def check_shift(x: NDArray[np.float64], gamma: float, name: str, row_label: object = None
                ) -> None:
    """Refuse a fixed Box-Cox shift that leaves a value <= 0 (naming the column and row):
    the gate's check of ``bcs.fit(x, gamma=...)`` and of ``lm(..., gamma=...)``'s response."""
    if not (np.isfinite(gamma)):
        raise BoxCoxError(f"gamma must be a finite number, got {gamma!r}")
    report = ColumnReport.of(x + gamma, row_label)  # type: ignore[arg-type]
    if report.n_nonpositive:
        bad = float(np.nanmin(x))
        raise BoxCoxError(
            f"column {name!r} plus the shift gamma = {gamma:g} has {report.n_nonpositive} "
            f"value(s) <= 0, first at row {report.first_nonpositive!r}; Box-Cox needs "
            f"x + gamma > 0: use gamma > {-bad:g} or family='bcnpower'")


def as_numbers(values: Any, what: str) -> NDArray[np.float64]:
    """``values`` as a float array if they are real numbers (not text, booleans, ragged lists
    or other objects), else the package's error starting with ``what`` (which names the
    option and what it takes).

    Examples
    --------
    >>> from boxcoxstat._validation.columns import as_numbers
    >>> as_numbers([0, 0.5], "lmbda must be numbers")
    array([0. , 0.5])
    """
    try:
        arr = np.asarray(values)
    except (TypeError, ValueError):
        arr = np.asarray(None)
    if arr.dtype.kind == "O":
        try:
            arr = np.asarray(values, dtype=np.float64)
        except (TypeError, ValueError, OverflowError):
            pass
    if arr.dtype.kind not in "iuf":
        raise BoxCoxError(f"{what}, got {values!r:.80}")
    return arr.astype(np.float64)


@dataclass(frozen=True)
class Columns:
    """Validated data: a float matrix with NaN where a value is missing.

    Attributes
    ----------
    values : ndarray of shape (n, p)
        The data as floats: a read-only view of the caller's float64 array or Series where
        it needs no conversion (no copy, see ``containers.to_matrix(copy=False)``), else a
        private copy; the caller's object is never modified.
    names : list of str
        Column labels (``"x"`` for unnamed 1-D input, ``"x0"``, ``"x1"``... for arrays).
    index : pandas.Index or None
        Row labels of pandas input, else ``None``.
    layout : {"series", "frame", "array1d", "array2d"}
        The input's layout, so results can be returned in the same form.
    n_missing : ndarray of int, shape (p,)
        How many missing values each column had (dropped under ``missing="drop"``).
    skipped : tuple of (str, str)
        Columns of the input left out (``as_columns(degenerate="skip")``) with the reason,
        in input order; ``values`` and ``names`` hold the other columns.
    extremes : ndarray of shape (p, 2) or None
        Each column's smallest and largest present value, as the gate found them (the fit
        needs them and need not pass over the data again); ``None`` where not known.
    """

    values: NDArray[np.float64]
    names: list[str]
    index: Any
    layout: str
    n_missing: NDArray[np.int64]
    skipped: tuple[tuple[str, str], ...] = ()
    extremes: NDArray[np.float64] | None = None

    @property
    def univariate(self) -> bool:
        return self.layout in ("series", "array1d")

    def row_label(self, i: int) -> Any:
        return self.index[i] if self.index is not None else i

    def column(self, j: int) -> NDArray[np.float64]:
        """Finite values of column ``j`` (missing ones removed)."""
        col = self.values[:, j]
        return col[~np.isnan(col)]


def as_columns(
    data: Any,
    *,
    family: str,
    missing: str = "drop",
    min_n: int = 3,
    tiny_scale: bool = False,
    degenerate: Literal["raise", "skip"] = "raise",
) -> Columns:
    """Validate ``data`` for a power-transform fit.

    Parameters
    ----------
    data : array_like, pandas Series or DataFrame
        One column (1-D) or several (2-D); lists are accepted.
    family : {"boxcox", "yeojohnson", "auto"}
        Box-Cox needs strictly positive values.
    missing : {"drop", "raise"}, default="drop"
        NaN (and None) are dropped per column and counted, or refused.
    min_n : int, default=3
        Fewest finite values a column may have.
    tiny_scale : bool, default=False
        Accept Yeo-Johnson columns on a tiny scale (range down to 1e-300): for callers whose
        solver reaches the inverse of the range (a sample's profile, see
        :func:`check_spread`).
    degenerate : {"raise", "skip"}, default="raise"
        A constant column, or one whose spread float64 cannot resolve
        (:func:`check_spread`), is refused, or left out and recorded with the reason in
        ``Columns.skipped`` (callers that report the columns they could not fit, as
        cellWise's ``transfo`` does). Every other problem is refused either way, and so is
        data in which no column is left.

    Raises
    ------
    BoxCoxError
        For non-numeric columns, infinite values, missing values under ``missing="raise"``,
        too few values, constant columns and (Box-Cox) non-positive values. The message names
        the column and, where it helps, the first offending row.
    """
    family = normalize_family(family)
    check_option("missing", missing, ("drop", "raise"))
    check_option("degenerate", degenerate, ("raise", "skip"))
    values, names, index, layout = to_matrix(data, booleans=False, copy=False)
    n, p = values.shape
    if p == 0:
        raise BoxCoxError("the data have no columns; pass at least one column")
    if n == 0:
        raise BoxCoxError(f"the data have no rows (columns {names[:5]}); at least {min_n} "
                          "values per column are needed")
    lo, hi = column_range(values)
    clean = np.isfinite(lo) & np.isfinite(hi)
    n_missing = np.zeros(p, dtype=np.int64)
    labels = None if index is None else index
    row_label = None if labels is None else (lambda i: labels[i])
    skipped: dict[int, str] = {}
    if clean.all() and n >= min_n and not (family == "boxcox" and np.any(lo <= 0)) \
            and _spread_ok(lo, hi, family, tiny_scale):
        return Columns(values, names, index, layout, n_missing, extremes=np.stack([lo, hi], 1))
    extremes = np.empty((p, 2))
    for j, name in enumerate(names):  # the slow path: full reports, the package's messages
        if clean[j]:
            report = ColumnReport(n_finite=n, lo=float(lo[j]), hi=float(hi[j]))
            if family == "boxcox" and lo[j] <= 0:
                report = ColumnReport.of(values[:, j], row_label)
        else:
            report = ColumnReport.of(values[:, j], row_label)
        n_missing[j] = report.n_missing
        extremes[j] = report.lo, report.hi
        check_column(report, name, family=family, missing=missing, min_n=min_n,
                     tiny_scale=tiny_scale, spread=degenerate == "raise")
        if degenerate == "skip":
            reason = _spread_problem(report, name, family, tiny_scale)
            if reason:
                skipped[j] = reason
    if not skipped:
        return Columns(values, names, index, layout, n_missing, extremes=extremes)
    if len(skipped) == p:
        if p == 1:  # one column: the gate's own message
            col = values[:, 0]
            check_spread(col[~np.isnan(col)], names[0], family, tiny_scale=tiny_scale)
        listed = "; ".join(f"{names[j]!r}: {r}" for j, r in skipped.items())
        raise BoxCoxError(f"no column can be fitted: {listed}")
    keep = [j for j in range(p) if j not in skipped]
    return Columns(values[:, keep], [names[j] for j in keep], index, layout, n_missing[keep],
                   tuple((names[j], r) for j, r in skipped.items()), extremes[keep])


def _spread_problem(report: ColumnReport, name: str, family: str, tiny_scale: bool) -> str:
    """Why :func:`check_spread` refuses the column (without the column's name), or ``""``."""
    if not report.n_finite:
        return ""
    if report.lo == report.hi:
        return f"constant (every value is {report.lo!r})"
    try:
        check_spread(np.array([report.lo, report.hi]), name, family, tiny_scale=tiny_scale)
    except BoxCoxError as err:
        return str(err).removeprefix(f"column {name!r}").lstrip(": ")
    return ""


def _spread_ok(lo: NDArray, hi: NDArray, family: str, tiny_scale: bool) -> bool:
    """Whether every column passes :func:`check_spread` (vectorised; no message)."""
    if family == "boxcox":
        rel = (hi - lo) / hi
    elif not tiny_scale:
        with np.errstate(over="ignore"):
            rel = (hi - lo) / (1.0 + np.maximum(np.abs(lo), np.abs(hi)))
    else:
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):  # 0/0: constant
            width = hi - lo  # inf for data from -1.7e308 to 1.7e308: a wide spread
            rel = width / np.maximum(np.abs(lo), np.abs(hi))
        if np.any(width < YJ_TINY_RANGE):
            return False
    return bool(np.all((lo != hi) & (rel >= DEGENERATE_SPREAD)))


@dataclass(frozen=True)
class ColumnReport:
    """What the gate needs to know about a column, from an array, Dask partitions or sites.

    Counts of missing, infinite and (for Box-Cox) non-positive values with the first such row
    (its label, or ``None`` where rows have no labels, as across Dask partitions or federated
    sites), and the number and range of the finite values. Reports of parts of a column merge
    (:meth:`merge`), so a reduction or a server checks the whole column with the same rules
    and messages as an in-memory fit.
    """

    n_finite: int
    lo: float
    hi: float
    n_missing: int = 0
    first_missing: Any = None
    n_inf: int = 0
    first_inf: Any = None
    n_nonpositive: int = 0
    first_nonpositive: Any = None
    nonpositive_value: float = float("nan")

    @classmethod
    def of(cls, col: NDArray[np.float64], row_label: Any = None) -> ColumnReport:
        """The report of one column (NaN = missing); ``row_label(i)`` names row i."""
        def label(idx: NDArray) -> Any:
            if not idx.size:
                return None
            return int(idx[0]) if row_label is None else row_label(int(idx[0]))

        with np.errstate(invalid="ignore"):
            lo, hi = col.min(initial=np.inf), col.max(initial=-np.inf)
        if np.isfinite(lo) and np.isfinite(hi) and lo > 0:  # no NaN, inf or value <= 0
            return cls(n_finite=int(col.size), lo=float(lo), hi=float(hi))
        nan = np.isnan(col)
        inf = np.isinf(col)
        finite = col[~nan & ~inf]
        nonpos = np.flatnonzero(~nan & (col <= 0))
        return cls(
            n_finite=int(finite.size),
            lo=float(finite.min()) if finite.size else float("nan"),
            hi=float(finite.max()) if finite.size else float("nan"),
            n_missing=int(nan.sum()), first_missing=label(np.flatnonzero(nan)),
            n_inf=int(inf.sum()), first_inf=label(np.flatnonzero(inf)),
            n_nonpositive=int(nonpos.size), first_nonpositive=label(nonpos),
            nonpositive_value=float(col[nonpos[0]]) if nonpos.size else float("nan"),
        )

    @staticmethod
    def merge(a: ColumnReport, b: ColumnReport) -> ColumnReport:
        """The report of two parts of one column (first rows kept only if both are labelled
        the same way; across partitions the first bad row has no global label)."""
        def first(x: Any, y: Any) -> Any:
            return x if x is not None else y

        return ColumnReport(
            n_finite=a.n_finite + b.n_finite,
            lo=float(np.fmin(a.lo, b.lo)), hi=float(np.fmax(a.hi, b.hi)),
            n_missing=a.n_missing + b.n_missing, first_missing=first(a.first_missing,
                                                                     b.first_missing),
            n_inf=a.n_inf + b.n_inf, first_inf=first(a.first_inf, b.first_inf),
            n_nonpositive=a.n_nonpositive + b.n_nonpositive,
            first_nonpositive=first(a.first_nonpositive, b.first_nonpositive),
            nonpositive_value=(a.nonpositive_value if a.n_nonpositive
                               else b.nonpositive_value),
        )


def _at(row: Any) -> str:
    if isinstance(row, np.generic):  # an int64 index label reads 12, not np.int64(12)
        row = row.item()
    return "" if row is None else f", first at row {row!r}"


def check_column(report: ColumnReport, name: str, *, family: str, missing: str = "drop",
                 min_n: int = 3, spread: bool = True, noun: str = "column",
                 remedy: str = "use family='yeojohnson' or shift the data",
                 tiny_scale: bool = False,
                 missing_remedy: str = "use missing='drop' to leave them out") -> None:
    """THE gate for one column: the package's errors, named by column (and row where known).

    Refuses infinite values, missing values under ``missing="raise"``, fewer than ``min_n``
    finite values, Box-Cox values <= 0, and (``spread=True``) constant columns or columns
    float64 cannot resolve (:func:`check_spread`). ``noun`` says what ``name`` names (a
    column, a federated client); ``remedy`` what to do about Box-Cox values <= 0, in the
    caller's option names; ``tiny_scale`` as in :func:`check_spread`; ``missing_remedy``
    what to do about missing values under ``missing="raise"`` (for callers without a
    ``missing=`` option, advice they can follow).
    """
    if report.n_inf:
        raise BoxCoxError(
            f"{noun} {name!r} has {report.n_inf} infinite value(s){_at(report.first_inf)}; "
            "remove them or mark them missing (NaN)"
        )
    if report.n_missing and missing == "raise":
        raise BoxCoxError(
            f"{noun} {name!r} has {report.n_missing} missing value(s)"
            f"{_at(report.first_missing)}; {missing_remedy}"
        )
    if report.n_finite < min_n:
        raise BoxCoxError(
            f"{noun} {name!r} has {report.n_finite} finite value(s); at least {min_n} are "
            "needed"
        )
    if family == "boxcox" and report.n_nonpositive:
        value = "" if np.isnan(report.nonpositive_value) else f" ({report.nonpositive_value!r})"
        raise BoxCoxError(
            f"Box-Cox requires strictly positive data, but {noun} {name!r} has "
            f"{report.n_nonpositive} value(s) <= 0{_at(report.first_nonpositive)}{value}; "
            f"{remedy}"
        )
    if spread and report.n_finite:
        check_spread(np.array([report.lo, report.hi]), name,
                     "boxcox" if family == "boxcox" else "yeojohnson", tiny_scale=tiny_scale)


def check_positive(col: NDArray[np.float64], name: str, row_label: Any = None) -> None:
    """Refuse values <= 0 in a Box-Cox column (NaN is ignored), naming the first bad row."""
    check_column(ColumnReport.of(col, row_label), name, family="boxcox", min_n=0,
                 spread=False)


def case_weights(weights: Any, n: int) -> NDArray[np.float64] | None:
    """Validated case weights (finite, >= 0, not all 0, length ``n``), a new array; the
    error names the first offending row.

    Examples
    --------
    >>> from boxcoxstat._validation.columns import case_weights
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


def new_columns(data: Any, names: tuple[str, ...] | list[str],
                families: tuple[str, ...] | list[str] | None) -> NDArray[np.float64]:
    """New data for fitted columns ``names``, as a float matrix (a private copy).

    A DataFrame (pandas, polars...) is matched by column name (order and extra columns do not
    matter); other input must have exactly ``len(names)`` columns (one column may be 1-D).
    Missing values
    stay NaN; infinite values are refused; with ``families`` given, Box-Cox columns must be
    positive. Every error names the column and the first bad row.
    """
    chosen = select_columns(data, names)
    if chosen is not None:
        x, _, index, _ = to_matrix(chosen)
    else:
        x, _, index, layout = to_matrix(data)
        if x.shape[1] != len(names):
            shape = "1-D data" if layout in ("series", "array1d") else f"{x.shape[1]} column(s)"
            plural = "column" if len(names) == 1 else "columns"
            raise BoxCoxError(f"{shape} given, but the result has {len(names)} {plural} "
                              f"{list(names)}")

    def label(i: int) -> Any:
        return index[i] if index is not None else i

    for j, name in enumerate(names):  # missing values pass (they stay NaN)
        family = "yeojohnson" if families is None else families[j]
        check_column(ColumnReport.of(x[:, j], label), name, family=family, min_n=0,
                     spread=False)
    return x


def check_spread(finite: NDArray[np.float64], name: str, family: str = "boxcox", *,
                 tiny_scale: bool = False) -> None:
    """Refuse a constant column, or one that float64 cannot resolve on the family's scale.

    Box-Cox is scale-invariant, so the spread is relative to the values (``(max - min) /
    max``); below 1e-12 the data agree to about 12 significant digits and lambda is not
    determined. Yeo-Johnson is not scale invariant: data on a tiny scale have their optimum
    near the inverse of their range (1e-32 gives about 1e31). With ``tiny_scale`` (callers
    whose solver reaches that far: a sample's profile, see ``SampleProfile.lambda_limit``)
    its spread is also relative to the values, and columns with a range below 1e-300
    (``YJ_TINY_RANGE``), where lambda would pass 1e300, are refused; otherwise (federated,
    Dask and model profiles, whose solver stops at 1e18) the spread is relative to
    ``1 + max|x|``, the Yeo-Johnson scale.
    """
    lo, hi = float(finite.min()), float(finite.max())
    if lo == hi:
        raise BoxCoxError(
            f"column {name!r} is constant ({lo!r}); a power transform cannot be estimated"
        )
    if family == "boxcox" or tiny_scale:
        rel = (hi - lo) / max(abs(lo), abs(hi))
        where = "the values"
    else:
        rel = (hi - lo) / (1.0 + max(abs(lo), abs(hi)))
        where = "the values of 1 + |x| (the Yeo-Johnson scale)"
    if rel < DEGENERATE_SPREAD:
        hint = "" if family == "boxcox" or tiny_scale else "; rescale the data first"
        raise BoxCoxError(
            f"column {name!r}: {where} differ only beyond the 12th significant digit "
            f"(range {lo!r} to {hi!r}); float64 cannot determine lambda for such data{hint}"
        )
    if family != "boxcox" and hi - lo < YJ_TINY_RANGE:
        raise BoxCoxError(
            f"column {name!r}: the values span less than {YJ_TINY_RANGE:g} (range {lo!r} to "
            f"{hi!r}); Yeo-Johnson's lambda would lie beyond about 1e300, near the end of "
            "float64; rescale the data (Yeo-Johnson is not scale invariant, so choose the "
            "unit deliberately)"
        )


def check_response_scale(values: NDArray[np.float64], name: str, what: str) -> None:
    """Refuse a Yeo-Johnson model response spanning less than ``RESPONSE_TINY_RANGE``
    (1e-150), naming it; ``what`` names the model's sums (``"the linear model's"``)."""
    span = float(np.max(values) - np.min(values))
    if span < RESPONSE_TINY_RANGE:
        raise BoxCoxError(
            f"{name} spans only {span:.3g}: {what} sums of squares of the transformed values "
            f"(about the squared range) would underflow float64 below a range of "
            f"{RESPONSE_TINY_RANGE:g}; rescale it (Yeo-Johnson is not scale invariant, so "
            "choose the unit deliberately)")


def require(module: str, extra: str, what: str) -> None:
    """Import ``module`` or raise ``ModuleNotFoundError`` saying which extra installs it.

    Examples
    --------
    >>> from boxcoxstat._validation.columns import require
    >>> require("numpy", "dev", "this example")  # installed: nothing happens
    """
    import importlib

    try:
        importlib.import_module(module)
    except ImportError:
        raise ModuleNotFoundError(
            f"{what} needs {module}, which is not installed; install the extra: "
            f"pip install 'boxcoxstat[{extra}]'", name=module) from None


def check_weights_column(data: Any, name: str) -> None:
    """``weights="w"`` names a column of ``data`` that is not its only one (in memory, Dask
    or Spark alike), else the package's error saying what to pass instead."""
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
