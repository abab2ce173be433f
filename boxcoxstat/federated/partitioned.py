"""The engine every partitioned backend shares (Dask, Spark): per-partition summaries, their
merge, and the driver that fits lambda from them.

A backend only says how to run a function on every partition of a
column and bring the small results back (a :class:`Column`); everything numerical is here,
once: what a partition computes in the set-up pass (:func:`partition_report`: the validation
gate's column report, per-side counts and ranges) and in each evaluation
(:func:`partition_moments`: the side moments of the scaled transform in the global frame),
how two partitions' results merge (:func:`merge_reports`, :func:`merge_moment_parts`; Chan,
Golub & LeVeque 1982 through :func:`~boxcoxstat.federated.protocol.tree_merge`, Xu &
Cormode's (2025) Algorithm 1), and the fit (:func:`fit_partitioned`), which drives the
core's solver and inference through a :class:`~boxcoxstat.core.profile.CallbackProfile`.

Every full pass over the data is counted in the result's ``federated["passes"]``: the
set-up pass, the pass that extracts the systematic subsample of a large column (the solver's
start) and one per evaluation of the full profile (``rounds``).

Bounds on lambda (``bounds=``) are the driver's: the core's bounded solution and bounded
inference on the same profile (``fit_column``'s ``bounds``), no new pass. Case weights are
:mod:`~boxcoxstat.federated.daskweights`'s: a weight column travels with the values and the
weighted side moments merge the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from .._validation.columns import ColumnReport, check_column, check_option, normalize_family
from ..core.bounds import check_bounds
from ..core.likelihood import SideMoments
from ..core.profile import SUBSAMPLE_FROM, SUBSAMPLE_SIZE, CallbackProfile
from ..core.solve import OPTIMIZERS
from ..univariate.results import PowerTransformResult
from .model import ColumnFit, build_result, check_ymax, fit_column
from .protocol import GlobalFrame, global_nll_score, local_sides, tree_merge

__all__ = ["Column", "partition_report", "merge_reports", "partition_moments",
           "merge_moment_parts", "subsample_stride", "every", "fit_partitioned"]

Moments = dict[str, SideMoments | None]


class Column(Protocol):
    """One column as a backend holds it: each method is one pass over its partitions."""

    def moments(self, frame: GlobalFrame, lmbda: tuple[float, ...],
                shift_pos: tuple[float, ...], shift_neg: tuple[float, ...],
                score: bool) -> Moments:
        """Every partition's :func:`partition_moments`, merged (one pass)."""

    def subsample(self, stride: int) -> Column:
        """Every ``stride``-th value of each partition, kept where it lives (one pass)."""


# ----------------------------------------------------------------------- set-up
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
    >>> from boxcoxstat.federated.partitioned import partition_report
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
        for k in ("n_pos", "n_neg", "rows"):
            out[k] += p[k]
        out["pos"] = _join(out["pos"], p["pos"])
        out["neg"] = _join(out["neg"], p["neg"])
        if "by_partition" in out:  # a backend's own per-partition record (Dask's row counts)
            out["by_partition"] = {**out["by_partition"], **p["by_partition"]}
    return out


# ----------------------------------------------------------------------- evaluations
def partition_moments(x: NDArray[np.float64], frame: GlobalFrame, lmbda: tuple[float, ...],
                      shift_pos: tuple[float, ...], shift_neg: tuple[float, ...],
                      score: bool) -> Moments:
    """A partition's side moments at ``lmbda`` in the global ``frame`` (missing values
    dropped)."""
    x = np.asarray(x, dtype=np.float64).reshape(-1)
    ok = np.isfinite(x)
    if not ok.all():
        x = x[ok]
    pm, nm = frame.moments(local_sides(x, frame), np.asarray(lmbda), shift_pos, shift_neg,
                           score)
    return {"pos": pm, "neg": nm}


def merge_moment_parts(parts: Sequence[Moments]) -> Moments:
    """Merge partitions' moments side by side, pairwise through a queue."""
    pos = [p["pos"] for p in parts if p["pos"] is not None]
    neg = [p["neg"] for p in parts if p["neg"] is not None]
    return {"pos": tree_merge(pos), "neg": tree_merge(neg)}  # type: ignore[arg-type]


