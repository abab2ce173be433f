"""``boxcoxstat.fit`` on Spark DataFrames: the partitioned engine, one Spark job per pass.

A thin adapter of the partitioned engine
(:mod:`boxcoxstat.federated.partitioned`, the one behind Dask input): every pass is one
``DataFrame.mapInArrow`` job in which each Spark partition reduces its Arrow batches to the
engine's summary (:func:`~boxcoxstat.federated.partitioned.partition_report` in the set-up
pass, :func:`~boxcoxstat.federated.partitioned.partition_moments` in each evaluation) and
returns one row holding it; the driver collects those rows -- one per partition, a few
hundred bytes each, never the data -- and merges them pairwise (Xu & Cormode 2025,
Algorithm 1). The set-up pass reads all columns at once; a column of more than 100,000
values is first solved on a systematic subsample that stays cached on the executors.

:func:`~boxcoxstat.base.spark_transform.spark_transform` maps a fitted result onto a Spark
DataFrame with Spark's own column expressions, so it is lazy and runs where the data are.

Needs the ``spark`` extra (``pip install "boxcoxstat[spark]"``: pyspark, which needs a Java
runtime).
"""

from __future__ import annotations

import pickle
from collections.abc import Iterator
from functools import partial
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._validation.columns import BoxCoxError
from .._validation.routes import Request
from ..base.spark_transform import _pyspark
from ..core.frame import SampleFrame
from ..univariate.results import PowerTransformResult
from .daskweights import fit_weighted, merge_sums
from .partitioned import (
    every,
    fit_partitioned,
    merge_moment_parts,
    merge_reports,
    partition_moments,
    partition_report,
)

__all__ = ["fit_spark", "fit_request"]


# ----------------------------------------------------------------------- on the executors
def _values(batches: Iterator[Any], j: int = 0) -> NDArray[np.float64]:
    """Column ``j`` of a partition's Arrow batches as one float array (null: NaN)."""
    parts = [b.column(j).to_numpy(zero_copy_only=False) for b in batches]
    if not parts:
        return np.empty(0, dtype=np.float64)
    return np.concatenate(parts).astype(np.float64, copy=False)


def _row(obj: Any) -> Any:
    import pyarrow as pa

    return pa.RecordBatch.from_pydict({"part": [pickle.dumps(obj)]},
                                      schema=pa.schema([("part", pa.binary())]))


def _setup_part(batches: Iterator[Any], *, ncols: int) -> Iterator[Any]:
    """One row per partition: the engine's set-up report of each of its columns."""
    blist = list(batches)
    yield _row([partition_report(_values(iter(blist), j)) for j in range(ncols)])


def _moments_part(batches: Iterator[Any], *, frame: SampleFrame, lmbda: tuple[float, ...],
                  shift_pos: tuple[float, ...], shift_neg: tuple[float, ...],
                  score: bool) -> Iterator[Any]:
    """One row per partition: the side moments of its values at ``lmbda``."""
    yield _row(partition_moments(_values(batches), frame, lmbda, shift_pos, shift_neg, score))


def _weighted_part(batches: Iterator[Any], *, func: Any, kw: dict) -> Iterator[Any]:
    """One row per partition: ``func(values, weights, **kw)`` (a weighted pass of
    :mod:`~boxcoxstat.federated.daskweights`) of its two columns."""
    blist = list(batches)
    yield _row(func(_values(iter(blist), 0), _values(iter(blist), 1), **kw)[0])


def _every_part(batches: Iterator[Any], *, stride: int) -> Iterator[Any]:
    import pyarrow as pa

    sub = every(_values(batches), stride)
    yield pa.RecordBatch.from_pydict({"v": sub}, schema=pa.schema([("v", pa.float64())]))


# ----------------------------------------------------------------------- on the driver
def _collect(sdf: Any, name: str) -> list[Any]:
    """The per-partition rows of one pass (Spark's failure: the package's error)."""
    try:
        rows = sdf.collect()
    except BoxCoxError:
        raise
    except Exception as exc:  # Py4JJavaError, PythonException, ...
        text = str(exc)
        ours = text.rfind("BoxCoxError: ")
        if ours >= 0:  # raised on an executor (a bad weight): the package's message itself
            msg = text[ours + len("BoxCoxError: "):].strip().splitlines()[0]
            raise BoxCoxError(f"{name}: {msg:.500}") from None
        first = text.strip().splitlines()[0] if text.strip() else ""
        raise BoxCoxError(f"Spark failed while reading {name}: {type(exc).__name__}: "
                          f"{first:.500}; check the DataFrame's source (it must be "
                          "readable more than once with the same rows)") from None
    return [pickle.loads(bytes(r[0])) for r in rows]


