"""The gate's reading of a partitioned collection (Dask): its set-up pass.

Reading a Dask array or DataFrame *is* its set-up pass: one pass per column in which every
partition delivers its :func:`partition_report` (the gate's
:class:`~boxcoxstat._validation.columns.ColumnReport`, the count and range of its values
>= 0 and < 0, its row count), checked against what its chunk declares (a Dask array's chunk
sizes; a DataFrame declares none, so there a partition must be a Series, not ``None``).
The reports merge in partition order and the merged report is checked by the gate's column
rules (:func:`~boxcoxstat._validation.columns.check_column`), naming the column, and the
partition where one misbehaves. What the gate hands on (:class:`Partitioned`) is validated:
per column the merged report, the partitions' handles and the rows each delivered, which
every later pass compares with (:func:`boxcoxstat.core.partitioned.partition_values`).
Nothing below the gate reads the collection's reports again.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._arrays import arrow_row, arrow_values
from .columns import BoxCoxError, ColumnReport, check_column, check_weights_column

__all__ = ["partition_report", "merge_reports", "first_failure", "PartitionedColumn",
           "Partitioned", "as_rows", "setup_part", "dask_columns", "dask_weights",
           "read_dask", "read_spark", "spark_failure"]


# ----------------------------------------------------------------------- one partition
def _range(a: NDArray) -> tuple[float, float] | None:
    return (float(a.min()), float(a.max())) if a.size else None


def _join(a: tuple[float, float] | None, b: tuple[float, float] | None
          ) -> tuple[float, float] | None:
    if a is None or b is None:
        return a if b is None else b
    return (min(a[0], b[0]), max(a[1], b[1]))


def partition_report(x: NDArray[np.float64]) -> dict[str, Any]:
    """A partition's set-up summary: the gate's column report, the count and (min, max) of
    its values >= 0 and < 0 (missing values dropped) and its row count.

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat._validation.partitions import partition_report
    >>> r = partition_report(np.array([2.0, -1.0, np.nan, 5.0]))
    >>> r["n_pos"], r["pos"], r["neg"], r["rows"]
    (2, (2.0, 5.0), (-1.0, -1.0), 4)
    """
    report, rows = ColumnReport.of(x), int(x.size)
    x = x[np.isfinite(x)]
    nonneg, neg = x[x >= 0], x[x < 0]
    return {"report": report, "n_pos": int(nonneg.size), "n_neg": int(neg.size),
            "pos": _range(nonneg), "neg": _range(neg), "rows": rows}


def merge_reports(parts: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Merge set-up summaries (in partition order, so the report's first bad row is the
    first partition's)."""
    out = dict(parts[0])
    for p in parts[1:]:
        out["report"] = ColumnReport.merge(out["report"], p["report"])
        for k in ("n_pos", "n_neg", "rows", "n_w", "w_total", "w_log"):
            if k in p:
                out[k] += p[k]
        out["pos"] = _join(out["pos"], p["pos"])
        out["neg"] = _join(out["neg"], p["neg"])
    return out


