"""A sample held in a Spark DataFrame's partitions: each pass one ``mapInArrow`` job.

The Spark counterpart of :class:`~boxcoxstat.core.partitioned.HeldColumn` (the
:class:`~boxcoxstat.core.partitioned.Column` protocol): the caller injects the column's
bound ``DataFrame.mapInArrow`` and pyspark's ``DataFrame.collect`` (this module imports no
scheduler), and every pass ships one of this module's functions to the executors, where
each partition reduces its Arrow batches to its side moments (or its share of the weighted
Jacobian's term, or its systematic subsample) and returns one row; the driver collects
those rows -- one per partition, never the data -- and merges them pairwise
(:func:`~boxcoxstat.core.partitioned.merge_moment_parts`; Xu & Cormode 2025, Algorithm 1).
A failed job becomes the package's error through the gate's
:func:`~boxcoxstat._validation.partitions.spark_failure` (on that error path only).
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from math import fsum
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._arrays import arrow_row, arrow_values
from .._validation.partitions import spark_failure
from ..exceptions import BoxCoxError
from .frame import SampleFrame
from .partitioned import (
    CaseWeights,
    Choose,
    ColumnFit,
    HeldSample,
    Moments,
    every,
    fit_samples,
    merge_moment_parts,
    partition_jacobian_gap,
    partition_moments,
)

__all__ = ["ArrowColumn", "arrow_moments", "arrow_gap", "arrow_every", "fit_arrow"]


# ----------------------------------------------------------------------- on the executors
def arrow_moments(batches: Any, *, weighted: bool, **kw: Any) -> Any:
    """One row per partition: the side moments of its values (column 0; with case weights
    in column 1, the weighted ones) at the requested lambdas (:func:`~boxcoxstat.core.
    partitioned.partition_moments`)."""
    blist = list(batches)
    w = arrow_values(blist, 1) if weighted else None
    yield arrow_row(partition_moments(arrow_values(blist, 0), w=w, **kw))


def arrow_gap(batches: Any, **kw: Any) -> Any:
    """One row per partition: its share of the weighted Jacobian's term ``D``
    (:func:`~boxcoxstat.core.partitioned.partition_jacobian_gap`)."""
    blist = list(batches)
    yield arrow_row(partition_jacobian_gap(arrow_values(blist, 0), arrow_values(blist, 1),
                                           **kw))


def arrow_every(batches: Any, *, stride: int) -> Any:
    """Every ``stride``-th value of a partition, as a column ``v``."""
    import pyarrow as pa

    sub = every(arrow_values(list(batches), 0), stride)
    yield pa.RecordBatch.from_pydict({"v": sub}, schema=pa.schema([("v", pa.float64())]))


# ----------------------------------------------------------------------- on the driver
@dataclass(frozen=True)
class ArrowColumn:
    """A column of a Spark DataFrame: ``map`` its bound ``mapInArrow``, ``collect`` pyspark's
    ``DataFrame.collect``; ``weighted``: the case weights are its second column; ``cached``
    collects the subsamples kept on the executors (the caller unpersists them)."""

    name: str
    map: Callable[..., Any]
    collect: Callable[[Any], Any]
    weighted: bool = False
    cached: list[Any] | None = None

    def _pass(self, fn: Any) -> list[Any]:
        try:
            rows = self.collect(self.map(fn, "part binary"))
        except BoxCoxError:
            raise
        except Exception as exc:  # Py4JJavaError, PythonException, ...
            raise spark_failure(exc, f"column {self.name!r}") from None
        return [pickle.loads(bytes(r[0])) for r in rows]

    def moments(self, frame: SampleFrame, lmbda: tuple[float, ...],
                shift_pos: tuple[float, ...], shift_neg: tuple[float, ...],
                score: bool) -> Moments:
        """One job: every partition's moments, merged on the driver."""
        return merge_moment_parts(self._pass(partial(
            arrow_moments, weighted=self.weighted, frame=frame, lmbda=tuple(lmbda),
            shift_pos=tuple(shift_pos), shift_neg=tuple(shift_neg), score=score)))

    def jacobian_gap(self, family: str, center: float, ratio: float) -> float:
        """One job over a weighted column: ``D`` summed over the partitions."""
        return fsum(self._pass(partial(arrow_gap, family=family, center=center,
                                       ratio=ratio)))

    def subsample(self, stride: int) -> ArrowColumn:
        """Every ``stride``-th value of each partition, cached on the executors (one job)."""
        sub = self.map(partial(arrow_every, stride=stride), "v double").cache()
        if self.cached is not None:
            self.cached.append(sub)
        try:
            sub.count()  # the pass that fills the cache
        except Exception as exc:
            raise spark_failure(exc, f"column {self.name!r}") from None
        return ArrowColumn(self.name, sub.mapInArrow, self.collect, False, self.cached)


def fit_arrow(columns: Sequence[Any], collect: Callable[[Any], Any], family: str,
              tally: dict[str, int], *, cached: list[Any], optimizer: str = "score",
              grid: int = 1000, ymax: float | None = None,
              bounds: NDArray[np.float64] | None = None, choose: Choose | None = None
              ) -> list[ColumnFit]:
    """:func:`~boxcoxstat.core.partitioned.fit_samples` of the columns the gate has read from
    a Spark DataFrame (records with ``name``, ``frame``, ``n``, ``pos``, ``neg``, ``lo``,
    ``hi``, ``weighted`` and, with case weights, ``n_w``, ``w_total``, ``w_log``), each pass
    one job through ``frame.mapInArrow`` and ``collect``; the subsamples kept on the
    executors are appended to ``cached``."""
    samples = []
    for c in columns:
        col = ArrowColumn(c.name, c.frame.mapInArrow, collect, c.weighted, cached)
        case = CaseWeights(c.n_w, c.w_total, c.w_log) if c.weighted else None
        samples.append(HeldSample(col, c.n if case is None else case.n, c.pos, c.neg,
                                  c.lo, c.hi, case))
    return fit_samples(samples, family, tally, optimizer=optimizer, grid=grid, ymax=ymax,
                       bounds=bounds, choose=choose)
