"""One column of car's plots (symbox, spread-level, QQ) read through the gate.

Its values, name and row labels, missing values refused or left out, and values too large
for sums of squares refused; shared by ``symbox``, ``spread_level`` and ``plotting``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._validation.columns import BoxCoxError, ColumnReport, check_column, check_option
from .._validation.containers import to_matrix


def _column(x: Any, what: str, missing: str = "raise"
            ) -> tuple[NDArray[np.float64], str, Any, NDArray[np.bool_]]:
    """One column's values, name and row labels, missing values left out under
    ``missing="drop"`` (the labels are those of the kept rows: their positions when ``x`` has
    none), and which rows were kept."""
    check_option("missing", missing, ("drop", "raise"))
    values, names, index, _ = to_matrix(x)
    if values.shape[1] != 1:
        raise BoxCoxError(f"{what} takes one column, got {values.shape[1]}")
    v = values[:, 0]
    check_column(ColumnReport.of(v, None if index is None else (lambda i: index[i])), names[0],
                 family="yeojohnson", missing=missing)
    kept = ~np.isnan(v)
    if kept.all():
        return v, names[0], index, kept
    labels = np.flatnonzero(kept) if index is None else index[kept]
    return v[kept], names[0], labels, kept


def _check_size(v: np.ndarray, name: str) -> None:
    """Refuse values beyond 1e300 in size, where sums and squares overflow float64."""
    if np.max(np.abs(v)) > 1e300:
        raise BoxCoxError(f"column {name!r} has values beyond 1e300 in size; rescale it (divide "
                          "by a power of ten: the suggested power does not depend on the scale)")
