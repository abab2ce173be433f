"""The part of a result that transforms columns with fitted powers (ML and robust alike).

Layer 4. :class:`ColumnTransforms` holds the column names, the input's layout, the family and
the power of every column, and applies them to new data through the validation gate
(``_validation.new_columns``). :class:`~boxcoxstat.PowerTransformResult` (maximum likelihood)
and :class:`~boxcoxstat.RobustTransformResult` (RewML, Carroll, MTL) are siblings built on it;
neither raises from a method the other defines.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from .. import families as fam
from .._validation import BoxCoxError, TransformOverflowError, new_columns
from . import jsonio
from .jsonio import saved
from .results import ResultBase

__all__ = ["ColumnTransforms", "LAYOUTS"]

LAYOUTS = ("series", "frame", "array1d", "array2d")
FAMILIES = ("boxcox", "yeojohnson")


@dataclass(frozen=True, repr=False)
class ColumnTransforms(ResultBase):
    """Column names, input layout, family and power of each column; transforms.

    Numbers are stored as arrays with one entry per column; the public properties return a
    float for one-column input (a list, 1-D array or Series), a Series indexed by column name
    for a DataFrame and an ndarray for a 2-D array (the input's layout).
    """

    names: tuple[str, ...] = saved(jsonio.Strs())
    layout: str = saved(jsonio.Str(choices=LAYOUTS))
    families: tuple[str, ...] = saved(jsonio.Strs(length_of="names", choices=FAMILIES))
    lmbda_used: NDArray[np.float64] = saved(jsonio.Floats(length_of="names", finite=True))

    # what to do about transformed values beyond float64 (``fit`` can bound lambda)
    _overflow_hint: ClassVar[str] = "rescale the data or choose a smaller power"

    # ------------------------------------------------------------------ shapes
    def _shape(self, values: Any, name: str = "") -> Any:
        """Float for one-column input, Series for DataFrames, ndarray for 2-D arrays."""
        values = np.asarray(values)
        if self.layout in ("series", "array1d"):
            v = values[0]
            return v.item() if isinstance(v, np.generic) else v
        if self.layout == "frame":
            return pd.Series(values, index=list(self.names), name=name or None)
        return values.copy()

    def _series(self, values: Any, name: str) -> pd.Series:
        """Values labelled by column (statsmodels' ``params`` convention)."""
        return pd.Series(np.asarray(values), index=list(self.names), name=name)

    @property
    def lmbda(self) -> Any:
        """The power(s) used to transform (a float for one column, else by column)."""
        return self._shape(self.lmbda_used, "lmbda")

    @property
    def params(self) -> pd.Series:
        """The powers as a Series indexed by column name."""
        return self._series(self.lmbda_used, "lmbda")

    @property
    def family(self) -> Any:
        """Family per column (``"boxcox"`` or ``"yeojohnson"``)."""
        return self._shape(np.array(self.families, dtype=object), "family")

    def column_index(self, column: str | int | None) -> int:
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
        """A value of lambda per column: a number, one number per column, or a Series by
        column name (the null of ``test``; ``what`` names the argument in errors)."""
        p = len(self.names)
        if isinstance(lmbda0, pd.Series):
            absent = [n for n in self.names if n not in lmbda0.index]
            if absent:
                raise BoxCoxError(f"{what} has no value for column(s) {absent}")
            lmbda0 = lmbda0[list(self.names)].to_numpy()
        try:
            arr = np.asarray(lmbda0, dtype=np.float64)
        except (TypeError, ValueError):
            raise BoxCoxError(f"{what} must be a number or {p} numbers, got {lmbda0!r}") from None
        if arr.ndim == 0:
            arr = np.full(p, float(arr))
        if arr.shape != (p,):
            raise BoxCoxError(f"{what} must be a number or {p} numbers (one per column "
                              f"{list(self.names)}), got shape {arr.shape}")
        if not np.all(np.isfinite(arr)):
            raise BoxCoxError(f"{what} must be finite")
        return arr

    # ------------------------------------------------------------------ transforms
    def _wrap(self, out: NDArray[np.float64], like: Any) -> Any:
        if isinstance(like, pd.DataFrame):
            return pd.DataFrame(out, index=like.index, columns=list(self.names))
        if isinstance(like, pd.Series):
            return pd.Series(out[:, 0], index=like.index, name=like.name)
        return out[:, 0] if np.ndim(like) == 1 else out

    def _prepare(self, x: NDArray[np.float64], j: int) -> NDArray[np.float64]:
        """Column ``j`` of new data on the scale the power applies to (identity here; a
        robust fit applies its prestandardization)."""
        return x

    def _unprepare(self, u: NDArray[np.float64], j: int) -> NDArray[np.float64]:
        return u

    def _transform_matrix(self, x: NDArray[np.float64]) -> NDArray[np.float64]:
        out = np.full_like(x, np.nan)
        for j, name in enumerate(self.names):
            ok = ~np.isnan(x[:, j])
            lam, f = float(self.lmbda_used[j]), self.families[j]
            try:
                out[ok, j] = fam.transform(self._prepare(x[ok, j], j), lam, f)
            except TransformOverflowError:
                raise TransformOverflowError(
                    f"column {name!r}: transformed values at lambda = {lam:.6g} exceed the "
                    f"float64 range (about 1.8e308); {self._overflow_hint}"
                ) from None
            except BoxCoxError as err:
                raise type(err)(f"column {name!r}: {err}") from None
        return out

    def transform(self, data: Any) -> Any:
        """Transform data with the fitted powers (same layout in as out; NaN stays NaN).

        Raises
        ------
        BoxCoxError
            For data that do not match the fitted columns, or Box-Cox values <= 0 (the column
            and the first bad row are named).
        TransformOverflowError
            If a transformed value would exceed float64's range (the message says what to do).
        """
        x = new_columns(data, self.names, self.families)
        return self._wrap(self._transform_matrix(x), data)

    def inverse_transform(self, data: Any) -> Any:
        """Map transformed values back to the original scale (NaN stays NaN)."""
        y = new_columns(data, self.names, None)
        out = np.full_like(y, np.nan)
        for j, name in enumerate(self.names):
            ok = ~np.isnan(y[:, j])
            try:
                u = fam.inverse_transform(y[ok, j], float(self.lmbda_used[j]), self.families[j])
            except BoxCoxError as err:
                raise type(err)(f"column {name!r}: {err}") from None
            out[ok, j] = self._unprepare(u, j)
        return self._wrap(out, data)
