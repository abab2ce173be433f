"""The part of a result that transforms columns with fitted powers (ML and robust alike).

:class:`ColumnTransforms` holds the column names, the input's layout, the family and
the power of every column, and applies them to new data through the validation gate
(``_validation.new_columns``). :class:`~boxcoxstat.PowerTransformResult` (maximum likelihood)
and :class:`~boxcoxstat.RobustTransformResult` (RewML, Carroll, MTL) are siblings built on it;
neither raises from a method the other defines.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from .. import families as fam
from .._validation.columns import (
    BoxCoxError,
    ColumnReport,
    new_columns,
    power_values,
)
from .._validation.containers import is_spark, like_native
from ..core.resolution import loss_messages
from ..exceptions import ResolutionWarning, TransformOverflowError
from . import jsonio
from .jsonio import saved
from .results import ResultBase

__all__ = ["ColumnTransforms", "Provenance", "FederatedRecord", "LAYOUTS", "rows_text"]

LAYOUTS = ("series", "frame", "array1d", "array2d")
FAMILIES = ("boxcox", "yeojohnson", "bcnpower")
GAMMA_STATUS = ("estimated", "lower bound", "upper limit", "fixed")


@dataclass(frozen=True, repr=False)
class Provenance:
    """Where a result came from, kept with it so that it can compute more from it.

    Not saved to JSON except ``federated``: a loaded result has no data and says so.

    Attributes
    ----------
    data : ndarray of shape (n, p) or None
        The fitted columns (NaN where missing).
    index : pandas.Index or None
        The rows' labels (pandas input).
    weights : ndarray or None
        Frequency weights of the rows (maximum likelihood), or the final 0/1 weights of a
        robust fit, shape (n, p).
    case_weights : ndarray of shape (n,) or None
        ``lm(weights=)``'s case weights.
    data_range : ndarray of shape (p, 2) or None
        Each column's extremes on the scale its power applies to.
    profile, profiles : Profile, tuple of Profile, or None
        A profile other than the columns' sample (a linear model's response), or one per
        column (case weights).
    fitted : tuple (Profile, curvatures) or None
        The fit's own profile and the solver's curvature estimates.
    federated : dict or None
        A fit that never pooled the data: clients, rounds, bytes, sites left out.
    """

    data: NDArray[np.float64] | None = None
    index: Any = None
    weights: NDArray[np.float64] | None = None
    case_weights: NDArray[np.float64] | None = None
    data_range: NDArray[np.float64] | None = None
    profile: Any = None
    profiles: tuple[Any, ...] | None = None
    fitted: tuple[Any, NDArray[np.float64]] | None = None
    federated: dict[str, Any] | None = None


@dataclass(frozen=True)
class FederatedRecord(jsonio.Codec):
    """The JSON of a :class:`Provenance`: its ``federated`` record only (the data stay out)."""

    def encode(self, value: Any) -> Any:
        return None if value.federated is None else jsonio.Mapping_().encode(value.federated)

    def decode(self, value: Any) -> Provenance:
        return Provenance(federated=jsonio.Mapping_().decode(value))


@dataclass(frozen=True, repr=False)
class ColumnTransforms(ResultBase):
    """Column names, input layout, family and power of each column; transforms.

    Numbers are stored as arrays with one entry per column; the public properties return a
    float for one-column input (a list, 1-D array or Series), a Series indexed by column name
    for a DataFrame and an ndarray for a 2-D array (the input's layout).
    """

    names: tuple[str, ...] = saved(jsonio.Strs())
    _layout: str = saved(jsonio.Str(choices=LAYOUTS))
    _families: tuple[str, ...] = saved(jsonio.Strs(length_of="names", choices=FAMILIES))
    _lmbda_used: NDArray[np.float64] = saved(jsonio.Floats(length_of="names", finite=True))
    # shifted families: bcnPower's gamma (Hawkins & Weisberg 2017), or a fixed shift added
    # before Box-Cox (car's ``bcPower(gamma=)``); NaN for a column without a shift
    _gamma_values: NDArray[np.float64] | None = saved(
        jsonio.Floats(length_of="names", optional=True), default=None, kw_only=True)
    _gamma_bse: NDArray[np.float64] | None = saved(
        jsonio.Floats(length_of="names", optional=True), default=None, kw_only=True)
    _gamma_status: tuple[str, ...] | None = saved(
        jsonio.Strs(length_of="names", choices=GAMMA_STATUS + ("",), optional=True),
        default=None, kw_only=True)
    _gamma_min: float | None = saved(jsonio.Float(optional=True), default=None, kw_only=True)

    # what to do about transformed values beyond float64 (``fit`` can bound lambda)
    _overflow_hint: ClassVar[str] = "rescale the data or choose a smaller power"
    # what to do about a power that loses the data's resolution (core.resolution)
    _resolution_hint: ClassVar[str] = ("choose another power, or subtract an offset from the "
                                       "data before fitting")

    # ------------------------------------------------------------------ shapes
    def _shape(self, values: Any, name: str = "") -> Any:
        """Float for one-column input, Series for DataFrames, ndarray for 2-D arrays."""
        values = np.asarray(values)
        if self._layout in ("series", "array1d"):
            v = values[0]
            return v.item() if isinstance(v, np.generic) else v
        if self._layout == "frame":
            return pd.Series(values, index=list(self.names), name=name or None)
        return values.copy()

    def _series(self, values: Any, name: str) -> pd.Series:
        """Values labelled by column (statsmodels' ``params`` convention)."""
        return pd.Series(np.asarray(values), index=list(self.names), name=name)

    @property
    def lmbda(self) -> Any:
        """The power(s) used to transform (a float for one column, else by column)."""
        return self._shape(self._lmbda_used, "lmbda")

    @property
    def params(self) -> pd.Series:
        """The powers as a Series indexed by column name; bcnPower fits add each column's
        gamma as ``"<column>:gamma"``."""
        if self._gamma_values is None:
            return self._series(self._lmbda_used, "lmbda")
        return self._with_gamma(self._lmbda_used, self._gamma_values, "params")

    @property
    def family(self) -> Any:
        """Family per column (``"boxcox"`` or ``"yeojohnson"``)."""
        return self._shape(np.array(self._families, dtype=object), "family")

    @property
    def gamma(self) -> Any:
        """The shift of each column (bcnPower's gamma, or a fixed Box-Cox shift); NaN where
        there is none, ``None`` for a result without shifts."""
        if self._gamma_values is None:
            return None
        return self._shape(self._gamma_values, "gamma")

    def _gamma_rows(self) -> list[int]:
        """Columns whose gamma is a parameter of the model (bcnPower), in order."""
        return [j for j, f in enumerate(self._families) if f == "bcnpower"]

    def _warn_gamma_unavailable(self, what: str, gse: Any) -> None:
        """Warn (rather than return NaN silently) where a bcnPower gamma's standard error, and
        so its interval, is not available, saying why; a gamma the user fixed is skipped."""
        status = self._gamma_status or ()
        why = {"lower bound": "it is at its lower bound gamma_min = {:g}, not estimated (car "
                              "fixes it there too)",
               "upper limit": "it ran to its upper limit (the transformation is then linear "
                              "and lambda is not identified)",
               "estimated": "the observed information of (lambda, gamma) is singular there"}
        gmin = self._gamma_min or 0.0
        parts = [f"{self.names[j]!r}: " + why[status[j]].format(gmin)
                 for j in self._gamma_rows()
                 if j < len(status) and status[j] in why and not np.isfinite(gse[j])]
        if parts:
            warnings.warn(f"the {what} of gamma is not available (NaN) for "
                          + "; ".join(parts), RuntimeWarning, stacklevel=3)

    def _with_gamma(self, lam: Any, gam: Any, name: str) -> pd.Series:
        """A Series of the powers followed by the bcnPower columns' gammas
        (``"<column>:gamma"``): the shape of ``params`` and ``bse``."""
        rows = self._gamma_rows()
        values = np.r_[np.asarray(lam, dtype=np.float64),
                       np.asarray(gam, dtype=np.float64)[rows] if rows else []]
        return pd.Series(values, index=list(self.names) + [f"{self.names[j]}:gamma"
                                                          for j in rows], name=name)

    def _column_index(self, column: str | int | None) -> int:
        """Position of ``column`` (a name or a position; ``None`` for a one-column result)."""
        if column is None:
            if len(self.names) > 1:
                raise BoxCoxError(
                    f"the result has {len(self.names)} columns; pass column= one of "
                    f"{list(self.names)}"
                )
            return 0
        if isinstance(column, (int, np.integer)) and not isinstance(column, bool):
            if not 0 <= int(column) < len(self.names):
                raise BoxCoxError(f"column index {column} is out of range")
            return int(column)
        if str(column) not in self.names:
            raise BoxCoxError(f"unknown column {column!r}; the result has {list(self.names)}")
        return self.names.index(str(column))

    def _null_values(self, lmbda0: Any, what: str = "lmbda0") -> NDArray[np.float64]:
        """A value of lambda per column (see :func:`power_values`)."""
        return power_values(self.names, lmbda0, what)

    # ------------------------------------------------------------------ transforms
    def _wrap(self, out: NDArray[np.float64], like: Any) -> Any:
        """``out`` shaped as the input ``like``: a pandas DataFrame or Series with its index,
        a polars (or other narwhals-supported) DataFrame or Series, or an ndarray."""
        if isinstance(like, pd.DataFrame):
            return pd.DataFrame(out, index=like.index, columns=list(self.names))
        if isinstance(like, pd.Series):
            return pd.Series(out[:, 0], index=like.index, name=like.name)
        native = like_native(out, self.names, like)
        if native is not None:
            return native
        return out[:, 0] if np.ndim(like) == 1 else out

    def _shift(self, j: int) -> float | None:
        g = None if self._gamma_values is None else float(self._gamma_values[j])
        return None if g is None or np.isnan(g) else g

    def _prepare(self, x: NDArray[np.float64], j: int) -> NDArray[np.float64]:
        """Column ``j`` of new data on the scale the power applies to: bcnPower's positive
        base, ``x + gamma`` for a shifted Box-Cox column, else ``x`` itself (a robust fit
        applies its prestandardization)."""
        g = self._shift(j)
        if g is None:
            return x
        if self._families[j] == "bcnpower":
            return fam.bcnpower_base(x, g)
        shifted = x + g
        report = ColumnReport.of(shifted)
        if report.n_nonpositive:
            i = report.first_nonpositive
            raise BoxCoxError(
                f"{report.n_nonpositive} value(s) plus the shift gamma = {g:g} are <= 0, "
                f"first at row {i!r} ({float(x[i])!r} + {g:g}); Box-Cox needs x + gamma > 0: "
                "use family='bcnpower' or a larger gamma")
        return shifted

    def _unprepare(self, u: NDArray[np.float64], j: int) -> NDArray[np.float64]:
        g = self._shift(j)
        if g is None:
            return u
        if self._families[j] == "bcnpower":
            return fam.bcnpower_unbase(u, g)
        return u - g

    def _power_family(self, j: int) -> str:
        """The family of the power applied after :meth:`_prepare` (bcnPower is Box-Cox of
        its shifted base)."""
        return "boxcox" if self._families[j] == "bcnpower" else self._families[j]

    def _gate_families(self) -> tuple[str, ...]:
        """The families new data are checked against at the gate (a shifted Box-Cox column
        is checked after its shift, by :meth:`_prepare`)."""
        return tuple("yeojohnson" if self._shift(j) is not None else f
                     for j, f in enumerate(self._families))

    def _transform_values(self, x: NDArray[np.float64], j: int,
                          lmbda: float | None = None) -> NDArray[np.float64]:
        """Column ``j``'s finite values transformed (at ``lmbda``, default the fitted power)."""
        lam = float(self._lmbda_used[j]) if lmbda is None else float(lmbda)
        return fam.transform(self._prepare(x, j), lam, self._power_family(j))

    def _by_family(self) -> list[tuple[str, NDArray[np.intp]]]:
        """Columns grouped by the family of the power applied after :meth:`_prepare`."""
        fams = np.array([self._power_family(j) for j in range(len(self.names))])
        return [(f, np.flatnonzero(fams == f)) for f in sorted(set(fams.tolist()))]

    def _prepares(self) -> bool:
        """Whether any column is moved before its power (a shift, a prestandardization)."""
        return (type(self)._prepare is not ColumnTransforms._prepare
                or self._gamma_values is not None)

    def _prepared(self, x: NDArray[np.float64]) -> NDArray[np.float64]:
        """The columns of ``x`` on the scale their powers apply to (:meth:`_prepare`; ``x``
        itself when no column is moved)."""
        u = np.asarray(x, dtype=np.float64)
        if self._prepares():
            u = u.copy()
            for j, name in enumerate(self.names):
                ok = ~np.isnan(u[:, j])
                try:
                    u[ok, j] = self._prepare(u[ok, j], j)
                except BoxCoxError as err:
                    raise type(err)(f"column {name!r}: {err}") from None
        return u

    def _check_resolution(self, u: NDArray[np.float64], stacklevel: int,
                          hint: str | None = None) -> None:
        """A :class:`~boxcoxstat.ResolutionWarning` for every column of ``u`` (values on the
        powers' scale) whose fitted power loses their resolution in float64 (see
        :mod:`boxcoxstat.core.resolution`: decided from each column's extremes, one pass;
        the message's facts are measured on the column only then). ``stacklevel`` counts
        from the caller."""
        fams = [self._power_family(j) for j in range(len(self.names))]
        for text in loss_messages(u, self._lmbda_used, fams, self.names,
                                  hint or self._resolution_hint):
            warnings.warn(text, ResolutionWarning, stacklevel=stacklevel + 1)

    def _transform_matrix(self, x: NDArray[np.float64], warn: int | None = None,
                          hint: str | None = None) -> NDArray[np.float64]:
        """Transform the columns of ``x`` (NaN stays NaN): each column prepared
        (:meth:`_prepare`), then every column of a family in one vectorised call. With
        ``warn`` (a stack level counted from the caller), columns whose power loses the
        values' resolution give a ``ResolutionWarning`` (``hint``: what to do)."""
        u = self._prepared(x)
        groups = self._by_family()
        if len(groups) == 1:  # one family: one call, no gathering of columns
            out = fam.forward_unchecked(u, self._lmbda_used, groups[0][0])
        else:
            out = np.empty_like(u)
            for f, idx in groups:
                out[:, idx] = fam.forward_unchecked(u[:, idx], self._lmbda_used[idx], f)
        bad = ~np.isfinite(out) & ~np.isnan(u)
        if bad.any():
            j = int(np.flatnonzero(bad.any(axis=0))[0])
            name, lam = self.names[j], float(self._lmbda_used[j])
            if np.isinf(out[bad[:, j], j]).any():
                raise TransformOverflowError(
                    f"column {name!r}: transformed values at lambda = {lam:.6g} exceed the "
                    f"float64 range (about 1.8e308); {self._overflow_hint}"
                )
            raise BoxCoxError(f"column {name!r}: Box-Cox requires strictly positive data")
        if warn is not None:
            self._check_resolution(u, warn + 1, hint)
        return out

    def _inverse_matrix(self, y: NDArray[np.float64]) -> tuple[NDArray[np.float64],
                                                               NDArray[np.bool_]]:
        """The inverse transform of the columns of ``y`` (NaN stays NaN) and a mask of the
        values without an inverse (outside the transform's range at the fitted power, or
        beyond float64 on the original scale), which are NaN or infinite in the output."""
        out = np.empty_like(y, dtype=np.float64)
        for f, idx in self._by_family():
            out[:, idx] = fam.inverse_unchecked(y[:, idx], self._lmbda_used[idx], f)
        bad = ~np.isfinite(out) & ~np.isnan(y)
        if self._prepares():
            for j in range(y.shape[1]):
                ok = np.isfinite(out[:, j])
                out[ok, j] = self._unprepare(out[ok, j], j)
        return out, bad

    def _inverse_problem(self, bad: NDArray[np.bool_], out: NDArray[np.float64],
                         labels: Any = None) -> str:
        """Which values of which columns have no inverse (NaN in ``out``: outside the
        transform's range) or one beyond float64 (infinite), naming the rows by ``labels``
        (positions when ``None``)."""
        parts = []
        for j in map(int, np.flatnonzero(bad.any(axis=0))):
            kind = {"boxcox": "Box-Cox", "yeojohnson": "Yeo-Johnson"}[self._power_family(j)]
            lam = f"{float(self._lmbda_used[j]):.6g}"
            nan = bad[:, j] & np.isnan(out[:, j])
            if nan.any():
                parts.append(f"column {self.names[j]!r}: {rows_text(nan, labels)} lie outside "
                             f"the range of the {kind} transform at lambda = {lam}, so they "
                             "have no inverse")
            if (bad[:, j] & ~nan).any():
                parts.append(f"column {self.names[j]!r}: the inverse {kind} transform of "
                             f"{rows_text(bad[:, j] & ~nan, labels)} overflows float64 at "
                             f"lambda = {lam}")
        return "; ".join(parts)

    def transform(self, data: Any) -> Any:
        """Transform data with the fitted powers (same layout in as out; NaN stays NaN).

        Raises
        ------
        BoxCoxError
            For data that do not match the fitted columns, or Box-Cox values <= 0 (the column
            and the first bad row are named).
        TransformOverflowError
            If a transformed value would exceed float64's range (the message says what to do).

        Warns
        -----
        ResolutionWarning
            If the transformed values lose the data's resolution in float64 (a round trip
            ``inverse_transform(transform(x))`` off by more than 1e-8 relative; distinct
            values then share an output), naming the column and what to do.
        """
        if is_spark(data):  # lazy Spark column expressions
            from .spark_transform import spark_transform

            return spark_transform(self, data)
        x = new_columns(data, self.names, self._gate_families())
        return self._wrap(self._transform_matrix(x, warn=2), data)

    def inverse_transform(self, data: Any) -> Any:
        """Map transformed values back to the original scale (NaN stays NaN).

        A value outside the transform's range at the fitted power has no inverse: it is NaN
        in the output, with one ``UserWarning`` naming the column(s) and rows; the other
        values are returned (the package's one rule for inverses, as ``predict`` and
        :func:`boxcoxstat.inv_boxcox`).

        Raises
        ------
        TransformOverflowError
            For values whose inverse exceeds float64 (the column and rows are named), as
            :meth:`transform` refuses them.
        """
        if is_spark(data):  # lazy Spark column expressions
            from .spark_transform import spark_transform

            return spark_transform(self, data, inverse=True)
        y = new_columns(data, self.names, None)
        out, bad = self._inverse_matrix(y)
        if bad.any():
            labels = data.index if isinstance(data, (pd.Series, pd.DataFrame)) else None
            over = bad & ~np.isnan(out)
            if over.any():
                raise TransformOverflowError(self._inverse_problem(over, out, labels))
            warnings.warn(self._inverse_problem(bad, out, labels) + "; they are NaN in the "
                          "output", UserWarning, stacklevel=2)
        return self._wrap(out, data)


def rows_text(mask: NDArray[np.bool_], labels: Any = None, most: int = 10) -> str:
    """``"2 value(s) (rows 3, 7)"`` for the rows where ``mask`` holds, named by ``labels``
    (an index) or by position, at most ``most`` of them shown.

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.base.transform import rows_text
    >>> rows_text(np.array([False, True, True]))
    '2 value(s) (rows 1, 2)'
    """
    where = np.flatnonzero(np.asarray(mask, dtype=bool).reshape(-1))
    names = [labels[i] if labels is not None else i for i in where[:most]]
    shown = ", ".join(repr(v.item() if isinstance(v, np.generic) else v) for v in names)
    more = f" and {where.size - most} more" if where.size > most else ""
    return f"{where.size} value(s) (rows {shown}{more})"