class SparkColumn:
    """A column as the engine sees it: each pass is one ``mapInArrow`` job."""

    def __init__(self, sdf: Any, name: str, cached: list[Any]) -> None:
        self.sdf, self.name, self.cached = sdf, name, cached

    def moments(self, frame: SampleFrame, lmbda: tuple[float, ...],
                shift_pos: tuple[float, ...], shift_neg: tuple[float, ...],
                score: bool) -> dict:
        fn = partial(_moments_part, frame=frame, lmbda=tuple(lmbda),
                     shift_pos=tuple(shift_pos), shift_neg=tuple(shift_neg), score=score)
        return merge_moment_parts(_collect(self.sdf.mapInArrow(fn, "part binary"),
                                           f"column {self.name!r}"))

    def subsample(self, stride: int) -> SparkColumn:
        """Every ``stride``-th value of each partition, cached on the executors."""
        sub = self.sdf.mapInArrow(partial(_every_part, stride=stride), "v double").cache()
        self.cached.append(sub)
        try:
            sub.count()  # the pass that fills the cache
        except Exception as exc:
            raise BoxCoxError(f"Spark failed while reading column {self.name!r}: "
                              f"{type(exc).__name__}") from None
        return SparkColumn(sub, self.name, self.cached)


class SparkRunner:
    """One pass of a weighted column (values and weights side by side): a ``mapInArrow``
    job whose partitions return one summary row each, merged on the driver
    (:class:`~boxcoxstat.federated.daskweights.WeightedColumn`'s ``run``)."""

    def __init__(self, sdf: Any, name: str) -> None:
        self.sdf, self.name = sdf, name

    def __call__(self, func: Any, moments: bool, **kw: Any) -> dict:
        parts = _collect(self.sdf.mapInArrow(partial(_weighted_part, func=func, kw=kw),
                                             "part binary"), f"column {self.name!r}")
        if not parts:
            raise BoxCoxError("the Spark DataFrame has no partitions")
        return merge_moment_parts(parts) if moments else merge_sums(parts)


def _weights_column(df: Any, weights: Any) -> tuple[Any, Any]:
    """The DataFrame without its weights column and that column as a double expression."""
    from pyspark.sql.types import BooleanType, NumericType

    if not isinstance(weights, str):
        raise BoxCoxError("for Spark input, weights= names a column of the DataFrame (a Spark "
                          "DataFrame has no row order to align an array with); add the "
                          "weights as a column")
    if weights not in df.columns:
        raise BoxCoxError(f"weights column {weights!r} is not in the data; its columns are "
                          f"{list(df.columns)}")
    field = df.schema[weights]
    if not isinstance(field.dataType, NumericType) or isinstance(field.dataType, BooleanType):
        raise BoxCoxError(f"weights column {weights!r} is not numeric (Spark type "
                          f"{field.dataType.simpleString()})")
    rest = [c for c in df.columns if c != weights]
    if not rest:
        raise BoxCoxError(f"weights column {weights!r} is the data's only column; nothing is "
                          "left to fit")
    return df.select(*rest), df[weights].cast("double").alias("w")