def as_rows(block: Any, label: str) -> NDArray[np.float64]:
    """A partition's values as a 1-D float array, or the package's error naming it."""
    if block is None:
        raise BoxCoxError(f"{label} returned None instead of its rows; fix the function that "
                          "builds that partition")
    try:
        x = np.asarray(block, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise BoxCoxError(f"{label} returned {type(block).__name__} that is not numbers "
                          f"({type(err).__name__}: {err})") from None
    if x.ndim != 1:
        raise BoxCoxError(f"{label} returned an array of shape {x.shape} where one column of "
                          "rows was expected")
    return x


def _weight_totals(x: NDArray[np.float64], w: NDArray[np.float64], label: str
                   ) -> dict[str, Any]:
    """A partition's case weights checked (one per row; finite and >= 0 where the row has a
    value) and their totals over the rows of a value and a positive weight: the count
    ``n_w``, ``w_total = sum w`` and ``w_log = sum log w``."""
    if w.size != x.size:
        raise BoxCoxError(f"{label} holds {x.size} values and {w.size} weights; give the "
                          "weights the data's partitions (one weight per row)")
    present = np.isfinite(x)
    bad = present & ~np.isfinite(w)
    if bad.any():
        raise BoxCoxError(f"{label}: weights must be finite: row {int(np.flatnonzero(bad)[0])} "
                          f"of the partition has a value and weight {float(w[bad][0])}")
    negative = present & (w < 0)
    if negative.any():
        raise BoxCoxError(f"{label}: weights must be >= 0: row "
                          f"{int(np.flatnonzero(negative)[0])} of the partition has weight "
                          f"{float(w[negative][0]):g}")
    kept = w[present & (w > 0)]
    return {"n_w": int(kept.size), "w_total": float(kept.sum()),
            "w_log": float(np.log(kept).sum())}


def setup_part(block: Any, weights: Any = None, *, label: str, declared: int | None,
               series: bool) -> dict[str, Any]:
    """A partition's :func:`partition_report`, its rows checked against its chunk's declared
    size (when known); a DataFrame's partition must be a Series. With the partition's case
    ``weights``: they are checked and their totals added (``n_w``, ``w_total``,
    ``w_log``)."""
    if series:
        import pandas as pd

        if not isinstance(block, pd.Series):
            what = "None" if block is None else type(block).__name__
            raise BoxCoxError(f"{label} returned {what} instead of its rows; fix the function "
                              "that builds that partition")
    x = as_rows(block, label)
    if declared is not None and x.size != declared:
        raise BoxCoxError(f"{label} delivered {x.size} rows but its chunk declares {declared}; "
                          "its rows would be lost or counted twice, so the fit stops: rebuild "
                          "the collection so each partition returns what it declares")
    if weights is None:
        return partition_report(x)
    w = as_rows(weights, f"{label}'s weights")
    return {**partition_report(x), **_weight_totals(x, w, label)}


def first_failure(compute: Callable[..., Any], parts: Sequence[Any], labels: Sequence[str],
                  exc: BaseException, name: str) -> BoxCoxError:
    """The error for ``exc``, raised while a pass over the column ``name`` ran: the
    partitions are computed one at a time (only on this error path) to name the first that
    raises."""
    for part, label in zip(parts, labels, strict=True):
        try:
            compute(part)
        except BoxCoxError as err:
            return err
        except Exception as err:
            return BoxCoxError(f"{label} raised {type(err).__name__}: {err}; fix that "
                               "partition's source or leave it out")
    return BoxCoxError(f"computing column {name!r} raised {type(exc).__name__}: {exc}; every "
                       f"one of its {len(parts)} partitions then computed alone without "
                       "error, so the failure is intermittent or in the scheduler")


# ----------------------------------------------------------------------- a collection
@dataclass(frozen=True)
class PartitionedColumn:
    """A column read by the gate: its merged set-up ``report``; the count and range of its
    values >= 0 (``n_pos``, ``pos``) and < 0; ``n`` finite values from ``lo`` to ``hi``;
    the partitions' handles (``parts``, Dask's delayed objects), the ``rows`` each
    delivered and the ``labels`` errors name them by. With case weights: the weights'
    partitions (``weights``, one per data partition, checked in the set-up pass) and their
    totals over the rows of a value and a positive weight (``n_w`` rows, ``w_total``,
    ``w_log = sum log w``; ``weighted``). Spark: ``frame``, the column's DataFrame (its
    values as ``double``, then its weights), each pass one ``mapInArrow`` job over it
    (``parts``, ``rows`` and ``labels`` empty). Plain fields only: the core reads them
    without calling back into the gate."""

    name: str
    report: ColumnReport
    n: int
    n_pos: int
    n_neg: int
    pos: tuple[float, float] | None
    neg: tuple[float, float] | None
    lo: float
    hi: float
    n_missing: int
    parts: tuple[Any, ...]
    rows: tuple[int, ...]
    labels: tuple[str, ...]
    weights: tuple[Any, ...] | None = None
    n_w: int = 0
    w_total: float = 0.0
    w_log: float = 0.0
    weighted: bool = False
    frame: Any = None


@dataclass(frozen=True)
class Partitioned:
    """A partitioned collection as the gate hands it on: its validated ``columns`` (those
    to fit; ``kept`` their positions among ``names`` when constant columns are left out),
    the input ``kind`` (``"array1d"``, ``"array2d"``, ``"series"``, ``"frame"``), its
    partition count (``clients``) and the set-up ``passes`` spent reading it."""

    names: list[str]
    kind: str
    clients: int
    passes: int
    columns: tuple[PartitionedColumn, ...]
    kept: NDArray[np.intp]

    @property
    def kept_names(self) -> list[str]:
        return [c.name for c in self.columns]


def dask_columns(data: Any) -> tuple[list[Any], list[str], str]:
    """The 1-D Dask arrays or Series of a collection (one per column), their names and the
    input kind."""
    import dask.array as da

    if isinstance(data, da.Array):
        if data.ndim == 1:
            return [data], ["x"], "array1d"
        if data.ndim == 2:
            return [data[:, j] for j in range(data.shape[1])], [
                f"x{j}" for j in range(data.shape[1])], "array2d"
        raise BoxCoxError(f"expected 1-D or 2-D data, got a Dask array with {data.ndim} "
                          "dimensions")
    try:
        import dask.dataframe as dd
    except ImportError:  # dask installed without its dataframe extra
        raise BoxCoxError(f"unsupported Dask collection {type(data).__name__}") from None
    if isinstance(data, dd.DataFrame):
        names = [str(c) for c in data.columns]
        if len(set(names)) != len(names) or not names:
            raise BoxCoxError("the Dask DataFrame needs distinct column names")
        return [data[c] for c in data.columns], names, "frame"
    if isinstance(data, dd.Series):
        return [data], ["x" if data.name is None else str(data.name)], "series"
    raise BoxCoxError(f"unsupported Dask collection {type(data).__name__}")


def dask_weights(data: Any, weights: Any) -> tuple[Any, Any]:
    """``bcs.fit(dask_data, weights=)``: the data without the weights' column (``weights``
    naming a column of a Dask DataFrame) and the weights: a 1-D Dask array or Series, or
    a 1-D NumPy array."""
    import dask.array as da

    if isinstance(weights, str):
        check_weights_column(data, weights)
        return data.drop(columns=[weights]), data[weights]
    if isinstance(weights, da.Array) or hasattr(weights, "to_delayed"):
        if getattr(weights, "ndim", 1) != 1:
            raise BoxCoxError("weights must be one number per row (1-D), got "
                              f"{weights.ndim} dimensions")
        return data, weights
    try:
        w = np.asarray(weights, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise BoxCoxError(f"weights must be numbers, one per row ({err})") from None
    if w.ndim != 1:
        raise BoxCoxError(f"weights must be one number per row (1-D), got {w.ndim} dimensions")
    return data, w


def _known(chunks: tuple[float, ...]) -> bool:
    return not any(c != c for c in chunks)


def _weight_parts(weights: Any, col: Any, name: str, count: int) -> tuple[Any, ...]:
    """The weights' partitions beside the column's ``count`` partitions: NumPy weights (or a
    Dask array of known chunks) cut at the column's chunks where those are known, else the
    weights' own partitions, which must be as many as the data's."""
    import dask.array as da

    chunks = getattr(col, "chunks", None)
    if chunks is not None and _known(chunks[0]):
        if isinstance(weights, np.ndarray) or (isinstance(weights, da.Array)
                                               and _known(weights.chunks[0])):
            rows = int(sum(chunks[0]))
            if weights.shape[0] != rows:
                raise BoxCoxError(f"weights has length {weights.shape[0]}, but column "
                                  f"{name!r} has {rows} rows; give one weight per row")
            w = (da.from_array(weights, chunks=chunks) if isinstance(weights, np.ndarray)
                 else weights.rechunk(chunks))
            return tuple(w.to_delayed().ravel())
    if isinstance(weights, np.ndarray):
        raise BoxCoxError(f"column {name!r} has partitions of unknown length, so NumPy weights "
                          "cannot be cut into them; give the weights as a column of the Dask "
                          "DataFrame (weights='w') or as a Dask collection with the data's "
                          "partitions")
    parts = tuple(weights.to_delayed().ravel() if isinstance(weights, da.Array)
                  else weights.to_delayed())
    if len(parts) != count:
        raise BoxCoxError(f"the weights have {len(parts)} partitions and column {name!r} "
                          f"{count}; give them the same partitions")
    return parts


def _read_column(col: Any, name: str, weights: Any = None
                 ) -> tuple[dict[str, Any], tuple[Any, ...], tuple[int, ...], tuple[str, ...],
                            tuple[Any, ...] | None]:
    """One column's set-up pass: the merged report, the partitions, their rows and labels
    (and, with case weights, the weights' partitions, read and checked in the same pass)."""
    import dask

    kind = getattr(col.dtype, "kind", "O")
    if kind not in "biuf":
        raise BoxCoxError(f"column {name!r} is not numeric (dtype {col.dtype})")
    series = not hasattr(col, "chunks")
    parts = tuple(col.to_delayed().ravel() if not series else col.to_delayed())
    count = len(parts)
    labels = tuple(f"partition {i} (of {count}) of column {name!r}" for i in range(count))
    declared: list[int | None] = [None] * count
    if not series:
        declared = [None if size != size else int(size) for size in col.chunks[0]]
    wparts = None if weights is None else _weight_parts(weights, col, name, count)
    tasks = [dask.delayed(partial(setup_part, label=lab, declared=d, series=series))(
                 p, *(() if wparts is None else (wparts[i],)))
             for i, (p, lab, d) in enumerate(zip(parts, labels, declared, strict=True))]
    try:
        reports = dask.compute(*tasks)
    except BoxCoxError:
        raise
    except Exception as exc:
        raise first_failure(dask.compute, parts, labels, exc, name) from exc
    rows = tuple(r["rows"] for r in reports)
    return merge_reports(reports), parts, rows, labels, wparts


def _check_weighted(rep: dict[str, Any], name: str) -> None:
    """A weighted column needs three values of positive weight."""
    if rep["n_w"] == 0:
        raise BoxCoxError(f"column {name!r}: all weights are zero (or every weighted row is "
                          "missing); give some rows a positive weight")
    if rep["n_w"] < 3:
        raise BoxCoxError(f"column {name!r}: only {rep['n_w']} value(s) have a positive "
                          "weight; a power needs at least 3")


def read_dask(data: Any, *, family: str, missing: str = "drop", constant: str = "raise",
              weights: Any = None) -> Partitioned:
    """Read a Dask array or DataFrame: every column's set-up pass, the merged reports checked
    by the gate's column rules (``family`` normalised, ``missing`` checked by the caller).
    ``constant="keep"`` (scikit-learn's rule, ``PowerTransformer``): a constant column of a
    Yeo-Johnson or ``"auto"`` fit is left out of ``columns`` (``kept`` lists the others).
    ``weights`` (case weights: the name of a column of a Dask DataFrame, a Dask array or
    Series, or a NumPy array) are read beside the values in the same pass: each partition's
    weights checked (one per row; finite and >= 0 where the row has a value, naming the
    partition) and totalled (:func:`dask_weights`).

    Examples
    --------
    >>> import numpy as np, dask.array as da
    >>> from boxcoxstat._validation.partitions import read_dask
    >>> x = np.random.default_rng(0).lognormal(size=(400, 2))
    >>> read = read_dask(da.from_array(x, chunks=(100, 2)), family="boxcox")
    >>> read.names, read.clients, read.passes, read.columns[0].rows
    (['x0', 'x1'], 4, 2, (100, 100, 100, 100))
    """
    if weights is not None:
        data, weights = dask_weights(data, weights)
    cols, names, kind = dask_columns(data)
    read, kept = [], []
    for j, (col, name) in enumerate(zip(cols, names, strict=True)):
        rep, parts, rows, labels, wparts = _read_column(col, name, weights)
        r = rep["report"]
        if (constant == "keep" and family != "boxcox" and r.n_finite and not r.n_inf
                and r.lo == r.hi and (missing == "drop" or not r.n_missing)):
            continue  # scikit-learn leaves a constant feature unchanged
        check_column(r, name, family=family, missing=missing,
                     tiny_scale=True)  # the frame's unit lets lambda reach the inverse range
        if wparts is not None:
            _check_weighted(rep, name)
        read.append(PartitionedColumn(
            name, r, rep["n_pos"] + rep["n_neg"], rep["n_pos"], rep["n_neg"], rep["pos"],
            rep["neg"], float(r.lo), float(r.hi), int(r.n_missing), parts, rows, labels,
            wparts, int(rep.get("n_w", 0)), float(rep.get("w_total", 0.0)),
            float(rep.get("w_log", 0.0)), wparts is not None))
        kept.append(j)
    return Partitioned(names, kind, len(parts), len(cols), tuple(read),
                       np.array(kept, dtype=np.intp))


# ----------------------------------------------------------------------- Spark
SPARK_EXTRA = 'pip install "boxcoxstat[spark]" (pyspark; Spark also needs a Java runtime)'


def spark_failure(exc: BaseException, what: str) -> BoxCoxError:
    """The package's error for a Spark job that failed while reading ``what``: the message of
    a :class:`BoxCoxError` an executor raised (a bad weight), else Spark's first line."""
    text = str(exc)
    ours = text.rfind("BoxCoxError: ")
    if ours >= 0:
        msg = text[ours + len("BoxCoxError: "):].strip().splitlines()[0]
        return BoxCoxError(f"{what}: {msg:.500}")
    first = text.strip().splitlines()[0] if text.strip() else ""
    return BoxCoxError(f"Spark failed while reading {what}: {type(exc).__name__}: "
                       f"{first:.500}; check the DataFrame's source (it must be readable "
                       "more than once with the same rows)")


def _spark_setup(batches: Any, *, names: tuple[str, ...], weighted: bool) -> Any:
    """On an executor: one row per partition, every column's :func:`partition_report` (and,
    with the weights as the last column, their checks and totals)."""
    blist = list(batches)
    w = arrow_values(blist, len(names)) if weighted else None
    reports = []
    for j, name in enumerate(names):
        x = arrow_values(blist, j)
        rep = partition_report(x)
        if w is not None:
            rep.update(_weight_totals(x, w, f"a partition of column {name!r}"))
        reports.append(rep)
    yield arrow_row(reports)


def _spark_numeric(df: Any, name: str, what: str) -> Any:
    from pyspark.sql.types import BooleanType, NumericType

    kind = df.schema[name].dataType
    if not isinstance(kind, NumericType) or isinstance(kind, BooleanType):
        raise BoxCoxError(f"{what} {name!r} is not numeric (Spark type {kind.simpleString()})"
                          + ("; select the numeric columns to fit" if what == "column"
                             else ""))
    return df[name].cast("double")


def read_spark(df: Any, *, family: str, missing: str = "drop", weights: Any = None
               ) -> Partitioned:
    """Read a Spark DataFrame: one set-up job over all its columns (and the case weights'
    column ``weights``, read beside them, checked and totalled), the merged reports
    checked by the gate's column rules; only one summary row per partition reaches the
    driver."""
    try:
        import pyspark.sql  # noqa: F401
    except ImportError:
        raise BoxCoxError(f"a Spark DataFrame needs pyspark: {SPARK_EXTRA}") from None
    names = [str(c) for c in df.columns]
    wexpr = None
    if weights is not None:
        if not isinstance(weights, str):
            raise BoxCoxError("for Spark input, weights= names a column of the DataFrame (a "
                              "Spark DataFrame has no row order to align an array with); add "
                              "the weights as a column")
        if weights not in names:
            raise BoxCoxError(f"weights column {weights!r} is not in the data; its columns "
                              f"are {names}")
        names = [n for n in names if n != weights]
        if not names:
            raise BoxCoxError(f"weights column {weights!r} is the data's only column; "
                              "nothing is left to fit")
        wexpr = _spark_numeric(df, weights, "weights column").alias("w")
    if not names:
        raise BoxCoxError("the Spark DataFrame has no columns")
    if len(set(names)) != len(names):
        raise BoxCoxError("the Spark DataFrame needs distinct column names")
    exprs = [_spark_numeric(df, n, "column").alias(f"c{j}") for j, n in enumerate(names)]
    sel = df.select(*exprs, *([] if wexpr is None else [wexpr]))
    job = sel.mapInArrow(partial(_spark_setup, names=tuple(names),
                                 weighted=wexpr is not None), "part binary")
    try:
        rows = job.collect()
    except BoxCoxError:
        raise
    except Exception as exc:  # Py4JJavaError, PythonException, ...
        raise spark_failure(exc, "the DataFrame") from None
    parts = [pickle.loads(bytes(r[0])) for r in rows]
    if not parts:
        raise BoxCoxError("the Spark DataFrame has no partitions")
    read = []
    for j, name in enumerate(names):
        rep = merge_reports([p[j] for p in parts])
        r = rep["report"]
        check_column(r, name, family=family, missing=missing, tiny_scale=True)
        if wexpr is not None:
            _check_weighted(rep, name)
        frame = sel.select(f"c{j}", *([] if wexpr is None else ["w"]))
        read.append(PartitionedColumn(
            name, r, rep["n_pos"] + rep["n_neg"], rep["n_pos"], rep["n_neg"], rep["pos"],
            rep["neg"], float(r.lo), float(r.hi), int(r.n_missing), (), (), (), None,
            int(rep.get("n_w", 0)), float(rep.get("w_total", 0.0)),
            float(rep.get("w_log", 0.0)), wexpr is not None, frame))
    return Partitioned(names, "frame", len(parts), 1, tuple(read),
                       np.arange(len(names), dtype=np.intp))
