"""Array reductions shared by the gate and the core (NumPy, importing nothing else of the
package), so that each is written once: the columns' extremes; a Spark partition's Arrow
batches read as float columns and its one-row summary (pyarrow, imported when called)."""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["column_range", "FEW_COLUMNS", "arrow_values", "arrow_row"]

FEW_COLUMNS = 16  # up to this many columns, column extremes are taken one column at a time


def column_range(values: NDArray[np.float64]) -> tuple[NDArray, NDArray]:
    """Smallest and largest value of each column of ``values`` (n, p); NaN where the column
    holds one. A few long columns are reduced one at a time: NumPy's reduction along the
    rows of a C-ordered matrix with 5 columns is about ten times slower than five strided
    ones. The gate's check of raw data (``_validation.columns``) and a sample side's
    log-ratios (``core.sample.Side.vrange``) both use it.

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat._arrays import column_range
    >>> lo, hi = column_range(np.array([[1.0, 5.0], [3.0, np.nan], [2.0, 4.0]]))
    >>> lo.tolist(), hi.tolist()
    ([1.0, nan], [3.0, nan])
    """
    with np.errstate(invalid="ignore"):  # NaN propagates: one pass each
        if values.shape[1] <= FEW_COLUMNS and values.shape[0] > 1000:
            ends = [_extremes(values[:, j]) for j in range(values.shape[1])]
            return np.array([e[0] for e in ends]), np.array([e[1] for e in ends])
        return values.min(axis=0, initial=np.inf), values.max(axis=0, initial=-np.inf)


RANGE_ROWS = 1 << 17  # a long column's minimum and maximum are taken block by block


def _extremes(col: NDArray[np.float64]) -> tuple[float, float]:
    """Smallest and largest value of one column (NaN if it holds one). A long column is
    read once: each block's maximum is taken while the block is in cache after its
    minimum (1e7 values: 0.46 of an ``np.log`` pass, where two passes take 0.64)."""
    if col.size <= 2 * RANGE_ROWS:
        return col.min(initial=np.inf), col.max(initial=-np.inf)
    lo, hi = np.inf, -np.inf
    for i in range(0, col.size, RANGE_ROWS):
        block = col[i : i + RANGE_ROWS]
        lo, hi = np.minimum(lo, block.min()), np.maximum(hi, block.max())  # NaN propagates
    return lo, hi


def arrow_values(batches: list[Any], j: int = 0) -> NDArray[np.float64]:
    """Column ``j`` of a Spark partition's Arrow batches as one float array (null: NaN)."""
    parts = [b.column(j).to_numpy(zero_copy_only=False) for b in batches]
    if not parts:
        return np.empty(0, dtype=np.float64)
    return np.concatenate(parts).astype(np.float64, copy=False)


def arrow_row(obj: Any) -> Any:
    """A partition's summary ``obj`` as a one-row Arrow batch (``part binary``: pickled)."""
    import pyarrow as pa

    return pa.RecordBatch.from_pydict({"part": [pickle.dumps(obj)]},
                                      schema=pa.schema([("part", pa.binary())]))