def _numeric_columns(df: Any) -> tuple[list[str], list[Any]]:
    from pyspark.sql.types import BooleanType, NumericType

    names, exprs = [], []
    for j, field in enumerate(df.schema.fields):
        if not isinstance(field.dataType, NumericType) or isinstance(field.dataType,
                                                                     BooleanType):
            raise BoxCoxError(f"column {field.name!r} is not numeric (Spark type "
                              f"{field.dataType.simpleString()}); select the numeric columns "
                              "to fit")
        names.append(field.name)
        exprs.append(df[field.name].cast("double").alias(f"c{j}"))
    if not names:
        raise BoxCoxError("the Spark DataFrame has no columns")
    if len(set(names)) != len(names):
        raise BoxCoxError("the Spark DataFrame needs distinct column names")
    return names, exprs


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
    """Fit lambda per column of a Spark DataFrame (called by ``boxcoxstat.fit``).

    One Spark job per pass: a set-up pass over all columns (counts, ranges, the gate's
    checks), then per column one pass per evaluation of the profile (and one to cache the
    subsample of a column of more than 100,000 values); only one summary row per partition
    reaches the driver. The result equals the in-memory fit of the same values to about
    1e-12 relative; ``federated["passes"]`` counts every job that reads the data.
    ``bounds=(lo, hi)`` restricts lambda to ``[lo, hi]`` (the bounded maximum and inference
    of ``boxcoxstat.fit(x, bounds=)``: one more evaluation at an active bound).
    ``weights="w"`` names a column of case weights (not fitted): the likelihood of
    ``lm(x ~ 1, weights=w)`` from the partitions' weighted moments, as Dask's
    (:mod:`~boxcoxstat.federated.daskweights`): after the set-up pass, one pass for the
    weights' totals, one for the Jacobian's correction per family and one per evaluation
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
    wexpr, whole = None, df
    if weights is not None:
        df, wexpr = _weights_column(df, weights)
    names, exprs = _numeric_columns(df)
    sel = df.select(*exprs)
    if wexpr is not None:
        return _fit_spark_weighted(whole, names, exprs, wexpr, family=family, missing=missing,
                                   ymax=ymax, optimizer=optimizer, grid=grid, bounds=bounds)
    cached: list[Any] = []
    clients = [0]

    def setup() -> list[tuple[dict, Any]]:
        parts = _collect(sel.mapInArrow(partial(_setup_part, ncols=len(names)),
                                        "part binary"), "the DataFrame")
        if not parts:
            raise BoxCoxError("the Spark DataFrame has no partitions")
        clients[0] = len(parts)
        return [(merge_reports([p[j] for p in parts]),
                 SparkColumn(sel.select(f"c{j}"), name, cached))
                for j, name in enumerate(names)]

    try:
        res = fit_partitioned(setup, names, "frame", 0, family=family, missing=missing,
                              ymax=ymax, optimizer=optimizer, grid=grid, setup_passes=1,
                              bounds=bounds)
    finally:
        for sub in cached:
            sub.unpersist()
    assert res is not None  # nothing is skipped unless asked for
    if res._source.federated is not None:  # the partitions counted by the set-up pass
        res._source.federated["clients"] = clients[0]
    return res


def _fit_spark_weighted(df: Any, names: list[str], exprs: list[Any], wexpr: Any, *,
                        family: str, missing: str, ymax: float | None, optimizer: str,
                        grid: int, bounds: Any) -> PowerTransformResult:
    """The weighted fit of ``df``'s columns ``exprs`` with weights ``wexpr``: the set-up
    pass over the data columns, then
    :func:`~boxcoxstat.federated.daskweights.fit_weighted` with one :class:`SparkRunner`
    per column."""
    from .._validation.columns import check_option, normalize_family
    from ..core.bounds import check_bounds
    from ..core.solve import OPTIMIZERS
    from .model import check_ymax

    fam = normalize_family(family)
    ymax = check_ymax(ymax)
    check_option("missing", missing, ("drop", "raise"))
    check_option("optimizer", optimizer, OPTIMIZERS)
    limits = check_bounds(bounds, len(names))
    sel = df.select(*exprs, wexpr)
    parts = _collect(df.select(*exprs).mapInArrow(partial(_setup_part, ncols=len(names)),
                                                  "part binary"), "the DataFrame")
    if not parts:
        raise BoxCoxError("the Spark DataFrame has no partitions")
    tally = {"passes": 1, "rounds": 0, "evaluations": 0, "fit_rounds": 0,
             "subsample_rounds": 0}
    columns = [(merge_reports([p[j] for p in parts]),
                SparkRunner(sel.select(f"c{j}", "w"), name)) for j, name in enumerate(names)]
    return fit_weighted(columns, names, "frame", len(parts), tally, family=fam,
                        missing=missing, ymax=ymax, optimizer=optimizer, grid=grid,
                        limits=limits)


def fit_request(req: Request) -> PowerTransformResult:
    """The estimator table's rows for Spark input (``boxcoxstat.api.TABLE``): :func:`fit_spark`
    (with ``bounds=`` and a weights column where given)."""
    return fit_spark(req.data, family=req.family, missing=req.missing, ymax=req.ymax,
                     bounds=req.bounds, weights=req.weights)
