"""``boxcoxstat.fit`` on Dask arrays and DataFrames: partitions are the clients.

The data are never gathered: a first graph reduces every partition
to its counts and per-side min/max (the protocol's set-up report); the frame chosen from them
travels inside the next graphs; each optimiser step is one graph in which every partition
computes its side moments at the requested lambda(s) and Dask's tree reduction
(``dask.array.reduction`` with ``split_every``) merges them pairwise -- Xu & Cormode's (2025)
Algorithm 1 with Dask's scheduler as the server. Works with the threaded scheduler and with
``dask.distributed`` (every function sent to the workers is a picklable module-level
function with plain-data arguments).

Partitions are checked in the passes that read them (no extra pass): the set-up pass counts
the rows each partition delivers against what its chunk declares (a Dask array's chunk
sizes; a DataFrame declares none, so there a partition must be a Series, not ``None``), and
every later pass compares each partition with the count of the set-up pass. A partition that
raises becomes :class:`~boxcoxstat.BoxCoxError` naming the partition and the original
exception (found, on that error path only, by computing the partitions one at a time).

What a partition computes and how results merge are the shared engine's
(:mod:`boxcoxstat.federated.partitioned`, also behind Spark input); this module only maps
them onto Dask graphs.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._validation.columns import BoxCoxError
from .._validation.routes import Request
from ..univariate.results import PowerTransformResult
from .partitioned import (
    every,
    fit_partitioned,
    merge_moment_parts,
    merge_reports,
    partition_moments,
    partition_report,
)
from .protocol import GlobalFrame

__all__ = ["fit_dask", "dask_plan", "fit_request"]


def _box(obj: Any) -> NDArray[np.object_]:
    out = np.empty((1,), dtype=object)
    out[0] = obj
    return out


def _flat(parts: Any) -> list[Any]:
    if isinstance(parts, list):
        return [q for p in parts for q in _flat(p)]
    return list(np.asarray(parts, dtype=object).ravel())


# ----------------------------------------------------------------------- set-up reduction
def _where(name: str, index: int, count: int) -> str:
    return f"partition {index} (of {count}) of column {name!r}"


def _as_rows(block: Any, name: str, index: int, count: int) -> NDArray[np.float64]:
    """A partition's values as a 1-D float array, or the package's error naming it."""
    if block is None:
        raise BoxCoxError(f"{_where(name, index, count)} returned None instead of its rows; "
                          "fix the function that builds that partition")
    try:
        x = np.asarray(block, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise BoxCoxError(f"{_where(name, index, count)} returned {type(block).__name__} "
                          f"that is not numbers ({type(err).__name__}: {err})") from None
    if x.ndim != 1:
        raise BoxCoxError(f"{_where(name, index, count)} returned an array of shape "
                          f"{x.shape} where one column of rows was expected")
    return x


def _declared(info: dict) -> int | None:
    """The number of rows block_info says the input chunk holds (None when unknown)."""
    start, stop = info["array-location"][0]
    size = stop - start
    return None if size != size else int(size)  # NaN: a chunk of unknown size


def _short_or_long(name: str, index: int, count: int, got: int, want: int, why: str) -> str:
    return (f"{_where(name, index, count)} delivered {got} rows but {why} {want}; its rows "
            "would be lost or counted twice, so the fit stops: rebuild the collection so each "
            "partition returns what it declares")


def _setup_chunk(block: NDArray, block_info: dict | None = None, *, column: str = "x",
                 ) -> NDArray:
    """A partition's :func:`~boxcoxstat.federated.partitioned.partition_report` and its row
    count by partition (checked against its chunk's declared size when that is known)."""
    info = block_info[0] if block_info else None
    index, count = (info["chunk-location"][0], info["num-chunks"][0]) if info else (0, 1)
    x = _as_rows(block, column, index, count)
    want = _declared(info) if info else None
    if want is not None and x.size != want:
        raise BoxCoxError(_short_or_long(column, index, count, x.size, want,
                                         "its chunk declares"))
    rep = partition_report(x)
    rep["by_partition"] = {index: rep["rows"]}
    return _box(rep)


def _setup_combine(parts: Any, axis: Any = None, keepdims: bool = False) -> NDArray:
    return _box(merge_reports(_flat(parts)))


def _setup_aggregate(parts: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return _setup_combine(parts)[0]


def _keep(block: NDArray, axis: Any = None, keepdims: bool = False) -> NDArray:
    return block


def _checked(block: NDArray, block_info: dict | None = None, *, column: str = "x") -> NDArray:
    """A partition's rows in a later pass, checked against the count of the set-up pass (the
    chunk size of the checked column): a partition that changes between passes is named."""
    info = block_info[None] if block_info else None
    if info is None:
        return _as_rows(block, column, 0, 1)
    index, count = info["chunk-location"][0], info["num-chunks"][0]
    x = _as_rows(block, column, index, count)
    want = int(info["chunk-shape"][0])
    if x.size != want:
        raise BoxCoxError(_short_or_long(column, index, count, x.size, want,
                                         "it delivered in the first pass"))
    return x


# ----------------------------------------------------------------------- moment reduction
def _moments_chunk(block: NDArray, axis: Any = None, keepdims: bool = False, *,
                   frame: GlobalFrame, lmbda: tuple[float, ...], shift_pos: tuple[float, ...],
                   shift_neg: tuple[float, ...], score: bool) -> NDArray:
    return _box(partition_moments(block, frame, lmbda, shift_pos, shift_neg, score))


def _moments_combine(parts: Any, axis: Any = None, keepdims: bool = False) -> NDArray:
    return _box(merge_moment_parts(_flat(parts)))


def _moments_aggregate(parts: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return _moments_combine(parts)[0]


# ----------------------------------------------------------------------- columns
def _columns(data: Any) -> tuple[list[Any], list[str], str]:
    """1-D Dask arrays (one per column), their names and the input kind."""
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
        return [_series_rows(data[c], n) for c, n in zip(data.columns, names, strict=True)
                ], names, "frame"
    if isinstance(data, dd.Series):
        name = "x" if data.name is None else str(data.name)
        return [_series_rows(data, name)], [name], "series"
    raise BoxCoxError(f"unsupported Dask collection {type(data).__name__}")


def _series_partition(part: Any, partition_info: dict | None = None, *, column: str = "x",
                      count: int = 1) -> Any:
    """A Dask DataFrame partition as it is, or the package's error when it is not a Series
    (a DataFrame declares no row counts; ``None`` would otherwise become zero rows)."""
    import pandas as pd

    if not isinstance(part, pd.Series):
        index = partition_info["number"] if partition_info else 0
        what = "None" if part is None else type(part).__name__
        raise BoxCoxError(f"{_where(column, index, count)} returned {what} instead of its "
                          "rows; fix the function that builds that partition")
    return part


def _series_rows(s: Any, name: str) -> Any:
    """A Dask Series' values as a 1-D Dask array, each partition checked to be a Series."""
    checked = s.map_partitions(_series_partition, column=name, count=s.npartitions,
                               meta=s._meta)
    return checked.to_dask_array()


def _compute(graph: Any, col: Any, name: str, persist: bool = False) -> Any:
    """``graph.compute()`` (or ``persist()``), with an exception a partition raised turned
    into the package's error naming that partition (:func:`_partition_error`)."""
    try:
        return graph.persist() if persist else graph.compute()
    except BoxCoxError:
        raise
    except Exception as exc:
        raise _partition_error(col, name, exc) from exc


def _partition_error(col: Any, name: str, exc: Exception) -> BoxCoxError:
    """The error for ``exc``, raised while computing ``col``: the partitions are computed one
    at a time (only on this error path) to name the first that raises."""
    count = col.numblocks[0]
    for i in range(count):
        try:
            col.blocks[i].compute()
        except BoxCoxError as err:
            return err
        except Exception as err:
            return BoxCoxError(f"{_where(name, i, count)} raised {type(err).__name__}: "
                               f"{err}; fix that partition's source or leave it out")
    return BoxCoxError(f"computing column {name!r} raised {type(exc).__name__}: {exc}; every "
                       f"one of its {count} partitions then computed alone without error, so "
                       "the failure is intermittent or in the scheduler")


class DaskColumn:
    """A column as the engine sees it (:class:`~boxcoxstat.federated.partitioned.Column`):
    each pass is one ``dask.array.reduction`` merged in Dask's tree."""

    def __init__(self, col: Any, raw: Any, name: str, split_every: Any) -> None:
        self.col, self.raw, self.name, self.split_every = col, raw, name, split_every

    def moments(self, frame: GlobalFrame, lmbda: tuple[float, ...],
                shift_pos: tuple[float, ...], shift_neg: tuple[float, ...],
                score: bool) -> dict:
        import dask.array as da

        chunk = partial(_moments_chunk, frame=frame, lmbda=lmbda, shift_pos=shift_pos,
                        shift_neg=shift_neg, score=score)
        return _compute(da.reduction(self.col, chunk, _moments_aggregate,
                                     combine=_moments_combine, concatenate=False,
                                     dtype=object, split_every=self.split_every,
                                     meta=np.empty((0,), dtype=object)), self.raw, self.name)

    def subsample(self, stride: int) -> DaskColumn:
        """Every ``stride``-th value of each partition, persisted on the workers."""
        sub = _compute(self.col.map_blocks(every, stride, dtype=np.float64,
                                           chunks=((np.nan,) * self.col.numblocks[0],)),
                       self.raw, self.name, persist=True)
        return DaskColumn(sub, self.raw, self.name, self.split_every)


def _setup(col: Any, name: str, split_every: Any) -> tuple[dict, DaskColumn]:
    """The column's set-up report and the column checked against its partitions' counts."""
    import dask.array as da

    if col.dtype.kind not in "biuf":
        raise BoxCoxError(f"column {name!r} is not numeric (dtype {col.dtype})")
    count = col.numblocks[0]
    boxed = col.map_blocks(_setup_chunk, column=name, chunks=((1,) * count,), dtype=object,
                           meta=np.empty((0,), dtype=object))
    rep = _compute(da.reduction(boxed, _keep, _setup_aggregate, combine=_setup_combine,
                                concatenate=False, dtype=object, split_every=split_every,
                                meta=np.empty((0,), dtype=object)), col, name)
    rows = tuple(rep["by_partition"][i] for i in range(count))
    checked = col.map_blocks(_checked, column=name, chunks=(rows,), dtype=np.float64,
                             meta=np.empty((0,), dtype=np.float64))
    return rep, DaskColumn(checked, col, name, split_every)


def fit_dask(
    data: Any,
    *,
    family: str = "boxcox",
    missing: str = "drop",
    ymax: float | None = None,
    optimizer: str = "score",
    grid: int = 1000,
    split_every: int | None = None,
    bounds: Any = None,
) -> PowerTransformResult:
    """Fit lambda per column of a Dask array or DataFrame (called by ``boxcoxstat.fit``;
    with case weights it calls :func:`~boxcoxstat.federated.daskweights.fit_dask_weighted`).

    One graph execution per evaluation of the profile (per optimiser step, per batch of
    lambdas in grid mode and for the interval); the core's solver and inference do the rest,
    so the result equals the in-memory fit to about 1e-12 relative. ``family="auto"`` picks
    the family per column by ``boxcoxstat.fit``'s rule (both families fitted on a positive
    column); ``ymax`` clips lambda to the Lambert W bounds of the column's global range;
    ``bounds=(lo, hi)`` restricts it to ``[lo, hi]`` (the bounded maximum and inference of
    ``boxcoxstat.fit(x, bounds=)``: one more evaluation at an active bound, no other pass).
    ``federated["passes"]`` counts every graph that reads the full data: one set-up per
    column, the subsample's extraction (columns of more than 100,000 values) and ``rounds``.

    Examples
    --------
    >>> import numpy as np, dask.array as da, boxcoxstat as bcs
    >>> x = np.random.default_rng(0).lognormal(size=4000)
    >>> r = bcs.fit(da.from_array(x, chunks=500))
    >>> bool(abs(r.lmbda - bcs.fit(x).lmbda) < 1e-12), r.federated["clients"]
    (True, 8)
    """
    setup, names, kind, clients, passes = dask_plan(data, split_every)
    res = fit_partitioned(setup, names, kind, clients, family=family, missing=missing,
                          ymax=ymax, optimizer=optimizer, grid=grid, setup_passes=passes,
                          bounds=bounds)
    assert res is not None  # nothing is skipped unless asked for
    return res


def dask_plan(data: Any, split_every: int | None = None) -> tuple[Any, list[str], str, int, int]:
    """What :func:`~boxcoxstat.federated.partitioned.fit_partitioned` needs for Dask input:
    the set-up function, the column names, the input kind, the partition count and the
    set-up's passes (one per column)."""
    cols, names, kind = _columns(data)

    def setup() -> list[tuple[dict, Any]]:
        return [_setup(col, name, split_every) for col, name in zip(cols, names, strict=True)]

    return setup, names, kind, int(cols[0].npartitions), len(cols)


def fit_request(req: Request) -> PowerTransformResult | None:
    """The estimator table's rows for Dask input (``boxcoxstat.api.TABLE``): :func:`fit_dask`
    (with ``bounds=`` where given); under scikit-learn's rule (``req.constant == "keep"``,
    ``PowerTransformer``) constant Yeo-Johnson columns are left out (``None`` when none is
    left)."""
    if req.constant != "keep":
        return fit_dask(req.data, family=req.family, missing=req.missing, ymax=req.ymax,
                        bounds=req.bounds)
    setup, names, kind, clients, passes = dask_plan(req.data)
    return fit_partitioned(setup, names, kind, clients, family=req.family, ymax=req.ymax,
                           setup_passes=passes, skipped=[])
