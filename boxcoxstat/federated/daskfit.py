"""``boxcoxstat.fit`` on Dask arrays and DataFrames: partitions are the clients.

The data are never gathered. The gate reads the collection (its set-up pass,
:func:`boxcoxstat._validation.partitions.read_dask`: every partition's report, merged and
checked, naming column and partition); this module then hands the validated columns to the
core with Dask's own ``dask.delayed``, ``dask.compute`` and ``dask.persist`` injected
(:class:`~boxcoxstat.core.partitioned.Tasks`): each optimiser step is one graph in which
every partition computes its side moments at the requested lambda(s) and the results merge
pairwise in a tree (:mod:`boxcoxstat.core.partitioned`; Xu & Cormode's (2025) Algorithm 1
with Dask's scheduler as the server), checked against the rows each partition delivered in
the set-up pass. Case weights take the same route: the gate reads and checks them beside
the values in its set-up pass, and the core merges the partitions' weighted moments. Works
with the threaded scheduler and with ``dask.distributed`` (every function sent to the
workers is a picklable module-level function with plain-data arguments). During a fit no
function of this module runs between the core's first call and the result: the walk of the
data is gate, model, core, result.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._validation.partitions import Partitioned, read_dask
from .._validation.routes import Request
from ..core.bounds import check_bounds
from ..core.estimate import auto_family
from ..core.partitioned import Tasks, fit_held, held_table, new_tally
from ..exceptions import user_stacklevel
from ..univariate.results import PowerTransformResult
from .model import held_options

__all__ = ["fit_dask", "fit_request"]


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
    fam, ymax = held_options(family, ymax, missing, optimizer)
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
    table, info = held_table(fits, names, read.clients, optimizer, tally, weighted)
    for text, category in table.warnings:
        warnings.warn(text, category, stacklevel=user_stacklevel())
    return PowerTransformResult._from_table(table, names, read.kind, family, n_missing, info,
                                            ymax=ymax, bounds=bounds)
