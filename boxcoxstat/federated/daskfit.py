"""``boxcoxstat.fit`` on Dask arrays and DataFrames: partitions are the clients.

The data are never gathered. The gate reads the collection (its set-up pass,
:func:`boxcoxstat._validation.partitions.read_dask`: every partition's report, merged and
checked, naming column and partition); this module then hands the validated columns to the
core with Dask's own ``dask.delayed``, ``dask.compute`` and ``dask.persist`` injected
(:class:`~boxcoxstat.core.partitioned.Tasks`): each optimiser step is one graph in which
every partition computes its side moments at the requested lambda(s) and the results merge
pairwise in a tree (:mod:`boxcoxstat.core.partitioned`; Xu & Cormode's (2025) Algorithm 1
with Dask's scheduler as the server), checked against the rows each partition delivered in
the set-up pass. Works with the threaded scheduler and with ``dask.distributed`` (every
function sent to the workers is a picklable module-level function with plain-data
arguments). During a fit no function of this module runs between the core's first call
and the result: the walk of the data is gate, model, core, result.

The set-up helpers below the fit (``_columns``, ``_setup``, ``_compute``) are the weighted
fit's (:mod:`~boxcoxstat.federated.daskweights`), which still reads its collection itself.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from .._validation.columns import BoxCoxError, check_option, normalize_family
from .._validation.partitions import (
    Partitioned,
    as_rows,
    dask_columns,
    first_failure,
    merge_reports,
    read_dask,
    setup_part,
)
from .._validation.routes import Request
from ..core.bounds import check_bounds
from ..core.partitioned import (
    Tasks,
    fit_held,
    fit_table,
    merge_moment_parts,
    new_tally,
    partition_values,
)
from ..core.solve import OPTIMIZERS
from ..exceptions import user_stacklevel
from ..univariate.model import auto_family
from ..univariate.results import PowerTransformResult
from .model import check_ymax

__all__ = ["fit_dask", "fit_request"]


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


def _declared(info: dict) -> int | None:
    """The number of rows block_info says the input chunk holds (None when unknown)."""
    start, stop = info["array-location"][0]
    size = stop - start
    return None if size != size else int(size)  # NaN: a chunk of unknown size


def _setup_chunk(block: NDArray, block_info: dict | None = None, *, column: str = "x",
                 ) -> NDArray:
    """A partition's report (the gate's :func:`~boxcoxstat._validation.partitions.
    setup_part`) and its row count by partition."""
    info = block_info[0] if block_info else None
    index, count = (info["chunk-location"][0], info["num-chunks"][0]) if info else (0, 1)
    rep = setup_part(block, label=_where(column, index, count),
                     declared=_declared(info) if info else None, series=False)
    rep["by_partition"] = {index: rep["rows"]}
    return _box(rep)


def _setup_combine(parts: Any, axis: Any = None, keepdims: bool = False) -> NDArray:
    parts = _flat(parts)
    out = merge_reports(parts)
    out["by_partition"] = {i: r for p in parts for i, r in p["by_partition"].items()}
    return _box(out)


def _setup_aggregate(parts: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return _setup_combine(parts)[0]


def _keep(block: NDArray, axis: Any = None, keepdims: bool = False) -> NDArray:
    return block


def _checked(block: NDArray, block_info: dict | None = None, *, column: str = "x") -> NDArray:
    """A partition's rows in a later pass, checked against the count of the set-up pass (the
    chunk size of the checked column): a partition that changes between passes is named."""
    info = block_info[None] if block_info else None
    if info is None:
        return as_rows(block, _where(column, 0, 1))
    return partition_values(block, _where(column, info["chunk-location"][0],
                                          info["num-chunks"][0]), int(info["chunk-shape"][0]))


# ----------------------------------------------------------------------- moment reduction
def _moments_combine(parts: Any, axis: Any = None, keepdims: bool = False) -> NDArray:
    return _box(merge_moment_parts(_flat(parts)))


def _moments_aggregate(parts: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return _moments_combine(parts)[0]


# ----------------------------------------------------------------------- columns
def _columns(data: Any) -> tuple[list[Any], list[str], str]:
    """1-D Dask arrays (one per column; a Series' partitions each checked to be a Series),
    their names and the input kind (the gate's :func:`~boxcoxstat._validation.partitions.
    dask_columns`)."""
    cols, names, kind = dask_columns(data)
    return [c if hasattr(c, "chunks") else _series_rows(c, n)
            for c, n in zip(cols, names, strict=True)], names, kind


def _series_partition(part: Any, partition_info: dict | None = None, *, column: str = "x",
                      count: int = 1) -> Any:
    """A Dask DataFrame partition as it is, or the package's error when it is not a Series
    (a DataFrame declares no row counts; ``None`` would otherwise become zero rows)."""
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
    """The error for ``exc``, raised while computing ``col``: the gate's
    :func:`~boxcoxstat._validation.partitions.first_failure` over its blocks."""
    import dask

    count = col.numblocks[0]
    return first_failure(dask.compute, [col.blocks[i] for i in range(count)],
                         [_where(name, i, count) for i in range(count)], exc, name)


def _setup(col: Any, name: str, split_every: Any) -> tuple[dict, Any]:
    """The column's set-up report and the column checked against its partitions' counts
    (the weighted fit's set-up pass)."""
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
    return rep, checked


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
    weights: Any = None,
) -> PowerTransformResult:
    """Fit lambda per column of a Dask array or DataFrame (``boxcoxstat.fit`` on Dask input
    goes through the gate to :func:`fit_request`; this entry checks its options and reads
    the collection through the same gate functions, and takes ``optimizer``, ``grid`` and
    ``split_every`` too).

    One graph execution per evaluation of the profile (per optimiser step, per batch of
    lambdas in grid mode and for the interval); the core's solver and inference do the rest,
    so the result equals the in-memory fit to about 1e-12 relative. ``family="auto"`` picks
    the family per column by ``boxcoxstat.fit``'s rule (both families fitted on a positive
    column); ``ymax`` clips lambda to the Lambert W bounds of the column's global range;
    ``bounds=(lo, hi)`` restricts it to ``[lo, hi]`` (the bounded maximum and inference of
    ``boxcoxstat.fit(x, bounds=)``: one more evaluation at an active bound, no other pass).
    ``federated["passes"]`` counts every graph that reads the full data: one set-up per
    column, the subsample's extraction (columns of more than 100,000 values) and ``rounds``.
    Case ``weights`` (``lm(x ~ 1, weights=w)``'s likelihood: the name of a column of a Dask
    DataFrame, a Dask array or Series, or a NumPy array cut at the data's chunks) are read
    and checked by the gate beside the values; the core merges the partitions' weighted
    moments and spends one more pass per family on the Jacobian's term
    (:class:`~boxcoxstat.core.partitioned.CaseWeights`); no subsample start.

    Examples
    --------
    >>> import numpy as np, dask.array as da, boxcoxstat as bcs
    >>> x = np.random.default_rng(0).lognormal(size=4000)
    >>> r = bcs.fit(da.from_array(x, chunks=500))
    >>> bool(abs(r.lmbda - bcs.fit(x).lmbda) < 1e-12), r.federated["clients"]
    (True, 8)
    """
    fam = normalize_family(family)
    ymax = check_ymax(ymax)
    check_option("missing", missing, ("drop", "raise"))
    check_option("optimizer", optimizer, OPTIMIZERS)
    read = read_dask(data, family=fam, missing=missing, weights=weights)
    limits = check_bounds(bounds, len(read.names))
    return _fit(read, fam, ymax=ymax, bounds=limits, optimizer=optimizer, grid=grid,
                split_every=split_every)


def fit_request(req: Request) -> PowerTransformResult:
    """The estimator table's rows for Dask input (``boxcoxstat.api.TABLE``):
    the collection the gate has read (:class:`~boxcoxstat._validation.partitions.
    Partitioned`; under scikit-learn's rule, ``PowerTransformer``, without its constant
    Yeo-Johnson columns), fitted by the core."""
    return _fit(req.data, req.family, ymax=req.ymax, bounds=req.bounds)


def _fit(read: Partitioned, family: str, *, ymax: float | None,
         bounds: NDArray[np.float64] | None, optimizer: str = "score", grid: int = 1000,
         split_every: int | None = None) -> PowerTransformResult:
    """The core's fit of the gate's columns with Dask injected, then the result. Below the
    core's first call nothing here calls a function of this package's model stage (the
    names and the tally are set up before; the warnings and the result after)."""
    import dask

    names = [c.name for c in read.columns]
    n_missing = [c.n_missing for c in read.columns]
    weighted = any(c.weights is not None for c in read.columns)
    tally = new_tally()
    tally["passes"] = read.passes
    fits = fit_held(read.columns, Tasks(dask.delayed, dask.compute, dask.persist,
                                        split_every or 8),
                    family, tally, optimizer=optimizer, grid=grid, ymax=ymax, bounds=bounds,
                    choose=auto_family)
    table = fit_table(fits, names)
    for text, category in table.warnings:
        warnings.warn(text, category, stacklevel=user_stacklevel())
    info = {"clients": read.clients, "unit": "partitions", "dropped": {},
            "optimizer": optimizer, **tally}
    if weighted:
        info["weighted"] = True
    return PowerTransformResult._from_table(table, names, read.kind, family, n_missing, info,
                                            ymax=ymax, bounds=bounds)