def subsample_stride(n: int) -> int:
    """The stride of the systematic subsample of ``n`` values (about 20,000 kept)."""
    return max(1, n // SUBSAMPLE_SIZE)


def every(x: NDArray[np.float64], stride: int) -> NDArray[np.float64]:
    """Every ``stride``-th value of a partition (a copy, so the partition can be freed)."""
    return np.asarray(x, dtype=np.float64).reshape(-1)[::stride].copy()


# ----------------------------------------------------------------------- the driver
def _evaluator(col: Column, frame: GlobalFrame, tally: dict[str, int], key: str):
    """The profile's callback: one pass over ``col`` per call, whatever the number of
    lambdas."""
    def evaluate(lam: NDArray, cols: NDArray | None = None, score: bool = True,
                 score_unit: NDArray | None = None):
        lam = np.atleast_1d(np.asarray(lam, dtype=np.float64))
        req = frame.request(lam.tolist(), score)
        out = col.moments(frame, req.lmbda, req.shift_pos, req.shift_neg, score)
        tally[key] += 1
        if key == "rounds":
            tally["passes"] += 1
        tally["evaluations"] += lam.size
        val, sc = global_nll_score(out["pos"], out["neg"], lam, frame.unit, score_unit)
        return val, (sc if score else np.full_like(val, np.nan))

    return evaluate


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
    """Fit lambda per column of partitioned data (what ``boxcoxstat.fit`` runs on Dask and
    Spark input).

    ``setup()`` runs the set-up pass(es) (``setup_passes`` of them: one per column on Dask,
    one for all columns on Spark) and returns, per column in ``names`` order, the merged
    :func:`partition_report` and the :class:`Column` the evaluations run on. The gate's
    checks run on the merged reports; then the core's solver finds each lambda from one pass
    per profile evaluation, starting from a systematic subsample of a column of more than
    100,000 values (one pass to extract it; its evaluations read only the subsample).

    With a list ``skipped``, constant columns of a Yeo-Johnson or ``"auto"`` fit are not
    fitted but their positions appended to it (scikit-learn's ``PowerTransformer`` leaves
    them unchanged); the result then has the other columns, or is ``None`` when none is
    left.

    ``bounds=(lo, hi)`` (or one pair per column) restricts each lambda to ``[lo, hi]``:
    the maximum on the bounds, its interval measured from it and LR tests against it, as
    ``boxcoxstat.fit(x, bounds=)`` in memory.
    """
    fam = normalize_family(family)
    limits = check_bounds(bounds, len(names))
    ymax = check_ymax(ymax)
    check_option("missing", missing, ("drop", "raise"))
    check_option("optimizer", optimizer, OPTIMIZERS)

    tally = {"passes": 0, "rounds": 0, "evaluations": 0, "fit_rounds": 0,
             "subsample_rounds": 0}
    columns = setup()
    tally["passes"] += setup_passes
    fits: list[ColumnFit] = []
    n_missing = []
    kept_names = []
    kept_limits = []
    for j, ((rep, col), name) in enumerate(zip(columns, names, strict=True)):
        r = rep["report"]
        if (skipped is not None and fam != "boxcox" and r.n_finite and not r.n_inf
                and r.lo == r.hi and (missing == "drop" or not r.n_missing)):
            skipped.append(j)
            continue
        kept_names.append(name)
        if limits is not None:
            kept_limits.append(limits[j])
        check_column(rep["report"], name, family=fam, missing=missing,
                     tiny_scale=True)  # the frame's unit lets lambda reach the inverse range
        n = rep["n_pos"] + rep["n_neg"]
        kept: list[Column] = []  # the subsample, extracted once for every family tried

        def prepare(f: str, col: Column = col, rep: dict = rep, n: int = n,
                    kept: list[Column] = kept) -> CallbackProfile:
            frame = GlobalFrame.from_ranges(f, rep["pos"], rep["neg"])
            sub = None
            if n > SUBSAMPLE_FROM and optimizer == "score":
                stride = subsample_stride(n)
                if not kept:
                    kept.append(col.subsample(stride))
                    tally["passes"] += 1  # reading every partition to keep its subsample
                part = kept[0]
                sub = CallbackProfile(_evaluator(part, frame, tally, "subsample_rounds"),
                                      np.array([max(1.0, n / stride)]),
                                      unit=np.array([frame.unit]),
                                      reach=np.array([frame.reach()]))
            return CallbackProfile(_evaluator(col, frame, tally, "rounds"),
                                   np.array([float(n)]), sub, unit=np.array([frame.unit]),
                                   reach=np.array([frame.reach()]))

        lo, hi = rep["report"].lo, rep["report"].hi
        fit = fit_column(prepare, fam, (lo, hi), n, optimizer=optimizer, grid=grid, ymax=ymax,
                         bounds=None if limits is None else limits[j : j + 1])
        tally["fit_rounds"] += fit.rounds
        fits.append(fit)
        n_missing.append(rep["report"].n_missing)
    if not fits:
        return None
    info = {"clients": int(clients), "unit": "partitions", "dropped": {},
            "optimizer": optimizer, **tally}
    return build_result(kept_names, kind, fam, fits, n_missing, info, ymax,
                        np.array(kept_limits) if limits is not None else None)
