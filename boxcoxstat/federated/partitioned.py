"""The partitioned engine's entry for backends that read their own collection (Spark): the
gate's checks of the set-up reports, then the core's fit.

The engine itself is the core's (:mod:`boxcoxstat.core.partitioned`: what a partition
computes in each evaluation, how the results merge, the driver that fits lambda from them)
and the gate's (:mod:`boxcoxstat._validation.partitions`: what a partition reports in the
set-up pass and how reports merge); both are re-exported here. Dask input is read by the
gate itself and fitted by :mod:`~boxcoxstat.federated.daskfit`; Spark's ``mapInArrow``
jobs (:mod:`~boxcoxstat.federated.sparkfit`) run the set-up pass here, as a
:class:`~boxcoxstat.core.partitioned.Column` whose methods are Spark jobs.

Every full pass over the data is counted in the result's ``federated["passes"]``: the
set-up pass, the pass that extracts the systematic subsample of a large column (the solver's
start) and one per evaluation of the full profile (``rounds``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .._validation.columns import check_column, check_option, normalize_family
from .._validation.partitions import merge_reports, partition_report
from ..core.bounds import check_bounds
from ..core.partitioned import (
    Column,
    HeldSample,
    every,
    fit_samples,
    merge_moment_parts,
    new_tally,
    partition_moments,
    subsample_stride,
)
from ..core.solve import OPTIMIZERS
from ..univariate.model import auto_family
from ..univariate.results import PowerTransformResult
from .model import build_result, check_ymax

__all__ = ["Column", "partition_report", "merge_reports", "partition_moments",
           "merge_moment_parts", "subsample_stride", "every", "fit_partitioned"]


def fit_partitioned(
    setup: Callable[[], list[tuple[dict[str, Any], Column]]],
    names: Sequence[str],
    kind: str,
    clients: int,
    *,
    family: str = "boxcox",
    missing: str = "drop",
    ymax: float | None = None,
    optimizer: str = "score",
    grid: int = 1000,
    setup_passes: int = 1,
    skipped: list[int] | None = None,
    bounds: Any = None,
) -> PowerTransformResult | None:
    """Fit lambda per column of partitioned data a backend reads itself (Spark).

    ``setup()`` runs the set-up pass(es) (``setup_passes`` of them) and returns, per column
    in ``names`` order, the merged :func:`partition_report` and the :class:`Column` the
    evaluations run on. The gate's checks run on the merged reports; then the core's solver
    finds each lambda from one pass per profile evaluation, starting from a systematic
    subsample of a column of more than 100,000 values (one pass to extract it; its
    evaluations read only the subsample).

    With a list ``skipped``, constant columns of a Yeo-Johnson or ``"auto"`` fit are not
    fitted but their positions appended to it (scikit-learn's ``PowerTransformer`` leaves
    them unchanged); the result then has the other columns, or is ``None`` when none is
    left. ``bounds=(lo, hi)`` (or one pair per column) restricts each lambda to
    ``[lo, hi]``, as ``boxcoxstat.fit(x, bounds=)`` in memory.
    """
    fam = normalize_family(family)
    limits = check_bounds(bounds, len(names))
    ymax = check_ymax(ymax)
    check_option("missing", missing, ("drop", "raise"))
    check_option("optimizer", optimizer, OPTIMIZERS)
    tally = new_tally()
    columns = setup()
    tally["passes"] += setup_passes
    samples, n_missing, kept_names, kept_limits = [], [], [], []
    for j, ((rep, col), name) in enumerate(zip(columns, names, strict=True)):
        r = rep["report"]
        if (skipped is not None and fam != "boxcox" and r.n_finite and not r.n_inf
                and r.lo == r.hi and (missing == "drop" or not r.n_missing)):
            skipped.append(j)
            continue
        check_column(r, name, family=fam, missing=missing,
                     tiny_scale=True)  # the frame's unit lets lambda reach the inverse range
        samples.append(HeldSample(col, rep["n_pos"] + rep["n_neg"], rep["pos"], rep["neg"],
                                  r.lo, r.hi))
        kept_names.append(name)
        n_missing.append(r.n_missing)
        if limits is not None:
            kept_limits.append(limits[j])
    if not samples:
        return None
    lim = np.array(kept_limits) if limits is not None else None
    fits = fit_samples(samples, fam, tally, optimizer=optimizer, grid=grid, ymax=ymax,
                       bounds=lim, choose=auto_family)
    info = {"clients": int(clients), "unit": "partitions", "dropped": {},
            "optimizer": optimizer, **tally}
    return build_result(kept_names, kind, fam, fits, n_missing, info, ymax, lim)
