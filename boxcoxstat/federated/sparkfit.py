"""``boxcoxstat.fit`` on Spark DataFrames: partitions are the clients, one Spark job per pass.

The gate reads the DataFrame (its set-up job, :func:`boxcoxstat._validation.partitions.
read_spark`: every partition's report of every column, and the case weights' checks and
totals, merged and checked); this module then hands the validated columns to the core
(:func:`boxcoxstat.core.arrow.fit_arrow`) with pyspark's own ``DataFrame.collect`` and each
column's bound ``DataFrame.mapInArrow`` injected: every pass is one ``mapInArrow`` job in
which each Spark partition reduces its Arrow batches to the core's summary (its side
moments at the requested lambdas) and returns one row; the driver collects those rows --
one per partition, a few hundred bytes each, never the data -- and merges them pairwise (Xu
& Cormode 2025, Algorithm 1). A column of more than 100,000 values is first solved on a
systematic subsample that stays cached on the executors. During a fit no function of this
module runs between the core's first call and the result: the walk of the data is gate,
model, core, result.

:func:`~boxcoxstat.base.spark_transform.spark_transform` maps a fitted result onto a Spark
DataFrame with Spark's own column expressions, so it is lazy and runs where the data are.

Needs the ``spark`` extra (``pip install "boxcoxstat[spark]"``: pyspark, which needs a Java
runtime).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._validation.partitions import Partitioned, read_spark
from .._validation.routes import Request
from ..base.spark_transform import _pyspark
from ..core.arrow import fit_arrow
from ..core.bounds import check_bounds
from ..core.estimate import auto_family
from ..core.partitioned import held_table, new_tally
from ..exceptions import user_stacklevel
from ..univariate.results import PowerTransformResult
from .model import held_options

__all__ = ["fit_spark", "fit_request"]


def fit_spark(
    df: Any,
    *,
    family: str = "boxcox",
    missing: str = "drop",
    ymax: float | None = None,
    optimizer: str = "score",
    grid: int = 1000,
    bounds: Any = None,
    weights: str | None = None,
) -> PowerTransformResult:
    """Fit lambda per column of a Spark DataFrame (``boxcoxstat.fit`` on Spark input goes
    through the gate to :func:`fit_request`; this entry checks its options, reads the
    DataFrame through the same gate function and takes ``optimizer`` and ``grid`` too).

    One Spark job per pass: a set-up pass over all columns (counts, ranges, the gate's
    checks), then per column one pass per evaluation of the profile (and one to cache the
    subsample of a column of more than 100,000 values); only one summary row per partition
    reaches the driver. The result equals the in-memory fit of the same values to about
    1e-12 relative; ``federated["passes"]`` counts every job that reads the data.
    ``bounds=(lo, hi)`` restricts lambda to ``[lo, hi]`` (the bounded maximum and inference
    of ``boxcoxstat.fit(x, bounds=)``: one more evaluation at an active bound).
    ``weights="w"`` names a column of case weights (not fitted, read and checked in the
    set-up pass): the likelihood of ``lm(x ~ 1, weights=w)`` from the partitions' weighted
    moments, as Dask's: one pass for the Jacobian's term per family and one per evaluation
    (no subsample start).

    Examples
    --------
    >>> import numpy as np, boxcoxstat as bcs
    >>> from pyspark.sql import SparkSession               # doctest: +SKIP
    >>> spark = SparkSession.builder.master("local[1]").getOrCreate()  # doctest: +SKIP
    >>> x = np.random.default_rng(0).lognormal(size=4000)
    >>> sdf = spark.createDataFrame([(float(v),) for v in x], ["x"])   # doctest: +SKIP
    >>> r = bcs.fit(sdf)                                                # doctest: +SKIP
    >>> bool(abs(r.lmbda.iloc[0] - bcs.fit(x).lmbda) < 1e-10)           # doctest: +SKIP
    True
    """
    _pyspark()
    fam, ymax = held_options(family, ymax, missing, optimizer)
    read = read_spark(df, family=fam, missing=missing, weights=weights)
    limits = check_bounds(bounds, len(read.names))
    return _fit(read, fam, ymax=ymax, bounds=limits, optimizer=optimizer, grid=grid)


def fit_request(req: Request) -> PowerTransformResult:
    """The estimator table's rows for Spark input (``boxcoxstat.api.TABLE``): the DataFrame
    the gate has read (:class:`~boxcoxstat._validation.partitions.Partitioned`, with its
    case weights where given), fitted by the core."""
    return _fit(req.data, req.family, ymax=req.ymax, bounds=req.bounds)


def _fit(read: Partitioned, family: str, *, ymax: float | None,
         bounds: NDArray[np.float64] | None, optimizer: str = "score", grid: int = 1000
         ) -> PowerTransformResult:
    """The core's fit of the gate's columns with pyspark's ``collect`` injected, then the
    result (the subsamples cached on the executors released)."""
    from pyspark.sql import DataFrame

    names = [c.name for c in read.columns]
    n_missing = [c.n_missing for c in read.columns]
    weighted = any(c.weighted for c in read.columns)
    tally = new_tally()
    tally["passes"] = read.passes
    cached: list[Any] = []
    try:
        fits = fit_arrow(read.columns, DataFrame.collect, family, tally, cached=cached,
                         optimizer=optimizer, grid=grid, ymax=ymax, bounds=bounds,
                         choose=auto_family)
    finally:
        for sub in cached:
            sub.unpersist()
    table, info = held_table(fits, names, read.clients, optimizer, tally, weighted)
    for text, category in table.warnings:
        warnings.warn(text, category, stacklevel=user_stacklevel())
    return PowerTransformResult._from_table(table, names, read.kind, family, n_missing, info,
                                            ymax=ymax, bounds=bounds)
